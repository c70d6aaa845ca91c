// The five on-demand reports through the official SDK in one pass, under whatever merchant configuration
// (authentication type) a test gives: each answer's data as the SDK's models hold it, for comparing schemes.
import { expect } from 'vitest'
import type { TestApp } from './harness.js'
import { day } from './on-demand.js'
import { cybersource, sdkCall } from './reporting.js'

export interface OnDemandAnswers {
  netFundings: unknown
  purchaseRefundDetails: unknown
  paymentBatchSummaries: unknown
  conversionDetails: unknown
  notificationOfChanges: unknown
}

/** Calls NetFundingsApi, PurchaseAndRefundDetailsApi, PaymentBatchSummariesApi, ConversionDetailsApi and NotificationOfChangesApi. */
export async function onDemandTour(t: TestApp, config: object, acting: string): Promise<OnDemandAnswers> {
  // The SDK is untyped (reporting.ts): its API classes are constructed with the configuration and a client.
  const api = (Api: new (config: object, client: unknown) => any) => new Api(config, new cybersource.ApiClient()) // eslint-disable-line @typescript-eslint/no-explicit-any
  const opts = { organizationId: acting }
  const ok = async (name: string, call: (cb: Parameters<Parameters<typeof sdkCall>[0]>[0]) => void) => {
    const res = await sdkCall(call)
    expect(res.error, `${name}: ${res.error?.response?.text ?? ''}`).toBeNull()
    expect(res.status, name).toBe(200)
    return res.data
  }
  const [from, to] = [day(t, -30), day(t, -2)]
  return {
    netFundings: await ok('getNetFundingDetails', (cb) => api(cybersource.NetFundingsApi).getNetFundingDetails(from, to, opts, cb)),
    purchaseRefundDetails: await ok('getPurchaseAndRefundDetails', (cb) => api(cybersource.PurchaseAndRefundDetailsApi).getPurchaseAndRefundDetails(day(t, -12), day(t, -10), { ...opts, paymentSubtype: 'ALL', viewBy: 'requestDate', offset: 2, limit: 25 }, cb)),
    paymentBatchSummaries: await ok('getPaymentBatchSummary', (cb) => api(cybersource.PaymentBatchSummariesApi).getPaymentBatchSummary(from, to, opts, cb)),
    conversionDetails: await ok('getConversionDetail', (cb) => api(cybersource.ConversionDetailsApi).getConversionDetail(from, to, opts, cb)),
    notificationOfChanges: await ok('getNotificationOfChangeReport', (cb) => api(cybersource.NotificationOfChangesApi).getNotificationOfChangeReport(from, to, cb)),
  }
}
