// Opens the one database the process uses: SQLite through better-sqlite3 (the zero-setup default) or
// PostgreSQL through pg (several server processes sharing one database).
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import SQLite from 'better-sqlite3'
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, sql, type DatabaseConnection, type Driver, type SqliteDatabase, type SqliteDialectConfig } from 'kysely'
import pg from 'pg'
import { systemClock } from '../clock.js'
import { builtScript } from '../thread-script.js'
import { READER_MODULES, threadReads, type BulkReads, type ThreadReads } from './bulk-reader.js'
import { announcingWrites } from './announced-writes.js'
import { postgresChanges, sqliteChanges, type ChangeSignal } from './changes.js'
import type { Database } from './schema.js'
import { ARRAY_STATEMENT_CACHE_SIZE, statementCache } from './statement-cache.js'

export type Dialect = 'sqlite' | 'postgres'
export type { BulkReads, ChangeSignal }

/** What repository functions take: the database handle or a transaction (the service owns the boundary). */
export type Executor = Kysely<Database>

export interface Db {
  readonly kysely: Kysely<Database>
  readonly dialect: Dialect
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>
  close(): Promise<void>
  /**
   * Runs `fn` holding the database's write lock, all or nothing, for schema changes: Kysely's migrator takes a lock
   * on PostgreSQL but none on SQLite, where two processes starting at once would both apply the same migration.
   */
  exclusively<T>(fn: () => Promise<T>): Promise<T>
  /** Bulk reads for reports: rows as arrays, with no object per row (see BulkReads). */
  readonly bulk: BulkReads
  /** Whether any process may have changed what this one remembers (changes.ts). */
  readonly changes: ChangeSignal
}

export interface OpenOptions {
  /**
   * An idle PostgreSQL connection that fails (the server restarted, an administrator ended it, the network dropped)
   * is reported here and the pool replaces it on the next query. pg emits it as an 'error' event on the pool, which
   * with no listener would end the process. By default a line on stderr.
   */
  onConnectionError?: (error: Error) => void
  /**
   * PostgreSQL: the connection that listens for changes (changes.ts) failed or could not be opened; until it is back,
   * what is remembered is read again on every use. By default a line on stderr.
   */
  onListenerError?: (error: Error) => void
  /**
   * SQLite: told once when a report's pages are read on the event loop's thread for want of the reader thread (its
   * build missing or stale, or the thread failed). By default a line on stderr.
   */
  warn?: (message: string) => void
}

export function openDatabase(url: string, options: OpenOptions = {}): Db {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options.warn ?? ((message) => process.stderr.write(`${message}\n`)))
  if (/^postgres(ql)?:\/\//.test(url)) {
    const onConnectionError = options.onConnectionError ?? ((error) => process.stderr.write(`database connection lost while idle: ${error.message}\n`))
    const onListenerError = options.onListenerError ?? ((error) => process.stderr.write(`database: the change listener's connection failed (${error.message}); remembered rows are read on every use until it is back\n`))
    return openPostgres(url, onConnectionError, onListenerError)
  }
  throw new Error(`Unsupported DATABASE_URL scheme: ${url.split(':')[0]}`)
}

