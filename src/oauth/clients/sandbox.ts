// The sandbox's reporting OAuth clients: constants, public on purpose (README, "Sandbox identities"), registered at
// every sandbox start and never in production, where a database holding an active one refuses to serve.
import type { ClientService, FixedClient } from './service.js'

export const SANDBOX_REPORTING_CLIENTS: readonly FixedClient[] = [
  // The merchant's own server-to-server client: client_credentials tokens act for testrest.
  { id: 'sandbox-testrest-reporting', clientId: 'testrest-reporting', name: 'testrest reporting (sandbox)', secret: '8Pp0fzAtKI3DkayhQHM+snVm7+GtqaLYZaB03ZH+HAk=', organizationId: 'testrest', loopbackRedirects: false },
  // A partner of the account: a merchant user signs in on its consent page, and its tokens act for that user's merchant.
  { id: 'sandbox-testrest-acct-partner', clientId: 'testrest-acct-partner', name: 'testrest_acct partner (sandbox)', secret: 'NgXdsHdWilSCYEOAOX3jjx7fOhF3dLtvNfM7sbpAZwc=', organizationId: 'testrest_acct', loopbackRedirects: true },
]

/** Registers the clients, active, with their published secrets (idempotent; a revoked one is active again). */
export async function ensureSandboxReportingClients(clients: Pick<ClientService, 'ensureFixedClient'>): Promise<void> {
  await Promise.all(SANDBOX_REPORTING_CLIENTS.map((client) => clients.ensureFixedClient(client)))
}

/** The internal ids of sandbox reporting clients active in this database: in production there must be none. */
export async function activeSandboxClients(clients: Pick<ClientService, 'list'>): Promise<string[]> {
  const ids = new Set(SANDBOX_REPORTING_CLIENTS.map((c) => c.id))
  return (await clients.list()).filter((c) => c.revokedAt === null && ids.has(c.id)).map((c) => c.id)
}
