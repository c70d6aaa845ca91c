// The request log's writer: a batch of calls (CallBatch) decodes to exactly what was recorded, a batch is written by a
// thread of its own with its own connection (SQLite or PostgreSQL, whichever the tests run on) and is visible to the
// server's connection once written, and a thread that cannot write reports why once and hands its later batches to
// the writer on the event loop's thread.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import SQLite from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CallBatch, decodeRows, type BufferedCall, type RowValues } from '../../src/request-log/rows.js'
import { THREAD_MODULES, inlineWriter, threadScript, threadWriter, type BatchWriter } from '../../src/request-log/writer.js'
import { TEST_DIALECT } from '../support/database.js'
import { startTestApp, type TestApp } from '../support/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
}, 60_000)
afterAll(() => t?.close())

const call = (over: Partial<BufferedCall> = {}): BufferedCall => ({
  atMs: Date.parse('2026-11-26T06:00:00.123Z'),
  organizationId: 'testrest',
  method: 'GET',
  path: '/reporting/v3/reports?name=%C3%A9t%C3%A9',
  status: 200,
  durationUs: 1234,
  correlationId: 'writer-1',
  scheme: 'http_signature',
  keyId: null,
  ...over,
})
const batchOf = (...calls: BufferedCall[]) => {
  const batch = new CallBatch(calls.length)
  for (const c of calls) batch.add(c)
  return batch.seal()
}
/** What a call's row is written with. */
const valuesOf = (c: BufferedCall): RowValues => [new Date(Math.floor(c.atMs)).toISOString(), c.organizationId, c.method, c.path, c.status, c.durationUs, c.correlationId, c.scheme, c.keyId]
const rows = (prefix: string) => t.db.kysely.selectFrom('request_log').selectAll().where('correlation_id', 'like', `${prefix}%`).orderBy('id').execute()

describe('a batch of calls', () => {
  it('decodes to the calls recorded: nulls and empty strings, text beyond ASCII, any character a caller could send, the longest path, large numbers, times across seconds', () => {
    const calls = [
      call(),
      call({ organizationId: null, keyId: 'key-ü-→', path: `/v2/${'p'.repeat(2048)}`, status: 599, durationUs: 4_000_000_000, correlationId: 'w'.repeat(128) }),
      call({ method: 'DELETE', scheme: 'none', path: '/', atMs: 0 }),
      call({ atMs: Date.parse('2026-11-26T06:00:00.999Z'), path: '/reporting/v3/reports?name=\u00e9t\u00e9', correlationId: '\ud83d\ude00' }),
      call({ atMs: Date.parse('2026-11-26T06:00:01.000Z'), keyId: '\u00ff' }),
      call({ atMs: Date.parse('2026-11-26T06:00:01.007Z') }),
      call({ atMs: Date.parse('2026-11-26T06:00:00.001Z') }),
      call({ atMs: -1 }),
      call({ path: '/v2/a"b\\c\u0000d\ne],[null', organizationId: '","', keyId: '' }),
      call({ organizationId: '', keyId: null, path: '', correlationId: '\u0001\udc00' }),
    ]
    const batch = batchOf(...calls)
    expect(batch.count).toBe(calls.length)
    const rows = decodeRows(batch)
    expect(rows).toEqual(calls.map(valuesOf))
    expect(rows.map((r) => r[0]).slice(3, 8)).toEqual(['2026-11-26T06:00:00.999Z', '2026-11-26T06:00:01.000Z', '2026-11-26T06:00:01.007Z', '2026-11-26T06:00:00.001Z', '1969-12-31T23:59:59.999Z'])
    expect(rows[1]![8]).toBe('key-ü-→')
    expect(rows[1]![5]).toBe(4_000_000_000)
    expect(rows[3]![3]).toBe('/reporting/v3/reports?name=été')
    expect(rows[4]![8]).toBe('ÿ')
    expect(rows[8]).toEqual([rows[0]![0], '","', 'GET', '/v2/a"b\\c\u0000d\ne],[null', 200, 1234, 'writer-1', 'http_signature', ''])
    expect(rows[9]).toEqual([rows[0]![0], '', 'GET', '', 200, 1234, '\u0001\udc00', 'http_signature', null])
  })

  it('keeps a full batch\'s calls in order across its texts, and says when it is full', () => {
    const batch = new CallBatch(1000)
    const calls = Array.from({ length: 1000 }, (_, i) => call({ correlationId: `c${i}`, status: 200 + (i % 300), durationUs: i, organizationId: i % 2 ? null : `org-${i}` }))
    for (const c of calls) {
      expect(batch.full).toBe(false)
      batch.add(c)
    }
    expect(batch.full).toBe(true)
    const sealed = batch.seal()
    // Its strings were made into texts as it filled, not kept as a thousand calls' strings.
    expect(sealed.texts.length).toBeGreaterThan(10)
    expect(decodeRows(sealed)).toEqual(calls.map(valuesOf))
  })

  it('refuses to decode a batch whose numbers and strings disagree, rather than shift its calls\' strings', () => {
    const sealed = batchOf(call(), call())
    expect(() => decodeRows({ ...sealed, count: 3 })).toThrow('a request log batch of 3 calls held the numbers of 2')
    const length = sealed.texts.join('').length
    expect(() => decodeRows({ ...sealed, texts: [`${sealed.texts[0]}x`] })).toThrow(`a request log batch of 2 calls held ${length + 1} characters of text, not ${length}`)
    expect(() => decodeRows({ ...sealed, count: 1 })).toThrow(`a request log batch of 1 calls held ${length} characters of text, not ${length / 2}`)
  })
})

