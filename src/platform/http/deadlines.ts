// A limit on how long any request may take to be answered once it has arrived. A request still unanswered at its
// deadline is answered with the `timeout` domain error, so its family's contract renders it (API-523 on /v2);
// whatever the handler does later is dropped. Requests are tracked in one map and swept on the clock's timer,
// rather than with a timer per request, so the hot path pays two map operations and tests move a fake clock.
import type { FastifyReply } from 'fastify'
import type { Clock } from '../clock.js'
import { timeout } from '../errors.js'
import { every } from '../timers.js'

export interface RequestDeadlines {
  /** Called as a request arrives. */
  started(reply: FastifyReply): void
  /** Called once a request has ended, answered or not. */
  completed(reply: FastifyReply): void
  /** Sweeps every `sweepMs` until stop(). */
  start(sweepMs: number): void
  stop(): void
}

export function createRequestDeadlines(deps: { clock: Clock; limitMs: number; onError: (err: unknown) => void }): RequestDeadlines {
  const { clock, limitMs } = deps
  const inflight = new Map<FastifyReply, number>()
  let stop: (() => void) | undefined

  function sweep(): Promise<void> {
    const cutoff = clock.now().getTime() - limitMs
    for (const [reply, startedAt] of inflight) {
      // A Map iterates in insertion order, so the first request still in time ends the sweep.
      if (startedAt > cutoff) break
      inflight.delete(reply)
      // Headers sent: the handler has answered, and what is left is a body streaming at the client's pace (a report
      // download of hundreds of MB). Fastify's `sent` stays false until that body ends, and a timeout sent over it
      // destroyed the connection mid-download.
      if (!reply.sent && !reply.raw.destroyed && !reply.raw.headersSent) {
        reply.log.warn({ limitMs }, 'request took too long; answered with a timeout')
        // Sent as an error, so the route's own error family renders it.
        reply.send(timeout([{ reason: `no answer within ${limitMs} ms` }]))
      }
    }
    return Promise.resolve()
  }

  return {
    started: (reply) => void inflight.set(reply, clock.nowMs()),
    completed: (reply) => void inflight.delete(reply),
    start(sweepMs) {
      stop?.()
      stop = every(clock, sweepMs, sweep, deps.onError)
    },
    stop() {
      stop?.()
      stop = undefined
    },
  }
}
