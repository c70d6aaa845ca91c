// The context every `finapi` command runs in: configuration read on first use, and the services over an up-to-date
// database (src/cli.ts makes it).
import type { Config } from '../config.js'
import type { Clock } from '../platform/clock.js'
import type { Db } from '../platform/db/database.js'
import type { Services } from '../services.js'

export interface CliContext {
  /** The configuration from the environment, read on first use: help and usage errors need none. */
  config(): Promise<Config>
  /** Opens the database, brings it up to date, and hands `fn` the services a server uses; closes it after. */
  withServices<T>(fn: (services: Services, db: Db, applied: string[]) => Promise<T>): Promise<T>
  clock: Clock
}
