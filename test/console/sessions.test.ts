// The console's sign-in and sessions through HTTP: the cookie's flags, a new session id at each sign-in, the
// page headers (CSP, no-store), idle and absolute expiry on the fake clock, sign-out revoking the row, a revoked
// merchant user signed out at once, the sign-in lockout of identity, CSRF on every form, housekeeping's pruning,
// and the choice of organization under the API's organizationId rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/platform/crypto.js'
import { startTestApp, type TestApp } from '../support/harness.js'
import { ConsoleBrowser, csrfOf } from '../support/console.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(() => t.close())

const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

describe('sign-in', () => {
  it('signs testrest in with a fresh HttpOnly, SameSite=Strict cookie under /console, stored only as a hash', async () => {
    const b = new ConsoleBrowser(t)
    const page = await b.get('/console/sign-in')
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toBe(CSP)
    expect(page.headers['cache-control']).toBe('no-store')
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.headers['referrer-policy']).toBe('no-referrer')
    expect(page.text).not.toMatch(/<script|style=/)
    const res = await b.post('/console/sign-in', { csrf_token: csrfOf(page.text), username: 'testrest', password: 'Testrest-1' })
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe('/console')
    const set = [res.headers['set-cookie']].flat().find((c) => c!.startsWith('finapi_console='))!
    expect(set).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/)
    expect(set).not.toMatch(/Secure/)
    const token = b.cookies.get('finapi_console')!
    const rows = await t.db.kysely.selectFrom('console_sessions').selectAll().execute()
    expect(rows.some((r) => r.token_hash === sha256Hex(token))).toBe(true)
    expect(rows.some((r) => r.token_hash === token)).toBe(false)
    const home = await b.get('/console')
    expect(home.status).toBe(200)
    expect(home.text).toContain('Acting for <strong>testrest</strong>')
    // A session id planted before sign-in is never the one given (session fixation).
    const planted = 'A'.repeat(43)
    const fixed = new ConsoleBrowser(t)
    fixed.cookies.set('finapi_console', planted)
    await fixed.signIn()
    expect(fixed.cookies.get('finapi_console')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(fixed.cookies.get('finapi_console')).not.toBe(planted)
    expect(fixed.cookies.get('finapi_console')).not.toBe(token)
  })

  it('marks the cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    const proxied = await startTestApp({ env: { TRUST_PROXY: 'true' } })
    try {
      const b = new ConsoleBrowser(proxied)
      const page = await b.send('GET', '/console/sign-in', undefined, { 'x-forwarded-proto': 'https' })
      const res = await b.send('POST', '/console/sign-in', { csrf_token: csrfOf(page.text), username: 'testrest', password: 'Testrest-1' }, { 'x-forwarded-proto': 'https' })
      expect([res.headers['set-cookie']].flat().find((c) => c!.startsWith('finapi_console='))).toMatch(/; Secure$/)
    } finally {
      await proxied.close()
    }
  })

  it('refuses a wrong password with the same page, and a sign-in form without its CSRF token with 403', async () => {
    const b = new ConsoleBrowser(t)
    const wrong = await b.submit('/console/sign-in', '/console/sign-in', { username: 'testrest', password: 'nope' })
    expect(wrong.status).toBe(200)
    expect(wrong.text).toContain('did not work')
    expect(b.cookies.has('finapi_console')).toBe(false)
    const forged = await new ConsoleBrowser(t).post('/console/sign-in', { username: 'testrest', password: 'Testrest-1' })
    expect(forged.status).toBe(403)
    expect(forged.text).toContain('did not come from this console')
  })

  it('locks the merchant user out after repeated failures, as the consent page does (identity lockout)', async () => {
    const { password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest', username: 'guessed' })
    const b = new ConsoleBrowser(t)
    for (let i = 0; i < 10; i++) await b.submit('/console/sign-in', '/console/sign-in', { username: 'guessed', password: `wrong-${i}` })
    const right = await b.submit('/console/sign-in', '/console/sign-in', { username: 'guessed', password })
    expect(right.text).toContain('did not work')
    expect(b.cookies.has('finapi_console')).toBe(false)
  })
})

