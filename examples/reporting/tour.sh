#!/usr/bin/env bash
# The reporting interface three ways in: an HTTP-signed call with the sandbox merchant testrest's key (what the
# official SDKs send; examples/signed.mjs signs it), an OAuth bearer token of testrest's own client, and an
# on-demand report over the sandbox's generated transactions.
#   BASE=http://127.0.0.1:3000 bash examples/reporting/tour.sh
set -euo pipefail
export BASE=${BASE:-http://127.0.0.1:3000}
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }

# Signed: the report definitions (status on stderr, body on stdout; reportDefintionName is the real, misspelt key).
node examples/signed.mjs GET '/reporting/v3/report-definitions?subscriptionType=CUSTOM' \
  | json 'body.reportDefinitions.map((d) => d.reportDefinitionId + " " + d.reportDefintionName).join("\n")'

# Bearer: a client_credentials token of testrest-reporting (its secret holds +, so it goes form-encoded).
ACCESS=$(curl -sS "$BASE/oauth2/v3/token" -d grant_type=client_credentials -d client_id=testrest-reporting \
  --data-urlencode 'client_secret=8Pp0fzAtKI3DkayhQHM+snVm7+GtqaLYZaB03ZH+HAk=' -d scope=reporting | json body.access_token)
curl -sS "$BASE/reporting/v3/report-subscriptions" -H "Authorization: Bearer $ACCESS"; echo

# On demand: the first two purchases and refunds of the last 30 days.
START=$(date -u -d '-30 days' +%FT00:00:00Z); END=$(date -u +%FT00:00:00Z)
node examples/signed.mjs GET "/reporting/v3/purchase-refund-details?startTime=$START&endTime=$END&limit=2" \
  | json 'body.requestDetails.map((r) => r.requestId + " " + r.merchantReferenceNumber).join("\n")'
