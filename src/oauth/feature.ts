// The OAuth 2.0 authorization server as one feature: clients, the authorize pages and the token endpoint under
// /oauth2/v3, its expiring rows, its part of the OpenAPI document, its tables and the sandbox's clients.
import type { ApplicationService } from '../applications/service.js'
import type { MerchantUserService } from '../identity/merchant-users/service.js'
import type { IdentityService } from '../identity/service.js'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import * as m0003 from '../migrations/0003_oauth.js'
import * as m0008 from '../migrations/0008_stateless_consents.js'
import * as m0012 from '../migrations/0012_oauth_par_dpop.js'
import * as m0019 from '../migrations/0019_dpop_bound_codes.js'
import * as m0028 from '../migrations/0028_oauth_token_changes.js'
import * as m0031 from '../migrations/0031_oauth_table_channels.js'
import { activeSandboxClients, ensureSandboxReportingClients } from './clients/sandbox.js'
import { createAuthorizeService, pruneConsentsAndCodes, type AuthorizeService, type SignInHint } from './authorize/service.js'
import { createClientService, type ClientService } from './clients/service.js'
import { createDpopVerifier, type DpopVerifier } from '../platform/dpop.js'
import type { ReplayGuard } from '../platform/replay-guard.js'
import { createClientAuthentication, DEFAULT_OAUTH_LIMITS, type OAuthLimits } from './clients/authenticate.js'
import { oauthEndpointErrors, oauthTokenErrors } from './errors.js'
import { createIntrospectionService, type IntrospectionService } from './introspect/service.js'
import { createParService, prunePushedRequests, type ParService } from './par/service.js'
import { authorizeRoutes } from './authorize/routes.js'
import { introspectRoutes } from './introspect/routes.js'
import { metadataRoutes } from './metadata/routes.js'
import { parRoutes } from './par/routes.js'
import { revokeRoutes } from './revoke/routes.js'
import { createRevocationService, type RevocationService } from './revoke/service.js'
import { SCOPES } from './scope.js'
import { tokenRoutes } from './token/routes.js'
import { createTokenService, pruneTokens, type TokenService } from './token/service.js'

export interface OAuthServices {
  clients: ClientService
  authorize: AuthorizeService
  /** Also resolves OAuth access tokens for the banking and reporting interfaces. */
  tokens: TokenService
  revocation: RevocationService
  introspection: IntrospectionService
  par: ParService
  /** Verifies DPoP proofs against the feature's replay memory; the banking interface checks bound tokens with it. */
  dpop: DpopVerifier
}

export interface OAuthDeps {
  db: Pick<Db, 'kysely' | 'changes'>
  clock: Clock
  applications: Pick<ApplicationService, 'authenticate' | 'list'>
  /** Checks the account holder's (or merchant user's) username and password on the sign-in page. */
  identity: Pick<IdentityService, 'verify'>
  /** The organization a merchant user signs in for (what an organization's client's code acts for). */
  merchantUsers: Pick<MerchantUserService, 'organizationOf'>
  /** Clients of an organization are checked against it. */
  organizations: Pick<OrganizationService, 'find'>
  /** The server secret; the sign-in page's signed pending requests use a key derived from it. */
  secretsKey: string
  /** Sandbox mode only: the published test sign-ins the consent pages show. */
  sandboxSignIn?: Record<'banking' | 'merchant', SignInHint>
  /** PUBLIC_URL: the issuer, and the base of the URLs DPoP proofs name; derived from each request when unset. */
  publicUrl?: string
  /** The guessing throttles (per process); defaults when not given. */
  limits?: OAuthLimits
  /** The one memory of credentials already used (shared with reporting, pruned by the composition root): DPoP proofs. */
  replay: Pick<ReplayGuard, 'spend'>
}

