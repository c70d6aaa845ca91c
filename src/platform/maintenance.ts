// The maintenance switch lives in the database so every server process sharing it obeys one `finapi
// maintenance on`. Each process polls it on a timer rather than per request, keeping the hot path free of I/O.
import type { Clock } from './clock.js'
import type { Db } from './db/database.js'

const KEY = 'maintenance'

export interface MaintenanceSwitch {
  isOn(): boolean
  set(on: boolean): Promise<void>
  /** Re-reads the stored state now. */
  refresh(): Promise<void>
  /** Polls the stored state every `intervalMs` until stop(). */
  start(intervalMs: number): void
  stop(): void
}

export function createMaintenanceSwitch(deps: { db: Pick<Db, 'kysely'>; clock: Clock; onError?: (err: unknown) => void }): MaintenanceSwitch {
  const { db, clock } = deps
  let on = false
  let timer: NodeJS.Timeout | undefined

  const refresh = async () => {
    const row = await db.kysely.selectFrom('settings').select('value').where('key', '=', KEY).executeTakeFirst()
    on = row?.value === 'on'
  }

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
    start(intervalMs) {
      timer = setInterval(() => {
        // A failed poll keeps the last known state; readiness reports the database problem.
        refresh().catch((err: unknown) => deps.onError?.(err))
      }, intervalMs)
      timer.unref()
    },
    stop() {
      if (timer) clearInterval(timer)
    },
  }
}
