#!/usr/bin/env bash
# A one-time report, from request to file: ask for yesterday's transactions of the sandbox merchant testrest (the
# sandbox generates 90 days of them ending today), wait until a server has generated it, and download the CSV.
#   BASE=http://127.0.0.1:3000 bash examples/reporting/one-time-report.sh
set -euo pipefail
export BASE=${BASE:-http://127.0.0.1:3000}
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }
YESTERDAY=$(date -u -d yesterday +%F); TODAY=$(date -u +%F)
NAME="My report $(date -u +%H%M%S)"   # an identical request answers 304, so each run asks for a new name

# 201, Location: /reporting/v3/reports/<reportId>
node examples/signed.mjs POST /reporting/v3/reports "{\"reportDefinitionName\":\"TransactionRequestClass\",\"reportName\":\"$NAME\",\
\"reportFields\":[\"Request.RequestID\",\"Request.TransactionDate\",\"BillTo.Email\",\"Application.Name\"],\"timezone\":\"GMT\",\
\"reportStartTime\":\"${YESTERDAY}T00:00:00Z\",\"reportEndTime\":\"${TODAY}T00:00:00Z\"}"

# Its window has closed, so it is queued at once and generated within a poll (JOBS_POLL_MS).
SEARCH="/reporting/v3/reports?startTime=${YESTERDAY}T00:00:00Z&endTime=${TODAY}T00:00:00Z&timeQueryType=reportTimeFrame&reportName=$(node -pe 'encodeURIComponent(process.argv[1])' "$NAME")"
for _ in $(seq 60); do
  STATUS=$(node examples/signed.mjs GET "$SEARCH" 2>/dev/null | json 'body.reportSearchResults[0].status')
  echo "$STATUS"
  [ "$STATUS" = COMPLETED ] && break
  sleep 0.5
done

# The file, by name and date (in the report's zone, of the window's last instant).
FILE=$(mktemp)
node examples/signed.mjs GET "/reporting/v3/report-downloads?reportName=$(node -pe 'encodeURIComponent(process.argv[1])' "$NAME")&reportDate=$YESTERDAY" > "$FILE"
head -3 "$FILE"; echo
rm "$FILE"
