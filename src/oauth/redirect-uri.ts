// Redirect URIs: which ones a client may register, exact matching at the authorize endpoint (RFC 9700, 4.1.3),
// the sandbox's loopback rule, and building the redirect that carries the answer back.

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
// A private-use scheme of a native app (RFC 8252, 7.1): reverse domain name, so it contains a dot.
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri)
  } catch {
    return undefined
  }
}

/**
 * Why a redirect URI may not be registered, or undefined when it may: an absolute URI without a fragment or
 * user info, https, or http on a loopback host (development, RFC 8252 7.3), or a native app's private-use scheme.
 */
export function redirectUriProblem(uri: string): string | undefined {
  const url = parse(uri)
  if (!url) return 'is not an absolute URI'
  if (uri.includes('#')) return 'must not contain a fragment'
  if (url.username || url.password) return 'must not contain user information'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'must use https (http only on localhost or 127.0.0.1)'
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return undefined
  return 'must use https, http on a loopback host, or a reverse-domain private-use scheme'
}

/** The sandbox rule: http on localhost or 127.0.0.1, any port and path, no fragment or user info. */
export function isLoopbackHttp(uri: string): boolean {
  const url = parse(uri)
  return (
    url !== undefined &&
    url.protocol === 'http:' &&
    (url.hostname === 'localhost' || url.hostname === '127.0.0.1') &&
    !uri.includes('#') &&
    !url.username &&
    !url.password
  )
}

export interface RedirectPolicy {
  redirectUris: readonly string[]
  loopbackRedirects: boolean
}

/** Exact string comparison with a registered URI; no prefix, wildcard or normalisation. */
export function redirectAllowed(client: RedirectPolicy, uri: string): boolean {
  return client.redirectUris.includes(uri) || (client.loopbackRedirects && isLoopbackHttp(uri))
}

/** The redirect URI with the answer's parameters added to its query (keeping any query it has). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value)
  return url.toString()
}

/**
 * The Content-Security-Policy source that lets a form on the consent page end in a redirect to this URI:
 * Chromium checks form-action against the redirect target too. Its origin for http(s), its scheme otherwise.
 */
export function formActionSource(uri: string): string {
  const url = new URL(uri)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol
}
