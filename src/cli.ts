// The `finapi` command: serve, migrate, application and reporting keys, organizations, OAuth clients, merchant
// users, credentials, the maintenance switch, pruning and import.
import { parseArgs } from 'node:util'
import { readFile } from 'node:fs/promises'
import { ImportFile } from './banking/accounts/import-schema.js'
import { ImportError, importData, type Progress } from './banking/accounts/import.js'
import { prepareDatabase } from './bootstrap.js'
import { createIdentityImport } from './identity/import.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { systemClock } from './platform/clock.js'
import { openDatabase, type Db } from './platform/db/database.js'
import { createLogger } from './platform/logger.js'
import { ClientRegistrationError } from './oauth/clients/service.js'
import type { OrganizationType } from './organizations/service.js'
import { DomainError } from './platform/errors.js'
import { serve } from './server.js'
import { describeStartupFailure } from './startup-errors.js'
import { createServices, type Services } from './services.js'
import { TRANSACTIONS_USAGE, TransactionUsageError, runTransactionsCommand } from './reporting/transactions/cli.js'
import { createTransactionService } from './reporting/transactions/service.js'
import { TransactionImportError } from './reporting/transactions/import.js'
import { REPORTS_USAGE, ReportsUsageError, runReportsCommand } from './reporting/reports/cli.js'
import { WEBHOOKS_USAGE, WebhookUsageError, runWebhooksCommand } from './webhooks/cli.js'

const USAGE = `Usage: finapi <command>

  serve                       start the HTTP server (MODE, HOST, PORT, DATABASE_URL, ... from the environment)
  migrate                     apply database migrations and exit
  keys create --name <name>   create an application key (printed once; only its hash is stored)
  keys create --org <id>      create a reporting key (HTTP Signature, HS256 JWT) for an organization: prints its
                              key id and shared secret once (the secret is stored encrypted under SECRETS_KEY)
  keys create --org <id> --jwt-cert <file>
                              register a certificate (PEM or DER, no private key) whose key signs the
                              organization's RS256 JWTs; its subject serialNumber is the JWT kid
  keys list                   list application keys, reporting keys and certificates (never a secret)
  keys revoke <id>            revoke an application key, a reporting key or a certificate
  orgs create --id <id> --type reseller|account|merchant [--parent <id>] [--name <name>]
                              create an organization (the id is the merchant id clients send)
  orgs list                   list organizations
  clients create --name <name> --scope <scope>... [--redirect-uri <uri>...] [--public] [--application <id>]
                [--require-par] [--dpop] [--org <id>]
                              register an OAuth client (scopes: accounts, reporting); prints its client_id and,
                              unless --public, its secret (once; only its hash is stored). With --application the
                              client_id is that application's key (banking); --public clients must use PKCE;
                              --require-par: authorization requests must be pushed (RFC 9126); --dpop: tokens
                              must be DPoP-bound (RFC 9449); --org: a reporting client of that organization
                              (client_credentials tokens act for it; its consent page signs in merchant users)
  clients list                list OAuth clients
  clients revoke <id>         revoke an OAuth client and every token issued to it
  users create --org <id> --username <name>
                              create a merchant user of an organization, who signs in on the consent page of
                              an organization's OAuth client; prints its generated password once
  users list                  list merchant users (revoke one with credentials revoke <credential id>)
  credentials list <customer> list a customer's credentials, soft credentials included (never a secret)
  credentials revoke <id>     revoke one credential, such as a lost device's soft credential
  maintenance on|off|status   switch every server on this database to API-522 maintenance answers, or back
  prune                       delete expired sessions, OAuth tokens, codes and consents now (servers also do it
                              every PRUNE_INTERVAL_SECONDS)
  import <file.json>          load customers, credentials, accounts and exchange rates, all or nothing
  import --schema             print the JSON Schema of the import file
${TRANSACTIONS_USAGE}${REPORTS_USAGE}${WEBHOOKS_USAGE}`

class UsageError extends Error {}

/** Opens the database, brings it up to date, and hands the command the same services a server uses. */
async function withServices<T>(config: Config, fn: (services: Services, db: Db, applied: string[]) => Promise<T>): Promise<T> {
  const db = openDatabase(config.databaseUrl)
  // Log lines go to stderr, so a command's own output stays clean to pipe.
  const infrastructure = { db, clock: systemClock, logger: createLogger('warn', process.stderr) }
  try {
    const services = createServices(config, infrastructure)
    const applied = await prepareDatabase(config, infrastructure, services, { operator: true })
    return await fn(services, db, applied)
  } finally {
    await db.close()
  }
}

