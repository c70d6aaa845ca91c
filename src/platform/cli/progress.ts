// A progress bar for long commands (`finapi transactions generate`, `import`, …): one line on stderr, rewritten in
// place (`\r`, then erase to the end of the line), at most every MIN_INTERVAL_MS, showing done of total, a bar, the
// rate and the time left. Only a terminal gets it: when stderr is a file or a pipe nothing is written, so a log or a
// script's output holds only the command's own lines. Ours rather than a library's: it is 100 lines, and the clock
// and the stream are injected so the tests drive it without a terminal or a wait.

/** What the bar writes to: process.stderr, or a test's stand-in. */
export interface ProgressStream {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

export interface ProgressOptions {
  stream?: ProgressStream
  /** Milliseconds, monotonic; performance.now by default. */
  now?: () => number
  /** What is counted: "rows", "lines"…; shown after the numbers. */
  unit?: string
  /** How a count (and the rate) is shown: thousands separated by default; `bytes` for sizes. */
  format?: (n: number) => string
}

export interface Progress {
  /** `done` so far (of `total`, which may be corrected). Drawn when MIN_INTERVAL_MS have passed since the last draw. */
  update(done: number, total?: number): void
  /** Draws the final state and ends the line, so what is printed next starts on a line of its own. */
  finish(): void
}

/** About ten redraws a second: smooth to a reader, and no measurable cost to the work. */
export const MIN_INTERVAL_MS = 100
const BAR_WIDTH = 20
/** Before this much time and work, a rate would be noise: the time left shows as --:--. */
const SETTLE_MS = 500

const silent: Progress = { update: () => {}, finish: () => {} }

/** The stream a bar was drawn on and not finished: an error printed now must start on a new line. */
let active: ProgressStream | undefined

/** Ends an unfinished bar's line (a command failed part way), so the error message gets a line of its own. */
export function endProgressLine(): void {
  active?.write('\n')
  active = undefined
}

/** A bar labelled `label` counting up to `total` (undefined when unknown: then done and the rate only). */
export function createProgress(label: string, total: number | undefined, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr
  if (stream.isTTY !== true) return silent
  const now = options.now ?? (() => performance.now())
  const unit = options.unit ? ` ${options.unit}` : ''
  const count = options.format ?? thousands
  const started = now()
  let lastDraw = -Infinity
  let done = 0
  let finished = false

  const draw = (at: number, end: string) => {
    lastDraw = at
    const elapsed = at - started
    const rate = elapsed > 0 ? (done * 1000) / elapsed : 0
    const settled = elapsed >= SETTLE_MS && done > 0
    const parts = [label]
    if (total !== undefined && total > 0) {
      const fraction = Math.min(1, done / total)
      const filled = Math.round(fraction * BAR_WIDTH)
      parts.push(`${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`, `${Math.floor(fraction * 100)}%`.padStart(4), `${count(done)}/${count(total)}${unit}`)
    } else {
      parts.push(`${count(done)}${unit}`)
    }
    if (settled || finished) parts.push(`${count(Math.round(rate))}/s`)
    if (finished) parts.push(`in ${duration(elapsed / 1000)}`)
    else if (total !== undefined && total > 0) parts.push(settled && rate > 0 ? `${duration(Math.max(0, total - done) / rate)} left` : '--:-- left')
    const line = fit(parts.join(' '), stream.columns)
    stream.write(`\r${line}\x1b[K${end}`)
    if (!end) active = stream
  }

  return {
    update(value, newTotal) {
      if (finished) return
      done = value
      if (newTotal !== undefined) total = newTotal
      const at = now()
      if (at - lastDraw >= MIN_INTERVAL_MS) draw(at, '')
    },
    finish() {
      if (finished) return
      finished = true
      draw(now(), '\n')
      if (active === stream) active = undefined
    },
  }
}

/** 1234567 → "1,234,567": the digits of a large count are read at a glance. */
export function thousands(n: number): string {
  return n.toLocaleString('en-US')
}

/** 12345678 → "12.3 MB". */
export function bytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = n
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`
}

/** Seconds as m:ss, or h:mm:ss from an hour. */
export function duration(seconds: number): string {
  const s = Math.round(seconds)
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m)
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(r).padStart(2, '0')}`
}

/** A line never wider than the terminal: a wrapped line would no longer be rewritten in place by `\r`. */
function fit(line: string, columns: number | undefined): string {
  const width = (columns || 80) - 1
  return line.length > width ? line.slice(0, Math.max(0, width)) : line
}

/**
 * A line saying what is under way ("preparing the database…") until `clear()`: for a wait whose length is not known
 * in rows. Only on a terminal, like the bar.
 */
export function showStatus(text: string, stream: ProgressStream = process.stderr): { clear(): void } {
  if (stream.isTTY !== true) return { clear: () => {} }
  stream.write(`\r${fit(text, stream.columns)}\x1b[K`)
  active = stream
  return {
    clear() {
      if (active !== stream) return
      stream.write('\r\x1b[K')
      active = undefined
    },
  }
}
