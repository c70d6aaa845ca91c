// HTTP Signature as the real reporting service checks it and as its official SDKs sign (reference README;
// cybersource-rest-client's SignatureParameterGenerator): one `name: value` line per name of the signature's
// `headers` parameter, joined by `\n`, HMAC-SHA256 under the base64-decoded shared secret. Pure functions only;
// the gateway (gateway.ts) looks the key up and answers.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/** How far the `date` header may be from the server's clock, either way. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000

/** The headers every signature must cover (and one date header), and the one more a request with a body must. */
const ALWAYS_SIGNED = ['host', 'request-target', 'v-c-merchant-id'] as const
/**
 * Where the signed date may be: `date`, as the official SDKs send it, or `v-c-date`, the same RFC 7231 date for a
 * client that cannot set `Date` (a browser may not: it is a forbidden request header, so the sandbox's /docs page
 * signs `v-c-date`). A signature covers exactly one of them, and that one is the date checked.
 */
const DATE_HEADERS = ['date', 'v-c-date'] as const
const SIGNABLE = new Set<string>([...ALWAYS_SIGNED, ...DATE_HEADERS, 'digest'])
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

export interface SignatureParams {
  keyId: string
  algorithm: string
  headers: string[]
  signature: string
}

/** Why a request was refused: counted in the log, never told to the caller. */
export type SignatureFailure =
  | 'missing_headers'
  | 'malformed_signature'
  | 'unsupported_algorithm'
  | 'unsigned_headers'
  | 'bad_date'
  | 'stale_date'
  | 'bad_digest'
  | 'unknown_key'
  | 'bad_signature'
  | 'merchant_not_allowed'
  | 'signature_replayed'

/** One `name="value"` parameter and the comma (or the end) after it, matched where the last one ended. */
const PARAMETER = /\s*([a-zA-Z]+)="([^"]*)"\s*(,|$)/y

/** Parses `keyid="…", algorithm="…", headers="…", signature="…"`; undefined unless all four are there, once each. */
export function parseSignatureHeader(value: string): SignatureParams | undefined {
  // Every call's first work: a loop over one sticky expression, without a Map or an iterator per call.
  let keyId: string | undefined
  let algorithm: string | undefined
  let headers: string | undefined
  let signature: string | undefined
  let others: string[] | undefined
  for (let at = 0; at < value.length; ) {
    PARAMETER.lastIndex = at
    const match = PARAMETER.exec(value)
    if (!match) return undefined
    at = PARAMETER.lastIndex
    const name = match[1]!.toLowerCase()
    const text = match[2]!
    if (name === 'keyid') {
      if (keyId !== undefined) return undefined
      keyId = text
    } else if (name === 'algorithm') {
      if (algorithm !== undefined) return undefined
      algorithm = text
    } else if (name === 'headers') {
      if (headers !== undefined) return undefined
      headers = text
    } else if (name === 'signature') {
      if (signature !== undefined) return undefined
      signature = text
    } else {
      // Other parameters are allowed, once each.
      if (others?.includes(name)) return undefined
      ;(others ??= []).push(name)
    }
  }
  if (!keyId || !algorithm || !headers || !signature) return undefined
  return { keyId, algorithm, headers: headers.trim().split(/\s+/).map((h) => h.toLowerCase()), signature }
}

/** The names a request of this method must sign; the extra names a signature may cover are refused. */
export function checkSignedHeaders(method: string, headers: readonly string[]): boolean {
  if (new Set(headers).size !== headers.length || headers.some((h) => !SIGNABLE.has(h))) return false
  const required: readonly string[] = BODY_METHODS.has(method.toUpperCase()) ? [...ALWAYS_SIGNED, 'digest'] : ALWAYS_SIGNED
  return required.every((h) => headers.includes(h)) && DATE_HEADERS.filter((h) => headers.includes(h)).length === 1
}

/** The date header a signature covers (checkSignedHeaders made sure there is exactly one). */
function signedDateHeader(headers: readonly string[]): (typeof DATE_HEADERS)[number] {
  return headers.includes('v-c-date') ? 'v-c-date' : 'date'
}

/** `request-target`: the lower-case method and the path with its query, exactly as sent. */
export function requestTarget(method: string, url: string): string {
  return `${method.toLowerCase()} ${url}`
}

/** The string that is signed: `name: value` per listed name (`value` gives each), `\n` between lines, no trailing newline. */
export function signingString(headers: readonly string[], value: (name: string) => string | undefined): string {
  let text = ''
  for (let i = 0; i < headers.length; i++) text += `${i === 0 ? '' : '\n'}${headers[i]!}: ${value(headers[i]!) ?? ''}`
  return text
}

