// Reading a certificate an operator registers for JWT authentication (the official SDK's `jwt` type with a .p12):
// its public key verifies RS256 tokens, and its subject's serialNumber attribute is the `kid` the SDK puts in every
// token's header (JWTSigToken.getSerialNumberFromCert). Only the certificate is taken, PEM or DER, never a .p12 or a
// private key: the server needs nothing secret to verify, so it should never hold the merchant's private key.
import { X509Certificate, createHash, type KeyObject } from 'node:crypto'
import { invalid } from '../../platform/errors.js'

/** RSA keys shorter than this are refused (NIST SP 800-131A). */
export const MIN_RSA_BITS = 2048
/**
 * The kid is compared with the subject attribute as Node writes it (RFC 2253 escaping), so only values that need no
 * escaping are taken; CyberSource's serial numbers are digits.
 */
const KID = /^[A-Za-z0-9._:-]{1,128}$/

export interface CertificateInfo {
  /** The certificate as PEM. */
  pem: string
  /** The subject's serialNumber: the JWT header's kid. */
  kid: string
  /** SHA-256 of the DER, hex. */
  fingerprint: string
  notBefore: string
  notAfter: string
  publicKey: KeyObject
}

const problem = (reason: string) => invalid([{ field: 'jwt-cert', reason }])

/** Reads a PEM or DER certificate; throws invalid() naming what is wrong with it. */
export function readCertificate(data: Buffer): CertificateInfo {
  const text = data.toString('latin1')
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw problem('holds a private key: register the certificate alone (openssl x509)')
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(data)
  } catch {
    throw problem('is not an X.509 certificate in PEM or DER (from a .p12: openssl pkcs12 -in key.p12 -clcerts -nokeys -out cert.pem)')
  }
  const serials = certificate.subject.split('\n').filter((line) => line.startsWith('serialNumber='))
  if (serials.length !== 1) throw problem('its subject needs exactly one serialNumber attribute (the JWT kid)')
  const kid = serials[0]!.slice('serialNumber='.length)
  if (!KID.test(kid)) throw problem('its subject serialNumber must be 1 to 128 letters, digits, . _ : or -')
  const key = certificate.publicKey
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
  if (key.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS) throw problem(`its key must be RSA of at least ${MIN_RSA_BITS} bits (RS256)`)
  return {
    pem: certificate.toString(),
    kid,
    fingerprint: createHash('sha256').update(certificate.raw).digest('hex'),
    notBefore: new Date(certificate.validFrom).toISOString(),
    notAfter: new Date(certificate.validTo).toISOString(),
    publicKey: key,
  }
}
