// A probe feature mounted behind the gateway, so the gateway's rules are tested (and benchmarked) on real
// routes of every shape: a GET with a query parameter, a POST with a JSON body, and one that fails unexpectedly.
import { PassThrough } from 'node:stream'
import { Type } from 'typebox'
import type { V2Routes } from '../../src/banking/feature.js'
import { SUCCESS } from '../../src/banking/errors.js'
import { successBody } from '../../src/banking/gateway/schemas.js'

export const probeFeature: V2Routes = async (v2) => {
  v2.get(
    '/v2/probe',
    {
      schema: {
        operationId: 'probeGet',
        tags: ['probe'],
        querystring: Type.Object({ echo: Type.Optional(Type.String({ maxLength: 20 })) }),
        response: { 200: successBody({ echo: Type.String() }) },
      },
    },
    async (request) => ({ status: SUCCESS, echo: request.query.echo ?? 'pong' }),
  )

  v2.post(
    '/v2/probe',
    {
      schema: {
        operationId: 'probePost',
        tags: ['probe'],
        body: Type.Object({ name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) }),
        response: { 200: successBody({ name: Type.String(), count: Type.Integer() }) },
      },
    },
    async (request) => ({ status: SUCCESS, name: request.body.name, count: request.body.count }),
  )

  v2.get('/v2/probe/fail', { schema: { operationId: 'probeFail', tags: ['probe'] } }, async () => {
    throw new Error('secret internal detail: connection string postgres://user:hunter2@db')
  })
}

/**
 * A probe route that answers only when released, to test request deadlines: `slow.arrived` resolves once a request
 * is being handled, `slow.release()` lets every waiting request finish.
 */
export function slowProbe() {
  let arrive: () => void = () => {}
  let release: () => void = () => {}
  const arrived = new Promise<void>((resolve) => (arrive = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  const routes: V2Routes = async (v2) => {
    v2.get('/v2/probe/slow', { schema: { operationId: 'probeSlow', tags: ['probe'] } }, async () => {
      arrive()
      await released
      return { status: SUCCESS }
    })
  }
  return { routes, arrived, release }
}

/**
 * A probe route whose answer streams: its headers and first chunk go out at once, the rest only when released (a
 * long report download, to test that a request deadline does not cut a body already being sent).
 */
export function streamingProbe() {
  let arrive: () => void = () => {}
  let release: () => void = () => {}
  const arrived = new Promise<void>((resolve) => (arrive = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  const routes: V2Routes = async (v2) => {
    v2.get('/v2/probe/stream', { schema: { operationId: 'probeStream', tags: ['probe'] } }, async (_request, reply) => {
      const body = new PassThrough()
      body.write('first,')
      void released.then(() => body.end('last'))
      void reply.type('text/plain').send(body)
      // Once the first chunk has left, the handler has answered: the rest is the body's own pace.
      setImmediate(arrive)
      return reply
    })
  }
  return { routes, arrived, release }
}
