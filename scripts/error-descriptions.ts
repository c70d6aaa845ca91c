// The prose of the error-code pages (docs/errors/), which `npm run docs:errors` joins with the families' own tables
// (code, HTTP status, message, the kinds mapped to each, a rendered body). The tables are the truth: a code added to
// or removed from a family without a sentence here stops the script, so the pages cannot drift from the code.
// Links are relative to docs/errors/.

export interface FamilyProse {
  /** The page's heading. */
  title: string
  /** Where the family answers and what its body looks like, in Markdown. */
  intro: string
  /** When each code is answered, in Markdown: one entry per code of the family's table, no more. */
  when: Record<string, string>
}

const SLOW = 'a request that is not valid HTTP or arrives too slowly (see [malformed and slow requests](../operations.md#malformed-and-slow-requests))'

export const PROSE: Record<string, FamilyProse> = {
  banking: {
    title: 'Banking errors (`/v2`)',
    intro:
      'Every answer under `/v2` carries `status: {code, message}`, errors included, with the HTTP status of the ' +
      "spec's table. An error may add `status.details: [{field, reason}]` saying what was wrong; `code` and `message` " +
      'are always exactly the ones below. When several things are wrong, the first check that fails answers, in this ' +
      'order: maintenance, the headers and key, `v`, the throttle, `Authorization`, and only then the body and ' +
      'parameters ([the banking interface](../banking.md#errors)).',
    when: {
      'API-404':
        'No operation at that path and method (any unknown path under `/v2`); an account token that is unknown or another ' +
        "customer's (the same answer, so a token's existence is not revealed).",
      'API-420':
        '`x-svc-key` or `User-Agent` missing; malformed JSON, a wrong content type, a body over `BODY_LIMIT_BYTES`, a bad ' +
        `parameter or body member (\`status.details\` names it); ${SLOW}. The contract has no conflict or not-modified ` +
        'answer, so those kinds answer API-420 too.',
      'API-422': '`v` missing or not `1`.',
      'API-430': "The spec's code for a failed downstream provider (the `unavailable` kind); no operation of this server raises it today.",
      'API-440': '`x-svc-key` unknown or revoked.',
      'API-448':
        'Wrong credentials, an unknown user, a locked or revoked credential (all the same answer, after the same work); ' +
        '`Authorization` missing, expired or revoked; a restricted (`partyIdentifiers`) login reading accounts; an OAuth ' +
        "token without scope `accounts`, beside another application's key, or acting for an organization; a DPoP-bound " +
        'token without a valid proof.',
      'API-520': "An unexpected failure. The body carries no internals; the log has the cause under the request's correlation id.",
      'API-521':
        'More than `RATE_LIMIT_PER_MINUTE` calls in a minute for one key (in sandbox mode: for one key from one source ' +
        'address; see [the shared sandbox](../sandbox.md#limits-per-source-address)); `Retry-After` says when to retry.',
      'API-522': '`finapi maintenance on`: every server on the database answers it within 5 seconds, until `finapi maintenance off`.',
      'API-523': "The request was not answered within `HANDLER_TIMEOUT_MS` of its arrival; the handler's late answer is dropped.",
      'API-526': "The spec's code for a feature the server does not offer; no operation raises it today.",
    },
  },
  reporting: {
    title: 'Reporting and webhook management errors',
    intro:
      'The merchant API family: `/reporting/v3`, the webhook management paths (`/notification-subscriptions`, ' +
      '`/kms/egress`, `/nrtf`, `/webhooks`) and, in sandbox mode, `/sandbox/v1`. A failure answers the real ' +
      "service's body `{submitTimeUtc, reason, message, details: [{field, reason}]}`, except an authentication " +
      'failure (`{"response":{"rmsg":"Authentication Failed"}}`), the subscription PUTs\' 400 (the Error Bean) and ' +
      '304 (no body). The correlation id is the `X-CorrelationID` header. See [the reporting interface](../reporting.md).',
    when: {
      INVALID_DATA:
        'A parameter or body member missing, malformed or out of range, named in `details` as the client wrote it ' +
        '(every problem at once where the operation collects them); malformed JSON, a wrong content type, a body over ' +
        `\`BODY_LIMIT_BYTES\`; ${SLOW}.`,
      VALIDATION_ERROR:
        "The 400 of the two subscription PUTs (`PUT /reporting/v3/report-subscriptions`, `PUT /reporting/v3/predefined-report-subscriptions`), in the reference's " +
        'Error Bean: `{code, message, localizationKey, detail, fields: [{path, message, localizationKey}]}`, every problem at once.',
      UNAUTHORIZED:
        'Any authentication failure, whatever the scheme (HTTP Signature, JWT, OAuth bearer) and whichever check failed. ' +
        'The answer never says which; the log and `reporting_authentication_failures_total{reason}` on `/metrics` do.',
      FORBIDDEN: 'A reseller asking for net fundings (`GET /reporting/v3/net-fundings` is for an account or a merchant).',
      NOT_FOUND:
        'An unknown resource (report definition, subscription, report, webhook, notification), and one of an ' +
        'organization the caller may not act for, alike; an `organizationId` unknown or outside the caller\'s tree; an ' +
        'on-demand report with no transactions in its window; a download no completed report matches; an unknown path ' +
        'under the family\'s prefixes.',
      DUPLICATE_REQUEST: 'A key id that is taken (`keyInformation.keyId` of a webhook key or certificate); a sandbox clock moved by another call meanwhile.',
      NOT_MODIFIED:
        '`PUT /reporting/v3/report-subscriptions` with an unchanged subscription; `POST /reporting/v3/reports` identical to a ' +
        'request already made. No body.',
      TOO_MANY_REQUESTS:
        'More than `MERCHANT_API_RATE_LIMIT_PER_MINUTE` calls in a minute with one credential (a reporting key, a JWT ' +
        'certificate, an OAuth client for one organization; in sandbox mode from one source address), on any route of ' +
        'this family; `details` and `Retry-After` say when to retry (see [limits](../security.md#limits)).',
      SERVICE_UNAVAILABLE:
        'A service the call needs is unavailable (the `unavailable` and `maintenance` kinds). The maintenance switch ' +
        '(`finapi maintenance on`) is the banking interface\'s and does not stop this family.',
      SERVER_TIMEOUT: 'The request was not answered within `HANDLER_TIMEOUT_MS` of its arrival.',
      SERVER_ERROR: "An unexpected failure. The body carries no internals; the log has the cause under the request's correlation id.",
    },
  },
  oauth: {
    title: 'OAuth token endpoint errors (`POST /oauth2/v3/token`)',
    intro:
      'Every failure of the token endpoint answers **HTTP 500** (the reporting spec gives token refresh failures that ' +
      'status), with an RFC 6749 body `{error, error_description}`. The description below is the default; most ' +
      'failures send a more precise one. See [OAuth 2.0](../oauth.md#errors).',
    when: {
      invalid_request:
        'A parameter missing, repeated or malformed (e.g. `code_verifier` not 43–128 characters), two client ' +
        `authentication methods, a body that is not form-encoded or is over \`BODY_LIMIT_BYTES\`; ${SLOW}.`,
      invalid_client:
        'An unknown or revoked client, a wrong secret, a confidential client without its secret, a public client with ' +
        'one (always the same description).',
      invalid_grant:
        "A code or refresh token that is unknown, another client's, expired, revoked or already used; a `redirect_uri` " +
        'that differs from the authorization request; a `code_verifier` that does not match.',
      unauthorized_client: '`client_credentials` asked by a public client.',
      unsupported_grant_type: 'Any grant but `authorization_code`, `refresh_token` and `client_credentials`.',
      invalid_scope: 'A scope the client may not have, or (refresh) one the grant does not hold.',
      temporarily_unavailable:
        'Too many requests naming this `client_id` ([throttling](../oauth.md#throttling-of-guessing)), with `Retry-After`; a ' +
        'request not answered within `HANDLER_TIMEOUT_MS`.',
      server_error: 'An unexpected failure; the body carries no internals.',
      invalid_dpop_proof:
        'A `DPoP` proof that is malformed, wrongly signed, for another method or URL, outside the time window or ' +
        'replayed; none from a `--dpop` client; a refresh of a bound grant without a proof by its key (RFC 9449).',
    },
  },
  'oauth-endpoints': {
    title: 'OAuth revocation, introspection and pushed-request errors',
    intro:
      '`POST /oauth2/v3/revoke` (RFC 7009), `POST /oauth2/v3/introspect` (RFC 7662) and `POST /oauth2/v3/par` ' +
      "(RFC 9126) answer at the RFCs' statuses, not the token endpoint's 500, with `{error, error_description}`. " +
      'Revocation of an unknown or foreign token is no error (200, nothing changes), nor is introspecting one ' +
      '(`{"active":false}`). See [OAuth 2.0](../oauth.md#revocation-introspection-and-pushed-requests).',
    when: {
      invalid_request:
        '`token` or another needed parameter missing, a body that is not a form; for a push, an unregistered ' +
        `redirect URI or a \`request_uri\` inside the push; ${SLOW}.`,
      invalid_client: 'Client authentication failed (with `WWW-Authenticate: Basic`); a public client at the introspection endpoint.',
      invalid_grant: "Not answered by these endpoints (the code set is the token endpoint's).",
      unauthorized_client: 'Not answered by these endpoints today (the `forbidden` kind maps here).',
      unsupported_grant_type: "Not answered by these endpoints (the code set is the token endpoint's).",
      invalid_scope: 'A pushed request asking for a scope the client may not have.',
      unsupported_response_type: 'A pushed request whose `response_type` is not `code`.',
      invalid_dpop_proof: "Not answered by these endpoints (the code set is the token endpoint's).",
      temporarily_unavailable: 'Too many requests naming this `client_id`, with `Retry-After`; a request not answered within `HANDLER_TIMEOUT_MS`.',
      server_error: 'An unexpected failure; the body carries no internals.',
    },
  },
  'oauth-pages': {
    title: 'OAuth sign-in page errors (`/oauth2/v3/authorize`)',
    intro:
      'A person reads these: the authorize pages answer a failure with an HTML page saying one plain sentence, never ' +
      'the details and nothing of the request. Besides the codes below, the pages render two answers of their own: ' +
      'HTTP 403 for a missing or wrong form token or cookie, or an expired or already answered request ' +
      '([the sign-in pages](../oauth.md#the-sign-in-pages)), and HTTP 429 with `Retry-After` for too many sign-ins ' +
      '([throttling](../oauth.md#throttling-of-guessing)). Problems with an authorization request whose client and ' +
      'redirect URI are known go back to the client instead ([below](#errors-sent-back-to-the-client)).',
    when: {
      bad_request:
        'An unknown or revoked client, a missing `client_id` or `redirect_uri`, a redirect URI that is not registered, ' +
        'an unknown, expired or used `request_uri`, an answer other than Allow or Deny, a malformed form.',
      server_error: 'An unexpected failure.',
      unavailable: 'A request not answered within `HANDLER_TIMEOUT_MS`, or a service the page needs is unavailable.',
    },
  },
  'oauth-redirect': {
    title: 'Errors sent back to the client',
    intro:
      "Other problems with an authorization request go back to the client's redirect URI as a 303 with `error`, " +
      '`error_description`, `state` and `iss` (RFC 9207) in the query.',
    when: {
      invalid_request: 'A parameter missing, repeated or malformed (PKCE S256 is required); a plain request from a `--require-par` client.',
      unsupported_response_type: '`response_type` other than `code`.',
      invalid_scope: 'A scope the client may not have.',
      access_denied: 'The person pressed **Deny**.',
      server_error: "RFC 6749's code for an unexpected failure; not sent today (an unexpected failure shows the page above).",
    },
  },
  console: {
    title: 'Merchant console errors (`/console`)',
    intro:
      'A person reads these: the console ([its page](../console.md)) answers a failure with its one HTML error page, a ' +
      'title and one plain sentence, never a detail of the request or of the server, with the console\'s page headers ' +
      '(its Content-Security-Policy, `Cache-Control: no-store`). A page asked for while signed out is not an error: it ' +
      'leads to the sign-in page (303). A form with a value the service refuses is not an error page either: the form ' +
      'comes back (HTTP 400) with a one-line message naming the fix.',
    when: {
      bad_request: 'A request the console cannot use: a malformed form or query that no form of the console sends.',
      signed_out: 'A form posted without a session, or with one that ended (idle, past its lifetime, signed out, or its user revoked).',
      forbidden: 'A form without its CSRF token, with another session\'s, or with a field repeated that the form sends once; the sign-in form without its cookie.',
      not_found:
        'A page or an identifier that does not exist, or that belongs to another organization (the same answer, so an ' +
        'identifier\'s existence is not revealed), and an organization the user may not act for.',
      conflict: 'A change that conflicts with something that exists already.',
      rate_limited: 'Too many attempts; the sign-in form has its own page with `Retry-After` ([signing in](../console.md#signing-in)).',
      server_error: 'An unexpected failure.',
      unavailable: 'A request not answered within `HANDLER_TIMEOUT_MS`, or a service the page needs is unavailable.',
    },
  },
  platform: {
    title: 'Errors outside the API families',
    intro:
      'Paths outside every family (health, metrics, the OpenAPI document and `/docs`, unknown paths at the top level, ' +
      'and requests whose request line was never read whole) answer a plain JSON error in Fastify\'s own shape, ' +
      '`{statusCode, error, message}`. `/health/ready` answers its own 503 `{"status":"unavailable"}` ' +
      '([operations](../operations.md)).',
    when: {
      '304': 'The `not_modified` kind; no platform route raises it today. No body.',
      '400': `A malformed request or parameter; ${SLOW}.`,
      '401': 'The `unauthenticated` kind; no platform route asks for credentials today.',
      '403': 'The `forbidden` kind; no platform route raises it today.',
      '404': 'A path no route and no family serves.',
      '409': 'The `conflict` kind; no platform route raises it today.',
      '429': 'The `rate_limited` kind, with `Retry-After`.',
      '503': 'The `maintenance` and `unavailable` kinds.',
      '504': 'The request was not answered within `HANDLER_TIMEOUT_MS`.',
      '500': 'An unexpected failure; the body carries no internals.',
    },
  },
}
