// JWTs for reporting tests, made as the official SDK makes them and written independently of the server's verifier:
// a self-signed certificate with a serialNumber subject attribute in a .p12 (node-forge, which the SDK itself uses
// and so is installed), the SDK's `jwt` configurations, and hand-made tokens for the refusals.
import { createHash, createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestApp } from './harness.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- node-forge ships no types, and none are installed
const forge: any = createRequire(import.meta.url)('node-forge')

export interface TestCertificate {
  /** The subject's serialNumber: the JWT header's kid. */
  serialNumber: string
  /** The certificate alone, PEM: what `finapi keys create --jwt-cert` registers. */
  pem: string
  privateKey: KeyObject
  /** Where the SDK finds the .p12: keysDirectory, keyFileName (without .p12) and keyPass. */
  keysDirectory: string
  keyFileName: string
  keyPass: string
  remove(): void
}

export interface CertificateOptions {
  /** The organization whose key it is: its CN, and the friendly name the SDK picks the certificate by (keyAlias). */
  organization: string
  serialNumber?: string
  notBefore?: Date
  notAfter?: Date
  bits?: number
}

/** A self-signed RSA certificate with `CN=<organization>, serialNumber=<n>` and its .p12, as CyberSource issues them. */
export function makeCertificate(o: CertificateOptions): TestCertificate {
  const serialNumber = o.serialNumber ?? String(Date.now()) + String(Math.floor(Math.random() * 1e6)).padStart(6, '0')
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: o.bits ?? 2048 })
  const forgeKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }))
  const certificate = forge.pki.createCertificate()
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }))
  certificate.serialNumber = '01' + createHash('sha256').update(serialNumber).digest('hex').slice(0, 14)
  certificate.validity.notBefore = o.notBefore ?? new Date(Date.now() - 3_600_000)
  certificate.validity.notAfter = o.notAfter ?? new Date(Date.now() + 365 * 86_400_000)
  const subject = [
    { name: 'commonName', value: o.organization },
    { name: 'serialNumber', value: serialNumber },
  ]
  certificate.setSubject(subject)
  certificate.setIssuer(subject)
  certificate.sign(forgeKey, forge.md.sha256.create())
  const keyPass = 'test-p12-pass'
  // The SDK picks the certificate whose bag's friendlyName contains `cn=<keyAlias>` (KeyCertificateGenerator).
  const p12 = forge.pkcs12.toPkcs12Asn1(forgeKey, [certificate], keyPass, { friendlyName: `serialNumber=${serialNumber},CN=${o.organization}`, algorithm: '3des' })
  const keysDirectory = mkdtempSync(join(tmpdir(), 'finapi-p12-'))
  const keyFileName = `${o.organization}-${serialNumber}`
  writeFileSync(join(keysDirectory, `${keyFileName}.p12`), Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'))
  return {
    serialNumber,
    pem: forge.pki.certificateToPem(certificate),
    privateKey,
    keysDirectory,
    keyFileName,
    keyPass,
    remove: () => rmSync(keysDirectory, { recursive: true, force: true }),
  }
}

/** The SDK's configuration for RS256 JWTs under a .p12; in meta-key mode the certificate is the portfolio's. */
export function jwtP12Config(baseUrl: string, merchantId: string, cert: TestCertificate, portfolioId?: string) {
  return {
    authenticationType: 'jwt',
    runEnvironment: 'apitest.cybersource.com',
    intermediateHost: baseUrl,
    merchantID: merchantId,
    keysDirectory: cert.keysDirectory,
    keyFileName: cert.keyFileName,
    keyAlias: portfolioId ?? merchantId,
    keyPass: cert.keyPass,
    ...(portfolioId ? { useMetaKey: true, portfolioID: portfolioId } : {}),
    logConfiguration: { enableLog: false },
  }
}

/** The SDK's configuration for HS256 JWTs under a reporting key's shared secret (jwtKeyType SHARED_SECRET). */
export function jwtSecretConfig(baseUrl: string, merchantId: string, key: { id: string; secret: string; org: string }) {
  return {
    authenticationType: 'jwt',
    jwtKeyType: 'SHARED_SECRET',
    runEnvironment: 'apitest.cybersource.com',
    intermediateHost: baseUrl,
    merchantID: merchantId,
    merchantKeyId: key.id,
    merchantsecretKey: key.secret,
    ...(key.org !== merchantId ? { useMetaKey: true, portfolioID: key.org } : {}),
    logConfiguration: { enableLog: false },
  }
}

export interface JwtOptions {
  method: string
  /** Path with query, as sent. */
  path: string
  body?: string
  /** Signs RS256 with a certificate's key (kid: its serialNumber), or HS256 with a reporting key's secret (kid: its id). */
  signer: { cert: TestCertificate } | { key: { id: string; secret: string } }
  /** The key's organization (iss). */
  issuer: string
  /** The merchant acted for (v-c-merchant-id); the issuer when not given. */
  merchantId?: string
  /** The token's clock: iat, and exp two minutes on, as the SDK sets them. */
  now: Date
  /** Claims to set (undefined removes one) after the SDK's. */
  claims?: Record<string, unknown>
  header?: Record<string, unknown>
}

/** A JWT with exactly the SDK's header and claims (JWTSigToken), signed with node:crypto. */
export function makeJwt(o: JwtOptions): string {
  const iat = Math.floor(o.now.getTime() / 1000)
  const method = o.method.toLowerCase()
  const claims: Record<string, unknown> = {
    ...(['post', 'put', 'patch'].includes(method) ? { digest: createHash('sha256').update(o.body ?? '').digest('base64'), 'digest-algorithm': 'SHA-256' } : {}),
    iat,
    exp: iat + 120,
    'request-host': 'apitest.cybersource.com',
    'request-resource-path': o.path,
    'request-method': method,
    iss: o.issuer,
    jti: randomUUID(),
    'v-c-jwt-version': '2',
    'v-c-merchant-id': o.merchantId ?? o.issuer,
    ...o.claims,
  }
  const rsa = 'cert' in o.signer
  const header = { typ: 'JWT', alg: rsa ? 'RS256' : 'HS256', kid: 'cert' in o.signer ? o.signer.cert.serialNumber : o.signer.key.id, ...o.header }
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const input = `${encode(header)}.${encode(JSON.parse(JSON.stringify(claims)) as object)}`
  const signature =
    'cert' in o.signer ? sign('sha256', Buffer.from(input), o.signer.cert.privateKey) : createHmac('sha256', Buffer.from(o.signer.key.secret, 'base64')).update(input).digest()
  return `${input}.${signature.toString('base64url')}`
}

/** A .p12 for testrest and one for its account testrest_acct, each certificate registered for its organization. */
export interface SdkCertificates {
  merchant: TestCertificate
  account: TestCertificate
  remove(): void
}

export async function registerSdkCertificates(t: TestApp): Promise<SdkCertificates> {
  const merchant = makeCertificate({ organization: 'testrest' })
  const account = makeCertificate({ organization: 'testrest_acct' })
  await t.app.services.reportingKeys.createCertificate('testrest', Buffer.from(merchant.pem))
  await t.app.services.reportingKeys.createCertificate('testrest_acct', Buffer.from(account.pem))
  return { merchant, account, remove: () => [merchant, account].forEach((c) => c.remove()) }
}
