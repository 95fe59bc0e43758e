#!/usr/bin/env bash
# The prose budget, beside the code budget of tools/check-style.sh (CI runs
# both in its first step; CTest runs docs_prose and docs_reference_current):
#   1. README.md at most 300 lines; every page under docs/, results/ and bench/
#      opens with its purpose (a guide page: the question it answers); every
#      relative link, image and #heading anchor of every tracked .md resolves
#      (tools/check_docs.py says exactly what counts).
#   2. with --generated: the generated pages of docs/reference/ are what the
#      rotor binary prints now (tools/update-reference.sh --check; needs a
#      build: ROTOR=path/to/rotor, default ./build/rotor).
# Prints each violation as `path:line: what`; exits 1 if there is any.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
status=0
/usr/bin/python3 tools/check_docs.py . || status=1
if [ "${1:-}" = "--generated" ]; then
  bash tools/update-reference.sh --check || status=1
fi
exit $status
