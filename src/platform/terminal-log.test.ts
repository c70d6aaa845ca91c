import { describe, expect, it } from 'vitest'
import { accessLogger, createLogger } from './logger.js'
import { terminalLogDestination } from './terminal-log.js'

function capture(colors = false) {
  let text = ''
  const dest = terminalLogDestination({ write: (t) => (text += t), colors })
  const logger = createLogger('info', dest)
  return { logger, access: accessLogger(logger), text: () => text }
}

const TIME = /^\d\d:\d\d:\d\d\.\d{3} /

describe('terminalLogDestination', () => {
  it('writes one short line per request: time, status, method, masked URL, duration, correlation id', () => {
    const { access, text } = capture()
    access({ correlationId: 'c-1', method: 'GET', url: '/v2/accounts?v=1&token=abc', remoteAddress: '127.0.0.1', userAgent: 'curl/8', statusCode: 200, responseTime: 1.234 })
    const lines = text().trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]!.replace(TIME, '')).toBe('200 GET /v2/accounts?v=1&token=[redacted] 1.2 ms c-1')
  })

  it('folds a refusal and an authentication failure into the request’s own line', () => {
    const { logger, access, text } = capture()
    logger.child({ correlationId: 'c-2' }).info({ code: 'API-448', details: [] }, 'request rejected')
    access({ correlationId: 'c-2', method: 'GET', url: '/v2/accounts?v=1', remoteAddress: undefined, userAgent: undefined, statusCode: 401, responseTime: 0.5 })
    logger.child({ correlationId: 'c-3' }).info({ reason: 'signature_mismatch', failures: {} }, 'reporting authentication failed')
    access({ correlationId: 'c-3', method: 'POST', url: '/reporting/v3/reports', remoteAddress: '::1', userAgent: undefined, statusCode: 401, responseTime: 2 })
    const lines = text().trimEnd().split('\n').map((l) => l.replace(TIME, ''))
    expect(lines).toEqual(['401 GET /v2/accounts?v=1 0.5 ms API-448 c-2', '401 POST /reporting/v3/reports 2.0 ms (signature_mismatch) c-3'])
  })

  it('writes other events as level, message and key=value, with an error’s stack only from level error up', () => {
    const { logger, text } = capture()
    logger.info({ signal: 'SIGTERM', note: 'two words' }, 'shutting down')
    logger.warn({ err: new Error('flaky') }, 'job failed')
    logger.error({ err: new Error('boom') }, 'background task failed')
    const lines = text().trimEnd().split('\n')
    expect(lines[0]!.replace(TIME, '')).toBe('INFO  shutting down signal=SIGTERM note="two words"')
    expect(lines[1]!.replace(TIME, '')).toBe('WARN  job failed err="Error: flaky"')
    expect(lines[2]!.replace(TIME, '')).toBe('ERROR background task failed err="Error: boom"')
    expect(lines[3]).toBe('Error: boom')
    expect(lines[4]).toMatch(/^ {4}at /)
  })

  it('colours on a terminal, and never prints a secret a JSON line would have redacted', () => {
    const { logger, access, text } = capture(true)
    logger.info({ headers: { authorization: 'Bearer s3cret' }, body: { password: 'hunter2' } }, 'odd event')
    access({ correlationId: 'c-4', method: 'GET', url: '/x?password=hunter2', remoteAddress: undefined, userAgent: undefined, statusCode: 503, responseTime: 3 })
    expect(text()).toContain('\x1b[31m503\x1b[0m')
    expect(text()).not.toMatch(/s3cret|hunter2/)
  })
})
