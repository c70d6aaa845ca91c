// For subscribers: checks a notification's V-C-signature header against the raw body, with the key the header names,
// a timestamp tolerance and a constant-time comparison. Standalone on purpose (node:crypto only), so it can be
// copied into a receiver as it is; the README shows it in use.
//
//   const result = verifyVcSignature({ header: req.headers['v-c-signature'], body: rawBody, keys: { [keyId]: base64Key } })
//   if (!result.ok) return res.writeHead(401).end()
import { createHmac, timingSafeEqual } from 'node:crypto'

export interface VerifyOptions {
  /** The V-C-signature header as received: `t=<unix ms>;keyId=<key id>;sig=<base64>`. */
  header: string | string[] | undefined
  /** The request body exactly as received, before any JSON parsing. */
  body: string | Buffer
  /** The base64 signing keys you saved from POST /kms/egress/v2/keys-sym, by key id (or a lookup). */
  keys: Readonly<Record<string, string>> | ((keyId: string) => string | undefined)
  /** How far `t` may be from now, either way (default 5 minutes). A retry is signed anew, so this can stay short. */
  toleranceMs?: number
  /** Now, in ms (default Date.now()). */
  now?: number
}

export type VerifyResult =
  | { ok: true; keyId: string; timestamp: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown_key' | 'stale' | 'bad_signature' }

export function verifyVcSignature(options: VerifyOptions): VerifyResult {
  const header = Array.isArray(options.header) ? options.header[0] : options.header
  if (!header) return { ok: false, reason: 'missing' }
  const parts = new Map<string, string>()
  for (const part of header.replace(/^"|"$/g, '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0) parts.set(part.slice(0, at).trim(), part.slice(at + 1).trim())
  }
  const t = parts.get('t')
  const keyId = parts.get('keyId')
  const sig = parts.get('sig')
  if (!t || !/^\d{1,16}$/.test(t) || !keyId || !sig) return { ok: false, reason: 'malformed' }
  const key = typeof options.keys === 'function' ? options.keys(keyId) : Object.hasOwn(options.keys, keyId) ? options.keys[keyId] : undefined
  if (!key) return { ok: false, reason: 'unknown_key' }
  const timestamp = Number(t)
  if (Math.abs((options.now ?? Date.now()) - timestamp) > (options.toleranceMs ?? 5 * 60_000)) return { ok: false, reason: 'stale' }
  const expected = createHmac('sha256', Buffer.from(key, 'base64')).update(`${t}.`).update(options.body).digest()
  const given = Buffer.from(sig, 'base64')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' }
  return { ok: true, keyId, timestamp }
}
