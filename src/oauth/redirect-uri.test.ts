import { describe, expect, it } from 'vitest'
import { formActionSource, isLoopbackHttp, redirectAllowed, redirectUriProblem, withParams } from './redirect-uri.js'

describe('redirect URIs', () => {
  it('registers https, loopback http and private-use schemes only', () => {
    expect(redirectUriProblem('https://partner.example/cb')).toBeUndefined()
    expect(redirectUriProblem('http://127.0.0.1:8080/cb')).toBeUndefined()
    expect(redirectUriProblem('http://localhost/cb')).toBeUndefined()
    expect(redirectUriProblem('com.example.app:/oauth')).toBeUndefined()
    expect(redirectUriProblem('http://partner.example/cb')).toMatch(/https/)
    expect(redirectUriProblem('https://partner.example/cb#frag')).toMatch(/fragment/)
    expect(redirectUriProblem('https://user:pw@partner.example/cb')).toMatch(/user/)
    expect(redirectUriProblem('/relative')).toMatch(/absolute/)
    expect(redirectUriProblem('javascript:alert(1)')).toBeDefined()
    expect(redirectUriProblem('data:text/html,hi')).toBeDefined()
  })

  it('matches exactly: no prefix, case or trailing-slash leniency', () => {
    const client = { redirectUris: ['https://partner.example/cb'], loopbackRedirects: false }
    expect(redirectAllowed(client, 'https://partner.example/cb')).toBe(true)
    expect(redirectAllowed(client, 'https://partner.example/cb/')).toBe(false)
    expect(redirectAllowed(client, 'https://partner.example/cb?x=1')).toBe(false)
    expect(redirectAllowed(client, 'https://PARTNER.example/cb')).toBe(false)
    expect(redirectAllowed(client, 'https://partner.example/cb2')).toBe(false)
    expect(redirectAllowed(client, 'http://127.0.0.1:9000/cb')).toBe(false)
  })

  it('the sandbox accepts any http loopback URI, and nothing else beyond its list', () => {
    const sandbox = { redirectUris: [], loopbackRedirects: true }
    expect(redirectAllowed(sandbox, 'http://127.0.0.1:9000/cb')).toBe(true)
    expect(redirectAllowed(sandbox, 'http://localhost/any/path?x=1')).toBe(true)
    expect(redirectAllowed(sandbox, 'https://localhost/cb')).toBe(false)
    expect(redirectAllowed(sandbox, 'http://127.0.0.1.evil.example/cb')).toBe(false)
    expect(redirectAllowed(sandbox, 'http://localhost@evil.example/cb')).toBe(false)
    expect(redirectAllowed(sandbox, 'http://evil.example/cb?localhost')).toBe(false)
    expect(isLoopbackHttp('http://user@127.0.0.1/cb')).toBe(false)
    expect(isLoopbackHttp('http://127.0.0.1/cb#x')).toBe(false)
  })

  it('adds the answer to the query, keeping what is there and encoding values', () => {
    expect(withParams('https://p.example/cb?a=1', { code: 'x y', state: 's&t', iss: undefined })).toBe('https://p.example/cb?a=1&code=x+y&state=s%26t')
  })

  it('names the form-action source of a redirect URI', () => {
    expect(formActionSource('http://127.0.0.1:9000/cb?x=1')).toBe('http://127.0.0.1:9000')
    expect(formActionSource('https://p.example/cb')).toBe('https://p.example')
    expect(formActionSource('com.example.app:/oauth')).toBe('com.example.app:')
  })
})
