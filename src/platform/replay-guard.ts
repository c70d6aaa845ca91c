// The one memory of credentials already used, for every scheme that must refuse a second use while the credential
// could still be accepted: the reporting family's HTTP Signatures of writes, its JWT ids (jti) and OAuth's DPoP proofs.
// It lives in the database (table replay_guard, migration 0020), so every process sharing the database shares it,
// and each use is one atomic statement: two processes (or two requests) spending the last use at once cannot both
// succeed. Its users pass a digest naming the use, never the credential itself, and decide how many uses it has.
import { sql } from 'kysely'
import type { Clock } from './clock.js'
import { compiledWriteOnce } from './db/compiled.js'
import type { Executor } from './db/database.js'

export interface ReplayGuard {
  /**
   * Spends one of the `uses` (1 unless told) that `key` has until `until`; false when they are all spent. A row whose
   * time is up (one housekeeping has not deleted yet) is taken over as new.
   */
  spend(key: string, until: Date, uses?: number): Promise<boolean>
  /** Housekeeping: deletes what can no longer be accepted anyway. */
  prune(): Promise<number>
}

// One statement on both databases: the insert, or (on the primary key's conflict) one more use of a live row, or the
// takeover of an expired one. The SET expressions all read the row as it was. Every JWT call and signed write runs
// it, so it is compiled once and only re-bound: building it each time cost about as much as running it. Its values,
// in the order the SQL binds them: the key, 1, the expiry, the time three times, the uses allowed.
const SPEND = compiledWriteOnce((db) =>
  db
    .insertInto('replay_guard')
    .values({ key_hash: '', uses: 1, expires_at: '' })
    .onConflict((oc) =>
      oc
        .column('key_hash')
        .doUpdateSet({
          uses: sql<number>`case when replay_guard.expires_at <= ${''} then 1 else replay_guard.uses + 1 end`,
          expires_at: sql<string>`case when replay_guard.expires_at <= ${''} then excluded.expires_at else replay_guard.expires_at end`,
        })
        .where((eb) => eb.or([eb('replay_guard.expires_at', '<=', ''), eb('replay_guard.uses', '<', 0)])),
    ),
)

export function createReplayGuard(deps: { db: Executor; clock: Clock }): ReplayGuard {
  const { db, clock } = deps
  return {
    async spend(key, until, uses = 1) {
      const now = clock.now().toISOString()
      return (await SPEND(db, [key, 1, until.toISOString(), now, now, now, uses])) > 0n
    },

    async prune() {
      const result = await db.deleteFrom('replay_guard').where('expires_at', '<=', clock.now().toISOString()).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}
