// A subscriber's message-level encryption certificate as SaveAsymEgressKey.keyInformation.pub carries it: base64 of
// the DER with no armour (a PEM CERTIFICATE block is read too, as people paste what openssl printed). Pure: the caller
// gives the time it is checked at. No reason ever quotes the value, which may be a private key sent by mistake.
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto'

/** The reference's MLE is RSA-OAEP with 2048-bit keys: a certificate that cannot do that is refused now, not later. */
export const MIN_RSA_BITS = 2048

export interface ReadCertificate {
  /** The certificate, PEM (what is stored). */
  pem: string
  /** SHA-256 of the DER, lowercase hex. */
  fingerprint: string
  notBefore: Date
  notAfter: Date
}

export type CertificateCheck = ({ ok: true } & ReadCertificate) | { ok: false; reason: string }

const ARMOUR = /^-----BEGIN ([A-Z0-9 ]+)-----\s*([\s\S]*?)\s*-----END \1-----$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const refuse = (reason: string): CertificateCheck => ({ ok: false, reason })
const PRIVATE_KEY = 'is a private key: send the public certificate only (the private key never leaves you)'
const NOT_A_CERTIFICATE = 'must be base64 of a DER X.509 certificate'

export function readCertificate(pub: string, now: Date): CertificateCheck {
  let text = pub.trim()
  const armoured = ARMOUR.exec(text)
  if (armoured) {
    const label = armoured[1]!
    if (label.includes('PRIVATE KEY')) return refuse(PRIVATE_KEY)
    if (label !== 'CERTIFICATE') return refuse(NOT_A_CERTIFICATE)
    text = armoured[2]!
  }
  text = text.replace(/\s+/g, '')
  if (!BASE64.test(text)) return refuse(NOT_A_CERTIFICATE)
  const der = Buffer.from(text, 'base64')
  let cert: X509Certificate
  try {
    cert = new X509Certificate(der)
  } catch {
    return refuse(isPrivateKey(der) ? PRIVATE_KEY : NOT_A_CERTIFICATE)
  }
  const notBefore = new Date(cert.validFrom)
  const notAfter = new Date(cert.validTo)
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) return refuse(NOT_A_CERTIFICATE)
  if (now < notBefore) return refuse(`is not valid before ${notBefore.toISOString()}`)
  if (now >= notAfter) return refuse(`expired at ${notAfter.toISOString()}`)
  const key = cert.publicKey
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    return refuse(`must hold an RSA public key of at least ${MIN_RSA_BITS} bits (for RSA-OAEP)`)
  }
  return { ok: true, pem: cert.toString(), fingerprint: createHash('sha256').update(cert.raw).digest('hex'), notBefore, notAfter }
}

/** Whether DER bytes are a private key (PKCS#8, encrypted or not, PKCS#1 RSA or SEC1 EC). */
function isPrivateKey(der: Buffer): boolean {
  for (const type of ['pkcs8', 'pkcs1', 'sec1'] as const) {
    try {
      createPrivateKey({ key: der, format: 'der', type })
      return true
    } catch (error) {
      // An encrypted PKCS#8 key is recognised as one; it only lacks its passphrase.
      if ((error as { code?: string }).code === 'ERR_MISSING_PASSPHRASE') return true
    }
  }
  return false
}
