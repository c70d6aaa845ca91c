// The success tour of the merchant API family (reporting, the sandbox clock, webhook management), signed with the
// sandbox's HTTP Signature key of testrest, each operation called as a merchant's integration would on its first day:
// subscriptions, one-time reports in each format and their downloads (gzip, a range, a revalidation), the on-demand
// reports in their formats, then a signing key, a certificate and a webhook through its whole life. /metrics last.
import type { Tour } from './openapi-tour.js'
import { mleCertificate } from './webhooks.js'

export const TOUR_SUBSCRIPTION = { reportDefinitionName: 'PayerAuthDetailClass', reportName: 'Tour_Subscription', reportFields: ['VERes.Enrolled'], timezone: 'GMT' }
/** A one-time report of a closed day of the sandbox data (the tour's clock is at 2026-02-01). */
export const tourReport = (reportName: string, reportMimeType: string) => ({
  reportDefinitionName: 'TransactionRequestClass',
  reportName,
  reportMimeType,
  reportFields: ['Request.RequestID', 'Request.TransactionDate', 'PaymentData.CurrencyCode', 'BillTo.City'],
  timezone: 'GMT',
  reportStartTime: '2026-01-20T00:00:00Z',
  reportEndTime: '2026-01-20T02:00:00Z',
})
const FORMATS = { csv: 'text/csv', xml: 'application/xml', json: 'application/json' } as const
const WINDOW = 'startTime=2026-01-10T00:00:00Z&endTime=2026-01-11T00:00:00Z'

export async function reportingTour(tour: Tour): Promise<{ reportIds: string[] }> {
  await tour.signed('GET', '/reporting/v3/report-definitions')
  await tour.signed('GET', '/reporting/v3/report-definitions/TransactionRequestClass')
  await tour.signed('PUT', '/reporting/v3/report-subscriptions', { body: TOUR_SUBSCRIPTION })
  await tour.signed('PUT', '/reporting/v3/report-subscriptions', { body: TOUR_SUBSCRIPTION })
  await tour.signed('PUT', '/reporting/v3/predefined-report-subscriptions', { body: { reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC' } })
  await tour.signed('PUT', '/reporting/v3/predefined-report-subscriptions', { body: { reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC' } })
  await tour.signed('GET', '/reporting/v3/report-subscriptions')
  await tour.signed('GET', `/reporting/v3/report-subscriptions/${TOUR_SUBSCRIPTION.reportName}`)
  await tour.signed('DELETE', `/reporting/v3/report-subscriptions/${TOUR_SUBSCRIPTION.reportName}`)

  const reportIds: string[] = []
  for (const [name, type] of Object.entries(FORMATS)) {
    const created = await tour.signed('POST', '/reporting/v3/reports', { body: tourReport(`Tour_${name}`, type) })
    reportIds.push(String(created.headers['location']).split('/').pop()!)
  }
  await tour.signed('POST', '/reporting/v3/reports', { body: tourReport('Tour_csv', FORMATS.csv) })
  await tour.t.app.services.jobs.runDue()
  await tour.signed('GET', '/reporting/v3/reports?startTime=2026-01-20T00:00:00Z&endTime=2026-01-21T00:00:00Z&timeQueryType=reportTimeFrame')
  await tour.signed('GET', `/reporting/v3/reports/${reportIds[0]}`)
  for (const name of Object.keys(FORMATS)) await tour.signed('GET', `/reporting/v3/report-downloads?reportName=Tour_${name}&reportDate=2026-01-20`)
  const download = '/reporting/v3/report-downloads?reportName=Tour_csv&reportDate=2026-01-20'
  const gzip = await tour.signed('GET', download, { headers: { 'accept-encoding': 'gzip' } })
  await tour.signed('GET', download, { headers: { range: 'bytes=0-15' } })
  await tour.signed('GET', download, { headers: { 'if-none-match': String(gzip.headers['etag']), 'accept-encoding': 'gzip' } })
  await tour.signed('GET', download, { headers: { range: 'bytes=100000-' } })

  for (const accept of ['application/json', 'application/hal+json', 'text/csv', 'application/xml']) {
    await tour.signed('GET', `/reporting/v3/purchase-refund-details?${WINDOW}&limit=2`, { headers: { accept } })
    await tour.signed('GET', `/reporting/v3/conversion-details?startTime=2026-01-01T00:00:00Z&endTime=2026-01-20T00:00:00Z`, { headers: { accept } })
  }
  await tour.signed('GET', '/reporting/v3/net-fundings?startTime=2026-01-01T00:00:00Z&endTime=2026-01-03T00:00:00Z')
  await tour.signed('GET', '/reporting/v3/payment-batch-summaries?startTime=2026-01-01T00:00:00Z&endTime=2026-01-03T00:00:00Z')
  await tour.signed('GET', '/reporting/v3/notification-of-changes?startTime=2025-11-05T00:00:00Z&endTime=2026-02-01T00:00:00Z')

  await tour.signed('GET', '/sandbox/v1/clock')
  await tour.signed('POST', '/sandbox/v1/clock', { body: { to: '2026-02-01T10:00:00Z' } })
  return { reportIds }
}

export async function webhooksTour(tour: Tour): Promise<{ webhookId: string; notificationId: string }> {
  await tour.signed('POST', '/kms/egress/v2/keys-sym', { body: {} })
  await tour.signed('POST', '/kms/egress/v2/keys-asym', { body: { keyInformation: { pub: mleCertificate().pub } } })
  await tour.signed('GET', '/notification-subscriptions/v2/products/testrest')
  const body = { name: 'Tour receiver', description: 'Invoices', products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: 'http://127.0.0.1:9/hook' }
  const created = await tour.signed('POST', '/notification-subscriptions/v2/webhooks', { body })
  const id = created.json.webhookId as string
  await tour.signed('GET', '/notification-subscriptions/v2/webhooks')
  await tour.signed('GET', `/notification-subscriptions/v2/webhooks/${id}`)
  await tour.signed('PATCH', `/notification-subscriptions/v2/webhooks/${id}`, { body: { name: 'Tour receiver, renamed' } })
  await tour.signed('PUT', `/notification-subscriptions/v2/webhooks/${id}/status`, { body: { status: 'INACTIVE' } })
  await tour.signed('PUT', `/notification-subscriptions/v2/webhooks/${id}/status`, { body: { status: 'ACTIVE' } })
  // The test call is attempted during the request: the delivery log, read before any event (whose deliveries are
  // made in the background), shows it alone, the same on every run.
  await tour.signed('POST', `/notification-subscriptions/v1/webhooks/${id}`, { body: {} })
  const log = await tour.signed('GET', '/webhooks/v1/notifications')
  const notificationId = String(log.json?.notifications?.[0]?.notificationId)
  await tour.signed('GET', `/webhooks/v1/notifications/${notificationId}`)
  await tour.signed('POST', '/webhooks/v1/events', { body: { eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: 'INV-1' } } })
  await tour.signed('POST', '/sandbox/v1/events', { body: { eventType: 'reporting.report.no-data' } })
  await tour.signed('POST', `/webhooks/${id}/replays`, { body: { byDeliveryStatus: { status: 'HELD', hoursBack: 1 } } })
  await tour.signed('POST', `/nrtf/v1/webhooks/${id}/replays`, { body: { byDeliveryStatus: { status: 'FAILED', hoursBack: 1 } } })
  await tour.signed('DELETE', `/notification-subscriptions/v2/webhooks/${id}`)
  await tour.send('GET', '/metrics')
  return { webhookId: id, notificationId }
}
