// The OAuth 2.0 authorization server as one feature: clients, the authorize pages and the token endpoint under
// /oauth2/v3, its expiring rows and its part of the OpenAPI document.
import type { ApplicationService } from '../applications/service.js'
import type { IdentityService } from '../identity/service.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import { createAuthorizeService, pruneConsentsAndCodes, type AuthorizeService } from './authorize-service.js'
import { createClientService, type ClientService } from './clients-service.js'
import { oauthTokenErrors } from './errors.js'
import { oauthRoutes } from './routes.js'
import { OAUTH_SECURITY_SCHEMES } from './schemas.js'
import { createTokenService, pruneTokens, type TokenService } from './token-service.js'

export interface OAuthServices {
  clients: ClientService
  authorize: AuthorizeService
  /** Also resolves OAuth access tokens for the banking and reporting interfaces. */
  tokens: TokenService
}

export interface OAuthDeps {
  db: Pick<Db, 'kysely'>
  clock: Clock
  applications: Pick<ApplicationService, 'authenticate' | 'list'>
  /** Checks the account holder's username and password on the sign-in page. */
  identity: Pick<IdentityService, 'verify'>
  /** The server secret; the sign-in page's signed pending requests use a key derived from it. */
  secretsKey: string
}

const DESCRIPTION = `OAuth 2.0 authorization server (\`/oauth2/v3\`): the account holder signs in and allows a client at
\`/oauth2/v3/authorize\` (authorization code with PKCE S256); clients exchange codes, refresh tokens and get
client_credentials tokens at \`/oauth2/v3/token\`. An access token works as \`Authorization: <token>\` on \`/v2\`.`

export function oauthFeature(deps: OAuthDeps): Feature<OAuthServices> {
  const { db, clock } = deps
  const clients = createClientService({ db, clock, applications: deps.applications })
  const tokens = createTokenService({ db, clock, clients })
  const authorize = createAuthorizeService({ db, clock, clients, identity: deps.identity, secretsKey: deps.secretsKey })
  return {
    name: 'oauth',
    services: { clients, authorize, tokens },
    // Two scopes share /oauth2/v3 (the HTML pages and the JSON token endpoint), each with its own error family.
    // A request to the token endpoint that the HTTP parser rejects still answers an RFC 6749 error.
    http: {
      families: [{ prefix: '/oauth2/v3/token', family: oauthTokenErrors }],
      register: (app) => oauthRoutes(app, { oauthAuthorize: authorize, oauthTokens: tokens }),
    },
    housekeeping: [
      { name: 'oauth consents and codes', prune: () => pruneConsentsAndCodes(db, clock) },
      { name: 'oauth tokens and grants', prune: () => pruneTokens(db, clock) },
    ],
    openapi: { description: DESCRIPTION, securitySchemes: OAUTH_SECURITY_SCHEMES },
  }
}
