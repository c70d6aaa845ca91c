// The contract oracle: is an answer in the shape its route family documents (README, the banking spec's Errors
// table, RFC 6749 at the token endpoint, HTML pages at authorize, the merchant family's reporting bodies
// (docs/errors/reporting.md), a plain JSON error elsewhere)? And is a 5xx one
// the contract documents for this input? Fuzz input never provokes maintenance, a handler timeout or a server
// failure, so API-520/522/523/526, `server_error`/`temporarily_unavailable` and any other 5xx count as unexpected.
import { STATUS_CODES } from 'node:http'
import { API_STATUS } from '../../src/banking/errors.js'
import { TOKEN_ERROR_CODES } from '../../src/oauth/errors.js'
import { REPORTING_CODES } from '../../src/merchant-api/errors.js'
import type { Answer } from './wire.js'

export type Family = 'banking' | 'token' | 'authorize' | 'reporting' | 'other'

export interface Verdict {
  family: Family
  /** How the answer is counted in the summary, e.g. `banking 400 API-420`. */
  label: string
  /** Why the answer is outside its contract; undefined when it is inside. */
  problem?: string
  /** A 5xx the contract does not promise for fuzz input (also counted as a problem). */
  unexpected5xx: boolean
}

/** Redirect URIs registered for the confidential client the campaign creates (exact match). */
export const PARTNER_REDIRECT = 'https://partner.example/callback'
/** Marker the XSS payloads carry: it must never come back as markup in a page. */
export const XSS_MARKERS = ['<script>alert(', '<svg onload', '<img src=x onerror']

function under(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/' || path[prefix.length] === '?')
}

/** The path as the router reads it: no fragment, percent-encoded unreserved characters decoded. */
export function normalise(target: string): string {
  return target.replace(/#[^?]*/, '').replace(/%([0-9a-f]{2})/gi, (m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16))
    return /[A-Za-z0-9._~-]/.test(ch) ? ch : m
  })
}

/**
 * The merchant API family's prefixes as the server mounts them (src/webhooks/feature.ts, src/reporting/feature.ts,
 * src/reporting/sandbox-feature.ts): reporting, webhook management, events and the sandbox, all behind the reporting
 * gateway and answering in the reporting family. Counted as `reporting` in a summary.
 */
export const MERCHANT_PREFIXES = ['/reporting/v3', '/sandbox/v1', '/notification-subscriptions', '/kms/egress', '/nrtf', '/webhooks']

export function familyOf(target: string): Family {
  const path = normalise(target)
  if (under(path, '/v2')) return 'banking'
  if (MERCHANT_PREFIXES.some((prefix) => under(path, prefix))) return 'reporting'
  if (under(path, '/oauth2/v3/token')) return 'token'
  // The pages' stylesheet and icon are served in the pages' scope, and answer its errors.
  if (under(path, '/oauth2/v3/authorize') || under(path, '/oauth2/v3/assets')) return 'authorize'
  return 'other'
}

const header = (a: Answer, name: string): string => {
  const v = a.headers[name]
  return Array.isArray(v) ? v.join(', ') : (v ?? '')
}

