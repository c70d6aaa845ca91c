// What one feature contributes to the app, as one descriptor: its services (for the CLI and for features wired
// after it), its routes, its jobs and rows that expire, what it adds to the OpenAPI document, the migrations that
// made its tables, its sandbox data and its commands. The composition root (services.ts) builds the descriptors in
// order and everything else reads them from there: the app mounts their routes, the job runner and housekeeping take
// their jobs and prune tasks, the migrator their migrations, bootstrap their sandbox data. Adding a feature is one line
// there. Its table types are in its folder too (`tables.ts`, added to the Database type under the feature's name).
import type { Command } from 'commander'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Migration } from 'kysely'
import type { Clock } from './clock.js'
import type { LabelledCounter } from './counters.js'
import type { Db } from './db/database.js'
import type { PruneTask } from './housekeeping.js'
import type { App } from './http/app.js'
import type { ErrorFamily, MountedFamily } from './http/error-family.js'
import type { JobHandler, KindOptions } from './jobs/types.js'
import type { Registry } from 'prom-client'

export interface FeatureHttp {
  /**
   * The error family the feature's routes answer in, and the URL prefixes it owns: unknown paths under each, and
   * requests refused there before a route is chosen, answer in that family too. Each route writes its whole path.
   */
  errors?: ErrorFamily
  prefixes?: readonly string[]
  /**
   * Families answering under paths of their own inside the feature, when it has no prefix of its own: requests
   * rejected before a route is chosen there (a malformed URL, a request the HTTP parser refuses) answer in them.
   */
  families?: readonly MountedFamily[]
  /** Registers the feature's routes (and its gateway, if it has one) into its own encapsulated scope. */
  register(scope: App): Promise<void>
}

/** An OpenAPI 3.1 security scheme object (apiKey, http, oauth2, …). */
export type SecurityScheme = Record<string, unknown>

export interface FeatureOpenapi {
  /** A paragraph of the document's description. */
  description?: string
  securitySchemes?: Record<string, SecurityScheme>
  /**
   * Scripts the docs page (/docs) loads after Swagger UI, as static files (no inline script). One may push a request
   * interceptor, an async `(request) => request`, onto `globalThis.finapiDocs.requestInterceptors`: "Try it out" and
   * Authorize send every request through them, in order (platform/openapi.ts).
   */
  docsScripts?: readonly DocsScript[]
}

/** A script of the docs page, served at /docs/static/theme/<filename>. */
export interface DocsScript {
  filename: string
  content: string
}

/** A kind of background job a feature handles; the composition root registers it with the one job runner. */
export interface JobKind {
  kind: string
  handler: JobHandler<never>
  options?: KindOptions
}

/**
 * Periodic work a feature does in every server process (a scheduler's sweep), run every JOBS_POLL_MS beside the
 * job runner (never when it is 0), runs never overlapping. It must be safe with several processes doing it at once.
 */
export interface BackgroundTask {
  name: string
  run(): Promise<unknown>
}

/** What a feature adds to a sandbox database, and what a production database must not keep of it. */
export interface FeatureSandbox {
  /**
   * Loads the feature's sandbox data (published keys, clients, customers, generated rows): idempotent, run at every
   * start in sandbox mode, feature by feature in the composition root's order, so after the features it stands on.
   */
  seed(): Promise<void>
  /**
   * Its published sandbox identities still active, each named with the command that revokes it ("reporting key X
   * (finapi keys revoke X)"): a production server refuses to start while there is any, since their secrets are public.
   */
  exposed?(): Promise<string[]>
}

/** What a feature's commands run with. */
export interface CommandContext<Services> {
  /** Opens the database, brings it up to date, and runs `fn` with the feature's services over it; closes it after. */
  run<T>(fn: (services: Services, db: Db) => Promise<T>): Promise<T>
  clock: Clock
}

/**
 * A feature's `finapi` commands. The command tree (src/cli/program.ts) imports them on their own, not through the
 * feature, so that help and usage errors load no feature's code: the module that defines them imports the
 * command-line kit (platform/cli/) and types, and what a command does is imported when it runs.
 */
export interface FeatureCommands<Services> {
  register(program: Command, context: CommandContext<Services>): void
}

export interface Feature<Services = unknown> {
  readonly name: string
  readonly services: Services
  readonly http?: FeatureHttp
  /** Rows of this feature that can never be used again, deleted by every server's housekeeping and `finapi prune`. */
  readonly housekeeping?: readonly PruneTask[]
  /** The job kinds the feature enqueues and handles (through the Jobs service it is given). */
  readonly jobs?: readonly JobKind[]
  readonly openapi?: FeatureOpenapi
  readonly background?: readonly BackgroundTask[]
  /** Counters of the feature's own events (plain maps, cheap on hot paths), exposed on /metrics. */
  readonly counters?: readonly LabelledCounter[]
  /** The feature's own Prometheus metrics (prom-client), written after the platform's on /metrics. */
  readonly metrics?: Registry
  /**
   * The migrations that created and changed its tables, by name: files of src/migrations/, frozen history that
   * imports nothing but platform/db. The migrator runs the platform's and every feature's together, in name order.
   */
  readonly migrations?: Readonly<Record<string, Migration>>
  readonly sandbox?: FeatureSandbox
  readonly commands?: FeatureCommands<Services>
  /**
   * Told of every request's end, once, from the app's log controller (no hook per request): it must be cheap and
   * never throw (the request log buffers a row here).
   */
  readonly requestCompleted?: (request: FastifyRequest, reply: FastifyReply) => void
  /** Run when the app closes, after the background work stopped (the request log writes its last batch). */
  readonly close?: () => Promise<void>
}
