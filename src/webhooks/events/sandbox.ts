// The sandbox trigger: an event of any type with realistic sample data (samples.ts), the caller's `data` overriding
// members of it, published for the organization. The API's POST /sandbox/v1/events and the console's sandbox page
// both fire events through this one function, so they send the same payloads.
import type { Clock } from '../../platform/clock.js'
import { invalid } from '../../platform/errors.js'
import type { EventPublisher, Published } from '../types.js'
import { samplePayload } from './samples.js'

export interface TriggeredEvent extends Published {
  eventType: string
  organizationId: string
  /** The payload element sent. */
  payload: Record<string, unknown>
}

export interface SandboxTrigger {
  trigger(organizationId: string, eventType: string, data?: Record<string, unknown>): Promise<TriggeredEvent>
}

export function createSandboxTrigger(deps: { events: EventPublisher; clock: Clock }): SandboxTrigger {
  return {
    async trigger(organizationId, eventType, overrides = {}) {
      const sample = samplePayload(eventType, organizationId, deps.clock.now())
      if (!sample) throw invalid([{ field: 'eventType', reason: 'unknown event type (see GET /notification-subscriptions/v2/products/{organizationId})' }])
      const data = { ...sample.data, ...overrides }
      const published = await deps.events.publish({ eventType, organizationId, data, ...(sample.preferences ? { preferences: sample.preferences } : {}), ...(sample.metadata ? { metadata: sample.metadata } : {}), source: 'sandbox' })
      return { eventType, organizationId, ...published, payload: { data, ...(sample.preferences ? { preferences: sample.preferences } : {}), organizationId, ...(sample.metadata ? { metadata: sample.metadata } : {}) } }
    },
  }
}
