// The products and event types an organization may subscribe to: the spec's invoicing events (product
// customerInvoicing, the reference's seven event types) and this project's own reporting events, published by the
// report engine (product finapiReporting). The catalog is data; findProductsToSubscribe answers it as it stands.

export interface EventTypeInfo {
  eventName: string
  displayName: string
}

export interface ProductInfo {
  productId: string
  productName: string
  eventTypes: readonly EventTypeInfo[]
}

export const INVOICING_PRODUCT = 'customerInvoicing'
export const REPORTING_PRODUCT = 'finapiReporting'

export const INVOICING_EVENTS = {
  send: 'invoicing.customer.invoice.send',
  cancel: 'invoicing.customer.invoice.cancel',
  overdueReminder: 'invoicing.customer.invoice.overdue-reminder',
  paid: 'invoicing.customer.invoice.paid',
  partialPayment: 'invoicing.customer.invoice.partial-payment',
  reminder: 'invoicing.customer.invoice.reminder',
  resend: 'invoicing.customer.invoice.resend',
} as const

/** The report engine's events: a report finished with rows, found nothing to report, or failed. */
export const REPORT_EVENTS = {
  completed: 'reporting.report.completed',
  noData: 'reporting.report.no-data',
  error: 'reporting.report.error',
} as const

/** The event type of the test notification (POST /notification-subscriptions/v1/webhooks/{id}); not subscribable. */
export const TEST_EVENT = 'webhook.test'

export const PRODUCTS: readonly ProductInfo[] = [
  {
    productId: INVOICING_PRODUCT,
    productName: 'Invoicing',
    eventTypes: [
      { eventName: INVOICING_EVENTS.send, displayName: 'Invoice sent' },
      { eventName: INVOICING_EVENTS.cancel, displayName: 'Invoice cancelled' },
      { eventName: INVOICING_EVENTS.overdueReminder, displayName: 'Invoice overdue reminder (1 day after the due date)' },
      { eventName: INVOICING_EVENTS.paid, displayName: 'Invoice paid' },
      { eventName: INVOICING_EVENTS.partialPayment, displayName: 'Invoice partially paid' },
      { eventName: INVOICING_EVENTS.reminder, displayName: 'Invoice reminder (5 days before the due date)' },
      { eventName: INVOICING_EVENTS.resend, displayName: 'Invoice sent again' },
    ],
  },
  {
    productId: REPORTING_PRODUCT,
    productName: 'Reporting (finapi)',
    eventTypes: [
      { eventName: REPORT_EVENTS.completed, displayName: 'Report completed and ready to download' },
      { eventName: REPORT_EVENTS.noData, displayName: 'Report ran and found no data' },
      { eventName: REPORT_EVENTS.error, displayName: 'Report failed' },
    ],
  },
]

const productOfEvent = new Map(PRODUCTS.flatMap((p) => p.eventTypes.map((e) => [e.eventName, p.productId] as const)))

/** The product an event type belongs to; undefined for an event type nobody can subscribe to. */
export function productOf(eventType: string): string | undefined {
  return productOfEvent.get(eventType)
}

export function findProduct(productId: string): ProductInfo | undefined {
  return PRODUCTS.find((p) => p.productId === productId)
}

export const ALL_EVENT_TYPES: readonly string[] = [...productOfEvent.keys()]
