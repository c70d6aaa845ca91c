// Sign in with a device passcode (deviceRegIdPasscode): the device proves possession with an Ed25519 signature of
// "deviceRegIdPasscode\n" + brand + "\n" + lob + "\n" + deviceRegId + "\n" + passcode, base64url. The sandbox
// device's key is public on purpose (its seed is below); a real device keeps its own and registers the public half.
//   BASE=http://127.0.0.1:3000 node examples/banking/device-passcode.mjs
import { createPrivateKey, sign } from 'node:crypto'

const base = process.env.BASE ?? 'http://127.0.0.1:3000'
const seed = Buffer.from('24ed97fe3b4a740b4ad4020e1c2b09b4ca8fa24f845db2358f54127528e7b197', 'hex')
// A PKCS#8 wrapping of the raw 32-byte seed, which is how node:crypto takes an Ed25519 private key.
const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' })
const [brand, lob, deviceRegId, passcode] = ['nab', 'nab', 'sandbox-device-0001', '246810']
const signature = sign(null, Buffer.from(`deviceRegIdPasscode\n${brand}\n${lob}\n${deviceRegId}\n${passcode}`), key).toString('base64url')

const res = await fetch(`${base}/v2/auth?v=1`, {
  method: 'POST',
  headers: { 'x-svc-key': 'sandbox-key-finapi', 'user-agent': 'my-app/1.0', 'content-type': 'application/json' },
  body: JSON.stringify({
    loginRequest: { brand, lob, credentials: { apiStructType: 'deviceRegIdPasscode', deviceRegIdPasscode: { deviceRegId, passcode, signature } } },
  }),
})
const body = await res.json()
console.log(res.status, body.status.code, body.loginResponse?.tokens[0].expires)
if (res.status !== 200) process.exitCode = 1
