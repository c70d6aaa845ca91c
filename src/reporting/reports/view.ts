// A report instance as clients see it: the search result and detail shapes of the reference, every time written in
// the report's own zone with its offset, and the download link (reportDate: the local date of the window's last
// instant; reportTime: the local time of the window's end).
import type { ReportDetail, SearchResult } from './schemas.js'
import type { InstanceRow } from './repository.js'
import { formatInZone, isoDate, localDateTime } from '../zoned-time.js'

export const REPORT_DOWNLOADS_PATH = '/reporting/v3/report-downloads'

const at = (iso: string, zone: string) => formatInZone(Date.parse(iso), zone)

/** `YYYY-MM-DD`: the date, in the report's zone, of the last instant of its window. */
export function reportDate(row: Pick<InstanceRow, 'window_end' | 'timezone'>): string {
  return isoDate(localDateTime(row.timezone, Date.parse(row.window_end) - 1))
}

/** `hh:mm:ss±hh:mm`: the end of the window in the report's zone. */
export function reportTime(row: Pick<InstanceRow, 'window_end' | 'timezone'>): string {
  return at(row.window_end, row.timezone).slice(11)
}

export function downloadHref(row: InstanceRow, withOrganization: boolean): string {
  const query = new URLSearchParams({ reportDate: reportDate(row), reportName: row.report_name, reportTime: reportTime(row) })
  if (withOrganization) query.set('organizationId', row.organization_id)
  return `${REPORT_DOWNLOADS_PATH}?${query.toString().replace(/\+/g, '%20')}`
}

export function searchResult(row: InstanceRow, definitionId: number | undefined, withOrganization = false): SearchResult {
  const zone = row.timezone
  return {
    ...(row.status === 'COMPLETED' ? { _link: { reportDownload: { href: downloadHref(row, withOrganization), method: 'GET' } } } : {}),
    reportDefinitionId: String(definitionId ?? ''),
    reportName: row.report_name,
    reportMimeType: row.report_mime_type,
    reportFrequency: row.report_frequency,
    status: row.status,
    reportStartTime: at(row.window_start, zone),
    reportEndTime: at(row.window_end, zone),
    timezone: zone,
    reportId: row.id,
    organizationId: row.organization_id,
    ...(row.queued_at ? { queuedTime: at(row.queued_at, zone) } : {}),
    ...(row.started_at ? { reportGeneratingTime: at(row.started_at, zone) } : {}),
    ...(row.completed_at ? { reportCompletedTime: at(row.completed_at, zone) } : {}),
    subscriptionType: row.subscription_type,
    ...(row.group_name ? { groupId: row.group_name } : {}),
  }
}

export function reportDetail(row: InstanceRow, definitionId: number | undefined): ReportDetail {
  return {
    organizationId: row.organization_id,
    reportId: row.id,
    reportDefinitionId: String(definitionId ?? ''),
    reportName: row.report_name,
    reportMimeType: row.report_mime_type,
    reportFrequency: row.report_frequency,
    reportFields: JSON.parse(row.report_fields) as string[],
    reportStatus: row.status,
    reportStartTime: at(row.window_start, row.timezone),
    reportEndTime: at(row.window_end, row.timezone),
    timezone: row.timezone,
    reportFilters: JSON.parse(row.report_filters) as Record<string, string[]>,
    reportPreferences: JSON.parse(row.report_preferences) as ReportDetail['reportPreferences'],
    ...(row.group_name ? { groupId: row.group_name } : {}),
  }
}
