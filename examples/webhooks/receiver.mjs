// A whole webhook receiver: it checks each notification's V-C-signature as the reference describes (the key id, a
// timestamp tolerance, a constant-time comparison) on the raw bytes, before any JSON parsing, and prints what came.
//   WEBHOOK_KEY_ID=… WEBHOOK_KEY=… PORT=4000 node examples/webhooks/receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'

const keys = { [process.env.WEBHOOK_KEY_ID]: process.env.WEBHOOK_KEY } // every key you saved, by key id
const port = Number(process.env.PORT ?? 4000)

/** V-C-signature: t=<unix ms>;keyId=<id>;sig=<base64 HMAC-SHA256(base64-decoded key, t + "." + raw body)>. */
function verify(header, rawBody, toleranceMs = 5 * 60_000) {
  const parts = Object.fromEntries(String(header ?? '').split(';').map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()]))
  const key = Object.hasOwn(keys, parts.keyId) ? keys[parts.keyId] : undefined
  if (!key || !/^\d+$/.test(parts.t ?? '') || !parts.sig) return false
  if (Math.abs(Date.now() - Number(parts.t)) > toleranceMs) return false
  const expected = createHmac('sha256', Buffer.from(key, 'base64')).update(`${parts.t}.`).update(rawBody).digest()
  const given = Buffer.from(parts.sig, 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const raw = Buffer.concat(chunks) // verify the bytes received, before any JSON parsing
    if (!verify(req.headers['v-c-signature'], raw)) return res.writeHead(401).end()
    const n = JSON.parse(raw)
    console.log(`verified ${n.eventType} ${n.notificationId} (${req.headers['v-c-request-type']}, retry ${n.retryNumber})`)
    res.writeHead(200).end('ok')
  })
}).listen(port, '127.0.0.1', () => console.log(`receiver on http://127.0.0.1:${port}`))
