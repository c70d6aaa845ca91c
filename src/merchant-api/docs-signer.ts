// The sandbox's request signer for the docs page: "Try it out" on a merchant API operation (reporting, webhook
// management, keys, /sandbox/v1) needs an HTTP Signature, which Swagger UI cannot make. This script, served in sandbox
// mode only (the composition root hands the feature the sandbox keys; production gets none, so no script and no
// secret), signs each such request in the browser with WebCrypto, exactly as auth/http-signature.ts verifies, under
// the sandbox key chosen on the page. A browser may not set `Date` (a forbidden request header), so it signs
// `v-c-date`; `Host` is the one the browser sends. A signed write is single-use, so every attempt is signed anew and
// dated at least a second after the write before it (the date has whole seconds).
import type { DocsScript } from '../platform/feature.js'

/** A key the page can sign with: published sandbox data. */
export interface DocsSigningKey {
  id: string
  organizationId: string
  /** The shared secret, base64. */
  secret: string
}

export const DOCS_SIGNER_FILENAME = 'sandbox-signer.js'

/**
 * The browser script, as text (browser code, not run by Node). Which requests it signs: those whose path and method
 * match an operation of the OpenAPI document that accepts the `scheme` security scheme, read once from the page's
 * own document. A request that already has an `Authorization` header (a token from Authorize) goes as it is.
 */
export function docsSignerScript(keys: readonly DocsSigningKey[], scheme = 'httpSignature'): DocsScript {
  const config = JSON.stringify({ keys, scheme })
  return { filename: DOCS_SIGNER_FILENAME, content: SCRIPT.replace('__CONFIG__', () => config) }
}

