// Message-level encryption certificates (POST /kms/egress/v2/keys-asym, the SDK's SaveAsymEgressKey): a subscriber's
// public X.509 certificate, checked (a DER certificate, valid now, RSA of 2048 bits or more, not a private key) and
// kept for its organization. Notifications are not encrypted yet (every event type advertises payloadEncryption
// false), so nothing reads it back; it is stored so that encryption can start without asking subscribers again.
//
// The SDK model also has `pvt`, a private certificate. A server never needs the subscriber's private key, so the
// member is accepted (an SDK caller may have set it) and dropped here: it is not stored, logged or answered.
import { randomUUID } from 'node:crypto'
import type { OrganizationService } from '../../organizations/service.js'
import type { Clock } from '../../platform/clock.js'
import type { Executor } from '../../platform/db/database.js'
import { conflict, invalid, type ErrorDetail } from '../../platform/errors.js'
import { readCertificate, type ReadCertificate } from './x509.js'
import * as repo from './repository.js'
import { KEY_ID_PATTERN, KEY_ID_RULE, checkProviderAndStatus, expiryDays, organizationFor, requestAction, utcSeconds, type Acting } from './rules.js'
import type { SaveAsymEgressKeyBody, SaveAsymEgressKeyResponse } from './schemas.js'

/**
 * keyType names the reference does not list (the SDK has no enum): the ones that plainly mean "an asymmetric key's
 * certificate", in any case. sharedSecret (the keys-sym type) is refused, so a caller mixing the calls up learns so.
 */
const KEY_TYPES = new Set(['asymmetric', 'asym', 'certificate', 'mle'])

export interface WebhookCertificateService {
  save(acting: Acting, body: SaveAsymEgressKeyBody): Promise<SaveAsymEgressKeyResponse>
}

export interface WebhookCertificateDeps {
  db: Executor
  clock: Clock
  organizations: Pick<OrganizationService, 'mayActFor'>
}

export function createWebhookCertificateService(deps: WebhookCertificateDeps): WebhookCertificateService {
  return {
    async save(acting, body) {
      const info = body.keyInformation ?? {}
      const now = deps.clock.now()
      const details: ErrorDetail[] = []
      const bad = (field: string, reason: string) => details.push({ field, reason })
      // CREATE and STORE both store the certificate given: the server never makes a key pair for a subscriber.
      requestAction(body.clientRequestAction, bad)
      if (info.keyType !== undefined && !KEY_TYPES.has(info.keyType.toLowerCase())) bad('keyInformation.keyType', 'must be asymmetric (the message-level encryption certificate)')
      checkProviderAndStatus(info, bad)
      const days = expiryDays(info.expiryDuration, bad)
      if (info.keyId !== undefined && !KEY_ID_PATTERN.test(info.keyId)) bad('keyInformation.keyId', KEY_ID_RULE)
      let certificate: ReadCertificate | undefined
      if (info.pub === undefined || info.pub.trim() === '') bad('keyInformation.pub', 'is required: your certificate, base64 of the DER')
      else {
        const read = readCertificate(info.pub, now)
        if (read.ok) certificate = read
        else bad('keyInformation.pub', read.reason)
      }
      if (details.length > 0 || !certificate) throw invalid(details)

      const organizationId = await organizationFor(acting, info.organizationId, deps.organizations)
      const kept = new Date(Math.min(now.getTime() + days * 86_400_000, certificate.notAfter.getTime()))
      const row: repo.CertificateRow = {
        id: info.keyId ?? randomUUID(),
        organization_id: organizationId,
        provider: info.provider ?? 'nrtd',
        tenant: info.tenant ?? organizationId,
        key_type: 'asymmetric',
        client_reference_code: body.clientReferenceInformation?.code ?? null,
        certificate: certificate.pem,
        fingerprint: certificate.fingerprint,
        not_after: certificate.notAfter.toISOString(),
        status: 'ACTIVE',
        created_at: now.toISOString(),
        expires_at: kept.toISOString(),
      }
      if (!(await repo.insertCertificate(deps.db, row))) throw conflict([{ field: 'keyInformation.keyId', reason: 'a key with this id exists' }])
      return { submitTimeUtc: utcSeconds(now), status: 'ACCEPTED' }
    },
  }
}
