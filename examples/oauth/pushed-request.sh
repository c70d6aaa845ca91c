#!/usr/bin/env bash
# A pushed authorization request (RFC 9126) by a confidential client: the client posts its authorization request
# to /oauth2/v3/par and sends the browser to the authorize page with client_id and request_uri only. curl plays the
# browser (sign in as sandbox customer 1, Allow) as in authorization-code.sh. Run it from the project folder with
# the server's DATABASE_URL.
#   BASE=http://127.0.0.1:3000 bash examples/oauth/pushed-request.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
REDIRECT=https://partner.example/callback
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }

CREATED=$(npx finapi clients create --name 'Partner' --scope accounts --redirect-uri $REDIRECT --require-par)
CLIENT_ID=$(echo "$CREATED" | sed -n 's/^client_id: //p')
CLIENT_SECRET=$(echo "$CREATED" | sed -n 's/^client_secret (shown once, store it now): //p')
VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')

# The push: HTTP 201 {"request_uri":"urn:ietf:params:oauth:request_uri:…","expires_in":90}.
PUSHED=$(curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" "$BASE/oauth2/v3/par" -d response_type=code \
  -d redirect_uri=$REDIRECT -d scope=accounts -d state=xyz -d code_challenge="$CHALLENGE" -d code_challenge_method=S256)
echo "$PUSHED"
REQUEST_URI=$(echo "$PUSHED" | json body.request_uri)
AUTHORIZE="$BASE/oauth2/v3/authorize?client_id=$CLIENT_ID&request_uri=$(node -pe 'encodeURIComponent(process.argv[1])' "$REQUEST_URI")"
echo "The browser goes to: $AUTHORIZE"

JAR=$(mktemp)
csrf() { sed -n 's/.*name="csrf_token" value="\([^"]*\)".*/\1/p'; }
PAGE=$(curl -sS -c "$JAR" -b "$JAR" "$AUTHORIZE" | csrf)
CONSENT=$(curl -sS -c "$JAR" -b "$JAR" "$BASE/oauth2/v3/authorize" --data-urlencode "csrf_token=$PAGE" \
  -d username=10055670 -d password=aaa111 | csrf)
LOCATION=$(curl -sS -c "$JAR" -b "$JAR" -o /dev/null -w '%{redirect_url}' "$BASE/oauth2/v3/authorize" \
  --data-urlencode "csrf_token=$CONSENT" -d decision=allow)
rm -f "$JAR"
CODE=$(node -pe 'new URL(process.argv[1]).searchParams.get("code")' "$LOCATION")

curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" "$BASE/oauth2/v3/token" -d grant_type=authorization_code \
  -d code="$CODE" -d redirect_uri=$REDIRECT -d code_verifier="$VERIFIER" | json '"scope " + body.scope + ", " + body.token_type'
