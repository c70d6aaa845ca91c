// The two signatures every notification carries, under the same key (the base64-decoded signing key):
//   V-C-signature: t=<unix ms>;keyId=<key id>;sig=<base64 HMAC-SHA256(key, t + "." + raw body)>   (the reference)
//   webhook-signature: v1,<base64 HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body)>
//   with webhook-id = the notificationId and webhook-timestamp in seconds                            (Standard Webhooks)
import { createHmac } from 'node:crypto'

export interface SigningKey {
  id: string
  /** The decoded key bytes. */
  secret: Buffer
}

export function vcSignature(secret: Buffer, timestampMs: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampMs}.`).update(body).digest('base64')
}

export function vcSignatureHeader(key: SigningKey, timestampMs: number, body: string): string {
  return `t=${timestampMs};keyId=${key.id};sig=${vcSignature(key.secret, timestampMs, body)}`
}

export function standardSignatureHeader(secret: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`
}
