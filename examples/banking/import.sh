#!/usr/bin/env bash
# Load customers, credentials, accounts and exchange rates from a file, all or nothing. Run it from the project
# folder with the server's DATABASE_URL (and, for a database the servers will serve, their SECRETS_KEY).
#   bash examples/banking/import.sh
set -euo pipefail
npx finapi import examples/import-example.json
# The file's JSON Schema, also in docs/import.schema.json: every member a file may hold.
npx finapi import --schema | node -pe 'Object.keys(JSON.parse(require("fs").readFileSync(0)).properties).join(", ")'
