// Table types of the organization tree (migration 0010).

export type OrganizationType = 'reseller' | 'account' | 'merchant'

/** A reseller, account or merchant; the id is the merchant id clients send (`v-c-merchant-id`, `organizationId`). */
export interface OrganizationsTable {
  id: string
  type: OrganizationType
  parent_id: string | null
  name: string
  created_at: string
}

/** The organization tree's tables, by name: its part of the Database type (platform/db/schema.ts). */
export interface OrganizationsTables {
  organizations: OrganizationsTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    organizations: OrganizationsTables
  }
}
