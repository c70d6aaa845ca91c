// Client authentication as real clients send it: an HTTP Basic secret holding + and = (the sandbox's published
// reporting client secrets do), form-encoded as RFC 6749 2.3.1 asks or raw as Swagger UI's Authorize and many
// clients send it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../support/harness.js'
import { basic, expectTokenError, token } from '../support/oauth.js'
import { MERCHANT_CLIENT } from '../support/reporting-oauth.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

describe('HTTP Basic client secrets', () => {
  it('a secret with + and = is taken from HTTP Basic form-encoded (RFC 6749 2.3.1) or raw, as Swagger UI and many clients send it', async () => {
    const { clientId, secret } = MERCHANT_CLIENT
    expect(secret).toMatch(/\+.*=$/)
    const raw = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`
    for (const authorization of [basic(clientId, secret), raw]) {
      const res = await token(t, { grant_type: 'client_credentials' }, { authorization })
      expect(res.status, res.text).toBe(200)
    }
    // A raw secret whose + is read as a space is not some other secret: a wrong one is still refused either way.
    const wrong = `Basic ${Buffer.from(`${clientId}:${secret.replace('+', '-')}`).toString('base64')}`
    expectTokenError(await token(t, { grant_type: 'client_credentials' }, { authorization: wrong }), 'invalid_client', /client/)
    const spaced = `Basic ${Buffer.from(`${clientId}:${secret.replace(/\+/g, ' ')}`).toString('base64')}`
    expectTokenError(await token(t, { grant_type: 'client_credentials' }, { authorization: spaced }), 'invalid_client', /client/)
  })

})
