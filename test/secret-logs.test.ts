// No secret reaches the log, at LOG_LEVEL=trace: every banking credential kind of the sandbox, sessions and soft
// credentials, OAuth codes, verifiers, tokens and client secrets, application keys, sent in bodies, headers and
// query strings, well-formed and malformed, and as raw malformed HTTP over a socket.
import { sign } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { passcodeSigningInput } from '../src/banking/auth/service.js'
import { SANDBOX_DEVICE_PRIVATE_KEY_PEM, SANDBOX_LOGINS as L } from '../src/banking/sandbox-data.js'
import { startTestApp, type TestApp } from './support/harness.js'
import { basic, pkce, sandboxTokens, token as tokenRequest } from './support/oauth.js'
import { rawRequest } from './support/raw-http.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'trace', SANDBOX_STRICT_TOKENS: 'true' } })
})
afterAll(() => t.close())

const signature = sign(null, Buffer.from(passcodeSigningInput('nab', 'nab', L.deviceRegIdPasscode.deviceRegId, L.deviceRegIdPasscode.passcode)), SANDBOX_DEVICE_PRIVATE_KEY_PEM).toString('base64url')
const CREDENTIALS: Record<string, Record<string, string>> = {
  usernamePassword: { username: L.usernamePassword.username, password: L.usernamePassword.password },
  deviceRegIdPasscode: { deviceRegId: L.deviceRegIdPasscode.deviceRegId, passcode: L.deviceRegIdPasscode.passcode, signature },
  deviceRegIdPassword: { deviceRegId: L.deviceRegIdPassword.deviceRegId, password: L.deviceRegIdPassword.password },
  deviceRegIdFingerprint: { deviceRegId: L.deviceRegIdFingerprint.deviceRegId, key: L.deviceRegIdFingerprint.key },
  ivrPasscode: { username: L.ivrPasscode.username, passcode: L.ivrPasscode.passcode },
  partyIdentifiers: { firstGivenName: 'Alex', surname: 'Citizen', dateOfBirth: L.partyIdentifiers.dateOfBirth, mobile: L.partyIdentifiers.mobile },
}
const login = (kind: string, member: Record<string, string>) => ({ loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: kind, [kind]: member } } })

/** Every value that must never be logged; filled as the flows hand them out. */
const secrets = new Set<string>([
  L.usernamePassword.password, L.customer2.password, L.deviceRegIdPasscode.passcode, L.deviceRegIdPassword.password,
  L.deviceRegIdFingerprint.key, L.ivrPasscode.passcode, L.partyIdentifiers.mobile, L.partyIdentifiers.dateOfBirth, signature,
])

/** Each secret in a query string under names a client might use, cased and percent-encoded in different ways. */
function query(value: string): string {
  const v = encodeURIComponent(value)
  return ['password', 'Passcode', 'SECRET', 'key', 'api_key', 'x-svc-key', 'Authorization', 'mobile', 'signature', 'client_assertion', 'id_token', '%70assword', 'refreshToken', 'Client_Secret']
    .map((name, i) => `${name}=${v}${i}`).join('&')
}

