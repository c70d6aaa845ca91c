import { describe, expect, it } from 'vitest'
import { checkAuthorizeRequest, pageProblem, readAuthorizeParams } from './authorize-request.js'

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
const good = {
  response_type: 'code',
  client_id: 'client',
  redirect_uri: 'http://127.0.0.1/cb',
  scope: 'accounts',
  state: 'xyz',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
}
const check = (query: Record<string, unknown>, allowed = ['accounts']) => checkAuthorizeRequest(readAuthorizeParams(query), allowed)

describe('authorize request', () => {
  it('accepts a complete request, with nab/nab by default', () => {
    expect(check(good)).toEqual({ scopes: ['accounts'], state: 'xyz', codeChallenge: CHALLENGE, brand: 'nab', lob: 'nab' })
    expect(check({ ...good, brand: 'ubank', lob: 'retail' })).toMatchObject({ brand: 'ubank', lob: 'retail' })
  })

  it('takes redirect_url as redirect_uri', () => {
    const { redirect_uri, ...rest } = good
    expect(readAuthorizeParams({ ...rest, redirect_url: redirect_uri }).redirectUri).toBe(redirect_uri)
  })

  it('shows client and redirect problems on a page', () => {
    expect(pageProblem(readAuthorizeParams(good))).toBeUndefined()
    expect(pageProblem(readAuthorizeParams({ ...good, client_id: undefined }))).toMatch(/client_id is missing/)
    expect(pageProblem(readAuthorizeParams({ ...good, client_id: '' }))).toMatch(/client_id is missing/)
    expect(pageProblem(readAuthorizeParams({ ...good, client_id: ['a', 'b'] }))).toMatch(/more than one application/)
    expect(pageProblem(readAuthorizeParams({ ...good, redirect_uri: undefined }))).toMatch(/redirect_uri is missing/)
    expect(pageProblem(readAuthorizeParams({ ...good, redirect_url: 'http://127.0.0.1/other' }))).toMatch(/more than one address/)
    expect(pageProblem(readAuthorizeParams({ ...good, redirect_url: good.redirect_uri }))).toBeUndefined()
  })

  it.each([
    ['no response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['state repeated', { state: ['a', 'b'] }, 'invalid_request'],
    ['state too long', { state: 'x'.repeat(1025) }, 'invalid_request'],
    ['brand with markup', { brand: '<b>' }, 'invalid_request'],
    ['a scope the client may not have', { scope: 'accounts reporting' }, 'invalid_scope'],
    ['an unknown scope', { scope: 'payments' }, 'invalid_scope'],
    ['a malformed scope', { scope: 'acc"ounts' }, 'invalid_scope'],
  ])('%s → %s', (_label, change, error) => {
    expect(check({ ...good, ...change })).toMatchObject({ error })
  })

  it('defaults the scope to every scope the client may have', () => {
    expect(check({ ...good, scope: undefined }, ['accounts', 'reporting'])).toMatchObject({ scopes: ['accounts', 'reporting'] })
  })
})
