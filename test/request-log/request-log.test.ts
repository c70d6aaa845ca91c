// The API request log through HTTP on a real server: every family's calls are recorded with who made them (scheme,
// key id, organization) and never a secret; the console's service lists an organization's own calls, filtered and
// paged; support finds a call by its correlation id (the service, and `finapi requests find` for an operator across
// organizations); housekeeping prunes what is older than REQUEST_LOG_RETENTION_DAYS on the fake clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as m0025 from '../../src/migrations/0025_request_log_rowid.js'
import type { RequestLogEntry } from '../../src/request-log/service.js'
import { login } from '../support/banking.js'
import { runFinapi } from '../support/cli.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { basic, token } from '../support/oauth.js'
import { OTHER_KEY, TESTREST_KEY, signedCall, signedHeaders } from '../support/reporting.js'
import { MERCHANT_CLIENT } from '../support/reporting-oauth.js'

let t: TestApp
/** Every secret the calls below send: none may be in any row. */
const secrets: string[] = [TESTREST_KEY.secret, OTHER_KEY.secret, MERCHANT_CLIENT.secret, 'aaa111']
const SUBSCRIPTIONS = '/reporting/v3/report-subscriptions'

beforeAll(async () => {
  t = await startTestApp({ env: { REQUEST_LOG: 'on', REQUEST_LOG_RETENTION_DAYS: '3' } })
  secrets.push(t.sandboxKey)
}, 60_000)
afterAll(() => t?.close())

const log = () => t.app.services.requestLog
const one = async (correlationId: string): Promise<RequestLogEntry> => {
  const rows = await log().find(correlationId)
  expect(rows, correlationId).toHaveLength(1)
  return rows[0]!
}
const allRows = async () => t.db.kysely.selectFrom('request_log').selectAll().execute()

describe('recording', () => {
  it('records a banking call: the application id, the scheme, no organization, the key and token nowhere', async () => {
    const bankingToken = await login(t)
    secrets.push(bankingToken)
    const res = await t.call('GET', '/v2/accounts?v=1', { headers: { authorization: bankingToken, 'x-correlationid': 'rl-banking-1' } })
    expect(res.status, res.text).toBe(200)
    const row = await one('rl-banking-1')
    expect(row).toMatchObject({ method: 'GET', path: '/v2/accounts?v=1', status: 200, scheme: 'banking_token', keyId: 'sandbox', organizationId: null })
    expect(Date.parse(row.at)).toBeLessThanOrEqual(t.clock.nowMs())
    expect(t.clock.nowMs() - Date.parse(row.at)).toBeLessThan(10_000)
    expect(row.durationMs).toBeGreaterThan(0)
    // The sign-in before it: the key alone.
    await log().flush()
    expect((await allRows()).find((r) => r.path === '/v2/auth?v=1')).toMatchObject({ method: 'POST', status: 200, scheme: 'banking_key', key_id: 'sandbox', organization_id: null })
  })

  it('masks a secret in the query string', async () => {
    const res = await t.call('GET', '/v2/accounts?v=1&access_token=query-secret-123&client_secret=another-one', { headers: { 'x-correlationid': 'rl-query-1' } })
    expect(res.status).toBeGreaterThanOrEqual(400)
    const row = await one('rl-query-1')
    expect(row.path).toBe('/v2/accounts?v=1&access_token=[redacted]&client_secret=[redacted]')
    secrets.push('query-secret-123', 'another-one')
  })

  it('records a signed merchant call with its key id and organization, and a refused one with neither', async () => {
    const ok = await t.call('GET', SUBSCRIPTIONS, { headers: { ...signedHeaders({ method: 'GET', path: SUBSCRIPTIONS, key: TESTREST_KEY, date: t.clock.now() }), 'x-correlationid': 'rl-signed-1' } })
    expect(ok.status, ok.text).toBe(200)
    expect(await one('rl-signed-1')).toMatchObject({ method: 'GET', path: SUBSCRIPTIONS, status: 200, scheme: 'http_signature', keyId: TESTREST_KEY.id, organizationId: 'testrest' })
    const forged = { ...TESTREST_KEY, secret: OTHER_KEY.secret }
    const refused = await t.call('GET', SUBSCRIPTIONS, { headers: { ...signedHeaders({ method: 'GET', path: SUBSCRIPTIONS, key: forged, date: t.clock.now() }), 'x-correlationid': 'rl-refused-1' } })
    expect(refused.status).toBe(401)
    expect(await one('rl-refused-1')).toMatchObject({ status: 401, scheme: 'http_signature', keyId: null, organizationId: null })
    const other = await signedCall(t, { method: 'GET', path: SUBSCRIPTIONS, key: OTHER_KEY })
    expect(other.status).toBe(200)
  })

  it("records OAuth's token endpoint under HTTP Basic and the bearer call after it, with neither secret nor token", async () => {
    const issued = await token(t, { grant_type: 'client_credentials', scope: 'reporting' }, { authorization: basic(MERCHANT_CLIENT.clientId, MERCHANT_CLIENT.secret), 'x-correlationid': 'rl-token-1' })
    expect(issued.status, issued.text).toBe(200)
    secrets.push(issued.json.access_token, basic(MERCHANT_CLIENT.clientId, MERCHANT_CLIENT.secret).slice('Basic '.length))
    // The client's id and organization, as the bearer call after it records them.
    expect(await one('rl-token-1')).toMatchObject({ method: 'POST', path: '/oauth2/v3/token', status: 200, scheme: 'client_basic', keyId: 'sandbox-testrest-reporting', organizationId: 'testrest' })
    const bearer = await t.call('GET', SUBSCRIPTIONS, { headers: { authorization: `Bearer ${issued.json.access_token}`, 'x-svc-key': undefined, 'x-correlationid': 'rl-bearer-1' } })
    expect(bearer.status, bearer.text).toBe(200)
    expect(await one('rl-bearer-1')).toMatchObject({ scheme: 'oauth', keyId: 'sandbox-testrest-reporting', organizationId: 'testrest' })
    // The secret in the form; and a wrong secret, whose client is not known. A second later: a call's time is its
    // end less its duration, so on a clock that stands still a slower second call would sort as the older.
    t.clock.advance(1_000)
    const posted = await token(t, { grant_type: 'client_credentials', scope: 'reporting', client_id: MERCHANT_CLIENT.clientId, client_secret: MERCHANT_CLIENT.secret }, { 'x-correlationid': 'rl-token-2' })
    expect(posted.status, posted.text).toBe(200)
    secrets.push(posted.json.access_token)
    expect(await one('rl-token-2')).toMatchObject({ status: 200, scheme: 'client_post', keyId: 'sandbox-testrest-reporting', organizationId: 'testrest' })
    const wrong = await token(t, { grant_type: 'client_credentials', client_id: MERCHANT_CLIENT.clientId, client_secret: 'not-the-secret' }, { 'x-correlationid': 'rl-token-3' })
    expect(wrong.status).toBe(500)
    expect(await one('rl-token-3')).toMatchObject({ scheme: 'none', keyId: null, organizationId: null })
  })

  it('keeps no secret in any row, and records no platform page', async () => {
    expect((await t.call('GET', '/health/live', { headers: { 'x-correlationid': 'rl-health' } })).status).toBe(200)
    await log().flush()
    const text = JSON.stringify(await allRows())
    for (const secret of secrets) expect(text, secret.slice(0, 6)).not.toContain(secret)
    expect(await log().find('rl-health')).toEqual([])
  })
})

