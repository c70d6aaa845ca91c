// Both blob stores through the same contract: the directory store on a temporary folder, the database store on
// this run's database (SQLite, or PostgreSQL with TEST_PG_ADMIN_URL); and what a killed write leaves, swept.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabaseBlobStore } from '../src/platform/blobs/database-store.js'
import { createDirectoryBlobStore, TEMP_STALE_MS, TEMP_TOUCH_MS } from '../src/platform/blobs/directory-store.js'
import type { BlobStore } from '../src/platform/blobs/types.js'
import type { Db } from '../src/platform/db/database.js'
import { FakeClock } from './support/clock.js'
import { openMigratedTestDatabase, TEST_DIALECT } from './support/database.js'

const CHUNK = 1024 // small chunks, so boundaries are cheap to reach

let opened: Awaited<ReturnType<typeof openMigratedTestDatabase>>
let db: Db
let dir: string
beforeAll(async () => {
  opened = await openMigratedTestDatabase()
  db = opened.db
  dir = mkdtempSync(join(tmpdir(), 'finapi-blobs-'))
})
afterAll(async () => {
  await opened.close()
  rmSync(dir, { recursive: true, force: true })
})

async function bytes(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of stream) parts.push(Buffer.from(part as Buffer))
  return Buffer.concat(parts)
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** A readable that makes `total` pseudo-random bytes in odd-sized pieces without holding them all. */
function generated(total: number, seed: number): { stream: Readable; hash: Promise<string> } {
  const hash = createHash('sha256')
  let made = 0
  let resolve: (h: string) => void = () => {}
  const done = new Promise<string>((r) => (resolve = r))
  const stream = new Readable({
    read() {
      if (made >= total) {
        resolve(hash.digest('hex'))
        this.push(null)
        return
      }
      const piece = Buffer.alloc(Math.min(7_777, total - made), (made + seed) % 251)
      made += piece.length
      hash.update(piece)
      this.push(piece)
    },
  })
  return { stream, hash: done }
}

const stores: [string, () => BlobStore][] = [
  ['directory', () => createDirectoryBlobStore(join(dir, 'store'))],
  [`database (${TEST_DIALECT})`, () => createDatabaseBlobStore({ db, clock: new FakeClock(), chunkSize: CHUNK })],
]

describe.each(stores)('%s blob store', (name, make) => {
  let store: BlobStore
  beforeAll(() => {
    store = make()
  })
  const content = randomBytes(CHUNK * 3 + 17)

  it('stores and reads back a blob with its size, hash and content type', async () => {
    expect(await store.put('reports/r1.csv', content, { contentType: 'text/csv' })).toEqual({ size: content.length, sha256: sha(content) })
    const read = await store.get('reports/r1.csv')
    expect(read).toMatchObject({ size: content.length, sha256: sha(content), contentType: 'text/csv', start: 0, end: content.length - 1 })
    expect((await bytes(read!.stream)).equals(content)).toBe(true)
    expect(await store.stat('reports/r1.csv')).toEqual({ size: content.length, sha256: sha(content), contentType: 'text/csv' })
  })

  it.each([
    [0, 0],
    [0, CHUNK - 1],
    [CHUNK - 1, CHUNK],
    [CHUNK, 2 * CHUNK - 1],
    [CHUNK - 5, 2 * CHUNK + 5],
    [3 * CHUNK, 3 * CHUNK + 16],
    [10, 10 ** 9], // an end past the blob is clamped, as HTTP does
  ])('reads the inclusive range %i-%i', async (start, end) => {
    const read = await store.get('reports/r1.csv', { start, end })
    const last = Math.min(end, content.length - 1)
    expect([read!.start, read!.end, read!.size]).toEqual([start, last, content.length])
    expect((await bytes(read!.stream)).equals(content.subarray(start, last + 1))).toBe(true)
  })

  it('refuses a range that starts past the end or runs backwards', async () => {
    await expect(store.get('reports/r1.csv', { start: content.length })).rejects.toThrow(RangeError)
    await expect(store.get('reports/r1.csv', { start: 5, end: 4 })).rejects.toThrow(RangeError)
  })

  it('answers undefined or false for a missing key', async () => {
    expect(await store.get('nothing/here')).toBeUndefined()
    expect(await store.stat('nothing/here')).toBeUndefined()
    expect(await store.delete('nothing/here')).toBe(false)
  })

  it('replaces a blob on overwrite, and deletes it', async () => {
    await store.put('over', Buffer.from('first version, longer than the second'))
    await store.put('over', Buffer.from('second'), { contentType: 'text/plain' })
    const read = await store.get('over')
    expect(read).toMatchObject({ size: 6, contentType: 'text/plain' })
    expect((await bytes(read!.stream)).toString()).toBe('second')
    expect(await store.delete('over')).toBe(true)
    expect(await store.get('over')).toBeUndefined()
  })

  it('stores an empty blob', async () => {
    await store.put('empty', Buffer.alloc(0))
    const read = await store.get('empty')
    expect(read).toMatchObject({ size: 0, start: 0, end: -1 })
    expect(await bytes(read!.stream)).toHaveLength(0)
  })

  it('streams a large blob in and out', async () => {
    const total = 3 * 1024 * 1024 + 123
    const source = generated(total, 3)
    const stored = await store.put('large/blob.bin', source.stream)
    expect(stored).toEqual({ size: total, sha256: await source.hash })
    const read = await store.get('large/blob.bin')
    const hash = createHash('sha256')
    let size = 0
    for await (const part of read!.stream) {
      hash.update(part as Buffer)
      size += (part as Buffer).length
    }
    expect([size, hash.digest('hex')]).toEqual([total, stored.sha256])
  })

  it('refuses keys that could escape or confuse the store', async () => {
    for (const key of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '.hidden', 'a/./b', 'back\\slash', '', 'a'.repeat(513)]) {
      await expect(store.put(key, Buffer.from('x')), key).rejects.toThrow(TypeError)
      await expect(store.get(key), key).rejects.toThrow(TypeError)
    }
  })

  it('keeps the old blob when a put fails midway', async () => {
    await store.put('kept', Buffer.from('old'))
    let reads = 0
    const failing = new Readable({
      read() {
        if (reads++ === 0) this.push(Buffer.alloc(CHUNK * 2 + 1, 1)) // two whole chunks are written first
        else this.destroy(new Error('client went away'))
      },
    })
    await expect(store.put('kept', failing)).rejects.toThrow('client went away')
    expect((await bytes((await store.get('kept'))!.stream)).toString()).toBe('old')
    if (name === 'directory') expect(readdirSync(join(dir, 'store', 'tmp'))).toEqual([]) // no half file left
  })
})

