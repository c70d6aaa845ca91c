// Wire schemas of the replay call: the real service's body, as the SDKs that had it modelled it
// (ReplayWebhooksRequest, with byTransactionTraceIdentifiers or byDeliveryStatus), and its answer.
import { Type, type Static } from 'typebox'

export const ReplayBody = Type.Object({
  byTransactionTraceIdentifiers: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 1000, description: 'V-C-transaction-trace-id values of attempts: their notifications are sent again' })),
  byDeliveryStatus: Type.Optional(
    Type.Object({
      status: Type.Optional(Type.String({ maxLength: 16, description: 'FAILED or RETRY (the real service); HELD: notifications kept while the subscription was INACTIVE' })),
      startTime: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 (an offset, or UTC); with endTime at most 24 hours apart, within the last 30 days' })),
      endTime: Type.Optional(Type.String({ maxLength: 40 })),
      hoursBack: Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 4 })], { description: 'Instead of startTime/endTime: the last n hours, 1 to 720' })),
      productId: Type.Optional(Type.String({ maxLength: 64 })),
      eventType: Type.Optional(Type.String({ maxLength: 128 })),
    }),
  ),
})
export type ReplayBody = Static<typeof ReplayBody>

export const ReplayAccepted = Type.Object(
  { submitTimeUtc: Type.String(), status: Type.String({ enum: ['ACCEPTED'] }), replayedNotifications: Type.Integer({ description: 'Notifications sent again, one attempt each, now' }) },
  { description: 'Accepted: the selected notifications are being sent again' },
)