describe('the console service', () => {
  it("lists an organization's own calls newest first, filtered and keyset-paged", async () => {
    for (const [i, path] of [SUBSCRIPTIONS, `${SUBSCRIPTIONS}?x=1`, '/reporting/v3/reports?startTime=a'].entries()) {
      t.clock.advance(1_000)
      await t.call('GET', path, { headers: { ...signedHeaders({ method: 'GET', path, key: TESTREST_KEY, date: t.clock.now() }), 'x-correlationid': `rl-page-${i}` } })
    }
    const all = (await log().list('testrest', { limit: 200 })).entries
    expect(all.every((e) => e.organizationId === 'testrest')).toBe(true)
    expect(all.slice(0, 3).map((e) => e.correlationId)).toEqual(['rl-page-2', 'rl-page-1', 'rl-page-0'])
    expect(all.some((e) => e.keyId === OTHER_KEY.id)).toBe(false)

    const first = await log().list('testrest', { limit: 2 })
    expect(first.entries.map((e) => e.correlationId)).toEqual(['rl-page-2', 'rl-page-1'])
    const second = await log().list('testrest', { limit: 2, cursor: first.nextCursor! })
    expect(second.entries[0]!.correlationId).toBe('rl-page-0')
    expect(second.entries.map((e) => e.id)).not.toContain(first.entries[1]!.id)

    expect((await log().list('testrest', { statusClass: '4xx' })).entries.map((e) => e.correlationId)).toEqual(['rl-page-2'])
    expect((await log().list('testrest', { pathPrefix: `${SUBSCRIPTIONS}?` })).entries.map((e) => e.correlationId)).toEqual(['rl-page-1'])
    // OAuth's token endpoint names its client's organization: testrest's own token requests are its calls.
    expect((await log().list('testrest', { method: 'post' })).entries.map((e) => e.correlationId)).toEqual(['rl-token-2', 'rl-token-1'])
    expect((await log().list('testrest', { scheme: 'client_post' })).entries.map((e) => e.correlationId)).toEqual(['rl-token-2'])
    expect((await log().list('testrest', { keyId: TESTREST_KEY.id, pathPrefix: `${SUBSCRIPTIONS}?` })).entries.map((e) => e.correlationId)).toEqual(['rl-page-1'])
    expect((await log().list('testrest', { keyId: OTHER_KEY.id })).entries).toEqual([])
    await expect(log().list('testrest', { scheme: 'magic' })).rejects.toMatchObject({ kind: 'invalid' })
    const since = new Date(t.clock.nowMs() - 500).toISOString()
    expect((await log().list('testrest', { from: since })).entries.map((e) => e.correlationId)).toEqual(['rl-page-2'])
    expect((await log().list('testrest', { to: since, correlationId: 'rl-page-0' })).entries).toHaveLength(1)
    await expect(log().list('testrest', { statusClass: '6xx' })).rejects.toMatchObject({ kind: 'invalid' })
    await expect(log().list('testrest', { cursor: 'bm9wZQ' })).rejects.toMatchObject({ kind: 'invalid' })
  })

  it("finds a call by correlation id for its own organization only", async () => {
    expect(await log().findForOrganization('testrest', 'rl-signed-1')).toHaveLength(1)
    expect(await log().findForOrganization(OTHER_KEY.org, 'rl-signed-1')).toEqual([])
    expect((await log().list(OTHER_KEY.org, { limit: 200 })).entries.every((e) => e.organizationId === OTHER_KEY.org)).toBe(true)
  })
})

