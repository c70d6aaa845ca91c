// The API request log as one descriptor: no routes of its own (the console reads it through its service, an operator
// through `finapi requests find`), the app's per-request observer, its table, its pruning, its counters, and the
// last batch written when the app closes.
import * as m0022 from '../migrations/0022_request_log.js'
import * as m0024 from '../migrations/0024_request_log_correlation.js'
import * as m0025 from '../migrations/0025_request_log_rowid.js'
import type { Clock } from '../platform/clock.js'
import { LabelledCounter } from '../platform/counters.js'
import type { Db } from '../platform/db/database.js'
import type { Feature } from '../platform/feature.js'
import { requestLogCommands } from './cli.js'
import { createRecorder, type RecorderOptions, type RecorderOutcome } from './recorder.js'
import { createRequestLogService, type RequestLogService } from './service.js'
import { inlineWriter, threadScript, threadWriter } from './writer.js'

export interface RequestLogSettings {
  /** REQUEST_LOG: off records nothing (a deployment that must not keep call metadata, a load test's baseline). */
  enabled: boolean
  retentionDays: number
  /** REQUEST_LOG_INTERVAL_MS: how long a batch's first call waits for more before the batch is written. */
  intervalMs: number
  /** Tests: the buffer's bound and batch size. */
  recorder?: Partial<RecorderOptions>
}

export function requestLogFeature(deps: {
  db: Pick<Db, 'kysely'>
  /** DATABASE_URL, which the writer thread opens its own connection with. */
  databaseUrl: string
  clock: Clock
  settings: RequestLogSettings
  onError: (err: unknown) => void
  /** Says once why the rows are written on the event loop when a thread was wanted. */
  warn: (message: string) => void
}): Feature<RequestLogService> {
  const outcomes = new LabelledCounter<RecorderOutcome>('request_log_rows_total', 'API calls the request log wrote, or dropped (buffer full while the database could not keep up, or a batch the database refused)', 'outcome')
  const inline = inlineWriter(deps.db)
  // Off, no thread is ever started; on, it starts with the first batch.
  const wanted = deps.settings.enabled && deps.databaseUrl !== 'sqlite::memory:'
  const script = wanted ? threadScript() : undefined
  if (wanted && !script) deps.warn("request log: its rows are written on the event loop, the writer thread's build (dist/) being missing or older than its sources; run `npm run build`")
  const writer = script ? threadWriter({ url: deps.databaseUrl, fallback: inline, onError: deps.onError, script }) : inline
  const recorder = createRecorder({ writer, clock: deps.clock, outcomes, onError: deps.onError, options: { intervalMs: deps.settings.intervalMs, ...deps.settings.recorder } })
  const requestLog = createRequestLogService({ db: deps.db, clock: deps.clock, recorder, retentionDays: deps.settings.retentionDays })
  return {
    name: 'requestLog',
    services: requestLog,
    migrations: { '0022_request_log': m0022, '0024_request_log_correlation': m0024, '0025_request_log_rowid': m0025 },
    housekeeping: [{ name: 'request log calls', prune: () => requestLog.prune() }],
    counters: [outcomes],
    commands: requestLogCommands,
    // Off, the app is told of no request's end: recording costs nothing then.
    requestCompleted: deps.settings.enabled ? requestLog.requestCompleted : undefined,
    close: () => recorder.close(),
  }
}
