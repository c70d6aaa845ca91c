// Helpers for banking tests: sign in over HTTP and call with the returned token.
import { expect } from 'vitest'
import type { Response, TestApp } from './harness.js'

export const CUSTOMER_1 = { brand: 'nab', lob: 'nab', username: '10055670', password: 'aaa111' }
export const CUSTOMER_2 = { brand: 'nab', lob: 'nab', username: '10055671', password: 'bbb222' }

export function loginBody(who: { brand: string; lob: string; username: string; password: string }) {
  return {
    loginRequest: {
      brand: who.brand,
      lob: who.lob,
      credentials: { apiStructType: 'usernamePassword', usernamePassword: { username: who.username, password: who.password } },
    },
  }
}

export async function login(t: TestApp, who = CUSTOMER_1): Promise<string> {
  const res = await t.call('POST', '/v2/auth?v=1', { body: loginBody(who) })
  expect(res.status, res.text).toBe(200)
  return res.json.loginResponse.tokens[0].value as string
}

export function withToken(t: TestApp, token: string | undefined, extra: Record<string, string | undefined> = {}) {
  return (method: string, path: string, body?: unknown): Promise<Response> =>
    t.call(method, path, { headers: { authorization: token, ...extra }, body })
}

export function expectStatus(res: Response, http: number, code: string): void {
  expect({ http: res.status, code: res.json?.status?.code }, res.text).toEqual({ http, code })
}