function json(a: Answer): unknown {
  try {
    return JSON.parse(a.body.toString('utf8'))
  } catch {
    return undefined
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const keys = (v: Record<string, unknown>) => Object.keys(v).sort().join(',')

/** The platform's own error shape: exactly {statusCode, error, message}, statusCode = HTTP status. */
function platformError(a: Answer, headOnly: boolean): string | undefined {
  if (headOnly) return undefined
  const body = json(a)
  if (!isObject(body) || keys(body) !== 'error,message,statusCode') return `not a {statusCode,error,message} body: ${a.body.toString('utf8').slice(0, 120)}`
  if (body['statusCode'] !== a.status) return `statusCode ${String(body['statusCode'])} differs from HTTP ${a.status}`
  if (body['error'] !== STATUS_CODES[a.status!]) return `error ${String(body['error'])} is not HTTP ${a.status}'s reason`
  return undefined
}

function banking(a: Answer, headOnly: boolean): { label: string; problem?: string; unexpected: boolean } {
  const status = a.status!
  if (headOnly) {
    const known = Object.values(API_STATUS).some((s) => s.http === status)
    return { label: `banking ${status} (HEAD)`, problem: known ? undefined : `HTTP ${status} is in no row of the table`, unexpected: status >= 500 }
  }
  if (!header(a, 'content-type').startsWith('application/json')) return { label: `banking ${status}`, problem: `content-type ${header(a, 'content-type')}`, unexpected: status >= 500 }
  const body = json(a)
  const block = isObject(body) ? body['status'] : undefined
  if (!isObject(block)) return { label: `banking ${status}`, problem: `no status block: ${a.body.toString('utf8').slice(0, 120)}`, unexpected: status >= 500 }
  const code = String(block['code'])
  const row = (API_STATUS as Record<string, { message: string; http: number }>)[code]
  const label = `banking ${status} ${code}`
  if (!row) return { label, problem: `unknown code ${code}`, unexpected: status >= 500 }
  if (row.http !== status) return { label, problem: `${code} answered with HTTP ${status}, the table says ${row.http}`, unexpected: status >= 500 }
  if (block['message'] !== row.message) return { label, problem: `message ${String(block['message'])} is not the table's`, unexpected: false }
  const extra = Object.keys(block).filter((k) => !['code', 'message', 'details'].includes(k))
  if (extra.length) return { label, problem: `status has extra members ${extra.join(',')}`, unexpected: false }
  if (block['details'] !== undefined && !Array.isArray(block['details'])) return { label, problem: 'status.details is not a list', unexpected: false }
  return { label, unexpected: status >= 500 }
}

function token(a: Answer, method: string, exact: boolean): { label: string; problem?: string; unexpected: boolean } {
  const status = a.status!
  const type = header(a, 'content-type')
  // Only a POST to the endpoint itself is routed to it; other methods and paths below it are unknown routes.
  if (!type.startsWith('application/json;charset=UTF-8')) {
    if (!(method === 'POST' && exact) || status === 404) {
      const problem = platformError(a, method === 'HEAD')
      return { label: `token ${status} (platform)`, problem, unexpected: status >= 500 }
    }
    return { label: `token ${status}`, problem: `content-type ${type}`, unexpected: status >= 500 }
  }
  const body = json(a)
  if (!isObject(body)) return { label: `token ${status}`, problem: 'body is not a JSON object', unexpected: status >= 500 }
  if (status === 200) {
    const ok = keys(body) === 'access_token,client_status,expires_in,refresh_token,refresh_token_expires_in,scope,token_type'
    return { label: 'token 200', problem: ok ? undefined : `success body members ${keys(body)}`, unexpected: false }
  }
  const error = String(body['error'])
  const label = `token ${status} ${error}`
  if (status !== 500) return { label, problem: `HTTP ${status}: every token failure answers 500`, unexpected: status > 500 }
  if (keys(body) !== 'error,error_description' || typeof body['error_description'] !== 'string') return { label, problem: `error body members ${keys(body)}`, unexpected: true }
  if (!(TOKEN_ERROR_CODES as readonly string[]).includes(error)) return { label, problem: `error ${error} is no RFC 6749 code`, unexpected: true }
  if (header(a, 'cache-control') !== 'no-store') return { label, problem: 'no Cache-Control: no-store', unexpected: false }
  return { label, unexpected: error === 'server_error' || error === 'temporarily_unavailable' }
}

/** Where a 303 may go: a registered redirect URI of the sandbox client (http on localhost/127.0.0.1) or the partner's. */
export function redirectAllowed(location: string): boolean {
  if (location.startsWith(`${PARTNER_REDIRECT}?`)) return true
  let url: URL
  try {
    url = new URL(location)
  } catch {
    return false
  }
  if (url.username || url.password || url.hash) return false
  if (url.protocol !== 'http:' || !['localhost', '127.0.0.1'].includes(url.hostname)) return false
  // The redirect must start with exactly what was parsed: no backslashes or encoded tricks the browser reads otherwise.
  return /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|\?|$)/.test(location)
}

function authorize(a: Answer, method: string, path: string): { label: string; problem?: string; unexpected: boolean } {
  const status = a.status!
  const type = header(a, 'content-type')
  const exact = path === '/oauth2/v3/authorize'
  if (path.startsWith('/oauth2/v3/assets/') && status === 200) return { label: 'authorize 200 asset', problem: /^(text\/css|image\/svg\+xml)/.test(type) ? undefined : `asset type ${type}`, unexpected: false }
  if (!type.startsWith('text/html')) {
    if (status === 303) return check303(a)
    // Other methods are unknown routes; a request the parser rejected answers a plain JSON 400.
    if (!exact || !['GET', 'POST'].includes(method) || status === 404 || status === 400) {
      return { label: `authorize ${status} (platform)`, problem: platformError(a, method === 'HEAD'), unexpected: status >= 500 }
    }
    return { label: `authorize ${status}`, problem: `content-type ${type}`, unexpected: status >= 500 }
  }
  const label = `authorize ${status}`
  // 429 is the sign-in throttle's page (README, OAuth throttling), documented with its Retry-After.
  const throttled = status === 429 && /^\d+$/.test(header(a, 'retry-after'))
  if (![200, 400, 403].includes(status) && !throttled) return { label, problem: `HTTP ${status} is not a documented page status`, unexpected: status >= 500 }
  const html = a.body.toString('utf8')
  const echoed = XSS_MARKERS.find((m) => html.includes(m))
  if (echoed) return { label, problem: `the page echoes markup ${echoed}`, unexpected: false }
  if (header(a, 'x-frame-options') !== 'DENY' || !header(a, 'content-security-policy').includes("default-src 'none'")) return { label, problem: 'page security headers missing', unexpected: false }
  return { label, unexpected: false }
}

function check303(a: Answer): { label: string; problem?: string; unexpected: boolean } {
  const location = header(a, 'location')
  return { label: 'authorize 303', problem: redirectAllowed(location) ? undefined : `redirect to an unregistered URI: ${location.slice(0, 200)}`, unexpected: false }
}

type Judged = { label: string; problem?: string; unexpected: boolean }

/** The subscription PUTs, whose 400 is the reference's Error Bean rather than the family's body. */
const ERROR_BEAN_PATHS = ['/reporting/v3/report-subscriptions', '/reporting/v3/predefined-report-subscriptions']
/** Bodies a 2xx of the family may carry: JSON, and report files and on-demand reports as CSV or XML. */
const SUCCESS_TYPES = /^(application\/json|text\/csv|application\/xml)(;|$)/

/** A 2xx: a status some route answers (206 a byte range of a download), a JSON body that parses, or a report file. */
function merchantSuccess(a: Answer, path: string, head: boolean): Judged {
  const status = a.status!
  const label = `reporting ${status}`
  if (![200, 201, 202].includes(status) && !(status === 206 && path === '/reporting/v3/report-downloads')) return { label, problem: `HTTP ${status} is no success the family answers`, unexpected: false }
  if (head || a.body.length === 0) return { label, unexpected: false }
  const type = header(a, 'content-type')
  if (!SUCCESS_TYPES.test(type)) return { label, problem: `content-type ${type}`, unexpected: false }
  if (type.startsWith('application/json') && header(a, 'content-encoding') === '' && json(a) === undefined) return { label, problem: 'a JSON body that does not parse', unexpected: false }
  return { label, unexpected: false }
}

/** The Error Bean of the subscription PUTs: {code, message, localizationKey, detail, fields: [{path, message, localizationKey}]}. */
function errorBean(body: Record<string, unknown>, method: string, path: string): Judged {
  const label = 'reporting 400 VALIDATION_ERROR'
  if (method !== 'PUT' || !ERROR_BEAN_PATHS.some((p) => path.startsWith(p))) return { label, problem: `the Error Bean on ${method} ${path}`, unexpected: false }
  const fields = body['fields']
  const ok = keys(body) === 'code,detail,fields,localizationKey,message' && body['message'] === REPORTING_CODES.VALIDATION_ERROR.message && typeof body['detail'] === 'string'
    && Array.isArray(fields) && fields.every((f) => isObject(f) && keys(f) === 'localizationKey,message,path' && typeof f['path'] === 'string' && typeof f['message'] === 'string')
  return { label, problem: ok ? undefined : `not the Error Bean: ${JSON.stringify(body).slice(0, 160)}`, unexpected: false }
}

/**
 * The merchant family (reporting, webhook management, events, sandbox): 401 `{response: {rmsg}}`; a success; a 304
 * without a body; the subscription PUTs' Error Bean; else `{submitTimeUtc, reason, message, details}` at the status
 * and with the message its table gives the reason (a 429 with Retry-After), details each `{field?, reason}`.
 */
function reporting(a: Answer, method: string, path: string): Judged {
  const status = a.status!
  const head = method === 'HEAD'
  const body = json(a)
  if (status === 401) {
    const rmsg = isObject(body) && isObject(body['response']) ? body['response']['rmsg'] : undefined
    const ok = head || (rmsg === 'Authentication Failed' && isObject(body) && keys(body) === 'response')
    return { label: 'reporting 401', problem: ok ? undefined : `not the 401 body: ${a.body.toString('utf8').slice(0, 120)}`, unexpected: false }
  }
  if (status === 304) return { label: 'reporting 304', problem: a.body.length ? 'a 304 with a body' : undefined, unexpected: false }
  if (status >= 200 && status < 300) return merchantSuccess(a, path, head)
  if (status === 416 && path === '/reporting/v3/report-downloads') return { label: 'reporting 416', problem: header(a, 'content-range') ? undefined : 'a 416 without Content-Range', unexpected: false }
  if (isObject(body) && body['code'] === 'VALIDATION_ERROR' && status === 400) return errorBean(body, method, path)
  const reason = isObject(body) ? body['reason'] : undefined
  const label = `reporting ${status} ${typeof reason === 'string' ? reason : ''}`.trim()
  if (head) {
    const known = Object.values(REPORTING_CODES).some((c) => c.http === status)
    return { label: `reporting ${status} (HEAD)`, problem: known ? undefined : `HTTP ${status} is in no row of the table`, unexpected: status >= 500 }
  }
  const code = typeof reason === 'string' && Object.hasOwn(REPORTING_CODES, reason) ? REPORTING_CODES[reason as keyof typeof REPORTING_CODES] : undefined
  const details = isObject(body) ? body['details'] : undefined
  if (!isObject(body) || !code || code.http !== status || typeof body['submitTimeUtc'] !== 'string' || !Array.isArray(details)) {
    return { label, problem: `not a reporting error body: ${a.body.toString('utf8').slice(0, 120)}`, unexpected: status >= 500 }
  }
  if (keys(body) !== 'details,message,reason,submitTimeUtc') return { label, problem: `error body members ${keys(body)}`, unexpected: status >= 500 }
  if (body['message'] !== code.message) return { label, problem: `message ${String(body['message'])} is not the table's`, unexpected: status >= 500 }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(body['submitTimeUtc'])) return { label, problem: `submitTimeUtc ${body['submitTimeUtc']}`, unexpected: status >= 500 }
  if (!details.every((d) => isObject(d) && typeof d['reason'] === 'string' && (d['field'] === undefined || typeof d['field'] === 'string'))) return { label, problem: 'details are not {field?, reason}', unexpected: status >= 500 }
  if (status === 429 && !/^\d+$/.test(header(a, 'retry-after'))) return { label, problem: 'a 429 without Retry-After', unexpected: false }
  if (!header(a, 'content-type').startsWith('application/json')) return { label, problem: `content-type ${header(a, 'content-type')}`, unexpected: status >= 500 }
  return { label, unexpected: status >= 500 }
}