describe('sweeping what killed writes left', () => {
  it('removes temp files untouched for TEMP_STALE_MS, keeps younger ones and every live write, in any process', async () => {
    const clock = new FakeClock(Date.now())
    const root = join(dir, 'swept')
    const tmp = join(root, 'tmp')
    const [mine, other] = [createDirectoryBlobStore(root, { clock }), createDirectoryBlobStore(root, { clock })] // two processes, one folder
    expect(await mine.sweep()).toBe(0) // no folder yet
    mkdirSync(tmp, { recursive: true })
    const leftover = (name: string, ageMs: number) => {
      writeFileSync(join(tmp, name), 'half a report')
      const at = new Date(clock.nowMs() - ageMs)
      utimesSync(join(tmp, name), at, at)
    }
    leftover('0b7e1c9a-dead-4c1e-9a55-000000000001', TEMP_STALE_MS + 1_000)
    leftover('0b7e1c9a-dead-4c1e-9a55-000000000001.json', TEMP_STALE_MS + 1_000)
    leftover('0b7e1c9a-dead-4c1e-9a55-000000000002', TEMP_STALE_MS - 5 * 60_000)

    // A write in progress in `mine`, its file as old as an orphan's: its own process never sweeps it.
    let feed: (chunk: Buffer | null) => void = () => {}
    const slow = new Readable({ read() {} })
    feed = (chunk) => void slow.push(chunk)
    const putting = mine.put('reports/slow.csv', slow)
    feed(Buffer.from('first rows,'))
    const written = () => readdirSync(tmp).find((n) => !n.startsWith('0b7e1c9a') && statSync(join(tmp, n)).size > 0)
    await until(() => written() !== undefined) // the first rows are on disk: nothing writes to it until feed() again
    const live = written()!
    const old = new Date(clock.nowMs() - TEMP_STALE_MS - 1_000)
    utimesSync(join(tmp, live), old, old)
    expect(await mine.sweep()).toBe(2)
    expect(readdirSync(tmp).sort()).toEqual(['0b7e1c9a-dead-4c1e-9a55-000000000002', live].sort())
    // The other process knows it only by its time: a live write touches its file every TEMP_TOUCH_MS.
    await clock.tick(TEMP_TOUCH_MS)
    expect(await other.sweep()).toBe(0)
    for (let i = 0; i < 12; i++) await clock.tick(TEMP_TOUCH_MS) // longer than TEMP_STALE_MS without a byte written
    expect(await other.sweep()).toBe(1) // the younger leftover is stale by now; the live file is not
    expect(readdirSync(tmp)).toEqual([live])
    feed(Buffer.from('last rows'))
    feed(null)
    await putting
    expect((await bytes((await mine.get('reports/slow.csv'))!.stream)).toString()).toBe('first rows,last rows')
    expect(readdirSync(tmp)).toEqual([])
    expect(clock.pendingTimers).toBe(0) // the finished write touches nothing any more
  })

  it('finds nothing to sweep in the database store: an interrupted put rolled back', async () => {
    expect(await createDatabaseBlobStore({ db, clock: new FakeClock() }).sweep()).toBe(0)
  })
})

/** Waits for file-system work in flight (bounded, so a broken store fails rather than hangs). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(done()).toBe(true)
}
