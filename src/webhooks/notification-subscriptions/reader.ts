// Subscriptions as the delivery path reads them, remembered for a second: every attempt needs its subscription, and
// most attempts of a busy moment are for few subscriptions. Changes made in this process forget the entry at once;
// another process's change is seen within the second.
import type { Executor } from '../../platform/db/database.js'
import type { Subscription, SubscriptionReader } from '../types.js'
import * as repo from './repository.js'

const TTL_MS = 1_000

export function createSubscriptionReader(db: Executor, now: () => number = () => performance.now()): SubscriptionReader {
  // The promise is remembered, so the many attempts that miss at once share one read.
  const cache = new Map<string, { at: number; value: Promise<Subscription | undefined> }>()
  return {
    find(id) {
      const hit = cache.get(id)
      if (hit && now() - hit.at < TTL_MS) return hit.value
      const value = repo.find(db, id)
      if (cache.size >= 10_000) cache.clear()
      cache.set(id, { at: now(), value })
      value.catch(() => cache.delete(id))
      return value
    },
    forget: (id) => void cache.delete(id),
  }
}
