// Every write this process makes through Kysely is told to the change signal (changes.ts) under its table's name,
// once it has committed: a statement on its own as it returns, a transaction's statements when its COMMIT returns
// (none if it rolls back). So a service that remembers rows needs no call of its own after each write, and a read
// that began before the commit cannot be kept as current after it. The driver is where this can be seen for every
// statement: a plugin sees only the statements it compiles, not those compiled once and run many times. Raw SQL
// (`sql` templates, `CompiledQuery.raw`) is not recognised: outside the migrations only the transactions' bulk loader
// writes that way, and no memory keeps transactions.
import { AliasNode, TableNode, type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type RootOperationNode, type TransactionSettings } from 'kysely'
import type { ChangeSignal } from './changes.js'

/** The table an INSERT, UPDATE or DELETE writes, or undefined for any other statement. */
function writtenTable(node: RootOperationNode): string | undefined {
  const target = node.kind === 'InsertQueryNode' ? node.into : node.kind === 'UpdateQueryNode' ? node.table : node.kind === 'DeleteQueryNode' ? node.from.froms[0] : undefined
  if (target === undefined) return undefined
  // An aliased table (`updateTable('t as x')`) is an AliasNode around the TableNode.
  const table = AliasNode.is(target) ? target.node : target
  return TableNode.is(table) ? table.table.identifier.name : undefined
}

class AnnouncingDriver implements Driver {
  readonly #inner: Driver
  readonly #changes: ChangeSignal
  /** Each connection of the inner driver's, once wrapped. */
  readonly #wrapped = new WeakMap<DatabaseConnection, AnnouncingConnection>()

  constructor(inner: Driver, changes: ChangeSignal) {
    this.#inner = inner
    this.#changes = changes
  }

  init(): Promise<void> {
    return this.#inner.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection()
    let connection = this.#wrapped.get(inner)
    if (connection === undefined) {
      connection = new AnnouncingConnection(inner, this.#changes)
      this.#wrapped.set(inner, connection)
    }
    return connection
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as AnnouncingConnection
    await this.#inner.beginTransaction(c.inner, settings)
    c.pending = new Set()
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as AnnouncingConnection
    const written = c.pending
    c.pending = undefined
    await this.#inner.commitTransaction(c.inner)
    if (written) for (const table of written) this.#changes.changed(table)
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as AnnouncingConnection
    c.pending = undefined
    await this.#inner.rollbackTransaction(c.inner)
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    if (!this.#inner.savepoint) throw new Error('the database driver has no savepoints')
    await this.#inner.savepoint((connection as AnnouncingConnection).inner, name, compile)
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]): Promise<void> {
    if (!this.#inner.rollbackToSavepoint) throw new Error('the database driver has no savepoints')
    // What was written since the savepoint may be told at the commit all the same: a change told that did not
    // happen only costs a read.
    await this.#inner.rollbackToSavepoint((connection as AnnouncingConnection).inner, name, compile)
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]): Promise<void> {
    if (!this.#inner.releaseSavepoint) throw new Error('the database driver has no savepoints')
    await this.#inner.releaseSavepoint((connection as AnnouncingConnection).inner, name, compile)
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection((connection as AnnouncingConnection).inner)
  }

  destroy(): Promise<void> {
    return this.#inner.destroy()
  }
}

class AnnouncingConnection implements DatabaseConnection {
  /** The tables written in the transaction in progress on this connection, told when it commits. */
  pending: Set<string> | undefined

  constructor(
    readonly inner: DatabaseConnection,
    private readonly changes: ChangeSignal,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(compiled)
    const table = writtenTable(compiled.query)
    if (table !== undefined) {
      if (this.pending) this.pending.add(table)
      else this.changes.changed(table)
    }
    return result
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize)
  }
}

/** `dialect`, its driver telling `changes` of each committed write (above). */
export function announcingWrites(dialect: Dialect, changes: ChangeSignal): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new AnnouncingDriver(dialect.createDriver(), changes),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  }
}