const SCRIPT = `// finapi sandbox: signs the merchant API's "Try it out" calls with HTTP Signature (HmacSHA256) under a published
// sandbox key, in this browser (WebCrypto). Not served in production.
(() => {
  'use strict'
  const config = __CONFIG__
  const BODY_METHODS = ['POST', 'PUT', 'PATCH']
  const READS = ['GET', 'HEAD']
  const state = { keyId: config.keys.length ? config.keys[0].id : '', lastWriteSecond: 0, operations: undefined, hmacKeys: {} }

  const docsUrl = (relative) => {
    const href = location.href.split('#')[0]
    return new URL(relative, href.endsWith('/') ? href : href + '/').href
  }

  // The operations that take the scheme, as [method, path pattern], from the page's own OpenAPI document (once).
  const operations = () => {
    state.operations ??= fetch(docsUrl('./json'), { headers: { accept: 'application/json' } })
      .then((res) => res.json())
      .then((doc) => {
        const takes = (security) => (security || []).some((requirement) => Object.prototype.hasOwnProperty.call(requirement, config.scheme))
        const found = []
        for (const [path, item] of Object.entries(doc.paths || {})) {
          const pattern = new RegExp('^' + path.split(/\\{[^}]*\\}/).map((part) => part.replace(/[.*+?^$()|[\\]\\\\]/g, '\\\\$&')).join('[^/]+') + '$')
          for (const [method, operation] of Object.entries(item)) {
            if (takes(operation && operation.security ? operation.security : doc.security)) found.push([method.toUpperCase(), pattern])
          }
        }
        return found
      })
      .catch((err) => {
        state.operations = undefined
        throw err
      })
    return state.operations
  }

  const base64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
  const bytesOf = (text) => new TextEncoder().encode(text)

  const hmacKey = (key) => {
    state.hmacKeys[key.id] ??= crypto.subtle.importKey('raw', Uint8Array.from(atob(key.secret), (c) => c.charCodeAt(0)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    return state.hmacKeys[key.id]
  }

  const headerName = (headers, name) => Object.keys(headers).find((h) => h.toLowerCase() === name)

  const sign = async (request) => {
    if (request.loadSpec) return request
    const key = config.keys.find((k) => k.id === state.keyId)
    const headers = request.headers || {}
    // A token chosen in Authorize wins: a signature beside it would be refused as two credentials.
    if (!key || headers[headerName(headers, 'authorization')]) return request
    if (!globalThis.crypto || !crypto.subtle) {
      console.warn('finapi sandbox signer: WebCrypto needs a secure context (https, or http on localhost); this call goes unsigned')
      return request
    }
    const url = new URL(request.url, location.href)
    const method = (request.method || 'GET').toUpperCase()
    if (!(await operations()).some(([m, pattern]) => m === method && pattern.test(url.pathname))) return request
    const hashless = url.href.split('#')[0]
    const query = hashless.includes('?') ? hashless.slice(hashless.indexOf('?')) : ''
    // Whole seconds: a write is dated at least a second after the last one, so a second attempt is a new signature.
    let second = Math.floor(Date.now() / 1000)
    if (!READS.includes(method)) {
      second = Math.max(second, state.lastWriteSecond + 1)
      state.lastWriteSecond = second
    }
    const date = new Date(second * 1000).toUTCString()
    const values = { host: url.host, 'v-c-date': date, 'request-target': method.toLowerCase() + ' ' + url.pathname + query }
    const names = ['host', 'v-c-date', 'request-target']
    if (BODY_METHODS.includes(method)) {
      if (request.body !== undefined && request.body !== null && typeof request.body !== 'string') {
        console.warn('finapi sandbox signer: only a text body can be signed; this call goes unsigned')
        return request
      }
      values.digest = 'SHA-256=' + base64(await crypto.subtle.digest('SHA-256', bytesOf(request.body || '')))
      names.push('digest')
    }
    values['v-c-merchant-id'] = key.organizationId
    names.push('v-c-merchant-id')
    const text = names.map((name) => name + ': ' + values[name]).join('\\n')
    const signature = base64(await crypto.subtle.sign('HMAC', await hmacKey(key), bytesOf(text)))
    for (const name of ['signature', 'digest', 'v-c-date', 'v-c-merchant-id']) {
      const existing = headerName(headers, name)
      if (existing) delete headers[existing]
    }
    headers['v-c-date'] = date
    headers['v-c-merchant-id'] = key.organizationId
    if (values.digest) headers.digest = values.digest
    headers.signature = 'keyid="' + key.id + '", algorithm="HmacSHA256", headers="' + names.join(' ') + '", signature="' + signature + '"'
    request.headers = headers
    return request
  }

  globalThis.finapiDocs ??= {}
  globalThis.finapiDocs.requestInterceptors ??= []
  globalThis.finapiDocs.requestInterceptors.push(sign)
  globalThis.finapiDocs.signer = { select: (keyId) => (state.keyId = keyId) }

  // The chooser, above Swagger UI (outside the part it renders, so a re-render keeps it).
  if (typeof document === 'undefined') return
  const root = document.getElementById('swagger-ui')
  if (!root) return
  const panel = document.createElement('section')
  panel.className = 'finapi-signer'
  panel.setAttribute('aria-label', 'Sandbox request signing')
  Object.assign(panel.style, { maxWidth: '1460px', margin: '0 auto', padding: '10px 20px', fontFamily: 'sans-serif', fontSize: '14px', color: '#1a1a1a', background: '#fff8e1', borderBottom: '1px solid #e0c068' })
  const text = document.createElement('p')
  text.style.margin = '0'
  const strong = document.createElement('strong')
  strong.textContent = 'Sandbox: '
  text.append(strong, '"Try it out" signs merchant API calls (reporting, webhooks, keys, /sandbox/v1) in this browser with HTTP Signature, every attempt anew, under the published sandbox key of ')
  const label = document.createElement('label')
  label.htmlFor = 'finapi-signer-key'
  label.textContent = 'merchant'
  const select = document.createElement('select')
  select.id = 'finapi-signer-key'
  for (const key of config.keys) select.append(new Option(key.organizationId + ' (key ' + key.id.slice(0, 8) + '…)', key.id))
  select.append(new Option('none: do not sign', ''))
  select.value = state.keyId
  select.addEventListener('change', () => (state.keyId = select.value))
  const parameter = document.createElement('code')
  parameter.textContent = 'organizationId'
  text.append(label, ' ', select, '. A call made with a token from Authorize is sent as it is. Name ', parameter, ' to act for an organization below that merchant.')
  panel.append(text)
  if (!globalThis.crypto || !crypto.subtle) {
    const warning = document.createElement('p')
    warning.style.margin = '4px 0 0'
    warning.textContent = 'This page is not a secure context (https, or http on localhost), so the browser offers no WebCrypto and calls go unsigned.'
    panel.append(warning)
  }
  root.before(panel)
})()
`
