import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeClock } from '../../test/support/clock.js'
import { bufferedLogDestination } from './log-destination.js'

const opened: number[] = []
const folders: string[] = []
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd)
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function target() {
  const folder = mkdtempSync(join(tmpdir(), 'finapi-log-'))
  folders.push(folder)
  const file = join(folder, 'out.log')
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

  it('flushSync under a slow pipe writes every line of each round before it returns, in order, even just before a SIGKILL', async () => {
    const rounds = 20
    const lines = 1500
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../test/fixtures/slow-pipe-logger.ts'), String(rounds), String(lines)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const parts: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (part: Buffer) => parts.push(part))
    child.stderr.on('data', (part: Buffer) => (stderr += part.toString()))
    // A reader that stops for a moment, again and again: the pipe fills, and the child's writes wait on it.
    let paused = false
    const toggler = setInterval(() => {
      paused = !paused
      if (paused) child.stdout.pause()
      else child.stdout.resume()
    }, 15)
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)))
    clearInterval(toggler)
    expect(stderr).toBe('')
    expect(signal).toBe('SIGKILL')
    const got = Buffer.concat(parts).toString('utf8').split('\n')
    const pad = 'x'.repeat(60)
    const expected: string[] = []
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < lines; i++) expected.push(`{"round":${r},"line":${i},"pad":"${pad}"}`)
      expected.push(`END ${r}`)
    }
    expected.push('')
    const firstDifference = expected.findIndex((line, i) => got[i] !== line)
    expect({ firstDifference, got: got[firstDifference], lines: got.length }).toEqual({ firstDifference: -1, got: undefined, lines: expected.length })
  })

  it('a reader that would block (EAGAIN) or takes part of a chunk gets the rest later, in order; flushSync waits it out', async () => {
    const clock = new FakeClock()
    const written: Buffer[] = []
    let refuse = 0
    const dest = bufferedLogDestination({
      fd: 99,
      chunkBytes: 64,
      flushMs: 250,
      clock,
      writeSync: (_fd, data) => {
        if (refuse > 0) {
          refuse--
          throw Object.assign(new Error('EAGAIN: resource temporarily unavailable, write'), { code: 'EAGAIN' })
        }
        // At most 7 bytes a call: every chunk is written in pieces.
        const n = Math.min(7, data.length)
        written.push(Buffer.from(data.subarray(0, n)))
        return n
      },
    })
    const lines = Array.from({ length: 10 }, (_, i) => `{"n":${i}}\n`)
    refuse = 3
    for (const line of lines.slice(0, 5)) dest.write(line)
    // The chunk filled and was written until EAGAIN: the rest waits for the retry on the clock.
    const before = Buffer.concat(written).toString()
    expect(lines.join('').startsWith(before)).toBe(true)
    await clock.tick(10)
    await clock.tick(10)
    await clock.tick(10)
    for (const line of lines.slice(5)) dest.write(line)
    refuse = 5
    dest.flushSync()
    expect(Buffer.concat(written).toString()).toBe(lines.join(''))
  })

  it('a reader that is gone is said once on stderr and later lines are dropped, without throwing', () => {
    const clock = new FakeClock()
    let calls = 0
    const said: string[] = []
    const dest = bufferedLogDestination({
      fd: 99,
      chunkBytes: 64,
      flushMs: 250,
      clock,
      report: (message) => said.push(message),
      writeSync: () => {
        calls++
        throw Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' })
      },
    })
    for (let i = 0; i < 20; i++) dest.write(`{"n":${i}}\n`)
    expect(() => dest.flushSync()).not.toThrow()
    expect(calls).toBe(1)
    expect(said).toEqual(['writing the log failed (EPIPE); later log lines are dropped'])
  })

  it('a reader that is behind by more than maxQueuedBytes costs dropped chunks, counted in a line once it catches up', async () => {
    const clock = new FakeClock()
    const written: Buffer[] = []
    let blocked = true
    const dest = bufferedLogDestination({
      fd: 99,
      chunkBytes: 64,
      flushMs: 250,
      clock,
      maxQueuedBytes: 128,
      writeSync: (_fd, data) => {
        if (blocked) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' })
        written.push(Buffer.from(data))
        return data.length
      },
    })
    // 2 lines of 10 bytes fit a 64-byte chunk (3 bytes a unit reserved): 40 lines are 20 chunks, 2 of which fit the queue.
    for (let i = 0; i < 40; i++) dest.write(`{"n":${String(i).padStart(2, '0')}}\n`)
    blocked = false
    dest.flushSync()
    const out = Buffer.concat(written).toString().split('\n').filter(Boolean)
    const notice = JSON.parse(out.at(-1)!) as { msg: string; dropped: number }
    expect(notice.msg).toMatch(/dropped/)
    expect(out.length - 1 + notice.dropped).toBe(40)
    expect(notice.dropped).toBeGreaterThan(0)
  })
})
