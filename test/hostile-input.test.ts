// Hostile input answers 400 in each family's own shape, never 500 (issue 19, item 5): an event type naming a
// built-in property of plain objects (`toString`, `constructor`, `__proto__`), and a NUL character (U+0000, which
// PostgreSQL's text cannot hold) in any text a request carries: a body member, a member name, a query parameter, a
// path parameter, a form field; in the reporting, webhook, banking and OAuth families, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type Response, type TestApp } from './support/harness.js'
import { TESTREST_KEY, signedCall } from './support/reporting.js'
import { subscriptionBody } from './support/webhooks.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(Date.now()) })
  await t.app.services.webhooks.keys.save({ id: 'testrest', authenticatedId: 'testrest' }, {})
})
afterAll(() => t.close())

const NUL = '\u0000'
const signed = (method: string, path: string, body?: unknown) => signedCall(t, { method, path, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }), key: TESTREST_KEY })

function expectReporting400(res: Response, field: string) {
  expect(res.status, res.text).toBe(400)
  expect(res.json).toEqual({ submitTimeUtc: expect.stringMatching(/Z$/), reason: 'INVALID_DATA', message: 'One or more fields contains invalid data', details: [{ field, reason: expect.stringContaining('NUL') }] })
}

describe('event types named like built-in properties', () => {
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'])('POST /sandbox/v1/events with eventType %s answers 400 naming eventType', async (eventType) => {
    const res = await signed('POST', '/sandbox/v1/events', { eventType })
    expect(res.status, res.text).toBe(400)
    expect(res.json).toMatchObject({ reason: 'INVALID_DATA', details: [{ field: 'eventType', reason: expect.stringMatching(/unknown event type/) }] })
  })

  it('a report subscription naming built-in properties gets its usual 400s, no hint made of a function', async () => {
    const body = { reportDefinitionName: 'constructor', reportFields: ['Request.RequestID'], reportName: 'props', timezone: 'GMT', reportFrequency: 'DAILY', startTime: '0100', reportPreferences: { fieldNameConvention: 'toString' } }
    const res = await signed('PUT', '/reporting/v3/report-subscriptions', body)
    expect(res.status, res.text).toBe(400)
    const paths = res.json.fields.map((f: { path: string; message: string }) => `${f.path}: ${f.message}`)
    expect(paths).toContain('reportDefinitionName: unknown report definition')
    expect(res.text).not.toContain('function')
  })
})

