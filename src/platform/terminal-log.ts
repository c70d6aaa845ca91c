// Log lines for a person at a terminal: one short line per request (time, status, method, masked URL, duration,
// the refusal's code where there was one, correlation id), and one line per other event with its fields as
// key=value. The server's JSON lines are parsed and rewritten here, so what a terminal shows is exactly what a
// collector would have been sent, in fewer words: no pid, hostname or headers. A refusal's "request rejected" line
// (its code) and an authentication failure's reason are folded into the request's own line, which follows them.
// An error's stack follows its line, since a person at a terminal is the one who will read it.
import type { DestinationStream } from 'pino'

export interface TerminalLogOptions {
  /** Where the rewritten text goes. */
  write(text: string): void
  colors: boolean
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }
const LEVEL_COLOR: Record<number, number> = { 10: 90, 20: 90, 30: 32, 40: 33, 50: 31, 60: 35 }
/** Fields every line carries that a person does not need to see again on each one. */
const QUIET = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'correlationId', 'err'])
/** Refusal details held for the request's own line, by correlation id; bounded in case that line never comes. */
const HELD_MAX = 1_000

type Entry = Record<string, unknown> & { level?: number; time?: number; msg?: string; correlationId?: string }

function clockTime(ms: number): string {
  const d = new Date(ms)
  const two = (n: number) => String(n).padStart(2, '0')
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  return JSON.stringify(value) ?? String(value)
}

export function terminalLogDestination(options: TerminalLogOptions): DestinationStream {
  const paint = (code: number, text: string) => (options.colors ? `\x1b[${code}m${text}\x1b[0m` : text)
  const held = new Map<string, string>()

  function hold(id: string, note: string): void {
    if (held.size >= HELD_MAX) held.delete(held.keys().next().value!)
    held.set(id, held.has(id) ? `${held.get(id)!} ${note}` : note)
  }

  function requestLine(e: Entry): string {
    const req = e['req'] as { method?: string; url?: string } | undefined
    const status = (e['res'] as { statusCode?: number } | undefined)?.statusCode ?? 0
    const color = status >= 500 ? 31 : status >= 400 ? 33 : status >= 300 ? 36 : 32
    const id = e.correlationId ?? ''
    const note = held.get(id)
    held.delete(id)
    const ms = typeof e['responseTime'] === 'number' ? `${(e['responseTime'] as number).toFixed(1)} ms` : ''
    return [paint(90, clockTime(e.time ?? Date.now())), paint(color, String(status)), req?.method ?? '', req?.url ?? '', ms, note ?? '', paint(90, id)].filter(Boolean).join(' ')
  }

  function eventLine(e: Entry): string {
    const level = e.level ?? 30
    const fields = Object.entries(e)
      .filter(([key, value]) => !QUIET.has(key) && value !== undefined)
      .map(([key, value]) => `${key}=${show(value)}`)
    const err = e['err'] as { type?: string; message?: string; stack?: string } | undefined
    if (err) fields.push(`err=${show(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}`)
    const head = [paint(90, clockTime(e.time ?? Date.now())), paint(LEVEL_COLOR[level] ?? 0, (LEVELS[level] ?? String(level)).padEnd(5)), e.msg ?? '', ...fields, e.correlationId ? paint(90, e.correlationId) : ''].filter(Boolean).join(' ')
    // A stack is for errors a person must act on, not for a refused request.
    return level >= 50 && err?.stack ? `${head}\n${paint(90, err.stack)}` : head
  }

  function rewrite(line: string): string | undefined {
    let e: Entry
    try {
      e = JSON.parse(line) as Entry
    } catch {
      return line.trimEnd()
    }
    const id = e.correlationId
    if (e.msg === 'request completed') return requestLine(e)
    if (id && e.msg === 'request rejected' && (e.level ?? 30) <= 30) return void hold(id, String(e['code'] ?? ''))
    if (id && e.msg === 'reporting authentication failed') return void hold(id, `(${String(e['reason'] ?? 'authentication failed')})`)
    return eventLine(e)
  }

  return {
    write(chunk: string) {
      // pino writes one line at a time; a line is never split across writes.
      let out = ''
      for (const line of chunk.split('\n')) {
        if (line === '') continue
        const text = rewrite(line)
        if (text !== undefined) out += `${text}\n`
      }
      if (out) options.write(out)
    },
  }
}
