#!/usr/bin/env bash
# Load transactions into the store every report reads: one NDJSON file and one CSV file (the format follows the
# extension, or --format), then a deterministic generated month for testrest. Run it from the project folder with
# the server's DATABASE_URL; a second run is refused, since the request ids are stored by then.
#   bash examples/reporting/transactions.sh
set -euo pipefail
npx finapi transactions import examples/reporting/transactions.ndjson
npx finapi transactions import examples/reporting/transactions.csv --batch-size 50000
# The same rows on every machine for one seed: exactly --per-day a day, ending on --end (default today, UTC).
npx finapi transactions generate --org testrest --days 30 --per-day 20 --seed demo --end 2026-03-01
