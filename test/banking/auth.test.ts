// POST /v2/auth with every credential kind, DELETE /v2/auth, POST /v2/token, lockout, and their errors.
import { sign } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { passcodeSigningInput } from '../../src/banking/auth/service.js'
import { LOCKOUT_MS, MAX_FAILED_ATTEMPTS, SESSION_TTL_MS as ACCESS_TOKEN_TTL_MS } from '../../src/identity/service.js'
import { SANDBOX_DEVICE_PRIVATE_KEY_PEM, SANDBOX_LOGINS as L } from '../../src/banking/sandbox-data.js'
import { sha256Hex } from '../../src/platform/crypto.js'
import { expectStatus, login, loginBody, withToken } from '../support/banking.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { checkLoginResponse } from '../support/spec-shapes.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ env: { SANDBOX_STRICT_TOKENS: 'true' } })
})
afterAll(() => t.close())

const nab = { brand: 'nab', lob: 'nab' }
const signPasscode = (deviceRegId: string, passcode: string) =>
  sign(null, Buffer.from(passcodeSigningInput('nab', 'nab', deviceRegId, passcode)), SANDBOX_DEVICE_PRIVATE_KEY_PEM).toString('base64url')

function body(apiStructType: string, member: Record<string, unknown>) {
  return { loginRequest: { ...nab, credentials: { apiStructType, [apiStructType]: member } } }
}

const post = (b: unknown) => t.call('POST', '/v2/auth?v=1', { body: b })

const kinds: [string, () => Record<string, unknown>, boolean][] = [
  ['usernamePassword', () => ({ username: L.usernamePassword.username, password: L.usernamePassword.password }), false],
  ['deviceRegIdPasscode', () => ({ deviceRegId: L.deviceRegIdPasscode.deviceRegId, passcode: L.deviceRegIdPasscode.passcode, signature: signPasscode(L.deviceRegIdPasscode.deviceRegId, L.deviceRegIdPasscode.passcode) }), false],
  ['deviceRegIdPassword', () => ({ deviceRegId: L.deviceRegIdPassword.deviceRegId, password: L.deviceRegIdPassword.password }), false],
  ['deviceRegIdFingerprint', () => ({ deviceRegId: L.deviceRegIdFingerprint.deviceRegId, key: L.deviceRegIdFingerprint.key }), false],
  ['ivrPasscode', () => ({ username: L.ivrPasscode.username, passcode: L.ivrPasscode.passcode }), false],
  ['partyIdentifiers', () => ({ firstGivenName: L.partyIdentifiers.firstGivenName, surname: L.partyIdentifiers.surname, dateOfBirth: L.partyIdentifiers.dateOfBirth, mobile: L.partyIdentifiers.mobile }), true],
]

describe('POST /v2/auth: every credential kind signs in', () => {
  it.each(kinds)('%s', async (kind, member, restricted) => {
    const res = await post(body(kind, member()))
    expectStatus(res, 200, 'API-200')
    expect(checkLoginResponse(res.json)).toEqual([])
    const [token] = res.json.loginResponse.tokens
    expect(token).toMatchObject({ type: 'header', name: 'Authorization' })
    expect(Date.parse(token.expires) - t.clock.now().getTime()).toBe(ACCESS_TOKEN_TTL_MS)
    expect(res.json.loginResponse.userLevelFlags).toEqual({ isBusinessUser: false, isRestrictedToAppTracker: restricted })
    const accounts = await withToken(t, token.value)('GET', '/v2/accounts?v=1')
    // A restricted (application-tracker) login may not read accounts.
    expectStatus(accounts, restricted ? 401 : 200, restricted ? 'API-448' : 'API-200')
  })

  it('the public clients\' sample body works as is', async () => {
    const res = await post(JSON.parse('{"loginRequest":{"brand":"nab","lob":"nab","credentials":{"apiStructType":"usernamePassword","usernamePassword":{"username":"10055670","password":"aaa111"}}}}'))
    expectStatus(res, 200, 'API-200')
  })

  it('customer 2 is a business user', async () => {
    const res = await post(loginBody({ ...nab, username: '10055671', password: 'bbb222' }))
    expect(res.json.loginResponse.userLevelFlags.isBusinessUser).toBe(true)
  })

  it('stores sessions and secrets hashed only', async () => {
    const res = await post(body('usernamePassword', kinds[0]![1]()))
    const token = res.json.loginResponse.tokens[0].value
    const dump = JSON.stringify([await t.db.kysely.selectFrom('sessions').selectAll().execute(), await t.db.kysely.selectFrom('credentials').selectAll().execute()])
    expect(dump).not.toContain(token)
    expect(dump).not.toContain('"aaa111"')
    expect(dump).not.toContain(L.ivrPasscode.passcode)
  })
})

