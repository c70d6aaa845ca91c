import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { accessLogger, createLogger, redactUrl } from './logger.js'

describe('redactUrl', () => {
  it('masks secret parameters whatever their case or percent-encoding, and keeps the rest', () => {
    expect(redactUrl('/v2/accounts?v=1&Client_Secret=s1&%70assword=s2&x-svc-key=s3&refreshToken=s4&category=domestic')).toBe(
      '/v2/accounts?v=1&Client_Secret=[redacted]&%70assword=[redacted]&x-svc-key=[redacted]&refreshToken=[redacted]&category=domestic',
    )
  })

  it('masks a name with a malformed escape by its written form, and leaves URLs without a query alone', () => {
    expect(redactUrl('/x?token%zz=1&key')).toBe('/x?token%zz=[redacted]&key=[redacted]')
    expect(redactUrl('/v2/accounts')).toBe('/v2/accounts')
  })

  it('answers the same URL twice in a row with its own mask, and the next URL with its own', () => {
    const secret = '/oauth2/v3/token?client_secret=s1'
    expect(redactUrl(secret)).toBe('/oauth2/v3/token?client_secret=[redacted]')
    expect(redactUrl(secret)).toBe('/oauth2/v3/token?client_secret=[redacted]')
    // Equal text built apart (another request's string) is the same URL.
    expect(redactUrl(['/oauth2/v3/token?client', 'secret=s1'].join('_'))).toBe('/oauth2/v3/token?client_secret=[redacted]')
    expect(redactUrl('/oauth2/v3/token?client_secret=s2&v=1')).toBe('/oauth2/v3/token?client_secret=[redacted]&v=1')
    expect(redactUrl('/v2/accounts?v=1')).toBe('/v2/accounts?v=1')
    expect(redactUrl(secret)).toBe('/oauth2/v3/token?client_secret=[redacted]')
  })
})

describe('accessLogger', () => {
  const entry = {
    correlationId: 'c0ffee00-0000-4000-8000-000000000000',
    method: 'GET',
    url: '/v2/accounts?v=1&client_secret=hunter2&q=%22x%22',
    remoteAddress: '127.0.0.1',
    userAgent: 'curl/8 "quoted" \\ ünïcode \u2028',
    statusCode: 200,
    responseTime: 1.234567,
  }
  const lines = () => {
    const out: string[] = []
    return { out, dest: { write: (s: string) => void out.push(s) } }
  }

  it('writes exactly the line pino writes for the same fields, with the URL masked', () => {
    const built = lines()
    accessLogger(createLogger('info', built.dest))(entry)
    const viaPino = lines()
    const req = { method: entry.method, url: redactUrl(entry.url), remoteAddress: entry.remoteAddress, userAgent: entry.userAgent }
    createLogger('info', viaPino.dest)
      .child({}, { redact: { paths: [] }, serializers: { req: (r: unknown) => r } })
      .info({ correlationId: entry.correlationId, req, res: { statusCode: 200 }, responseTime: entry.responseTime }, 'request completed')
    expect(built.out).toHaveLength(1)
    const [a, b] = [JSON.parse(built.out[0]!), JSON.parse(viaPino.out[0]!)]
    expect(Math.abs(a.time - b.time)).toBeLessThan(1000)
    // Same keys in the same order, same values but the time, and the secret masked.
    expect(Object.keys(a)).toEqual(Object.keys(b))
    expect({ ...a, time: 0 }).toEqual({ ...b, time: 0 })
    expect(built.out[0]!.replace(/"time":\d+/, '')).toBe(viaPino.out[0]!.replace(/"time":\d+/, ''))
    expect(built.out[0]).not.toContain('hunter2')
    expect(a.req.url).toBe('/v2/accounts?v=1&client_secret=[redacted]&q=%22x%22')
  })

  it('leaves out a missing User-Agent or address (a connection already gone) as pino does, and writes nothing below the level', () => {
    const built = lines()
    accessLogger(createLogger('info', built.dest))({ ...entry, userAgent: undefined })
    expect(JSON.parse(built.out[0]!).req).toEqual({ method: 'GET', url: '/v2/accounts?v=1&client_secret=[redacted]&q=%22x%22', remoteAddress: '127.0.0.1' })
    accessLogger(createLogger('info', built.dest))({ ...entry, remoteAddress: undefined })
    expect(JSON.parse(built.out[1]!).req).toEqual({ method: 'GET', url: '/v2/accounts?v=1&client_secret=[redacted]&q=%22x%22', userAgent: entry.userAgent })
    const quiet = lines()
    accessLogger(createLogger('warn', quiet.dest))(entry)
    expect(quiet.out).toEqual([])
  })

  it('escapes a forwarded address or an odd correlation id rather than trusting them', () => {
    const built = lines()
    accessLogger(createLogger('info', built.dest))({ ...entry, remoteAddress: '1.2.3.4", "admin":"yes', correlationId: 'a"b' })
    const line = JSON.parse(built.out[0]!)
    expect(line.req.remoteAddress).toBe('1.2.3.4", "admin":"yes')
    expect(line.correlationId).toBe('a"b')
    expect(line.admin).toBeUndefined()
  })

  it('goes through pino for a destination that wants its metadata (a multistream)', () => {
    const built = lines()
    const multi = pino.multistream([{ level: 'info', stream: built.dest }])
    accessLogger(createLogger('info', multi))(entry)
    expect(built.out).toHaveLength(1)
    expect(JSON.parse(built.out[0]!)).toMatchObject({ level: 30, correlationId: entry.correlationId, res: { statusCode: 200 }, msg: 'request completed' })
  })
})
