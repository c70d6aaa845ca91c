// The scopes this server grants, with the plain words the consent page shows for each, and the parsing of the
// space-separated `scope` parameter (RFC 6749, 3.3).

export const SCOPES = {
  accounts: 'See your accounts, their balances and their details',
  reporting: 'Read your merchant reports: transactions, fundings and settlements',
} as const satisfies Record<string, string>

export type Scope = keyof typeof SCOPES
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[]

export function isScope(name: string): name is Scope {
  return Object.hasOwn(SCOPES, name)
}

// scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

/**
 * The distinct scope tokens of a `scope` parameter, or undefined when it is not a space-separated list of
 * tokens. An empty or blank value gives an empty list.
 */
export function parseScope(value: string): string[] | undefined {
  const tokens = value.split(' ').filter((t) => t !== '')
  if (!tokens.every((t) => SCOPE_TOKEN.test(t))) return undefined
  return [...new Set(tokens)]
}

/** Scopes in the catalog's order, space-separated, so the same set always reads the same. */
export function formatScope(scopes: readonly string[]): string {
  return SCOPE_NAMES.filter((s) => scopes.includes(s)).join(' ')
}

export function isSubset(requested: readonly string[], allowed: readonly string[]): boolean {
  return requested.every((s) => allowed.includes(s))
}
