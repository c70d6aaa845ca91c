#!/usr/bin/env bash
# A partner of an account gets a merchant's consent: the authorization-code flow with the sandbox's partner client
# (testrest-acct-partner, confidential, of the account testrest_acct), where the merchant user testrest signs in
# and allows it. Its tokens act for the merchant user's organization, testrest, on /reporting/v3.
#   BASE=http://127.0.0.1:3000 bash examples/oauth/partner.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
CLIENT=testrest-acct-partner
SECRET='NgXdsHdWilSCYEOAOX3jjx7fOhF3dLtvNfM7sbpAZwc='   # it holds + and =, so it goes form-encoded
REDIRECT=http://localhost:9000/partner/callback
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }

VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
AUTHORIZE="$BASE/oauth2/v3/authorize?response_type=code&client_id=$CLIENT&redirect_uri=$REDIRECT&scope=reporting&state=xyz&code_challenge=$CHALLENGE&code_challenge_method=S256"

# The consent page of a client of an organization signs in merchant users.
JAR=$(mktemp)
csrf() { sed -n 's/.*name="csrf_token" value="\([^"]*\)".*/\1/p'; }
PAGE=$(curl -sS -c "$JAR" -b "$JAR" "$AUTHORIZE" | csrf)
CONSENT=$(curl -sS -c "$JAR" -b "$JAR" "$BASE/oauth2/v3/authorize" --data-urlencode "csrf_token=$PAGE" \
  -d username=testrest -d password=Testrest-1 | csrf)
LOCATION=$(curl -sS -c "$JAR" -b "$JAR" -o /dev/null -w '%{redirect_url}' "$BASE/oauth2/v3/authorize" \
  --data-urlencode "csrf_token=$CONSENT" -d decision=allow)
rm -f "$JAR"
CODE=$(node -pe 'new URL(process.argv[1]).searchParams.get("code")' "$LOCATION")

ACCESS=$(curl -sS "$BASE/oauth2/v3/token" -d grant_type=authorization_code -d client_id=$CLIENT \
  --data-urlencode "client_secret=$SECRET" -d code="$CODE" -d redirect_uri=$REDIRECT -d code_verifier="$VERIFIER" \
  | json body.access_token)
curl -sS "$BASE/reporting/v3/report-definitions?organizationId=testrest" -H "Authorization: Bearer $ACCESS" \
  | json 'body.reportDefinitions.length + " report definitions for testrest"'
