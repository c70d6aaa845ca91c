// The campaign's setup, over HTTP like any client: signs in with every credential kind, makes a soft credential,
// reads the account tokens, runs the OAuth flow for unused codes and a token pair, and opens sign-in and consent
// pages whose forms the fuzz cases answer. Every secret handed out is collected for the log check.
import { createHash, randomBytes } from 'node:crypto'
import { credentials, loginBody, type Context } from './banking.js'
import type { Target } from './engine.js'
import { authorizeParams, REDIRECT } from './oauth.js'

interface Reply {
  status: number
  headers: Headers
  text: string
}

async function http(target: Target, method: string, path: string, init: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'user-agent': 'finapi-fuzz-setup/1.0', ...init.headers }
  let body: string | undefined
  if (init.json !== undefined) {
    body = JSON.stringify(init.json)
    headers['content-type'] = 'application/json'
  } else if (init.form) {
    body = new URLSearchParams(init.form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const res = await fetch(target.baseUrl + path, { method, headers, body, redirect: 'manual' })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`fuzz setup: ${what} answered ${reply.status}: ${reply.text.slice(0, 300)}`)
}

const pkcePair = () => {
  const verifier = randomBytes(48).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

export async function prepare(target: Target): Promise<{ ctx: Context; secrets: Set<string> }> {
  const secrets = new Set<string>([target.key, target.partner.secret])
  const gateway = (authorization?: string) => ({ 'x-svc-key': target.key, ...(authorization ? { authorization } : {}) })
  const signIn = async (kind: string, member: Record<string, string>) => {
    const res = await http(target, 'POST', '/v2/auth?v=1', { headers: gateway(), json: loginBody(kind, member) })
    expectStatus(res, 200, `login ${kind}`)
    const token = JSON.parse(res.text).loginResponse.tokens[0].value as string
    secrets.add(token)
    return token
  }
  const all = credentials({ soft: '' })
  const customer1 = await signIn('usernamePassword', all['usernamePassword']!)
  const customer2 = await signIn('usernamePassword', { username: '10055671', password: 'bbb222' })
  const spare = await signIn('deviceRegIdPassword', all['deviceRegIdPassword']!)
  for (const kind of ['deviceRegIdPasscode', 'deviceRegIdFingerprint', 'ivrPasscode', 'partyIdentifiers']) await signIn(kind, all[kind]!)
  const softRes = await http(target, 'POST', '/v2/token?v=1', { headers: gateway(customer1), json: { tokenRequest: { type: 'softcredential' } } })
  expectStatus(softRes, 200, 'soft credential')
  const soft = JSON.parse(softRes.text).tokenResponse.token as string
  secrets.add(soft)
  await signIn('token', { token: soft })
  const accountsRes = await http(target, 'GET', '/v2/accounts?v=1', { headers: gateway(customer1) })
  expectStatus(accountsRes, 200, 'account list')
  const accountTokens = (JSON.parse(accountsRes.text).accountsResponse.accounts as { accountToken: string }[]).map((a) => a.accountToken)

  const pkce = pkcePair()
  secrets.add(pkce.verifier)
  const ctx: Context = { key: target.key, sessions: { customer1, customer2, spare }, soft, accountTokens, pkce, codes: [], access: '', refresh: '', pages: [], consents: [], partner: target.partner }

  // A pending consent: the page's cookie and CSRF token.
  const openPage = async (challenge: string) => {
    const query = new URLSearchParams(authorizeParams(ctx, { code_challenge: challenge }))
    const res = await http(target, 'GET', `/oauth2/v3/authorize?${query}`)
    expectStatus(res, 200, 'authorize page')
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!
    const csrf = /name="csrf_token" value="([^"]*)"/.exec(res.text)?.[1] ?? ''
    secrets.add(csrf).add(cookie.split('=')[1] ?? '')
    return { cookie, csrf }
  }
  const consentPage = async (challenge: string) => {
    const page = await openPage(challenge)
    const res = await http(target, 'POST', '/oauth2/v3/authorize', { headers: { cookie: page.cookie }, form: { csrf_token: page.csrf, username: '10055670', password: 'aaa111' } })
    expectStatus(res, 200, 'sign-in')
    const csrf = /name="csrf_token" value="([^"]*)"/.exec(res.text)?.[1] ?? ''
    secrets.add(csrf)
    return { cookie: page.cookie, csrf }
  }
  for (let i = 0; i < 4; i++) {
    const pair = pkcePair()
    const consent = await consentPage(pair.challenge)
    const res = await http(target, 'POST', '/oauth2/v3/authorize', { headers: { cookie: consent.cookie }, form: { csrf_token: consent.csrf, decision: 'allow' } })
    expectStatus(res, 303, 'allow')
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!
    secrets.add(code).add(pair.verifier)
    ctx.codes.push({ code, verifier: pair.verifier })
  }
  const first = ctx.codes.shift()!
  const tokenRes = await http(target, 'POST', '/oauth2/v3/token', { form: { grant_type: 'authorization_code', client_id: target.key, code: first.code, redirect_uri: REDIRECT, code_verifier: first.verifier } })
  expectStatus(tokenRes, 200, 'code exchange')
  const tokens = JSON.parse(tokenRes.text) as { access_token: string; refresh_token: string }
  ctx.access = tokens.access_token
  ctx.refresh = tokens.refresh_token
  secrets.add(ctx.access).add(ctx.refresh)
  for (let i = 0; i < 4; i++) ctx.pages.push(await openPage(pkce.challenge))
  for (let i = 0; i < 4; i++) ctx.consents.push(await consentPage(pkce.challenge))
  secrets.delete('')
  return { ctx, secrets }
}
