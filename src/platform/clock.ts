// Time comes through this interface so that expiry, lockouts and schedules are tested with a fake clock.
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }
