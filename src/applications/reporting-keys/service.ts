// Reporting keys: the key id and shared secret a merchant (or a parent organization, as a meta key) signs
// reporting calls with (HTTP Signature, or an HS256 JWT). The verifier needs the secret itself, so it cannot be
// hashed: it is sealed with AES-256-GCM under a key derived from SECRETS_KEY, with the key id as authenticated
// context, shown once at creation, and never logged or listed. Beside them, certificates whose keys sign RS256
// JWTs: public, stored as they are, found by their subject's serialNumber (the JWT kid).
import { randomBytes, randomUUID, type KeyObject } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { deriveKey, seal, unseal } from '../../platform/crypto.js'
import { stampedMemory } from '../../platform/db/changes.js'
import type { Db } from '../../platform/db/database.js'
import { conflict, invalid } from '../../platform/errors.js'
import { readCertificate } from './certificates.js'
import * as repo from './repository.js'

/** The HKDF purpose of the sealing key; changing it orphans every stored secret, so version it instead. */
export const KEY_SECRETS_PURPOSE = 'finapi/reporting/key-secrets/v1'
/** How many unsealed secrets a process keeps (each a 32-byte buffer). */
const UNSEALED_CACHE_SIZE = 10_000
/** The change channel (platform/db/changes.ts: the table's name) of reporting keys (PostgreSQL's trigger: migration 0027). */
export const KEY_CHANGES = 'reporting_keys'
/**
 * How long an active key's row is used without reading it again while no reporting key changes anywhere. The change
 * signal is what makes a revocation count at once; this bound is only there so that nothing is kept forever.
 */
export const KEY_MEMORY_MS = 60_000
/** How many active keys a process remembers (a key's row and its secret). */
const KEY_MEMORY_SIZE = 10_000

export interface ReportingKey {
  id: string
  organizationId: string
  /** A shared secret (HTTP Signature, HS256 JWT), or a certificate (RS256 JWT). */
  kind: 'shared-secret' | 'certificate'
  status: 'active' | 'revoked'
  createdAt: string
  revokedAt: string | null
  /** A certificate's subject serialNumber (the JWT kid) and validity. */
  certificate?: { kid: string; notBefore: string; notAfter: string }
}

/** What an RS256 JWT check needs: the certificate's organization, public key and validity. */
export interface VerifyingCertificate {
  id: string
  organizationId: string
  publicKey: KeyObject
  notBefore: string
  notAfter: string
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
  /** signingKey without waiting: the key as verified since the last key change anywhere; undefined: ask signingKey. */
  recallSigningKey(id: string): SigningKey | undefined
  /**
   * Registers a certificate (PEM or DER) for RS256 JWTs of an organization. Refused: an unknown organization, a
   * certificate that is not usable (see certificates.ts) or already expired, one registered already, and a kid an
   * active certificate of another organization has (rotation within one organization may reuse it).
   */
  createCertificate(organizationId: string, certificate: Buffer): Promise<ReportingKey>
  /** The active certificates whose subject serialNumber is `kid` (several while one organization rotates). */
  certificates(kid: string): Promise<VerifyingCertificate[]>
  /** Shared-secret keys, then certificates: every organization's (an operator's), or one organization's own (the console's). */
  list(organizationId?: string): Promise<ReportingKey[]>
  /**
   * Revokes a key or a certificate; false when no active one has this id, or, with `organizationId`, none of that
   * organization's (the console's tenant rule: another's key is as unknown).
   */
  revoke(id: string, organizationId?: string): Promise<boolean>
}

