import { describe, expect, it } from 'vitest'
import { OAuthError } from './errors.js'
import { clientCredentials, presentFields } from './token-request.js'

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`
const failure = (fn: () => unknown) => {
  try {
    fn()
  } catch (err) {
    return err instanceof OAuthError ? err.code : err
  }
  return undefined
}

describe('token request', () => {
  it('drops empty fields', () => {
    expect(presentFields({ grant_type: 'refresh_token', client_secret: '', scope: '' })).toEqual({ grant_type: 'refresh_token' })
    expect(presentFields(undefined)).toEqual({})
  })

  it('reads client_secret_post and a public client', () => {
    expect(clientCredentials({ client_id: 'a', client_secret: 's' }, undefined)).toEqual({ clientId: 'a', secret: 's' })
    expect(clientCredentials({ client_id: 'a' }, undefined)).toEqual({ clientId: 'a', secret: undefined })
  })

  it('reads client_secret_basic, form-decoding both parts', () => {
    expect(clientCredentials({}, basic('fc_a:b', 'p&ss w'))).toEqual({ clientId: 'fc_a:b', secret: 'p&ss w', rawSecret: 'p%26ss%20w' })
    expect(clientCredentials({ client_id: 'x' }, basic('x', 'y'))).toEqual({ clientId: 'x', secret: 'y' })
    // A raw '+' in the encoded form is a space; the password as sent is kept too, for clients that send it raw.
    expect(clientCredentials({}, `Basic ${Buffer.from('id:a+b').toString('base64')}`)).toEqual({ clientId: 'id', secret: 'a b', rawSecret: 'a+b' })
    // Not form-encoding at all (a lone %): the password as sent is the one reading.
    expect(clientCredentials({}, `Basic ${Buffer.from('id:50%off').toString('base64')}`)).toEqual({ clientId: 'id', secret: '50%off' })
  })

  it('refuses two methods, a mismatching client_id, malformed Basic and no client at all', () => {
    expect(failure(() => clientCredentials({ client_secret: 's' }, basic('x', 'y')))).toBe('invalid_request')
    expect(failure(() => clientCredentials({ client_id: 'z' }, basic('x', 'y')))).toBe('invalid_request')
    expect(failure(() => clientCredentials({}, 'Basic !!!'))).toBe('invalid_client')
    expect(failure(() => clientCredentials({}, `Basic ${Buffer.from('no-colon').toString('base64')}`))).toBe('invalid_client')
    expect(failure(() => clientCredentials({}, `Basic ${Buffer.from('%zz:y').toString('base64')}`))).toBe('invalid_client')
    expect(failure(() => clientCredentials({}, undefined))).toBe('invalid_client')
  })

  it('ignores an Authorization header of another scheme', () => {
    expect(clientCredentials({ client_id: 'a' }, 'Bearer abc')).toEqual({ clientId: 'a', secret: undefined })
  })
})
