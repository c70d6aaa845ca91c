#!/usr/bin/env bash
# The sandbox clock: subscribe testrest to a daily report, move testrest's reporting time three days on, and see
# the three daily reports that came due generated at once; then move it again with the finapi command. Sandbox
# mode only; run it from the project folder with the server's DATABASE_URL.
#   BASE=http://127.0.0.1:3000 bash examples/reporting/sandbox-clock.sh
set -euo pipefail
export BASE=${BASE:-http://127.0.0.1:3000}
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }
NAME="Daily $(date -u +%H%M%S)"
ENCODED=$(node -pe 'encodeURIComponent(process.argv[1])' "$NAME")

node examples/signed.mjs PUT /reporting/v3/report-subscriptions "{\"reportDefinitionName\":\"TransactionRequestClass\",\
\"reportName\":\"$NAME\",\"reportFields\":[\"Request.RequestID\",\"BillTo.Email\"],\"timezone\":\"America/New_York\",\
\"reportFrequency\":\"DAILY\",\"startTime\":\"0600\"}"

# testrest's reporting time, and a search of the week around it.
NOW=$(node examples/signed.mjs GET /sandbox/v1/clock 2>/dev/null | json body.now)
at() { node -pe 'new Date(Date.parse(process.argv[1]) + process.argv[2] * 86400e3).toISOString()' "$NOW" "$1"; }
SEARCH="/reporting/v3/reports?startTime=$(at -1)&endTime=$(at 6)&timeQueryType=reportTimeFrame&reportName=$ENCODED"
statuses() { node examples/signed.mjs GET "$SEARCH" 2>/dev/null | json 'body.reportSearchResults?.map((r) => r.status).join(" ") ?? "none"'; }

# A server's sweep (every JOBS_POLL_MS) gives the new subscription its first window, PENDING.
until [ "$(statuses)" = PENDING ]; do sleep 0.2; done

# Three days on: every report due by then is queued, in order, as the scheduler would have.
node examples/signed.mjs POST /sandbox/v1/clock "{\"to\":\"$(at 3)\"}" | json 'body.queued.length + " reports queued"'
for _ in $(seq 60); do
  STATUSES=$(statuses)
  case "$STATUSES" in *QUEUED*|*RUNNING*) sleep 0.5 ;; *) break ;; esac
done
echo "$STATUSES"   # the windows with the sandbox's transactions (to the end of today, UTC) COMPLETED, later ones NO_DATA, the next PENDING

# The same from the command line, which generates what came due itself and prints each report.
npx finapi clock advance --org testrest --to "$(at 5)"
