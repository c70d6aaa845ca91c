// /console/operators/keys: the reporting keys and certificates of every organization (or of one), a form that
// creates a key with its shared secret shown once, and revocation: through the reporting key service
// `finapi keys create --org`, `keys list` and `keys revoke` use.
import { notFound } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { chrome, field, queryParam, sendPage } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import type { ConsoleSession } from '../sessions/service.js'
import { operatorSession, type OperatorServices } from './access.js'
import { operatorNav, organizationOptions, refusal, refusedBecause, shownOnce } from './view.js'

const PATH = '/console/operators/keys'

export async function operatorKeys(scope: App, deps: OperatorServices): Promise<void> {
  const { reportingKeys, organizations } = deps

  async function listPage(s: ConsoleSession, org: string, refused?: string) {
    const [all, keys] = await Promise.all([organizations.list(), reportingKeys.list()])
    const shown = org ? keys.filter((k) => k.organizationId === org) : keys
    return page(
      'Reporting keys',
      html`<h1>Operators: reporting keys</h1>
${operatorNav(PATH)}
<section><h2>Reporting keys${org ? ` of ${org}` : ''}</h2>
<form method="get" action="${PATH}">
<label for="filter-org">Organization to show</label>
<select id="filter-org" name="org">${organizationOptions(all, org, 'Every organization')}</select>
<button type="submit" class="secondary">Show</button>
</form>
${shown.length === 0
  ? html`<p class="muted">No reporting keys${org ? ` of ${org}` : ''}.</p>`
  : html`<div class="table" tabindex="0" role="region" aria-label="Reporting keys"><table><caption class="muted">${shown.length} reporting keys and certificates${org ? ` of ${org}` : ''}</caption>
<thead><tr><th scope="col">Key id</th><th scope="col">Organization</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody>${shown.map(
  (k) => html`<tr><td><code>${k.id}</code></td><td>${k.organizationId}</td><td>${k.certificate ? `certificate (kid ${k.certificate.kid}, until ${k.certificate.notAfter.slice(0, 10)})` : 'shared secret'}</td><td>${k.status}</td><td>${k.createdAt.slice(0, 10)}</td>
<td>${k.status === 'revoked'
    ? '—'
    : html`<form class="inline" method="post" action="${PATH}/${encodeURIComponent(k.id)}/revoke">${csrfField(s.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke key ${k.id}">Revoke</button></form>`}</td></tr>`,
)}</tbody></table></div>`}
</section>
<section><h2>New reporting key</h2>
<p>A key id and shared secret that sign the organization's reporting calls (HTTP Signature, HS256 JWT).</p>
${refusal(refused)}
<form method="post" action="${PATH}">${csrfField(s.csrfToken)}
<label for="key-org">Organization</label>
<select id="key-org" name="organizationId" required>${organizationOptions(all, org)}</select>
<button type="submit">Create the key</button>
</form></section>`,
      chrome(s),
    )
  }

  scope.get(PATH, async (request, reply) => sendPage(reply, await listPage(operatorSession(request), queryParam(request, 'org'))))

  scope.post(PATH, async (request, reply) => {
    const s = operatorSession(request)
    let created
    try {
      created = await reportingKeys.create(field(request, 'organizationId'))
    } catch (err) {
      return sendPage(reply, await listPage(s, '', refusedBecause(err)), 400)
    }
    const { key, secret } = created
    return sendPage(
      reply,
      page(
        'Reporting key created',
        html`<h1>Reporting key created</h1>
${operatorNav(PATH)}
<section><p>A reporting key of <strong>${key.organizationId}</strong>.</p>
${shownOnce([['Key id', key.id], ['Shared secret', secret]], `${PATH}?org=${encodeURIComponent(key.organizationId)}`)}</section>`,
        chrome(s),
      ),
    )
  })

  scope.post<{ Params: { id: string } }>(`${PATH}/:id/revoke`, async (request, reply) => {
    operatorSession(request)
    const key = (await reportingKeys.list()).find((k) => k.id === request.params.id)
    if (!key || !(await reportingKeys.revoke(key.id))) throw notFound()
    return reply.redirect(`${PATH}?org=${encodeURIComponent(key.organizationId)}`, 303)
  })
}
