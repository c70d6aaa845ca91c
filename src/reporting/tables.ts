// Table types of reporting: subscriptions (migration 0013), the report engine's (src/reporting/reports/,
// src/reporting/scheduler/; migration 0016), and the transaction store's (transactions/tables.ts).
import type { TransactionsTables } from './transactions/tables.js'

export type ReportStatus = 'PENDING' | 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'NO_DATA' | 'ERROR'

/**
 * One report: a subscription's window (subscription_name set, unique per organization and window) or a one-time
 * request (request_hash set, unique per organization). What it reports is copied in when it is queued, so a later
 * change of the subscription never changes a report already made. Times are ISO-8601 UTC text.
 */
export interface ReportInstancesTable {
  id: string
  organization_id: string
  report_name: string
  subscription_name: string | null
  request_hash: string | null
  subscription_type: string
  report_definition_name: string
  /** DAILY, WEEKLY, MONTHLY, USER_DEFINED or ADHOC. */
  report_frequency: string
  report_mime_type: string
  /** JSON text. */
  report_fields: string
  report_filters: string
  report_preferences: string
  group_name: string | null
  timezone: string
  /** Inclusive. */
  window_start: string
  /** Exclusive: a scheduled report's run instant. */
  window_end: string
  status: ReportStatus
  queued_at: string | null
  started_at: string | null
  completed_at: string | null
  /** How many times generation started (a retry or a takeover after a crash starts it again). */
  runs: number
  /** The job attempt generating it now (`<job id>:<attempt>`): only that run's results are recorded. */
  run_token: string | null
  row_count: number | null
  /** Bytes of the file as served uncompressed. */
  content_bytes: number | null
  /** Bytes stored (gzip). */
  stored_bytes: number | null
  /** Hex SHA-256 of the stored (gzip) bytes. */
  sha256: string | null
  blob_key: string | null
  error: string | null
  created_at: string
  updated_at: string
}

/** Each active subscription's next run (the end of its open, PENDING window), as of its last change. */
export interface ReportSchedulesTable {
  organization_id: string
  report_name: string
  /** The subscription's updated_at this row was computed from: a different one means the subscription changed. */
  subscription_updated_at: string
  next_run_at: string
  updated_at: string
}

/** An instance that ended (COMPLETED, NO_DATA, ERROR), written in the same transaction, for webhooks to deliver. */
export interface ReportEventsTable {
  id: string
  instance_id: string
  /** The instance's run that ended (unique with instance_id). */
  run: number
  organization_id: string
  event_type: 'COMPLETED' | 'NO_DATA' | 'ERROR'
  /** JSON text: the report's search-result fields. */
  payload: string
  created_at: string
}

/** Sandbox only: how far an organization has moved its reporting clock ahead of the real one. */
export interface ReportClocksTable {
  organization_id: string
  /** Decimal text of milliseconds (no 32-bit integer limit on either dialect). */
  offset_ms: string
  updated_at: string
}

/** A report subscription of one organization; the list members are JSON text. */
export interface ReportSubscriptionsTable {
  organization_id: string
  report_name: string
  subscription_type: 'CUSTOM' | 'CLASSIC' | 'STANDARD'
  subscription_status: 'ACTIVE' | 'INACTIVE'
  report_definition_name: string
  report_mime_type: string
  report_frequency: string
  report_interval: string | null
  timezone: string
  /** HHMM */
  start_time: string
  start_day: number | null
  report_fields: string
  report_filters: string
  report_preferences: string
  group_name: string | null
  created_at: string
  updated_at: string
}

/** Reporting's tables, by name: its part of the Database type (platform/db/schema.ts). */
export interface ReportingTables extends TransactionsTables {
  report_subscriptions: ReportSubscriptionsTable
  report_instances: ReportInstancesTable
  report_schedules: ReportSchedulesTable
  report_events: ReportEventsTable
  report_clocks: ReportClocksTable
}

declare module '../platform/db/schema.js' {
  interface FeatureTables {
    reporting: ReportingTables
  }
}
