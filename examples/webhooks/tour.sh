#!/usr/bin/env bash
# Webhooks end to end, as the sandbox merchant testrest: a signing key, a receiver that verifies with it (receiver.mjs
# beside this file), a subscription, a test notification, a sandbox event, and the delivery log.
#   BASE=http://127.0.0.1:3000 bash examples/webhooks/tour.sh
set -euo pipefail
export BASE=${BASE:-http://127.0.0.1:3000}
export PORT=${RECEIVER_PORT:-4000}
json() { node -pe "const body = JSON.parse(require('fs').readFileSync(0)); $1"; }
call() { node examples/signed.mjs "$@" 2>/dev/null; }

# 1. A digital signature key, shown once: the receiver verifies with it.
KEY=$(call POST /kms/egress/v2/keys-sym '{"clientRequestAction":"CREATE","keyInformation":{"provider":"nrtd","tenant":"testrest","keyType":"sharedSecret","organizationId":"testrest"}}')
export WEBHOOK_KEY_ID=$(echo "$KEY" | json body.keyInformation.keyId)
export WEBHOOK_KEY=$(echo "$KEY" | json body.keyInformation.key)

# 2. The receiver, until this script ends.
node examples/webhooks/receiver.mjs &
RECEIVER=$!
trap 'kill $RECEIVER' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.1; done

# 3. Subscribe it to paid invoices (ACTIVE at once).
WEBHOOK_ID=$(call POST /notification-subscriptions/v2/webhooks "{\"name\":\"Local receiver\",\"products\":[{\"productId\":\"customerInvoicing\",\
\"eventTypes\":[\"invoicing.customer.invoice.paid\"]}],\"webhookUrl\":\"http://127.0.0.1:$PORT/hooks\"}" | json body.webhookId)

# 4. A test notification, sent during the call; the receiver prints: verified webhook.test … (NEW, retry 0)
call POST "/notification-subscriptions/v1/webhooks/$WEBHOOK_ID" '{}' | json '"test notification: " + body.deliveryStatus'

# 5. An event with sample data, delivered at the server's next poll; the receiver prints:
#    verified invoicing.customer.invoice.paid … (NEW, retry 0)
call POST /sandbox/v1/events '{"eventType":"invoicing.customer.invoice.paid","data":{"payerName":"Ada Lovelace"}}' >/dev/null

# 6. The delivery log, once both are delivered.
for _ in $(seq 50); do
  LOG=$(call GET "/webhooks/v1/notifications?webhookId=$WEBHOOK_ID")
  [ "$(echo "$LOG" | json 'JSON.stringify(body).split("\"DELIVERED\"").length - 1')" -ge 2 ] && break
  sleep 0.2
done
echo "$LOG"