function openSqlite(path: string, warn: (message: string) => void): Db {
  const inMemory = path === ':memory:'
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true })
  const native = new SQLite(inMemory ? ':memory:' : resolve(path))
  // WAL lets readers run beside the writer and survives a crash without losing committed transactions.
  native.pragma('journal_mode = WAL')
  native.pragma('synchronous = NORMAL')
  native.pragma('foreign_keys = ON')
  // Another process (a CLI command, a second server) may hold the write lock for a moment.
  native.pragma('busy_timeout = 5000')
  const changes = sqliteChanges(native)
  const kysely = new Kysely<Database>({ dialect: announcingWrites(new ImmediateSqliteDialect({ database: withStatementCache(native) }), changes) })
  const db = wrap(kysely, 'sqlite')
  // Their own statements: raw mode is a statement's state, and Kysely's cached statements must keep answering objects.
  const arrayStatement = statementCache(ARRAY_STATEMENT_CACHE_SIZE, (text) => native.prepare(text).raw(true))
  const inline: BulkReads = {
    // Kysely's connection() waits for any transaction in progress, so a bulk read never sees another's uncommitted rows.
    arrays: (query) => kysely.connection().execute(async () => arrayStatement(query.sql).all(...query.parameters) as unknown[][]),
  }
  // A file's bulk reads run on a thread of its own (bulk-reader.ts), found with the first; a database in memory can
  // only be read through this connection.
  let reads: ThreadReads | BulkReads | undefined = inMemory ? inline : undefined
  const bulk = (): BulkReads => {
    if (reads) return reads
    const script = builtScript(new URL('./', import.meta.url), 'reader-thread', READER_MODULES)
    if (!script) warn("database: report pages are read on the event loop, the reader thread's build (dist/) being missing or older than its sources; run `npm run build`")
    reads = script
      ? threadReads({ path: resolve(path), script, inline, clock: systemClock, onError: (err) => warn(`database: the reader thread failed (${err.message}); report pages are read on the event loop from now on`) })
      : inline
    return reads
  }
  return {
    ...db,
    bulk: { arrays: (query) => bulk().arrays(query), release: () => reads?.release?.() },
    changes,
    async close() {
      if (reads && 'close' in reads) await reads.close()
      await db.close()
    },
    // BEGIN IMMEDIATE takes the write lock at once (waiting up to busy_timeout for another process's); the migrator's
    // statements run on this same single connection, inside it.
    async exclusively(fn) {
      native.exec('BEGIN IMMEDIATE')
      try {
        const result = await fn()
        native.exec('COMMIT')
        return result
      } catch (err) {
        if (native.inTransaction) native.exec('ROLLBACK')
        throw err
      }
    },
  }
}

/**
 * Transactions begin IMMEDIATE: the write lock is taken (waiting up to busy_timeout for another process's) before
 * the first statement. A deferred transaction that reads and then writes while another process (a CLI command
 * beside the server) has written meanwhile fails at once with SQLITE_BUSY, without waiting: its snapshot is stale.
 * Every transaction here writes, so nothing is lost by taking the lock up front.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig
  constructor(config: SqliteDialectConfig) {
    super(config)
    this.#config = config
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config)
  }
}

const STATEMENT_CACHE_SIZE = 500

/** Kysely's SQLite driver prepares every query anew: its statements are kept by their text (statement-cache.ts). */
function withStatementCache(native: SQLite.Database): SqliteDatabase {
  const prepare = statementCache(STATEMENT_CACHE_SIZE, (text) => native.prepare(text))
  return { close: () => native.close(), prepare }
}

function openPostgres(url: string, onConnectionError: (error: Error) => void, onListenerError: (error: Error) => void): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  pool.on('error', onConnectionError)
  const changes = postgresChanges(url, onListenerError)
  const db = wrap(new Kysely<Database>({ dialect: announcingWrites(new PostgresDialect({ pool }), changes) }), 'postgres')
  return {
    ...db,
    bulk: {
      arrays: async (query) => (await pool.query<unknown[]>({ text: query.sql, values: [...query.parameters], rowMode: 'array' })).rows,
    },
    changes,
    async close() {
      await changes.close()
      await db.close()
    },
  }
}

function wrap(kysely: Kysely<Database>, dialect: Dialect): Omit<Db, 'bulk' | 'changes'> {
  return {
    kysely,
    dialect,
    ping: async () => {
      await sql`select 1`.execute(kysely)
    },
    close: () => kysely.destroy(),
    // PostgreSQL: the migrator's own advisory lock already serialises processes.
    exclusively: (fn) => fn(),
  }
}