describe('finapi requests find', () => {
  const env = () => ({ MODE: 'sandbox', DATABASE_URL: t.config.databaseUrl, LOG_LEVEL: 'warn' })

  it('finds a call across organizations, as a table or JSON; says what to do when it finds none', async () => {
    await log().flush()
    const json = await runFinapi(['requests', 'find', 'rl-signed-1', '--json'], env())
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject([{ correlationId: 'rl-signed-1', organizationId: 'testrest', keyId: TESTREST_KEY.id, status: 200 }])
    const table = await runFinapi(['requests', 'find', 'rl-banking-1'], env())
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout.split('\n')[0]).toBe('time\torganization\tmethod\tpath\tstatus\tms\tscheme\tkey id\tcorrelation id')
    expect(table.stdout).toContain('GET\t/v2/accounts?v=1\t200')
    const none = await runFinapi(['requests', 'find', 'rl-nothing'], env())
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^finapi: no API call with correlation id rl-nothing .*REQUEST_LOG_RETENTION_DAYS/)
    const bad = await runFinapi(['requests', 'find', 'a b'], env())
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('is not a correlation id')
    const help = await runFinapi(['requests', 'find', '--help'], env())
    expect(help.stdout).toContain('finapi requests find <correlation-id> [--json]')
  }, 60_000)
})

