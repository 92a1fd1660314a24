#!/bin/sh
# A delayed run over HTTP: invoke text_stats to start 2 s from now (context.run_at takes an RFC 3339
# time instead), read it while it waits, then wait for its end.
set -eu
url=${SKILLRUN_URL:-http://localhost:3000}

# Accepted now (202); its job waits in Redis until it is due.
accepted=$(curl -sf "$url/skills/text_stats/invoke" -H 'content-type: application/json' \
  -d '{"caller":{"id":"me","type":"user"},"skill_id":"text_stats","inputs":{"text":"Later, fish."},"context":{"delay_ms":2000}}')
echo "$accepted"
id=$(echo "$accepted" | sed -E 's/.*"execution_id":"([^"]+)".*/\1/')

# Until then its status is accepted, with timestamps.scheduled_for.
curl -sf "$url/skills/text_stats/status/$id"
echo

# GET result with Prefer: wait=10 answers once it has run: completed, with its output.
curl -sf -H 'Prefer: wait=10' "$url/skills/text_stats/result/$id"
echo
