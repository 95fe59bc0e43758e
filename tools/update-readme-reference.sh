#!/usr/bin/env bash
# Regenerates the configuration reference in README.md from `rotor config --reference --markdown`.
set -euo pipefail
cd "$(dirname "$0")/.."
rotor=${ROTOR:-./build/rotor}
export ROTOR_REFERENCE=$("$rotor" config --reference --markdown)
awk '
  /<!-- config-reference:begin -->/ { print; print ENVIRON["ROTOR_REFERENCE"]; skip = 1; next }
  /<!-- config-reference:end -->/   { skip = 0 }
  !skip' README.md > README.md.tmp
mv README.md.tmp README.md
echo "README.md: configuration reference updated"