export function createReportingKeyService(deps: { db: Pick<Db, 'kysely' | 'changes'>; clock: Clock; secretsKey: string; organizations: Pick<OrganizationService, 'find'> }): ReportingKeyService {
  const { db, clock } = deps
  const now = () => clock.nowMs()
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

  /**
   * Active keys as last read, with the change stamp taken before the read: every signed call needs its key, and the
   * read cost more than the rest of the check. Any change to the keys' table (a revocation, a sandbox key's new
   * secret) moves the stamp in every process sharing the database as it commits (KEY_CHANGES), so the next call
   * reads the row again. Unknown, revoked and unreadable keys are not remembered (read every time).
   */
  const remembered = stampedMemory<string, SigningKey>({ changes: db.changes, channels: [KEY_CHANGES], nowMs: now, maxAgeMs: KEY_MEMORY_MS, capacity: KEY_MEMORY_SIZE })
  async function readSigningKey(id: string): Promise<SigningKey | undefined> {
    const stamp = remembered.stamp()
    const recalled = remembered.recall(id, stamp)
    if (recalled) return recalled
    const found = await repo.findReportingKey(db.kysely, id)
    const secret = found && found.status === 'active' ? opened(found.id, found.secret_sealed) : undefined
    if (!found || secret === undefined) {
      remembered.forget(id)
      return undefined
    }
    const key = { id: found.id, organizationId: found.organization_id, secret }
    remembered.keep(id, stamp, key)
    return key
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

    signingKey: readSigningKey,
    recallSigningKey: (id) => remembered.recall(id),

    async createCertificate(organizationId, data) {
      if (!(await deps.organizations.find(organizationId))) throw invalid([{ field: 'org', reason: `no organization ${organizationId}` }])
      const info = readCertificate(data)
      const now = clock.now().toISOString()
      if (info.notAfter <= now) throw invalid([{ field: 'jwt-cert', reason: `expired on ${info.notAfter}` }])
      const registered = await repo.findReportingCertificateByFingerprint(db.kysely, info.fingerprint)
      if (registered) throw conflict([{ field: 'jwt-cert', reason: `already registered as key ${registered.id}` }])
      // A kid names one organization's certificates: a token's kid must never pick a key of another tenant.
      const holders = await repo.activeReportingCertificates(db.kysely, info.kid)
      if (holders.some((c) => c.organization_id !== organizationId)) throw conflict([{ field: 'jwt-cert', reason: `serialNumber ${info.kid} is the kid of another organization's certificate` }])
      const row: repo.ReportingCertificateRow = {
        id: randomUUID(),
        organization_id: organizationId,
        kid: info.kid,
        certificate: info.pem,
        fingerprint: info.fingerprint,
        not_before: info.notBefore,
        not_after: info.notAfter,
        status: 'active',
        created_at: now,
        revoked_at: null,
      }
      await repo.insertReportingCertificate(db.kysely, row)
      return toCertificateKey(row)
    },

    async certificates(kid) {
      return (await repo.activeReportingCertificates(db.kysely, kid)).flatMap((row) => {
        try {
          const { publicKey } = readCertificate(Buffer.from(row.certificate))
          return [{ id: row.id, organizationId: row.organization_id, publicKey, notBefore: row.not_before, notAfter: row.not_after }]
        } catch {
          return []
        }
      })
    },

    async list(organizationId) {
      return [...(await repo.listReportingKeys(db.kysely, organizationId)).map(toKey), ...(await repo.listReportingCertificates(db.kysely, organizationId)).map(toCertificateKey)]
    },

    async revoke(id, organizationId) {
      const at = clock.now().toISOString()
      return (await repo.revokeReportingKey(db.kysely, id, at, organizationId)) > 0 || (await repo.revokeReportingCertificate(db.kysely, id, at, organizationId)) > 0
    },
  }
}

function toKey(row: Omit<repo.ReportingKeyRow, 'secret_sealed'>): ReportingKey {
  return { id: row.id, organizationId: row.organization_id, kind: 'shared-secret', status: row.status, createdAt: row.created_at, revokedAt: row.revoked_at }
}

function toCertificateKey(row: repo.ReportingCertificateRow): ReportingKey {
  return {
    id: row.id,
    organizationId: row.organization_id,
    kind: 'certificate',
    status: row.status,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    certificate: { kid: row.kid, notBefore: row.not_before, notAfter: row.not_after },
  }
}
