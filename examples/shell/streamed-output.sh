#!/bin/sh
# Invoke countdown, then follow its live status: `status` events and, between them, a `chunk` event
# for each piece of output the skill streams ({"seq": n, "chunk": …}), until the end closes it.
set -eu
url=${SKILLRUN_URL:-http://localhost:3000}

id=$(curl -sf "$url/skills/countdown/invoke" -H 'content-type: application/json' \
  -d '{"caller":{"id":"me","type":"user"},"skill_id":"countdown","inputs":{"from":3,"pause_ms":50}}' |
  sed 's/.*"execution_id":"\([^"]*\)".*/\1/')
curl -sfN "$url/skills/countdown/events/$id" | grep '^data:{"seq"'
