// The process entry for `finapi serve`: opens the database, builds the app, listens, and shuts down gracefully
// on SIGTERM/SIGINT (stop accepting, let in-flight requests finish, close the database).
import { setFlagsFromString } from 'node:v8'
import { buildApp } from './app.js'
import { prepareDatabase } from './bootstrap.js'
import { createServices } from './services.js'
import type { Config } from './config.js'
import { systemClock } from './platform/clock.js'
import { openDatabase } from './platform/db/database.js'
import { collectGarbage } from './platform/heap.js'
import { createLogger } from './platform/logger.js'
import { bufferedLogDestination } from './platform/log-destination.js'
import { terminalLogDestination } from './platform/terminal-log.js'

const SHUTDOWN_GRACE_MS = 10_000
/** Log bytes held before they are written; flushed on shutdown and on a fatal error. */
const LOG_CHUNK_BYTES = 65_536
/** A quiet server's lines still appear within this. */
const LOG_FLUSH_MS = 250

/**
 * How far V8 lets the old generation grow past what its last full collection left live before collecting again:
 * 1.5 times. By default it allows up to four times when collections look cheap, and a report's rows that live across
 * two young collections (a page being formatted while the next is read) are promoted there: a 1,000,000-row report
 * took a server's peak RSS from about 160 MB to 300-330 MB, with about 40 MB live. With 50 % it peaked at 194 MB.
 * V8 reads the flag each time it sets the next limit, so setting it here, after start-up, works; a
 * --heap-growing-percent given on the command line is kept.
 */
const HEAP_GROWING_PERCENT = 50

/**
 * V8's flags the server sets for itself (each unless the command line names it), so that no user needs to know them.
 * `--no-allocation-site-pretenuring`: V8 watches which allocation sites' objects survive young collections and, past
 * a threshold, allocates that site's objects in the old generation from then on. Bulk work (the sandbox's data
 * generated at start-up, a report's pages, an import) can make sites it shares with request handling look
 * long-lived, and the decision outlives it. In some runs of a fresh `npm start` (once of a restarted one), requests'
 * short-lived objects then went to the old generation: each young collection took 5-9 ms instead of under 1 (it scans
 * the old objects that point into the young generation), a full collection ran about every second, and an account
 * read cost 1.3-1.6 times the CPU of the same read on a server started again on the same data. With it off, no run
 * did (bench/after-bulk.ts; docs/benchmarks.md).
 */
const V8_FLAGS = [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '--no-allocation-site-pretenuring']

/** The server's V8 flags that the command line (`node --flag bin/finapi.js serve`) does not name: it wins. */
export function v8FlagsToSet(execArgv: readonly string[]): string[] {
  // `--no-foo_bar=1` and `--foo-bar` name the same flag.
  const name = (arg: string) => arg.replace(/^--(no-)?/, '').replace(/=.*$/, '').replaceAll('_', '-')
  return V8_FLAGS.filter((flag) => !execArgv.some((arg) => name(arg) === name(flag)))
}

export async function serve(config: Config): Promise<void> {
  for (const flag of v8FlagsToSet(process.execArgv)) setFlagsFromString(flag)
  // Log lines are held in memory and written a chunk at a time, so a request never waits on a write to stdout; what
  // is held is written out on shutdown and before the process dies of an unexpected error.
  // A person at a terminal reads one short line per request (terminal-log.ts); everything else (files, pipes,
  // collectors) gets JSON. A terminal's lines go out on the next turn of the event loop rather than within 250 ms.
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true)
  const destination = bufferedLogDestination({ fd: 1, chunkBytes: LOG_CHUNK_BYTES, flushMs: readable ? 0 : LOG_FLUSH_MS, clock: systemClock })
  const logger = createLogger(config.logLevel, readable ? terminalLogDestination({ write: (text) => destination.write(text), colors: process.stdout.isTTY === true }) : destination)
  const flush = () => destination.flushSync()
  process.once('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception; exiting')
    flush()
    process.exit(1)
  })
  const db = openDatabase(config.databaseUrl, {
    onConnectionError: (err) => logger.warn({ err }, 'database connection lost while idle; the pool replaces it'),
    onListenerError: (err) => logger.warn({ err }, 'database: the change listener\'s connection failed; reporting keys are read on every call until it is back'),
    warn: (message) => logger.warn(message),
  })
  const infrastructure = { db, clock: systemClock, logger }
  const services = createServices(config, infrastructure)
  await prepareDatabase(config, infrastructure, services)
  // Start-up's bulk work (a fresh sandbox's data: hashing, 13,500 generated transactions) leaves tens of MB of garbage,
  // and V8 sets its next limit (HEAP_GROWING_PERCENT over what is live) at whichever full collection comes next: one
  // during that work put the limit 40 MB higher, and a 1,000,000-row report started at once then peaked at 264-276 MB
  // in a third of runs instead of about 240. Collected now, the limit follows what the server keeps (a fresh sandbox
  // at rest: 175 MB instead of 183-190). See docs/operations.md, "Memory and V8's settings".
  collectGarbage()
  const app = await buildApp({ config, ...infrastructure, services })
  await app.listen({ host: config.host, port: config.port })

  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  const banner = [
    `finapi ${config.mode} mode on ${db.dialect}, listening on ${base}`,
    `  API:  ${base}/v2/  (every call: x-svc-key, User-Agent, ?v=1)`,
    `  Docs: ${base}/docs`,
  ]
  if (config.mode === 'sandbox') banner.push(`  Sandbox key (x-svc-key): ${config.sandboxApiKey}`)
  process.stdout.write(banner.join('\n') + '\n')

  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    logger.info({ signal }, 'shutting down: draining in-flight requests')
    systemClock.setTimer(SHUTDOWN_GRACE_MS, () => {
      logger.error('in-flight requests did not finish in time; exiting')
      flush()
      process.exit(1)
    })
    try {
      await app.close()
      await db.close()
      logger.info('shut down cleanly')
      process.exitCode = 0
    } catch (err) {
      logger.error({ err }, 'shutdown failed')
      process.exitCode = 1
    }
    flush()
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))
}
