// POST /kms/egress/v2/keys-sym: the digital signature key that signs an organization's notifications.
// POST /kms/egress/v2/keys-asym: a subscriber's message-level encryption certificate, validated and kept.
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../merchant-api/gateway.js'
import { failureBody } from '../../merchant-api/schemas.js'
import type { WebhookCertificateService } from './certificates.js'
import { SaveAsymEgressKeyBody, SaveAsymEgressKeyResponse, SaveSymEgressKeyBody, SaveSymEgressKeyResponse } from './schemas.js'
import type { WebhookKeyService } from './service.js'

export async function keyRoutes(scope: App, deps: { keys: WebhookKeyService; certificates: WebhookCertificateService }): Promise<void> {
  scope.post(
    '/kms/egress/v2/keys-sym',
    {
      schema: {
        operationId: 'saveSymEgressKey',
        summary: 'Create Webhook Security Keys',
        description: 'CREATE (default): the server generates a 32-byte key; STORE: yours. The key is answered once and stored encrypted; the organization’s newest key signs its notifications, older ones stay valid until they expire.',
        tags: ['Webhooks'],
        body: SaveSymEgressKeyBody,
        response: { 201: SaveSymEgressKeyResponse, 400: failureBody(['INVALID_DATA']), 409: failureBody(['DUPLICATE_REQUEST']) },
      },
    },
    async (request, reply) => reply.code(201).send(await deps.keys.save(actingOrganization(request), request.body ?? {})),
  )

  scope.post(
    '/kms/egress/v2/keys-asym',
    {
      schema: {
        operationId: 'saveAsymEgressKey',
        summary: 'Message Level Encryption',
        description:
          'Stores your message-level encryption certificate (keyInformation.pub: an X.509 certificate, RSA of at least 2048 bits, valid now, base64 of the DER). CREATE and STORE both store it. keyInformation.pvt is accepted for the SDK model and dropped: never send a private key. Notifications are not encrypted yet (payloadEncryption is false for every event type); the certificate is kept for when they are.',
        tags: ['Webhooks'],
        body: SaveAsymEgressKeyBody,
        response: { 201: SaveAsymEgressKeyResponse, 400: failureBody(['INVALID_DATA']), 404: failureBody(['NOT_FOUND']), 409: failureBody(['DUPLICATE_REQUEST']) },
      },
    },
    async (request, reply) => reply.code(201).send(await deps.certificates.save(actingOrganization(request), request.body)),
  )
}