async function keys(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseOrUsage(args, { name: { type: 'string' }, org: { type: 'string' }, 'jwt-cert': { type: 'string' } })
  const [action, id] = positionals
  const certificate = values['jwt-cert'] === undefined ? undefined : await readFile(values['jwt-cert']).catch((err: Error) => {
    throw new UsageError(`cannot read ${values['jwt-cert']}: ${err.message}`)
  })
  await withServices(config, async ({ applications: service, reportingKeys }) => {
    if (action === 'create') {
      if (certificate !== undefined) {
        if (!values.org) throw new UsageError('keys create --jwt-cert needs --org <id>')
        const key = await domainOrUsage(() => reportingKeys.createCertificate(values.org!, certificate))
        process.stdout.write(`Registered certificate for organization ${key.organizationId}: JWT kid ${key.certificate!.kid}, valid until ${key.certificate!.notAfter}.\n`)
        process.stdout.write(`Key id: ${key.id}\n`)
        return
      }
      if (values.org) {
        const { key, secret } = await domainOrUsage(() => reportingKeys.create(values.org!))
        process.stdout.write(`Created reporting key for organization ${key.organizationId}.\n`)
        process.stdout.write(`Key id: ${key.id}\n`)
        process.stdout.write(`Shared secret (shown once, store it now): ${secret}\n`)
        return
      }
      if (!values.name) throw new UsageError('keys create needs --name <name> (application key) or --org <id> (reporting key)')
      const { application, key } = await service.create(values.name)
      process.stdout.write(`Created application ${application.id} (${application.name}).\n`)
      process.stdout.write(`Key (shown once, store it now): ${key}\n`)
    } else if (action === 'list') {
      const rows = await service.list()
      process.stdout.write(['id\tname\tkey prefix\tstatus\tcreated', ...rows.map((a) => `${a.id}\t${a.name}\t${a.keyPrefix}…\t${a.status}\t${a.createdAt}`)].join('\n') + '\n')
      const reporting = await reportingKeys.list()
      if (reporting.length > 0) {
        const kind = (k: (typeof reporting)[number]) => (k.certificate ? `certificate kid=${k.certificate.kid} until ${k.certificate.notAfter}` : 'shared secret')
        process.stdout.write(['', 'reporting key id\torganization\tstatus\tcreated\tkind', ...reporting.map((k) => `${k.id}\t${k.organizationId}\t${k.status}\t${k.createdAt}\t${kind(k)}`)].join('\n') + '\n')
      }
    } else if (action === 'revoke') {
      if (!id) throw new UsageError('keys revoke needs a key id (see keys list)')
      if (await service.revoke(id)) process.stdout.write(`Revoked application ${id}.\n`)
      else if (await reportingKeys.revoke(id)) process.stdout.write(`Revoked reporting key ${id}.\n`)
      else throw new UsageError(`no active application with id ${id}, and no active reporting key or certificate with that id`)
    } else {
      throw new UsageError(`unknown keys action: ${action ?? '(none)'}`)
    }
  })
}

async function orgs(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseOrUsage(args, { id: { type: 'string' }, type: { type: 'string' }, parent: { type: 'string' }, name: { type: 'string' } })
  const [action] = positionals
  await withServices(config, async ({ organizations }) => {
    if (action === 'create') {
      if (!values.id || !values.type) throw new UsageError('orgs create needs --id <id> and --type reseller|account|merchant')
      const org = await domainOrUsage(() => organizations.create({ id: values.id!, type: values.type as OrganizationType, parentId: values.parent, name: values.name }))
      process.stdout.write(`Created ${org.type} ${org.id}${org.parentId ? ` under ${org.parentId}` : ''} (${org.name}).\n`)
    } else if (action === 'list') {
      const rows = await organizations.list()
      process.stdout.write(['id\ttype\tparent\tname\tcreated', ...rows.map((o) => `${o.id}\t${o.type}\t${o.parentId ?? '-'}\t${o.name}\t${o.createdAt}`)].join('\n') + '\n')
    } else {
      throw new UsageError(`unknown orgs action: ${action ?? '(none)'}`)
    }
  })
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options']

function parseOrUsage<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/** A service's refusal (a bad id, an unknown parent, a taken id) as a usage error naming what was wrong. */
async function domainOrUsage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof DomainError) throw new UsageError(err.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason)).join('; ') || err.kind)
    throw err
  }
}

