// Reporting keys: the key id and shared secret a merchant (or a parent organization, as a meta key) signs
// reporting calls with (HTTP Signature, HmacSHA256). The verifier needs the secret itself, so it cannot be hashed:
// it is sealed with AES-256-GCM under a key derived from SECRETS_KEY, with the key id as authenticated context,
// shown once at creation, and never logged or listed.
import { randomBytes, randomUUID } from 'node:crypto'
import type { OrganizationService } from '../organizations/service.js'
import type { Clock } from '../platform/clock.js'
import { deriveKey, seal, unseal } from '../platform/crypto.js'
import type { Db } from '../platform/db/database.js'
import { invalid } from '../platform/errors.js'
import * as repo from './repository.js'

/** The HKDF purpose of the sealing key; changing it orphans every stored secret, so version it instead. */
export const KEY_SECRETS_PURPOSE = 'finapi/reporting/key-secrets/v1'
/** How many unsealed secrets a process keeps (each a 32-byte buffer). */
const UNSEALED_CACHE_SIZE = 10_000

export interface ReportingKey {
  id: string
  organizationId: string
  status: 'active' | 'revoked'
  createdAt: string
  revokedAt: string | null
}

/** What the signature check needs: the organization the key belongs to and its decoded shared secret. */
export interface SigningKey {
  id: string
  organizationId: string
  secret: Buffer
}

export interface ReportingKeyService {
  /** A new key for an existing organization; the secret (base64 of 32 random bytes) is returned this once. */
  create(organizationId: string): Promise<{ key: ReportingKey; secret: string }>
  /** Registers a key with a known id and secret, active (the sandbox keys; idempotent). */
  ensure(input: { id: string; organizationId: string; secret: string }): Promise<void>
  /** The active key with this id, secret unsealed; undefined for an unknown, revoked or unreadable key. */
  signingKey(id: string): Promise<SigningKey | undefined>
  list(): Promise<ReportingKey[]>
  /** False when no active key has this id. */
  revoke(id: string): Promise<boolean>
}

export function createReportingKeyService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; secretsKey: string; organizations: Pick<OrganizationService, 'find'> }): ReportingKeyService {
  const { db, clock } = deps
  const sealingKey = deriveKey(deps.secretsKey, KEY_SECRETS_PURPOSE)
  const row = (id: string, organizationId: string, secret: string): repo.ReportingKeyRow => ({
    id,
    organization_id: organizationId,
    secret_sealed: seal(sealingKey, secret, id),
    status: 'active',
    created_at: clock.now().toISOString(),
    revoked_at: null,
  })

  /**
   * Unsealed secrets by key id and sealed value (AES-GCM and base64 decoding cost more than the row's read); a sealed
   * value opens to one secret, so an entry cannot go stale, and a re-keyed row has a new sealed value. Bounded.
   */
  const unsealed = new Map<string, Buffer>()
  function opened(id: string, sealed: string): Buffer | undefined {
    const cacheKey = `${id}\u0000${sealed}`
    const hit = unsealed.get(cacheKey)
    if (hit) return hit
    const secret = unseal(sealingKey, sealed, id)
    if (secret === undefined) return undefined
    if (unsealed.size >= UNSEALED_CACHE_SIZE) unsealed.clear()
    const decoded = Buffer.from(secret, 'base64')
    unsealed.set(cacheKey, decoded)
    return decoded
  }

  return {
    async create(organizationId) {
      if (!(await deps.organizations.find(organizationId))) throw invalid([{ field: 'org', reason: `no organization ${organizationId}` }])
      const secret = randomBytes(32).toString('base64')
      const created = row(randomUUID(), organizationId, secret)
      await repo.insertReportingKey(db.kysely, created)
      return { key: toKey(created), secret }
    },

    async ensure(input) {
      await repo.upsertReportingKey(db.kysely, row(input.id, input.organizationId, input.secret))
    },

    async signingKey(id) {
      // The row is read on every call, so a revocation by any process counts at once; only the decryption is kept.
      const found = await repo.findReportingKey(db.kysely, id)
      if (!found || found.status !== 'active') return undefined
      const secret = opened(found.id, found.secret_sealed)
      return secret === undefined ? undefined : { id: found.id, organizationId: found.organization_id, secret }
    },

    async list() {
      return (await repo.listReportingKeys(db.kysely)).map(toKey)
    },

    async revoke(id) {
      return (await repo.revokeReportingKey(db.kysely, id, clock.now().toISOString())) > 0
    },
  }
}

function toKey(row: Omit<repo.ReportingKeyRow, 'secret_sealed'>): ReportingKey {
  return { id: row.id, organizationId: row.organization_id, status: row.status, createdAt: row.created_at, revokedAt: row.revoked_at }
}
