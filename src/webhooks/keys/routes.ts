// POST /kms/egress/v2/keys-sym: the digital signature key that signs an organization's notifications.
import type { App } from '../../platform/http/app.js'
import { actingOrganization } from '../../reporting/gateway.js'
import { failureBody } from '../../reporting/schemas.js'
import { SaveSymEgressKeyBody, SaveSymEgressKeyResponse } from './schemas.js'
import type { WebhookKeyService } from './service.js'

export async function keyRoutes(scope: App, deps: { keys: WebhookKeyService }): Promise<void> {
  scope.post(
    '/v2/keys-sym',
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
}
