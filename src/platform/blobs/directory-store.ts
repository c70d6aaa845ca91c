// Blobs as files under one directory. A put streams into tmp/, then renames the finished file into objects/
// and atomically replaces the key's small pointer file (keys/<key>.json: object name, size, hash, content type)
// by a rename, so a crash at any moment leaves the key at its old or new content, never a half-written file;
// at worst an orphaned object or temp file is left behind. Keys are validated and never leave the directory.
import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { assertBlobKey, resolveRange, type BlobInfo, type BlobStore } from './types.js'

interface Pointer extends BlobInfo {
  object: string
}

export function createDirectoryBlobStore(root: string): BlobStore {
  const tmpDir = join(root, 'tmp')
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
      const hash = createHash('sha256')
      let size = 0
      const measure = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk)
          size += chunk.length
          done(null, chunk)
        },
      })
      try {
        await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, measure, createWriteStream(tmp, { flags: 'wx' }))
        await rename(tmp, join(objectsDir, object))
      } catch (err) {
        await rm(tmp, { force: true })
        throw err
      }
      const info: Pointer = { object, size, sha256: hash.digest('hex'), contentType: options.contentType ?? null }
      const previous = await readPointer(key)
      const tmpPointer = join(tmpDir, `${object}.json`)
      await writeFile(tmpPointer, JSON.stringify(info), { flag: 'wx' })
      await rename(tmpPointer, path)
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
  }
}
