// The maintenance switch lives in the database so every server process sharing it obeys one `finapi
// maintenance on`. Each process polls it on a timer rather than per request, keeping the hot path free of I/O.
import type { Clock } from './clock.js'
import type { Db } from './db/database.js'
import { periodic } from './timers.js'

const KEY = 'maintenance'

export interface MaintenanceSwitch {
  isOn(): boolean
  set(on: boolean): Promise<void>
  /** Re-reads the stored state now. */
  refresh(): Promise<void>
  /** Polls the stored state every `intervalMs` until stop(); a second start() without stop() throws. */
  start(intervalMs: number): void
  stop(): void
}

export function createMaintenanceSwitch(deps: { db: Pick<Db, 'kysely'>; clock: Clock; onError?: (err: unknown) => void }): MaintenanceSwitch {
  const { db, clock } = deps
  let on = false

  const refresh = async () => {
    const row = await db.kysely.selectFrom('settings').select('value').where('key', '=', KEY).executeTakeFirst()
    on = row?.value === 'on'
  }
  // A failed poll keeps the last known state; readiness reports the database problem.
  const poller = periodic('the maintenance poll', clock, refresh, (err) => deps.onError?.(err))

  return {
    isOn: () => on,
    refresh,
    async set(value) {
      const now = clock.now().toISOString()
      const stored = value ? 'on' : 'off'
      await db.kysely
        .insertInto('settings')
        .values({ key: KEY, value: stored, updated_at: now })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: stored, updated_at: now }))
        .execute()
      on = value
    },
    start: poller.start,
    stop: poller.stop,
  }
}
