// The shared security suite (Unkey's runCommonRouteTests is the model): every protected route of every API family is
// sent every way of not being allowed that its family has, and must be refused in the family's own contract. A family
// plugs in its routes, how an allowed caller and each kind of refused caller send a route, what an admitted and a
// refused answer look like, and the checks of its own schemes (a JWT's replay, a signature's date). Which routes a
// family's suite holds is checked against the routes the app registers (test/security-coverage.test.ts), so a new
// protected route without a suite entry fails the build. Each case sets up what it needs and undoes what it changed,
// so cases do not depend on one another's order.
import { describe, expect, it } from 'vitest'
import type { Response } from '../harness.js'

/** A protected route, named as the app registers it: `METHOD /path/:param` (the coverage check matches this name). */
export interface SecuredRoute {
  route: string
}

/** The route's method and path pattern. */
export function split(route: SecuredRoute): { method: string; pattern: string } {
  const [method = '', pattern = ''] = route.route.split(' ')
  return { method, pattern }
}

/** The ways of not being allowed that more than one family has; a family sends the ones it has. */
export type Refusal =
  /** The application key (banking's x-svc-key) left off, not ours, or of a revoked application. */
  | 'no key'
  | 'wrong key'
  | 'revoked application'
  /** No proof of the caller at all; text in its place that is no credential; one made with a secret not the caller's. */
  | 'no credential'
  | 'malformed credential'
  | 'wrong secret'
  /** A well-formed credential nobody issued; one that was valid and expired, or was revoked. */
  | 'unknown credential'
  | 'expired credential'
  | 'revoked credential'
  /** A credential of the family without the scope its routes need; one another API family issued. */
  | 'wrong scope'
  | 'another family'
  /** Any call while the maintenance switch is on. */
  | 'maintenance'

const TITLES: Record<Refusal, string> = {
  'no key': 'refuses a call without the application key',
  'wrong key': 'refuses a wrong application key, whatever the credential',
  'revoked application': 'refuses the key of a revoked application',
  'no credential': 'refuses a call without credentials',
  'malformed credential': 'refuses text that is no credential where the credential goes',
  'wrong secret': 'refuses a credential made with another secret',
  'unknown credential': 'refuses a well-formed credential nobody issued',
  'expired credential': 'refuses an expired credential',
  'revoked credential': 'refuses a revoked credential',
  'wrong scope': 'refuses a credential without the scope',
  'another family': "refuses another API family's credentials",
  maintenance: 'refuses every call during maintenance, and serves again after',
}

/** Sends the route one way (several answers where the way has variants); each answer is checked. */
export type Sender<R> = (route: R) => Promise<Response | Response[]>

/** A way of sending, for the routes it applies to (a route that takes no token has no token to refuse). */
export type Way<R> = Sender<R> | { applies: (route: R) => boolean; send: Sender<R> }

export interface SecurityCase<R> {
  title: string
  applies?: (route: R) => boolean
  run: (route: R) => Promise<void>
}

export interface SecuritySuite<R extends SecuredRoute> {
  /** In the tests' titles: the family, and the scheme when a family's schemes run in files of their own. */
  family: string
  routes: readonly R[]
  /** Sends the route as a caller that is allowed (a fresh credential each time, as a route may revoke the one it is sent). */
  allowed: Sender<R>
  /** Each way of being refused the family has. */
  refusals: { [K in Exclude<Refusal, 'maintenance'>]?: Way<R> }
  /** Checks a success and each refusal in the family's contract (status and body). */
  expectAllowed: (res: Response, route: R) => void
  expectRefused: (res: Response, refusal: Refusal, route: R) => void
  /** For a family that answers maintenance: turns the switch on or off. */
  maintenance?: {
    set: (on: boolean) => Promise<void>
    /** Readies an allowed call before the switch goes on (getting a credential may be refused during maintenance). */
    ready: (route: R) => Promise<() => Promise<Response>>
  }
  /**
   * For a route that takes an identifier of a tenant's own (an account, a webhook, a report): sent naming another
   * tenant's, and naming one nobody has, it must answer the same, so that nobody learns what others have.
   */
  tenancy?: {
    applies: (route: R) => boolean
    other: (route: R) => Promise<Response>
    unknown: (route: R) => Promise<Response>
    /** Checks the answer to an identifier nobody has (the family's not-found, or what the route says instead). */
    expectUnknown: (res: Response, route: R) => void
    /** What of an answer must be equal (status and body by default; a family may leave out a timestamp). */
    comparable?: (res: Response) => unknown
  }
  /** The checks of the family's own schemes, for every route they apply to. */
  cases?: readonly SecurityCase<R>[]
}

const all = async (sent: Promise<Response | Response[]>) => [await sent].flat()

export function describeSecuritySuite<R extends SecuredRoute>(suite: SecuritySuite<R>): void {
  const applies = (way: Way<R>, route: R) => typeof way === 'function' || way.applies(route)
  const sender = (way: Way<R>) => (typeof way === 'function' ? way : way.send)
  const allowed = async (route: R) => {
    for (const res of await all(suite.allowed(route))) suite.expectAllowed(res, route)
  }

  // A describe per route rather than describe.each, whose titles cut a long route's name short.
  for (const route of suite.routes) describeRoute(route)

  function describeRoute(route: R): void {
    describe(`${suite.family} security: ${route.route}`, () => {
      it('is allowed with a valid credential', () => allowed(route))

      for (const [refusal, way] of Object.entries(suite.refusals) as [Refusal, Way<R>][]) {
        if (!applies(way, route)) continue
        it(TITLES[refusal], async () => {
          for (const res of await all(sender(way)(route))) suite.expectRefused(res, refusal, route)
        })
      }

      const { maintenance, tenancy } = suite
      if (maintenance) {
        it(TITLES.maintenance, async () => {
          const call = await maintenance.ready(route)
          await maintenance.set(true)
          try {
            suite.expectRefused(await call(), 'maintenance', route)
          } finally {
            await maintenance.set(false)
          }
          await allowed(route)
        })
      }

      if (tenancy?.applies(route)) {
        it("answers another tenant's identifier exactly as one nobody has", async () => {
          const comparable = tenancy.comparable ?? ((res: Response) => ({ status: res.status, body: res.json ?? res.text }))
          const [other, unknown] = [await tenancy.other(route), await tenancy.unknown(route)]
          tenancy.expectUnknown(unknown, route)
          expect(comparable(other)).toEqual(comparable(unknown))
        })
      }

      for (const c of suite.cases ?? []) if (!c.applies || c.applies(route)) it(c.title, () => c.run(route))
    })
  }
}
