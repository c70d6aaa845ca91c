// The meaning of a subscription request: products and event types from the catalog, the retry policy within its
// limits, the scope, the security policy and the URLs' form. Every problem is collected with the member named
// (`products[1].eventTypes[0]`, `retryPolicy.interval`), so one 400 lists them all. Where the URLs resolve is checked
// by the service (DNS), after these.
import type { ErrorDetail } from '../../platform/errors.js'
import { findProduct } from '../catalog.js'
import { DEFAULT_RETRY_POLICY, LIMITS, type RetryPolicy } from '../delivery/retry-policy.js'
import type { NotificationScope, ProductSubscription, SecurityPolicy } from '../types.js'
import type { RetryPolicyIn, SecurityPolicyIn } from './schemas.js'

export type Details = ErrorDetail[]

/** An absolute http(s) URL without credentials; https only when `httpsOnly`. */
export function checkUrl(value: string, field: string, httpsOnly: boolean, details: Details): URL | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    details.push({ field, reason: 'must be an absolute URL' })
    return undefined
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !httpsOnly)) {
    details.push({ field, reason: httpsOnly ? 'must be an https URL' : 'must be an http or https URL' })
    return undefined
  }
  if (url.username || url.password) {
    details.push({ field, reason: 'must not carry credentials' })
    return undefined
  }
  return url
}

export function checkProducts(raw: { productId: string; eventTypes: string[] }[], details: Details): ProductSubscription[] {
  if (raw.length === 0) details.push({ field: 'products', reason: 'must name at least one product' })
  const seen = new Set<string>()
  return raw.map((p, i) => {
    const product = findProduct(p.productId)
    if (!product) details.push({ field: `products[${i}].productId`, reason: 'unknown product (see GET /notification-subscriptions/v2/products/{organizationId})' })
    else if (seen.has(p.productId)) details.push({ field: `products[${i}].productId`, reason: 'is listed twice' })
    seen.add(p.productId)
    if (p.eventTypes.length === 0) details.push({ field: `products[${i}].eventTypes`, reason: 'must name at least one event type' })
    p.eventTypes.forEach((e, j) => {
      if (product && !product.eventTypes.some((t) => t.eventName === e)) details.push({ field: `products[${i}].eventTypes[${j}]`, reason: `not an event type of ${p.productId}` })
    })
    return { productId: p.productId, eventTypes: [...new Set(p.eventTypes)] }
  })
}

function numberOf(value: number | string | undefined, field: string, fallback: number, range: { min: number; max: number; integer?: boolean }, details: Details): number {
  if (value === undefined) return fallback
  const n = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN
  if (!Number.isFinite(n) || n < range.min || n > range.max || (range.integer && !Number.isInteger(n))) {
    details.push({ field, reason: `must be ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}` })
    return fallback
  }
  return n
}

/** The policy given, over `base` (the defaults, or the subscription's current policy for a PATCH). */
export function checkRetryPolicy(raw: RetryPolicyIn | undefined, details: Details, base: RetryPolicy = DEFAULT_RETRY_POLICY): RetryPolicy {
  if (!raw) return base
  const f = (name: string) => `retryPolicy.${name}`
  const algorithm = raw.algorithm === undefined ? base.algorithm : raw.algorithm.toUpperCase()
  if (algorithm !== 'ARITHMETIC' && algorithm !== 'GEOMETRIC') details.push({ field: f('algorithm'), reason: 'must be ARITHMETIC or GEOMETRIC' })
  const geometric = algorithm === 'GEOMETRIC'
  const flag = raw.deactivateFlag === undefined ? base.deactivateFlag : String(raw.deactivateFlag).toLowerCase()
  if (flag !== 'true' && flag !== 'false') details.push({ field: f('deactivateFlag'), reason: 'must be "true" or "false"' })
  const minutes = { min: 0, max: LIMITS.minutes }
  return {
    algorithm: geometric ? 'GEOMETRIC' : 'ARITHMETIC',
    firstRetry: numberOf(raw.firstRetry, f('firstRetry'), base.firstRetry, minutes, details),
    interval: numberOf(raw.interval, f('interval'), geometric && base.interval < 1 ? 1 : base.interval, geometric ? { min: 1, max: LIMITS.geometricRatio } : minutes, details),
    numberOfRetries: numberOf(raw.numberOfRetries, f('numberOfRetries'), base.numberOfRetries, { min: 0, max: LIMITS.numberOfRetries, integer: true }, details),
    deactivateFlag: flag === 'true' ? 'true' : 'false',
    repeatSequenceCount: numberOf(raw.repeatSequenceCount, f('repeatSequenceCount'), base.repeatSequenceCount, { min: 0, max: LIMITS.repeatSequenceCount, integer: true }, details),
    repeatSequenceWaitTime: numberOf(raw.repeatSequenceWaitTime, f('repeatSequenceWaitTime'), base.repeatSequenceWaitTime, minutes, details),
    ...(raw.additionalAttributes ?? base.additionalAttributes ? { additionalAttributes: raw.additionalAttributes ?? base.additionalAttributes } : {}),
  }
}

export function checkScope(raw: string | undefined, details: Details, base: NotificationScope = 'DESCENDANTS'): NotificationScope {
  if (raw === undefined) return base
  const scope = raw.toUpperCase()
  if (scope === 'SELF' || scope === 'DESCENDANTS') return scope
  details.push({ field: 'notificationScope', reason: 'must be SELF or DESCENDANTS' })
  return base
}

export function checkSecurityPolicy(raw: SecurityPolicyIn | undefined, details: Details): SecurityPolicy {
  const securityType = raw?.securityType ?? 'key'
  if (securityType.toLowerCase() !== 'key') details.push({ field: 'securityPolicy.securityType', reason: 'only key (digital signature) is supported; oAuth and oAuth_JWT are not' })
  return raw?.config ? { securityType, config: raw.config } : { securityType }
}
