// Merchant users: the people of an organization who sign in on the consent page of an organization's OAuth client
// (a partner's) and allow it to read their organization's reports. A merchant user is a customer tied to an
// organization, with one credential of its own kind (merchantUser) in its own realm: sign-in is identity's verify,
// with the same scrypt work, lockout and uniform failure as every credential, and no banking login can present it
// (the banking login body maps only the banking credential kinds).
import { randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { hashSecret, randomSecret } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import { conflict, invalid } from '../../platform/errors.js'
import * as repo from '../repository.js'
import { MERCHANT_USER_KIND, MERCHANT_USER_REALM } from '../types.js'

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/

export interface MerchantUser {
  /** The customer id: what `finapi credentials list` takes. */
  id: string
  organizationId: string
  username: string
  /** The credential's id: what `finapi credentials revoke` takes. */
  credentialId: string
  status: 'active' | 'locked' | 'revoked'
  createdAt: string
}

export interface NewMerchantUser {
  organizationId: string
  username: string
}

export interface MerchantUserService {
  /** A new merchant user with a generated password, returned this once (only its scrypt hash is stored). */
  create(input: NewMerchantUser): Promise<{ user: MerchantUser; password: string }>
  /** The sandbox's merchant user with its published password, usable again after every start (idempotent). */
  ensure(input: NewMerchantUser & { id: string; password: string }): Promise<void>
  /** The organization a customer signs in for: set for merchant users, null for account holders (and unknown ids). */
  organizationOf(customerId: string): Promise<string | null>
  list(): Promise<MerchantUser[]>
}

export function createMerchantUserService(deps: { db: Pick<Db, 'kysely'>; clock: Clock; organizations: Pick<OrganizationService, 'find'> }): MerchantUserService {
  const { db, clock } = deps

  async function rows(input: NewMerchantUser & { id: string; password: string }) {
    if (!USERNAME.test(input.username)) throw invalid([{ field: 'username', reason: 'must be 1 to 64 letters, digits, . _ @ or -' }])
    if (!(await deps.organizations.find(input.organizationId))) throw invalid([{ field: 'org', reason: `no organization ${input.organizationId}` }])
    const now = clock.now().toISOString()
    const customer = { id: input.id, brand: MERCHANT_USER_REALM.brand, lob: MERCHANT_USER_REALM.lob, is_business: 1, created_at: now, organization_id: input.organizationId }
    const credential = {
      id: randomUUID(),
      customer_id: input.id,
      kind: MERCHANT_USER_KIND,
      brand: MERCHANT_USER_REALM.brand,
      lob: MERCHANT_USER_REALM.lob,
      lookup_key: input.username,
      secret_hash: await hashSecret(input.password),
      public_key: null,
      token_type: null,
      restricted: 0,
      failed_attempts: 0,
      locked_until: null,
      revoked_at: null,
      created_at: now,
    }
    return { customer, credential }
  }

  return {
    async create(input) {
      const password = randomSecret(18)
      const { customer, credential } = await rows({ ...input, id: `mu_${randomSecret(12)}`, password })
      const taken = await db.kysely.transaction().execute(async (trx) => {
        if (await repo.firstExistingCredential(trx, [{ brand: credential.brand, lob: credential.lob, kind: credential.kind, lookupKey: credential.lookup_key }])) return true
        await repo.insertCustomers(trx, [customer])
        await repo.insertCredentials(trx, [credential])
        return false
      })
      if (taken) throw conflict([{ field: 'username', reason: `a merchant user ${input.username} exists` }])
      const user: MerchantUser = { id: customer.id, organizationId: input.organizationId, username: input.username, credentialId: credential.id, status: 'active', createdAt: customer.created_at }
      return { user, password }
    },

    async ensure(input) {
      const { customer, credential } = await rows(input)
      // Not one transaction: two processes starting at once each insert what is missing, and the upsert resets the
      // secret whichever ran first.
      await repo.insertCustomerIfAbsent(db.kysely, customer)
      await repo.upsertCredential(db.kysely, credential)
    },

    async organizationOf(customerId) {
      return (await repo.customerOrganization(db.kysely, customerId)) ?? null
    },

    async list() {
      const now = clock.now().toISOString()
      return (await repo.listMerchantUsers(db.kysely, MERCHANT_USER_KIND)).map((r) => ({
        id: r.id,
        organizationId: r.organization_id!,
        username: r.username,
        credentialId: r.credential_id,
        status: r.revoked_at !== null ? 'revoked' : r.locked_until !== null && r.locked_until > now ? 'locked' : 'active',
        createdAt: r.created_at,
      }))
    },
  }
}

/** The sandbox's merchant user: public on purpose (README, "Sandbox identities"), never in production. */
export const SANDBOX_MERCHANT_USERS = [{ id: 'sandbox-merchant-user-testrest', organizationId: 'testrest', username: 'testrest', password: 'Testrest-1' }] as const

/** The credential ids of sandbox merchant users that can still sign in: in production there must be none. */
export async function activeSandboxMerchantUsers(merchantUsers: Pick<MerchantUserService, 'list'>): Promise<string[]> {
  const ids = new Set<string>(SANDBOX_MERCHANT_USERS.map((u) => u.id))
  return (await merchantUsers.list()).filter((u) => u.status !== 'revoked' && ids.has(u.id)).map((u) => u.credentialId)
}
