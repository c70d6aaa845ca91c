// The progress bar as a terminal receives it, driven by a stand-in stream and clock: what a line shows, how often
// it is redrawn, how it ends, and that a pipe gets nothing.
import { describe, expect, it } from 'vitest'
import { bytes, createProgress, duration, endProgressLine, MIN_INTERVAL_MS, showStatus } from './progress.js'

function terminal(isTTY = true, columns = 100) {
  const writes: string[] = []
  let ms = 0
  return {
    stream: { isTTY, columns, write: (text: string) => writes.push(text) },
    now: () => ms,
    advance: (by: number) => (ms += by),
    writes,
  }
}

describe('the progress bar', () => {
  it('shows done of total, a bar, the rate and the time left, rewritten in place', () => {
    const t = terminal()
    const bar = createProgress('generating', 1_000_000, { stream: t.stream, now: t.now, unit: 'rows' })
    bar.update(0)
    t.advance(2000)
    bar.update(250_000)
    expect(t.writes).toHaveLength(2)
    // Before the rate has settled, the time left is not guessed.
    expect(t.writes[0]).toBe('\rgenerating ░░░░░░░░░░░░░░░░░░░░   0% 0/1,000,000 rows --:-- left\x1b[K')
    expect(t.writes[1]).toBe('\rgenerating █████░░░░░░░░░░░░░░░  25% 250,000/1,000,000 rows 125,000/s 0:06 left\x1b[K')
  })

  it('redraws at most every MIN_INTERVAL_MS, however often it is told', () => {
    const t = terminal()
    const bar = createProgress('importing', 100, { stream: t.stream, now: t.now })
    for (let done = 1; done <= 50; done++) {
      bar.update(done)
      t.advance(10)
    }
    // 50 updates over 500 ms: the first, then one per 100 ms.
    expect(t.writes).toHaveLength(500 / MIN_INTERVAL_MS)
    expect(t.writes.at(-1)).toContain(' 41/100 ')
  })

  it('ends with the final count, the overall rate and the time taken, and a new line', () => {
    const t = terminal()
    const bar = createProgress('generating', 600, { stream: t.stream, now: t.now, unit: 'rows' })
    bar.update(300)
    t.advance(50)
    bar.update(600) // within the interval: not drawn
    t.advance(1450)
    bar.finish()
    bar.finish() // once only
    bar.update(700) // after the end: ignored
    expect(t.writes).toHaveLength(2)
    expect(t.writes[1]).toBe('\rgenerating ████████████████████ 100% 600/600 rows 400/s in 0:02\x1b[K\n')
  })

  it('counts without a bar when the total is unknown, and formats sizes', () => {
    const t = terminal()
    const report = createProgress('generating daily', undefined, { stream: t.stream, now: t.now, unit: 'rows' })
    t.advance(1000)
    report.update(12_345)
    expect(t.writes[0]).toBe('\rgenerating daily 12,345 rows 12,345/s\x1b[K')
    const file = createProgress('importing', undefined, { stream: t.stream, now: t.now, format: bytes })
    t.advance(1000)
    file.update(5_000_000, 20_000_000)
    expect(t.writes[1]).toMatch(/^\rimporting █████░+ {2}25% 5\.0 MB\/20\.0 MB/)
    expect([bytes(999), bytes(1_500), bytes(2_340_000_000)]).toEqual(['999 B', '1.5 kB', '2.3 GB'])
    expect([duration(5), duration(65), duration(3_725)]).toEqual(['0:05', '1:05', '1:02:05'])
  })

  it('never writes a line wider than the terminal, which would break the rewrite in place', () => {
    const t = terminal(true, 40)
    createProgress('generating', 1_000_000, { stream: t.stream, now: t.now, unit: 'rows' }).update(10)
    expect(t.writes[0]!.replace('\r', '').replace('\x1b[K', '').length).toBe(39)
  })

  it('writes nothing when stderr is a pipe or a file', () => {
    const t = terminal(false)
    const bar = createProgress('generating', 10, { stream: t.stream, now: t.now })
    bar.update(5)
    bar.finish()
    showStatus('preparing the database…', t.stream).clear()
    expect(t.writes).toEqual([])
  })

  it('ends an unfinished line before an error is printed, and only then', () => {
    const t = terminal()
    createProgress('generating', 10, { stream: t.stream, now: t.now }).update(5)
    endProgressLine()
    endProgressLine()
    expect(t.writes.slice(1)).toEqual(['\n'])
    const status = showStatus('preparing the database…', t.stream)
    status.clear()
    endProgressLine()
    expect(t.writes.slice(2)).toEqual(['\rpreparing the database…\x1b[K', '\r\x1b[K'])
  })
})
