import { describe, expect, it } from 'vitest'
import { parseForm, parseQuery, readCookie } from './form.js'

describe('forms, queries and cookies', () => {
  it('decodes a form, with + as space and repeated fields as lists', () => {
    expect({ ...parseForm('a=1&b=x+y%26z&a=2&c=') }).toEqual({ a: ['1', '2'], b: 'x y&z', c: '' })
    expect({ ...parseForm('a=1&a=2&a=3') }).toEqual({ a: ['1', '2', '3'] })
    expect({ ...parseForm('') }).toEqual({})
  })

  it('has no prototype keys to confuse', () => {
    expect(parseForm('x=1')['constructor']).toBeUndefined()
    expect({ ...parseForm('__proto__=x') }).toEqual({ ['__proto__']: 'x' })
  })

  it('reads the query of a URL', () => {
    expect({ ...parseQuery('/oauth2/v3/authorize?client_id=a&state=b%20c') }).toEqual({ client_id: 'a', state: 'b c' })
    expect({ ...parseQuery('/oauth2/v3/authorize') }).toEqual({})
  })

  it('reads one cookie', () => {
    expect(readCookie('a=1; finapi_oauth=xyz; b=2', 'finapi_oauth')).toBe('xyz')
    expect(readCookie('xfinapi_oauth=1', 'finapi_oauth')).toBeUndefined()
    expect(readCookie(undefined, 'finapi_oauth')).toBeUndefined()
  })
})
