#!/bin/sh
# A batch over HTTP: three invocations of text_stats in one request (one of them refused in its
# place), then one GET that waits until every execution of the batch has ended.
set -eu
url=${SKILLRUN_URL:-http://localhost:3000}

# POST /batches answers 202 with the batch's id and, for each item in order, its execution's id or
# the error POST invoke would have answered for it.
accepted=$(curl -sf "$url/batches" -H 'content-type: application/json' -d '{
  "caller": {"id": "me", "type": "user"},
  "items": [
    {"skill_id": "text_stats", "inputs": {"text": "One fish."}},
    {"skill_id": "text_stats", "inputs": {"text": "Two fish.", "words_per_minute": 5}},
    {"skill_id": "text_stats", "inputs": {"text": "Red fish! Blue fish."}}
  ]}')
echo "$accepted"
id=$(echo "$accepted" | sed -E 's/.*"batch_id":"([^"]+)".*/\1/')

# GET the batch with Prefer: wait=10: answered once all its executions have ended, within 10 s.
curl -sf -H 'Prefer: wait=10' "$url/batches/$id"
echo
