// The server's base URL as a client reached it: PUBLIC_URL when configured (behind a proxy it is the only
// trustworthy answer), else the request's protocol and Host header. The OAuth issuer and DPoP's htu use it.
import type { FastifyRequest } from 'fastify'

export function baseUrlOf(request: Pick<FastifyRequest, 'protocol' | 'host'>, configured: string | undefined): string {
  return configured ?? `${request.protocol}://${request.host}`
}

/** The full URL of the request, path and query included. */
export function requestUrlOf(request: Pick<FastifyRequest, 'protocol' | 'host' | 'url'>, configured: string | undefined): string {
  return baseUrlOf(request, configured) + request.url
}
