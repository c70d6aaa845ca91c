// Table types of the transaction store (src/reporting/transactions/; migrations 0009 and 0015). Amounts are decimal
// text, never floats.

/** One transaction of a merchant (see src/reporting/transactions/ and migration 0009). */
export interface TransactionsTable {
  /** The merchant id, e.g. `testrest`. */
  organization_id: string
  request_id: string
  type: string
  request_time: string
  submission_time: string | null
  /** `YYYY-MM-DD`. */
  funding_date: string | null
  payment_subtype: string | null
  currency: string
  /** Exact decimal text, e.g. `"19.99"`; never a float. */
  amount: string
  settlement_currency: string | null
  settlement_amount: string | null
  batch_id: string | null
  decision: string | null
  /** JSON text: group → field → value, every catalog field not held in a column above. */
  fields: string
}

export interface TransactionSandboxLoadsTable {
  organization_id: string
  seed: string
  end_date: string
  rows: number
  created_at: string
}

/** Counts and exact sums the on-demand reports read (reporting/transactions/tallies.ts, migration 0015). */
export interface TransactionTalliesTable {
  organization_id: string
  /** rows, request, batch or funding. */
  tally: string
  /** Hour start (ISO-8601 UTC), funding date (`YYYY-MM-DD`), or ''. */
  bucket: string
  category: string
  payment_subtype: string
  currency: string
  count: number
  /** Exact decimal text. */
  amount: string
  settled_count: number
  funded_count: number
  /** Exact decimal text. */
  funded_amount: string
}

/** Times held inside a transaction's fields that reports select by (conversions, notifications of change). */
export interface TransactionEventsTable {
  organization_id: string
  kind: string
  event_time: string
  request_id: string
}

/** A submitted purchase or refund rendered as purchase and refund details list it (reporting/transactions/details.ts). */
export interface TransactionDetailsTable {
  organization_id: string
  request_id: string
  request_time: string
  submission_time: string
  /** '' for a transaction without one (an eCheck). */
  payment_subtype: string
  /** One line of JSON per section, empty where the request has none: UTF-8 bytes on SQLite, text on PostgreSQL. */
  sections: Buffer | string
}

/** The transaction store's tables, by name (part of reporting's, ../tables.ts). */
export interface TransactionsTables {
  transactions: TransactionsTable
  transaction_sandbox_loads: TransactionSandboxLoadsTable
  transaction_tallies: TransactionTalliesTable
  transaction_events: TransactionEventsTable
  transaction_details: TransactionDetailsTable
}
