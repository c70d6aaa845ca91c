// The banking routes' valid requests (every credential kind of the sandbox data, the soft credential, every account
// read, logout), for the fuzz engine to mangle; the context holds what the campaign's setup signed in for.
import { sign } from 'node:crypto'
import fc from 'fast-check'
import { passcodeSigningInput } from '../../src/banking/auth/service.js'
import { SANDBOX_DEVICE_PRIVATE_KEY_PEM, SANDBOX_LOGINS as L } from '../../src/banking/sandbox-data.js'
import type { Header } from './mangle.js'
import { variants, type Template } from './requests.js'
import type { FuzzCase } from './wire.js'

/** What the campaign's setup obtained, for the generators to build valid requests from. */
export interface Context {
  key: string
  /** A session of customer 1, one of customer 2, and one that logout cases may revoke. */
  sessions: { customer1: string; customer2: string; spare: string }
  soft: string
  accountTokens: string[]
  /** A PKCE pair for new authorize requests, and unused authorization codes with their verifiers. */
  pkce: { verifier: string; challenge: string }
  codes: { code: string; verifier: string }[]
  access: string
  refresh: string
  /** Sign-in pages and consent pages waiting for their form. */
  pages: { csrf: string; cookie: string }[]
  consents: { csrf: string; cookie: string }[]
  partner: { clientId: string; secret: string }
}

export const SIGNATURE = sign(null, Buffer.from(passcodeSigningInput('nab', 'nab', L.deviceRegIdPasscode.deviceRegId, L.deviceRegIdPasscode.passcode)), SANDBOX_DEVICE_PRIVATE_KEY_PEM).toString('base64url')

/** Every sandbox credential kind, valid. */
export function credentials(ctx: Pick<Context, 'soft'>): Record<string, Record<string, string>> {
  return {
    usernamePassword: { username: L.usernamePassword.username, password: L.usernamePassword.password },
    deviceRegIdPasscode: { deviceRegId: L.deviceRegIdPasscode.deviceRegId, passcode: L.deviceRegIdPasscode.passcode, signature: SIGNATURE },
    deviceRegIdPassword: { deviceRegId: L.deviceRegIdPassword.deviceRegId, password: L.deviceRegIdPassword.password },
    deviceRegIdFingerprint: { deviceRegId: L.deviceRegIdFingerprint.deviceRegId, key: L.deviceRegIdFingerprint.key },
    ivrPasscode: { username: L.ivrPasscode.username, passcode: L.ivrPasscode.passcode },
    partyIdentifiers: { firstGivenName: L.partyIdentifiers.firstGivenName, surname: L.partyIdentifiers.surname, dateOfBirth: L.partyIdentifiers.dateOfBirth, mobile: L.partyIdentifiers.mobile },
    token: { token: ctx.soft },
  }
}

/** The secrets of the sandbox data: none may ever be logged. */
export const SANDBOX_SECRETS = [
  L.usernamePassword.password, L.customer2.password, L.deviceRegIdPasscode.passcode, L.deviceRegIdPassword.password,
  L.deviceRegIdFingerprint.key, L.ivrPasscode.passcode, L.partyIdentifiers.mobile, L.partyIdentifiers.dateOfBirth, SIGNATURE,
]

export function loginBody(kind: string, member: Record<string, string>) {
  return { loginRequest: { brand: 'nab', lob: 'nab', credentials: { apiStructType: kind, [kind]: member } } }
}

function templates(ctx: Context): Template[] {
  const gateway = (authorization?: string): Header[] => [
    ['Host', '127.0.0.1'],
    ['x-svc-key', ctx.key],
    ['User-Agent', 'finapi-fuzz/1.0'],
    ['X-CorrelationID', 'fuzz-1'],
    ...(authorization === undefined ? [] : [['Authorization', authorization] as Header]),
  ]
  const v = [['v', '1']] as [string, string][]
  const token = ctx.sessions.customer1
  const list: Template[] = Object.entries(credentials(ctx)).map(([kind, member]) => ({
    note: `POST /v2/auth ${kind}`,
    method: 'POST',
    path: '/v2/auth',
    params: v,
    headers: gateway(),
    body: { json: loginBody(kind, member) },
  }))
  const read = (path: string, params: [string, string][], authorization = token): Template => ({ note: `GET ${path}`, method: 'GET', path, params: [...v, ...params], headers: gateway(authorization) })
  list.push(
    { note: 'POST /v2/token', method: 'POST', path: '/v2/token', params: v, headers: gateway(token), body: { json: { tokenRequest: { type: 'softcredential' } } } },
    { note: 'POST /v2/token touch', method: 'POST', path: '/v2/token', params: v, headers: gateway(ctx.sessions.customer2), body: { json: { tokenRequest: { type: 'touch' } } } },
    { note: 'DELETE /v2/auth', method: 'DELETE', path: '/v2/auth', params: v, headers: gateway(ctx.sessions.spare) },
    read('/v2/accounts', [['category', 'domestic']]),
    read('/v2/accounts', [], ctx.sessions.customer2),
    read('/v2/accounts', [['category', 'cards']], ctx.access),
    read('/v2/accounts/balance', [['category', 'packages'], ['groupId', 'everyday'], ['baseCurrency', 'USD']]),
    read('/v2/accounts/balance', []),
    read('/v2/accounts/quickBalance', []),
    read('/v2/accounts/quickBalance', [], `Bearer ${ctx.access}`),
    ...ctx.accountTokens.slice(0, 4).map((t) => read(`/v2/account/${t}`, [])),
    read(`/v2/account/${ctx.accountTokens[0] ?? 'x'}`, [], ctx.sessions.customer2),
    read('/v2/accounts', [], 'any-string-is-customer-1-in-the-sandbox'),
  )
  return list
}

/** Every banking route, valid and mangled. */
export function bankingCases(ctx: Context): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...templates(ctx).map(variants))
}
