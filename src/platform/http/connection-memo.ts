// What a connection's caller showed last: a keep-alive client sends the same key and token on every call, and each
// call hashes them to look them up in the verified-credential caches (SHA-256, a tenth of a cached read's own
// work). Remembered per connection, so a repeated call compares instead of hashing; the caches' answers, expiry
// and revocation are untouched, since only the hash is remembered.
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { HashMemo } from '../crypto.js'

export interface ConnectionMemo {
  /** For the x-svc-key header. */
  key: HashMemo
  /** For the Authorization header's token. */
  token: HashMemo
}

// Keyed by the socket, not stored on it: the memo goes when the connection does, and Node's socket keeps its shape.
const memos = new WeakMap<Socket, ConnectionMemo>()

export function connectionMemo(req: IncomingMessage): ConnectionMemo | undefined {
  const socket = req.socket as Socket | null
  if (!socket) return undefined
  let memo = memos.get(socket)
  if (!memo) memos.set(socket, (memo = { key: {}, token: {} }))
  return memo
}