async function clients(config: Config, args: string[]): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({
      args,
      options: {
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        scope: { type: 'string', multiple: true },
        public: { type: 'boolean' },
        application: { type: 'string' },
        'require-par': { type: 'boolean' },
        dpop: { type: 'boolean' },
        org: { type: 'string' },
      },
      allowPositionals: true,
    })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values, positionals } = parsed
  const [action, id] = positionals
  await withServices(config, async ({ oauth: { clients: service } }) => {
    if (action === 'create') {
      if (!values.name) throw new UsageError('clients create needs --name <name>')
      let created
      try {
        created = await service.create({
          name: values.name,
          redirectUris: values['redirect-uri'] ?? [],
          scopes: values.scope ?? [],
          public: values.public ?? false,
          applicationId: values.application,
          requirePar: values['require-par'] ?? false,
          requireDpop: values.dpop ?? false,
          organizationId: values.org,
        })
      } catch (err) {
        if (err instanceof ClientRegistrationError) throw new UsageError(err.message)
        throw err
      }
      const { client, secret } = created
      const kind = client.confidential ? 'confidential' : 'public (PKCE, no secret)'
      const options = [client.requirePar ? 'requires PAR' : '', client.requireDpop ? 'requires DPoP' : ''].filter(Boolean).join(', ')
      const of = client.organizationId ? `, of organization ${client.organizationId}` : ''
      process.stdout.write(`Created OAuth client ${client.id} (${client.name}), ${kind}, scopes: ${client.scopes.join(' ')}${options ? `, ${options}` : ''}${of}.\n`)
      process.stdout.write(
        client.publicId ? `client_id: ${client.publicId}\n` : `client_id: the key of application ${client.applicationId} (its x-svc-key)\n`,
      )
      if (secret) process.stdout.write(`client_secret (shown once, store it now): ${secret}\n`)
    } else if (action === 'list') {
      const rows = await service.list()
      const lines = rows.map((c) =>
        [
          c.id,
          c.name,
          c.publicId ?? `key of application ${c.applicationId}`,
          c.confidential ? 'confidential' : 'public',
          c.scopes.join(' '),
          [...c.redirectUris, ...(c.loopbackRedirects ? ['http://localhost|127.0.0.1 (any port and path)'] : [])].join(' ') || '-',
          c.revokedAt ? 'revoked' : 'active',
          c.createdAt,
          [c.requirePar ? 'require-par' : '', c.requireDpop ? 'dpop' : ''].filter(Boolean).join(' ') || '-',
          c.organizationId ?? '-',
        ].join('\t'),
      )
      process.stdout.write(['id\tname\tclient_id\ttype\tscopes\tredirect URIs\tstatus\tcreated\toptions\torganization', ...lines].join('\n') + '\n')
    } else if (action === 'revoke') {
      if (!id) throw new UsageError('clients revoke needs a client id (see clients list)')
      if (!(await service.revoke(id))) throw new UsageError(`no active OAuth client with id ${id}`)
      process.stdout.write(`Revoked OAuth client ${id}; its tokens no longer work.\n`)
    } else {
      throw new UsageError(`unknown clients action: ${action ?? '(none)'}`)
    }
  })
}

async function users(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseOrUsage(args, { org: { type: 'string' }, username: { type: 'string' } })
  const [action] = positionals
  await withServices(config, async ({ merchantUsers }) => {
    if (action === 'create') {
      if (!values.org || !values.username) throw new UsageError('users create needs --org <id> and --username <name>')
      const { user, password } = await domainOrUsage(() => merchantUsers.create({ organizationId: values.org!, username: values.username! }))
      process.stdout.write(`Created merchant user ${user.username} of organization ${user.organizationId} (customer ${user.id}, credential ${user.credentialId}).\n`)
      process.stdout.write(`Password (shown once, store it now): ${password}\n`)
    } else if (action === 'list') {
      const rows = await merchantUsers.list()
      const lines = rows.map((u) => [u.id, u.organizationId, u.username, u.credentialId, u.status, u.createdAt].join('\t'))
      process.stdout.write(['customer\torganization\tusername\tcredential\tstatus\tcreated', ...lines].join('\n') + '\n')
    } else {
      throw new UsageError(`unknown users action: ${action ?? '(none)'}`)
    }
  })
}

async function credentials(config: Config, args: string[]): Promise<void> {
  const [action, id] = args
  await withServices(config, async ({ identity }) => {
    if (action === 'list') {
      if (!id) throw new UsageError('credentials list needs a customer id')
      const rows = await identity.listCredentials(id)
      const lines = rows.map((c) => [c.id, c.kind + (c.tokenType ? ` (${c.tokenType})` : ''), `${c.brand}/${c.lob}`, c.restricted ? 'restricted' : '-', c.status, c.createdAt].join('\t'))
      process.stdout.write(['id\tkind\tbrand/lob\trestricted\tstatus\tcreated', ...lines].join('\n') + '\n')
    } else if (action === 'revoke') {
      if (!id) throw new UsageError('credentials revoke needs a credential id (see credentials list)')
      if (!(await identity.revokeCredential(id))) throw new UsageError(`no active credential with id ${id}`)
      process.stdout.write(`Revoked credential ${id}; signing in with it now fails, and the sessions it opened have ended.\n`)
    } else {
      throw new UsageError(`unknown credentials action: ${action ?? '(none)'}`)
    }
  })
}

