// Wire schemas of the webhook management operations, with the keys of the official SDK's models (CreateWebhook,
// UpdateWebhook, UpdateStatus; InlineResponse2006/2007/2008/2018). Requests check shapes loosely, as the SDK
// types them (every member optional, numbers possibly sent as text as the developer guide does); the service checks
// meanings and names every member at fault. Responses are allow-lists and always carry status, notificationScope
// and retryPolicy.algorithm, whose SDK defaults would otherwise misreport a missing value.
import { Type, type Static } from 'typebox'
import { ORGANIZATION_ID_PATTERN } from '../../organizations/service.js'

const OrganizationId = Type.String({ minLength: 1, maxLength: 32, pattern: ORGANIZATION_ID_PATTERN })
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL; https only in production; no private, loopback or metadata address unless the operator allows its network' })
const NumberLike = Type.Union([Type.Number(), Type.String({ maxLength: 16 })])

const ProductsIn = Type.Array(
  Type.Object({ productId: Type.String({ maxLength: 64 }), eventTypes: Type.Array(Type.String({ maxLength: 128 }), { maxItems: 50 }) }),
  { maxItems: 20, description: 'Products and event types from findProductsToSubscribe' },
)

export const RetryPolicyIn = Type.Object({
  algorithm: Type.Optional(Type.String({ maxLength: 16, description: 'ARITHMETIC (default) or GEOMETRIC' })),
  firstRetry: Type.Optional(NumberLike),
  interval: Type.Optional(NumberLike),
  numberOfRetries: Type.Optional(NumberLike),
  deactivateFlag: Type.Optional(Type.Union([Type.String({ maxLength: 5 }), Type.Boolean()])),
  repeatSequenceCount: Type.Optional(NumberLike),
  repeatSequenceWaitTime: Type.Optional(NumberLike),
  additionalAttributes: Type.Optional(Type.Array(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 256 })), { maxItems: 20 })),
})
export type RetryPolicyIn = Static<typeof RetryPolicyIn>

const AdditionalConfig = Type.Object({
  aud: Type.Optional(Type.String({ maxLength: 256 })),
  clientId: Type.Optional(Type.String({ maxLength: 256 })),
  keyId: Type.Optional(Type.String({ maxLength: 64, description: 'The signing key (keys-sym keyId) of this subscription; default: the organization’s newest' })),
  scope: Type.Optional(Type.String({ maxLength: 256 })),
})
const SecurityConfig = Type.Object({
  oAuthURL: Type.Optional(Type.String({ maxLength: 2048 })),
  oAuthTokenType: Type.Optional(Type.String({ maxLength: 32 })),
  additionalConfig: Type.Optional(AdditionalConfig),
})
export const SecurityPolicyIn = Type.Object({
  securityType: Type.Optional(Type.String({ maxLength: 16, description: 'key (default, either case); oAuth and oAuth_JWT are not supported' })),
  config: Type.Optional(SecurityConfig),
})
export type SecurityPolicyIn = Static<typeof SecurityPolicyIn>

export const CreateWebhook = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 128 })),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  organizationId: Type.Optional(OrganizationId),
  products: ProductsIn,
  webhookUrl: Url,
  healthCheckUrl: Type.Optional(Url),
  retryPolicy: Type.Optional(RetryPolicyIn),
  notificationScope: Type.Optional(Type.String({ maxLength: 16, description: 'DESCENDANTS (default) or SELF' })),
  securityPolicy: Type.Optional(SecurityPolicyIn),
})
export type CreateWebhook = Static<typeof CreateWebhook>

/** The SDK's UpdateWebhook has no retryPolicy; it is accepted here too, as the developer guide allows. `null` clears. */
export const UpdateWebhook = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 128 })),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  organizationId: Type.Optional(OrganizationId),
  products: Type.Optional(ProductsIn),
  webhookUrl: Type.Optional(Url),
  healthCheckUrl: Type.Optional(Type.Union([Url, Type.Null()])),
  retryPolicy: Type.Optional(RetryPolicyIn),
  notificationScope: Type.Optional(Type.String({ maxLength: 16 })),
  securityPolicy: Type.Optional(SecurityPolicyIn),
})
export type UpdateWebhook = Static<typeof UpdateWebhook>