/** The base64 HMAC-SHA256 of the signing string under the decoded secret. */
export function sign(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('base64')
}

/** The `digest` header of a body: `SHA-256=<base64 sha256>`. */
export function digestOf(body: Buffer): string {
  return `SHA-256=${createHash('sha256').update(body).digest('base64')}`
}

/** Whether the `digest` header names the body's SHA-256, compared in constant time. */
export function digestMatches(header: string, body: Buffer): boolean {
  const expected = Buffer.from(digestOf(body))
  const presented = Buffer.from(header.trim())
  return expected.length === presented.length && timingSafeEqual(expected, presented)
}

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** The last date read and its time: the calls of one second, from every client, carry the same text. */
let lastDate: { value: string; at: number } | undefined

/** The time of an RFC 7231 IMF-fixdate (what `Date.prototype.toUTCString` writes); undefined for anything else. */
function dateTime(value: string): number | undefined {
  if (lastDate?.value === value) return lastDate.at
  if (!IMF_FIXDATE.test(value)) return undefined
  const at = Date.parse(value)
  if (Number.isNaN(at)) return undefined
  lastDate = { value, at }
  return at
}

/** An RFC 7231 IMF-fixdate within MAX_CLOCK_SKEW_MS of now. */
export function checkDate(value: string, now: Date): 'bad_date' | 'stale_date' | undefined {
  const at = dateTime(value)
  if (at === undefined) return 'bad_date'
  return Math.abs(at - now.getTime()) > MAX_CLOCK_SKEW_MS ? 'stale_date' : undefined
}

/** The request as the verifier sees it: header values as received (first of repeated ones), method and raw URL. */
export interface SignedRequest {
  method: string
  url: string
  header(name: string): string | undefined
  /** The caller's address (request.ip): the sandbox's throttle counts per credential and address. */
  source?: string
}

export type Checked =
  | { ok: true; params: SignatureParams; merchantId: string; digest: string | undefined; /** The signed date (ms). */ signedAt: number }
  | { ok: false; reason: SignatureFailure }

/** Everything that can be checked before the key is looked up and the body read. */
export function checkRequest(request: SignedRequest, now: Date): Checked {
  const signatureHeader = request.header('signature')
  const merchantId = request.header('v-c-merchant-id')
  const anyDate = request.header('date') ?? request.header('v-c-date')
  if (!signatureHeader || !merchantId || !anyDate || !request.header('host')) return { ok: false, reason: 'missing_headers' }
  const params = parseSignatureHeader(signatureHeader)
  if (!params) return { ok: false, reason: 'malformed_signature' }
  if (params.algorithm !== 'HmacSHA256') return { ok: false, reason: 'unsupported_algorithm' }
  if (!checkSignedHeaders(request.method, params.headers)) return { ok: false, reason: 'unsigned_headers' }
  // The date checked is the signed one: an unsigned `date` beside a signed `v-c-date` (or the reverse) says nothing.
  const date = request.header(signedDateHeader(params.headers))
  const digest = request.header('digest')
  if (!date || (params.headers.includes('digest') && !digest)) return { ok: false, reason: 'missing_headers' }
  const dateFailure = checkDate(date, now)
  if (dateFailure) return { ok: false, reason: dateFailure }
  return { ok: true, params, merchantId, digest: params.headers.includes('digest') ? digest : undefined, signedAt: dateTime(date)! }
}

/**
 * Verifies the signature under the key. The `v-c-merchant-id` line is signed with the key's own organization: that
 * is the merchant id itself when a merchant signs with its own key, and the portfolio (the key's organization) in
 * meta-key mode, where the official SDK sends the merchant it acts for in the header but signs its portfolio id.
 * Whether the key's organization may act for the header's merchant is the caller's check.
 */
export function verifySignature(request: SignedRequest, params: SignatureParams, key: { organizationId: string; secret: Buffer }): boolean {
  // Names are the caller's, but checkSignedHeaders admitted only the signable ones, each once.
  const text = signingString(params.headers, (name) => (name === 'request-target' ? requestTarget(request.method, request.url) : name === 'v-c-merchant-id' ? key.organizationId : request.header(name)))
  const expected = createHmac('sha256', key.secret).update(text, 'utf8').digest()
  const presented = Buffer.from(params.signature, 'base64')
  // Equal lengths for timingSafeEqual; a wrong length is no secret (every HMAC-SHA256 is 32 bytes). The presented text
  // must be the digest's own base64, not another spelling that decodes to it.
  return presented.length === 32 && timingSafeEqual(expected, presented) && params.signature === presented.toString('base64')
}
