// The contract oracle: is an answer in the shape its route family documents (README, the banking spec's Errors
// table, RFC 6749 at the token endpoint, HTML pages at authorize, a plain JSON error elsewhere)? And is a 5xx one
// the contract documents for this input? Fuzz input never provokes maintenance, a handler timeout or a server
// failure, so API-520/522/523/526, `server_error`/`temporarily_unavailable` and any other 5xx count as unexpected.
import { STATUS_CODES } from 'node:http'
import { API_STATUS } from '../../src/banking/errors.js'
import { TOKEN_ERROR_CODES } from '../../src/oauth/errors.js'
import { REPORTING_CODES } from '../../src/reporting/errors.js'
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

export function familyOf(target: string): Family {
  const path = normalise(target)
  if (under(path, '/v2')) return 'banking'
  if (under(path, '/reporting/v3')) return 'reporting'
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

/**
 * The reporting family (the fuzz sends it no valid signature): 401 `{response: {rmsg}}`, or its
 * `{submitTimeUtc, reason, message, details}` body at the status its table gives the reason.
 */
function reporting(a: Answer, head: boolean): { label: string; problem?: string; unexpected: boolean } {
  const status = a.status!
  const body = json(a) as Record<string, unknown> | undefined
  if (status === 401) {
    const rmsg = (body?.['response'] as Record<string, unknown> | undefined)?.['rmsg']
    return { label: 'reporting 401', problem: head || rmsg === 'Authentication Failed' ? undefined : `not the 401 body: ${a.body.toString('utf8').slice(0, 120)}`, unexpected: false }
  }
  const reason = body?.['reason']
  const label = `reporting ${status} ${typeof reason === 'string' ? reason : ''}`.trim()
  if (head) return { label, unexpected: status >= 500 }
  const code = typeof reason === 'string' ? (REPORTING_CODES as Record<string, { http: number }>)[reason] : undefined
  if (!code || code.http !== status || typeof body?.['submitTimeUtc'] !== 'string' || !Array.isArray(body?.['details'])) {
    return { label, problem: `not a reporting error body: ${a.body.toString('utf8').slice(0, 120)}`, unexpected: status >= 500 }
  }
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
    : family === 'reporting' ? reporting(a, method === 'HEAD')
    : other(a, method, path)
  let problem = result.problem
  if (!problem && !header(a, 'x-correlationid')) problem = 'no X-CorrelationID'
  if (!problem && a.status >= 500 && result.unexpected) problem = `unexpected ${a.status}`
  if (!problem && a.afterLastByteMs > slowLimitMs) problem = `slow: ${a.afterLastByteMs} ms`
  return { family, label: result.label, problem, unexpected5xx: a.status >= 500 && result.unexpected }
}
