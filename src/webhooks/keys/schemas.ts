// Wire schemas of POST /kms/egress/v2/keys-sym and keys-asym, with the keys of the official SDK's SaveSymEgressKey,
// InlineResponse2017, SaveAsymEgressKey and InlineResponse20110 models. Every request member is optional in the SDK; the service checks meanings and names the
// member at fault by its flattened JSON path (keyInformation.expiryDuration).
import { Type, type Static } from 'typebox'

const Text = (maxLength: number, description?: string) => Type.Optional(Type.String({ maxLength, ...(description ? { description } : {}) }))

export const SaveSymEgressKeyBody = Type.Object({
  clientReferenceInformation: Type.Optional(Type.Object({ code: Text(50, 'Your reference, echoed') })),
  clientRequestAction: Text(16, 'CREATE (default: the server generates the key) or STORE (you give keyInformation.key)'),
  keyInformation: Type.Optional(
    Type.Object({
      provider: Text(32, 'nrtd (default)'),
      tenant: Text(64, 'Your organization id (default)'),
      keyType: Text(32, 'sharedSecret (default), the digital signature key'),
      organizationId: Text(32, 'Your organization or one below it (default: the acting organization)'),
      clientKeyId: Text(128),
      keyId: Text(64, 'STORE only: the key id to store it under (default: a new UUID)'),
      key: Text(512, 'STORE only: the base64 key, at least 32 bytes decoded'),
      status: Text(16, 'ACTIVE (default)'),
      expiryDuration: Text(4, 'Days the key is valid, 1 to 3650 (default 365)'),
    }),
  ),
})
export type SaveSymEgressKeyBody = Static<typeof SaveSymEgressKeyBody>

export const SaveSymEgressKeyResponse = Type.Object(
  {
    submitTimeUtc: Type.String({ description: 'YYYY-MM-DDThh:mm:ssZ' }),
    status: Type.String({ enum: ['ACCEPTED'] }),
    clientReferenceInformation: Type.Optional(Type.Object({ code: Type.Optional(Type.String()) })),
    keyInformation: Type.Object({
      provider: Type.String(),
      tenant: Type.String(),
      organizationId: Type.String(),
      clientKeyId: Type.Optional(Type.String()),
      keyId: Type.String({ description: 'The keyId of every V-C-signature header made with this key' }),
      key: Type.String({ description: 'The base64 key, shown this once: save it to verify notifications' }),
      keyType: Type.String(),
      status: Type.String({ enum: ['ACTIVE'] }),
      expirationDate: Type.String({ description: 'YYYY-MM-DDThh:mm:ssZ' }),
    }),
  },
  { description: 'Created: the key is returned once and signs the organization’s notifications from now on' },
)
export type SaveSymEgressKeyResponse = Static<typeof SaveSymEgressKeyResponse>

export const SaveAsymEgressKeyBody = Type.Object({
  clientReferenceInformation: Type.Optional(Type.Object({ code: Text(50, 'Your reference, kept with the certificate') })),
  clientRequestAction: Text(16, 'CREATE (default) or STORE: either stores the certificate given'),
  keyInformation: Type.Optional(
    Type.Object({
      provider: Text(32, 'nrtd (default)'),
      tenant: Text(64, 'Your organization id (default)'),
      keyType: Text(32, 'asymmetric (default); asym, certificate and mle mean the same'),
      organizationId: Text(32, 'Your organization or one below it (default: the acting organization)'),
      pub: Text(16_384, 'Required: your X.509 certificate (RSA, at least 2048 bits), base64 of the DER; a PEM CERTIFICATE block is read too'),
      keyId: Text(64, 'The id to store it under (default: a new UUID)'),
      pvt: Text(16_384, 'Accepted for the SDK model only: never stored, logged or echoed. Do not send your private key'),
      status: Text(16, 'ACTIVE (default)'),
      expiryDuration: Text(4, 'Days it is kept, 1 to 3650 (default 365), and never past the certificate’s notAfter'),
    }),
  ),
})
export type SaveAsymEgressKeyBody = Static<typeof SaveAsymEgressKeyBody>

export const SaveAsymEgressKeyResponse = Type.Object(
  {
    submitTimeUtc: Type.String({ description: 'YYYY-MM-DDThh:mm:ssZ' }),
    status: Type.String({ enum: ['ACCEPTED'] }),
  },
  { description: 'Created: the certificate is stored for the organization' },
)
export type SaveAsymEgressKeyResponse = Static<typeof SaveAsymEgressKeyResponse>
