// The check the conformance test runs (support/openapi-check.ts) refuses what a strict client would: an answer
// to no documented operation, an undocumented status or media type, a body off its schema, a header the document
// speaks of but not for this answer, a required header missing or malformed; and it names the operations no
// request reached.
import { describe, expect, it } from 'vitest'
import { Conformance, type Document, type Exchange } from './support/openapi-check.js'

const DOC: Document = {
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            headers: { 'X-CorrelationID': { required: true, schema: { type: 'string' } }, 'Retry-After': { schema: { type: 'string', pattern: '^[0-9]+$' } } },
            content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } },
          },
          '304': {},
        },
      },
    },
    '/things': { post: { operationId: 'makeThing', responses: { '201': { headers: { ETag: { schema: { type: 'string' } } } } } } },
  },
}

const answer = (over: Partial<Exchange> = {}): Exchange => ({
  method: 'GET',
  url: '/things/1?x=1',
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-correlationid': 'c-1' },
  body: Buffer.from('{"id":"1"}'),
  ...over,
})

describe('the OpenAPI conformance check', () => {
  it('passes a conforming answer', () => {
    expect(new Conformance(DOC).check(answer())).toEqual([])
  })

  it('names every way an answer departs from the document', () => {
    const check = new Conformance(DOC)
    const one = (over: Partial<Exchange>) => check.check(answer(over)).join('\n')
    expect(one({ url: '/nothing' })).toMatch(/no documented operation/)
    expect(one({ status: 404 })).toMatch(/status not documented/)
    expect(one({ headers: { 'content-type': 'text/plain', 'x-correlationid': 'c' } })).toMatch(/media type "text\/plain" not documented/)
    expect(one({ body: Buffer.from('{"name":"x"}') })).toMatch(/body does not match the schema/)
    expect(one({ body: Buffer.from('{"id":') })).toMatch(/body is not JSON/)
    expect(one({ status: 304, headers: { 'x-correlationid': 'c' } })).toMatch(/a body .* where none is documented/)
    expect(one({ headers: { 'content-type': 'application/json' } })).toMatch(/required header x-correlationid missing/)
    expect(one({ headers: { 'content-type': 'application/json', 'x-correlationid': 'c', 'retry-after': 'soon' } })).toMatch(/header retry-after/)
    // ETag is one of the headers the document speaks of: sent where it is not documented, it is refused.
    expect(one({ headers: { 'content-type': 'application/json', 'x-correlationid': 'c', etag: '"1"' } })).toMatch(/header etag sent but not documented/)
  })

  it('names the operations no request reached', () => {
    const check = new Conformance(DOC)
    check.check(answer())
    expect(check.uncovered()).toEqual(['POST /things'])
  })
})
