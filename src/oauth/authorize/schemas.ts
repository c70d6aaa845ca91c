// The authorize endpoint's query, documented in /openapi.json.
import { Type } from 'typebox'
import { SCOPE_NAMES } from '../scope.js'

const QueryParam = (description: string) => Type.Optional(Type.String({ description }))

/** Documentation of the authorize query; the handler checks it itself, as a bad value answers in one of two ways. */
export const AuthorizeQuery = Type.Object({
  response_type: QueryParam('code'),
  client_id: QueryParam('The client: for the banking interface, the application key (the sandbox key in the sandbox)'),
  redirect_uri: QueryParam('A registered redirect URI, exactly (the sandbox client: any http URI on localhost or 127.0.0.1)'),
  redirect_url: QueryParam('The same as redirect_uri'),
  scope: QueryParam(`Space-separated: ${SCOPE_NAMES.join(', ')}; every scope the client may have when omitted`),
  state: QueryParam('Returned unchanged with the answer'),
  code_challenge: QueryParam('BASE64URL(SHA-256(code_verifier)), 43 characters; required'),
  code_challenge_method: QueryParam('S256; required'),
  brand: QueryParam('The brand whose account holders sign in (default nab)'),
  lob: QueryParam('The line of business (default nab)'),
  dpop_jkt: QueryParam('RFC 9449 10: the RFC 7638 thumbprint of a DPoP key; the code is then exchanged only with a proof by that key'),
})

const FormField = (description: string) => Type.Optional(Type.String({ description }))

/** Documentation of the pages' forms (the sign-in form, then the consent form); the handler reads the form itself. */
export const AuthorizeForm = Type.Object(
  {
    csrf_token: FormField("The hidden value of the page's form: the signed request (sign-in form) or the consent's random value (consent form)"),
    username: FormField('Sign-in form: the account holder (or, for an organization\'s client, the merchant user)'),
    password: FormField('Sign-in form: their password'),
    decision: Type.Optional(Type.Enum(['allow', 'deny', 'cancel'], { description: 'Consent form: allow or deny; cancel on the sign-in form answers access_denied' })),
  },
  { description: 'application/x-www-form-urlencoded, as the page\'s form sends it, with the browser-binding cookie the page set' },
)
