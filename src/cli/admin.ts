// `finapi keys|orgs|clients|users|credentials`: the operator's records of who may call the APIs. Each prints a
// secret once, when it is made, and never lists one. A service's refusal (an unknown organization, a taken id, a
// bad redirect URI) is a one-line failure; a command line that cannot be right is a usage error.
import { readFile } from 'node:fs/promises'
import { Option, type Command } from 'commander'
import type { OrganizationType } from '../organizations/service.js'
import { CliError, collect, group, JSON_DESCRIPTION, JSON_FLAG, printRows, say, usageError } from '../platform/cli/kit.js'
import type { CliContext } from './context.js'

interface Json {
  json?: boolean
}

export function registerAdminCommands(program: Command, cli: CliContext): void {
  keys(program, cli)
  orgs(program, cli)
  clients(program, cli)
  users(program, cli)
  credentials(program, cli)
}

function keys(program: Command, cli: CliContext): void {
  const keys = group(program, 'keys', 'application keys (banking) and reporting keys and certificates of organizations')
  const create = keys
    .command('create')
    .usage('--name <name> | --org <id> [--jwt-cert <file>]')
    .summary('create an application key, or a reporting key')
    .description(
      'create an application key (--name; printed once, only its hash is stored), a reporting key of an organization (--org: ' +
        'HTTP Signature and HS256 JWT; its shared secret is printed once and stored encrypted under SECRETS_KEY), or register a ' +
        "certificate (--org with --jwt-cert: PEM or DER, no private key) whose key signs the organization's RS256 JWTs; its " +
        'subject serialNumber is the JWT kid',
    )
    .option('--name <name>', 'the application (banking) the key is for')
    .option('--org <id>', 'the organization a reporting key or certificate is for')
    .option('--jwt-cert <file>', "a certificate (PEM or DER) for the organization's RS256 JWTs; needs --org")
    .action(async (options: { name?: string; org?: string; jwtCert?: string }) => {
      if (options.jwtCert !== undefined && !options.org) usageError(create, 'keys create --jwt-cert needs --org <id>')
      if (!options.org && !options.name) usageError(create, 'keys create needs --name <name> (application key) or --org <id> (reporting key)')
      const certificate = options.jwtCert === undefined ? undefined : await readFile(options.jwtCert).catch((err: Error) => {
        throw new CliError(`cannot read ${options.jwtCert}: ${err.message}`)
      })
      await cli.withServices(async ({ applications, reportingKeys }) => {
        if (certificate !== undefined) {
          const key = await reportingKeys.createCertificate(options.org!, certificate)
          say(`Registered certificate for organization ${key.organizationId}: JWT kid ${key.certificate!.kid}, valid until ${key.certificate!.notAfter}.`)
          say(`Key id: ${key.id}`)
        } else if (options.org) {
          const { key, secret } = await reportingKeys.create(options.org)
          say(`Created reporting key for organization ${key.organizationId}.`)
          say(`Key id: ${key.id}`)
          say(`Shared secret (shown once, store it now): ${secret}`)
        } else {
          const { application, key } = await applications.create(options.name!)
          say(`Created application ${application.id} (${application.name}).`)
          say(`Key (shown once, store it now): ${key}`)
        }
      })
    })

  keys
    .command('list')
    .usage('[--json]')
    .summary('list keys and certificates (never a secret)')
    .description('list application keys (id, name, key prefix, status), then reporting keys and certificates (kind, kid, validity); never a secret')
    .option(JSON_FLAG, `${JSON_DESCRIPTION}; "type" is application or reporting`)
    .action(async (options: Json) => {
      const [apps, reporting] = await cli.withServices(async ({ applications, reportingKeys }) => [await applications.list(), await reportingKeys.list()] as const)
      if (options.json) {
        printRows([...apps.map((a) => ({ type: 'application', ...a })), ...reporting.map((k) => ({ type: 'reporting', ...k }))], true, [], () => [])
        return
      }
      printRows(apps, false, ['id', 'name', 'key prefix', 'status', 'created'], (a) => [a.id, a.name, `${a.keyPrefix}…`, a.status, a.createdAt])
      if (reporting.length === 0) return
      process.stdout.write('\n')
      const kind = (k: (typeof reporting)[number]) => (k.certificate ? `certificate kid=${k.certificate.kid} until ${k.certificate.notAfter}` : 'shared secret')
      printRows(reporting, false, ['reporting key id', 'organization', 'status', 'created', 'kind'], (k) => [k.id, k.organizationId, k.status, k.createdAt, kind(k)])
    })

  keys
    .command('revoke')
    .summary('revoke a key or a certificate')
    .description('revoke an application key (calls with it answer API-440), a reporting key or a certificate (401)')
    .argument('<id>', 'the key id (see finapi keys list)')
    .action(async (id: string) => {
      await cli.withServices(async ({ applications, reportingKeys }) => {
        if (await applications.revoke(id)) say(`Revoked application ${id}.`)
        else if (await reportingKeys.revoke(id)) say(`Revoked reporting key ${id}.`)
        else throw new CliError(`no active application with id ${id}, and no active reporting key or certificate with that id`)
      })
    })
}