export const UpdateStatus = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 16, description: 'ACTIVE or INACTIVE; absent (the SDK model’s unset default) means INACTIVE' })),
})
export type UpdateStatus = Static<typeof UpdateStatus>

export const WebhookIdParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) })
export const OrganizationParams = Type.Object({ organizationId: OrganizationId })
export const ListQuery = Type.Object({
  organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: ORGANIZATION_ID_PATTERN, description: 'Whose subscriptions (the SDK always sends it; default: the acting organization)' })),
  productId: Type.Optional(Type.String({ maxLength: 64 })),
  eventType: Type.Optional(Type.String({ maxLength: 128 })),
})

const RetryPolicyOut = Type.Object({
  algorithm: Type.String({ enum: ['ARITHMETIC', 'GEOMETRIC'] }),
  firstRetry: Type.Number(),
  interval: Type.Number(),
  numberOfRetries: Type.Integer(),
  deactivateFlag: Type.String({ enum: ['true', 'false'] }),
  repeatSequenceCount: Type.Integer(),
  repeatSequenceWaitTime: Type.Number(),
  additionalAttributes: Type.Optional(Type.Array(Type.Record(Type.String(), Type.String()))),
})

const webhookFields = {
  webhookId: Type.String(),
  organizationId: Type.String(),
  products: Type.Array(Type.Object({ productId: Type.String(), eventTypes: Type.Array(Type.String()) })),
  webhookUrl: Type.String(),
  healthCheckUrl: Type.Optional(Type.String()),
  status: Type.String({ enum: ['ACTIVE', 'INACTIVE', 'SUSPENDED'] }),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  retryPolicy: RetryPolicyOut,
  securityPolicy: Type.Object({ securityType: Type.String(), config: Type.Optional(SecurityConfig) }),
  createdOn: Type.String({ format: 'date-time' }),
  notificationScope: Type.String({ enum: ['SELF', 'DESCENDANTS'] }),
}

/** InlineResponse2018 (create, get) and InlineResponse2007 (a list element). */
export const Webhook = Type.Object(webhookFields, { description: 'A webhook subscription' })
export type Webhook = Static<typeof Webhook>
/** InlineResponse2008 (PATCH): the same, with updatedOn. */
export const UpdatedWebhook = Type.Object({ ...webhookFields, updatedOn: Type.String({ format: 'date-time' }) }, { description: 'The updated subscription' })
export type UpdatedWebhook = Static<typeof UpdatedWebhook>
export const WebhookList = Type.Array(Webhook, { description: 'A bare JSON array, as the SDK requires ([] when there is none)' })

/** InlineResponse2006: eventTypes are objects here, strings in subscriptions. */
export const ProductList = Type.Array(
  Type.Object({
    productId: Type.String(),
    productName: Type.String(),
    eventTypes: Type.Array(Type.Object({ eventName: Type.String(), displayName: Type.String(), timeSensitivity: Type.Boolean(), payloadEncryption: Type.Boolean() })),
  }),
  { description: 'The products and event types the organization may subscribe to (a bare JSON array)' },
)
export type ProductList = Static<typeof ProductList>

/** The test call's answer (the SDK's InlineResponse2019). */
export const TestNotification = Type.Object(
  {
    eventDate: Type.String(),
    eventType: Type.String(),
    organizationId: Type.String(),
    payloads: Type.Object({ testPayload: Type.Object({ message: Type.String() }) }),
    productId: Type.String(),
    requestType: Type.String(),
    retryNumber: Type.Integer(),
    transactionTraceId: Type.String(),
    webhookId: Type.String(),
    deliveryStatus: Type.String({ enum: ['DELIVERED', 'RETRY', 'FAILED'], description: 'This project’s addition: what the receiver made of it (RETRY: retried by the policy)' }),
    responseCode: Type.Optional(Type.Integer({ description: 'The receiver’s HTTP status, when it answered' })),
  },
  { description: 'The test notification, delivered and signed like any notification' },
)
