// Outbound HTTP for calls to addresses that users give us (webhook receivers): a total deadline, a cap on the
// response body, no redirects, and a guard against server-side request forgery that refuses private, loopback,
// link-local, unique-local, site-local, CGNAT, multicast, reserved and cloud-metadata addresses, also embedded in
// or translated to IPv6 (6to4, NAT64, Teredo, IPv4-mapped and -translated). The guard runs at connect
// time on the address actually connected to (a DNS lookup hook, and IP literals in the connector), so a name
// that resolves to a public address when checked and a private one when used (DNS rebinding) cannot pass it.
// Failures come back as a small typed error, never thrown, for a deliverer to store and retry on.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns'
import { promisify } from 'node:util'
import { BlockList, isIP } from 'node:net'
import { Agent, buildConnector, request } from 'undici'
import type { Clock } from './clock.js'

export type OutboundErrorKind = 'invalid_url' | 'blocked_address' | 'timeout' | 'too_large' | 'connection_failed'

export interface OutboundError {
  kind: OutboundErrorKind
  message: string
}

export type OutboundResult =
  | { ok: true; status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }
  | { ok: false; error: OutboundError }

export interface OutboundRequest {
  url: string
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD'
  headers?: Record<string, string>
  body?: string | Buffer
  /** Overrides the client's deadline for this call (connect, headers and body together). */
  timeoutMs?: number
}

export interface OutboundHttp {
  request(req: OutboundRequest): Promise<OutboundResult>
  close(): Promise<void>
}

/** dns.lookup with `all: true`: every address of a name (injectable, so tests can play DNS rebinding). */
export type LookupAll = (hostname: string, options: { family?: number }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void

const systemLookupAll: LookupAll = (hostname, options, callback) => dnsLookup(hostname, { family: options.family ?? 0, all: true }, callback)

export interface AddressGuardOptions {
  /** Skips the address guard altogether (OUTBOUND_ALLOW_PRIVATE_NETWORKS). Never in production. */
  allowPrivateNetworks: boolean
  /**
   * Networks (CIDRs or single addresses) reachable although the guard would refuse them: the operator's own
   * receivers on a private network, or loopback in the sandbox (WEBHOOK_ALLOWED_NETWORKS).
   */
  allowedNetworks?: readonly string[]
  lookup?: LookupAll
}

export interface OutboundOptions extends AddressGuardOptions {
  clock: Clock
  /** The whole call's deadline, from connecting to the last body byte (default 10 s). */
  timeoutMs?: number
  /** Larger response bodies are cut off and reported as too_large (default 1 MiB). */
  maxBodyBytes?: number
}

const IPV4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT (Alibaba's metadata service 100.100.100.200 is in it)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local; the AWS/GCP/Azure metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
]

const IPV6_BLOCKED: [string, number][] = [
  ['::', 96], // unspecified, loopback ::1 and the deprecated IPv4-compatible form
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): whatever it embeds, wherever (RFC 6052 allows six positions)
  ['100::', 64], // discard
  // Teredo (RFC 4380): the server's IPv4 address in bits 32-63 and the client's, inverted, in the last 32; it leads
  // through a relay to whatever sits behind the client's NAT, which no prefix can check. Refused whole.
  ['2001::', 32],
  ['2001:2::', 48], // benchmarking
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // SRv6 segment identifiers (RFC 9602), not globally reachable
  ['fc00::', 7], // unique-local (AWS's IPv6 metadata service fd00:ec2::254 is in it)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated by RFC 3879, still routed inside some networks)
  ['ff00::', 8], // multicast
]

/** The IPv6 network that embeds IPv4 network `net` (a.b.c.d) after the given 16-bit groups: `2002:` + a.b.c.d → `2002:ab:cd::`. */
function embedded(groups: string, net: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = net.split('.').map(Number)
  return `${groups}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::`
}

/**
 * The addresses no outbound call may reach. Each refused IPv4 range is refused in every IPv6 form that embeds or
 * translates it: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d, RFC 6145), NAT64's well-known
 * prefix (64:ff9b::a.b.c.d, RFC 6052) and 6to4 (2002:aabb:ccdd::/48, RFC 3056); IPv4-compatible (::a.b.c.d),
 * local-use NAT64 and Teredo are refused whole (IPV6_BLOCKED).
 */
export const BLOCKED_ADDRESSES: BlockList = (() => {
  const list = new BlockList()
  for (const [net, prefix] of IPV4_BLOCKED) {
    list.addSubnet(net, prefix, 'ipv4')
    list.addSubnet(`::ffff:${net}`, 96 + prefix, 'ipv6')
    list.addSubnet(`::ffff:0:${net}`, 96 + prefix, 'ipv6')
    list.addSubnet(`64:ff9b::${net}`, 96 + prefix, 'ipv6')
    list.addSubnet(embedded('2002:', net), 16 + prefix, 'ipv6')
  }
  for (const [net, prefix] of IPV6_BLOCKED) list.addSubnet(net, prefix, 'ipv6')
  return list
})()

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true // not an address at all: refuse rather than guess
  return BLOCKED_ADDRESSES.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** A network given as a CIDR (`10.0.0.0/8`, `fd00::/8`) or a single address, checked; undefined when malformed. */
export function parseNetwork(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return undefined
  const max = version === 4 ? 32 : 128
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN
  if (!(prefix >= 0 && prefix <= max)) return undefined
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' }
}

/** Which addresses outbound calls may not reach, with the operator's exceptions. */
export interface AddressGuard {
  refuses(address: string): boolean
  /** Every address `hostname` resolves to (or the literal itself); a refused one among them is named. */
  check(hostname: string): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: 'unresolvable' | 'blocked'; address?: string }>
}

