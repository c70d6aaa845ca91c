// Which report a download names: the organization's completed report of that name whose window ends on that date
// in its own zone (and at reportTime, when several do). The file itself is sent by download.ts.
import { invalid, notFound } from '../../platform/errors.js'
import { offsetMs } from '../zoned-time.js'
import type { InstanceRow, ReportsService } from '../reports/service.js'
import { reportDate, reportTime } from '../reports/view.js'
import type { DownloadQuery } from './schemas.js'

const DAY_MS = 86_400_000

export interface ReportDownloads {
  /** The completed report a download names; notFound() otherwise, invalid() when several match and reportTime does not choose. */
  find(organizationId: string, query: DownloadQuery): Promise<InstanceRow>
}

export function createReportDownloads(deps: { reports: Pick<ReportsService, 'instancesEnding'> }): ReportDownloads {
  return {
    async find(organizationId, query) {
      const date = query.reportDate.replace(/-/g, '')
      const [y, m, d] = [Number(date.slice(0, 4)), Number(date.slice(4, 6)), Number(date.slice(6, 8))]
      const dayStart = Date.UTC(y, m - 1, d)
      if (new Date(dayStart).getUTCDate() !== d || new Date(dayStart).getUTCMonth() !== m - 1) throw invalid([{ field: 'reportDate', reason: 'is not a calendar date' }])
      // Every zone's local date lies within 14 hours of UTC's: fetch that span, then keep the exact local date.
      const candidates = await deps.reports.instancesEnding(organizationId, query.reportName, new Date(dayStart - 15 * 3_600_000).toISOString(), new Date(dayStart + DAY_MS + 15 * 3_600_000).toISOString())
      const iso = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`
      let matches = candidates.filter((row) => reportDate(row) === iso)
      if (query.reportTime !== undefined) matches = matches.filter((row) => sameTime(row, query.reportTime!))
      const completed = matches.filter((row) => row.status === 'COMPLETED')
      if (completed.length === 1) return completed[0]!
      if (completed.length > 1) {
        throw invalid([{ field: 'reportTime', reason: `${completed.length} reports named ${query.reportName} end on ${iso}; choose one with reportTime: ${completed.map(reportTime).join(', ')}` }])
      }
      const status = matches.at(-1)?.status
      throw notFound([{ field: 'reportName', reason: status ? `the report is ${status}${status === 'NO_DATA' ? ': no transactions in its window' : ''}` : 'no report of this name ends on this date' }])
    }
  }
}

/** reportTime names the window's end: `hh:mm[:ss]` in the report's zone, or with an offset, that offset's time of it. */
function sameTime(row: InstanceRow, text: string): boolean {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?(?:([ +-])(\d{2}):?(\d{2})|(Z))?$/.exec(text.trim())
  if (!m) return false
  const end = Date.parse(row.window_end)
  const offset = m[7] ? 0 : m[4] ? (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6])) * 60_000 : offsetMs(row.timezone, end)
  const local = new Date(end + offset)
  return local.getUTCHours() === Number(m[1]) && local.getUTCMinutes() === Number(m[2]) && local.getUTCSeconds() === Number(m[3] ?? 0)
}