describe('logs at LOG_LEVEL=trace', () => {
  it('carry none of the secrets sent in any request', async () => {
    const key = await t.app.services.applications.create('Logged key test')
    secrets.add(key.key).add(t.sandboxKey)

    // Every credential kind, well-formed (signs in) and malformed (bad JSON, wrong members).
    for (const [kind, member] of Object.entries(CREDENTIALS)) {
      const res = await t.call('POST', '/v2/auth?v=1', { body: login(kind, member) })
      expect(res.status, res.text).toBe(200)
      secrets.add(res.json.loginResponse.tokens[0].value)
      const session = res.json.loginResponse.tokens[0].value as string
      await t.call('GET', '/v2/accounts?v=1', { headers: { authorization: session } })
      if (kind === 'usernamePassword') {
        const soft = await t.call('POST', '/v2/token?v=1', { headers: { authorization: session }, body: { tokenRequest: { type: 'softcredential' } } })
        secrets.add(JSON.stringify(soft.json.tokenResponse ?? soft.json).match(/"value":"([^"]+)"/)?.[1] ?? session)
      }
      const json = JSON.stringify(login(kind, member))
      await t.call('POST', '/v2/auth?v=1', { body: json.slice(0, -3), headers: { 'content-type': 'application/json' } })
      await t.call('POST', '/v2/auth?v=1', { body: { loginRequest: { brand: 'nab', credentials: { apiStructType: 'other', ...member } } } })
      await t.call('POST', '/v2/auth?v=1', { body: new URLSearchParams(member).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      for (const value of Object.values(member)) {
        if (!secrets.has(value)) continue
        await t.call('GET', `/v2/accounts?v=1&${query(value)}`, { headers: { authorization: value, 'x-svc-key': value, cookie: `s=${value}` } })
        await t.call('GET', `/v2/nothing%zz?${query(value)}`)
        await t.call('GET', `/nothing?${query(value)}`)
      }
    }
    await t.call('GET', '/v2/accounts?v=1', { headers: { 'x-svc-key': key.key } })
    await t.call('GET', '/v2/accounts?v=1', { headers: { 'x-svc-key': `${key.key}x` } })
    secrets.add(`${key.key}x`)

    // OAuth: the whole flow (sign-in password, code, verifier), refresh, client credentials with a client secret.
    const tokens = await sandboxTokens(t)
    secrets.add(tokens.access_token).add(tokens.refresh_token)
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', client_id: t.sandboxKey, refresh_token: tokens.refresh_token })
    secrets.add(refreshed.json.access_token).add(refreshed.json.refresh_token)
    await t.call('GET', '/v2/accounts?v=1', { headers: { authorization: refreshed.json.access_token } })
    const created = await t.app.services.oauth.clients.create({ name: 'Logged secret', redirectUris: [], scopes: ['reporting'], public: false })
    const client = { clientId: created.client.publicId!, secret: created.secret! }
    const secret = client.secret
    secrets.add(secret)
    const cc = await tokenRequest(t, { grant_type: 'client_credentials' }, { authorization: basic(client.clientId, secret) })
    expect(cc.status, cc.text).toBe(200)
    secrets.add(cc.json.access_token)
    await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret })
    const { verifier } = pkce()
    const fakeCode = 'oauth-code-never-logged-123'
    secrets.add(verifier).add(fakeCode)
    await tokenRequest(t, { grant_type: 'authorization_code', client_id: t.sandboxKey, code: fakeCode, code_verifier: verifier, redirect_uri: 'http://x' })
    await t.call('GET', `/oauth2/v3/token?refresh_token=${tokens.refresh_token}&client_secret=${secret}&code=${fakeCode}`)
    await t.call('HEAD', `/oauth2/v3/authorize?response_type=code&client_id=${t.sandboxKey}&code_challenge=x`)
    await t.call('GET', `/oauth2/v3/authorize?response_type=code&client_id=${key.key}&state=${fakeCode}`)
    await t.call('POST', '/oauth2/v3/token', { body: `client_secret=${secret}&code_verifier=${verifier}`, headers: { 'content-type': 'application/json' } })

    // Raw malformed HTTP carrying the secrets in the request line, headers and body.
    for (const value of [...secrets]) {
      const q = query(value)
      await rawRequest(t.baseUrl, `GET /v2/accounts?v=1&${q} HTTP/1.1\r\nHost: x\r\nx-svc-key: ${value}\r\nAuthorization: ${value}\r\nContent-Length: abc\r\n\r\n`)
      await rawRequest(t.baseUrl, `POST /oauth2/v3/token HTTP/1.1\r\nHost: x\r\nAuthorization: ${value}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nclient_secret=${value}`)
      await rawRequest(t.baseUrl, `POST /v2/auth?v=1 HTTP/1.1\r\nHost: x\r\nx-svc-key: ${t.sandboxKey}\r\nUser-Agent: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{"password":"${value}"}\r\n`)
      await rawRequest(t.baseUrl, `GET /v2/accounts?${q} HTTP/1.1\r\nHost: x\r\nX-Bad: \u0001${value}\r\n\r\n`)
    }

    const logged = t.logs.map((line) => JSON.stringify(line, (_k, v: unknown) => (typeof v === 'number' ? 0 : v))).join('\n')
    expect(t.app.log.level).toBe('trace')
    expect(logged).toContain('[redacted]')
    expect(logged).toContain('client error')
    for (const value of secrets) expect(logged, `secret ${value.slice(0, 6)}… was logged`).not.toContain(value)
  }, 60_000)
})
