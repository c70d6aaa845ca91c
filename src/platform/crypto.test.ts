import { describe, expect, it } from 'vitest'
import { deriveKey, hashingOnThisThread, hashSecret, sameText, seal, sha256Hex, sha256HexMemo, unseal, verifySecret, type HashMemo } from './crypto.js'

const key = deriveKey('a-test-secrets-key-of-enough-length', 'finapi/test/seal/v1')

describe('seal / unseal (AES-256-GCM)', () => {
  it('opens what it sealed, under the same key and context, and never stores the plaintext', () => {
    const sealed = seal(key, 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=', 'key-1')
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(sealed).not.toContain('yBJxy6')
    expect(unseal(key, sealed, 'key-1')).toBe('yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=')
  })

  it('uses a fresh nonce each time', () => {
    expect(seal(key, 'same', 'c')).not.toBe(seal(key, 'same', 'c'))
  })

  it('refuses a tampered ciphertext, nonce or tag', () => {
    const sealed = seal(key, 'secret value', 'key-1')
    const parts = sealed.split('.')
    for (const i of [1, 2, 3]) {
      const bytes = Buffer.from(parts[i]!, 'base64url')
      bytes[0] = bytes[0]! ^ 1
      const tampered = parts.map((p, j) => (j === i ? bytes.toString('base64url') : p)).join('.')
      expect(unseal(key, tampered, 'key-1'), `part ${i}`).toBeUndefined()
    }
  })

  it('refuses another key, another context, and malformed input', () => {
    const sealed = seal(key, 'secret value', 'key-1')
    expect(unseal(deriveKey('a-test-secrets-key-of-enough-length', 'finapi/test/other/v1'), sealed, 'key-1')).toBeUndefined()
    expect(unseal(key, sealed, 'key-2')).toBeUndefined()
    expect(unseal(key, 'v2' + sealed.slice(2), 'key-1')).toBeUndefined()
    expect(unseal(key, 'garbage', 'key-1')).toBeUndefined()
  })
})

describe('sha256HexMemo', () => {
  it('answers sha256Hex for every value, from the memo only for the value it holds', () => {
    const memo: HashMemo = {}
    for (const value of ['token-a', 'token-a', 'token-b', 'token-a', '', 'token-ä', 'token-a']) expect(sha256HexMemo(value, memo)).toBe(sha256Hex(value))
    expect(memo.value).toBe('token-a')
    expect(sha256HexMemo('x', undefined)).toBe(sha256Hex('x'))
  })

  it('compares texts whole: same length, one character apart, is different', () => {
    expect(sameText('abcdef', 'abcdef')).toBe(true)
    expect(sameText('abcdef', 'abcdeg')).toBe(false)
    expect(sameText('abcdef', 'bbcdef')).toBe(false)
    expect(sameText('abc', 'abcd')).toBe(false)
    expect(sameText('', '')).toBe(true)
  })
})

describe('hashingOnThisThread', () => {
  it('hashes on the calling thread, before the event loop turns, in the same format either way', async () => {
    const order: string[] = []
    setImmediate(() => order.push('immediate'))
    const inline = await hashingOnThisThread(async () => {
      const hashed = await hashSecret('a published password')
      order.push('hashed')
      return hashed
    })
    expect(order).toEqual(['hashed'])
    const pooled = await hashSecret('a published password')
    expect(inline.split('$').slice(0, 4)).toEqual(pooled.split('$').slice(0, 4))
    expect(await verifySecret('a published password', inline)).toBe(true)
    expect(await hashingOnThisThread(() => verifySecret('a published password', pooled))).toBe(true)
    expect(await hashingOnThisThread(() => verifySecret('another', pooled))).toBe(false)
    expect(await hashingOnThisThread(() => verifySecret('another', undefined))).toBe(false)
  })
})
