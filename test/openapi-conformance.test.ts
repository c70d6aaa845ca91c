// The OpenAPI document against real answers, as strict third-party tools read it: a tour of every operation through
// HTTP, successes (support/openapi-tour*.ts) and failures (support/openapi-tour-errors.ts), each answer's status,
// body and headers checked against the document (support/openapi-check.ts), with no exception; every operation
// called; and the document's examples, which are the success tour's answers (npm run docs:openapi-examples writes
// them to docs/openapi-examples.json), the same as this run's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from './support/harness.js'
import { Conformance, type Document, type Media } from './support/openapi-check.js'
import { examplesOf, readExamples, writeExamples } from './support/openapi-examples.js'
import { Tour, bankingTour, oauthTour, platformTour } from './support/openapi-tour.js'
import { ERROR_TOUR_ENV, errorTour } from './support/openapi-tour-errors.js'
import { reportingTour, webhooksTour } from './support/openapi-tour-merchant.js'

let t: TestApp
let tour: Tour
beforeAll(async () => {
  // The retries' jitter fixed, so that the examples' next attempts are the same on every run.
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), env: ERROR_TOUR_ENV, webhooks: { random: () => 0.5 } })
  const served = await t.call('GET', '/openapi.json', { headers: { 'x-svc-key': undefined } })
  expect(served.status, served.text).toBe(200)
  tour = new Tour(t, new Conformance(served.json as Document))
})
afterAll(() => t.close())

// The steps share the tour, in order: the failures start from the successes' requests.
describe('the OpenAPI document against real answers', () => {
  it('describes every answer of the success tour', async () => {
    tour.recording = true
    await platformTour(tour)
    await bankingTour(tour)
    await oauthTour(tour)
    await reportingTour(tour)
    await webhooksTour(tour)
    tour.recording = false
    expect(tour.problems).toEqual([])
  }, 120_000)

  it('has the success tour’s answers as its examples (npm run docs:openapi-examples writes them)', () => {
    const examples = examplesOf(tour)
    if (process.env['OPENAPI_EXAMPLES'] === 'write') writeExamples(examples)
    expect(examples, 'run npm run docs:openapi-examples').toEqual(readExamples())
  })

  it('describes every failure', async () => {
    await errorTour(tour)
    expect(tour.problems).toEqual([])
  }, 120_000)

  it('had every operation called', () => {
    expect(tour.check.uncovered()).toEqual([])
  })
})

describe('the examples', () => {
  it('are in the document, each valid against its schema, with a success answer for every operation that has one', () => {
    const { check } = tour
    const examples = readExamples()
    const problems: string[] = []
    const placed = (where: string, media: Media | undefined, value: unknown) => {
      if (!media?.schema) return void problems.push(`${where}: not in the document`)
      if (JSON.stringify(media.example) !== JSON.stringify(value)) problems.push(`${where}: the document's example is not the file's`)
      const validate = check.validator(media.schema)
      if (!validate(value)) problems.push(`${where}: ${check.ajv.errorsText(validate.errors, { dataVar: 'example' })}`)
    }
    for (const { method, path, op } of check.operations) {
      const example = op.operationId === undefined ? undefined : examples[op.operationId]
      if (!example) problems.push(`${method} ${path}: no examples`)
      const answers = Object.entries(op.responses).some(([status, r]) => status.startsWith('2') && r.content)
      if (example && answers && !Object.keys(example.responses).some((status) => status.startsWith('2'))) problems.push(`${op.operationId}: no example of a success`)
    }
    for (const [id, example] of Object.entries(examples)) {
      const op = check.operations.find((o) => o.op.operationId === id)?.op
      for (const [media, value] of Object.entries(example.request ?? {})) placed(`${id} request ${media}`, op?.requestBody?.content[media], value)
      for (const [status, byMedia] of Object.entries(example.responses)) {
        for (const [media, value] of Object.entries(byMedia)) placed(`${id} ${status} ${media}`, op?.responses[status]?.content?.[media], value)
      }
    }
    expect(problems).toEqual([])
  })
})
