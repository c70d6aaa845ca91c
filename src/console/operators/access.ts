// Who may use the operators' pages, and the services they use: those of `finapi orgs|users|credentials|keys|clients`.
import type { FastifyRequest } from 'fastify'
import type { ReportingKeyService } from '../../applications/reporting-keys/service.js'
import type { MerchantUserService } from '../../identity/merchant-users/service.js'
import type { IdentityService } from '../../identity/service.js'
import type { ClientService } from '../../oauth/clients/service.js'
import type { OrganizationService } from '../../organizations/service.js'
import { notFound } from '../../platform/errors.js'
import { session } from '../http.js'
import type { ConsoleSession } from '../sessions/service.js'

/** The services the operators' pages use: those of `finapi orgs|users|credentials|keys|clients`. */
export interface OperatorServices {
  organizations: Pick<OrganizationService, 'list' | 'create'>
  merchantUsers: Pick<MerchantUserService, 'list' | 'get' | 'create'>
  identity: Pick<IdentityService, 'revokeCredential'>
  reportingKeys: Pick<ReportingKeyService, 'list' | 'create' | 'revoke'>
  clients: Pick<ClientService, 'list' | 'create' | 'revoke'>
}

export interface ConsoleOperatorDeps {
  /** One key, so that another page's deps may name the same services narrowed otherwise. */
  operators: OperatorServices
}

/** The signed-in operator's session; for anyone else, the not-found every unknown page answers. */
export function operatorSession(request: FastifyRequest): ConsoleSession {
  const s = session(request)
  if (!s.operator) throw notFound()
  return s
}