describe('a NUL character in text answers 400 naming the field', () => {
  it.each([
    ['keyInformation.tenant', { keyInformation: { tenant: `a${NUL}b` } }],
    ['keyInformation.clientKeyId', { keyInformation: { clientKeyId: `k${NUL}` } }],
    ['clientReferenceInformation.code', { clientReferenceInformation: { code: NUL } }],
  ])('keys-sym %s', async (field, body) => {
    expectReporting400(await signed('POST', '/kms/egress/v2/keys-sym', body), field)
  })

  it.each([
    ['name', { name: `n${NUL}` }],
    ['description', { description: `d${NUL}` }],
    ['webhookUrl', { webhookUrl: `http://127.0.0.1:9/${NUL}` }],
    ['products[0].eventTypes[1]', { products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.send', `x${NUL}`] }] }],
  ])('a webhook subscription %s', async (field, over) => {
    expectReporting400(await signed('POST', '/notification-subscriptions/v2/webhooks', subscriptionBody('http://127.0.0.1:9', over)), field)
  })

  it('a member name of the sandbox event data', async () => {
    expectReporting400(await signed('POST', '/sandbox/v1/events', { eventType: 'invoicing.customer.invoice.send', data: { [`a${NUL}`]: 'x' } }), 'data')
  })

  it.each([
    ['report-downloads reportName', '/reporting/v3/report-downloads?reportName=%00&reportDate=2026-01-01', 'querystring.reportName'],
    ['report search reportName', '/reporting/v3/reports?startTime=2026-01-01T00:00:00Z&endTime=2026-01-02T00:00:00Z&timeQueryType=executedTime&reportName=a%00', 'querystring.reportName'],
    ['a subscription by name', '/reporting/v3/report-subscriptions/a%00b', 'params.reportName'],
    ['a webhook by id', '/notification-subscriptions/v2/webhooks/%00', 'params.webhookId'],
  ])('%s', async (_name, path, field) => {
    expectReporting400(await signed('GET', path), field)
  })

  it('a one-time report reportName', async () => {
    const body = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], reportName: `r${NUL}`, timezone: 'GMT', reportStartTime: '2026-01-01T00:00:00Z', reportEndTime: '2026-01-02T00:00:00Z' }
    expectReporting400(await signed('POST', '/reporting/v3/reports', body), 'reportName')
  })

  it('a report subscription reportName, in the subscription PUT’s own error body', async () => {
    const body = { reportDefinitionName: 'TransactionRequestClass', reportFields: ['Request.RequestID'], reportName: `s${NUL}`, timezone: 'GMT', reportFrequency: 'DAILY', startTime: '0100' }
    const res = await signed('PUT', '/reporting/v3/report-subscriptions', body)
    expect(res.status, res.text).toBe(400)
    expect(res.json).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ path: 'reportName', message: expect.stringContaining('NUL') }] })
  })

  it("a JWT's kid, looked up before its signature is checked, answers the reporting 401", async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const path = '/reporting/v3/report-definitions'
    const iat = Math.floor(t.clock.now().getTime() / 1000)
    const claims = { iat, exp: iat + 120, jti: 'j1', iss: 'testrest', 'v-c-merchant-id': 'testrest', 'request-method': 'get', 'request-resource-path': path, 'request-host': 'localhost' }
    for (const alg of ['HS256', 'RS256']) {
      const token = `${b64({ alg, kid: `k${NUL}` })}.${b64(claims)}.c2ln`
      const res = await t.call('GET', path, { headers: { authorization: `Bearer ${token}`, 'x-svc-key': undefined } })
      expect(res.status, res.text).toBe(401)
      expect(res.json).toEqual({ response: { rmsg: 'Authentication Failed' } })
    }
  })

  it('banking: a sign-in member, in the banking envelope', async () => {
    const body = { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: `1005${NUL}5670`, password: 'aaa111' } } } }
    const res = await t.call('POST', '/v2/auth?v=1', { body })
    expect(res.status, res.text).toBe(400)
    expect(res.json).toEqual({ status: { code: 'API-420', message: 'Invalid Request', details: [{ field: 'loginRequest.credentials.usernamePassword.username', reason: expect.stringContaining('NUL') }] } })
  })

  it('banking: a query parameter', async () => {
    const body = { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: '10055670', password: 'aaa111' } } } }
    const res = await t.call('POST', '/v2/auth?v=1&x=%00', { body })
    expect(res.status, res.text).toBe(400)
    expect(res.json.status).toMatchObject({ code: 'API-420', details: [{ field: 'querystring.x' }] })
  })

  it('OAuth: a form field at the token endpoint and at the pushed-request endpoint, as invalid_request', async () => {
    const bare = { 'x-svc-key': undefined, 'user-agent': undefined, 'content-type': 'application/x-www-form-urlencoded' }
    const token = await t.call('POST', '/oauth2/v3/token', { headers: bare, body: `grant_type=client_credentials&client_id=a%00b&client_secret=x` })
    expect(token.json).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/client_id.*NUL/) })
    const par = await t.call('POST', '/oauth2/v3/par', { headers: bare, body: `client_id=${t.sandboxKey}&state=%00&response_type=code` })
    expect(par.status, par.text).toBe(400)
    expect(par.json).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/state.*NUL/) })
    // HTTP Basic client credentials are form-encoded: %00 decodes to a NUL the header itself could not carry.
    const basic = `Basic ${Buffer.from('a%00b:secret').toString('base64')}`
    const introspect = await t.call('POST', '/oauth2/v3/introspect', { headers: { ...bare, authorization: basic }, body: 'token=x' })
    expect(introspect.status, introspect.text).toBe(401)
    expect(introspect.json).toEqual({ error: 'invalid_client', error_description: 'malformed HTTP Basic client credentials' })
  })

  it('OAuth: a query parameter of the authorize page, as an error page', async () => {
    const query = new URLSearchParams({ response_type: 'code', client_id: t.sandboxKey, redirect_uri: 'http://127.0.0.1:8123/callback', scope: 'accounts', state: `s${NUL}`, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })
    const res = await t.call('GET', `/oauth2/v3/authorize?${query}`, { headers: { 'x-svc-key': undefined, 'user-agent': undefined } })
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
  })
})
