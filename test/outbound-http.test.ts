// The outbound HTTP client against real servers on 127.0.0.1 (the guard off, as in the sandbox), and its address
// guard (on, as in production) refusing private and metadata addresses before any connection is attempted.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../src/platform/clock.js'
import { createAddressGuard, createOutboundHttp, isBlockedAddress, type LookupAll } from '../src/platform/outbound-http.js'
import { ALLOWED, REFUSED } from './support/addresses.js'

let server: Server
let base: string
const received: string[] = []
beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`)
    if (req.url === '/hang') return // never answers
    if (req.url === '/big') return res.end(Buffer.alloc(64 * 1024, 1))
    if (req.url === '/big-chunked') {
      res.write(Buffer.alloc(40 * 1024, 1))
      res.write(Buffer.alloc(40 * 1024, 1))
      return res.end()
    }
    if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end()
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${body}`))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('outbound HTTP to a loopback receiver (private networks allowed)', () => {
  const client = createOutboundHttp({ clock: systemClock, allowPrivateNetworks: true, timeoutMs: 300, maxBodyBytes: 32 * 1024 })
  afterAll(() => client.close())

  it('sends a request and returns status, headers and body', async () => {
    const res = await client.request({ url: `${base}/ok`, method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } })
    expect(res).toMatchObject({ ok: true, status: 200 })
    if (res.ok) {
      expect(res.body.toString()).toBe('got hello')
      expect(res.headers['content-type']).toBe('text/plain')
    }
  })

  it('does not follow redirects', async () => {
    const res = await client.request({ url: `${base}/redirect` })
    expect(res).toMatchObject({ ok: true, status: 302 })
    expect(received.filter((r) => r === 'GET /ok')).toHaveLength(0)
  })

  it('gives up on a receiver that never answers within the deadline', async () => {
    const started = Date.now()
    const res = await client.request({ url: `${base}/hang` })
    const elapsed = Date.now() - started
    expect(res).toEqual({ ok: false, error: { kind: 'timeout', message: expect.any(String) } })
    expect(elapsed).toBeGreaterThanOrEqual(250)
    expect(elapsed).toBeLessThan(2_000)
  })

  it('refuses a response body over the cap, declared or streamed', async () => {
    expect(await client.request({ url: `${base}/big` })).toMatchObject({ ok: false, error: { kind: 'too_large' } })
    expect(await client.request({ url: `${base}/big-chunked` })).toMatchObject({ ok: false, error: { kind: 'too_large' } })
  })

  it('reports a refused connection and a bad URL', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect(await client.request({ url: `http://127.0.0.1:${port}/` })).toMatchObject({ ok: false, error: { kind: 'connection_failed' } })
    expect(await client.request({ url: 'not a url' })).toMatchObject({ ok: false, error: { kind: 'invalid_url' } })
    expect(await client.request({ url: 'file:///etc/passwd' })).toMatchObject({ ok: false, error: { kind: 'invalid_url' } })
  })
})

describe('the address guard (private networks refused)', () => {
  const client = createOutboundHttp({ clock: systemClock, allowPrivateNetworks: false, timeoutMs: 2_000 })
  afterAll(() => client.close())

  it.each([
    'http://127.0.0.1/',
    'http://localhost/',
    'http://[::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]/',
    'http://10.0.0.1/',
    'http://0.0.0.0/',
    'http://[fd00:ec2::254]/',
    'http://100.64.0.1/',
    'http://0x7f.1/', // 127.0.0.1 in another spelling
  ])('refuses %s without sending anything', async (url) => {
    const res = await client.request({ url })
    expect(res).toEqual({ ok: false, error: { kind: 'blocked_address', message: expect.stringContaining('not a public address') } })
  })

  it('refuses the loopback receiver that works when private networks are allowed', async () => {
    const before = received.length
    expect(await client.request({ url: `${base}/ok` })).toMatchObject({ ok: false, error: { kind: 'blocked_address' } })
    expect(received.length).toBe(before)
  })

  it.each(REFUSED)('refuses %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(true)
    // Also where loopback is allowed (the sandbox's default): an embedded or translated address is another host,
    // reached through a relay or translator; only the IPv4-mapped spelling is the allowed address itself.
    const guard = createAddressGuard({ allowPrivateNetworks: false, allowedNetworks: ['127.0.0.0/8', '::1/128'] })
    if (!address.startsWith('::ffff:127.')) expect(guard.refuses(address)).toBe(true)
  })

  it.each(ALLOWED)('allows %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(false)
  })

  it('classifies addresses with net.BlockList', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.31.255.255', '192.168.1.1', '100.127.0.1', '169.254.169.254', '224.0.0.1', '255.255.255.255', '::', '::1', 'fe80::1', 'fc00::1', 'ff02::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1']) {
      expect(isBlockedAddress(address), address).toBe(true)
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isBlockedAddress(address), address).toBe(false)
    }
  })
})

describe("the operator's allowed networks, and DNS answers checked at connect time", () => {
  const allowed = createOutboundHttp({ clock: systemClock, allowPrivateNetworks: false, allowedNetworks: ['127.0.0.0/8'], timeoutMs: 2_000 })
  afterAll(() => allowed.close())

  it('reaches a receiver on an allowed network, also spelled IPv4-mapped, and nothing else private', async () => {
    expect(await allowed.request({ url: `${base}/ok`, method: 'POST', body: 'x' })).toMatchObject({ ok: true, status: 200 })
    const guard = createAddressGuard({ allowPrivateNetworks: false, allowedNetworks: ['127.0.0.0/8', 'fd00:1::/32'] })
    for (const address of ['127.0.0.1', '127.9.9.9', '::ffff:127.0.0.1', 'fd00:1::5']) expect(guard.refuses(address), address).toBe(false)
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '169.254.169.254', '::1', 'fd00:2::1', '64:ff9b::7f00:1']) expect(guard.refuses(address), address).toBe(true)
  })

  it('checks the addresses a name resolves to when connecting, not when it was first checked (DNS rebinding)', async () => {
    let answers = 0
    // First a public address (what a check at subscription time would see), then loopback.
    const rebinding: LookupAll = (_host, _o, cb) => cb(null, [{ address: answers++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }])
    const guard = createAddressGuard({ allowPrivateNetworks: false, lookup: rebinding })
    expect(await guard.check('rebind.example')).toEqual({ ok: true, addresses: ['93.184.216.34'] })
    const client = createOutboundHttp({ clock: systemClock, allowPrivateNetworks: false, lookup: rebinding, timeoutMs: 2_000 })
    const before = received.length
    const port = new URL(base).port
    expect(await client.request({ url: `http://rebind.example:${port}/ok` })).toMatchObject({ ok: false, error: { kind: 'blocked_address', message: expect.stringContaining('rebind.example resolves to 127.0.0.1') } })
    expect(received.length).toBe(before)
    await client.close()
  })

  it('names an unresolvable host and a blocked answer among several', async () => {
    const guard = createAddressGuard({ allowPrivateNetworks: false, lookup: (_h, _o, cb) => cb(null, [{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.7', family: 4 }]) })
    expect(await guard.check('mixed.example')).toEqual({ ok: false, reason: 'blocked', address: '10.0.0.7' })
    const none = createAddressGuard({ allowPrivateNetworks: false, lookup: (_h, _o, cb) => cb(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }), []) })
    expect(await none.check('nothing.example')).toEqual({ ok: false, reason: 'unresolvable' })
  })
})
