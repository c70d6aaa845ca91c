// Storage for bytes that do not belong in a row: report files, exports, uploads. Two implementations behind one
// interface: a directory (one server, or a shared volume) and the database itself (several servers, no volume).
import type { Readable } from 'node:stream'

export interface BlobInfo {
  size: number
  /** Hex SHA-256 of the whole content, computed while writing. */
  sha256: string
  contentType: string | null
}

export interface BlobRead extends BlobInfo {
  /** The requested bytes only (the whole blob without a range). */
  stream: Readable
  /** First and last byte sent, inclusive, as in HTTP Content-Range; end is -1 for an empty blob. */
  start: number
  end: number
}

export interface BlobStore {
  /** Stores the content under `key`, replacing what was there; readers see the old or the new blob, never a mix. */
  put(key: string, data: Readable | Buffer, options?: { contentType?: string }): Promise<{ size: number; sha256: string }>
  /**
   * Reads a blob, or bytes `start`…`end` of it (inclusive, like HTTP Range; end past the blob is clamped).
   * Undefined when there is no such blob; a RangeError when `start` lies beyond it (HTTP 416).
   */
  get(key: string, range?: { start?: number; end?: number }): Promise<BlobRead | undefined>
  stat(key: string): Promise<BlobInfo | undefined>
  /** True when there was a blob to delete. */
  delete(key: string): Promise<boolean>
  /**
   * Removes what interrupted writes left behind (a process killed in the middle of a put) that no write still going
   * on, in this process or another sharing the store, can own. Returns how many were removed.
   */
  sweep(): Promise<number>
}

/** Path-like keys: segments of letters, digits, `.`, `_`, `-`, not starting with a dot, joined by `/`. */
const KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*)(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/

export function assertBlobKey(key: string): void {
  if (key.length > 512 || !KEY.test(key)) throw new TypeError(`invalid blob key ${JSON.stringify(key.slice(0, 100))}`)
}

/** The inclusive byte range to send of a blob of `size` bytes. */
export function resolveRange(size: number, range: { start?: number; end?: number } = {}): { start: number; end: number } {
  const start = range.start ?? 0
  const end = Math.min(range.end ?? size - 1, size - 1)
  if (!Number.isSafeInteger(start) || start < 0 || (range.end !== undefined && (!Number.isSafeInteger(range.end) || range.end < start))) {
    throw new RangeError(`invalid byte range ${start}-${range.end ?? ''}`)
  }
  if (range.start !== undefined && start >= size) throw new RangeError(`range start ${start} is beyond the blob's ${size} bytes`)
  return { start, end }
}
