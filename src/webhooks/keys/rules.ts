// What both key calls (keys-sym and keys-asym) check alike and answer in the same words: the action, provider,
// status, expiry and key id, and the organization the key is for.
import type { OrganizationService } from '../../organizations/service.js'
import { notFound } from '../../platform/errors.js'

export interface Acting {
  /** The organization the call acts for. */
  id: string
  /** The one its signature authenticated (which may act for `id` and those below it). */
  authenticatedId: string
}

/** Names a member at fault by its flattened JSON path. */
export type Bad = (field: string, reason: string) => void

export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
export const KEY_ID_RULE = 'must be 1 to 64 letters, digits, - or _'

/** `YYYY-MM-DDThh:mm:ssZ`, the models' time format. */
export const utcSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** clientRequestAction upper-cased (CREATE when absent); anything but CREATE or STORE is named. */
export function requestAction(value: string | undefined, bad: Bad): string {
  const action = (value ?? 'CREATE').toUpperCase()
  if (action !== 'CREATE' && action !== 'STORE') bad('clientRequestAction', 'must be CREATE or STORE')
  return action
}

/** provider (nrtd, the default) and status (ACTIVE, a new key's only one), either case. */
export function checkProviderAndStatus(info: { provider?: string | undefined; status?: string | undefined }, bad: Bad): void {
  if (info.provider !== undefined && info.provider.toLowerCase() !== 'nrtd') bad('keyInformation.provider', 'must be nrtd')
  if (info.status !== undefined && info.status.toUpperCase() !== 'ACTIVE') bad('keyInformation.status', 'a new key is ACTIVE')
}

/** expiryDuration as days, 1 to 3650 (365 when absent); NaN, and named, otherwise. */
export function expiryDays(value: string | undefined, bad: Bad): number {
  const days = value === undefined ? 365 : /^\d{1,4}$/.test(value) ? Number(value) : NaN
  if (!(days >= 1 && days <= 3650)) bad('keyInformation.expiryDuration', 'must be a number of days from 1 to 3650')
  return days
}

/**
 * The organization a key is for: the acting one by default, another only if the authenticated organization may act
 * for it. One it may not is answered as an unknown one (404), so the call does not tell who exists.
 */
export async function organizationFor(acting: Acting, requested: string | undefined, organizations: Pick<OrganizationService, 'mayActFor'>): Promise<string> {
  const organizationId = requested ?? acting.id
  if (organizationId !== acting.id && !(await organizations.mayActFor(acting.authenticatedId, organizationId))) {
    throw notFound([{ field: 'keyInformation.organizationId', reason: 'no such organization' }])
  }
  return organizationId
}
