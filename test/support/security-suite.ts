// The shared security suite: every protected route of an API family, against every way of not being allowed.
// A family plugs in its routes, how a caller proves itself, and what each refusal looks like in its contract; the
// suite sends each route each refusal. Each case sets up what it needs and undoes what it changed, so cases do not
// depend on one another's order.
import { describe, it } from 'vitest'
import type { Response, TestApp } from './harness.js'

export interface ProtectedRoute {
  name: string
  method: string
  path: () => string
  body?: unknown
}

/** The ways a caller can be refused, whatever the family. */
export type Refusal = 'no key' | 'wrong key' | 'revoked application' | 'wrong scope' | 'maintenance'

export interface SecuritySuite {
  /** The family's name, for the test titles. */
  family: string
  app: () => TestApp
  routes: ProtectedRoute[]
  /** The header that carries the application's key. */
  keyHeader: string
  /** Headers of a caller that is allowed (a fresh credential each time, as a route may revoke the one it is sent). */
  allowed: () => Promise<Record<string, string>>
  /** Headers of an allowed caller whose application is revoked meanwhile. */
  revokedApplication: () => Promise<Record<string, string>>
  /** Headers of a caller whose credential lacks the scope these routes need. */
  wrongScope: () => Promise<Record<string, string>>
  /** Checks a success and each refusal in the family's contract (status and body shape). */
  expectAllowed: (res: Response) => void
  expectRefused: (res: Response, refusal: Refusal) => void
}

export function describeSecuritySuite(suite: SecuritySuite): void {
  const send = (route: ProtectedRoute, headers: Record<string, string | undefined>) => suite.app().call(route.method, route.path(), { headers, body: route.body })

  describe.each(suite.routes)(`${suite.family} security: $name`, (route) => {
    it('is allowed with a valid key and credential', async () => {
      suite.expectAllowed(await send(route, await suite.allowed()))
    })

    it('refuses a call without the key', async () => {
      suite.expectRefused(await send(route, { ...(await suite.allowed()), [suite.keyHeader]: undefined }), 'no key')
    })

    it('refuses a wrong key, whatever the credential', async () => {
      suite.expectRefused(await send(route, { ...(await suite.allowed()), [suite.keyHeader]: 'fk_wrong-key-0000000000' }), 'wrong key')
    })

    it('refuses a revoked application', async () => {
      suite.expectRefused(await send(route, await suite.revokedApplication()), 'revoked application')
    })

    it('refuses a credential without the scope', async () => {
      suite.expectRefused(await send(route, await suite.wrongScope()), 'wrong scope')
    })

    it('refuses every call during maintenance, and serves again after', async () => {
      const t = suite.app()
      const headers = await suite.allowed()
      await t.app.services.maintenance.set(true)
      try {
        suite.expectRefused(await send(route, headers), 'maintenance')
      } finally {
        await t.app.services.maintenance.set(false)
      }
      suite.expectAllowed(await send(route, await suite.allowed()))
    })
  })
}
