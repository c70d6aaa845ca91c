// Each API family's error table, the answers it really gives, and the OpenAPI document agree. Probe features mount
// every family under a prefix of its own (as a real family is mounted) with routes that throw each domain kind and
// trip the framework's own errors; the source is read for the codes each family really throws.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BANKING_ERROR_TABLE, bankingErrors } from '../src/banking/errors.js'
import { oauthTokenErrors, TOKEN_ERROR_CODES } from '../src/oauth/errors.js'
import { DomainError, ERROR_KINDS, type ErrorKind } from '../src/platform/errors.js'
import type { Feature } from '../src/platform/feature.js'
import { platformErrors, type ErrorFamily } from '../src/platform/http/error-family.js'
import { REPORTING_CODES, reportingErrors } from '../src/merchant-api/errors.js'
import { FakeClock, startTestApp, type TestApp } from './support/harness.js'
import { probeFeature } from './support/probe.js'

const clock = new FakeClock(new Date('2026-03-01T12:34:56.789Z'))
const families: ErrorFamily[] = [bankingErrors, oauthTokenErrors, reportingErrors(clock), platformErrors]

function probeFamily(family: ErrorFamily): Feature {
  return {
    name: `probe-${family.name}`,
    services: {},
    http: {
      prefixes: [`/probe-${family.name}`],
      errors: family,
      async register(scope) {
        scope.get(`/probe-${family.name}/throw/:kind`, { schema: { params: Type.Object({ kind: Type.Enum([...ERROR_KINDS]) }) } }, async (request) => {
          throw new DomainError(request.params.kind, { details: [{ field: 'probe', reason: 'thrown on purpose' }] })
        })
        scope.post(`/probe-${family.name}/json`, { bodyLimit: 64, schema: { body: Type.Object({ n: Type.Integer() }) } }, async () => ({ ok: true }))
      },
    },
  }
}

let t: TestApp
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is inspected as plain JSON
let doc: any
beforeAll(async () => {
  t = await startTestApp({ clock, features: [probeFeature], extraFeatures: families.map(probeFamily) })
  doc = (await t.call('GET', '/openapi.json')).json
})
afterAll(() => t.close())

describe.each(families.map((f) => [f.name, f] as const))('the %s family', (name, family) => {
  it('maps every kind to one of its own codes', () => {
    for (const kind of ERROR_KINDS) expect(family.codes, kind).toHaveProperty(family.kinds[kind])
  })

  it.each([...ERROR_KINDS])('answers %s with its code, HTTP status and body', async (kind: ErrorKind) => {
    const res = await t.call('GET', `/probe-${name}/throw/${kind}`)
    const code = family.kinds[kind]
    expect(res.status).toBe(family.codes[code]!.http)
    if (res.status === 304) return expect(res.text).toBe('')
    expect(res.json).toEqual(expectedBody(name, code, family.codes[code]!.message))
  })

  it('answers an unknown path under its prefix as not_found', async () => {
    const res = await t.call('GET', `/probe-${name}/no/such/path`)
    expect(res.status).toBe(family.codes[family.kinds.not_found]!.http)
  })

  it('answers malformed JSON, a wrong type and a body over the limit as invalid, never 5xx unless the family says so', async () => {
    const invalidStatus = family.codes[family.kinds.invalid]!.http
    for (const body of ['{"n": ', '{"n": "one"}', JSON.stringify({ n: 1, pad: 'x'.repeat(200) })]) {
      const res = await t.call('POST', `/probe-${name}/json`, { headers: { 'content-type': 'application/json' }, body })
      expect(res.status, body).toBe(invalidStatus)
    }
  })
})

/** The body each family's contract gives, written from the contract rather than from the renderer. */
function expectedBody(family: string, code: string, message: string): unknown {
  switch (family) {
    case 'banking':
      return { status: { code, message, details: [{ field: 'probe', reason: 'thrown on purpose' }] } }
    case 'oauth':
      // A named field leads the reason: an RFC 6749 error has no other place to name it.
      return { error: code, error_description: 'probe thrown on purpose' }
    case 'reporting':
      if (code === 'UNAUTHORIZED') return { response: { rmsg: 'Authentication Failed' } }
      return { submitTimeUtc: '2026-03-01T12:34:56Z', reason: code, message, details: [{ field: 'probe', reason: 'thrown on purpose' }] }
    default:
      return { statusCode: Number(code), error: message, message: 'thrown on purpose' }
  }
}

/** Every source file of a feature folder, as text. */
function sources(folder: string): string {
  const dir = new URL(`../src/${folder}/`, import.meta.url).pathname
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  return files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n')
}

/** The domain kinds a folder's code throws through the platform's helpers. */
function kindsThrown(text: string): ErrorKind[] {
  const helpers: Record<string, ErrorKind> = { unauthenticated: 'unauthenticated', forbidden: 'forbidden', notFound: 'not_found', invalid: 'invalid', conflict: 'conflict', notModified: 'not_modified', rateLimited: 'rate_limited', maintenance: 'maintenance', unavailable: 'unavailable', timeout: 'timeout', internal: 'internal' }
  return Object.entries(helpers).filter(([helper]) => new RegExp(`throw ${helper}\\(`).test(text)).map(([, kind]) => kind)
}

describe('the codes really thrown are in the tables and in the OpenAPI document', () => {
  it('banking: every API code thrown under src/banking is documented on the /v2 operations', () => {
    const text = sources('banking')
    const thrown = new Set([...text.matchAll(/new ApiError\('(API-\d{3})'/g)].map((m) => m[1]!))
    for (const kind of kindsThrown(text)) thrown.add(BANKING_ERROR_TABLE[kind])
    expect(thrown.size).toBeGreaterThan(3)
    const documented = new Set<string>()
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, Any> }>>)) {
      if (!path.startsWith('/v2/')) continue
      for (const op of Object.values(methods)) {
        for (const response of Object.values(op.responses)) for (const c of response.content?.['application/json']?.schema?.properties?.status?.properties?.code?.enum ?? []) documented.add(c)
      }
    }
    for (const code of thrown) {
      expect(bankingErrors.codes, code).toHaveProperty(code)
      expect([...documented], `${code} is documented`).toContain(code)
    }
  })

  it('OAuth: every error the token endpoint throws is in the table and in the documented TokenError', () => {
    const thrown = new Set([...sources('oauth').matchAll(/new OAuthError\('([a-z_]+)'/g)].map((m) => m[1]!))
    expect(thrown.size).toBeGreaterThan(3)
    const documented = doc.paths['/oauth2/v3/token'].post.responses['500'].content['application/json'].schema.properties.error.enum as string[]
    expect([...documented].sort()).toEqual([...TOKEN_ERROR_CODES].sort())
    for (const code of [...thrown, ...Object.values(oauthTokenErrors.kinds)]) {
      expect(oauthTokenErrors.codes, code).toHaveProperty(code)
      expect(documented, code).toContain(code)
    }
  })

  it('reporting: each kind maps to a code the reference gives a status for', () => {
    const statuses = new Set(Object.values(REPORTING_CODES).map((c) => c.http))
    // The statuses the reporting reference documents for its calls (cybersource-reporting-v3-paths.json), plus the
    // platform's throttling, maintenance and timeout answers.
    for (const status of statuses) expect([200, 201, 304, 400, 401, 403, 404, 409, 429, 500, 503, 504]).toContain(status)
  })
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the document
type Any = any
