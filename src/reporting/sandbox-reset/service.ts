// The sandbox reset of one organization's reporting data: back to what the sandbox seeded, which for reporting is
// its generated transactions (read-only through the API, so kept as they are) and nothing else: no subscription, no
// report, the clock on real time. One transaction removes the rows; the report files go after it commits (a file
// whose delete fails is left to nobody: its row is gone, so nothing serves it). Other organizations are untouched,
// the organizations below this one included: a reset is of the organization acted for only. A report being generated
// when its row goes finds it gone and records nothing (reports/generate.ts).
import type { BlobStore } from '../../platform/blobs/types.js'
import type { Executor } from '../../platform/db/database.js'
import { invalid } from '../../platform/errors.js'
import { removeOrganizationData } from './repository.js'

export interface SandboxResetSummary {
  subscriptions: number
  reports: number
  /** Whether its clock had been moved (it is now on real time). */
  clock: boolean
}

export interface SandboxReset {
  /** Sandbox mode only: removes the organization's subscriptions, reports (and files) and moved clock. */
  reset(organizationId: string): Promise<SandboxResetSummary>
}

export function createSandboxReset(deps: { db: Executor; blobs: Pick<BlobStore, 'delete'>; sandbox: boolean }): SandboxReset {
  return {
    async reset(organizationId) {
      if (!deps.sandbox) throw invalid([{ reason: 'sandbox data is reset only in sandbox mode' }])
      const removed = await deps.db.transaction().execute((trx) => removeOrganizationData(trx, organizationId))
      for (const key of removed.blobKeys) await deps.blobs.delete(key).catch(() => false)
      return { subscriptions: removed.subscriptions, reports: removed.reports, clock: removed.clock }
    },
  }
}
