// OAuth's client-authenticated endpoints for the shared security suite (test/oauth/security.test.ts runs them): the
// token endpoint, revocation (RFC 7009), introspection (RFC 7662) and pushed authorization requests (RFC 9126), each
// with a form a confidential client may send. The authorize endpoint and its consent pages are public (a browser's);
// the metadata too (test/support/security/coverage.ts).
import { pkce, REDIRECT } from '../oauth.js'
import type { SecuredRoute } from './suite.js'

export interface OAuthRoute extends SecuredRoute {
  path: string
  /** The form's fields beside the client's authentication, allowed for a confidential client. */
  fields: () => Record<string, string>
  /** Whether the route names a token of the caller's own (another client's must answer as one nobody has). */
  token?: true
}

export const OAUTH_ROUTES: readonly OAuthRoute[] = [
  { route: 'POST /oauth2/v3/token', path: '/oauth2/v3/token', fields: () => ({ grant_type: 'client_credentials', scope: 'reporting' }) },
  { route: 'POST /oauth2/v3/revoke', path: '/oauth2/v3/revoke', fields: () => ({ token: 'no-such-token' }), token: true },
  { route: 'POST /oauth2/v3/introspect', path: '/oauth2/v3/introspect', fields: () => ({ token: 'no-such-token' }), token: true },
  {
    route: 'POST /oauth2/v3/par',
    path: '/oauth2/v3/par',
    fields: () => ({ response_type: 'code', redirect_uri: REDIRECT, scope: 'accounts', state: 'pushed-state', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
  },
]