describe('the client-authenticated OAuth endpoints', () => {
  it("records OAuth's revocation, introspection and pushed requests with the client that authenticated", async () => {
    const issued = await token(t, { grant_type: 'client_credentials', scope: 'reporting' }, { authorization: basic(MERCHANT_CLIENT.clientId, MERCHANT_CLIENT.secret) })
    expect(issued.status, issued.text).toBe(200)
    secrets.push(issued.json.access_token)
    const form = (path: string, fields: Record<string, string>, headers: Record<string, string>) =>
      t.call('POST', path, { headers: { 'x-svc-key': undefined, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() })
    const asBasic = { authorization: basic(MERCHANT_CLIENT.clientId, MERCHANT_CLIENT.secret) }
    const described = await form('/oauth2/v3/introspect', { token: issued.json.access_token }, { ...asBasic, 'x-correlationid': 'rl-introspect-1' })
    expect(described.json).toMatchObject({ active: true })
    expect(await one('rl-introspect-1')).toMatchObject({ path: '/oauth2/v3/introspect', status: 200, scheme: 'client_basic', keyId: 'sandbox-testrest-reporting', organizationId: 'testrest' })
    const revoked = await form('/oauth2/v3/revoke', { token: issued.json.access_token, client_id: MERCHANT_CLIENT.clientId, client_secret: MERCHANT_CLIENT.secret }, { 'x-correlationid': 'rl-revoke-1' })
    expect(revoked.status, revoked.text).toBe(200)
    expect(await one('rl-revoke-1')).toMatchObject({ path: '/oauth2/v3/revoke', status: 200, scheme: 'client_post', keyId: 'sandbox-testrest-reporting', organizationId: 'testrest' })
    // A pushed request the client authenticated for but that is refused: still the client's call.
    const pushed = await form('/oauth2/v3/par', { response_type: 'code' }, { ...asBasic, 'x-correlationid': 'rl-par-1' })
    expect(pushed.status, pushed.text).toBe(400)
    expect(await one('rl-par-1')).toMatchObject({ path: '/oauth2/v3/par', status: 400, scheme: 'client_basic', keyId: 'sandbox-testrest-reporting', organizationId: 'testrest' })
    // A client that does not authenticate is nobody's.
    const refused = await form('/oauth2/v3/revoke', { token: 'x', client_id: MERCHANT_CLIENT.clientId, client_secret: 'not-the-secret' }, { 'x-correlationid': 'rl-revoke-2' })
    expect(refused.status).toBe(401)
    expect(await one('rl-revoke-2')).toMatchObject({ scheme: 'none', keyId: null, organizationId: null })
    const text = JSON.stringify(await allRows())
    for (const secret of secrets) expect(text, secret.slice(0, 6)).not.toContain(secret)
  })
})

describe('retention', () => {
  it('prunes calls older than REQUEST_LOG_RETENTION_DAYS when housekeeping runs on the moved clock', async () => {
    await log().flush()
    const before = (await allRows()).length
    expect(before).toBeGreaterThan(5)
    t.clock.advance(2 * 86_400_000)
    await signedCall(t, { method: 'GET', path: SUBSCRIPTIONS, key: TESTREST_KEY })
    expect((await t.app.services.housekeeping.runOnce())['request log calls']).toBe(0)
    t.clock.advance(1 * 86_400_000 + 60_000)
    await log().flush()
    expect((await t.app.services.housekeeping.runOnce())['request log calls']).toBe(before)
    expect(await allRows()).toHaveLength(1)
  })

  it('prunes the old rows behind younger ones written before them (another process, a clock set back), and only those', async () => {
    await log().flush()
    await t.db.kysely.deleteFrom('request_log').execute()
    const now = t.clock.nowMs()
    const row = (correlationId: string, ageDays: number) => ({
      at: new Date(now - ageDays * 86_400_000).toISOString(),
      organization_id: 'testrest',
      method: 'GET',
      path: SUBSCRIPTIONS,
      status: 200,
      duration_us: 1,
      correlation_id: correlationId,
      scheme: 'none',
      key_id: null,
    })
    // Written in this order: the table's own order is the ids', not the times'.
    await t.db.kysely.insertInto('request_log').values([row('young-1', 1), row('old-1', 8), row('old-2', 9), row('young-2', 0), row('old-3', 3.01)]).execute()
    expect((await t.app.services.housekeeping.runOnce())['request log calls']).toBe(3)
    expect((await allRows()).map((r) => r.correlation_id).sort()).toEqual(['young-1', 'young-2'])
  })
})

describe('migration 0025', () => {
  it('keeps every row and its order through down and up again; the ids, integers again, follow the old order', async () => {
    const at = (s: number) => new Date(t.clock.nowMs() - s * 1000).toISOString()
    const rows = ['m-3', 'm-1', 'm-2'].map((correlationId, i) => ({ at: at(i === 0 ? 5 : 9), organization_id: i === 1 ? null : 'testrest', method: 'POST', path: `/v2/x${i}`, status: 201 + i, duration_us: 10 + i, correlation_id: correlationId, scheme: 'none', key_id: i === 2 ? 'k' : null }))
    await t.db.kysely.insertInto('request_log').values(rows).execute()
    const shape = async () => (await t.db.kysely.selectFrom('request_log').selectAll().orderBy('id').execute()).map(({ id: _id, ...rest }) => ({ ...rest, status: Number(rest.status), duration_us: Number(rest.duration_us) }))
    const kept = await shape()
    expect(kept.filter((r) => r.correlation_id.startsWith('m-')).map((r) => r.correlation_id)).toEqual(['m-3', 'm-1', 'm-2'])
    await m0025.down(t.db.kysely as never)
    await m0025.up(t.db.kysely as never)
    const after = await shape()
    // Copied in the old order, time then id: m-1 and m-2 (9 s old) before m-3 (5 s old).
    expect(after.filter((r) => r.correlation_id.startsWith('m-')).map((r) => r.correlation_id)).toEqual(['m-1', 'm-2', 'm-3'])
    const byId = (list: typeof kept) => [...list].sort((a, b) => a.correlation_id.localeCompare(b.correlation_id))
    expect(byId(after)).toEqual(byId(kept))
    // New calls are numbered after the copied rows.
    const res = await t.call('GET', SUBSCRIPTIONS, { headers: { ...signedHeaders({ method: 'GET', path: SUBSCRIPTIONS, key: TESTREST_KEY, date: t.clock.now() }), 'x-correlationid': 'after-0025' } })
    expect(res.status, res.text).toBe(200)
    await log().flush()
    const last = await t.db.kysely.selectFrom('request_log').select('correlation_id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    expect(last.correlation_id).toBe('after-0025')
  })
})
