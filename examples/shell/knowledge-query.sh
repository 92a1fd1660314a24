#!/bin/sh
# Ask the shipped knowledge skill error_codes (this service's error catalogue) a question; with
# Prefer: wait=5 the invocation answers 200 with the execution once it has ended.
set -eu
url=${SKILLRUN_URL:-http://localhost:3000}

curl -sf "$url/skills/error_codes/invoke" -H 'content-type: application/json' -H 'Prefer: wait=5' \
  -d '{"caller":{"id":"me","type":"user"},"skill_id":"error_codes","inputs":{"query":"timed out","limit":2}}'
echo
