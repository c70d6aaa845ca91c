// Generating one report: the job handler of REPORT_JOB. The job's claim is the one lease (renewed while the file
// is written, so a crashed process lets the report go after REPORT_LEASE_SECONDS); the run that holds it marks the
// instance RUNNING under its token, streams the window's rows from the store through the format's writer and gzip
// into the blob store (constant memory whatever the row count), and records the outcome together with its event
// in one transaction, only if it still holds the instance. A run that lost its claim records nothing and removes
// its own file, so a report is never recorded twice; a failed run is retried with the job's backoff, and the last
// attempt ends in ERROR.
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import type { BlobStore } from '../../platform/blobs/types.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import type { JobInfo } from '../../platform/jobs/types.js'
import { every } from '../../platform/timers.js'
import type { DefinitionsService } from '../report-definitions/service.js'
import type { TransactionType } from '../transactions/catalog.js'
import type { ReportRow, ReportRowQuery, TransactionService } from '../transactions/service.js'
import type { ReportingClock } from '../clocks/service.js'
import { EXTENSIONS, fileWriter, negate, NEGATIVE_TYPES, SIGNED_FIELDS, type ReportFormat } from './formats.js'
import type { ReportMetrics } from './metrics.js'
import type { ReportJob } from './queue.js'
import { finishRun, getInstance, insertEvent, requeueRun, startRun, type InstanceRow, type RunResult } from './repository.js'
import type { SearchResult } from './schemas.js'
import { searchResult } from './view.js'
import { formatInZone } from '../zoned-time.js'

/** What the webhooks feature is told when a report ends, inside the transaction that records it. */
export interface ReportFinishedEvent {
  eventId: string
  type: 'COMPLETED' | 'NO_DATA' | 'ERROR'
  organizationId: string
  reportId: string
  /** Which run of the instance ended (a retry is a new run). */
  run: number
  occurredAt: string
  report: SearchResult
}

/** Called with the recording transaction: write an outbox row there and it commits (or not) with the outcome. */
export type ReportFinishedHook = (event: ReportFinishedEvent, tx: Executor) => Promise<void>

export interface GeneratorDeps {
  db: Executor
  clock: Clock
  blobs: BlobStore
  transactions: Pick<TransactionService, 'reportRows'>
  definitions: Pick<DefinitionsService, 'find'>
  reportingClock: ReportingClock
  sandbox: boolean
  leaseMs: number
  metrics?: ReportMetrics
  onReportFinished?: ReportFinishedHook
  /** Told of each report this process finished (a log line). */
  log?: (fields: Record<string, unknown>, message: string) => void
  /** Rows written so far of the report being generated (the CLI's progress line). */
  onProgress?: (instanceId: string, rows: number) => void
  pageSize?: number
}

/** Which transactions a definition reports on: by request time and of every type, unless it says otherwise. */
const ROW_SCOPE: Readonly<Record<string, { by?: 'submissionTime'; types?: TransactionType[] }>> = {
  PaymentBatchDetailClass: { by: 'submissionTime' },
  ProcessorSettlementDetailClass: { by: 'submissionTime' },
  ChargebackAndRetrievalDetailClass: { types: ['chargeback'] },
}

/** Speed over size: level 1 compresses CSV about 4:1 at several times level 6's pace. */
const GZIP_LEVEL = 1
/** Fewer, larger hand-offs to gzip and to the store: each costs a few stream callbacks and, on disk, a write. */
const CHUNK_CHARS = 256 * 1024
const GZIP_CHUNK_BYTES = 64 * 1024

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000)

