// GET /.well-known/oauth-authorization-server: the authorization server's metadata (RFC 8414).
import type { App } from '../../platform/http/app.js'
import { withHeaders } from '../../platform/http/documented-headers.js'
import { baseUrlOf } from '../../platform/http/public-url.js'
import { ServerMetadata } from './schemas.js'
import { serverMetadata } from './service.js'

const tags = ['oauth']

export async function metadataRoutes(app: App, deps: { publicUrl: string | undefined }): Promise<void> {
  const { publicUrl } = deps

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags,
        operationId: 'authorizationServerMetadata',
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
        description: 'issuer is PUBLIC_URL when configured, else the base URL the request was addressed to (protocol and Host).',
        response: { 200: withHeaders(ServerMetadata, { 'Cache-Control': { description: 'public, max-age=3600: the metadata changes only with the server\'s configuration', required: true } }) },
      },
    },
    async (request, reply) => reply.header('cache-control', 'public, max-age=3600').send(serverMetadata(baseUrlOf(request, publicUrl))),
  )
}

