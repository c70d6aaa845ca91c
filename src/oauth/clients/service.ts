// OAuth clients: registered by operators with `finapi clients`, found by the client_id they present, and
// authenticated by their secret (scrypt, constant time) when they are confidential. A banking client's client_id
// is its application's key (banking spec, Authentication 6); any other client gets a generated public client_id.
import { randomUUID } from 'node:crypto'
import type { ApplicationService } from '../../applications/service.js'
import { SANDBOX_APPLICATION_ID } from '../../applications/service.js'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { hashSecret, randomSecret, verifySecret } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import { OAuthError } from '../errors.js'
import { redirectUriProblem } from '../redirect-uri.js'
import * as repo from '../repository.js'
import { SCOPE_NAMES, formatScope, isScope } from '../scope.js'

export const SANDBOX_CLIENT_ID = 'sandbox'
const PUBLIC_ID_PREFIX = 'fc_'
const SECRET_PREFIX = 'fcs_'
/** Longer than any key or generated client_id; anything longer is refused before it is hashed or looked up. */
const MAX_CLIENT_ID_LENGTH = 256

/** A client as the rest of the code sees it: its secret hash never leaves this module. */
export interface OAuthClient {
  id: string
  name: string
  /** The generated client_id; null when the client_id is the key of `applicationId`. */
  publicId: string | null
  applicationId: string | null
  confidential: boolean
  redirectUris: string[]
  /** Sandbox: any http redirect URI on localhost or 127.0.0.1 is accepted too. */
  loopbackRedirects: boolean
  scopes: string[]
  /** Its authorization requests must be pushed (RFC 9126) and name a request_uri. */
  requirePar: boolean
  /** Its tokens must be DPoP-bound (RFC 9449): every token request carries a proof. */
  requireDpop: boolean
  /**
   * The organization it belongs to, or null. Its client_credentials tokens act for it on /reporting/v3, and its
   * consent page signs in merchant users (whose organization the code's tokens then act for), not account holders.
   */
  organizationId: string | null
  createdAt: string
  revokedAt: string | null
}

export interface NewClient {
  name: string
  redirectUris: string[]
  scopes: string[]
  public: boolean
  /** Link to this application: its key becomes the client_id. */
  applicationId?: string
  requirePar?: boolean
  requireDpop?: boolean
  /** The organization the client belongs to: a reporting client (scope reporting only). */
  organizationId?: string
}

/** A client with known id and secret (the sandbox's reporting clients, whose values are published). */
export interface FixedClient {
  /** The internal id (what `finapi clients list|revoke` show and take). */
  id: string
  /** The client_id clients present. */
  clientId: string
  name: string
  secret: string
  organizationId: string
  /** Any http redirect URI on localhost or 127.0.0.1, as the sandbox client accepts. */
  loopbackRedirects: boolean
}

/** A registration the rules refuse; the message says which rule. */
export class ClientRegistrationError extends Error {
  override name = 'ClientRegistrationError'
}

export interface ClientCredentials {
  clientId: string
  secret: string | undefined
  /**
   * The HTTP Basic password as sent, where form-decoding it (RFC 6749 2.3.1) changed it: many clients (Swagger UI
   * among them) send a secret raw, and a `+` form-decoded is a space. Tried when `secret` does not match.
   */
  rawSecret?: string
}

export interface ClientService {
  /** Registers a client; a confidential client's secret is returned here once and stored only as a hash. */
  create(input: NewClient): Promise<{ client: OAuthClient; secret: string | undefined }>
  list(): Promise<OAuthClient[]>
  /** Revokes a client: its tokens stop working and it can no longer authorize or authenticate. */
  revoke(id: string): Promise<boolean>
  /** The sandbox key as a public client of every scope, accepting any loopback redirect (idempotent). */
  ensureSandboxClient(): Promise<void>
  /** A confidential reporting client of an organization with a known secret, active (idempotent; sandbox only). */
  ensureFixedClient(client: FixedClient): Promise<void>
  /** The active client a presented client_id names. */
  find(clientId: string): Promise<OAuthClient | undefined>
  /** The active client with this internal id. */
  get(id: string): Promise<OAuthClient | undefined>
  /**
   * The client, if it proves who it is: a confidential client by its secret, a public client by sending none.
   * Every failure is the same invalid_client, so an answer does not tell an unknown client from a wrong secret.
   */
  authenticate(credentials: ClientCredentials): Promise<OAuthClient>
}

