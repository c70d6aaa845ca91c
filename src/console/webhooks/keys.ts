// /console/webhooks/keys: the acting organization's webhook signing keys (never their secrets), a new key through the
// webhooks module's key service (the one behind POST /kms/egress/v2/keys-sym), its secret shown once on the page that
// answers the form, and revocation: a revoked key signs nothing more.
import type { FastifyRequest } from 'fastify'
import { DomainError, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { KEY_ID_PATTERN } from '../../webhooks/keys/rules.js'
import { chrome, field, sendPage, session } from '../http.js'
import { csrfField, html, page } from '../layout.js'
import type { ConsoleSession } from '../sessions/service.js'
import { problems } from '../subscriptions/routes.js'
import { actingOf, type ConsoleWebhookDeps } from './deps.js'

export async function consoleWebhookKeys(scope: App, deps: ConsoleWebhookDeps): Promise<void> {
  const { keys } = deps.webhooks

  async function keysPage(s: ConsoleSession, form: { expiryDuration: string; reference: string }, refused?: ErrorDetail[]) {
    const list = await keys.list(s.actingId)
    return page(
      'Signing keys',
      html`<h1>Webhook signing keys</h1>
<p>Every notification is signed with a key of your organization (the <code>V-C-signature</code> and <code>webhook-signature</code> headers). The newest active key signs, unless a subscription names another; a new key signs from now on, and older ones stay valid until they expire or are revoked, so a receiver can add the new key before the old one goes.</p>
<p><a href="/console/webhooks">Subscriptions</a></p>
${list.length === 0
  ? html`<p class="muted">No signing keys yet.</p>`
  : html`<div class="table"><table><caption class="muted">${list.length} signing keys of ${s.actingId}</caption>
<thead><tr><th scope="col">Key id</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Reference</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map(
  (k) => html`<tr><td><code>${k.keyId}</code>${k.signing ? html` <strong>(signs now)</strong>` : ''}</td><td>${k.status}</td><td>${k.createdAt}</td><td>${k.expiresAt}</td><td>${k.clientReferenceCode ?? ''}</td>
<td>${k.status === 'ACTIVE' ? html`<form class="inline" method="post" action="/console/webhooks/keys/${k.keyId}/revoke">${csrfField(s.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke ${k.keyId}">Revoke</button></form>` : ''}</td></tr>`,
)}</tbody></table></div>`}
<section><h2>New signing key</h2>
${refused ? problems(refused) : ''}
<form method="post" action="/console/webhooks/keys">${csrfField(s.csrfToken)}
<label for="expiryDuration">Valid for (days, 1 to 3650)</label><input id="expiryDuration" name="expiryDuration" value="${form.expiryDuration}" inputmode="numeric" maxlength="4">
<label for="reference">Your reference (optional)</label><input id="reference" name="reference" value="${form.reference}" maxlength="50">
<button type="submit">Create a signing key</button></form></section>`,
      chrome(s),
    )
  }

  scope.get('/console/webhooks/keys', async (request, reply) => sendPage(reply, await keysPage(session(request), { expiryDuration: '365', reference: '' })))

  scope.post('/console/webhooks/keys', async (request, reply) => {
    const s = session(request)
    const form = { expiryDuration: field(request, 'expiryDuration').trim(), reference: field(request, 'reference').trim() }
    if (form.reference.length > 50 || form.expiryDuration.length > 4) {
      return sendPage(reply, await keysPage(s, form, [{ field: 'expiryDuration', reason: 'Days must be 1 to 3650, and the reference at most 50 characters' }]), 400)
    }
    let created
    try {
      created = await keys.save(actingOf(s), {
        keyInformation: { expiryDuration: form.expiryDuration || '365' },
        ...(form.reference ? { clientReferenceInformation: { code: form.reference } } : {}),
      })
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'invalid') throw err
      return sendPage(reply, await keysPage(s, form, err.details), 400)
    }
    const k = created.keyInformation
    // The secret is shown here, on the answer to the form, and never again (only its sealed copy is kept).
    return sendPage(
      reply,
      page(
        'New signing key',
        html`<h1>New signing key</h1>
<p class="notice" role="alert"><strong>Copy the secret now; it is not shown again.</strong> Put it in your receiver's verifier: it checks the <code>V-C-signature</code> header of every notification signed with key <code>${k.keyId}</code>.</p>
<section><dl><dt>Key id</dt><dd><code>${k.keyId}</code></dd>
<dt>Secret (base64)</dt><dd><code id="secret">${k.key}</code></dd>
<dt>Expires</dt><dd>${k.expirationDate}</dd></dl></section>
<p><a href="/console/webhooks/keys">Back to the signing keys</a></p>`,
        chrome(s),
      ),
    )
  })

  scope.post<{ Params: { id: string } }>('/console/webhooks/keys/:id/revoke', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const s = session(request)
    if (!KEY_ID_PATTERN.test(request.params.id)) throw notFound()
    // Only the acting organization's keys are listed; another's is not found, as an unknown one.
    if (!(await keys.list(s.actingId)).some((k) => k.keyId === request.params.id)) throw notFound()
    await keys.revoke(actingOf(s), request.params.id)
    return reply.redirect('/console/webhooks/keys', 303)
  })
}
