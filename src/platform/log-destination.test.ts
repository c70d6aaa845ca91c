import { mkdtempSync, openSync, readFileSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeClock } from '../../test/support/clock.js'
import { bufferedLogDestination } from './log-destination.js'

const opened: number[] = []
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd)
})

function target() {
  const file = join(mkdtempSync(join(tmpdir(), 'finapi-log-')), 'out.log')
  const fd = openSync(file, 'w')
  opened.push(fd)
  return { fd, read: () => readFileSync(file, 'utf8') }
}

/** The asynchronous writer finishes on its own time: wait (briefly) until the file holds what is expected. */
async function eventually(read: () => string, expected: string) {
  for (let i = 0; i < 200 && read() !== expected; i++) await new Promise((r) => setTimeout(r, 5))
  expect(read()).toBe(expected)
}

describe('bufferedLogDestination', () => {
  it('holds lines until a chunk is full, then writes them in order, whole', async () => {
    const clock = new FakeClock()
    const out = target()
    // A 38-byte line may need 114 bytes (3 per UTF-16 unit): four fit a 228-byte chunk, the fifth starts a new one.
    const dest = bufferedLogDestination({ fd: out.fd, chunkBytes: 228, flushMs: 250, clock })
    const lines = Array.from({ length: 12 }, (_, i) => `{"n":${10 + i},"pad":"${'x'.repeat(20)}"}\n`)
    expect(lines[0]).toHaveLength(38)
    for (const line of lines.slice(0, 4)) dest.write(line)
    await new Promise((r) => setTimeout(r, 30))
    expect(out.read()).toBe('')
    for (const line of lines.slice(4)) dest.write(line)
    await eventually(out.read, lines.slice(0, 8).join(''))
    // The last four wait for the next line or flushMs.
    await clock.tick(250)
    await eventually(out.read, lines.join(''))
    expect(clock.pendingTimers).toBe(0)
  })

  it('writes any text whole: several bytes a character, and a line longer than a chunk on its own', async () => {
    const clock = new FakeClock()
    const out = target()
    const dest = bufferedLogDestination({ fd: out.fd, chunkBytes: 64, flushMs: 250, clock })
    const lines = ['{"ü":"ünïcödé 😀"}\n', `{"long":"${'é'.repeat(100)}"}\n`, '{"after":1}\n']
    for (const line of lines) dest.write(line)
    await clock.tick(250)
    await eventually(out.read, lines.join(''))
  })

  it('writes what a quiet server holds within flushMs, on the injected clock', async () => {
    const clock = new FakeClock()
    const out = target()
    const dest = bufferedLogDestination({ fd: out.fd, chunkBytes: 16_384, flushMs: 250, clock })
    dest.write('{"a":1}\n')
    dest.write('{"a":2}\n')
    expect(clock.pendingTimers).toBe(1)
    await clock.tick(249)
    await new Promise((r) => setTimeout(r, 30))
    expect(out.read()).toBe('')
    await clock.tick(1)
    await eventually(out.read, '{"a":1}\n{"a":2}\n')
    expect(clock.pendingTimers).toBe(0)
  })

  it('flushSync writes everything held before it returns (shutdown, a fatal error)', () => {
    const clock = new FakeClock()
    const out = target()
    const dest = bufferedLogDestination({ fd: out.fd, chunkBytes: 16_384, flushMs: 250, clock })
    const many = Array.from({ length: 2_000 }, (_, i) => `{"line":${i}}\n`)
    for (const line of many) dest.write(line)
    dest.flushSync()
    expect(out.read()).toBe(many.join(''))
    expect(clock.pendingTimers).toBe(0)
  })
})
