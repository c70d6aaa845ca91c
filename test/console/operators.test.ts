// The operators' pages through HTTP: a merchant user made an operator (through the service `finapi users
// grant-operator` calls) sees the whole organization tree and adds to it; creates a merchant user whose password is
// shown once and works, and revokes them, which ends their console session at once; creates a reporting key whose
// secret is shown once and signs calls until revoked; registers an OAuth client whose secret gets tokens until
// revoked. Anyone else gets the 404 of a page that does not exist, and no link to the pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleBrowser, csrfOf } from '../support/console.js'
import { FakeClock, startTestApp, type TestApp } from '../support/harness.js'
import { signedCall } from '../support/reporting.js'

let t: TestApp
let operator: ConsoleBrowser
const PAGES = ['/console/operators', '/console/operators/users', '/console/operators/keys', '/console/operators/clients']

beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T00:00:00Z')) })
  const { password } = await t.app.services.merchantUsers.create({ organizationId: 'testrest', username: 'ops-alice' })
  expect(await t.app.services.merchantUsers.setOperator('ops-alice', true)).toMatchObject({ username: 'ops-alice', operator: true })
  operator = new ConsoleBrowser(t)
  expect((await operator.signIn('ops-alice', password)).status).toBe(303)
})
afterAll(() => t.close())

/** Text of a `<dd>` after the `<dt>` named `term` on a page. */
const shown = (page: string, term: string) => new RegExp(`<dt>${term}</dt><dd><code>([^<]+)</code></dd>`).exec(page)?.[1]

describe('a merchant user who is not an operator', () => {
  it('gets, for every operator page and form, the 404 of a page that does not exist, and no link to them', async () => {
    const b = new ConsoleBrowser(t)
    await b.signIn()
    const home = await b.get('/console')
    expect(home.text).not.toContain('/console/operators')
    const nowhere = await b.get('/console/no-such-page')
    expect(nowhere.status).toBe(404)
    for (const path of PAGES) {
      const res = await b.get(path)
      expect(res.status, path).toBe(404)
      expect(res.text).toBe(nowhere.text)
    }
    const csrf = csrfOf(home.text)
    for (const path of ['/console/operators/organizations', '/console/operators/users', '/console/operators/keys', '/console/operators/clients']) {
      expect((await b.post(path, { csrf_token: csrf, id: 'sneaky', type: 'merchant', organizationId: 'testrest', username: 'sneaky', name: 'sneaky', scopes: 'reporting' })).status, path).toBe(404)
    }
    // Without a CSRF token too: not the 403 a real form would get, which would tell the page is there.
    expect((await b.post('/console/operators/organizations', { id: 'sneaky', type: 'merchant' })).status).toBe(404)
    expect(await t.app.services.organizations.find('sneaky')).toBeUndefined()
    expect((await t.app.services.merchantUsers.list()).map((u) => u.username)).not.toContain('sneaky')
  })
})

