// The sandbox's reporting keys: constants, public on purpose (docs/sandbox.md), registered at every sandbox start
// (after the sandbox organizations they belong to) and never in production, where a database holding an active one
// refuses to serve.
import type { ReportingKeyService } from './service.js'

export const SANDBOX_REPORTING_KEYS = [
  { id: '08c94330-f618-42a3-b09d-e1e43be5efda', organizationId: 'testrest', secret: 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=' },
  { id: '8f4572ed-8673-4277-8e6d-59dbf3a7c03a', organizationId: 'testrest_acct', secret: 'zFIcTvT1qSaLNQfyFqfHwHuc8ZwV123cMYfiaSjFP9U=' },
  { id: '41bd796c-eed9-465a-96e9-daaa9401663e', organizationId: 'othermerchant', secret: 'CwT7n9G317fficZNrnG752w9f/CmQsJq6Maghb3YIFs=' },
] as const

/** (Re)activates the sandbox keys; idempotent. Their organizations must exist. */
export async function ensureSandboxKeys(reportingKeys: Pick<ReportingKeyService, 'ensure'>): Promise<void> {
  for (const key of SANDBOX_REPORTING_KEYS) await reportingKeys.ensure(key)
}

/**
 * The ids of sandbox keys active in this database: in production there must be none. Read from the rows, not by
 * unsealing, since a production SECRETS_KEY cannot open what a sandbox start sealed.
 */
export async function activeSandboxKeys(reportingKeys: Pick<ReportingKeyService, 'list'>): Promise<string[]> {
  const sandboxIds = new Set<string>(SANDBOX_REPORTING_KEYS.map((k) => k.id))
  return (await reportingKeys.list()).filter((k) => k.status === 'active' && sandboxIds.has(k.id)).map((k) => k.id)
}
