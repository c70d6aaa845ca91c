// /console/operators/clients: every OAuth client (or one organization's), a form that registers one with its
// client secret shown once, and revocation (the client's tokens stop working): through the client service
// `finapi clients create|list|revoke` uses, whose registration rules refuse a bad form with a sentence of their own.
import { ClientRegistrationError, type OAuthClient } from '../../oauth/clients/service.js'
import { notFound } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { chrome, field, fields, queryParam, sendPage } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import type { ConsoleSession } from '../sessions/service.js'
import { operatorSession, type OperatorServices } from './access.js'
import { operatorNav, organizationOptions, refusal, shownOnce } from './view.js'

const PATH = '/console/operators/clients'
const SCOPES = ['reporting', 'accounts']

interface ClientForm {
  name: string
  organizationId: string
  scopes: string[]
  redirectUris: string
  public: boolean
  requirePar: boolean
  requireDpop: boolean
}

const BLANK: ClientForm = { name: '', organizationId: '', scopes: ['reporting'], redirectUris: '', public: false, requirePar: false, requireDpop: false }

const checkbox = (id: string, name: string, value: string, checked: boolean, label: string) =>
  html`<div><input type="checkbox" id="${id}" name="${name}" value="${value}"${checked ? html` checked` : ''}> <label class="check" for="${id}">${label}</label></div>`

const clientId = (c: OAuthClient) => c.publicId ?? `the key of application ${c.applicationId ?? ''}`

export async function operatorClients(scope: App, deps: OperatorServices): Promise<void> {
  const { clients, organizations } = deps

  async function listPage(s: ConsoleSession, org: string, form: ClientForm = { ...BLANK, organizationId: org }, refused?: string) {
    const [all, list] = await Promise.all([organizations.list(), clients.list()])
    const shown = org ? list.filter((c) => c.organizationId === org) : list
    return page(
      'OAuth clients',
      html`<h1>Operators: OAuth clients</h1>
${operatorNav(PATH)}
<section><h2>OAuth clients${org ? ` of ${org}` : ''}</h2>
<form method="get" action="${PATH}">
<label for="filter-org">Organization to show</label>
<select id="filter-org" name="org">${organizationOptions(all, org, 'Every client')}</select>
<button type="submit" class="secondary">Show</button>
</form>
${shown.length === 0
  ? html`<p class="muted">No OAuth clients${org ? ` of ${org}` : ''}.</p>`
  : html`<div class="table" tabindex="0" role="region" aria-label="OAuth clients"><table><caption class="muted">${shown.length} OAuth clients${org ? ` of ${org}` : ''}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">client_id</th><th scope="col">Type</th><th scope="col">Scopes</th><th scope="col">Organization</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody>${shown.map(
  (c) => html`<tr><td>${c.name}</td><td><code>${clientId(c)}</code></td><td>${c.confidential ? 'confidential' : 'public'}</td><td>${c.scopes.join(' ')}</td><td>${c.organizationId ?? '—'}</td><td>${c.revokedAt ? 'revoked' : 'active'}</td><td>${c.createdAt.slice(0, 10)}</td>
<td>${c.revokedAt
    ? '—'
    : html`<form class="inline" method="post" action="${PATH}/${encodeURIComponent(c.id)}/revoke">${csrfField(s.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke client ${c.name}">Revoke</button></form>`}</td></tr>`,
)}</tbody></table></div>`}
</section>
<section><h2>New OAuth client</h2>
${refusal(refused)}
<form method="post" action="${PATH}">${csrfField(s.csrfToken)}
<label for="client-name">Name (shown on the consent page)</label>
<input id="client-name" name="name" value="${form.name}" required maxlength="100">
<label for="client-org">Organization (a reporting client of it: its tokens act for it)</label>
<select id="client-org" name="organizationId">${organizationOptions(all, form.organizationId, 'None: a partner of account holders')}</select>
<fieldset><legend>Scopes</legend>
${SCOPES.map((scopeName, i) => checkbox(`client-scope-${i}`, 'scopes', scopeName, form.scopes.includes(scopeName), scopeName))}
</fieldset>
<label for="client-redirects">Redirect URIs (separated by spaces; https, or http on localhost or 127.0.0.1)</label>
<input id="client-redirects" name="redirectUris" value="${form.redirectUris}" maxlength="2000" autocapitalize="none" spellcheck="false">
<fieldset><legend>Options</legend>
${checkbox('client-public', 'public', 'yes', form.public, 'Public client: no secret, it must use PKCE')}
${checkbox('client-par', 'requirePar', 'yes', form.requirePar, 'Authorization requests must be pushed (PAR)')}
${checkbox('client-dpop', 'requireDpop', 'yes', form.requireDpop, 'Tokens must be DPoP-bound')}
</fieldset>
<button type="submit">Register the client</button>
</form></section>`,
      chrome(s),
    )
  }

  scope.get(PATH, async (request, reply) => sendPage(reply, await listPage(operatorSession(request), queryParam(request, 'org'))))

  scope.post(PATH, async (request, reply) => {
    const s = operatorSession(request)
    const form: ClientForm = {
      name: field(request, 'name'),
      organizationId: field(request, 'organizationId'),
      scopes: fields(request, 'scopes'),
      redirectUris: field(request, 'redirectUris'),
      public: field(request, 'public') === 'yes',
      requirePar: field(request, 'requirePar') === 'yes',
      requireDpop: field(request, 'requireDpop') === 'yes',
    }
    let created
    try {
      created = await clients.create({
        name: form.name,
        scopes: form.scopes,
        redirectUris: form.redirectUris.split(/\s+/).filter(Boolean),
        public: form.public,
        requirePar: form.requirePar,
        requireDpop: form.requireDpop,
        ...(form.organizationId ? { organizationId: form.organizationId } : {}),
      })
    } catch (err) {
      if (!(err instanceof ClientRegistrationError)) throw err
      return sendPage(reply, await listPage(s, '', form, `That client could not be registered: ${err.message}.`), 400)
    }
    const { client, secret } = created
    const back = `${PATH}${client.organizationId ? `?org=${encodeURIComponent(client.organizationId)}` : ''}`
    return sendPage(
      reply,
      page(
        'OAuth client registered',
        html`<h1>OAuth client ${client.name} registered</h1>
${operatorNav(PATH)}
<section><p>${client.confidential ? 'A confidential client' : 'A public client (PKCE, no secret)'}, scopes ${client.scopes.join(' ')}${client.organizationId ? `, of ${client.organizationId}` : ''}.</p>
${secret
  ? shownOnce([['client_id', clientId(client)], ['client_secret', secret]], back)
  : html`<dl><dt>client_id</dt><dd><code>${clientId(client)}</code></dd></dl><p><a href="${back}">Back to the list</a></p>`}</section>`,
        chrome(s),
      ),
    )
  })

  scope.post<{ Params: { id: string } }>(`${PATH}/:id/revoke`, async (request, reply) => {
    operatorSession(request)
    const client = (await clients.list()).find((c) => c.id === request.params.id)
    if (!client || !(await clients.revoke(client.id))) throw notFound()
    return reply.redirect(`${PATH}${client.organizationId ? `?org=${encodeURIComponent(client.organizationId)}` : ''}`, 303)
  })
}
