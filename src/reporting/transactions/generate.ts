// Stores generated transactions (`finapi transactions generate`, the benchmark) and gives each sandbox merchant
// its 90 days once. Rows go in as prepared multi-row inserts, `ROWS_PER_TRANSACTION` to a transaction, so a
// million rows never sit in memory and no transaction grows without bound.
import { setTimeout as delay } from 'node:timers/promises'
import type { Clock } from '../../platform/clock.js'
import type { Db, Executor } from '../../platform/db/database.js'
import type { Transaction } from './catalog.js'
import { generateTransactions, type GenerateOptions } from './generator.js'
import * as repo from './repository.js'
import { conflict } from '../../platform/errors.js'

/**
 * Small enough that a transaction holds SQLite's one write lock for a few tens of milliseconds: a server on the same
 * database waits that long at most for its own writes (better-sqlite3 waits synchronously, so the whole server
 * waits), never near its busy timeout.
 */
export const ROWS_PER_TRANSACTION = 2_000

/** Longer than SQLite's longest poll of a waiting writer (100 ms), so a server waiting for the lock gets it between two transactions. */
const SQLITE_LOCK_GAP_MS = 110
/** How much writing between two pauses: well inside a waiting server's busy timeout (5 s). */
const SQLITE_LOCK_GAP_EVERY_MS = 1_000

export interface GenerateResult {
  /** Rows stored by this run. */
  rows: number
  byType: Record<string, number>
  /** Rows of this generation an earlier run had stored already (all of them, or those before it was interrupted). */
  skipped: number
}

/**
 * Generates and stores; rows already committed stay if a later transaction fails (the error says how many). The
 * same options give the same rows, and a run stores them in order, so a run again of the same options (a script run
 * twice, or one interrupted) finds an earlier run's rows at the start: those are skipped, and the rest stored.
 * `onProgress` hears of every few statements' rows (rows generated so far, of the total). The planner's statistics
 * are brought up to date once the rows are in (not after a failed run: the rows it kept are a run again's to finish).
 */
export async function storeGenerated(db: Pick<Db, 'kysely' | 'dialect'>, options: GenerateOptions, onProgress: (rows: number, total: number) => void = () => {}): Promise<GenerateResult> {
  const total = options.days * options.perDay
  const byType: Record<string, number> = {}
  let rows = 0
  let generated = 0
  let skipped = 0
  // Looking for an earlier run's rows stops at the first chunk it had not stored.
  let earlierRun = true
  const source = generateTransactions(options)
  let lastGap = performance.now()
  for (;;) {
    const committed = rows + skipped
    // A transaction's rows are generated before it begins, so the write lock is held for the inserts only; memory
    // holds one transaction's rows whatever the total.
    const batch = take(source, ROWS_PER_TRANSACTION)
    if (batch.length === 0) break
    await db.kysely.transaction().execute(async (trx) => {
      for (let start = 0; start < batch.length; start += repo.ROWS_PER_STATEMENT * 4) {
        let chunk = batch.slice(start, start + repo.ROWS_PER_STATEMENT * 4)
        generated += chunk.length
        if (earlierRun) {
          const stored = await storedAlready(trx, options.organizationId, chunk)
          earlierRun = stored.size > 0
          skipped += stored.size
          chunk = chunk.filter((t) => !stored.has(t.requestId))
        }
        if (chunk.length > 0) await insert(trx, db.dialect, chunk, options, committed)
        for (const t of chunk) byType[t.type] = (byType[t.type] ?? 0) + 1
        rows += chunk.length
        onProgress(generated, total)
      }
    })
    if (batch.length < ROWS_PER_TRANSACTION) break
    // SQLite has no queue for its write lock: a server process waiting for it polls (every 100 ms once it has waited
    // a while), and a writer that began its next transaction the moment it committed could keep it waiting past its
    // busy timeout (a 500) on a loaded machine. So after each second of writing, a pause it will find.
    if (db.dialect === 'sqlite' && performance.now() - lastGap >= SQLITE_LOCK_GAP_EVERY_MS) {
      await delay(SQLITE_LOCK_GAP_MS)
      lastGap = performance.now()
    }
  }
  if (rows > 0) await repo.analyzeLoadedTables(db.kysely, db.dialect)
  return { rows, byType, skipped }
}

