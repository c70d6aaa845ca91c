// The process entry for `finapi serve`: opens the database, builds the app, listens, and shuts down gracefully
// on SIGTERM/SIGINT (stop accepting, let in-flight requests finish, close the database).
import { buildApp } from './app.js'
import { prepareDatabase } from './bootstrap.js'
import { createServices } from './services.js'
import type { Config } from './config.js'
import { systemClock } from './platform/clock.js'
import { openDatabase } from './platform/db/database.js'
import { createLogger } from './platform/logger.js'

const SHUTDOWN_GRACE_MS = 10_000

export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel)
  const db = openDatabase(config.databaseUrl)
  const infrastructure = { db, clock: systemClock, logger }
  const services = createServices(config, infrastructure)
  await prepareDatabase(config, infrastructure, services)
  const app = await buildApp({ config, ...infrastructure, services })
  await app.listen({ host: config.host, port: config.port })

  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  const banner = [
    `finapi ${config.mode} mode on ${db.dialect}, listening on ${base}`,
    `  API:  ${base}/v2/  (every call: x-svc-key, User-Agent, ?v=1)`,
    `  Docs: ${base}/docs`,
  ]
  if (config.mode === 'sandbox') banner.push(`  Sandbox key (x-svc-key): ${config.sandboxApiKey}`)
  process.stdout.write(banner.join('\n') + '\n')

  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    logger.info({ signal }, 'shutting down: draining in-flight requests')
    const force = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS)
    force.unref()
    try {
      await app.close()
      await db.close()
      logger.info('shut down cleanly')
      process.exitCode = 0
    } catch (err) {
      logger.error({ err }, 'shutdown failed')
      process.exitCode = 1
    }
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))
}
