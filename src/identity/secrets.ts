// Pure helpers for finding and proving credentials: lookup keys, the device signature check, and reading the
// token out of an Authorization header.
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto'
import { deriveKey, hmacSha256Hex, sha256Hex } from '../platform/crypto.js'
import type { PartyIdentifiers } from './types.js'

/** The HKDF purpose of the party lookup key: changing it re-keys every party credential, so version it. */
export const PARTY_LOOKUP_PURPOSE = 'finapi/identity/party-lookup/v1'

/** The key of the party lookup hash, derived once per process from SECRETS_KEY. */
export function partyLookupSecret(secretsKey: string): Buffer {
  return deriveKey(secretsKey, PARTY_LOOKUP_PURPOSE)
}

function normalisedParty(p: PartyIdentifiers): string {
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ')
  return `${norm(p.firstGivenName)}|${norm(p.surname)}|${p.dateOfBirth}`
}

/**
 * Party identifiers are found by an HMAC of their normalised form under a server key, so the table holds no plain
 * identity and nobody without SECRETS_KEY can test guessed names and birth dates against it.
 */
export function partyLookupKey(key: Buffer, party: PartyIdentifiers): string {
  return hmacSha256Hex(key, normalisedParty(party))
}

/**
 * The unkeyed SHA-256 that databases imported before the keyed hash hold. Only ever used to find such a row and
 * re-key it on its first successful sign-in (see README, "Party identifiers").
 */
export function legacyPartyLookupKey(party: PartyIdentifiers): string {
  return createHash('sha256').update(normalisedParty(party)).digest('hex')
}

/** Soft credentials are found by the SHA-256 of the token, which is a 256-bit random value. */
export function softCredentialLookupKey(token: string): string {
  return sha256Hex(token)
}

/** Whether `signature` (base64url) is the registered device key's Ed25519 signature of `message`. */
export function checkDeviceSignature(publicKeyPem: string | null, message: string, signature: string): boolean {
  if (!publicKeyPem) return false
  try {
    return verifySignature(null, Buffer.from(message, 'utf8'), createPublicKey(publicKeyPem), Buffer.from(signature, 'base64url'))
  } catch {
    return false
  }
}

/** The token of an Authorization header: sent bare, as the banking clients do, or after `Bearer `. */
export function tokenOf(header: string | undefined): string | undefined {
  return header?.replace(/^Bearer\s+/i, '').trim()
}