export function createReportGenerator(deps: GeneratorDeps): (payload: ReportJob, job: JobInfo) => Promise<void> {
  const { db, clock, blobs } = deps

  async function produce(row: InstanceRow, run: number, lost: () => boolean): Promise<RunResult> {
    const none = { rowCount: null, contentBytes: null, storedBytes: null, sha256: null, blobKey: null, error: null }
    // Documented sandbox names: a report whose name ends in NO_DATA or ERROR always ends so.
    if (deps.sandbox && row.report_name.endsWith('NO_DATA')) return { ...none, status: 'NO_DATA', rowCount: 0 }
    if (deps.sandbox && row.report_name.endsWith('ERROR')) return { ...none, status: 'ERROR', error: 'sandbox: a report whose name ends in ERROR always fails' }

    const fields = JSON.parse(row.report_fields) as string[]
    const filters = JSON.parse(row.report_filters) as Record<string, string[]>
    const prefs = JSON.parse(row.report_preferences) as { signedAmounts: boolean; fieldNameConvention: string }
    const scope = (Object.hasOwn(ROW_SCOPE, row.report_definition_name) ? ROW_SCOPE[row.report_definition_name] : undefined) ?? {}
    const query: ReportRowQuery = { organizationId: row.organization_id, by: scope.by ?? 'requestTime', from: row.window_start, to: row.window_end, types: scope.types, filters }
    const pages = deps.transactions.reportRows(query, fields, deps.pageSize)[Symbol.asyncIterator]()
    const first = await pages.next()
    if (first.done || first.value.length === 0) return { ...none, status: 'NO_DATA', rowCount: 0 }

    const format = row.report_mime_type as ReportFormat
    const writer = fileWriter(format, {
      organizationId: row.organization_id,
      reportName: row.report_name,
      reportDefinitionName: row.report_definition_name,
      reportStartTime: formatInZone(Date.parse(row.window_start), row.timezone),
      reportEndTime: formatInZone(Date.parse(row.window_end), row.timezone),
      timezone: row.timezone,
      fields,
      fieldNameConvention: prefs.fieldNameConvention,
    })
    // Indexes in a row (its type at 0, then the fields) of the amounts signedAmounts signs.
    const signed = prefs.signedAmounts ? fields.flatMap((f, i) => (SIGNED_FIELDS.has(f) ? [i + 1] : [])) : []
    const values = (r: ReportRow) => {
      if (signed.length && NEGATIVE_TYPES.has(r[0])) for (const i of signed) r[i] = negate(r[i]!)
      return r
    }
    let count = 0
    let bytes = 0
    async function* content(): AsyncGenerator<Buffer> {
      let chunk = writer.head()
      for (let page: IteratorResult<ReportRow[]> = first; !page.done; page = await pages.next()) {
        for (const r of page.value) {
          chunk += writer.row(values(r))
          if (chunk.length >= CHUNK_CHARS) {
            const buffer = Buffer.from(chunk)
            bytes += buffer.length
            chunk = ''
            yield buffer
          }
        }
        count += page.value.length
        if (lost()) throw new Error('the job lease was lost; another process has the report')
        deps.onProgress?.(row.id, count)
      }
      const buffer = Buffer.from(chunk + writer.tail())
      bytes += buffer.length
      yield buffer
    }
    const gzip = createGzip({ level: GZIP_LEVEL, chunkSize: GZIP_CHUNK_BYTES })
    pipeline(Readable.from(content()), gzip).catch((err: unknown) => gzip.destroy(err as Error))
    const blobKey = `reports/${row.organization_id}/${row.id}/${run}.${EXTENSIONS[format] ?? 'dat'}.gz`
    const stored = await blobs.put(blobKey, gzip, { contentType: 'application/gzip' })
    deps.onProgress?.(row.id, count)
    return { status: 'COMPLETED', rowCount: count, contentBytes: bytes, storedBytes: stored.size, sha256: stored.sha256, blobKey, error: null }
  }

  /** Records the outcome and its event in one transaction, if this run still holds the instance. */
  async function finish(row: InstanceRow, token: string, result: RunResult, now: () => string): Promise<boolean> {
    const recorded = await db.transaction().execute(async (tx) => {
      const at = now()
      if (!(await finishRun(tx, row.id, token, result, at))) return false
      const ended: InstanceRow = { ...row, ...{ status: result.status, completed_at: at } }
      const event: ReportFinishedEvent = {
        eventId: `${row.id}.${row.runs}`,
        type: result.status,
        organizationId: row.organization_id,
        reportId: row.id,
        run: row.runs,
        occurredAt: at,
        report: searchResult(ended, deps.definitions.find(row.report_definition_name)?.id),
      }
      await insertEvent(tx, { id: event.eventId, instance_id: row.id, run: row.runs, organization_id: row.organization_id, event_type: result.status, payload: JSON.stringify(event), created_at: at })
      await deps.onReportFinished?.(event, tx)
      return true
    })
    if (recorded) deps.log?.({ reportId: row.id, organizationId: row.organization_id, status: result.status, rows: result.rowCount, run: row.runs }, 'report finished')
    if (!recorded && result.blobKey) await blobs.delete(result.blobKey).catch(() => false)
    // A retry's new file replaces the last run's.
    if (recorded && row.blob_key && row.blob_key !== result.blobKey) await blobs.delete(row.blob_key).catch(() => false)
    return recorded
  }

  return async function generate(payload, job) {
    const current = await getInstance(db, payload.instanceId)
    // Finished, queued again under another job, or removed: nothing for this job to do.
    if (!current || (current.status !== 'QUEUED' && current.status !== 'RUNNING')) return
    const offset = await deps.reportingClock.offset(current.organization_id)
    const now = () => new Date(clock.now().getTime() + offset).toISOString()
    const token = `${job.id}:${job.attempt}`
    const row = await startRun(db, current.id, token, now())
    if (!row) return
    const due = Date.parse(row.subscription_name !== null ? row.window_end : (row.queued_at ?? row.window_end))
    deps.metrics?.lag((Date.parse(row.started_at!) - due) / 1000)
    const began = performance.now()
    let lost = false
    const stopHeartbeat = every(clock, Math.max(100, Math.floor(deps.leaseMs / 3)), async () => void (lost = !(await job.renewLease()) || lost), () => {})
    let status = 'ERROR'
    try {
      const result = await produce(row, row.runs, () => lost)
      status = result.status
      await finish(row, token, result, now)
    } catch (err) {
      if (lost) throw err
      if (job.attempt >= job.maxAttempts) {
        await finish(row, token, { status: 'ERROR', rowCount: null, contentBytes: null, storedBytes: null, sha256: null, blobKey: null, error: describe(err) }, now)
        return
      }
      await requeueRun(db, row.id, token, describe(err), now())
      throw err
    } finally {
      stopHeartbeat()
      deps.metrics?.generated((performance.now() - began) / 1000, status)
    }
  }
}