describe('the writer thread', () => {
  it('is built (the tests build first): the server never falls back for want of it', () => {
    expect(threadScript()).toBeDefined()
  })

  it("from the sources, is the build's only while no source it is built from changed since (a stale thread writes on this one)", () => {
    const root = mkdtempSync(join(tmpdir(), 'finapi-thread-'))
    onTestFinished(() => rmSync(root, { recursive: true, force: true }))
    const src = join(root, 'src', 'request-log')
    const dist = join(root, 'dist', 'request-log')
    mkdirSync(src, { recursive: true })
    const sources = pathToFileURL(`${src}/`)
    for (const name of THREAD_MODULES) writeFileSync(join(src, `${name}.ts`), '')
    // No build.
    expect(threadScript(sources)).toBeUndefined()
    mkdirSync(dist, { recursive: true })
    for (const name of THREAD_MODULES) writeFileSync(join(dist, `${name}.js`), '')
    const built = (at: number) => {
      for (const name of THREAD_MODULES) utimesSync(join(dist, `${name}.js`), at, at)
      for (const name of THREAD_MODULES) utimesSync(join(src, `${name}.ts`), at - 60, at - 60)
    }
    built(2_000_000_000)
    expect(threadScript(sources)?.href).toBe(pathToFileURL(join(dist, 'writer-thread.js')).href)
    // Each of them edited after the build.
    for (const name of THREAD_MODULES) {
      built(2_000_000_000)
      utimesSync(join(src, `${name}.ts`), 2_000_000_060, 2_000_000_060)
      expect(threadScript(sources), name).toBeUndefined()
    }
    // Touched since the build but the very text it compiled (its record's SHA-256): the build's, which a build would
    // not rewrite (tsc is incremental); a text it did not compile is a change.
    const record = (texts: string[]) =>
      writeFileSync(join(root, 'dist', '.tsbuildinfo'), JSON.stringify({ fileNames: THREAD_MODULES.map((n) => `../src/request-log/${n}.ts`), fileInfos: texts.map((text) => ({ version: createHash('sha256').update(text).digest('hex'), signature: 'x' })) }))
    built(2_000_000_000)
    for (const name of THREAD_MODULES) utimesSync(join(src, `${name}.ts`), 2_000_000_060, 2_000_000_060)
    expect(threadScript(sources)).toBeUndefined()
    record(THREAD_MODULES.map(() => ''))
    expect(threadScript(sources)?.href).toBe(pathToFileURL(join(dist, 'writer-thread.js')).href)
    writeFileSync(join(src, 'rows.ts'), 'export const changed = 1\n')
    utimesSync(join(src, 'rows.ts'), 2_000_000_060, 2_000_000_060)
    expect(threadScript(sources)).toBeUndefined()
    record(THREAD_MODULES.map((n) => (n === 'rows' ? 'export const changed = 1\n' : '')))
    expect(threadScript(sources)?.href).toBe(pathToFileURL(join(dist, 'writer-thread.js')).href)
    writeFileSync(join(root, 'dist', '.tsbuildinfo'), 'not json')
    expect(threadScript(sources)).toBeUndefined()
    // Running from the build itself: the script beside it.
    writeFileSync(join(src, 'writer-thread.js'), '')
    expect(threadScript(sources)?.href).toBe(pathToFileURL(join(src, 'writer-thread.js')).href)
  })

  it('writes batches on its own connection, in order; the server sees them once written', async () => {
    const errors: unknown[] = []
    const fallback: BatchWriter = { write: () => Promise.reject(new Error('the fallback was used')), close: async () => undefined }
    const writer = threadWriter({ url: t.config.databaseUrl, fallback, onError: (e) => errors.push(e), script: threadScript()! })
    await writer.write(batchOf(call({ correlationId: 'thread-a1' }), call({ correlationId: 'thread-a2', organizationId: null })))
    await writer.write(batchOf(call({ correlationId: 'thread-a3' })))
    expect(errors).toEqual([])
    const written = await rows('thread-a')
    expect(written.map((r) => [r.correlation_id, r.organization_id])).toEqual([
      ['thread-a1', 'testrest'],
      ['thread-a2', null],
      ['thread-a3', 'testrest'],
    ])
    // The database numbers the rows in the order they were written (pg reads a bigint as text).
    const ids = written.map((r) => Number(r.id))
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true)
    expect(written[0]).toMatchObject({ at: '2026-11-26T06:00:00.123Z', method: 'GET', path: '/reporting/v3/reports?name=%C3%A9t%C3%A9', status: 200, duration_us: 1234, scheme: 'http_signature', key_id: null })
    // A batch larger than one statement's rows (SQLite writes 50 rows an INSERT, the rest one by one): every call, in order.
    const many = Array.from({ length: 123 }, (_, i) => call({ correlationId: `thread-b${String(i).padStart(3, '0')}`, status: 200 + i, durationUs: i, organizationId: i % 7 ? 'testrest' : null, keyId: i % 5 ? null : `key-${i}` }))
    await writer.write(batchOf(...many))
    const manyWritten = await rows('thread-b')
    expect(manyWritten.map((r) => [r.correlation_id, r.organization_id, r.status, r.duration_us, r.key_id])).toEqual(many.map((c) => [c.correlationId, c.organizationId, c.status, c.durationUs, c.keyId]))
    expect(manyWritten.every((r, i) => i === 0 || Number(r.id) > Number(manyWritten[i - 1]!.id))).toBe(true)
    await writer.close()
    // Closed, a late batch is written on the event loop's thread.
    await expect(writer.write(batchOf(call({ correlationId: 'thread-late' })))).rejects.toThrow('the fallback was used')
  })

  it('answers a batch the database refuses with its reason, and goes on with the next', async () => {
    const errors: unknown[] = []
    // A database with no request_log table (SQLite: a new file; PostgreSQL: the cluster's own database).
    const url = t.config.databaseUrl.startsWith('sqlite:') ? `sqlite:${t.config.databaseUrl.slice(7)}-other.db` : t.config.databaseUrl.replace(/\/[^/?]*(\?|$)/, '/postgres$1')
    if (url.startsWith('sqlite:')) new SQLite(url.slice(7)).close()
    const fallback: BatchWriter = { write: () => Promise.reject(new Error('the fallback was used')), close: async () => undefined }
    const writer = threadWriter({ url, fallback, onError: (e) => errors.push(e), script: threadScript()! })
    await expect(writer.write(batchOf(call({ correlationId: 'refused-1' })))).rejects.toThrow(/request_log/)
    await expect(writer.write(batchOf(call({ correlationId: 'refused-2' })))).rejects.toThrow(/request_log/)
    expect(errors).toEqual([])
    await writer.close()
  })

  it.skipIf(TEST_DIALECT === 'postgres')('on SQLite, answers a batch for a file that does not exist with an error, and makes no file', async () => {
    const path = `${t.config.databaseUrl.slice(7)}-absent.db`
    const writer = threadWriter({ url: `sqlite:${path}`, fallback: inlineWriter(t.db), onError: () => undefined, script: threadScript()! })
    await expect(writer.write(batchOf(call({ correlationId: 'absent-1' })))).rejects.toThrow(/unable to open|does not exist/i)
    expect(existsSync(path)).toBe(false)
    await writer.close()
  })

  it("reports a thread that ends once, and writes every later batch on the event loop's thread", async () => {
    const errors: unknown[] = []
    const writer = threadWriter({ url: t.config.databaseUrl, fallback: inlineWriter(t.db), onError: (e) => errors.push(e), script: new URL('data:text/javascript,process.exit(3)') })
    await expect(writer.write(batchOf(call({ correlationId: 'ended-1' })))).rejects.toThrow('exit code 3')
    expect(errors).toHaveLength(1)
    await writer.write(batchOf(call({ correlationId: 'ended-2' })))
    await writer.write(batchOf(call({ correlationId: 'ended-3' })))
    expect((await rows('ended-')).map((r) => r.correlation_id)).toEqual(['ended-2', 'ended-3'])
    expect(errors).toHaveLength(1)
    await writer.close()
  })
})
