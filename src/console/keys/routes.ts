// /console/keys: the acting organization's reporting keys (HTTP Signature and HS256 JWT shared secrets) and JWT
// certificates (RS256), through the ReportingKeyService the merchant API's gateway verifies with, so a key made here
// signs at once and a revoked one is refused at once. A secret is shown once, on the page answering the POST that
// made it; the list never shows one.
import type { FastifyRequest } from 'fastify'
import type { ReportingKey, ReportingKeyService } from '../../applications/reporting-keys/service.js'
import { DomainError, notFound } from '../../platform/errors.js'
import type { App } from '../../platform/http/app.js'
import { chrome, field, sendPage, session } from '../http.js'
import { csrfField, html, page, type Html } from '../layout.js'

export interface ConsoleKeyDeps {
  reportingKeys: Pick<ReportingKeyService, 'create' | 'createCertificate' | 'list' | 'revoke'>
}

/** A pasted certificate longer than this is no certificate (an RSA-4096 one in PEM is about 2 KB). */
const MAX_PEM_LENGTH = 16_384
const KEY_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

const kindOf = (k: ReportingKey) => (k.kind === 'shared-secret' ? 'Shared secret' : `JWT certificate (kid ${k.certificate!.kid}, valid until ${k.certificate!.notAfter.slice(0, 10)})`)

export async function consoleKeys(scope: App, deps: ConsoleKeyDeps): Promise<void> {
  const { reportingKeys } = deps

  async function listPage(request: FastifyRequest, top: Html | string = '', pem = '') {
    const s = session(request)
    const keys = await reportingKeys.list(s.actingId)
    return page(
      'API keys',
      html`<h1>API keys</h1>
${top}
<p>The keys of <strong>${s.actingId}</strong> that sign calls of the reporting API: a shared secret signs with HTTP Signature or an HS256 JWT, a certificate's private key (which stays with you) signs RS256 JWTs. A key works as soon as it is made and stops as soon as it is revoked.</p>
${keys.length === 0
  ? html`<p class="muted">No keys yet.</p>`
  : html`<div class="table"><table><caption class="muted">${keys.length} keys of ${s.actingId}</caption>
<thead><tr><th scope="col">Key id</th><th scope="col">Kind</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${keys.map(
  (k) => html`<tr><td><code>${k.id}</code></td><td>${kindOf(k)}</td><td>${k.createdAt}</td><td>${k.status === 'active' ? 'Active' : `Revoked ${k.revokedAt ?? ''}`}</td>
<td>${k.status === 'active' ? html`<form class="inline" method="post" action="/console/keys/${k.id}/revoke">${csrfField(s.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke ${k.id}">Revoke</button></form>` : '—'}</td></tr>`,
)}</tbody></table></div>`}
<section><h2>New shared-secret key</h2><p>The secret is shown once, on the next page.</p>
<form method="post" action="/console/keys">${csrfField(s.csrfToken)}<button type="submit">Create a shared-secret key</button></form></section>
<section><h2>Register a JWT certificate</h2>
<form method="post" action="/console/keys/certificates">${csrfField(s.csrfToken)}
<label for="certificate">Certificate (PEM; from a .p12: <code>openssl pkcs12 -in key.p12 -clcerts -nokeys</code>)</label>
<textarea id="certificate" name="certificate" rows="8" required maxlength="${MAX_PEM_LENGTH}" spellcheck="false">${pem}</textarea>
<button type="submit">Register the certificate</button></form></section>`,
      chrome(s),
    )
  }

  scope.get('/console/keys', async (request, reply) => sendPage(reply, await listPage(request)))

  scope.post('/console/keys', async (request, reply) => {
    const s = session(request)
    const { key, secret } = await reportingKeys.create(s.actingId)
    // Shown here, once: no redirect (a reload re-posts and makes another key, never shows this one again).
    const shown = html`<section class="notice" role="status" aria-labelledby="new-key"><h2 id="new-key">New key created</h2>
<p><strong>Copy the secret now; it is not shown again.</strong> Store it as your client's shared secret (the SDK's <code>merchantsecretKey</code>) with the key id (<code>merchantKeyId</code>).</p>
<dl><dt>Key id</dt><dd><code id="key-id">${key.id}</code></dd><dt>Secret</dt><dd><code id="key-secret">${secret}</code></dd><dt>Organization</dt><dd>${key.organizationId}</dd></dl></section>`
    return sendPage(reply, await listPage(request, shown))
  })

  scope.post('/console/keys/certificates', async (request, reply) => {
    const s = session(request)
    const pem = field(request, 'certificate').trim()
    const refuse = async (line: string) => sendPage(reply, await listPage(request, html`<p class="error" role="alert" id="certificate-error">${line}</p>`, pem.slice(0, MAX_PEM_LENGTH)), 400)
    if (pem.length === 0 || pem.length > MAX_PEM_LENGTH) return refuse('The certificate was not registered: paste it in PEM, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----.')
    try {
      const key = await reportingKeys.createCertificate(s.actingId, Buffer.from(pem, 'utf8'))
      return sendPage(reply, await listPage(request, html`<p class="notice" role="status">Certificate registered as key <code>${key.id}</code> (kid ${key.certificate!.kid}).</p>`))
    } catch (err) {
      // The service's reason names the fix ("is not an X.509 certificate in PEM or DER (from a .p12: ...)").
      if (!(err instanceof DomainError) || (err.kind !== 'invalid' && err.kind !== 'conflict')) throw err
      return refuse(`The certificate was not registered: ${err.details[0]?.reason ?? 'is not usable'}.`)
    }
  })

  scope.post<{ Params: { id: string } }>('/console/keys/:id/revoke', async (request, reply) => {
    const s = session(request)
    // Another organization's key, an unknown one and one revoked already are alike: not found.
    if (!KEY_ID.test(request.params.id) || !(await reportingKeys.revoke(request.params.id, s.actingId))) throw notFound()
    return reply.redirect('/console/keys', 303)
  })
}
