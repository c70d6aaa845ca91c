// The report definitions the service offers: the spec's 18 names with the public ids (reference README) and the
// catalog groups each report is built from. RecurringBillingDetailClass has no published id: 621, beside
// SubscriptionDetailClass's 620 and unused by the public table, is this server's choice.
export const REPORT_MIME_TYPES = ['application/xml', 'text/csv'] as const
export type ReportMimeType = (typeof REPORT_MIME_TYPES)[number]
export const SUBSCRIPTION_TYPES = ['CLASSIC', 'CUSTOM', 'STANDARD'] as const
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number]

export interface DefinitionData {
  name: string
  id: number
  /** The report's family, sent as `type`. */
  type: string
  title: string
  description: string
  /** The catalog groups its fields come from (`TransactionRequestClass` uses the reference's 503 fields instead). */
  groups: readonly string[]
}

/** Fields every report carries first, as TransactionRequestClass does; the first three are required. */
export const REQUEST_FIELDS = ['Request.RequestID', 'Request.TransactionDate', 'Request.MerchantID', 'Request.MerchantReferenceNumber'] as const

export const DEFINITIONS: readonly DefinitionData[] = [
  { name: 'TransactionRequestClass', id: 210, type: 'transaction', title: 'Transaction Request Detail', description: 'Every transaction request, with its application results, payment, customer and risk data', groups: [] },
  { name: 'PaymentBatchDetailClass', id: 211, type: 'payment', title: 'Payment Batch Detail', description: 'Payments submitted for settlement, by batch', groups: ['Batch', 'Application', 'PaymentData', 'BillTo'] },
  { name: 'ExceptionDetailClass', id: 212, type: 'exception', title: 'Exception Detail', description: 'Transactions that failed or need attention after they were submitted', groups: ['Exception', 'PaymentData'] },
  { name: 'ProcessorSettlementDetailClass', id: 213, type: 'settlement', title: 'Processor Settlement Detail', description: 'Settlement results reported by the processor', groups: ['Settlement', 'PaymentData'] },
  { name: 'ProcessorEventsDetailClass', id: 214, type: 'event', title: 'Processor Events Detail', description: 'Events the processor reported for transactions (declines, chargebacks, corrections)', groups: ['Event', 'PaymentData'] },
  { name: 'FundingDetailClass', id: 215, type: 'funding', title: 'Funding Detail', description: 'Funds transferred to the merchant, with fees and exchange rates', groups: ['Funding', 'BankInfo'] },
  { name: 'AgingDetailClass', id: 216, type: 'settlement', title: 'Aging Detail', description: 'Transactions not yet settled, by age', groups: ['Settlement', 'PaymentData'] },
  { name: 'ChargebackAndRetrievalDetailClass', id: 217, type: 'chargeback', title: 'Chargeback and Retrieval Detail', description: 'Chargebacks and retrieval requests with their cases and adjustments', groups: ['ChargebackAndRetrieval', 'PaymentData'] },
  { name: 'DepositDetailClass', id: 218, type: 'deposit', title: 'Deposit Detail', description: 'Deposits into the merchant bank account', groups: ['Deposit', 'BankInfo'] },
  { name: 'FeeDetailClass', id: 219, type: 'fee', title: 'Fee Detail', description: 'Fees charged per transaction: interchange, assessments, discount and per-item fees', groups: ['Fee', 'FeeSummary'] },
  { name: 'InvoiceSummaryClass', id: 220, type: 'invoice', title: 'Invoice Summary', description: 'Invoices billed to the organization, with their line items', groups: ['Invoice', 'LineItems'] },
  { name: 'PayerAuthDetailClass', id: 221, type: 'payerauth', title: 'Payer Authentication Detail', description: 'Payer authentication enrollment checks and their results', groups: ['VEReq', 'VERes', 'SCAExemption', 'PaymentData'] },
  { name: 'ConversionDetailClass', id: 222, type: 'conversion', title: 'Conversion Detail', description: 'Decision changes made on reviewed orders', groups: ['Conversion'] },
  { name: 'SubscriptionDetailClass', id: 620, type: 'subscription', title: 'Subscription Detail', description: 'Stored payment subscriptions and their tokens', groups: ['TMSToken', 'Token', 'BillTo', 'PaymentData'] },
  { name: 'ServiceFeeDetailClass', id: 271, type: 'fee', title: 'Service Fee Detail', description: 'Service fees charged with transactions', groups: ['Fee', 'PaymentData'] },
  { name: 'GatewayTransactionRequestClass', id: 310, type: 'transaction', title: 'Gateway Transaction Request Detail', description: 'Transaction requests processed through the gateway', groups: ['Application', 'AuthorizationResults', 'PaymentData', 'BillTo', 'ShipTo'] },
  { name: 'DecisionManagerEventDetailClass', id: 400, type: 'risk', title: 'Decision Manager Event Detail', description: 'Fraud screening decisions and the risk data behind them', groups: ['Risk', 'Conversion', 'Device'] },
  { name: 'RecurringBillingDetailClass', id: 621, type: 'subscription', title: 'Recurring Billing Detail', description: 'Payments made by recurring billing subscriptions', groups: ['TMSToken', 'Batch', 'PaymentData', 'BillTo'] },
]
