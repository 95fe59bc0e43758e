#!/usr/bin/env bash
# The style check of .ci/run (its first step), over every tracked *.cpp and *.h
# (git ls-files; nothing generated is tracked as C++):
#   1. formatting: `clang-format --dry-run --Werror` with the repo's .clang-format
#      (clang-format 14, Debian 12's); one line per unformatted file.
#   2. the size budget (docs/design.md, "Budgets"): at most 400 lines a
#      file and 60 lines a function, tables exempt. tools/size_budget.py says how
#      a function is measured and what a table is (in short: a function that only
#      returns one braced list of rows, a braced initializer outside functions, or
#      a block under a `// size-budget: table` comment).
# Prints each violation as `path:line: what`; exits 1 if there is any.
#   tools/check-style.sh            all tracked C++ files
#   tools/check-style.sh FILE...    just these
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
fi
status=0
command -v clang-format >/dev/null || { echo "check-style: clang-format not found (tools/install-deps.sh installs it)"; exit 1; }

# clang-format reports every replacement as "path:line:col: error: ..." followed
# by the source line; keep the first per file and count the rest.
format_report=$(clang-format --dry-run --Werror "${files[@]}" 2>&1 >/dev/null) || status=1
if [ -n "$format_report" ]; then
  status=1
  printf '%s\n' "$format_report" | awk -F: '
    / error: / { n[$1]++; if (!($1 in at)) { at[$1] = $2; order[++k] = $1 } }
    END { for (i = 1; i <= k; i++) printf "%s:%s: not clang-formatted (%d places; run clang-format -i)\n", order[i], at[order[i]], n[order[i]] }'
fi

/usr/bin/python3 tools/size_budget.py "${files[@]}" || status=1

if [ $status -eq 0 ]; then echo "check-style: ${#files[@]} files formatted and within the size budget"; fi
exit $status
