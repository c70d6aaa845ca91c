// Counters a feature keeps of its own events (say, refused calls by reason), exposed on /metrics beside the request
// metrics. Plain maps, like the request metrics: counting costs a map update. A label's values must come from a
// closed set (a union of reasons), never from input, so the number of series stays bounded and no secret is written.

export class LabelledCounter<Value extends string = string> {
  private readonly counts = new Map<Value, number>()

  constructor(
    /** The Prometheus name, e.g. `reporting_authentication_failures_total`. */
    readonly name: string,
    readonly help: string,
    /** The one label's name, e.g. `reason`. */
    readonly label: string,
  ) {}

  /** Counts one event (or `by` of them); returns the new count of its value. */
  inc(value: Value, by = 1): number {
    const count = (this.counts.get(value) ?? 0) + by
    this.counts.set(value, count)
    return count
  }

  /** Every value counted so far with its count. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts)
  }

  /** The Prometheus text lines: HELP, TYPE and one sample per value counted. */
  exposition(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`]
    for (const [value, count] of this.counts) lines.push(`${this.name}{${this.label}="${escapeLabel(value)}"} ${count}`)
    return lines
  }
}

/** Prometheus label values escape backslash, double quote and newline. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}