async function maintenance(config: Config, action: string | undefined): Promise<void> {
  await withServices(config, async ({ maintenance: toggle }) => {
    if (action === 'on' || action === 'off') await toggle.set(action === 'on')
    else if (action === 'status') await toggle.refresh()
    else throw new UsageError(`maintenance takes on, off or status, not ${action ?? '(none)'}`)
    process.stdout.write(`Maintenance is ${toggle.isOn() ? 'on' : 'off'}.\n`)
  })
}

async function prune(config: Config): Promise<void> {
  await withServices(config, async ({ housekeeping }) => {
    const counts = await housekeeping.runOnce()
    process.stdout.write(`Deleted: ${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(', ')}.\n`)
  })
}

async function importFile(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { schema: { type: 'boolean' } }, allowPositionals: true })
  if (values.schema) {
    process.stdout.write(JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...ImportFile }, null, 2) + '\n')
    return
  }
  const path = positionals[0]
  if (!path) throw new UsageError('import needs a file: finapi import <file.json>')
  let data: unknown
  try {
    data = JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    throw new UsageError(`cannot read ${path} as JSON: ${(err as Error).message}`)
  }
  // Progress goes to a terminal only, rewritten in place; piped output stays clean.
  const progress: Progress = process.stderr.isTTY
    ? (phase, done, total) => process.stderr.write(`\r${phase} ${done}/${total}${done === total ? '\n' : ''}`)
    : () => {}
  await withServices(config, async (_services, db) => {
    const summary = await importData({ db, clock: systemClock, identity: createIdentityImport(config.secretsKey) }, data, progress)
    process.stdout.write(
      `Imported ${summary.customers} customers, ${summary.credentials} credentials, ${summary.accounts} accounts, ${summary.exchangeRates} exchange rates.\n`,
    )
  })
}

/** The configuration once parsed: a failure to start is described with its settings. */
let loaded: Config | undefined

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(USAGE)
    return
  }
  const config = loadConfig(process.env)
  loaded = config
  switch (command) {
    case 'serve':
      return serve(config)
    case 'migrate':
      // The migrations are applied as the database is opened; this reports which were.
      return withServices(config, async (_services, _db, applied) => {
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n')
      })
    case 'keys':
      return keys(config, rest)
    case 'orgs':
      return orgs(config, rest)
    case 'clients':
      return clients(config, rest)
    case 'users':
      return users(config, rest)
    case 'credentials':
      return credentials(config, rest)
    case 'maintenance':
      return maintenance(config, rest[0])
    case 'prune':
      return prune(config)
    case 'import':
      return importFile(config, rest)
    case 'reports':
    case 'clock':
      return runReportsCommand(command, rest, (fn) => withServices(config, (services, db) => domainOrUsage(() => fn({ reporting: services.reporting, db }))), systemClock)
    case 'events':
    case 'webhooks':
      return runWebhooksCommand(command, rest, (fn) => withServices(config, (services) => fn(services.webhooks)))
    case 'transactions':
      return runTransactionsCommand(rest, (fn) => withServices(config, (_services, db) => fn(createTransactionService({ db, clock: systemClock }))), systemClock.now())
    default:
      throw new UsageError(`unknown command: ${command}`)
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const startup = loaded && describeStartupFailure(err, loaded)
  if (startup !== undefined) {
    process.stderr.write(`finapi: ${startup}\n`)
    process.exit(1)
  }
  if (err instanceof ImportError) {
    process.stderr.write(`finapi: import rejected, nothing was loaded: ${err.message}\n`)
  } else if (err instanceof TransactionImportError) {
    process.stderr.write(`finapi: transactions import rejected at ${err.message}\n`)
  } else if (err instanceof ReportsUsageError) {
    process.stderr.write(`finapi: ${err.message}\n`)
  } else if (err instanceof TransactionUsageError) {
    process.stderr.write(`finapi: ${err.message}\n\n${USAGE}`)
  } else if (err instanceof WebhookUsageError) {
    process.stderr.write(`finapi: ${err.message}\n`)
  } else if (err instanceof ConfigError || err instanceof UsageError) {
    process.stderr.write(`finapi: ${err.message}\n`)
    if (err instanceof UsageError) process.stderr.write(`\n${USAGE}`)
  } else {
    process.stderr.write(`finapi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  }
  process.exit(1)
})
