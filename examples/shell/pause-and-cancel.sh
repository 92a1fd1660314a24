#!/bin/sh
# Operator controls with the command line, as an admin (SKILLRUN_API_KEY holds an admin key):
# pause a skill, see its invocations wait, cancel what waits, and resume it.
set -eu

npx skillrun pause text_stats                      # accepted from now on, none starts
npx skillrun invoke text_stats text="held" >/dev/null
npx skillrun invoke text_stats text="held too" >/dev/null
npx skillrun executions --skill text_stats --status accepted    # both wait
npx skillrun cancel --all --skill text_stats --status accepted  # every page of what the filter finds
npx skillrun resume text_stats                     # what waits now runs
