// The Database type Kysely checks every query against. Each feature declares its own tables in its folder
// (`<feature>/tables.ts`) and adds them to FeatureTables under its name; the platform's own are here. Database is
// the intersection of them all, so the platform names no feature and adding a feature's tables touches no file here.
// Times are stored as ISO-8601 UTC text so that SQLite and PostgreSQL store and sort them identically; amounts as
// decimal text, never as floats.

/** Small operational switches shared by every server process on the database (e.g. maintenance). */
export interface SettingsTable {
  key: string
  value: string
  updated_at: string
}

/**
 * Credentials already used (platform/replay-guard.ts): a digest naming one (a DPoP proof, a JWT id, a signed write's
 * HTTP Signature), the uses spent, and until when it could be accepted.
 */
export interface ReplayGuardTable {
  key_hash: string
  uses: number
  expires_at: string
}

export type JobStatus = 'pending' | 'running' | 'done' | 'failed'

/** Work to do later and again; see src/platform/jobs/. */
export interface JobsTable {
  id: string
  kind: string
  /** JSON text. */
  payload: string
  status: JobStatus
  /** When a pending job is due (after a failure: when its retry is). */
  run_at: string
  attempts: number
  max_attempts: number
  /** The worker that claimed a running job, until lease_expires_at; after that anyone may claim it again. */
  lease_owner: string | null
  lease_expires_at: string | null
  last_error: string | null
  idempotency_key: string | null
  created_at: string
  updated_at: string
  finished_at: string | null
}

/** One stored blob's current version; its bytes are blob_chunks rows of version_id. */
export interface BlobsTable {
  key: string
  version_id: string
  size: number
  sha256: string
  content_type: string | null
  chunk_size: number
  created_at: string
}

export interface BlobChunksTable {
  version_id: string
  seq: number
  data: Buffer
}

/** The platform's own tables. */
export interface PlatformTables {
  settings: SettingsTable
  replay_guard: ReplayGuardTable
  jobs: JobsTable
  blobs: BlobsTable
  blob_chunks: BlobChunksTable
}

/**
 * Every owner's tables, by the owner's name: the platform's, and each feature's, added from the feature's folder
 * (`declare module '../platform/db/schema.js' { interface FeatureTables { banking: BankingTables } }`).
 */
export interface FeatureTables {
  platform: PlatformTables
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never
type AllTables = Intersection<FeatureTables[keyof FeatureTables]>

/** Every table: the intersection of the platform's and every feature's. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface (not an alias) keeps Kysely's messages short
export interface Database extends AllTables {}

/** A table name two owners both declare (their column types would silently intersect). */
type DeclaredTwice = {
  [K in keyof FeatureTables]: keyof FeatureTables[K] & { [J in Exclude<keyof FeatureTables, K>]: keyof FeatureTables[J] }[Exclude<keyof FeatureTables, K>]
}[keyof FeatureTables]
type None<T extends never> = T
/** Fails to compile, naming the table, when two owners declare one table. */
export type EveryTableHasOneOwner = None<DeclaredTwice>
