#!/usr/bin/env bash
# Jane Austen's six novels (Debian r-cran-janeaustenr 1.0.0-1, MIT; the texts
# are public domain, from Project Gutenberg) -> $ROTOR_DATA/austen/{train,val,test}.jsonl
# (default data dir: <repo>/data). One line per chapter, in book order:
#   {"id": "emma-001", "novel": "emma", "chapter": 1, "text": "..."}
# Unlabelled: task austen is for language models. The title pages before each
# novel's first chapter are dropped. Split by the chapter's number n within its
# novel: n % 10 == 9 val, n % 10 == 0 test, else train.
# The package keeps the texts in R's lazy-load database; the converter reads
# it without R. Needs apt-get (Debian/Ubuntu); idempotent; fails with a clear
# message when offline.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

fetch_deb_corpus austen r-cran-janeaustenr 1.0.0-1 \
  df6bddf211906d1ff404f8ff662c21b34e6660e7f54a311084e749050c019c95 "$ROTOR_REPO/tools/fetch/austen_convert.mjs"
