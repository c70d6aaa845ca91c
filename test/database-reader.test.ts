// SQLite's bulk reads (a report's pages) run on a thread of their own with a read-only connection of its own
// (platform/db/bulk-reader.ts), so that SQLite's work for the next page runs beside the formatting of this one. The
// thread answers what the event loop's connection would: the same rows, the rows committed before the query, the
// same errors; it can never write; and a thread that cannot start or dies leaves its queries to the event loop's.
// SQLite's alone, so a database file of its own on both test passes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CompiledQuery, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { READER_MODULES, threadReads } from '../src/platform/db/bulk-reader.js'
import { openDatabase, type BulkReads, type Db } from '../src/platform/db/database.js'
import { builtScript } from '../src/platform/thread-script.js'
import { FakeClock } from './support/harness.js'

const SOURCES = new URL('../src/platform/db/', import.meta.url)

let dir: string
let db: Db
let path: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'finapi-reader-'))
  path = join(dir, 'reader.db')
  db = openDatabase(`sqlite:${path}`)
  await sql`create table page (at text not null, id text not null, amount text)`.execute(db.kysely)
})
afterAll(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

const PAGE = CompiledQuery.raw('select at, id, amount from page where at >= ? order by at, id limit ?', ['2026-01-01', 3])
const never: BulkReads = { arrays: () => Promise.reject(new Error('read on the event loop')) }

describe('the SQLite reader thread', () => {
  it('is built (the tests build first): reports never read on the event loop for want of it', () => {
    expect(builtScript(SOURCES, 'reader-thread', READER_MODULES)).toBeDefined()
  })

  it('answers rows as arrays, as the event loop’s connection does, with what was committed before the query', async () => {
    const reads = threadReads({ path, script: builtScript(SOURCES, 'reader-thread', READER_MODULES)!, inline: never, onError: (err) => expect.fail(err.message), clock: new FakeClock() })
    try {
      expect(await reads.arrays(PAGE)).toEqual([])
      await sql`insert into page values ('2026-01-02', 'b', '1.10'), ('2026-01-01', 'a', null), ('2026-01-03', 'c', '0.005'), ('2026-01-04', 'd', '7')`.execute(db.kysely)
      const rows = await reads.arrays(PAGE)
      expect(rows).toEqual([
        ['2026-01-01', 'a', null],
        ['2026-01-02', 'b', '1.10'],
        ['2026-01-03', 'c', '0.005'],
      ])
      expect(rows).toEqual(await db.bulk.arrays(PAGE))
      // Several at once are answered each with its own rows.
      const after = (at: string) => CompiledQuery.raw('select id from page where at > ? order by at', [at])
      expect(await Promise.all(['2026-01-01', '2026-01-03', '2026-01-04'].map((at) => reads.arrays(after(at))))).toEqual([[['b'], ['c'], ['d']], [['d']], []])
    } finally {
      await reads.close()
    }
  })

  it('answers a query SQLite refuses with its error and code, goes on with the next, and can never write', async () => {
    const reads = threadReads({ path, script: builtScript(SOURCES, 'reader-thread', READER_MODULES)!, inline: never, onError: (err) => expect.fail(err.message), clock: new FakeClock() })
    try {
      await expect(reads.arrays(CompiledQuery.raw('select nope from page'))).rejects.toMatchObject({ message: expect.stringMatching(/no such column: nope/), code: 'SQLITE_ERROR' })
      await expect(reads.arrays(CompiledQuery.raw("delete from page where id = 'a' returning id"))).rejects.toThrow(/readonly|read-only/i)
      expect(await reads.arrays(CompiledQuery.raw("select count(*) from page where id = 'a'"))).toEqual([[1]])
    } finally {
      await reads.close()
    }
  })

  it('ends when idle or released and starts again with the next query; after close, queries run on the event loop', async () => {
    const inline: BulkReads = { arrays: async () => [['inline']] }
    const clock = new FakeClock()
    const reads = threadReads({ path, script: builtScript(SOURCES, 'reader-thread', READER_MODULES)!, inline, onError: (err) => expect.fail(err.message), clock, idleMs: 30_000 })
    const count = CompiledQuery.raw('select count(*) from page')
    expect(await reads.arrays(count)).toEqual([[4]])
    // Not yet idle long enough: answered (by the thread still running).
    await clock.tick(29_999)
    expect(await reads.arrays(count)).toEqual([[4]])
    // Idle for the whole time: told to end; the next query starts another.
    await clock.tick(30_000)
    expect(await reads.arrays(count)).toEqual([[4]])
    // Released while a query is held: that query is answered; released with none: ended now, and started again.
    const held = reads.arrays(count)
    reads.release?.()
    expect(await held).toEqual([[4]])
    reads.release?.()
    expect(await reads.arrays(count)).toEqual([[4]])
    await reads.close()
    expect(await reads.arrays(count)).toEqual([['inline']])
  })

  it('leaves the queries of a thread that ends to the event loop’s connection, reported once', async () => {
    const errors: Error[] = []
    const reads = threadReads({ path, script: new URL('data:text/javascript,process.exit(3)'), inline: db.bulk, onError: (err) => errors.push(err), clock: new FakeClock() })
    const count = CompiledQuery.raw('select count(*) from page')
    expect(await Promise.all([reads.arrays(count), reads.arrays(count)])).toEqual([[[4]], [[4]]])
    expect(await reads.arrays(count)).toEqual([[4]])
    expect(errors.map((e) => e.message)).toEqual(['the database reader thread ended (exit code 3)'])
    await reads.close()
  })
})
