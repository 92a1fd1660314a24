#!/bin/sh
# A schedule over HTTP: text_stats every 2 seconds; its first run, read as an execution; then delete it.
set -eu
url=${SKILLRUN_URL:-http://localhost:3000}
key=${SKILLRUN_API_KEY:?set SKILLRUN_API_KEY: a schedule runs as the caller who makes it}

# POST /schedules answers 201 with the schedule and its next 5 due times (the first at once).
created=$(curl -sf "$url/schedules" -H "X-API-Key: $key" -H 'content-type: application/json' \
  -d '{"skill_id":"text_stats","every_ms":2000,"inputs":{"text":"One fish. Two fish!"}}')
echo "$created"
id=$(echo "$created" | sed -E 's/.*"schedule_id":"([^"]+)".*/\1/')

# Each run is an ordinary execution naming its schedule: list the completed ones.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  runs=$(curl -sf -H "X-API-Key: $key" "$url/executions?schedule_id=$id&status=completed")
  case $runs in *'"execution_id"'*) break ;; esac
  sleep 1
done
echo "$runs"

# DELETE stops it; its executions stay.
curl -sf -X DELETE -H "X-API-Key: $key" "$url/schedules/$id"