function orgs(program: Command, cli: CliContext): void {
  const orgs = group(program, 'orgs', 'organizations: resellers, their accounts, their merchants')
  orgs
    .command('create')
    .summary('create a reseller, account or merchant')
    .usage('--id <id> --type reseller|account|merchant [--parent <id>] [--name <name>]')
    .description('create an organization (the id is the merchant id clients send)')
    .requiredOption('--id <id>', 'its id: the merchant id clients send')
    .addOption(new Option('--type <type>', 'what it is').choices(['reseller', 'account', 'merchant']).makeOptionMandatory())
    .option('--parent <id>', 'the organization above it (an account under a reseller, a merchant under either)')
    .option('--name <name>', 'a display name (default: the id)')
    .action(async (options: { id: string; type: OrganizationType; parent?: string; name?: string }) => {
      const org = await cli.withServices(({ organizations }) => organizations.create({ id: options.id, type: options.type, parentId: options.parent, name: options.name }))
      say(`Created ${org.type} ${org.id}${org.parentId ? ` under ${org.parentId}` : ''} (${org.name}).`)
    })
  orgs
    .command('list')
    .usage('[--json]')
    .summary('list organizations')
    .description('list organizations: id, type, parent, name, created')
    .option(JSON_FLAG, JSON_DESCRIPTION)
    .action(async (options: Json) => {
      const rows = await cli.withServices(({ organizations }) => organizations.list())
      printRows(rows, options.json, ['id', 'type', 'parent', 'name', 'created'], (o) => [o.id, o.type, o.parentId, o.name, o.createdAt])
    })
}

interface ClientOptions {
  name?: string
  scope?: string[]
  redirectUri?: string[]
  public?: boolean
  application?: string
  requirePar?: boolean
  dpop?: boolean
  org?: string
}

