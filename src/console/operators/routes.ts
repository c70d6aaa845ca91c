// /console/operators: for merchant users given the operator role with the CLI (`finapi users grant-operator`), the
// whole organization tree and a form that adds an organization under a parent; users.ts, keys.ts and clients.ts
// hold the merchant users, reporting keys and OAuth clients of every organization. Each goes through the service the
// matching CLI command uses. To anyone else every page and form here answers 404, as a page that does not exist.
// Each table's scrolling box is focusable, so a keyboard can scroll it on a phone even when no row holds a control.
import { ORGANIZATION_TYPES, type OrganizationType } from '../../organizations/service.js'
import type { App } from '../../platform/http/app.js'
import { chrome, field, sendPage } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import type { ConsoleSession } from '../sessions/service.js'
import { operatorSession, type ConsoleOperatorDeps } from './access.js'
import { operatorClients } from './clients.js'
import { operatorKeys } from './keys.js'
import { operatorUsers } from './users.js'
import { operatorNav, organizationOptions, refusal, refusedBecause, treeOrder } from './view.js'

interface OrganizationForm {
  id: string
  name: string
  type: string
  parentId: string
}

export async function consoleOperators(scope: App, deps: ConsoleOperatorDeps): Promise<void> {
  const { organizations } = deps.operators

  async function treePage(s: ConsoleSession, form: OrganizationForm = { id: '', name: '', type: 'merchant', parentId: '' }, refused?: string) {
    const all = await organizations.list()
    const tree = treeOrder(all)
    return page(
      'Organizations',
      html`<h1>Operators: organizations</h1>
${operatorNav('/console/operators')}
<section><h2>The organization tree</h2>
<div class="table" tabindex="0" role="region" aria-label="Organizations"><table><caption class="muted">${all.length} organizations, each under its parent</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Parent</th><th scope="col">Created</th><th scope="col">Records</th></tr></thead>
<tbody>${tree.map(
  ({ org, depth }) => html`<tr><td><span aria-hidden="true" class="muted">${'· '.repeat(depth)}</span>${org.id}</td><td>${org.name}</td><td>${org.type}</td><td>${org.parentId ?? '—'}</td><td>${org.createdAt.slice(0, 10)}</td>
<td><a href="/console/operators/users?org=${encodeURIComponent(org.id)}">Users<span class="skip"> of ${org.id}</span></a> · <a href="/console/operators/keys?org=${encodeURIComponent(org.id)}">Keys<span class="skip"> of ${org.id}</span></a> · <a href="/console/operators/clients?org=${encodeURIComponent(org.id)}">Clients<span class="skip"> of ${org.id}</span></a></td></tr>`,
)}</tbody></table></div></section>
<section><h2>New organization</h2>
${refusal(refused)}
<form method="post" action="/console/operators/organizations">${csrfField(s.csrfToken)}
<label for="org-id">Id (the merchant id clients send: 1 to 32 letters, digits, - or _)</label>
<input id="org-id" name="id" value="${form.id}" required maxlength="32" pattern="[A-Za-z0-9_-]{1,32}" autocapitalize="none" spellcheck="false">
<label for="org-name">Name (the id when left empty)</label>
<input id="org-name" name="name" value="${form.name}" maxlength="100">
<label for="org-type">Type</label>
<select id="org-type" name="type">${ORGANIZATION_TYPES.map((t) => html`<option${t === form.type ? html` selected` : ''}>${t}</option>`)}</select>
<label for="org-parent">Parent (an account under a reseller, a merchant under either)</label>
<select id="org-parent" name="parentId">${organizationOptions(all, form.parentId, 'None: at the top of the tree')}</select>
<button type="submit">Create the organization</button>
</form></section>`,
      chrome(s),
    )
  }

  scope.get('/console/operators', async (request, reply) => sendPage(reply, await treePage(operatorSession(request))))

  scope.post('/console/operators/organizations', async (request, reply) => {
    const s = operatorSession(request)
    const form: OrganizationForm = { id: field(request, 'id').trim(), name: field(request, 'name').trim(), type: field(request, 'type'), parentId: field(request, 'parentId') }
    try {
      await organizations.create({ id: form.id, type: form.type as OrganizationType, ...(form.parentId ? { parentId: form.parentId } : {}), ...(form.name ? { name: form.name } : {}) })
    } catch (err) {
      return sendPage(reply, await treePage(s, form, refusedBecause(err)), 400)
    }
    return reply.redirect('/console/operators', 303)
  })

  await operatorUsers(scope, deps.operators)
  await operatorKeys(scope, deps.operators)
  await operatorClients(scope, deps.operators)
}

export type { ConsoleOperatorDeps }