/** Paths outside the API families that answer 2xx or 3xx: the home page (`GET /`), health, metrics, the documents. */
const PLATFORM_PAGES = /^\/($|health\/(live|ready)|metrics|openapi\.json|docs|oauth2\/v3\/assets\/)/

function other(a: Answer, method: string, path: string): { label: string; problem?: string; unexpected: boolean } {
  const status = a.status!
  const label = `other ${status}`
  if (status < 400) {
    if (!PLATFORM_PAGES.test(path)) return { label, problem: `HTTP ${status} on an unknown path`, unexpected: false }
    if (path.startsWith('/health/ready') && status !== 200) return { label, problem: 'not ready', unexpected: false }
    return { label, unexpected: false }
  }
  return { label, problem: platformError(a, method === 'HEAD'), unexpected: status >= 500 }
}

/** The verdict on one answer to a request at `target` (the request target as sent, query included). */
export function judge(a: Answer, method: string, target: string, slowLimitMs: number): Verdict {
  const family = familyOf(target)
  if (a.incomplete || a.status === undefined) {
    return { family, label: `${family} no answer`, problem: `no complete answer (${a.body.length} bytes before ${a.elapsedMs} ms)`, unexpected5xx: false }
  }
  const path = normalise(target.split('?')[0] ?? '')
  const result =
    family === 'banking' ? banking(a, method === 'HEAD')
    : family === 'token' ? token(a, method, path === '/oauth2/v3/token')
    : family === 'authorize' ? authorize(a, method, path)
    : family === 'reporting' ? reporting(a, method, path)
    : other(a, method, path)
  let problem = result.problem
  if (!problem && !header(a, 'x-correlationid')) problem = 'no X-CorrelationID'
  if (!problem && a.status >= 500 && result.unexpected) problem = `unexpected ${a.status}`
  if (!problem && a.afterLastByteMs > slowLimitMs) problem = `slow: ${a.afterLastByteMs} ms`
  return { family, label: result.label, problem, unexpected5xx: a.status >= 500 && result.unexpected }
}
