// Webhook test support: a local receiver that records every request (raw body included) and answers as a test
// script says, signature checks written here from the reference (independently of the server's signer), the
// official SDK's webhook APIs pointed at a test server, and message-level encryption certificates for keys-asym.
import { createHash, createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestApp } from './harness.js'
import { makeCertificate, type CertificateOptions } from './reporting-jwt.js'
import { cybersource, sdkCall, sdkConfig, type SdkResult } from './reporting.js'

export interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
  /** When it arrived, on the test app's clock. */
  at: number
}

export interface Answer {
  status?: number
  headers?: Record<string, string>
  body?: string
  /** Never answer (the attempt times out). */
  hang?: boolean
}

export interface Receiver {
  url: string
  received: Received[]
  /** What the n-th request (0-based) is answered; 200 `ok` by default. */
  answer: (req: Received, n: number) => Answer
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

export async function startReceiver(now: () => number = () => Date.now()): Promise<Receiver> {
  const hanging = new Set<ServerResponse>()
  let waiters: (() => void)[] = []
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => ({ status: 200, body: 'ok' }),
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${receiver.received.length} requests, not ${count}`)), timeoutMs)
        const check = (): void => {
          if (receiver.received.length < count) return void waiters.push(check)
          clearTimeout(timer)
          resolve(receiver.received)
        }
        check()
      })
    },
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const got: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: now() }
      const n = receiver.received.length
      receiver.received.push(got)
      const answer = receiver.answer(got, n)
      const pending = waiters
      waiters = []
      for (const w of pending) w()
      if (answer.hang) return void hanging.add(res)
      res.writeHead(answer.status ?? 200, answer.headers).end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return receiver
}

/** The reference's V-C-signature check, written here: HMAC-SHA256(base64-decoded key, t + "." + raw body). */
export function vcSignatureValid(r: Received, keys: Record<string, string>): boolean {
  const parts = Object.fromEntries(String(r.headers['v-c-signature']).split(';').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]))
  const key = keys[parts['keyId'] ?? '']
  if (!key || !parts['t'] || !parts['sig']) return false
  return createHmac('sha256', Buffer.from(key, 'base64')).update(`${parts['t']}.${r.body}`).digest('base64') === parts['sig']
}

/** The Standard Webhooks check: v1, base64 HMAC-SHA256(key, webhook-id.webhook-timestamp.body). */
export function standardSignatureValid(r: Received, key: string): boolean {
  const signed = `${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`
  return String(r.headers['webhook-signature']) === `v1,${createHmac('sha256', Buffer.from(key, 'base64')).update(signed).digest('base64')}`
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK is untyped JavaScript
type Api = any

export interface WebhookApis {
  create: Api
  manage: Api
}

export function webhookApis(t: TestApp, merchantId: string, key: { id: string; secret: string; org: string }): WebhookApis {
  const config = sdkConfig(t.baseUrl, merchantId, key)
  return { create: new cybersource.CreateNewWebhooksApi(config, new cybersource.ApiClient()), manage: new cybersource.ManageWebhooksApi(config, new cybersource.ApiClient()) }
}

/** A digital signature key through the SDK's saveSymEgressKey; returns its id and base64 key. */
export async function createSigningKey(apis: WebhookApis, organizationId: string): Promise<{ keyId: string; key: string; result: SdkResult }> {
  const body = { clientRequestAction: 'CREATE', keyInformation: { provider: 'nrtd', tenant: organizationId, keyType: 'sharedSecret', organizationId } }
  const result = await sdkCall((cb) => apis.create.saveSymEgressKey({ saveSymEgressKey: body }, cb))
  if (result.error) throw new Error(`saveSymEgressKey failed: ${result.status} ${result.error.response?.text}`)
  return { keyId: result.data.keyInformation.keyId, key: result.data.keyInformation.key, result }
}

export const INVOICE_SEND = 'invoicing.customer.invoice.send'
export const INVOICE_PAID = 'invoicing.customer.invoice.paid'

/** A subscription body for a receiver, every invoicing event unless told otherwise. */
export function subscriptionBody(url: string, over: Record<string, unknown> = {}) {
  return {
    name: 'My receiver',
    description: 'Invoices',
    products: [{ productId: 'customerInvoicing', eventTypes: [INVOICE_SEND, INVOICE_PAID] }],
    webhookUrl: `${url}/hooks`,
    ...over,
  }
}

export function createSubscription(apis: WebhookApis, body: Record<string, unknown>) {
  return sdkCall((cb) => apis.create.notificationSubscriptionsV2WebhooksPost({ createWebhook: body }, cb))
}

export interface MleCertificate {
  /** What SaveAsymEgressKey.keyInformation.pub carries: base64 of the DER, no BEGIN/END lines. */
  pub: string
  pem: string
  /** SHA-256 of the DER, hex: what the server stores. */
  fingerprint: string
  /** The private key, PKCS#8 PEM and base64 DER (what a caller might wrongly send). */
  privatePem: string
  privateDer: string
}

/** A self-signed RSA certificate, valid from 2020 to 2045 unless told (the suites' clocks sit anywhere between). */
export function mleCertificate(o: Omit<CertificateOptions, 'organization'> = {}): MleCertificate {
  const made = makeCertificate({ organization: 'subscriber', notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2045-01-01T00:00:00Z'), ...o })
  made.remove() // only the certificate is wanted, not the .p12 beside it
  const pub = made.pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')
  const privateDer = made.privateKey.export({ type: 'pkcs8', format: 'der' })
  return {
    pub,
    pem: made.pem,
    fingerprint: createHash('sha256').update(Buffer.from(pub, 'base64')).digest('hex'),
    privatePem: made.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    privateDer: privateDer.toString('base64'),
  }
}

/** Stored certificates, of one organization or all. */
export async function countCertificates(t: Pick<TestApp, 'db'>, where: { organizationId?: string; fingerprint?: string } = {}): Promise<number> {
  let query = t.db.kysely.selectFrom('webhook_certificates').select((eb) => eb.fn.countAll<string>().as('n'))
  if (where.organizationId !== undefined) query = query.where('organization_id', '=', where.organizationId)
  if (where.fingerprint !== undefined) query = query.where('fingerprint', '=', where.fingerprint)
  return Number((await query.executeTakeFirstOrThrow()).n)
}