async function storedAlready(db: Executor, organizationId: string, chunk: readonly Transaction[]): Promise<Set<string>> {
  const stored = new Set<string>()
  for (let start = 0; start < chunk.length; start += repo.ROWS_PER_STATEMENT) {
    for (const id of await repo.existingRequestIds(db, organizationId, chunk.slice(start, start + repo.ROWS_PER_STATEMENT).map((t) => t.requestId))) stored.add(id)
  }
  return stored
}

/** Inserts; a request id stored by something else (an import that happened to use it) is a one-line refusal, not a database error. */
async function insert(db: Executor, dialect: Db['dialect'], chunk: readonly Transaction[], options: GenerateOptions, committed: number): Promise<void> {
  try {
    await repo.insertTransactions(db, dialect, chunk)
  } catch (err) {
    const code = String((err as { code?: unknown }).code)
    if (code !== '23505' && !code.startsWith('SQLITE_CONSTRAINT')) throw err
    const reason = `a request id generated for organization ${options.organizationId} is stored already, by something other than an earlier run with these options`
    throw conflict([{ field: 'seed', reason: `${reason} (${committed} of ${options.days * options.perDay} rows are stored; try another --seed)` }], { cause: err })
  }
}

function take(source: Iterator<Transaction>, n: number): Transaction[] {
  const out: Transaction[] = []
  while (out.length < n) {
    const next = source.next()
    if (next.done) break
    out.push(next.value)
  }
  return out
}

/** The sandbox merchants (organization ids) whose reports have data from the first start. */
export const SANDBOX_MERCHANTS = ['testrest', 'testrest_two', 'othermerchant'] as const
export const SANDBOX_DAYS = 90
export const SANDBOX_PER_DAY = 50
/** Rows generated and inserted together when the sandbox's data is loaded (one multi-row statement's worth). */
export const SANDBOX_ROWS_PER_INSERT = repo.ROWS_PER_STATEMENT

/**
 * Gives each sandbox merchant SANDBOX_DAYS days of generated transactions ending on the clock's date, once. Each
 * merchant's rows are written in one transaction that first claims the merchant's row in
 * transaction_sandbox_loads: a second process starting at the same time waits for that row and then finds it
 * taken, so the data is never generated twice (even when the two processes' dates differ). Returns the merchants
 * it generated for.
 */
export async function ensureSandboxTransactions(db: Pick<Db, 'kysely' | 'dialect'>, clock: Clock, perDay = SANDBOX_PER_DAY): Promise<string[]> {
  const end = clock.now().toISOString().slice(0, 10)
  const generated: string[] = []
  for (const organizationId of SANDBOX_MERCHANTS) {
    if (await repo.hasSandboxLoad(db.kysely, organizationId)) continue
    const options: GenerateOptions = { organizationId, days: SANDBOX_DAYS, perDay, seed: `sandbox:${organizationId}`, end }
    const created = await inOneTransaction(db, organizationId, async (trx) => {
      const claimed = await repo.claimSandboxLoad(trx, { organizationId, seed: options.seed, endDate: end, rows: options.days * perDay, createdAt: clock.now().toISOString() })
      if (!claimed) return false
      // Generated and stored a statement's rows at a time: a merchant's 4,500 rows and their inserts' garbage at once
      // took a fresh server's heap (and so its peak RSS) up by about 90 MB before its first request. The write lock
      // is held while they are generated too (about a second on a loaded machine): a second process starting at once
      // waits within its busy timeout (5 s), and inOneTransaction tries again if it does not.
      const source = generateTransactions(options)
      for (let batch = take(source, SANDBOX_ROWS_PER_INSERT); batch.length > 0; batch = take(source, SANDBOX_ROWS_PER_INSERT)) {
        await repo.insertTransactions(trx, db.dialect, batch)
      }
      return true
    })
    if (created) generated.push(organizationId)
  }
  // The first reports of a fresh sandbox plan with statistics of the rows just stored.
  if (generated.length > 0) await repo.analyzeLoadedTables(db.kysely, db.dialect)
  return generated
}

/**
 * A SQLite process that waited past its busy timeout fails: if the other process has loaded the merchant meanwhile,
 * that is fine; if it is still writing, try again (a few times: a loaded machine can be slow).
 */
async function inOneTransaction(db: Pick<Db, 'kysely'>, organizationId: string, fn: (trx: Executor) => Promise<boolean>): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.kysely.transaction().execute(fn)
    } catch (err) {
      if (await repo.hasSandboxLoad(db.kysely, organizationId)) return false
      if (attempt >= BUSY_ATTEMPTS || (err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err
    }
  }
}

const BUSY_ATTEMPTS = 4
