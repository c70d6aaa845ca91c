// The merchant campaign's setup, over HTTP like any client, signed with the sandbox's public keys: OAuth tokens of
// the sandbox reporting clients, a webhook signing key for testrest and for othermerchant, webhook subscriptions
// (one to use, one to delete, othermerchant's), a report subscription, a one-time report and a published event,
// whose ids the templates name. Every secret used or handed out is collected for the log check.
import { randomBytes } from 'node:crypto'
import { SANDBOX_REPORTING_CLIENTS } from '../../src/oauth/clients/sandbox.js'
import { SANDBOX_REPORTING_KEYS } from '../../src/applications/reporting-keys/sandbox.js'
import { makeCertificate } from '../support/reporting-jwt.js'
import type { Target } from './engine.js'
import type { MerchantContext } from './merchant.js'
import { authenticate, type MerchantCredentials, type ReportingKey } from './signing.js'
import { send, type Answer, type Auth } from './wire.js'

const keyOf = (org: string): ReportingKey => {
  const key = SANDBOX_REPORTING_KEYS.find((k) => k.organizationId === org)!
  return { id: key.id, secret: key.secret, org }
}

/** The PEM's base64 lines: what a logged private key would show (its newlines are escaped in a JSON log). */
export const pemLines = (pem: string) => pem.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'))

export async function prepareMerchant(target: Target, bankingToken?: string): Promise<{ ctx: MerchantContext; creds: MerchantCredentials; secrets: Set<string> }> {
  const secrets = new Set<string>()
  for (const k of SANDBOX_REPORTING_KEYS) secrets.add(k.secret)
  for (const c of SANDBOX_REPORTING_CLIENTS) secrets.add(c.secret)
  const creds: MerchantCredentials = {
    now: () => target.now?.() ?? new Date(),
    keys: { testrest: keyOf('testrest'), acct: keyOf('testrest_acct'), other: keyOf('othermerchant') },
    tokens: {},
    wrongTokens: bankingToken ? [bankingToken] : [],
  }
  if (target.jwtCertificate) {
    creds.certificate = target.jwtCertificate
    for (const line of pemLines(target.jwtCertificate.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString())) secrets.add(line)
  }

  for (const [key, client] of [['testrest', 'testrest-reporting'], ['acct', 'testrest-acct-partner']] as const) {
    const secret = SANDBOX_REPORTING_CLIENTS.find((c) => c.clientId === client)!.secret
    const res = await fetch(`${target.baseUrl}/oauth2/v3/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client, client_secret: secret, scope: 'reporting' }),
    })
    const body = (await res.json()) as { access_token?: string; refresh_token?: string }
    if (res.status !== 200 || !body.access_token) {
      if (key === 'testrest') throw new Error(`fuzz setup: a token for ${client} answered ${res.status}: ${JSON.stringify(body)}`)
      continue
    }
    creds.tokens[key] = body.access_token
    secrets.add(body.access_token)
    if (body.refresh_token) {
      secrets.add(body.refresh_token)
      creds.wrongTokens.push(body.refresh_token)
    }
  }

  const call = async (method: string, path: string, json?: unknown, auth: Auth = { scheme: 'signature', key: 'testrest' }): Promise<Answer & { json: unknown }> => {
    const headers: [string, string][] = [['Host', '127.0.0.1'], ['User-Agent', 'finapi-fuzz-setup/1.0'], ...(json === undefined ? [] : [['Content-Type', 'application/json'] as [string, string]])]
    const answer = await send(target.baseUrl, authenticate({ type: 'http', note: 'setup', method, target: path, headers, body: json === undefined ? undefined : JSON.stringify(json), auth }, creds), 30_000)
    let parsed: unknown
    try {
      parsed = JSON.parse(answer.body.toString('utf8'))
    } catch {
      parsed = undefined
    }
    return { ...answer, json: parsed }
  }
  const expect = (answer: Answer, status: number | number[], what: string) => {
    if (![status].flat().includes(answer.status ?? 0)) throw new Error(`fuzz setup: ${what} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`)
  }

  const signingKey = async (key: Auth['key']) => {
    const res = await call('POST', '/kms/egress/v2/keys-sym', {}, { scheme: 'signature', key })
    expect(res, 201, `keys-sym for ${key}`)
    const info = (res.json as { keyInformation: { keyId: string; key: string } }).keyInformation
    secrets.add(info.key)
    return info.keyId
  }
  const signingKeyId = await signingKey('testrest')
  await signingKey('other')
  const webhook = async (name: string, key: Auth['key'] = 'testrest') => {
    const body = { name, products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid'] }], webhookUrl: 'http://127.0.0.1:9/hook' }
    const res = await call('POST', '/notification-subscriptions/v2/webhooks', body, { scheme: 'signature', key })
    expect(res, 201, `webhook ${name}`)
    return (res.json as { webhookId: string }).webhookId
  }
  const webhookId = await webhook('Fuzz fixture')
  const spareWebhookId = await webhook('Fuzz spare')
  const otherWebhookId = await webhook('Other tenant', 'other')

  const nowMs = creds.now().getTime()
  const start = new Date(Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), new Date(nowMs).getUTCDate()) - 12 * 86_400_000)
  const subscription = await call('PUT', '/reporting/v3/report-subscriptions', { reportDefinitionName: 'TransactionRequestClass', reportName: 'Fuzz_Daily', reportFields: ['Request.RequestID'], timezone: 'GMT' })
  // 304 when an earlier setup against the same server wrote it already.
  expect(subscription, [200, 304], 'report subscription')
  const report = await call('POST', '/reporting/v3/reports', {
    reportDefinitionName: 'TransactionRequestClass', reportName: `Fuzz_Setup_${randomBytes(4).toString('hex')}`, reportFields: ['Request.RequestID'], timezone: 'GMT',
    reportStartTime: start.toISOString(), reportEndTime: new Date(start.getTime() + 86_400_000).toISOString(),
  })
  expect(report, 201, 'one-time report')
  const reportId = String(report.headers['location']).split('/').pop()!
  const event = await call('POST', '/sandbox/v1/events', { eventType: 'invoicing.customer.invoice.paid' })
  expect(event, 201, 'sandbox event')
  const notificationId = (event.json as { notificationIds: string[] }).notificationIds[0] ?? 'none'

  const storeKey = randomBytes(32).toString('base64')
  secrets.add(storeKey)
  const mle = makeCertificate({ organization: 'subscriber', notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2045-01-01T00:00:00Z') })
  mle.remove()
  const mlePub = mle.pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')

  const ctx: MerchantContext = {
    nowMs, webhookId, spareWebhookId, otherWebhookId, reportId, notificationId, signingKeyId, storeKey, mlePub,
    rs256: creds.certificate !== undefined, acctToken: creds.tokens.acct !== undefined,
  }
  return { ctx, creds, secrets }
}
