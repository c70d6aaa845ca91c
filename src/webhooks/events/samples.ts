// Realistic sample data for the sandbox trigger (POST /sandbox/v1/events): an invoice e-mail's fields for the
// invoicing events (the spec's `data` object of invoicing.customer.invoice.send, all strings), a report's outcome for
// the reporting events. The caller's `data` overrides members of it.
import { randomBytes, randomUUID } from 'node:crypto'
import { INVOICING_EVENTS, REPORT_EVENTS } from '../catalog.js'

export interface PayloadParts {
  data: Record<string, unknown>
  preferences?: { contacts: { firstName: string; lastName: string; contact: string; type: string }[] }
  metadata?: { from: { displayName: string }; reply: { email: string }; sentBy: string }
}

// A Map: the event type is the caller's text, and a plain object would answer `toString` or `constructor`.
const INVOICE_WORDING: ReadonlyMap<string, { subject: string; body: string; button: string }> = new Map([
  [INVOICING_EVENTS.send, { subject: 'Invoice from {m}', body: 'Please find your invoice below. You can pay it online.', button: 'Pay Invoice' }],
  [INVOICING_EVENTS.resend, { subject: 'Invoice from {m} (sent again)', body: 'We are sending this invoice again for your convenience.', button: 'Pay Invoice' }],
  [INVOICING_EVENTS.reminder, { subject: 'Reminder: invoice from {m} is due in 5 days', body: 'This is a friendly reminder that your invoice is due soon.', button: 'Pay Invoice' }],
  [INVOICING_EVENTS.overdueReminder, { subject: 'Overdue: invoice from {m}', body: 'Your invoice was due yesterday. Please pay it at your earliest convenience.', button: 'Pay Now' }],
  [INVOICING_EVENTS.paid, { subject: 'Receipt from {m}', body: 'Thank you, your invoice has been paid in full.', button: 'View Receipt' }],
  [INVOICING_EVENTS.partialPayment, { subject: 'Partial payment received by {m}', body: 'Thank you for your payment. A balance remains on this invoice.', button: 'Pay Balance' }],
  [INVOICING_EVENTS.cancel, { subject: 'Invoice from {m} cancelled', body: 'This invoice has been cancelled. No payment is due.', button: 'View Invoice' }],
])

/** Sample payload parts of `eventType` for `organizationId` at `now`; undefined for an event type without samples. */
export function samplePayload(eventType: string, organizationId: string, now: Date): PayloadParts | undefined {
  const wording = INVOICE_WORDING.get(eventType)
  if (wording) return sampleInvoice(eventType, wording, organizationId, now)
  if (Object.values(REPORT_EVENTS).includes(eventType as never)) return { data: sampleReport(eventType, organizationId, now) }
  return undefined
}

function sampleInvoice(eventType: string, wording: { subject: string; body: string; button: string }, organizationId: string, now: Date): PayloadParts {
  const merchantName = 'Sandbox Merchant'
  const invoiceNumber = String(10_000 + (randomBytes(2).readUInt16BE() % 90_000))
  const total = '125.00'
  const balance = eventType === INVOICING_EVENTS.paid || eventType === INVOICING_EVENTS.cancel ? '0.00' : eventType === INVOICING_EVENTS.partialPayment ? '75.00' : total
  const due = new Date(now.getTime() + (eventType === INVOICING_EVENTS.overdueReminder ? -1 : eventType === INVOICING_EVENTS.reminder ? 5 : 30) * 86_400_000)
  const link = `https://businesscentertest.example/ebc2/invoicing/pay/${organizationId}/${invoiceNumber}?version=v2.1`
  return {
    data: {
      merchantZip: '94105',
      thankYou: 'Thank you for your business.',
      subject: wording.subject.replace('{m}', merchantName),
      dueDate: due.toISOString().slice(0, 10),
      link,
      body: wording.body,
      merchantState: 'CA',
      merchantName,
      button: wording.button,
      invoiceBalance: balance,
      merchantAddress2: 'Suite 100',
      invoiceNumber,
      payerName: 'Jane Doe',
      customMessage: 'We appreciate your prompt payment.',
      currency: 'USD',
      merchantCity: 'San Francisco',
      emailTo: 'jane.doe@example.com',
      eventType,
      balanceAmount: balance,
      organizationID: organizationId,
      merchantPhone: '+1 415 555 0100',
      emailLanguage: 'en-US',
      invoiceUrl: link,
      merchantAddress: '1 Market Street',
      correlationID: randomUUID(),
      hello: 'Dear Jane Doe,',
    },
    preferences: { contacts: [{ firstName: 'Jane', lastName: 'Doe', contact: 'jane.doe@example.com', type: 'EMAIL' }] },
    metadata: { from: { displayName: merchantName }, reply: { email: 'billing@merchant.example' }, sentBy: 'Invoicing' },
  }
}

/** A report as GET /reporting/v3/reports/{reportId} answers it, with the event's own id and run, as the engine sends it. */
function sampleReport(eventType: string, organizationId: string, now: Date): Record<string, unknown> {
  const day = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10)
  const status = eventType === REPORT_EVENTS.completed ? 'COMPLETED' : eventType === REPORT_EVENTS.noData ? 'NO_DATA' : 'ERROR'
  const reportId = randomUUID()
  const at = now.toISOString()
  return {
    ...(status === 'COMPLETED' ? { _link: { reportDownload: { href: `/reporting/v3/report-downloads?organizationId=${organizationId}&reportDate=${day}&reportName=My%20Transaction%20Request%20Report`, method: 'GET' } } } : {}),
    reportDefinitionId: '210',
    reportName: 'My Transaction Request Report',
    reportMimeType: 'text/csv',
    reportFrequency: 'DAILY',
    status,
    reportStartTime: `${day}T00:00:00Z`,
    reportEndTime: `${day}T23:59:59Z`,
    timezone: 'GMT',
    reportId,
    organizationId,
    queuedTime: at,
    reportGeneratingTime: at,
    reportCompletedTime: at,
    subscriptionType: 'CUSTOM',
    reportEventId: `${reportId}.1`,
    run: 1,
  }
}
