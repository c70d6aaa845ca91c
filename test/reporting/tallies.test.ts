// The tallies, events and detail rows the store keeps as it writes (tallies added to chunk by chunk: PostgreSQL in
// the upsert, SQLite in code; a capture's authorization found in its chunk or in the rows before) are exactly what
// migration 0015 derives in one pass from the same rows.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as m0015 from '../../src/migrations/0015_transaction_tallies.js'
import type { Db } from '../../src/platform/db/database.js'
import { insertTransactions } from '../../src/reporting/transactions/repository.js'
import { storeGenerated } from '../../src/reporting/transactions/generate.js'
import { openMigratedTestDatabase } from '../support/database.js'

let db: Db
let close: () => Promise<void>
beforeAll(async () => {
  ;({ db, close } = await openMigratedTestDatabase())
})
afterAll(() => close())

const snapshot = async () => ({
  tallies: await db.kysely.selectFrom('transaction_tallies').selectAll().orderBy(['organization_id', 'tally', 'bucket', 'category', 'payment_subtype', 'currency']).execute(),
  events: await db.kysely.selectFrom('transaction_events').selectAll().orderBy(['organization_id', 'kind', 'event_time', 'request_id']).execute(),
  // As text: comparing thousands of Buffers byte by byte is slow.
  details: (await db.kysely.selectFrom('transaction_details').selectAll().orderBy(['organization_id', 'request_id']).execute()).map((d) => ({ ...d, sections: Buffer.from(d.sections).toString('utf8') })),
})

describe('tallies', () => {
  it('kept while storing equal those derived afresh from the rows', async () => {
    // Days of 3,000 rows span several 2,000-row statements, so buckets are added to again and again.
    await storeGenerated(db, { organizationId: 'tally-a', days: 6, perDay: 3000, seed: 'tallies', end: '2026-03-10' })
    await storeGenerated(db, { organizationId: 'tally-b', days: 3, perDay: 500, seed: 'tallies-b', end: '2026-03-10' })
    await db.kysely.transaction().execute((trx) =>
      insertTransactions(trx, db.dialect, [
        { organizationId: 'tally-a', requestId: 'x1', type: 'refund', requestTime: '2026-03-09T10:00:00.000Z', submissionTime: '2026-03-09T23:00:00.000Z', fundingDate: '2026-03-10', currency: 'USD', amount: '0.1', settlementCurrency: 'USD', settlementAmount: '0.1', fields: { Funding: { Status: 'F' } } },
        { organizationId: 'tally-a', requestId: 'x2', type: 'refund', requestTime: '2026-03-09T10:00:00.000Z', submissionTime: '2026-03-09T23:00:00.000Z', fundingDate: '2026-03-10', currency: 'USD', amount: '99999999999999.9999', settlementCurrency: 'USD', settlementAmount: '99999999999999.9999', fields: {} },
      ]),
    )
    const kept = await snapshot()
    expect(kept.tallies.length).toBeGreaterThan(100)
    expect(kept.events.length).toBeGreaterThan(50)
    // Captures whose authorization was stored in an earlier statement still show it.
    expect(kept.details.filter((d) => d.sections.split('\n')[2]).length).toBeGreaterThan(kept.details.length / 2)
    const rows = await db.kysely.selectFrom('transaction_tallies').select(sql<string>`sum(count)`.as('n')).where('tally', '=', 'rows').executeTakeFirstOrThrow()
    expect(Number(rows.n)).toBe(6 * 3000 + 3 * 500 + 2)

    await m0015.down(db.kysely as never)
    await m0015.up(db.kysely as never)
    expect(await snapshot()).toEqual(kept)
  })
})