describe('POST /v2/auth: failures', () => {
  it.each([
    ['wrong password', body('usernamePassword', { username: '10055670', password: 'wrong' })],
    ['unknown user', body('usernamePassword', { username: '99999999', password: 'aaa111' })],
    ['wrong brand', { loginRequest: { brand: 'ubank', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } }],
    ['bad device signature', body('deviceRegIdPasscode', { deviceRegId: L.deviceRegIdPasscode.deviceRegId, passcode: L.deviceRegIdPasscode.passcode, signature: signPasscode(L.deviceRegIdPasscode.deviceRegId, '000000') })],
    ['garbage device signature', body('deviceRegIdPasscode', { deviceRegId: L.deviceRegIdPasscode.deviceRegId, passcode: L.deviceRegIdPasscode.passcode, signature: '!!!' })],
    ['wrong fingerprint key', body('deviceRegIdFingerprint', { deviceRegId: L.deviceRegIdFingerprint.deviceRegId, key: 'nope' })],
    ['wrong ivr passcode', body('ivrPasscode', { username: L.ivrPasscode.username, passcode: '000000' })],
    ['wrong party mobile', body('partyIdentifiers', { firstGivenName: 'Alex', surname: 'Citizen', dateOfBirth: '19850412', mobile: '0400000000' })],
    ['unknown party', body('partyIdentifiers', { firstGivenName: 'Nobody', surname: 'Here', dateOfBirth: '19700101' })],
    ['unknown soft credential', body('token', { token: 'never-issued' })],
  ])('%s → API-448/401, the same body', async (_label, b) => {
    const res = await post(b)
    expectStatus(res, 401, 'API-448')
    expect(res.json).toEqual({ status: { code: 'API-448', message: 'Gateway Authentication Failure' } })
  })

  it.each([
    ['apiStructType names another member', { loginRequest: { ...nab, credentials: { apiStructType: 'ivrPasscode', usernamePassword: { username: 'a', password: 'b' } } } }],
    ['two members', { loginRequest: { ...nab, credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: 'a', password: 'b' }, ivrPasscode: { username: 'a', passcode: 'b' } } } }],
    ['no member', { loginRequest: { ...nab, credentials: { apiStructType: 'usernamePassword' } } }],
    ['unknown apiStructType', { loginRequest: { ...nab, credentials: { apiStructType: 'retinaScan', retinaScan: {} } } }],
    ['missing brand', { loginRequest: { lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: 'a', password: 'b' } } } }],
    ['missing password', body('usernamePassword', { username: '10055670' })],
    ['password of the wrong type', body('usernamePassword', { username: '10055670', password: 111 })],
    ['dateOfBirth not YYYYMMDD', body('partyIdentifiers', { firstGivenName: 'Alex', surname: 'Citizen', dateOfBirth: '1985-04-12' })],
    ['no loginRequest', {}],
    ['an array', []],
  ])('%s → API-420/400', async (_label, b) => {
    expectStatus(await post(b), 400, 'API-420')
  })

  it('a form-encoded body → API-420/400', async () => {
    const res = await t.call('POST', '/v2/auth?v=1', { body: 'username=10055670&password=aaa111', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expectStatus(res, 400, 'API-420')
  })

  it('takes about as long for an unknown user as for a wrong password', async () => {
    const time = async (b: unknown) => {
      const start = process.hrtime.bigint()
      await post(b)
      return Number(process.hrtime.bigint() - start) / 1e6
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const wrong: number[] = []
    const unknown: number[] = []
    for (let i = 0; i < 5; i++) {
      wrong.push(await time(body('ivrPasscode', { username: L.ivrPasscode.username, passcode: `x${i}` })))
      unknown.push(await time(body('ivrPasscode', { username: `nobody-${i}`, passcode: 'x' })))
    }
    // Both do one scrypt verification; without it an unknown user would answer many times faster.
    const ratio = median(unknown) / median(wrong)
    expect(ratio).toBeGreaterThan(0.5)
    expect(ratio).toBeLessThan(2)
  })
})

describe('lockout', () => {
  it(`locks a credential after ${MAX_FAILED_ATTEMPTS} failures, for a while, with the same answer`, async () => {
    const right = body('deviceRegIdPassword', { deviceRegId: L.deviceRegIdPassword.deviceRegId, password: L.deviceRegIdPassword.password })
    const wrong = body('deviceRegIdPassword', { deviceRegId: L.deviceRegIdPassword.deviceRegId, password: 'wrong' })
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) expectStatus(await post(wrong), 401, 'API-448')
    const locked = await post(right)
    expectStatus(locked, 401, 'API-448')
    expect(locked.json).toEqual((await post(wrong)).json)
    // Other credentials of the same customer are not locked.
    expectStatus(await post(loginBody({ ...nab, username: '10055670', password: 'aaa111' })), 200, 'API-200')
    t.clock.advance(LOCKOUT_MS)
    expectStatus(await post(right), 200, 'API-200')
  })

  it('a success resets the failure count', async () => {
    const right = body('deviceRegIdFingerprint', { deviceRegId: L.deviceRegIdFingerprint.deviceRegId, key: L.deviceRegIdFingerprint.key })
    const wrong = body('deviceRegIdFingerprint', { deviceRegId: L.deviceRegIdFingerprint.deviceRegId, key: 'wrong' })
    expectStatus(await post(right), 200, 'API-200') // start from a clean count
    for (let i = 0; i < MAX_FAILED_ATTEMPTS - 1; i++) await post(wrong)
    expectStatus(await post(right), 200, 'API-200')
    for (let i = 0; i < MAX_FAILED_ATTEMPTS - 1; i++) await post(wrong)
    expectStatus(await post(right), 200, 'API-200')
  })
})

