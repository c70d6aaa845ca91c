// Application keys (`x-svc-key`): created by operators with the CLI, shown once, stored as a hash, revocable.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../platform/clock.js'
import { randomSecret, sha256Hex, sha256HexMemo, type HashMemo } from '../platform/crypto.js'
import type { Db } from '../platform/db/database.js'
import * as repo from './repository.js'

export const SANDBOX_APPLICATION_ID = 'sandbox'
const KEY_PREFIX = 'fk_'

/**
 * Every /v2 call authenticates its key, so a verified key is remembered this long instead of read each time.
 * A revocation therefore reaches every server process within this time (at once in the process that revoked).
 */
export const KEY_CACHE_MS = 5_000
const KEY_CACHE_ENTRIES = 10_000
/**
 * The change channel (platform/db/changes.ts: the table's name) of applications: an OAuth token stops working with
 * its client's application, so the token memory listens here (PostgreSQL's trigger: migration 0029).
 */
export const APPLICATION_CHANGES = 'applications'

export interface Application {
  id: string
  name: string
  keyPrefix: string
  status: 'active' | 'revoked'
  createdAt: string
  revokedAt: string | null
}

export interface ApplicationService {
  /** The active application holding this key, or undefined for an unknown or revoked key. */
  authenticate(key: string): Promise<Application | undefined>
  /** The application for this key if it was verified in the last KEY_CACHE_MS, without waiting: the hot path. */
  recall(key: string, memo?: HashMemo): Application | undefined
  create(name: string): Promise<{ application: Application; key: string }>
  list(): Promise<Application[]>
  revoke(id: string): Promise<boolean>
  /** Registers the configured shared sandbox key (idempotent, safe for concurrent starts). */
  ensureSandboxKey(key: string): Promise<void>
}

export function createApplicationService(deps: { db: Pick<Db, 'kysely'>; clock: Clock }): ApplicationService {
  const { db, clock } = deps
  const verified = new Map<string, { application: Application; until: number }>()

  return {
    recall(key, memo) {
      const hit = verified.get(sha256HexMemo(key, memo))
      return hit && hit.until > clock.nowMs() ? hit.application : undefined
    },

    async authenticate(key) {
      const hash = sha256Hex(key)
      const now = clock.now().getTime()
      const hit = verified.get(hash)
      if (hit && hit.until > now) return hit.application
      verified.delete(hash)
      const row = await repo.findByKeyHash(db.kysely, hash)
      if (!row || row.status !== 'active') return undefined
      const application = toApplication(row)
      if (verified.size >= KEY_CACHE_ENTRIES) verified.delete(verified.keys().next().value!)
      verified.set(hash, { application, until: now + KEY_CACHE_MS })
      return application
    },

    async create(name) {
      const key = KEY_PREFIX + randomSecret(32)
      const row = {
        id: randomUUID(),
        name,
        key_hash: sha256Hex(key),
        key_prefix: key.slice(0, KEY_PREFIX.length + 6),
        status: 'active' as const,
        created_at: clock.now().toISOString(),
        revoked_at: null,
      }
      await repo.insert(db.kysely, row)
      return { application: toApplication(row), key }
    },

    async list() {
      return (await repo.list(db.kysely)).map(toApplication)
    },

    async revoke(id) {
      for (const [hash, entry] of verified) if (entry.application.id === id) verified.delete(hash)
      return (await repo.revoke(db.kysely, id, clock.now().toISOString())) > 0
    },

    async ensureSandboxKey(key) {
      await repo.upsert(db.kysely, {
        id: SANDBOX_APPLICATION_ID,
        name: 'Shared sandbox key',
        key_hash: sha256Hex(key),
        key_prefix: key.slice(0, 6),
        status: 'active',
        created_at: clock.now().toISOString(),
        revoked_at: null,
      })
    },
  }
}

function toApplication(row: repo.ApplicationRowLike): Application {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    status: row.status,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }
}
