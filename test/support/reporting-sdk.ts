// Every ReportDefinitionsApi and ReportSubscriptionsApi operation of the official SDK, in one pass, under whatever
// merchant configuration (authentication type) a test gives: what each scheme's tests run to show the SDK works.
import { expect } from 'vitest'
import { cybersource, sdkCall } from './reporting.js'

export interface TourOptions {
  /** The SDK's merchant configuration. */
  config: object
  /** The organization every answer must be for. */
  acting: string
  /** Sent as the operations' organizationId, when given. */
  organizationId?: string
  /** A subscription name of this tour's own (several tours share one app). */
  reportName: string
}

const subscription = (name: string) => ({
  reportDefinitionName: 'PayerAuthDetailClass',
  reportFields: ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'VERes.Enrolled'],
  reportMimeType: 'text/csv',
  reportFrequency: 'DAILY',
  reportName: name,
  timezone: 'GMT',
})

/** Runs all seven operations (and a 304 and a 404) and checks each answer is for `acting`. */
export async function sdkTour(o: TourOptions): Promise<void> {
  const opts = o.organizationId === undefined ? {} : { organizationId: o.organizationId }
  const definitions = new cybersource.ReportDefinitionsApi(o.config, new cybersource.ApiClient())
  const subscriptions = new cybersource.ReportSubscriptionsApi(o.config, new cybersource.ApiClient())

  const list = await sdkCall((cb) => definitions.getResourceV2Info({ subscriptionType: 'CUSTOM', ...opts }, cb))
  expect(list.error, 'getResourceV2Info').toBeNull()
  expect(list.data.reportDefinitions).toHaveLength(18)
  const one = await sdkCall((cb) => definitions.getResourceInfoByReportDefinition('TransactionRequestClass', opts, cb))
  expect(one.error, 'getResourceInfoByReportDefinition').toBeNull()
  expect(one.data.attributes).toHaveLength(503)

  const created = await sdkCall((cb) => subscriptions.createSubscription(subscription(o.reportName), opts, cb))
  expect(created.error, 'createSubscription').toBeNull()
  expect(created.status).toBe(200)
  expect((await sdkCall((cb) => subscriptions.createSubscription(subscription(o.reportName), opts, cb))).status, 'unchanged').toBe(304)
  const got = await sdkCall((cb) => subscriptions.getSubscription(o.reportName, opts, cb))
  expect(got.error, 'getSubscription').toBeNull()
  expect(got.data).toMatchObject({ organizationId: o.acting, reportName: o.reportName, reportDefinitionName: 'PayerAuthDetailClass' })
  const all = await sdkCall((cb) => subscriptions.getAllSubscriptions(opts, cb))
  expect(all.error, 'getAllSubscriptions').toBeNull()
  expect(all.data.subscriptions.map((s: { reportName: string }) => s.reportName)).toContain(o.reportName)
  expect(all.data.subscriptions.every((s: { organizationId: string }) => s.organizationId === o.acting)).toBe(true)

  const classic = `${o.reportName}_classic`
  const predefined = await sdkCall((cb) => subscriptions.createStandardOrClassicSubscription({ reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC', reportName: classic }, opts, cb))
  expect(predefined.error, 'createStandardOrClassicSubscription').toBeNull()
  expect(predefined.status).toBe(201)

  for (const name of [o.reportName, classic]) {
    const deleted = await sdkCall((cb) => subscriptions.deleteSubscription(name, opts, cb))
    expect(deleted.error, 'deleteSubscription').toBeNull()
    expect(deleted.status).toBe(200)
  }
  expect((await sdkCall((cb) => subscriptions.getSubscription(o.reportName, opts, cb))).status, 'gone').toBe(404)
}
