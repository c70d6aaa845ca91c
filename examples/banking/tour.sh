#!/usr/bin/env bash
# The banking interface in a few calls: sign in as sandbox customer 1, read the accounts three ways, make a soft
# credential, sign out. Every /v2 call carries the key in x-svc-key, a User-Agent and ?v=1.
#   BASE=http://127.0.0.1:3000 bash examples/banking/tour.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
v2() { curl -sS -H 'x-svc-key: sandbox-key-finapi' -A 'my-app/1.0' "$@"; echo; }
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }

# Sign in; the token goes bare in Authorization (no "Bearer ").
TOKEN=$(v2 "$BASE/v2/auth?v=1" -H 'content-type: application/json' \
  -d '{"loginRequest":{"brand":"nab","lob":"nab","credentials":{"apiStructType":"usernamePassword","usernamePassword":{"username":"10055670","password":"aaa111"}}}}' \
  | json 'body.loginResponse.tokens[0].value')

# The everyday accounts, then the details of the first one.
ACCOUNTS=$(v2 "$BASE/v2/accounts?v=1&category=domestic" -H "Authorization: $TOKEN")
echo "$ACCOUNTS" | json 'body.accountsResponse.accounts.map((a) => `${a.accountType} ${a.accountIdDisplay} ${a.availableBalance ?? "-"}`).join("\n")'
ACCOUNT=$(echo "$ACCOUNTS" | json 'body.accountsResponse.accounts[0].accountToken')
v2 "$BASE/v2/account/$ACCOUNT?v=1" -H "Authorization: $TOKEN"

v2 "$BASE/v2/accounts/balance?v=1&baseCurrency=USD" -H "Authorization: $TOKEN"
v2 "$BASE/v2/accounts/quickBalance?v=1" -H "Authorization: $TOKEN"
v2 -X POST "$BASE/v2/token?v=1" -H "Authorization: $TOKEN" -H 'content-type: application/json' \
  -d '{"tokenRequest":{"type":"softcredential"}}'
v2 -X DELETE "$BASE/v2/auth?v=1" -H "Authorization: $TOKEN"
