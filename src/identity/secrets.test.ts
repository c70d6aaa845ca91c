import { generateKeyPairSync, sign } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { deriveKey } from '../platform/crypto.js'
import { checkDeviceSignature, legacyPartyLookupKey, partyLookupKey, partyLookupSecret, tokenOf } from './secrets.js'

const SECRET_A = 'a'.repeat(32)
const SECRET_B = 'b'.repeat(32)
const alex = { firstGivenName: 'Alex', surname: 'Citizen', dateOfBirth: '19850412' }

describe('deriveKey', () => {
  it('gives independent 32-byte keys per secret and per purpose, the same each time', () => {
    const key = deriveKey(SECRET_A, 'one')
    expect(key).toHaveLength(32)
    expect(deriveKey(SECRET_A, 'one')).toEqual(key)
    expect(deriveKey(SECRET_A, 'two')).not.toEqual(key)
    expect(deriveKey(SECRET_B, 'one')).not.toEqual(key)
    expect(deriveKey(SECRET_A, 'one', 16)).toHaveLength(16)
  })
})

describe('partyLookupKey', () => {
  it('depends on the server key, so guessed identities cannot be tested without it', () => {
    const a = partyLookupKey(partyLookupSecret(SECRET_A), alex)
    expect(a).toMatch(/^[0-9a-f]{64}$/)
    expect(partyLookupKey(partyLookupSecret(SECRET_B), alex)).not.toBe(a)
    expect(a).not.toBe(legacyPartyLookupKey(alex))
  })

  it('ignores case and spacing of names, not the date of birth', () => {
    const key = partyLookupSecret(SECRET_A)
    expect(partyLookupKey(key, { firstGivenName: '  alex ', surname: 'CITIZEN', dateOfBirth: '19850412' })).toBe(partyLookupKey(key, alex))
    expect(partyLookupKey(key, { ...alex, dateOfBirth: '19850413' })).not.toBe(partyLookupKey(key, alex))
  })
})

describe('checkDeviceSignature', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  const signature = sign(null, Buffer.from('message'), privateKey).toString('base64url')

  it('accepts the registered key\'s signature of the message only', () => {
    expect(checkDeviceSignature(pem, 'message', signature)).toBe(true)
    expect(checkDeviceSignature(pem, 'other message', signature)).toBe(false)
    expect(checkDeviceSignature(null, 'message', signature)).toBe(false)
    expect(checkDeviceSignature('not a key', 'message', signature)).toBe(false)
    expect(checkDeviceSignature(pem, 'message', '!!!')).toBe(false)
  })
})

describe('tokenOf', () => {
  it('reads a bare token or one after Bearer', () => {
    expect(tokenOf('abc')).toBe('abc')
    expect(tokenOf('Bearer abc')).toBe('abc')
    expect(tokenOf('bearer   abc ')).toBe('abc')
    expect(tokenOf(undefined)).toBeUndefined()
  })
})
