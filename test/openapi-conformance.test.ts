// The OpenAPI document against real answers, as strict third-party tools read it: a tour of every operation through
// HTTP, successes (support/openapi-tour*.ts) and failures (support/openapi-tour-errors.ts), each answer's status,
// body and headers checked against the document (support/openapi-check.ts), with no exception; every operation
// called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock, startTestApp, type TestApp } from './support/harness.js'
import { Conformance, type Document } from './support/openapi-check.js'
import { Tour, bankingTour, oauthTour, platformTour } from './support/openapi-tour.js'
import { ERROR_TOUR_ENV, errorTour } from './support/openapi-tour-errors.js'
import { reportingTour, webhooksTour } from './support/openapi-tour-merchant.js'

let t: TestApp
let tour: Tour
beforeAll(async () => {
  t = await startTestApp({ clock: new FakeClock(new Date('2026-02-01T09:00:00Z')), env: ERROR_TOUR_ENV })
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
  })

  it('describes every failure', async () => {
    await errorTour(tour)
    expect(tour.problems).toEqual([])
  })

  it('had every operation called', () => {
    expect(tour.check.uncovered()).toEqual([])
  })
})
