// The sandbox's organizations: constants, public on purpose (docs/sandbox.md), created at every sandbox start and
// never in production.
import type { NewOrganization, OrganizationService } from './service.js'

export const SANDBOX_ORGANIZATIONS: readonly NewOrganization[] = [
  { id: 'testrest_reseller', type: 'reseller', name: 'Sandbox reseller' },
  { id: 'testrest_acct', type: 'account', parentId: 'testrest_reseller', name: 'Sandbox account' },
  { id: 'testrest', type: 'merchant', parentId: 'testrest_acct', name: 'Sandbox merchant' },
  { id: 'testrest_two', type: 'merchant', parentId: 'testrest_acct', name: 'Sandbox merchant two' },
  { id: 'othermerchant', type: 'merchant', name: 'Unrelated sandbox merchant' },
]

/** Creates the sandbox organizations, parents first; idempotent. */
export async function ensureSandboxOrganizations(organizations: Pick<OrganizationService, 'ensure'>): Promise<void> {
  for (const organization of SANDBOX_ORGANIZATIONS) await organizations.ensure(organization)
}
