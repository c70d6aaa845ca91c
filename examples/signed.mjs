// One signed reporting call, as the official SDKs sign it (HTTP Signature, HmacSHA256), with the sandbox key of
// merchant testrest; the status goes to stderr and the body to stdout, so a downloaded report can be redirected.
//   node examples/signed.mjs METHOD PATH [JSON-BODY]
// BASE (default http://127.0.0.1:3000) names the server; FINAPI_MERCHANT, FINAPI_KEY_ID and FINAPI_SECRET
// another key; FINAPI_HEADERS='{"range":"bytes=0-99"}' adds headers.
import { createHash, createHmac } from 'node:crypto'

const [method = 'GET', path = '/reporting/v3/report-definitions', body] = process.argv.slice(2)
const base = process.env.BASE ?? 'http://127.0.0.1:3000'
const merchant = process.env.FINAPI_MERCHANT ?? 'testrest'
const keyId = process.env.FINAPI_KEY_ID ?? '08c94330-f618-42a3-b09d-e1e43be5efda'
const secret = process.env.FINAPI_SECRET ?? 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE='

// fetch sends the URL's host, which is what is signed.
const host = new URL(base).host
const date = new Date().toUTCString()
const lines = [`host: ${host}`, `date: ${date}`, `request-target: ${method.toLowerCase()} ${path}`]
const headers = { date, 'v-c-merchant-id': merchant, ...JSON.parse(process.env.FINAPI_HEADERS ?? '{}') }
if (body !== undefined) {
  headers.digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`
  headers['content-type'] = 'application/json'
  lines.push(`digest: ${headers.digest}`)
}
lines.push(`v-c-merchant-id: ${merchant}`)
const names = body === undefined ? 'host date request-target v-c-merchant-id' : 'host date request-target digest v-c-merchant-id'
const signature = createHmac('sha256', Buffer.from(secret, 'base64')).update(lines.join('\n')).digest('base64')
headers.signature = `keyid="${keyId}", algorithm="HmacSHA256", headers="${names}", signature="${signature}"`

const res = await fetch(base + path, { method, headers, body })
const location = res.headers.get('location')
process.stderr.write(`${res.status}${location ? ` Location: ${location}` : ''}\n`)
process.stdout.write(Buffer.from(await res.arrayBuffer()))
