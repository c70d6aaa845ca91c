// Digital signature keys (POST /kms/egress/v2/keys-sym, the SDK's SaveSymEgressKey): created by the server (CREATE)
// or stored as given (STORE), shown once, sealed with AES-256-GCM under a key derived from SECRETS_KEY (the key id as
// authenticated context, as reporting secrets are). An organization may hold several live keys at once: its newest
// one signs new notifications (unless a subscription's securityPolicy names another), so a subscriber adds the new
// key to its verifier before the old one stops being used — rotation without a gap.
import { randomBytes, randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { deriveKey, seal, unseal } from '../../platform/crypto.js'
import type { Executor } from '../../platform/db/database.js'
import { conflict, invalid, notFound, type ErrorDetail } from '../../platform/errors.js'
import type { SigningKey } from '../signing.js'
import * as repo from './repository.js'
import { KEY_ID_PATTERN, KEY_ID_RULE, checkProviderAndStatus, expiryDays, organizationFor, requestAction, utcSeconds, type Acting } from './rules.js'
import type { SaveSymEgressKeyBody, SaveSymEgressKeyResponse } from './schemas.js'

export const WEBHOOK_KEYS_PURPOSE = 'finapi/webhooks/signing-keys/v1'
/** How long "the organization's newest key" is remembered: a new key signs within this. */
const NEWEST_TTL_MS = 1_000

export type { Acting } from './rules.js'

export interface WebhookKeyService {
  save(acting: Acting, body: SaveSymEgressKeyBody): Promise<SaveSymEgressKeyResponse>
  /** The key that signs for `organizationId`: `keyId` if it names one of its usable keys, else its newest usable key. */
  signingKey(organizationId: string, keyId?: string): Promise<SigningKey | undefined>
  /** Whether `keyId` is a usable key of the organization (a securityPolicy may name it). */
  usable(organizationId: string, keyId: string): Promise<boolean>
  /** The organization's keys, newest first, never their secrets; `signing` marks the one that signs by default. */
  list(organizationId: string): Promise<KeySummary[]>
  /** Revokes a key: it signs nothing more (in every process within NEWEST_TTL_MS). notFound() unless the acting caller may manage it. */
  revoke(acting: Acting, keyId: string): Promise<void>
}

export interface KeySummary {
  keyId: string
  organizationId: string
  /** ACTIVE, REVOKED, or EXPIRED (an active key past its expiry). */
  status: 'ACTIVE' | 'REVOKED' | 'EXPIRED'
  createdAt: string
  expiresAt: string
  clientKeyId: string | null
  clientReferenceCode: string | null
  /** The organization's newest usable key: it signs notifications whose subscription names no key. */
  signing: boolean
}

export interface WebhookKeyDeps {
  db: Executor
  clock: Clock
  secretsKey: string
  organizations: Pick<OrganizationService, 'mayActFor'>
}

export function createWebhookKeyService(deps: WebhookKeyDeps): WebhookKeyService {
  const sealingKey = deriveKey(deps.secretsKey, WEBHOOK_KEYS_PURPOSE)
  // A key's status is read again after NEWEST_TTL_MS, so a key revoked by another process stops signing here too.
  const opened = new Map<string, { row: repo.KeyRow; secret: Buffer; at: number }>()
  // Remembered as a promise, so the many attempts that miss at once share one read.
  const newest = new Map<string, { at: number; keyId: Promise<string | undefined> }>()

  const usableRow = (row: repo.KeyRow | undefined, organizationId: string) =>
    row !== undefined && row.organization_id === organizationId && row.status === 'ACTIVE' && row.expires_at > deps.clock.now().toISOString()

  async function open(keyId: string): Promise<{ row: repo.KeyRow; secret: Buffer } | undefined> {
    const nowMs = deps.clock.now().getTime()
    const known = opened.get(keyId)
    if (known && nowMs - known.at <= NEWEST_TTL_MS) return known
    const row = await repo.findKey(deps.db, keyId)
    if (known && row) return Object.assign(known, { row, at: nowMs })
    const secret = row && unseal(sealingKey, row.secret_sealed, row.id)
    if (!row || secret === undefined) return void opened.delete(keyId)
    if (opened.size >= 10_000) opened.clear()
    const entry = { row, secret: Buffer.from(secret, 'base64'), at: nowMs }
    opened.set(keyId, entry)
    return entry
  }

  return {
    async save(acting, body) {
      const info = body.keyInformation ?? {}
      const details: ErrorDetail[] = []
      const bad = (field: string, reason: string) => details.push({ field, reason })
      const action = requestAction(body.clientRequestAction, bad)
      if (info.keyType !== undefined && info.keyType.toLowerCase() !== 'sharedsecret') bad('keyInformation.keyType', 'only sharedSecret (the digital signature key) is supported')
      checkProviderAndStatus(info, bad)
      const days = expiryDays(info.expiryDuration, bad)
      let secret: string | undefined
      if (action === 'STORE') {
        const decoded = info.key !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(info.key) ? Buffer.from(info.key, 'base64') : undefined
        if (info.key === undefined) bad('keyInformation.key', 'is required with STORE')
        else if (!decoded || decoded.length < 32) bad('keyInformation.key', 'must be base64 of at least 32 bytes')
        else secret = decoded.toString('base64')
        if (info.keyId !== undefined && !KEY_ID_PATTERN.test(info.keyId)) bad('keyInformation.keyId', KEY_ID_RULE)
      } else {
        if (info.key !== undefined) bad('keyInformation.key', 'is generated by the server with CREATE (use STORE to give your own)')
        if (info.keyId !== undefined) bad('keyInformation.keyId', 'is generated by the server with CREATE (use STORE to give your own)')
      }
      if (details.length > 0) throw invalid(details)

      const organizationId = await organizationFor(acting, info.organizationId, deps.organizations)
      const now = deps.clock.now()
      const id = info.keyId ?? randomUUID()
      secret ??= randomBytes(32).toString('base64')
      const row: repo.KeyRow = {
        id,
        organization_id: organizationId,
        key_type: 'sharedSecret',
        provider: info.provider ?? 'nrtd',
        tenant: info.tenant ?? organizationId,
        client_key_id: info.clientKeyId ?? null,
        client_reference_code: body.clientReferenceInformation?.code ?? null,
        secret_sealed: seal(sealingKey, secret, id),
        status: 'ACTIVE',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + days * 86_400_000).toISOString(),
      }
      if (!(await repo.insertKey(deps.db, row))) throw conflict([{ field: 'keyInformation.keyId', reason: 'a key with this id exists' }])
      newest.delete(organizationId)
      return {
        submitTimeUtc: utcSeconds(now),
        status: 'ACCEPTED',
        ...(body.clientReferenceInformation ? { clientReferenceInformation: body.clientReferenceInformation } : {}),
        keyInformation: {
          provider: row.provider,
          tenant: row.tenant,
          organizationId,
          ...(row.client_key_id === null ? {} : { clientKeyId: row.client_key_id }),
          keyId: id,
          key: secret,
          keyType: row.key_type,
          status: 'ACTIVE',
          expirationDate: utcSeconds(new Date(row.expires_at)),
        },
      }
    },

    async signingKey(organizationId, keyId) {
      if (keyId !== undefined) {
        const named = await open(keyId)
        return named && usableRow(named.row, organizationId) ? { id: named.row.id, secret: named.secret } : undefined
      }
      const nowMs = deps.clock.now().getTime()
      let remembered = newest.get(organizationId)
      if (!remembered || nowMs - remembered.at > NEWEST_TTL_MS) {
        remembered = { at: nowMs, keyId: repo.newestUsableKey(deps.db, organizationId, new Date(nowMs).toISOString()).then((row) => row?.id) }
        if (newest.size >= 10_000) newest.clear()
        newest.set(organizationId, remembered)
        remembered.keyId.catch(() => newest.delete(organizationId))
      }
      const newestId = await remembered.keyId
      if (newestId === undefined) return undefined
      const entry = await open(newestId)
      return entry && usableRow(entry.row, organizationId) ? { id: entry.row.id, secret: entry.secret } : undefined
    },

    async usable(organizationId, keyId) {
      const entry = await open(keyId)
      return entry !== undefined && usableRow(entry.row, organizationId)
    },

    async list(organizationId) {
      const now = deps.clock.now().toISOString()
      const rows = await repo.listKeys(deps.db, organizationId)
      const signing = rows.find((r) => r.status === 'ACTIVE' && r.expires_at > now)?.id
      return rows.map((r) => ({
        keyId: r.id,
        organizationId: r.organization_id,
        status: r.status === 'ACTIVE' && r.expires_at <= now ? 'EXPIRED' : r.status,
        createdAt: r.created_at,
        expiresAt: r.expires_at,
        clientKeyId: r.client_key_id,
        clientReferenceCode: r.client_reference_code,
        signing: r.id === signing,
      }))
    },

    async revoke(acting, keyId) {
      const row = await repo.findKey(deps.db, keyId)
      if (!row || !(await deps.organizations.mayActFor(acting.authenticatedId, row.organization_id))) throw notFound([{ field: 'keyId', reason: 'no such key' }])
      await repo.revokeKey(deps.db, keyId)
      opened.delete(keyId)
      newest.delete(row.organization_id)
    },
  }
}