const DESCRIPTION = `OAuth 2.0 authorization server (\`/oauth2/v3\`): the account holder signs in and allows a client at
\`/oauth2/v3/authorize\` (authorization code with PKCE S256); clients exchange codes, refresh tokens and get
client_credentials tokens at \`/oauth2/v3/token\`, revoke (\`/oauth2/v3/revoke\`, RFC 7009) and introspect
(\`/oauth2/v3/introspect\`, RFC 7662) tokens, and push authorization requests (\`/oauth2/v3/par\`, RFC 9126). Tokens can be
DPoP-bound (RFC 9449). Metadata: \`/.well-known/oauth-authorization-server\` (RFC 8414). An access token works as
\`Authorization: <token>\` on \`/v2\` (a DPoP-bound one as \`Authorization: DPoP <token>\` with a \`DPoP\` proof).`

const tokenUrl = '/oauth2/v3/token'

/** The OpenAPI security schemes of the authorization server, added to the document's components. */
const SECURITY_SCHEMES = {
  clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client_id and client_secret (client_secret_basic)' },
  oauth2: {
    type: 'oauth2',
    description: 'Authorization code with PKCE (S256), allowed by an account holder (or, for a client of an organization, a merchant user); client_credentials for confidential clients. Refresh tokens rotate on every use.',
    flows: {
      authorizationCode: { authorizationUrl: '/oauth2/v3/authorize', tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
      clientCredentials: { tokenUrl, refreshUrl: tokenUrl, scopes: SCOPES },
    },
  },
}

export function oauthFeature(deps: OAuthDeps): Feature<OAuthServices> {
  const { db, clock } = deps
  const limits = deps.limits ?? DEFAULT_OAUTH_LIMITS
  const clients = createClientService({ db, clock, applications: deps.applications, organizations: deps.organizations })
  const authenticateClient = createClientAuthentication({ clients, clock, limits })
  const dpop = createDpopVerifier({ clock, replay: deps.replay })
  const tokens = createTokenService({ db, clock, authenticateClient, dpop, merchantUsers: deps.merchantUsers })
  const revocation = createRevocationService({ db, clock, authenticateClient })
  const introspection = createIntrospectionService({ db, clock, authenticateClient })
  const par = createParService({ db, clock, authenticateClient, dpop })
  const authorize = createAuthorizeService({ db, clock, clients, identity: deps.identity, secretsKey: deps.secretsKey, par, limits, sandboxSignIn: deps.sandboxSignIn })
  return {
    name: 'oauth',
    services: { clients, authorize, tokens, revocation, introspection, par, dpop },
    // Two scopes share /oauth2/v3 (the HTML pages and the JSON token endpoint), each with its own error family.
    // A request to the token endpoint that the HTTP parser rejects still answers an RFC 6749 error.
    http: {
      families: [
        { prefix: '/oauth2/v3/token', family: oauthTokenErrors },
        ...['/oauth2/v3/revoke', '/oauth2/v3/introspect', '/oauth2/v3/par'].map((prefix) => ({ prefix, family: oauthEndpointErrors })),
      ],
      async register(app) {
        const { publicUrl } = deps
        await authorizeRoutes(app, { authorize, publicUrl })
        await tokenRoutes(app, { tokens, publicUrl })
        await revokeRoutes(app, { revocation })
        await introspectRoutes(app, { introspection })
        await parRoutes(app, { par, publicUrl })
        await metadataRoutes(app, { publicUrl })
      },
    },
    housekeeping: [
      { name: 'oauth consents and codes', prune: () => pruneConsentsAndCodes(db, clock) },
      { name: 'oauth tokens and grants', prune: () => pruneTokens(db, clock) },
      { name: 'oauth pushed requests', prune: () => prunePushedRequests(db, clock) },
    ],
    openapi: { description: DESCRIPTION, securitySchemes: SECURITY_SCHEMES },
    migrations: { '0003_oauth': m0003, '0008_stateless_consents': m0008, '0012_oauth_par_dpop': m0012, '0019_dpop_bound_codes': m0019, '0028_oauth_token_changes': m0028, '0031_oauth_table_channels': m0031 },
    sandbox: {
      async seed() {
        // The shared sandbox key as a public client, then the organizations' reporting clients (after the key and the
        // organizations, earlier features' data).
        await clients.ensureSandboxClient()
        await ensureSandboxReportingClients(clients)
      },
      exposed: async () => (await activeSandboxClients(clients)).map((id) => `OAuth client ${id} (finapi clients revoke ${id})`),
    },
  }
}
