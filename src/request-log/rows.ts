// A recorded call's journey to its row, shared by the event loop's thread and the writer thread: each call is encoded
// into a batch's bytes as it ends (CallBatch), the bytes are handed to the thread whole (transferred, not copied),
// and the thread decodes them into rows. Bytes, not an object per call: a batch waits up to a quarter of a second,
// long enough for objects to be promoted to the old generation and collected there, and cloning a thousand objects
// for the thread cost about 2.6 µs a call (a CPU profile of `BENCH_AGAINST=request-log npm run bench`).
import type { RequestLogTable } from './tables.js'

/** A call as buffered: its time as milliseconds, made into text only when its batch is written. */
export interface BufferedCall {
  atMs: number
  organizationId: string | null
  method: string
  path: string
  status: number
  durationUs: number
  correlationId: string
  scheme: string
  keyId: string | null
}

export const COLUMNS = ['id', 'at', 'organization_id', 'method', 'path', 'status', 'duration_us', 'correlation_id', 'scheme', 'key_id'] as const

/** A string's length slot that means null. */
const NULL = 0xffff
/** A batch's bytes unless one call needs more. */
const BATCH_BYTES = 128 * 1024

/** Calls encoded one after another: time (float64), status (uint16), duration (uint32), then six strings, each as its UTF-8 length (uint16; NULL for null) and bytes. */
export class CallBatch {
  buffer: Buffer
  bytes = 0
  count = 0

  constructor(minBytes = 0) {
    // Its own ArrayBuffer (not the pool's), so that it can be transferred to the thread.
    this.buffer = Buffer.allocUnsafeSlow(Math.max(BATCH_BYTES, minBytes))
  }

  /** The most bytes a call can take (UTF-8 is at most 3 bytes per UTF-16 unit). */
  static sizeOf(call: BufferedCall): number {
    const { organizationId: o, keyId: k } = call
    return 14 + 12 + 3 * (call.method.length + call.path.length + call.correlationId.length + call.scheme.length + (o?.length ?? 0) + (k?.length ?? 0))
  }

  /** Appends the call; false (and nothing written) when it does not fit. */
  add(call: BufferedCall): boolean {
    const b = this.buffer
    if (this.bytes + CallBatch.sizeOf(call) > b.length) return false
    let at = b.writeDoubleLE(call.atMs, this.bytes)
    at = b.writeUInt16LE(call.status, at)
    at = b.writeUInt32LE(Math.min(call.durationUs, 0xffffffff), at)
    at = this.string(call.organizationId, at)
    at = this.string(call.method, at)
    at = this.string(call.path, at)
    at = this.string(call.correlationId, at)
    at = this.string(call.scheme, at)
    at = this.string(call.keyId, at)
    this.bytes = at
    this.count++
    return true
  }

  private string(value: string | null, at: number): number {
    if (value === null) return this.buffer.writeUInt16LE(NULL, at)
    const n = this.buffer.write(value, at + 2, 'utf8')
    this.buffer.writeUInt16LE(n, at)
    return at + 2 + n
  }
}

/** The calls of a batch's bytes (`bytes` of them written), in order. */
export function decodeCalls(buffer: Buffer, bytes: number): BufferedCall[] {
  const calls: BufferedCall[] = []
  let at = 0
  const string = (): string | null => {
    const n = buffer.readUInt16LE(at)
    at += 2
    if (n === NULL) return null
    const value = buffer.toString('utf8', at, at + n)
    at += n
    return value
  }
  while (at < bytes) {
    const atMs = buffer.readDoubleLE(at)
    const status = buffer.readUInt16LE(at + 8)
    const durationUs = buffer.readUInt32LE(at + 10)
    at += 14
    const organizationId = string()
    const method = string()!
    const path = string()!
    const correlationId = string()!
    const scheme = string()!
    const keyId = string()
    calls.push({ atMs, organizationId, method, path, status, durationUs, correlationId, scheme, keyId })
  }
  return calls
}

/**
 * The rows of a batch. Ids sort in the order calls ended within a process (the keyset's tie-breaker after the time,
 * which a fake clock or a busy millisecond shares): `tag` is the process's random tag, which keeps them unique across
 * processes on one database, and `firstSeq` the batch's first call's number in the process.
 */
export function rowsOf(calls: readonly BufferedCall[], tag: string, firstSeq: number): RequestLogTable[] {
  return calls.map((call, i) => ({
    id: `${tag}-${String(firstSeq + i).padStart(12, '0')}`,
    at: new Date(call.atMs).toISOString(),
    organization_id: call.organizationId,
    method: call.method,
    path: call.path,
    status: call.status,
    duration_us: call.durationUs,
    correlation_id: call.correlationId,
    scheme: call.scheme,
    key_id: call.keyId,
  }))
}
