// One attempt's HTTP request, as a pure function of the notification, the attempt and the key: the spec's headers
// and sample body, the Standard Webhooks headers, and both signatures over the exact body bytes sent.
import { standardSignatureHeader, vcSignatureHeader, type SigningKey } from '../signing.js'

export interface AttemptInput {
  notificationId: string
  webhookId: string
  /** The subscriber. */
  organizationId: string
  productId: string
  eventType: string
  eventDate: string
  /** The payload element as published (data, preferences, metadata, organizationId of the event). */
  payload: Record<string, unknown>
  /** 1 for the first attempt of the notification. */
  attemptNumber: number
  transactionTraceId: string
  key: SigningKey
  now: Date
  userAgent: string
}

export interface AttemptRequest {
  body: string
  headers: Record<string, string>
}

/** ISO 8601 with an offset (`+00:00`), as the spec's sample writes eventDate. */
export function withOffset(iso: string): string {
  return iso.endsWith('Z') ? `${iso.slice(0, -1)}+00:00` : iso
}

export function attemptRequest(a: AttemptInput): AttemptRequest {
  const retryNumber = a.attemptNumber - 1
  const requestType = retryNumber === 0 ? 'NEW' : 'RETRY'
  const body = JSON.stringify({
    notificationId: a.notificationId,
    retryNumber,
    eventType: a.eventType,
    eventDate: withOffset(a.eventDate),
    webhookId: a.webhookId,
    organizationId: a.organizationId,
    productId: a.productId,
    transactionTraceId: a.transactionTraceId,
    requestType,
    payloads: [a.payload],
  })
  const t = a.now.getTime()
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': a.userAgent,
      'v-c-signature': vcSignatureHeader(a.key, t, body),
      'v-c-event-type': a.eventType,
      'v-c-organization-id': a.organizationId,
      'v-c-product-name': a.productId,
      'v-c-request-type': requestType,
      'v-c-retry-count': String(retryNumber),
      'v-c-transaction-trace-id': a.transactionTraceId,
      'v-c-webhook-id': a.webhookId,
      'webhook-id': a.notificationId,
      'webhook-timestamp': String(Math.floor(t / 1000)),
      'webhook-signature': standardSignatureHeader(a.key.secret, a.notificationId, Math.floor(t / 1000), body),
    },
  }
}