describe('an operator', () => {
  it('sees the link and the whole tree, each organization with its parent', async () => {
    const home = await operator.get('/console')
    expect(home.text).toContain('href="/console/operators"')
    const tree = await operator.get('/console/operators')
    expect(tree.status).toBe(200)
    for (const org of await t.app.services.organizations.list()) expect(tree.text).toContain(`${org.id}</td><td>${org.name}</td><td>${org.type}</td><td>${org.parentId ?? '—'}</td>`)
  })

  it('adds an organization under a parent; a refused one comes back with the reason and the values', async () => {
    const refused = await operator.submit('/console/operators', '/console/operators/organizations', { id: 'ops_merchant', name: 'Ops', type: 'account', parentId: 'testrest' })
    expect(refused.status).toBe(400)
    expect(refused.text).toMatch(/role="alert"[^>]*>That could not be saved: parent: an account cannot be placed under a merchant/)
    expect(refused.text).toContain('value="ops_merchant"')
    const created = await operator.submit('/console/operators', '/console/operators/organizations', { id: 'ops_merchant', name: 'Ops merchant', type: 'merchant', parentId: 'testrest_acct' })
    expect(created.status).toBe(303)
    expect(await t.app.services.organizations.find('ops_merchant')).toMatchObject({ type: 'merchant', parentId: 'testrest_acct', name: 'Ops merchant' })
    const taken = await operator.submit('/console/operators', '/console/operators/organizations', { id: 'ops_merchant', type: 'merchant', parentId: '' })
    expect(taken.status).toBe(400)
    expect(taken.text).toContain('organization ops_merchant exists')
  })

  it('creates a merchant user with the password shown once, which signs in; revoking them ends their session at once', async () => {
    const res = await operator.submit('/console/operators/users', '/console/operators/users', { organizationId: 'ops_merchant', username: 'ops-bob', password: '' })
    expect(res.status).toBe(200)
    expect(res.text).toContain('it is not shown again')
    const password = shown(res.text, 'Password')!
    expect(password).toMatch(/^\S{20,}$/)
    const list = await operator.get('/console/operators/users?org=ops_merchant')
    expect(list.text).toContain('ops-bob')
    expect(list.text).not.toContain(password)

    const bob = new ConsoleBrowser(t)
    expect((await bob.signIn('ops-bob', password)).status).toBe(303)
    expect((await bob.get('/console')).text).toContain('Acting for <strong>ops_merchant</strong>')
    // Bob is no operator: the pages are not there for him.
    expect((await bob.get('/console/operators')).status).toBe(404)

    const id = (await t.app.services.merchantUsers.list({ organizationId: 'ops_merchant' }))[0]!.id
    expect((await operator.submit('/console/operators/users', `/console/operators/users/${id}/revoke`, {})).status).toBe(303)
    const after = await bob.get('/console')
    expect(after.status).toBe(303)
    expect(after.headers.location).toBe('/console/sign-in')
    expect((await t.app.services.merchantUsers.get(id))?.status).toBe('revoked')
    // Revoked already, an account holder's customer id, or nobody's: alike, 404.
    for (const other of [id, 'sandbox-customer-1', 'mu_nobody']) expect((await operator.submit('/console/operators/users', `/console/operators/users/${other}/revoke`, {})).status, other).toBe(404)
  })

  it('creates a merchant user with a chosen password, and refuses a short one or a taken username', async () => {
    const short = await operator.submit('/console/operators/users', '/console/operators/users', { organizationId: 'testrest', username: 'ops-carol', password: 'short' })
    expect(short.status).toBe(400)
    expect(short.text).toContain('password: must be 12 to 128 characters')
    const made = await operator.submit('/console/operators/users', '/console/operators/users', { organizationId: 'testrest', username: 'ops-carol', password: 'a chosen passphrase' })
    expect(made.status).toBe(303)
    expect(made.headers.location).toBe('/console/operators/users?org=testrest')
    expect((await new ConsoleBrowser(t).signIn('ops-carol', 'a chosen passphrase')).status).toBe(303)
    const taken = await operator.submit('/console/operators/users', '/console/operators/users', { organizationId: 'testrest', username: 'ops-carol', password: '' })
    expect(taken.status).toBe(400)
    expect(taken.text).toContain('a merchant user ops-carol exists')
  })

  it('creates a reporting key with the secret shown once, which signs calls until it is revoked', async () => {
    const res = await operator.submit('/console/operators/keys', '/console/operators/keys', { organizationId: 'ops_merchant' })
    expect(res.status).toBe(200)
    expect(res.text).toContain('it is not shown again')
    const key = { id: shown(res.text, 'Key id')!, secret: shown(res.text, 'Shared secret')!, org: 'ops_merchant' }
    const call = () => signedCall(t, { method: 'GET', path: '/reporting/v3/report-subscriptions', key })
    expect((await call()).status).toBe(200)
    const list = await operator.get('/console/operators/keys?org=ops_merchant')
    expect(list.text).toContain(key.id)
    expect(list.text).not.toContain(key.secret)
    expect((await operator.submit('/console/operators/keys', `/console/operators/keys/${key.id}/revoke`, {})).status).toBe(303)
    expect((await call()).status).toBe(401)
    expect((await operator.submit('/console/operators/keys', `/console/operators/keys/${key.id}/revoke`, {})).status).toBe(404)
    expect((await operator.submit('/console/operators/keys', '/console/operators/keys', { organizationId: 'nosuchorg' })).status).toBe(400)
  })

  it('registers an OAuth client with its secret shown once, which gets tokens until the client is revoked', async () => {
    const refused = await operator.submit('/console/operators/clients', '/console/operators/clients', { name: 'Ops client', organizationId: 'ops_merchant', scopes: ['reporting', 'accounts'] })
    expect(refused.status).toBe(400)
    expect(refused.text).toContain('a client of an organization is a reporting client')
    const res = await operator.submit('/console/operators/clients', '/console/operators/clients', { name: 'Ops client', organizationId: 'ops_merchant', scopes: 'reporting', redirectUris: '' })
    expect(res.status).toBe(200)
    expect(res.text).toContain('it is not shown again')
    const client = { clientId: shown(res.text, 'client_id')!, secret: shown(res.text, 'client_secret')! }
    const token = () => t.call('POST', '/oauth2/v3/token', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret, scope: 'reporting' }).toString() })
    expect((await token()).status).toBe(200)
    const id = (await t.app.services.oauth.clients.list()).find((c) => c.publicId === client.clientId)!.id
    const list = await operator.get('/console/operators/clients?org=ops_merchant')
    expect(list.text).toContain(client.clientId)
    expect(list.text).not.toContain(client.secret)
    expect((await operator.submit('/console/operators/clients', `/console/operators/clients/${id}/revoke`, {})).status).toBe(303)
    // The token endpoint's refusal (HTTP 500, as the reporting spec gives it; test/oauth/clients.test.ts).
    expect((await token()).json).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' })
    expect((await operator.submit('/console/operators/clients', `/console/operators/clients/${id}/revoke`, {})).status).toBe(404)
  })

  it('loses the pages from the next request when the role is taken back', async () => {
    await t.app.services.merchantUsers.setOperator('ops-alice', false)
    expect((await operator.get('/console/operators')).status).toBe(404)
    expect((await operator.get('/console')).text).not.toContain('/console/operators')
    await t.app.services.merchantUsers.setOperator('ops-alice', true)
    expect((await operator.get('/console/operators')).status).toBe(200)
  })
})
