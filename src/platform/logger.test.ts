import { describe, expect, it } from 'vitest'
import { redactUrl } from './logger.js'

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
})
