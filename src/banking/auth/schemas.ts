// Wire schemas of signing in and out (/v2/auth) and of soft credentials (/v2/token): one TypeBox schema per object
// of the spec, validating requests and serializing responses as allow-lists.
import { Type, type Static } from 'typebox'
import { APIDateString, APIDateTimeUTCString, Opt, Str } from '../schemas.js'

// ---- Login -------------------------------------------------------------------------------------------------

// The login body's credential members are exactly identity's credential kinds.
export { CREDENTIAL_KINDS, type CredentialKind } from '../../identity/types.js'

export const Credentials = Type.Object({
  apiStructType: Type.String({ description: 'Names the one credential member supplied' }),
  usernamePassword: Opt(Type.Object({ username: Str(64), password: Str(128) })),
  deviceRegIdPasscode: Opt(Type.Object({ deviceRegId: Str(128), passcode: Str(64), signature: Str(1024) })),
  deviceRegIdPassword: Opt(Type.Object({ deviceRegId: Str(128), password: Str(128) })),
  deviceRegIdFingerprint: Opt(Type.Object({ deviceRegId: Str(128), key: Str(512) })),
  ivrPasscode: Opt(Type.Object({ username: Str(64), passcode: Str(64) })),
  partyIdentifiers: Opt(
    Type.Object({ firstGivenName: Str(100), surname: Str(100), dateOfBirth: APIDateString, mobile: Opt(Str(20)) }),
  ),
  token: Opt(Type.Object({ token: Str(512) })),
})
export type Credentials = Static<typeof Credentials>

export const LoginBody = Type.Object({
  loginRequest: Type.Object({ brand: Str(32), lob: Str(32), credentials: Credentials }),
})
export type LoginBody = Static<typeof LoginBody>

export const HeaderToken = Type.Object({
  type: Type.String({ examples: ['header'] }),
  name: Type.String({ examples: ['Authorization'] }),
  value: Type.String(),
  expires: APIDateTimeUTCString,
})

export const LoginResponse = Type.Object({
  tokens: Type.Array(HeaderToken),
  userLevelFlags: Opt(Type.Object({ isBusinessUser: Opt(Type.Boolean()), isRestrictedToAppTracker: Opt(Type.Boolean()) })),
})

// ---- Soft credentials --------------------------------------------------------------------------------------

export const SOFT_CREDENTIAL_TYPES = ['softcredential', 'touch'] as const
export const TokenBody = Type.Object({
  tokenRequest: Type.Object({ type: Type.String({ description: 'softcredential or touch' }) }),
})
export const TokenResponse = Type.Object({ token: Type.String({ description: 'the soft credential; sign in with it as credentials.token' }) })