describe('sessions', () => {
  it('ends after 30 idle minutes, and is kept alive by use until the absolute 12 hours', async () => {
    const b = new ConsoleBrowser(t)
    await b.signIn()
    t.clock.advance(29 * 60_000)
    expect((await b.get('/console')).status).toBe(200)
    t.clock.advance(29 * 60_000)
    expect((await b.get('/console')).status).toBe(200)
    t.clock.advance(31 * 60_000)
    const idle = await b.get('/console')
    expect(idle.status).toBe(303)
    expect(idle.headers.location).toBe('/console/sign-in')

    const busy = new ConsoleBrowser(t)
    await busy.signIn()
    for (let i = 0; i < 24; i++) {
      t.clock.advance(29 * 60_000)
      expect((await busy.get('/console')).status).toBe(200)
    }
    t.clock.advance(29 * 60_000)
    expect((await busy.get('/console')).status).toBe(303)
  })

  it('sign-out revokes the row: the old cookie no longer works', async () => {
    const b = new ConsoleBrowser(t)
    await b.signIn()
    const token = b.cookies.get('finapi_console')!
    const out = await b.submit('/console', '/console/sign-out', {})
    expect(out.status).toBe(303)
    const row = await t.db.kysely.selectFrom('console_sessions').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst()
    expect(row?.revoked_at).not.toBeNull()
    b.cookies.set('finapi_console', token)
    expect((await b.get('/console')).status).toBe(303)
  })

  it('signs a revoked merchant user out at once', async () => {
    const { user, password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest', username: 'leaving' })
    const b = new ConsoleBrowser(t)
    await b.signIn('leaving', password)
    expect((await b.get('/console')).status).toBe(200)
    await t.app.services.identity.revokeCredential(user.credentialId)
    expect((await b.get('/console')).status).toBe(303)
  })

  it('refuses a form without, or with a wrong, CSRF token with 403 and a page saying so', async () => {
    const b = new ConsoleBrowser(t)
    await b.signIn()
    const missing = await b.post('/console/sign-out', {})
    expect(missing.status).toBe(403)
    expect(missing.headers['content-type']).toMatch(/^text\/html/)
    expect(missing.text).toContain('did not come from this console')
    const other = new ConsoleBrowser(t)
    await other.signIn()
    const wrong = await b.post('/console/sign-out', { csrf_token: csrfOf((await other.get('/console')).text) })
    expect(wrong.status).toBe(403)
    expect((await b.get('/console')).status).toBe(200)
  })

  it('housekeeping deletes expired and revoked sessions', async () => {
    const b = new ConsoleBrowser(t)
    await b.signIn()
    t.clock.advance(13 * 3_600_000)
    await t.app.services.housekeeping.runOnce()
    const left = await t.db.kysely.selectFrom('console_sessions').select('token_hash').execute()
    expect(left).toEqual([])
  })
})

describe('acting organization', () => {
  it('lets an account user act for a merchant below it, under the API rule, and answers 404 for any other', async () => {
    const { password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest_acct', username: 'acct-user' })
    const b = new ConsoleBrowser(t)
    await b.signIn('acct-user', password)
    const picker = await b.get('/console/organization')
    expect(picker.text).toContain('value="testrest_two"')
    expect(picker.text).not.toContain('othermerchant')
    expect((await b.submit('/console/organization', '/console/organization', { organizationId: 'othermerchant' })).status).toBe(404)
    expect((await b.submit('/console/organization', '/console/organization', { organizationId: 'nosuchorg' })).status).toBe(404)
    expect((await b.submit('/console/organization', '/console/organization', { organizationId: 'testrest_two' })).status).toBe(303)
    expect((await b.get('/console')).text).toContain('Acting for <strong>testrest_two</strong>')
    // A merchant user of testrest may not act for its parent.
    const merchant = new ConsoleBrowser(t)
    await merchant.signIn()
    expect((await merchant.submit('/console/organization', '/console/organization', { organizationId: 'testrest_acct' })).status).toBe(404)
  })
})