export function createClientService(deps: {
  db: Pick<Db, 'kysely'>
  clock: Clock
  applications: Pick<ApplicationService, 'authenticate' | 'list'>
  organizations: Pick<OrganizationService, 'find'>
}): ClientService {
  const { db, clock, applications } = deps

  async function findRow(clientId: string): Promise<repo.ClientRow | undefined> {
    if (clientId.length === 0 || clientId.length > MAX_CLIENT_ID_LENGTH) return undefined
    let row = await repo.findClientByPublicId(db.kysely, clientId)
    if (!row) {
      const application = await applications.authenticate(clientId)
      if (application) row = await repo.findClientByApplicationId(db.kysely, application.id)
    }
    return row && row.revoked_at === null ? row : undefined
  }

  return {
    async create(input) {
      const name = input.name.trim()
      if (!name || name.length > 100) throw new ClientRegistrationError('a client needs a name of 1 to 100 characters')
      const scopes = [...new Set(input.scopes)]
      if (scopes.length === 0) throw new ClientRegistrationError(`a client needs at least one scope (${SCOPE_NAMES.join(', ')})`)
      const unknown = scopes.find((s) => !isScope(s))
      if (unknown !== undefined) throw new ClientRegistrationError(`unknown scope ${unknown} (scopes: ${SCOPE_NAMES.join(', ')})`)
      const redirectUris = [...new Set(input.redirectUris)]
      for (const uri of redirectUris) {
        const problem = redirectUriProblem(uri)
        if (problem) throw new ClientRegistrationError(`redirect URI ${uri} ${problem}`)
      }
      // A public client can only use the authorization code flow, which needs somewhere to send the code.
      if (input.public && redirectUris.length === 0) throw new ClientRegistrationError('a public client needs at least one redirect URI')
      if (input.organizationId !== undefined) {
        // Its tokens act for an organization, which only the reporting interface knows; banking refuses them.
        if (scopes.some((s) => s !== 'reporting')) throw new ClientRegistrationError('a client of an organization is a reporting client: its only scope is reporting')
        if (input.applicationId !== undefined) throw new ClientRegistrationError('a client of an organization cannot be an application key (--application is for banking clients)')
        // The reporting interface takes bearer tokens only; a DPoP-bound token would never open it.
        if (input.requireDpop) throw new ClientRegistrationError('a client of an organization cannot require DPoP: the reporting interface takes bearer tokens')
        if (!(await deps.organizations.find(input.organizationId))) throw new ClientRegistrationError(`no organization ${input.organizationId}`)
      }

      if (input.applicationId !== undefined) {
        const application = (await applications.list()).find((a) => a.id === input.applicationId)
        if (!application || application.status !== 'active') throw new ClientRegistrationError(`no active application with id ${input.applicationId}`)
        const existing = await repo.findClientByApplicationId(db.kysely, application.id)
        if (existing) throw new ClientRegistrationError(`application ${application.id} already has client ${existing.id}`)
      }

      const secret = input.public ? undefined : SECRET_PREFIX + randomSecret(32)
      const row = {
        id: randomUUID(),
        name,
        public_id: input.applicationId === undefined ? PUBLIC_ID_PREFIX + randomSecret(16) : null,
        application_id: input.applicationId ?? null,
        secret_hash: secret === undefined ? null : await hashSecret(secret),
        redirect_uris: JSON.stringify(redirectUris),
        loopback_redirects: 0,
        scopes: formatScope(scopes),
        require_par: input.requirePar ? 1 : 0,
        require_dpop: input.requireDpop ? 1 : 0,
        created_at: clock.now().toISOString(),
        revoked_at: null,
        organization_id: input.organizationId ?? null,
      }
      await repo.insertClient(db.kysely, row)
      return { client: toClient(row), secret }
    },

    async list() {
      return (await repo.listClients(db.kysely)).map(toClient)
    },

    async revoke(id) {
      return (await repo.revokeClient(db.kysely, id, clock.now().toISOString())) > 0
    },

    async ensureSandboxClient() {
      await repo.upsertClient(db.kysely, {
        id: SANDBOX_CLIENT_ID,
        name: 'Sandbox application',
        public_id: null,
        application_id: SANDBOX_APPLICATION_ID,
        secret_hash: null,
        redirect_uris: '[]',
        loopback_redirects: 1,
        scopes: formatScope(SCOPE_NAMES),
        require_par: 0,
        require_dpop: 0,
        created_at: clock.now().toISOString(),
        revoked_at: null,
        organization_id: null,
      })
    },

    async ensureFixedClient(client) {
      await repo.upsertClient(db.kysely, {
        id: client.id,
        name: client.name,
        public_id: client.clientId,
        application_id: null,
        secret_hash: await hashSecret(client.secret),
        redirect_uris: '[]',
        loopback_redirects: client.loopbackRedirects ? 1 : 0,
        scopes: 'reporting',
        require_par: 0,
        require_dpop: 0,
        created_at: clock.now().toISOString(),
        revoked_at: null,
        organization_id: client.organizationId,
      })
    },

    async find(clientId) {
      const row = await findRow(clientId)
      return row && toClient(row)
    },

    async get(id) {
      const row = await repo.findClientById(db.kysely, id)
      return row && row.revoked_at === null ? toClient(row) : undefined
    },

    async authenticate({ clientId, secret, rawSecret }) {
      const row = await findRow(clientId)
      const failed = new OAuthError('invalid_client', 'client authentication failed')
      if (secret === undefined) {
        if (!row || row.secret_hash !== null) throw failed
      } else {
        // The scrypt work runs whatever was found, so timing does not tell an unknown client from a wrong secret.
        // A second reading (the raw Basic password) costs a second verification whatever the first answered, so the
        // time says only what the caller sent.
        const first = await verifySecret(secret, row?.secret_hash)
        const second = rawSecret !== undefined && (await verifySecret(rawSecret, row?.secret_hash))
        if (!row || !(first || second)) throw failed
      }
      return toClient(row)
    },
  }
}

function toClient(row: repo.ClientRow): OAuthClient {
  return {
    id: row.id,
    name: row.name,
    publicId: row.public_id,
    applicationId: row.application_id,
    confidential: row.secret_hash !== null,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    loopbackRedirects: row.loopback_redirects === 1,
    scopes: row.scopes.split(' ').filter(Boolean),
    requirePar: row.require_par === 1,
    requireDpop: row.require_dpop === 1,
    organizationId: row.organization_id,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }
}
