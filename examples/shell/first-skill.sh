#!/bin/sh
# Your first skill: examples/skills/hello, hosted by a service started with
#   SKILLS_DIR=skills:examples/skills npm start
set -eu

npx skillrun describe hello
npx skillrun invoke hello name=Ada --wait
