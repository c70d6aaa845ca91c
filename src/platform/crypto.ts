// Small building blocks for machine-generated secrets.
import { createHash, randomBytes } from 'node:crypto'

/** A URL-safe random secret with `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * SHA-256 of a high-entropy, machine-generated secret (API keys, tokens). A slow password hash is not needed
 * for 256-bit random values: they cannot be guessed, and lookups by hash stay fast on the hot path.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex')
}

