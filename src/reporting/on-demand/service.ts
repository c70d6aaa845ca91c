// The on-demand reports of the reporting interface, built from the database handle and the organization tree
// (partners' views of their merchants). Each report reads one organization's data, or its subtree's, and nothing
// else; the organization is the one the gateway resolved for the call.
import type { OrganizationService } from '../../organizations/service.js'
import type { Dialect, Executor } from '../../platform/db/database.js'
import { createDetailsReport, type Answer } from './details.js'
import { createEventReports, type EventPage, type EventPageQuery } from './events.js'
import { createFundingsReport } from './fundings.js'
import { PageCache } from './page-cache.js'
import type { ConversionEntry, DetailsQuery, FundingsQuery, NoticeEntry, NetFundings, NotificationOfChanges, PaymentBatchSummaries, SummariesQuery, WindowQuery } from './schemas.js'
import { createSummariesReport } from './summaries.js'

export type { Answer, EventPage, EventPageQuery }

export interface OnDemandService {
  /** A page of submitted purchases and refunds, as JSON, CSV or XML by `accept`. */
  purchaseRefundDetails(organizationId: string, query: DetailsQuery, accept: string | undefined): Promise<Answer>
  netFundings(organizationId: string, query: FundingsQuery): Promise<NetFundings>
  /** Each funding date's net total per currency (what netFundings gives for that day alone), from one read. */
  netTotalsByDay(organizationId: string, query: FundingsQuery): Promise<{ day: string; currency: string; value: string }[]>
  paymentBatchSummaries(organizationId: string, query: SummariesQuery): Promise<PaymentBatchSummaries>
  /** Every conversion in the window, streamed as JSON, CSV or XML by `accept`. */
  conversionDetails(organizationId: string, query: WindowQuery, accept: string | undefined): Promise<Answer>
  notificationOfChanges(organizationId: string, query: WindowQuery): Promise<NotificationOfChanges>
  /**
   * The window's conversions a page at a time, in conversionDetails' order (its entries as its JSON has them), for
   * the console: not on the wire. A cursor this service did not write is invalid; an empty window not found.
   */
  conversionPage(organizationId: string, query: WindowQuery, at: EventPageQuery): Promise<EventPage<ConversionEntry>>
  /** The window's notifications of change a page at a time, as conversionPage. */
  noticePage(organizationId: string, query: WindowQuery, at: EventPageQuery): Promise<EventPage<NoticeEntry>>
}

export interface OnDemandDeps {
  db: Executor
  dialect: Dialect
  organizations: Pick<OrganizationService, 'find' | 'descendants'>
  /** Bytes of rendered pages kept (default 64 MiB); 0 keeps none. */
  pageCacheBytes?: number
}

export function createOnDemandService(deps: OnDemandDeps): OnDemandService {
  const { db, organizations } = deps
  const events = createEventReports({ db })
  const fundings = createFundingsReport({ db, organizations })
  return {
    purchaseRefundDetails: createDetailsReport({ db, dialect: deps.dialect, cache: new PageCache(deps.pageCacheBytes) }),
    netFundings: fundings.netFundings,
    netTotalsByDay: fundings.netTotalsByDay,
    paymentBatchSummaries: createSummariesReport({ db, organizations }),
    conversionDetails: events.conversionDetails,
    notificationOfChanges: events.notificationOfChanges,
    conversionPage: events.conversionPage,
    noticePage: events.noticePage,
  }
}