describe('DELETE /v2/auth', () => {
  it('revokes the token at once', async () => {
    const token = await login(t)
    const call = withToken(t, token)
    expectStatus(await call('GET', '/v2/accounts?v=1'), 200, 'API-200')
    const res = await call('DELETE', '/v2/auth?v=1')
    expectStatus(res, 200, 'API-200')
    expect(res.json).toEqual({ status: { code: 'API-200', message: 'Success' } })
    expectStatus(await call('GET', '/v2/accounts?v=1'), 401, 'API-448')
    expectStatus(await call('DELETE', '/v2/auth?v=1'), 401, 'API-448')
  })
})

describe('POST /v2/token and signing in with the soft credential', () => {
  it.each(['softcredential', 'touch'])('%s', async (type) => {
    const token = await login(t)
    const res = await withToken(t, token)('POST', '/v2/token?v=1', { tokenRequest: { type } })
    expectStatus(res, 200, 'API-200')
    const soft = res.json.tokenResponse.token as string
    expect(soft).toMatch(/^[A-Za-z0-9_-]{40,}$/)
    const signedIn = await post(body('token', { token: soft }))
    expectStatus(signedIn, 200, 'API-200')
    expectStatus(await withToken(t, signedIn.json.loginResponse.tokens[0].value)('GET', '/v2/accounts?v=1'), 200, 'API-200')
    const stored = JSON.stringify(await t.db.kysely.selectFrom('credentials').selectAll().where('kind', '=', 'token').execute())
    expect(stored).not.toContain(soft)
    expect(stored).toContain(`"token_type":"${type}"`)
  })

  it('revoking it ends the sessions it opened at once, and only those', async () => {
    const password = await login(t)
    const soft = (await withToken(t, password)('POST', '/v2/token?v=1', { tokenRequest: { type: 'softcredential' } })).json.tokenResponse.token as string
    const session = (await post(body('token', { token: soft }))).json.loginResponse.tokens[0].value as string
    expectStatus(await withToken(t, session)('GET', '/v2/accounts?v=1'), 200, 'API-200') // now remembered by this process
    // The session records the credential that opened it: the soft credential, a `token` kind.
    const { credential_id: id } = await t.db.kysely.selectFrom('sessions').select('credential_id').where('token_hash', '=', sha256Hex(session)).executeTakeFirstOrThrow()
    const credential = await t.db.kysely.selectFrom('credentials').select(['kind', 'customer_id']).where('id', '=', id!).executeTakeFirstOrThrow()
    expect(credential).toEqual({ kind: 'token', customer_id: 'sandbox-customer-1' })

    expect(await t.app.services.identity.revokeCredential(id!)).toBe(true)
    expectStatus(await withToken(t, session)('GET', '/v2/accounts?v=1'), 401, 'API-448')
    expectStatus(await post(body('token', { token: soft })), 401, 'API-448')
    expectStatus(await withToken(t, password)('GET', '/v2/accounts?v=1'), 200, 'API-200')
    expect(await t.app.services.identity.revokeCredential(id!)).toBe(false)
  })

  it('is bound to its customer and brand', async () => {
    const token = await login(t)
    const soft = (await withToken(t, token)('POST', '/v2/token?v=1', { tokenRequest: { type: 'touch' } })).json.tokenResponse.token
    const other = await post({ loginRequest: { brand: 'other', lob: 'nab', credentials: { apiStructType: 'token', token: { token: soft } } } })
    expectStatus(other, 401, 'API-448')
  })

  it.each([
    ['an unknown type', { tokenRequest: { type: 'magic' } }],
    ['no type', { tokenRequest: {} }],
    ['no tokenRequest', {}],
  ])('%s → API-420/400 and nothing is created', async (_label, b) => {
    const token = await login(t)
    const before = (await t.db.kysely.selectFrom('credentials').select('id').execute()).length
    expectStatus(await withToken(t, token)('POST', '/v2/token?v=1', b), 400, 'API-420')
    expect((await t.db.kysely.selectFrom('credentials').select('id').execute()).length).toBe(before)
  })
})
