// Blobs as files under one directory. A put streams into tmp/, then renames the finished file into objects/
// and atomically replaces the key's small pointer file (keys/<key>.json: object name, size, hash, content type)
// by a rename, so a crash at any moment leaves the key at its old or new content, never a half-written file;
// at worst an orphaned object or temp file is left behind. Keys are validated and never leave the directory.
// Temp files a killed process left are removed by sweep(): several processes may share the directory, so a file is
// only taken when no write can still own it: not one of this process's writes in progress, and untouched for
// TEMP_STALE_MS, while every write in progress touches its file every TEMP_TOUCH_MS (a report can spend minutes
// between two writes of its file: reading rows that a filter mostly skips, say).
import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { systemClock, type Clock } from '../clock.js'
import { every } from '../timers.js'
import { assertBlobKey, resolveRange, type BlobInfo, type BlobStore } from './types.js'

/** How often a write in progress touches its temp file, so that other processes see it is alive. */
export const TEMP_TOUCH_MS = 60_000
/** A temp file untouched this long (ten touches missed) belongs to no live write: sweep() removes it. */
export const TEMP_STALE_MS = 10 * 60_000

interface Pointer extends BlobInfo {
  object: string
}

export function createDirectoryBlobStore(root: string, options: { clock?: Clock } = {}): BlobStore {
  const clock = options.clock ?? systemClock
  const tmpDir = join(root, 'tmp')
  /** The objects of this process's writes in progress: their temp files (`<object>`, `<object>.json`) are never swept. */
  const writing = new Set<string>()
  const objectsDir = join(root, 'objects')
  const keysDir = join(root, 'keys')
  const pointerPath = (key: string) => {
    assertBlobKey(key)
    return join(keysDir, `${key}.json`)
  }

  async function readPointer(key: string): Promise<Pointer | undefined> {
    try {
      return JSON.parse(await readFile(pointerPath(key), 'utf8')) as Pointer
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw err
    }
  }

  return {
    async put(key, data, options = {}) {
      const path = pointerPath(key)
      await Promise.all([mkdir(tmpDir, { recursive: true }), mkdir(objectsDir, { recursive: true }), mkdir(dirname(path), { recursive: true })])
      const object = randomUUID()
      const tmp = join(tmpDir, object)
      writing.add(object)
      const touch = async () => {
        const now = clock.now()
        await utimes(tmp, now, now).catch(() => undefined) // gone already: renamed or removed
      }
      const stopTouching = every(clock, TEMP_TOUCH_MS, touch, () => undefined)
      const hash = createHash('sha256')
      let size = 0
      const measure = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk)
          size += chunk.length
          done(null, chunk)
        },
      })
      let info: Pointer
      let previous: Pointer | undefined
      try {
        try {
          await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, measure, createWriteStream(tmp, { flags: 'wx' }))
          await rename(tmp, join(objectsDir, object))
        } catch (err) {
          await rm(tmp, { force: true })
          throw err
        }
        info = { object, size, sha256: hash.digest('hex'), contentType: options.contentType ?? null }
        previous = await readPointer(key)
        const tmpPointer = join(tmpDir, `${object}.json`)
        await writeFile(tmpPointer, JSON.stringify(info), { flag: 'wx' })
        await rename(tmpPointer, path)
      } finally {
        stopTouching()
        writing.delete(object)
      }
      // Readers that opened the old object keep reading it: an unlinked file lives until its last descriptor closes.
      if (previous) await rm(join(objectsDir, previous.object), { force: true })
      return { size: info.size, sha256: info.sha256 }
    },

    async get(key, range) {
      // An overwrite may delete the object between reading the pointer and opening it: read the new pointer then.
      for (let tries = 0; tries < 3; tries++) {
        const pointer = await readPointer(key)
        if (!pointer) return undefined
        const { start, end } = resolveRange(pointer.size, range)
        let handle
        try {
          handle = await open(join(objectsDir, pointer.object), 'r')
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
          throw err
        }
        const stream = end < start ? Readable.from([]) : createReadStream('', { fd: handle, start, end })
        if (end < start) await handle.close()
        return { stream, start, end, size: pointer.size, sha256: pointer.sha256, contentType: pointer.contentType }
      }
      throw new Error(`blob ${key} kept changing while being opened`)
    },

    async stat(key) {
      const pointer = await readPointer(key)
      return pointer && { size: pointer.size, sha256: pointer.sha256, contentType: pointer.contentType }
    },

    async delete(key) {
      const pointer = await readPointer(key)
      if (!pointer) return false
      await rm(pointerPath(key), { force: true })
      await rm(join(objectsDir, pointer.object), { force: true })
      return true
    },

    async sweep() {
      let names: string[]
      try {
        names = await readdir(tmpDir)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0
        throw err
      }
      const cutoff = clock.nowMs() - TEMP_STALE_MS
      let removed = 0
      for (const name of names) {
        if (writing.has(name.replace(/\.json$/, ''))) continue
        const info = await stat(join(tmpDir, name)).catch(() => undefined)
        if (!info?.isFile() || info.mtimeMs >= cutoff) continue
        await rm(join(tmpDir, name), { force: true })
        removed++
      }
      return removed
    },
  }
}
