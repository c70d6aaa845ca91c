// Blobs in the database, for deployments with several servers and no shared volume. The content is split into
// fixed-size chunk rows of one version; the blobs row points the key at its current version. A put writes every
// chunk and switches the pointer in one transaction (a failed put leaves the old blob), and a range read fetches
// only the chunks it covers, one query per chunk, so neither side ever holds the whole blob in memory.
// On SQLite a put holds the write lock while it reads its input: feed it from memory or disk, not a slow client.
import { createHash, randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { assertBlobKey, resolveRange, type BlobStore } from './types.js'

export const DEFAULT_CHUNK_SIZE = 256 * 1024
const CHUNKS_PER_READ = 8

export function createDatabaseBlobStore(deps: { db: Pick<Db, 'kysely'>; clock: Clock; chunkSize?: number }): BlobStore {
  const { db, clock } = deps
  const chunkSize = deps.chunkSize ?? DEFAULT_CHUNK_SIZE

  const meta = (key: string) => db.kysely.selectFrom('blobs').selectAll().where('key', '=', key).executeTakeFirst()

  return {
    async put(key, data, options = {}) {
      assertBlobKey(key)
      const versionId = randomUUID()
      const hash = createHash('sha256')
      let size = 0
      let sha256 = ''
      await db.kysely.transaction().execute(async (trx) => {
        let seq = 0
        for await (const chunk of rechunk(Buffer.isBuffer(data) ? Readable.from([data]) : data, chunkSize)) {
          hash.update(chunk)
          size += chunk.length
          await trx.insertInto('blob_chunks').values({ version_id: versionId, seq: seq++, data: chunk }).execute()
        }
        sha256 = hash.digest('hex')
        const previous = await trx.selectFrom('blobs').select('version_id').where('key', '=', key).executeTakeFirst()
        const row = { version_id: versionId, size, sha256, content_type: options.contentType ?? null, chunk_size: chunkSize, created_at: clock.now().toISOString() }
        await trx
          .insertInto('blobs')
          .values({ key, ...row })
          .onConflict((oc) => oc.column('key').doUpdateSet(row))
          .execute()
        if (previous) await trx.deleteFrom('blob_chunks').where('version_id', '=', previous.version_id).execute()
      })
      return { size, sha256 }
    },

    async get(key, range) {
      assertBlobKey(key)
      const blob = await meta(key)
      if (!blob) return undefined
      const { start, end } = resolveRange(blob.size, range)
      const stream = Readable.from(readChunks(blob.version_id, blob.chunk_size, start, end))
      return { stream, start, end, size: blob.size, sha256: blob.sha256, contentType: blob.content_type }
    },

    async stat(key) {
      assertBlobKey(key)
      const blob = await meta(key)
      return blob && { size: blob.size, sha256: blob.sha256, contentType: blob.content_type }
    },

    async delete(key) {
      assertBlobKey(key)
      return db.kysely.transaction().execute(async (trx) => {
        const blob = await trx.deleteFrom('blobs').where('key', '=', key).returning('version_id').executeTakeFirst()
        if (blob) await trx.deleteFrom('blob_chunks').where('version_id', '=', blob.version_id).execute()
        return blob !== undefined
      })
    },

    // A put is one transaction: one that was interrupted rolled back and left nothing.
    sweep: async () => 0,
  }

  /** A few chunks per query (a round trip per 256 KiB held a large download to a fraction of the link's speed). */
  async function* readChunks(versionId: string, size: number, start: number, end: number): AsyncGenerator<Buffer> {
    const last = Math.floor(end / size)
    for (let first = Math.floor(start / size); first <= last; first += CHUNKS_PER_READ) {
      const upTo = Math.min(last, first + CHUNKS_PER_READ - 1)
      const rows = await db.kysely.selectFrom('blob_chunks').select(['seq', 'data']).where('version_id', '=', versionId).where('seq', '>=', first).where('seq', '<=', upTo).orderBy('seq').execute()
      for (let seq = first; seq <= upTo; seq++) {
        const row = rows[seq - first]
        // The blob was overwritten or deleted while being read: fail the stream rather than send a mix.
        if (!row || Number(row.seq) !== seq) throw new Error(`blob chunk ${seq} of version ${versionId} is gone (overwritten while read)`)
        const offset = seq * size
        yield Buffer.from(row.data.subarray(Math.max(0, start - offset), Math.min(row.data.length, end - offset + 1)))
      }
    }
  }
}

/** Regroups a stream's pieces into exactly `size`-byte chunks (the last may be shorter). */
async function* rechunk(source: AsyncIterable<Buffer | string>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = []
  let length = 0
  for await (const piece of source) {
    let buf = typeof piece === 'string' ? Buffer.from(piece) : piece
    while (length + buf.length >= size) {
      const take = size - length
      pending.push(buf.subarray(0, take))
      yield Buffer.concat(pending)
      buf = buf.subarray(take)
      pending = []
      length = 0
    }
    if (buf.length > 0) {
      pending.push(buf)
      length += buf.length
    }
  }
  if (length > 0) yield Buffer.concat(pending)
}
