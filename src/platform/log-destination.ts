// The server's log destination: lines are encoded straight into a memory chunk, and a chunk is written out when it
// is full (or has waited flushMs), so a line costs one UTF-8 encoding into memory and a write is made once per
// 64 KB, not once per line.
//
// Every write is a synchronous write(2) from this thread, made only at those moments. Nothing is ever in flight
// elsewhere, so flushSync (a shutdown, a fatal error) writes exactly what is left, in order, and returns when it is
// written. The writer this replaced handed chunks to a thread-pool write: flushSync then wrote the rest beside a
// chunk still in flight, and a process exiting at once lost that chunk or wrote it after the lines that followed.
// A write(2) of 64 KB to a file costs tens of microseconds, once per few hundred lines.
//
// Where the descriptor does not block (a non-blocking pipe or socket whose reader is behind), write(2) takes part of
// a chunk or answers EAGAIN: the rest stays queued and is tried again on the clock, so the event loop never spins.
// Where it blocks (a file; a pipe as a shell or a process manager hands it over), a full pipe holds the process
// until its reader catches up, as it would for any synchronous logger: that back-pressure is the price of never
// holding an unbounded amount of log in memory. What is queued is bounded (maxQueuedBytes); beyond it whole chunks
// are dropped and counted, and a line saying how many is written once the reader has caught up.
//
// Why not the writer's own buffering (pino.destination's `minLength`): its write() measures the byte length of the
// whole pending buffer on every line (Buffer.byteLength over a growing string), which measured at 2–3 µs a line
// with a 4 KB buffer, about a tenth of a cached account read.
import { writeSync as fsWriteSync } from 'node:fs'
import type { DestinationStream } from 'pino'
import type { Clock, Timer } from './clock.js'

export interface BufferedLogDestination extends DestinationStream {
  write(line: string): void
  /**
   * Writes everything held, synchronously, before it returns: on shutdown and before the process dies of an
   * unexpected error. A reader that takes nothing for flushSyncTimeoutMs is given up on (and said so on stderr).
   */
  flushSync(): void
}

export interface BufferedLogOptions {
  /** The file descriptor written to (1: stdout). */
  fd: number
  /** Bytes held before they are written. */
  chunkBytes: number
  /** A quiet server's lines still go out within this. */
  flushMs: number
  clock: Clock
  /** Bytes queued behind a reader that is not keeping up before whole chunks are dropped. Default 16 MiB. */
  maxQueuedBytes?: number
  /** How long flushSync waits for a reader that takes nothing. Default 10 s. */
  flushSyncTimeoutMs?: number
  /** write(2); replaced only by tests that need EAGAIN, partial writes or a failure on demand. */
  writeSync?: (fd: number, data: Uint8Array) => number
  /** Where the destination says it could not write (default: a line on stderr). */
  report?: (message: string) => void
}

/** The next try after EAGAIN: soon enough not to fall behind, late enough not to spin. */
const RETRY_MS = 10
const SLEEP = new Int32Array(new SharedArrayBuffer(4))

function isWouldBlock(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return code === 'EAGAIN' || code === 'EWOULDBLOCK'
}

export function bufferedLogDestination(options: BufferedLogOptions): BufferedLogDestination {
  const { fd, chunkBytes, flushMs, clock } = options
  const maxQueuedBytes = options.maxQueuedBytes ?? 16 * 1024 * 1024
  const flushSyncTimeoutMs = options.flushSyncTimeoutMs ?? 10_000
  const writeSync = options.writeSync ?? ((target: number, data: Uint8Array) => fsWriteSync(target, data))

  let chunk = Buffer.allocUnsafe(chunkBytes)
  let used = 0
  let linesInChunk = 0
  let timer: Timer | undefined
  /** Chunks not yet wholly written, oldest first; the first may be partly written (a subarray of what is left). */
  const queue: Buffer[] = []
  let queuedBytes = 0
  let retry: Timer | undefined
  let droppedLines = 0
  /** Set by a write failure other than EAGAIN (the reader is gone): from then on lines are dropped. */
  let broken = false

  const report =
    options.report ??
    ((message: string) => {
      try {
        fsWriteSync(2, `finapi: ${message}\n`)
      } catch {
        // stderr is gone too: there is nowhere left to say it.
      }
    })

  function fail(err: unknown): void {
    broken = true
    queue.length = 0
    queuedBytes = 0
    retry?.cancel()
    retry = undefined
    const { code, message } = err as NodeJS.ErrnoException
    report(`writing the log failed (${code ?? message}); later log lines are dropped`)
  }

  /** Writes queued chunks until the queue is empty or the descriptor would block; true when it is empty. */
  function writeQueued(): boolean {
    while (queue.length > 0) {
      const head = queue[0]!
      let n: number
      try {
        n = writeSync(fd, head)
      } catch (err) {
        if (isWouldBlock(err)) return false
        fail(err)
        return true
      }
      queuedBytes -= n
      if (n >= head.length) queue.shift()
      else queue[0] = head.subarray(n)
    }
    if (droppedLines > 0) {
      const notice = `{"level":40,"time":${clock.nowMs()},"msg":"log lines dropped: the log's reader did not keep up","dropped":${droppedLines}}\n`
      droppedLines = 0
      const bytes = Buffer.from(notice)
      queue.push(bytes)
      queuedBytes += bytes.length
      return writeQueued()
    }
    return true
  }

  function drain(): void {
    if (retry !== undefined || broken) return
    if (!writeQueued()) {
      retry = clock.setTimer(RETRY_MS, () => {
        retry = undefined
        drain()
      })
    }
  }

  /** Moves the chunk being filled to the queue; the caller writes. */
  function seal(): void {
    timer?.cancel()
    timer = undefined
    if (used === 0) return
    if (broken) {
      // Nothing can be written any more; the chunk is simply reused.
    } else if (queuedBytes + used > maxQueuedBytes) {
      droppedLines += linesInChunk
    } else {
      queue.push(chunk.subarray(0, used))
      queuedBytes += used
      // A queued chunk is the queue's from now on: the next one is a fresh allocation.
      chunk = Buffer.allocUnsafe(chunkBytes)
    }
    used = 0
    linesInChunk = 0
  }

  function handOver(): void {
    seal()
    drain()
  }

  function push(line: string): void {
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit: a line that may not fit starts a new chunk, and one
    // longer than a chunk goes out on its own.
    if (used + line.length * 3 > chunkBytes) {
      seal()
      if (line.length * 3 > chunkBytes) {
        if (!broken) {
          const bytes = Buffer.from(line, 'utf8')
          queue.push(bytes)
          queuedBytes += bytes.length
        }
        return drain()
      }
      drain()
    }
    used += chunk.write(line, used, 'utf8')
    linesInChunk++
    // The first line of a chunk starts the clock on it, so nothing sits in memory longer than flushMs.
    if (timer === undefined) timer = clock.setTimer(flushMs, handOver)
  }

  return {
    write(line) {
      if (!broken) push(line)
    },
    flushSync() {
      seal()
      retry?.cancel()
      retry = undefined
      // A real-time bound, not the injected clock: this is how long the process is held up at exit, and a test's
      // fake clock never moves while this thread waits.
      const deadline = performance.now() + flushSyncTimeoutMs
      while (!broken && !writeQueued()) {
        if (performance.now() > deadline) {
          report(`${queuedBytes} bytes of log were not written: its reader took nothing for ${flushSyncTimeoutMs} ms`)
          return
        }
        // The reader is behind: wait a millisecond for it, without spinning.
        Atomics.wait(SLEEP, 0, 0, 1)
      }
    },
  }
}
