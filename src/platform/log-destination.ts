// The server's log destination: lines are encoded straight into a memory chunk and handed to an asynchronous
// writer when the chunk is full (or has waited flushMs), so a request never waits on a write, and a line costs one
// UTF-8 encoding into memory.
//
// Why not the writer's own buffering (pino.destination's `minLength`): its write() measures the byte length of the
// whole pending buffer on every line (Buffer.byteLength over a growing string), which measured at 2–3 µs a line
// with a 4 KB buffer, about a tenth of a cached account read. The writer (sonic-boom, pino's own) still does what
// is hard: partial writes, EAGAIN on a full pipe, and a synchronous flush at exit.
import { pino, type DestinationStream } from 'pino'
import type { Clock, Timer } from './clock.js'

export interface BufferedLogDestination extends DestinationStream {
  write(line: string): void
  /** Writes everything held, synchronously: on shutdown and before the process dies of an unexpected error. */
  flushSync(): void
}

export interface BufferedLogOptions {
  /** The file descriptor written to (1: stdout). */
  fd: number
  /** Bytes held before they are handed to the writer. */
  chunkBytes: number
  /** A quiet server's lines still go out within this. */
  flushMs: number
  clock: Clock
}

export function bufferedLogDestination(options: BufferedLogOptions): BufferedLogDestination {
  const { chunkBytes, flushMs, clock } = options
  // minLength 0: every chunk handed over is written at once (or queued behind the write in flight). Buffers, not
  // strings: a chunk is already encoded.
  const writer = pino.destination({ dest: options.fd, sync: false, minLength: 0, contentMode: 'buffer' })
  // A chunk handed over belongs to the writer from then on: each one is a fresh allocation, never reused.
  let chunk = Buffer.allocUnsafe(chunkBytes)
  let used = 0
  let timer: Timer | undefined

  function handOver(): void {
    timer?.cancel()
    timer = undefined
    if (used === 0) return
    writer.write(chunk.subarray(0, used) as unknown as string)
    chunk = Buffer.allocUnsafe(chunkBytes)
    used = 0
  }

  return {
    write(line) {
      // A UTF-8 character takes at most 3 bytes per UTF-16 unit: a line that may not fit starts a new chunk, and
      // one longer than a chunk goes out on its own.
      if (used + line.length * 3 > chunkBytes) {
        handOver()
        if (line.length * 3 > chunkBytes) return void writer.write(Buffer.from(line, 'utf8') as unknown as string)
      }
      used += chunk.write(line, used, 'utf8')
      // The first line of a chunk starts the clock on it, so nothing sits in memory longer than flushMs.
      if (timer === undefined) timer = clock.setTimer(flushMs, handOver)
    },
    flushSync() {
      handOver()
      try {
        writer.flushSync()
      } catch {
        // Not open yet (a failure at the very start): nothing was written to it.
      }
    },
  }
}
