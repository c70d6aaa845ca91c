// Queries that run on every request of a hot read, compiled once per handle and only re-bound: building and
// compiling a Kysely query each time costs more than better-sqlite3 running it. The handle is the key (a WeakMap),
// so a transaction or a second database gets its own compilation in its own dialect.
import type { Compilable, CompiledQuery } from 'kysely'
import type { Executor } from './database.js'

/** The query `build` gives, compiled the first time each handle asks for it. */
function compiledPerHandle<R>(build: (db: Executor) => Compilable<R>): (db: Executor) => CompiledQuery<R> {
  const compiled = new WeakMap<Executor, CompiledQuery<R>>()
  return (db) => {
    let query = compiled.get(db)
    if (!query) {
      query = build(db).compile()
      compiled.set(db, query)
    }
    return query
  }
}

/**
 * A query compiled the first time a handle runs it. `build` gives the query with placeholder values; each run
 * passes the real values in the order the compiled SQL binds them (the order of the builder's calls).
 */
export function compiledOnce<R>(build: (db: Executor) => Compilable<R>): (db: Executor, parameters: readonly unknown[]) => Promise<R[]> {
  const queryOf = compiledPerHandle(build)
  return async (db, parameters) => {
    const { rows } = await db.executeQuery<R>({ ...queryOf(db), parameters })
    return rows
  }
}

/** As compiledOnce, for a write whose answer is how many rows it inserted, updated or deleted. */
export function compiledWriteOnce(build: (db: Executor) => Compilable<unknown>): (db: Executor, parameters: readonly unknown[]) => Promise<bigint> {
  const queryOf = compiledPerHandle(build)
  return async (db, parameters) => {
    const { numAffectedRows } = await db.executeQuery({ ...queryOf(db), parameters })
    return numAffectedRows ?? 0n
  }
}

/** As compiledOnce, for a query whose SQL varies with a few options: one compilation per key per handle. */
export function compiledPerShape<K, R>(build: (db: Executor, key: K) => Compilable<R>, keyOf: (key: K) => string): (db: Executor, key: K, parameters: readonly unknown[]) => Promise<R[]> {
  const compiled = new WeakMap<Executor, Map<string, CompiledQuery<R>>>()
  return async (db, key, parameters) => {
    let shapes = compiled.get(db)
    if (!shapes) compiled.set(db, (shapes = new Map()))
    const name = keyOf(key)
    let query = shapes.get(name)
    if (!query) {
      query = build(db, key).compile()
      shapes.set(name, query)
    }
    const { rows } = await db.executeQuery<R>({ ...query, parameters })
    return rows
  }
}
