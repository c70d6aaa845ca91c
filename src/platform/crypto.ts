// Building blocks for secrets: SHA-256 for machine-generated ones, scrypt for human-chosen ones, and keys derived
// from the server's SECRETS_KEY for keyed hashes (and, later, encryption).
import { createCipheriv, createDecipheriv, createHmac, hash, hkdfSync, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto'

/** A URL-safe random secret with `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * SHA-256 of a high-entropy, machine-generated secret (API keys, tokens). A slow password hash is not needed
 * for 256-bit random values: they cannot be guessed, and lookups by hash stay fast on the hot path.
 */
export function sha256Hex(value: string): string {
  // The one-shot form: about a third of the cost of a Hash object, and every /v2 call hashes its key and token.
  return hash('sha256', value, 'hex')
}

/**
 * The last secret hashed for one caller, and its hash: a keep-alive client sends the same key and token on every
 * call (see http/connection-memo.ts). Holds the secret as long as the connection lives, as its requests do.
 */
export interface HashMemo {
  value?: string
  hash?: string
}

/**
 * sha256Hex(value), from the memo when it holds this value. The comparison runs in time independent of where two
 * values of equal length differ: behind a proxy one connection carries many callers, so the memo may hold another
 * caller's secret.
 */
export function sha256HexMemo(value: string, memo: HashMemo | undefined): string {
  if (memo === undefined) return sha256Hex(value)
  if (memo.value !== undefined && sameText(memo.value, value)) return memo.hash!
  const hash = sha256Hex(value)
  memo.value = value
  memo.hash = hash
  return hash
}

/** Equal texts, compared in time that depends only on their lengths. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

// ---- Keys derived from the server secret --------------------------------------------------------------------

/**
 * A key for one purpose, derived from SECRETS_KEY with HKDF-SHA256 (RFC 5869). Each use (a lookup hash, an
 * encryption key) names its own `purpose`, so the keys are independent and no use ever sees SECRETS_KEY itself.
 * Changing a purpose string changes the key: version it (`…/v1`) instead.
 */
export function deriveKey(secretsKey: string, purpose: string, bytes = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secretsKey, 'utf8'), Buffer.from('finapi', 'utf8'), Buffer.from(purpose, 'utf8'), bytes))
}

/** HMAC-SHA256 of `value` under `key`: a lookup hash nobody without the key can compute from guessed values. */
export function hmacSha256Hex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('hex')
}

// ---- Secrets that must be read back (shared HMAC secrets): sealed with AES-256-GCM ----------------------------

const SEAL_VERSION = 'v1'

/**
 * Encrypts `plaintext` under a 32-byte key with AES-256-GCM and a random 96-bit nonce. `context` (such as the row's
 * id) is authenticated but not stored, so a sealed value copied onto another row does not open there.
 * Returns `v1.<nonce>.<ciphertext>.<tag>` (base64url parts).
 */
export function seal(key: Buffer, plaintext: string, context: string): string {
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(context, 'utf8'))
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [SEAL_VERSION, nonce.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.')
}

/** Opens what seal() made under the same key and context; undefined when anything was changed or does not match. */
export function unseal(key: Buffer, sealed: string, context: string): string | undefined {
  const [version, nonce, ciphertext, tag, ...rest] = sealed.split('.')
  if (version !== SEAL_VERSION || nonce === undefined || ciphertext === undefined || tag === undefined || rest.length > 0) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'), { authTagLength: 16 })
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}

// ---- Human-chosen secrets (passwords, passcodes): scrypt, salted, compared in constant time. ----------------

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 }

const SCRYPT_MAXMEM = 64 * 1024 * 1024

/**
 * Above zero while the work given to hashingOnThisThread runs: scrypt then runs on the calling thread. Each scrypt takes
 * 16 MB (N × r × 128 bytes), and glibc keeps that in the malloc arena of every libuv pool thread that ran one (after
 * the first, the allocation no longer gets its own mapping), so hashing side by side on the pool's four threads kept
 * 64 MB out of a fresh server's 256 MB before its first request. On the main thread it is one 16 MB block that the
 * rest of the process reuses. A counter, not an AsyncLocalStorage: on Node 20 the first AsyncLocalStorage run leaves a
 * promise hook on every async resource for the rest of the process's life, which cost each account read about 30 %
 * more CPU. Any scrypt started while start-up work runs is done here; before the server listens there is no other.
 */
let onThisThread = 0

/**
 * Runs `fn` with every scrypt it starts done synchronously on this thread. For start-up work that nothing else
 * waits on (the sandbox's published secrets, hashed before the server listens); never around request handling,
 * where it would stop the event loop for each hash.
 */
export async function hashingOnThisThread<T>(fn: () => Promise<T>): Promise<T> {
  onThisThread++
  try {
    return await fn()
  } finally {
    onThisThread--
  }
}

function scryptAsync(secret: string, salt: Buffer, params = SCRYPT): Promise<Buffer> {
  const options = { N: params.N, r: params.r, p: params.p, maxmem: SCRYPT_MAXMEM }
  if (onThisThread > 0) {
    try {
      return Promise.resolve(scryptSync(secret, salt, params.keylen, options))
    } catch (err) {
      return Promise.reject(err as Error)
    }
  }
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, params.keylen, options, (err, key) => (err ? reject(err) : resolve(key)))
  })
}

/** `scrypt$N$r$p$salt$hash` (base64url parts), self-describing so parameters can be raised later. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(secret, salt)
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export const SECRET_HASH_PATTERN = '^scrypt\\$\\d+\\$\\d+\\$\\d+\\$[A-Za-z0-9_-]+\\$[A-Za-z0-9_-]+$'

/** Verifies in constant time. An undefined hash still does the full work, so unknown users cost the same. */
export async function verifySecret(secret: string, encoded: string | null | undefined): Promise<boolean> {
  const parts = (encoded ?? DUMMY_HASH).split('$')
  const [, n, r, p, salt, hash] = parts
  const expected = Buffer.from(hash ?? '', 'base64url')
  const actual = await scryptAsync(secret, Buffer.from(salt ?? '', 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    keylen: expected.length || SCRYPT.keylen,
  })
  return encoded != null && actual.length === expected.length && timingSafeEqual(actual, expected)
}

// A valid hash of a random value: verifying against it costs what a real verification costs and never matches.
const DUMMY_HASH = ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, randomBytes(16).toString('base64url'), randomBytes(32).toString('base64url')].join('$')
