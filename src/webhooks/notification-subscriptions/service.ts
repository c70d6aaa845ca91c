// Webhook subscriptions of an organization: the products it may subscribe to, create (ACTIVE at once), list, read,
// update, activate or deactivate, delete, and send a test notification. Every call names the acting organization;
// a subscription is reached only through an organization that may act for its owner, and any other id answers
// exactly as an unknown one. Nothing is stored when a request has a problem: every problem is answered at once.
import { randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import { invalid, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { AddressGuard } from '../../platform/outbound-http.js'
import { PRODUCTS } from '../catalog.js'
import type { DeliveryService, TestResult } from '../delivery/service.js'
import type { Acting, WebhookKeyService } from '../keys/service.js'
import type { Subscription, SubscriptionStore } from '../types.js'
import * as repo from './repository.js'
import type { CreateWebhook, ProductList, UpdatedWebhook, UpdateStatus, UpdateWebhook, Webhook } from './schemas.js'
import { checkProducts, checkRetryPolicy, checkScope, checkSecurityPolicy, checkUrl, type Details } from './validate.js'

export interface SubscriptionDeps {
  db: Executor
  clock: Clock
  /** https only, and the URL checks of production. */
  production: boolean
  guard: Pick<AddressGuard, 'check'>
  organizations: Pick<OrganizationService, 'mayActFor'>
  keys: Pick<WebhookKeyService, 'usable' | 'signingKey'>
  delivery: Pick<DeliveryService, 'resume' | 'sendTest' | 'queueTest' | 'cancelUndelivered' | 'forget'>
  /** The test call's attempt is made during the request: it must end well before the request's own deadline. */
  testTimeoutMs: number
}

export interface WebhookSubscriptions {
  products(acting: Acting, organizationId: string): Promise<ProductList>
  create(acting: Acting, body: CreateWebhook): Promise<Webhook>
  list(organizationId: string, filter: { productId?: string; eventType?: string }): Promise<Webhook[]>
  get(acting: Acting, id: string): Promise<Webhook>
  update(acting: Acting, id: string, body: UpdateWebhook): Promise<UpdatedWebhook>
  setStatus(acting: Acting, id: string, body: UpdateStatus): Promise<void>
  remove(acting: Acting, id: string): Promise<void>
  test(acting: Acting, id: string): Promise<TestResult>
  /**
   * The console's test send: a test notification written as a row with a delivery job (HELD while the subscription
   * is INACTIVE), delivered by the jobs facility rather than during the request. Its notification id.
   */
  queueTest(acting: Acting, id: string, source: string): Promise<string>
  /** The subscription, if the acting caller may manage it; notFound() otherwise (tenancy). */
  owned(acting: Acting, id: string): Promise<Subscription>
}

export function toWebhook(s: Subscription): Webhook {
  return {
    webhookId: s.id,
    organizationId: s.organizationId,
    products: s.products,
    webhookUrl: s.webhookUrl,
    ...(s.healthCheckUrl === null ? {} : { healthCheckUrl: s.healthCheckUrl }),
    status: s.status,
    ...(s.name === null ? {} : { name: s.name }),
    ...(s.description === null ? {} : { description: s.description }),
    retryPolicy: s.retryPolicy,
    securityPolicy: s.securityPolicy,
    createdOn: s.createdAt,
    notificationScope: s.notificationScope,
  }
}

/** The subscriptions as delivery and event publishing read and move them (their door to this module's rows). */
export function createSubscriptionStore(db: Executor): SubscriptionStore {
  return {
    find: (id, executor = db) => repo.find(executor, id),
    ofOrganizations: (executor, organizationIds) => repo.ofOrganizations(executor, organizationIds),
    moveStatus: (executor, id, from, to, reason, now) => repo.moveStatus(executor, id, from, to, reason, now),
  }
}

const unknownWebhook = () => notFound([{ field: 'webhookId', reason: 'no such webhook subscription' }])

export function createWebhookSubscriptions(deps: SubscriptionDeps): WebhookSubscriptions {
  const { db, clock } = deps

  async function owned(acting: Acting, id: string): Promise<Subscription> {
    const sub = await repo.find(db, id)
    if (!sub || !(await deps.organizations.mayActFor(acting.authenticatedId, sub.organizationId))) throw unknownWebhook()
    return sub
  }

  /** Where the URLs lead (checked again when connecting, against DNS rebinding), and the signing key. */
  async function checkReachAndKey(s: Subscription, details: Details): Promise<void> {
    for (const [field, value] of [['webhookUrl', s.webhookUrl], ['healthCheckUrl', s.healthCheckUrl]] as const) {
      if (value === null || details.some((d) => d.field === field)) continue
      const where = await deps.guard.check(new URL(value).hostname)
      if (!where.ok) details.push({ field, reason: where.reason === 'unresolvable' ? 'its host does not resolve' : `its host resolves to ${where.address}, a private, loopback, link-local or metadata address (an operator may allow its network: WEBHOOK_ALLOWED_NETWORKS)` })
    }
    const keyId = s.securityPolicy.config?.additionalConfig?.keyId
    if (keyId !== undefined) {
      if (!(await deps.keys.usable(s.organizationId, keyId))) details.push({ field: 'securityPolicy.config.additionalConfig.keyId', reason: 'not an active signing key of the organization' })
    } else if (!(await deps.keys.signingKey(s.organizationId))) {
      details.push({ field: 'securityPolicy', reason: 'the organization has no digital signature key: create one first (POST /kms/egress/v2/keys-sym)' })
    }
  }

  const urlOrNull = (value: string | null | undefined, field: string, details: Details) => (value ? (checkUrl(value, field, deps.production, details) ? value : null) : null)

  return {
    owned,

    async products(acting, organizationId) {
      if (organizationId !== acting.id && !(await deps.organizations.mayActFor(acting.authenticatedId, organizationId))) throw notFound([{ field: 'organizationId', reason: 'no such organization' }])
      return PRODUCTS.map((p) => ({ productId: p.productId, productName: p.productName, eventTypes: p.eventTypes.map((e) => ({ ...e, timeSensitivity: false, payloadEncryption: false })) }))
    },

    async create(acting, body) {
      const details: ErrorDetail[] = []
      const now = clock.now().toISOString()
      const sub: Subscription = {
        id: randomUUID(),
        organizationId: acting.id,
        name: body.name ?? null,
        description: body.description ?? null,
        products: checkProducts(body.products, details),
        webhookUrl: urlOrNull(body.webhookUrl, 'webhookUrl', details) ?? body.webhookUrl,
        healthCheckUrl: urlOrNull(body.healthCheckUrl, 'healthCheckUrl', details),
        retryPolicy: checkRetryPolicy(body.retryPolicy, details),
        securityPolicy: checkSecurityPolicy(body.securityPolicy, details),
        notificationScope: checkScope(body.notificationScope, details),
        status: 'ACTIVE',
        statusReason: null,
        createdAt: now,
        updatedAt: now,
      }
      await checkReachAndKey(sub, details)
      if (details.length > 0) throw invalid(details)
      await repo.insert(db, sub)
      return toWebhook(sub)
    },

    async list(organizationId, filter) {
      const all = await repo.listByOrganization(db, organizationId)
      return all
        .filter((s) => (filter.productId === undefined || s.products.some((p) => p.productId === filter.productId)) && (filter.eventType === undefined || s.products.some((p) => p.eventTypes.includes(filter.eventType!))))
        .map(toWebhook)
    },

    async get(acting, id) {
      return toWebhook(await owned(acting, id))
    },

    async update(acting, id, body) {
      const current = await owned(acting, id)
      const details: ErrorDetail[] = []
      if (body.organizationId !== undefined && body.organizationId !== current.organizationId) details.push({ field: 'organizationId', reason: 'a subscription cannot move to another organization' })
      const next: Subscription = {
        ...current,
        name: body.name ?? current.name,
        description: body.description === undefined ? current.description : body.description,
        products: body.products ? checkProducts(body.products, details) : current.products,
        webhookUrl: body.webhookUrl === undefined ? current.webhookUrl : (urlOrNull(body.webhookUrl, 'webhookUrl', details) ?? body.webhookUrl),
        healthCheckUrl: body.healthCheckUrl === undefined ? current.healthCheckUrl : urlOrNull(body.healthCheckUrl, 'healthCheckUrl', details),
        retryPolicy: checkRetryPolicy(body.retryPolicy, details, current.retryPolicy),
        securityPolicy: body.securityPolicy ? checkSecurityPolicy(body.securityPolicy, details) : current.securityPolicy,
        notificationScope: checkScope(body.notificationScope, details, current.notificationScope),
        updatedAt: clock.now().toISOString(),
      }
      await checkReachAndKey(next, details)
      if (details.length > 0) throw invalid(details)
      await repo.replace(db, next)
      deps.delivery.forget(id)
      return { ...toWebhook(next), updatedOn: next.updatedAt }
    },

    async setStatus(acting, id, body) {
      const sub = await owned(acting, id)
      const status = (body.status ?? 'INACTIVE').toUpperCase()
      if (status !== 'ACTIVE' && status !== 'INACTIVE') throw invalid([{ field: 'status', reason: 'must be ACTIVE or INACTIVE' }])
      const now = clock.now().toISOString()
      if (status === 'INACTIVE') await repo.moveStatus(db, id, ['ACTIVE', 'SUSPENDED'], 'INACTIVE', null, now)
      else if (sub.status === 'SUSPENDED') await deps.delivery.resume(id, 'activated by its owner')
      else await repo.moveStatus(db, id, ['INACTIVE'], 'ACTIVE', null, now)
      deps.delivery.forget(id)
    },

    async remove(acting, id) {
      await owned(acting, id)
      const now = clock.now().toISOString()
      await db.transaction().execute(async (trx) => {
        await repo.remove(trx, id)
        await deps.delivery.cancelUndelivered(trx, id, now)
      })
      deps.delivery.forget(id)
    },

    async test(acting, id) {
      return deps.delivery.sendTest(await owned(acting, id), deps.testTimeoutMs)
    },

    async queueTest(acting, id, source) {
      return deps.delivery.queueTest(await owned(acting, id), source)
    },
  }
}