export function createAddressGuard(options: AddressGuardOptions): AddressGuard {
  const allowed = new BlockList()
  for (const text of options.allowedNetworks ?? []) {
    const net = parseNetwork(text)
    if (!net) throw new Error(`not a network: ${text}`)
    allowed.addSubnet(net.address, net.prefix, net.family)
    // An allowed IPv4 network is allowed in its IPv4-mapped IPv6 spelling too.
    if (net.family === 'ipv4') allowed.addSubnet(`::ffff:${net.address}`, 96 + net.prefix, 'ipv6')
  }
  const refuses = (address: string) => {
    if (options.allowPrivateNetworks) return false
    const family = isIP(address)
    if (family === 0) return true
    return isBlockedAddress(address) && !allowed.check(address, family === 4 ? 'ipv4' : 'ipv6')
  }
  const lookupAll = promisify(options.lookup ?? systemLookupAll) as (hostname: string, options: { family?: number }) => Promise<LookupAddress[]>
  return {
    refuses,
    async check(hostname) {
      const host = hostname.replace(/^\[(.*)\]$/, '$1')
      let addresses: string[]
      if (isIP(host) !== 0) addresses = [host]
      else {
        try {
          addresses = (await lookupAll(host, {})).map((a) => a.address)
        } catch {
          return { ok: false, reason: 'unresolvable' }
        }
        if (addresses.length === 0) return { ok: false, reason: 'unresolvable' }
      }
      const blocked = addresses.find(refuses)
      return blocked === undefined ? { ok: true, addresses } : { ok: false, reason: 'blocked', address: blocked }
    },
  }
}

class BlockedAddressError extends Error {
  override name = 'BlockedAddressError'
  readonly code = 'ERR_BLOCKED_ADDRESS'
  constructor(host: string, address: string) {
    super(host === address ? `${address} is not a public address` : `${host} resolves to ${address}, which is not a public address`)
  }
}

class TooLargeError extends Error {
  override name = 'TooLargeError'
}

class DeadlineError extends Error {
  override name = 'DeadlineError'
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** dns.lookup that fails when any address of the name is refused (a name with one private address is refused). */
function guardedLookup(guard: AddressGuard, lookupAll: LookupAll) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookupAll(hostname, { family: typeof options.family === 'number' ? options.family : 0 }, (err, addresses) => {
      if (err) return callback(err, [])
      const blocked = addresses.find((a) => guard.refuses(a.address))
      if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), [])
      if ((options as LookupAllOptions).all) return callback(null, addresses)
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), [])
      callback(null, first.address, first.family)
    })
  }
}

export function createOutboundHttp(options: OutboundOptions): OutboundHttp {
  const timeoutMs = options.timeoutMs ?? 10_000
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
  const guard = createAddressGuard(options)
  const unguarded = options.allowPrivateNetworks && !options.lookup
  const base = buildConnector(unguarded ? { timeout: timeoutMs } : { timeout: timeoutMs, lookup: guardedLookup(guard, options.lookup ?? systemLookupAll) })
  const connect: buildConnector.connector = (opts, callback) => {
    // IP literals never reach the lookup hook; they are checked here, still before any connection is made.
    const host = opts.hostname.replace(/^\[(.*)\]$/, '$1')
    if (isIP(host) !== 0 && guard.refuses(host)) {
      callback(new BlockedAddressError(host, host), null)
      return
    }
    base(opts, callback)
  }
  // No keep-alive reuse across receivers matters here; undici's own timeouts back up the total deadline.
  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })

  return {
    async request(req) {
      let url: URL
      try {
        url = new URL(req.url)
      } catch {
        return failure('invalid_url', 'not an absolute URL')
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return failure('invalid_url', `${url.protocol} URLs are not supported`)
      if (url.username || url.password) return failure('invalid_url', 'credentials in the URL are not allowed')

      const deadline = new AbortController()
      const limit = req.timeoutMs ?? timeoutMs
      const timer = options.clock.setTimer(limit, () => deadline.abort(new DeadlineError(`no complete answer within ${limit} ms`)))
      try {
        const res = await request(url, { dispatcher: agent, method: req.method ?? 'GET', headers: req.headers, body: req.body, signal: deadline.signal })
        const declared = Number(res.headers['content-length'])
        if (declared > maxBodyBytes) {
          res.body.destroy()
          throw new TooLargeError(`the response declares ${declared} bytes, over the ${maxBodyBytes}-byte limit`)
        }
        const parts: Buffer[] = []
        let size = 0
        for await (const part of res.body) {
          size += (part as Buffer).length
          if (size > maxBodyBytes) {
            res.body.destroy()
            throw new TooLargeError(`the response body is over the ${maxBodyBytes}-byte limit`)
          }
          parts.push(part as Buffer)
        }
        return { ok: true, status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }
      } catch (err) {
        return { ok: false, error: classify(err, deadline.signal) }
      } finally {
        timer.cancel()
      }
    },
    close: () => agent.close(),
  }
}

function failure(kind: OutboundErrorKind, message: string): OutboundResult {
  return { ok: false, error: { kind, message } }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'])

function classify(err: unknown, deadline: AbortSignal): OutboundError {
  if (deadline.aborted && deadline.reason instanceof DeadlineError) return { kind: 'timeout', message: deadline.reason.message }
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof BlockedAddressError) return { kind: 'blocked_address', message: e.message }
    if (e instanceof TooLargeError) return { kind: 'too_large', message: e.message }
    const code = (e as NodeJS.ErrnoException).code
    if (code && TIMEOUT_CODES.has(code)) return { kind: 'timeout', message: e.message }
  }
  const message = err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? err.name}: ${err.message}` : String(err)
  return { kind: 'connection_failed', message }
}
