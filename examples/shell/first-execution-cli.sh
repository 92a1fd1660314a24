#!/bin/sh
# A first execution with the command line, a client of the HTTP API (it reads SKILLRUN_URL,
# else http://localhost:3000).
set -eu

npx skillrun skills text          # search; `skillrun skills` lists them all
npx skillrun describe text_stats  # its inputs, output, endpoint and auth
npx skillrun invoke text_stats text="One fish. Two fish!" --wait  # live status, then the output