function clients(program: Command, cli: CliContext): void {
  const clients = group(program, 'clients', 'OAuth clients (banking partners, reporting clients of organizations)')
  const create = clients
    .command('create')
    .summary('register an OAuth client (secret printed once)')
    .usage('--name <name> --scope <scope>... [--redirect-uri <uri>...] [options]')
    .description(
      'register an OAuth client; prints its client_id and, unless --public, its secret (once; only its hash is stored). With ' +
        "--application the client_id is that application's key (banking); --org makes it a reporting client of that organization " +
        '(client_credentials tokens act for it; its consent page signs in merchant users)',
    )
    .option('--name <name>', 'its name, shown on the consent page')
    .option('--scope <scope>', 'a scope it may ask for: accounts, reporting (repeat for both)', collect)
    .option('--redirect-uri <uri>', 'a redirect URI (repeat for more); https, or http on localhost or 127.0.0.1', collect)
    .option('--public', 'a public client (no secret): it must use PKCE')
    .option('--application <id>', "use this application's key as the client_id (a banking client)")
    .option('--require-par', 'authorization requests must be pushed (RFC 9126)')
    .option('--dpop', 'tokens must be DPoP-bound (RFC 9449)')
    .option('--org <id>', 'a reporting client of this organization')
    .action(async (options: ClientOptions) => {
      if (!options.name) usageError(create, 'clients create needs --name <name>')
      const { ClientRegistrationError } = await import('../oauth/clients/service.js')
      const created = await cli.withServices(({ oauth }) =>
        oauth.clients
          .create({
            name: options.name!,
            redirectUris: options.redirectUri ?? [],
            scopes: options.scope ?? [],
            public: options.public ?? false,
            applicationId: options.application,
            requirePar: options.requirePar ?? false,
            requireDpop: options.dpop ?? false,
            organizationId: options.org,
          })
          .catch((err: unknown) => {
            throw err instanceof ClientRegistrationError ? new CliError(err.message) : err
          }),
      )
      const { client, secret } = created
      const kind = client.confidential ? 'confidential' : 'public (PKCE, no secret)'
      const flags = [client.requirePar ? 'requires PAR' : '', client.requireDpop ? 'requires DPoP' : ''].filter(Boolean).join(', ')
      const of = client.organizationId ? `, of organization ${client.organizationId}` : ''
      say(`Created OAuth client ${client.id} (${client.name}), ${kind}, scopes: ${client.scopes.join(' ')}${flags ? `, ${flags}` : ''}${of}.`)
      say(client.publicId ? `client_id: ${client.publicId}` : `client_id: the key of application ${client.applicationId} (its x-svc-key)`)
      if (secret) say(`client_secret (shown once, store it now): ${secret}`)
    })

  clients
    .command('list')
    .usage('[--json]')
    .summary('list OAuth clients')
    .description('list OAuth clients: id, name, client_id, type, scopes, redirect URIs, status, created, options, organization')
    .option(JSON_FLAG, JSON_DESCRIPTION)
    .action(async (options: Json) => {
      const rows = await cli.withServices(({ oauth }) => oauth.clients.list())
      const header = ['id', 'name', 'client_id', 'type', 'scopes', 'redirect URIs', 'status', 'created', 'options', 'organization']
      printRows(rows, options.json, header, (c) => [
        c.id,
        c.name,
        c.publicId ?? `key of application ${c.applicationId}`,
        c.confidential ? 'confidential' : 'public',
        c.scopes.join(' '),
        [...c.redirectUris, ...(c.loopbackRedirects ? ['http://localhost|127.0.0.1 (any port and path)'] : [])].join(' '),
        c.revokedAt ? 'revoked' : 'active',
        c.createdAt,
        [c.requirePar ? 'require-par' : '', c.requireDpop ? 'dpop' : ''].filter(Boolean).join(' '),
        c.organizationId,
      ])
    })

  clients
    .command('revoke')
    .summary('revoke a client and every token issued to it')
    .description('revoke an OAuth client and every token issued to it')
    .argument('<id>', 'the client id (see finapi clients list)')
    .action(async (id: string) => {
      if (!(await cli.withServices(({ oauth }) => oauth.clients.revoke(id)))) throw new CliError(`no active OAuth client with id ${id}`)
      say(`Revoked OAuth client ${id}; its tokens no longer work.`)
    })
}

