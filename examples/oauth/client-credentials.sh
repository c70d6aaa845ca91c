#!/usr/bin/env bash
# A merchant's own server-to-server client: create the organization acme (once), a confidential OAuth client of it,
# and read acme's reports with a client_credentials token. Then introspect and revoke that token. Run it from the
# project folder with the server's DATABASE_URL (the finapi command writes to the same database).
#   BASE=http://127.0.0.1:3000 bash examples/oauth/client-credentials.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }

npx finapi orgs list | grep -q '^acme[[:space:]]' || npx finapi orgs create --id acme --type merchant --name 'Acme'
CREATED=$(npx finapi clients create --name 'Acme reporting' --scope reporting --org acme)
echo "$CREATED"
CLIENT_ID=$(echo "$CREATED" | sed -n 's/^client_id: //p')
CLIENT_SECRET=$(echo "$CREATED" | sed -n 's/^client_secret (shown once, store it now): //p')

# The secret in HTTP Basic (or as client_id and client_secret form fields).
ACCESS=$(curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" "$BASE/oauth2/v3/token" -d grant_type=client_credentials -d scope=reporting \
  | json body.access_token)
curl -sS "$BASE/reporting/v3/report-subscriptions" -H "Authorization: Bearer $ACCESS"; echo

# Introspection: {"active":false} for anything unknown, expired, revoked, spent or not this client's.
curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" "$BASE/oauth2/v3/introspect" -d token="$ACCESS"; echo
# Revocation: always 200 with an empty body; it ends the whole grant.
curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" "$BASE/oauth2/v3/revoke" -d token="$ACCESS" -d token_type_hint=access_token -w '%{http_code}\n'
curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" "$BASE/oauth2/v3/introspect" -d token="$ACCESS"; echo
