// Organizations: resellers → accounts → merchants, one tree. An organization id is the merchant id real clients
// send (`v-c-merchant-id`, `organizationId`). The one authorization rule lives here: X may act for Y when Y is X
// or one of X's descendants.
import type { Clock } from '../platform/clock.js'
import type { Db, Executor } from '../platform/db/database.js'
import type { OrganizationType } from './tables.js'
import { conflict, invalid } from '../platform/errors.js'
import * as repo from './repository.js'

export type { OrganizationType }
export const ORGANIZATION_TYPES: readonly OrganizationType[] = ['reseller', 'account', 'merchant']
/** The reference's pattern for `organizationId` (1 to 32 of letters, digits, `-` and `_`). */
export const ORGANIZATION_ID_PATTERN = '^[a-zA-Z0-9_-]{1,32}$'

/** Which type may sit under which: a reseller at the top or under a reseller, accounts under resellers, merchants under either. */
const PARENT_TYPES: Record<OrganizationType, readonly (OrganizationType | null)[]> = {
  reseller: [null, 'reseller'],
  account: [null, 'reseller'],
  merchant: [null, 'account', 'reseller'],
}

/** How many organizations a process keeps in memory. */
const KNOWN_ORGANIZATIONS = 10_000

/** The deepest tree the lookups walk; a deeper chain is refused at creation. */
const MAX_DEPTH = 8

export interface Organization {
  id: string
  type: OrganizationType
  parentId: string | null
  name: string
  createdAt: string
}

export interface NewOrganization {
  id: string
  type: OrganizationType
  parentId?: string
  name?: string
}

export interface OrganizationService {
  find(id: string): Promise<Organization | undefined>
  /** True when `actor` may act for `target`: the target exists and is the actor or one of its descendants. */
  mayActFor(actor: string, target: string): Promise<boolean>
  /** mayActFor without waiting, from what this process has read before; undefined when it has not (ask mayActFor). */
  recallMayActFor(actor: string, target: string): boolean | undefined
  /** Every organization below this one (not itself), parents before their children; [] for an unknown id. */
  descendants(id: string): Promise<Organization[]>
  /** Throws invalid() for a bad id, type or parent, conflict() for a taken id. */
  create(input: NewOrganization): Promise<Organization>
  /** Creates it unless an organization with this id exists (sandbox start-up; safe for concurrent starts). */
  ensure(input: NewOrganization): Promise<void>
  list(): Promise<Organization[]>
  /**
   * The ids of the organization and its ancestors, nearest first (empty for an unknown id). Read through `executor`
   * when given (a caller's open transaction). Organizations never move, so a known lineage is remembered.
   */
  lineage(id: string, executor?: Executor): Promise<readonly string[]>
}

export function createOrganizationService(deps: { db: Pick<Db, 'kysely'>; clock: Clock }): OrganizationService {
  const { db, clock } = deps

  // An organization is never changed or removed once created, so one found is kept (every signed reporting call
  // walks its merchant's lineage); an unknown id is read each time, as another process may create it. Bounded.
  const known = new Map<string, Organization>()
  async function find(id: string): Promise<Organization | undefined> {
    const hit = known.get(id)
    if (hit) return hit
    const row = await repo.find(db.kysely, id)
    if (!row) return undefined
    if (known.size >= KNOWN_ORGANIZATIONS) known.clear()
    const org = toOrganization(row)
    known.set(id, org)
    return org
  }

  /** The organization and its ancestors, nearest first (bounded, so a corrupted cycle cannot loop). */
  async function lineage(id: string): Promise<Organization[]> {
    const chain: Organization[] = []
    let next: string | null = id
    while (next !== null && chain.length <= MAX_DEPTH) {
      const org = await find(next)
      if (!org) break
      chain.push(org)
      next = org.parentId
    }
    return chain
  }

  async function check(input: NewOrganization): Promise<repo.OrganizationRow> {
    if (!new RegExp(ORGANIZATION_ID_PATTERN).test(input.id)) invalidField('id', 'must be 1 to 32 letters, digits, - or _')
    if (!ORGANIZATION_TYPES.includes(input.type)) invalidField('type', `must be one of ${ORGANIZATION_TYPES.join(', ')}`)
    let parentType: OrganizationType | null = null
    if (input.parentId !== undefined) {
      const parents = await lineage(input.parentId)
      if (!parents[0]) invalidField('parent', `no organization ${input.parentId}`)
      if (parents.length >= MAX_DEPTH) invalidField('parent', `the tree is at most ${MAX_DEPTH} deep`)
      parentType = parents[0]!.type
    }
    if (!PARENT_TYPES[input.type].includes(parentType)) invalidField('parent', `${input.type === 'account' ? 'an' : 'a'} ${input.type} cannot be placed ${parentType ? `under a ${parentType}` : 'at the top'}`)
    return { id: input.id, type: input.type, parent_id: input.parentId ?? null, name: input.name ?? input.id, created_at: clock.now().toISOString() }
  }

  const lineages = new Map<string, readonly string[]>()

  async function lineageIds(id: string, executor?: Executor): Promise<readonly string[]> {
    const hit = lineages.get(id)
    if (hit) return hit
    const ids = await repo.lineage(executor ?? db.kysely, id, MAX_DEPTH)
    if (ids.length > 0) {
      if (lineages.size >= KNOWN_ORGANIZATIONS) lineages.clear()
      lineages.set(id, Object.freeze(ids))
    }
    return ids
  }

  return {
    find,
    lineage: lineageIds,

    async mayActFor(actor, target) {
      return (await lineageIds(target)).includes(actor)
    },

    recallMayActFor(actor, target) {
      return lineages.get(target)?.includes(actor)
    },

    async descendants(id) {
      const found: Organization[] = []
      // Level by level, bounded like lineage(): a corrupted cycle cannot loop.
      let level = [id]
      for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
        const below = (await repo.children(db.kysely, level)).map(toOrganization)
        found.push(...below)
        level = below.map((o) => o.id)
      }
      return found
    },

    async create(input) {
      const row = await check(input)
      if (!(await repo.insert(db.kysely, row))) throw conflict([{ field: 'id', reason: `organization ${input.id} exists` }])
      return toOrganization(row)
    },

    async ensure(input) {
      if (await find(input.id)) return
      await repo.insert(db.kysely, await check(input))
    },

    async list() {
      return (await repo.list(db.kysely)).map(toOrganization)
    },
  }
}

function invalidField(field: string, reason: string): never {
  throw invalid([{ field, reason }])
}

function toOrganization(row: repo.OrganizationRow): Organization {
  return { id: row.id, type: row.type, parentId: row.parent_id, name: row.name, createdAt: row.created_at }
}
