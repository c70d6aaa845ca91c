// better-sqlite3's prepared statements kept by their SQL text, for the server's connection and the reader thread's
// alike: preparing a statement costs about as much as running it, and a query builder's SQL text is the same each
// time (values are bound parameters). Safe because better-sqlite3 runs each statement to completion synchronously.

/** Bulk reads are a few shapes of report query (fields, filters): a small cache. */
export const ARRAY_STATEMENT_CACHE_SIZE = 50

/** `prepare` once per SQL text, the oldest text dropped once `size` are kept. */
export function statementCache<S>(size: number, prepare: (sql: string) => S): (sql: string) => S {
  const cache = new Map<string, S>()
  return (sql) => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = prepare(sql)
      if (cache.size >= size) cache.delete(cache.keys().next().value!)
      cache.set(sql, statement)
    }
    return statement
  }
}
