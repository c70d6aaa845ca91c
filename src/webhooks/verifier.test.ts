// The subscriber's verifier against signatures computed here from the reference's description (not by the signer).
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { standardSignatureHeader, vcSignatureHeader } from './signing.js'
import { verifyVcSignature } from './verifier.js'

const key = Buffer.from('u3qgvoaJ73rLJdPLTU3moxrXyNZA4eo5dklKtIXhsAE=', 'base64')
const keyId = 'bdc0fe52-091e-b0d6-e053-34b8d30a0504'
const keys: Record<string, string> = { [keyId]: key.toString('base64') }
const body = '{"notificationId":"n1","retryNumber":0,"eventType":"invoicing.customer.invoice.paid"}'
const t = 1_768_435_200_000
const header = `t=${t};keyId=${keyId};sig=${createHmac('sha256', key).update(`${t}.${body}`).digest('base64')}`

describe('verifyVcSignature', () => {
  it('accepts the reference signature over t.body, from bytes or text, and names the key', () => {
    expect(verifyVcSignature({ header, body, keys, now: t })).toEqual({ ok: true, keyId, timestamp: t })
    expect(verifyVcSignature({ header, body: Buffer.from(body), keys: (id) => keys[id], now: t + 60_000 })).toMatchObject({ ok: true })
    expect(vcSignatureHeader({ id: keyId, secret: key }, t, body)).toBe(header)
  })

  it('refuses a changed body, another key, a stale or future timestamp, and a malformed header', () => {
    expect(verifyVcSignature({ header, body: body.replace('paid', 'send'), keys, now: t })).toEqual({ ok: false, reason: 'bad_signature' })
    expect(verifyVcSignature({ header, body, keys: { [keyId]: Buffer.alloc(32, 1).toString('base64') }, now: t })).toEqual({ ok: false, reason: 'bad_signature' })
    expect(verifyVcSignature({ header, body, keys: {}, now: t })).toEqual({ ok: false, reason: 'unknown_key' })
    expect(verifyVcSignature({ header, body, keys, now: t + 5 * 60_000 + 1 })).toEqual({ ok: false, reason: 'stale' })
    expect(verifyVcSignature({ header, body, keys, now: t - 5 * 60_000 - 1 })).toEqual({ ok: false, reason: 'stale' })
    expect(verifyVcSignature({ header: header.replace(/sig=.*/, 'sig=AAAA'), body, keys, now: t })).toEqual({ ok: false, reason: 'bad_signature' })
    for (const bad of ['t=abc;keyId=k;sig=x', `keyId=${keyId};sig=x`, 'garbage']) expect(verifyVcSignature({ header: bad, body, keys, now: t })).toEqual({ ok: false, reason: 'malformed' })
    expect(verifyVcSignature({ header: undefined, body, keys, now: t })).toEqual({ ok: false, reason: 'missing' })
    expect(verifyVcSignature({ header, body, keys: { ['__proto__']: 'x' }, now: t })).toEqual({ ok: false, reason: 'unknown_key' })
  })

  it('signs the Standard Webhooks way over id.timestamp.body with the same key', () => {
    const expected = createHmac('sha256', key).update(`n1.${t / 1000}.${body}`).digest('base64')
    expect(standardSignatureHeader(key, 'n1', t / 1000, body)).toBe(`v1,${expected}`)
  })
})
