#!/usr/bin/env bash
# The OAuth authorization-code flow with PKCE, for the sandbox's public client (the sandbox key), with curl playing
# the browser: open the sign-in page, sign in as sandbox customer 1, press Allow, take the code from the redirect,
# exchange it, read the accounts with the access token, refresh. In a real app the browser does the middle part;
# open the printed URL in one to see the pages.
#   BASE=http://127.0.0.1:3000 bash examples/oauth/authorization-code.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
CLIENT=sandbox-key-finapi
REDIRECT=http://127.0.0.1:8080/callback   # nothing needs to listen there: the code is read from the address
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }

# A PKCE verifier and its S256 challenge.
VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
AUTHORIZE="$BASE/oauth2/v3/authorize?response_type=code&client_id=$CLIENT&redirect_uri=$REDIRECT&scope=accounts&state=xyz&code_challenge=$CHALLENGE&code_challenge_method=S256"
echo "Open in a browser: $AUTHORIZE"

# The browser's part: the page's form carries a csrf_token bound to a cookie; sign in, then Allow.
JAR=$(mktemp)
csrf() { sed -n 's/.*name="csrf_token" value="\([^"]*\)".*/\1/p'; }
PAGE=$(curl -sS -c "$JAR" -b "$JAR" "$AUTHORIZE" | csrf)
CONSENT=$(curl -sS -c "$JAR" -b "$JAR" "$BASE/oauth2/v3/authorize" --data-urlencode "csrf_token=$PAGE" \
  -d username=10055670 -d password=aaa111 | csrf)
LOCATION=$(curl -sS -c "$JAR" -b "$JAR" -o /dev/null -w '%{redirect_url}' "$BASE/oauth2/v3/authorize" \
  --data-urlencode "csrf_token=$CONSENT" -d decision=allow)
rm -f "$JAR"
echo "Redirected to: $LOCATION"
CODE=$(node -pe 'new URL(process.argv[1]).searchParams.get("code")' "$LOCATION")

# Within 10 minutes, exchange the code, once.
TOKENS=$(curl -sS "$BASE/oauth2/v3/token" -d grant_type=authorization_code -d client_id=$CLIENT \
  -d code="$CODE" -d redirect_uri=$REDIRECT -d code_verifier="$VERIFIER")
echo "$TOKENS"
ACCESS=$(echo "$TOKENS" | json body.access_token)
REFRESH=$(echo "$TOKENS" | json body.refresh_token)

# The access token reads the accounts (beside the key of the application it was granted to).
curl -sS "$BASE/v2/accounts?v=1" -H "x-svc-key: $CLIENT" -A 'my-app/1.0' -H "Authorization: $ACCESS" \
  | json 'body.accountsResponse.accounts.length + " accounts"'

# Refresh before it expires; each refresh returns a new refresh token: keep only the latest.
curl -sS "$BASE/oauth2/v3/token" -d grant_type=refresh_token -d client_id=$CLIENT -d refresh_token="$REFRESH" \
  | json '"refreshed: " + body.token_type + ", expires in " + body.expires_in + " s"'
