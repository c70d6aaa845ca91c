// Merchant users: the people of an organization who sign in on the consent page of an organization's OAuth client
// (a partner's) and allow it to read their organization's reports. A merchant user is a customer tied to an
// organization, with one credential of its own kind (merchantUser) in its own realm: sign-in is identity's verify,
// with the same scrypt work, lockout and uniform failure as every credential, and no banking login can present it
// (the banking login body maps only the banking credential kinds). A merchant user given the operator role with the
// CLI also sees, in the console, every organization and its merchant users, keys and OAuth clients.
import { randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import { hashSecret, randomSecret } from '../../platform/crypto.js'
import type { Db } from '../../platform/db/database.js'
import { conflict, invalid } from '../../platform/errors.js'
import * as repo from '../repository.js'
import { MERCHANT_USER_KIND, MERCHANT_USER_REALM } from '../types.js'

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/
/** A chosen password: long enough to resist guessing under the lockout; no longer than the sign-in forms take. */
const PASSWORD_LENGTH = { min: 12, max: 128 }
/** The role `finapi users grant-operator` gives. */
export const OPERATOR_ROLE = 'operator'

export interface MerchantUser {
  /** The customer id: what `finapi credentials list` takes. */
  id: string
  organizationId: string
  username: string
  /** The credential's id: what `finapi credentials revoke` takes. */
  credentialId: string
  status: 'active' | 'locked' | 'revoked'
  /** Given with `finapi users grant-operator`: sees every organization's records in the console. */
  operator: boolean
  createdAt: string
}

export interface NewMerchantUser {
  organizationId: string
  username: string
}

export interface MerchantUserFilter {
  organizationId?: string
}

export interface MerchantUserService {
  /**
   * A new merchant user with a generated password, returned this once (only its scrypt hash is stored), or with the
   * password given (12 to 128 characters).
   */
  create(input: NewMerchantUser & { password?: string }): Promise<{ user: MerchantUser; password: string }>
  /** The sandbox's merchant user with its published password, usable again after every start (idempotent). */
  ensure(input: NewMerchantUser & { id: string; password: string }): Promise<void>
  /** The organization a customer signs in for: set for merchant users, null for account holders (and unknown ids). */
  organizationOf(customerId: string): Promise<string | null>
  /** Every merchant user, or one organization's. */
  list(filter?: MerchantUserFilter): Promise<MerchantUser[]>
  /** The merchant user with this customer id (not an account holder's), or undefined. */
  get(id: string): Promise<MerchantUser | undefined>
  /** Whether the customer is a merchant user with the operator role (read each time: a role taken back counts at once). */
  isOperator(customerId: string): Promise<boolean>
  /** Gives or takes back the operator role of the merchant user who signs in as `username`; undefined for no such user. */
  setOperator(username: string, operator: boolean): Promise<MerchantUser | undefined>
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
      if (input.password !== undefined && (input.password.length < PASSWORD_LENGTH.min || input.password.length > PASSWORD_LENGTH.max)) {
        throw invalid([{ field: 'password', reason: `must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters` }])
      }
      const password = input.password ?? randomSecret(18)
      const { customer, credential } = await rows({ organizationId: input.organizationId, username: input.username, id: `mu_${randomSecret(12)}`, password })
      const taken = await db.kysely.transaction().execute(async (trx) => {
        if (await repo.firstExistingCredential(trx, [{ brand: credential.brand, lob: credential.lob, kind: credential.kind, lookupKey: credential.lookup_key }])) return true
        await repo.insertCustomers(trx, [customer])
        await repo.insertCredentials(trx, [credential])
        return false
      })
      if (taken) throw conflict([{ field: 'username', reason: `a merchant user ${input.username} exists` }])
      const user: MerchantUser = { id: customer.id, organizationId: input.organizationId, username: input.username, credentialId: credential.id, status: 'active', operator: false, createdAt: customer.created_at }
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

    list: (filter = {}) => find(filter),

    async get(id) {
      return (await find({ id }))[0]
    },

    isOperator: (customerId) => repo.hasRole(db.kysely, customerId, OPERATOR_ROLE),

    async setOperator(username, operator) {
      const [user] = await find({ username })
      if (!user) return undefined
      if (operator) await repo.grantRole(db.kysely, user.id, OPERATOR_ROLE, clock.now().toISOString())
      else await repo.takeRole(db.kysely, user.id, OPERATOR_ROLE)
      return { ...user, operator }
    },
  }

  async function find(filter: MerchantUserFilter & { id?: string; username?: string }): Promise<MerchantUser[]> {
    const now = clock.now().toISOString()
    return (await repo.listMerchantUsers(db.kysely, MERCHANT_USER_KIND, OPERATOR_ROLE, filter)).map((r) => ({
      id: r.id,
      organizationId: r.organization_id!,
      username: r.username,
      credentialId: r.credential_id,
      status: r.revoked_at !== null ? 'revoked' : r.locked_until !== null && r.locked_until > now ? 'locked' : 'active',
      operator: r.role !== null,
      createdAt: r.created_at,
    }))
  }
}

/** The sandbox's merchant user: public on purpose (README, "Sandbox identities"), never in production. */
export const SANDBOX_MERCHANT_USERS = [{ id: 'sandbox-merchant-user-testrest', organizationId: 'testrest', username: 'testrest', password: 'Testrest-1' }] as const

/** The credential ids of sandbox merchant users that can still sign in: in production there must be none. */
export async function activeSandboxMerchantUsers(merchantUsers: Pick<MerchantUserService, 'list'>): Promise<string[]> {
  const ids = new Set<string>(SANDBOX_MERCHANT_USERS.map((u) => u.id))
  return (await merchantUsers.list()).filter((u) => u.status !== 'revoked' && ids.has(u.id)).map((u) => u.credentialId)
}
