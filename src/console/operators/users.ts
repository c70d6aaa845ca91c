// /console/operators/users: merchant users of every organization (or of one), a form that creates one with a
// generated password shown once (or a password the operator chose), and revocation, which ends the user's console
// and API sessions at once. Through the merchant user service `finapi users` uses, and identity's revokeCredential
// as `finapi credentials revoke` calls it.
import { notFound } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { chrome, field, queryParam, sendPage } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import type { ConsoleSession } from '../sessions/service.js'
import { operatorSession, type OperatorServices } from './access.js'
import { operatorNav, organizationOptions, refusal, refusedBecause, shownOnce } from './view.js'

const PATH = '/console/operators/users'

export async function operatorUsers(scope: App, deps: OperatorServices): Promise<void> {
  const { merchantUsers, organizations, identity } = deps

  async function listPage(s: ConsoleSession, org: string, form = { organizationId: org, username: '' }, refused?: string) {
    const [users, all] = await Promise.all([merchantUsers.list(org ? { organizationId: org } : {}), organizations.list()])
    return page(
      'Merchant users',
      html`<h1>Operators: merchant users</h1>
${operatorNav(PATH)}
<section><h2>Merchant users${org ? ` of ${org}` : ''}</h2>
<form method="get" action="${PATH}">
<label for="filter-org">Organization to show</label>
<select id="filter-org" name="org">${organizationOptions(all, org, 'Every organization')}</select>
<button type="submit" class="secondary">Show</button>
</form>
${users.length === 0
  ? html`<p class="muted">No merchant users${org ? ` of ${org}` : ''}.</p>`
  : html`<div class="table" tabindex="0" role="region" aria-label="Merchant users"><table><caption class="muted">${users.length} merchant users${org ? ` of ${org}` : ''}</caption>
<thead><tr><th scope="col">Username</th><th scope="col">Organization</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody>${users.map(
  (u) => html`<tr><td>${u.username}</td><td>${u.organizationId}</td><td><code>${u.id}</code></td><td>${u.status}</td><td>${u.operator ? 'operator' : '—'}</td><td>${u.createdAt.slice(0, 10)}</td>
<td>${u.status === 'revoked'
    ? '—'
    : html`<form class="inline" method="post" action="${PATH}/${encodeURIComponent(u.id)}/revoke">${csrfField(s.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke ${u.username}">Revoke</button></form>`}</td></tr>`,
)}</tbody></table></div>`}
</section>
<section><h2>New merchant user</h2>
${refusal(refused)}
<form method="post" action="${PATH}">${csrfField(s.csrfToken)}
<label for="user-org">Organization</label>
<select id="user-org" name="organizationId" required>${organizationOptions(all, form.organizationId)}</select>
<label for="user-name">Username (1 to 64 letters, digits, . _ @ or -)</label>
<input id="user-name" name="username" value="${form.username}" required maxlength="64" autocapitalize="none" spellcheck="false" autocomplete="off">
<label for="user-password">Password (12 to 128 characters; leave it empty to have one generated and shown once)</label>
<input id="user-password" name="password" type="password" maxlength="128" autocomplete="new-password">
<button type="submit">Create the merchant user</button>
</form></section>`,
      chrome(s),
    )
  }

  scope.get(PATH, async (request, reply) => sendPage(reply, await listPage(operatorSession(request), queryParam(request, 'org'))))

  scope.post(PATH, async (request, reply) => {
    const s = operatorSession(request)
    const form = { organizationId: field(request, 'organizationId'), username: field(request, 'username').trim() }
    const chosen = field(request, 'password')
    let created
    try {
      created = await merchantUsers.create({ ...form, ...(chosen ? { password: chosen } : {}) })
    } catch (err) {
      return sendPage(reply, await listPage(s, '', form, refusedBecause(err)), 400)
    }
    const back = `${PATH}?org=${encodeURIComponent(created.user.organizationId)}`
    // A password the operator chose is theirs already: nothing to show, back to the list.
    if (chosen) return reply.redirect(back, 303)
    return sendPage(
      reply,
      page(
        'Merchant user created',
        html`<h1>Merchant user ${created.user.username} created</h1>
${operatorNav(PATH)}
<section><p>A merchant user of <strong>${created.user.organizationId}</strong>. Give them this password; they sign in at <code>/console/sign-in</code> and on the consent page of the organization's OAuth clients.</p>
${shownOnce([['Username', created.user.username], ['Password', created.password]], back)}</section>`,
        chrome(s),
      ),
    )
  })

  scope.post<{ Params: { id: string } }>(`${PATH}/:id/revoke`, async (request, reply) => {
    operatorSession(request)
    // Only a merchant user's credential: an account holder's customer id is not one, and answers as an unknown id.
    const user = await merchantUsers.get(request.params.id)
    if (!user || user.status === 'revoked' || !(await identity.revokeCredential(user.credentialId))) throw notFound()
    return reply.redirect(`${PATH}?org=${encodeURIComponent(user.organizationId)}`, 303)
  })
}
