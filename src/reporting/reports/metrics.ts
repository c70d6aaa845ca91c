// The report engine's Prometheus metrics, in the reporting feature's own registry (written on /metrics after the
// platform's): how late generation starts after a report is due, how long it takes by outcome, and how many
// reports there are in each status (counted in the database when scraped, so every process reports the same).
import { Gauge, Histogram, Registry } from 'prom-client'

export interface ReportMetrics {
  readonly registry: Registry
  /** Seconds from the instant a report was due (its window's end, or when a one-time report was queued) to its start. */
  lag(seconds: number): void
  generated(seconds: number, status: string): void
}

export function createReportMetrics(countByStatus: () => Promise<Record<string, number>>): ReportMetrics {
  const registry = new Registry()
  const lag = new Histogram({
    name: 'finapi_report_scheduler_lag_seconds',
    help: 'Time from the instant a report was due to the start of its generation',
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21600],
    registers: [registry],
  })
  const generation = new Histogram({
    name: 'finapi_report_generation_seconds',
    help: 'Time to generate and store one report, by the status it ended in',
    labelNames: ['status'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800],
    registers: [registry],
  })
  new Gauge({
    name: 'finapi_report_instances',
    help: 'Report instances by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = await countByStatus()
      this.reset()
      for (const status of ['PENDING', 'QUEUED', 'RUNNING', 'COMPLETED', 'NO_DATA', 'ERROR']) this.set({ status }, counts[status] ?? 0)
    },
  })
  return {
    registry,
    lag: (seconds) => lag.observe(Math.max(0, seconds)),
    generated: (seconds, status) => generation.observe({ status }, seconds),
  }
}
