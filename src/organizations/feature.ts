// The organization tree as one descriptor: resellers → accounts → merchants, and "may X act for Y" for the merchant
// API family. No routes of its own (operators manage it with `finapi orgs`); its table, and the sandbox's tree.
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import * as m0010 from '../migrations/0010_organizations.js'
import { ensureSandboxOrganizations } from './sandbox.js'
import { createOrganizationService, type OrganizationService } from './service.js'

export function organizationsFeature(deps: { db: Pick<Db, 'kysely'>; clock: Clock }): Feature<OrganizationService> {
  const organizations = createOrganizationService(deps)
  return {
    name: 'organizations',
    services: organizations,
    migrations: { '0010_organizations': m0010 },
    sandbox: { seed: () => ensureSandboxOrganizations(organizations) },
  }
}
