#!/bin/sh
# A first execution over HTTP: invoke text_stats, then wait for its end with one GET.
set -eu
url=${SKILLRUN_URL:-http://localhost:3000}

# POST invoke answers 202 Accepted with the execution's id (and a Location: its status URL).
accepted=$(curl -sf "$url/skills/text_stats/invoke" -H 'content-type: application/json' \
  -d '{"caller":{"id":"me","type":"user"},"skill_id":"text_stats","inputs":{"text":"One fish. Two fish!"}}')
echo "$accepted"
id=$(echo "$accepted" | sed -E 's/.*"execution_id":"([^"]+)".*/\1/')

# GET status with Prefer: wait=10 answers once the execution changes or ends, within 10 s.
curl -sf -H 'Prefer: wait=10' "$url/skills/text_stats/status/$id"
echo