function users(program: Command, cli: CliContext): void {
  const users = group(program, 'users', 'merchant users: who signs in on the consent page of an organization’s OAuth client')
  const create = users
    .command('create')
    .usage('--org <id> --username <name>')
    .summary('create a merchant user (password printed once)')
    .description("create a merchant user of an organization, who signs in on the consent page of the organization's OAuth clients; prints its generated password once")
    .option('--org <id>', 'the organization')
    .option('--username <name>', 'what the user signs in with')
    .action(async (options: { org?: string; username?: string }) => {
      if (!options.org || !options.username) usageError(create, 'users create needs --org <id> and --username <name>')
      const { user, password } = await cli.withServices(({ merchantUsers }) => merchantUsers.create({ organizationId: options.org!, username: options.username! }))
      say(`Created merchant user ${user.username} of organization ${user.organizationId} (customer ${user.id}, credential ${user.credentialId}).`)
      say(`Password (shown once, store it now): ${password}`)
    })
  users
    .command('list')
    .usage('[--json]')
    .summary('list merchant users')
    .description('list merchant users: customer, organization, username, credential, status, role (operator or -), created (revoke one with finapi credentials revoke <credential>)')
    .option(JSON_FLAG, JSON_DESCRIPTION)
    .action(async (options: Json) => {
      const rows = await cli.withServices(({ merchantUsers }) => merchantUsers.list())
      const header = ['customer', 'organization', 'username', 'credential', 'status', 'role', 'created']
      printRows(rows, options.json, header, (u) => [u.id, u.organizationId, u.username, u.credentialId, u.status, u.operator ? 'operator' : '-', u.createdAt])
    })
  for (const [name, operator] of [['grant-operator', true], ['revoke-operator', false]] as const) {
    users
      .command(name)
      .summary(operator ? 'make a merchant user an operator of the console' : 'take the operator role back')
      .description(
        operator
          ? "make a merchant user an operator: in the console (/console/operators) they also see every organization, and every organization's merchant users, reporting keys and OAuth clients, and can create and revoke them"
          : 'take the operator role back from a merchant user: the operator pages answer 404 to them from their next request',
      )
      .argument('<username>', 'what the merchant user signs in with (see finapi users list)')
      .action(async (username: string) => {
        const user = await cli.withServices(({ merchantUsers }) => merchantUsers.setOperator(username, operator))
        if (!user) throw new CliError(`no merchant user ${username} (see finapi users list)`)
        say(operator ? `${user.username} (organization ${user.organizationId}) is an operator.` : `${user.username} (organization ${user.organizationId}) is no longer an operator.`)
      })
  }
}

function credentials(program: Command, cli: CliContext): void {
  const credentials = group(program, 'credentials', "customers' credentials and soft credentials")
  credentials
    .command('list')
    .usage('<customer> [--json]')
    .summary("a customer's credentials, by id or username")
    .description(
      "list a customer's credentials, soft credentials included: id, kind, brand/lob, restricted, status, created (never a secret). " +
        'The customer is named by its id (sandbox-customer-1) or by what it signs in with (10055670)',
    )
    .argument('<customer>', 'a customer id, or a username or device id the customer signs in with')
    .option(JSON_FLAG, JSON_DESCRIPTION)
    .action(async (reference: string, options: Json) => {
      const rows = await cli.withServices(async ({ identity }) => {
        const found = await identity.findCustomers(reference)
        if (found.length === 0) {
          const some = await identity.someCustomerIds(3)
          const known = some.length === 0 ? 'there are no customers yet (load some with finapi import)' : `customer ids look like ${some.join(', ')}`
          throw new CliError(`no customer ${reference}: give a customer id or a username it signs in with; ${known}`)
        }
        if (found.length > 1) throw new CliError(`${reference} signs in to ${found.length} customers (${found.join(', ')}): give the customer id`)
        if (found[0] !== reference) process.stderr.write(`finapi: ${reference} signs in to customer ${found[0]}\n`)
        return identity.listCredentials(found[0]!)
      })
      printRows(rows, options.json, ['id', 'kind', 'brand/lob', 'restricted', 'status', 'created'], (c) => [c.id, c.kind + (c.tokenType ? ` (${c.tokenType})` : ''), `${c.brand}/${c.lob}`, c.restricted ? 'restricted' : '-', c.status, c.createdAt])
    })
  credentials
    .command('revoke')
    .summary('revoke one credential and end its sessions')
    .description("revoke one credential, such as a lost device's soft credential: its sign-ins answer API-448 and the sessions it opened end")
    .argument('<id>', 'the credential id (see finapi credentials list, finapi users list)')
    .action(async (id: string) => {
      if (!(await cli.withServices(({ identity }) => identity.revokeCredential(id)))) throw new CliError(`no active credential with id ${id}`)
      say(`Revoked credential ${id}; signing in with it now fails, and the sessions it opened have ended.`)
    })
}
