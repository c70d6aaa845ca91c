// `GET /`: what a visitor finds at the server's root. A browser gets a small page, anything else JSON, linking the
// interactive documentation, the OpenAPI document and the health checks; in sandbox mode also the published
// sandbox credentials (the composition root passes them in: they are the features' data), so an integrator can
// make a first call without searching the docs. Production shows no credentials.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { withHeaders } from './http/documented-headers.js'

export interface HomeOptions {
  mode: 'sandbox' | 'production'
  version: string
  /** Sandbox credentials to show, by what they are for. Empty in production. */
  sandbox: readonly { label: string; value: string }[]
}

const Link = Type.Object({ rel: Type.String(), href: Type.String(), title: Type.String() })
const Home = Type.Object({
  name: Type.Literal('finapi'),
  version: Type.String(),
  mode: Type.Enum(['sandbox', 'production']),
  links: Type.Array(Link),
  sandbox: Type.Optional(Type.Array(Type.Object({ label: Type.String(), value: Type.String() }))),
})

const LINKS = [
  { rel: 'docs', href: '/docs', title: 'Interactive API documentation' },
  { rel: 'openapi', href: '/openapi.json', title: 'OpenAPI document' },
  { rel: 'live', href: '/health/live', title: 'Liveness check' },
  { rel: 'ready', href: '/health/ready', title: 'Readiness check (database reachable)' },
]

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(o: HomeOptions): string {
  const links = LINKS.map((l) => `<li><a href="${l.href}">${escape(l.title)}</a> <code>${l.href}</code></li>`).join('')
  const sandbox = o.sandbox.length
    ? `<h2>Sandbox credentials</h2><p>Published test values: this server runs in sandbox mode, on test data.</p><dl>${o.sandbox.map((s) => `<dt>${escape(s.label)}</dt><dd><code>${escape(s.value)}</code></dd>`).join('')}</dl>`
    : ''
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>finapi</title>
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}code{background:#f2f2f2;padding:0 .25rem;word-break:break-all}dt{font-weight:600;margin-top:.5rem}a{color:#0645ad}</style></head>
<body><main><h1>finapi <small>${escape(o.version)}</small></h1><p>Banking and merchant reporting APIs, with OAuth 2.0 and signed webhooks, in <strong>${o.mode}</strong> mode.</p>
<h2>Start here</h2><ul>${links}</ul>${sandbox}</main></body></html>`
}

export async function homeRoutes(app: FastifyInstance, options: HomeOptions): Promise<void> {
  const json = { name: 'finapi' as const, version: options.version, mode: options.mode, links: LINKS, ...(options.sandbox.length ? { sandbox: [...options.sandbox] } : {}) }
  const html = page(options)
  const response = {
    200: withHeaders(
      { description: 'Where to start: JSON, or a page for a browser (Accept naming text/html before application/json)', content: { 'application/json': { schema: Home }, 'text/html': { schema: Type.String() } } },
      { Vary: { description: 'Accept: the answer depends on it', required: true } },
    ),
  }
  app.get('/', { schema: { tags: ['operations'], operationId: 'home', response } }, async (request, reply) => {
    reply.header('vary', 'accept')
    // A browser asks for HTML first; curl and clients send */* or JSON, and get JSON.
    const accept = request.headers.accept ?? ''
    if (/text\/html/.test(accept) && accept.indexOf('text/html') < (accept.indexOf('application/json') + 1 || Infinity)) {
      return reply.type('text/html; charset=utf-8').serializer((p: unknown) => p as string).send(html)
    }
    return json
  })
}
