#!/usr/bin/env bash
# Usage: check_docs_selftest.sh tools/check_docs.py
# Builds a small repository in a scratch folder that passes the prose budget,
# then breaks one rule at a time and checks that check_docs.py fails, naming it.
# The breaking commands are eval'd in repo/, so they are single-quoted on purpose:
# shellcheck disable=SC2016
set -uo pipefail
checker=$(readlink -f "$1")
work=$(mktemp -d /tmp/rotor-check-docs-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0
setup() {
  rm -rf repo && mkdir -p repo/docs/guide repo/results/a && cd repo || exit 1
  git init -q .
  printf '# tool\n\nWhat it is.\n\nRead [the guide](docs/guide/use.md#step-two) and see ![plot](results/a/p.png).\n' > README.md
  printf '# Using it\n\nHow do I use it?\n\n## Step two\n\nSee [the results](../../results/a/README.md).\n' > docs/guide/use.md
  printf '# Study a\n\nWhat study a found.\n\n<img src="p.png" width="10">\n' > results/a/README.md
  printf 'png' > results/a/p.png
  git add -A
  cd ..
}
expect() {  # expect "what is broken" "message part" COMMAND... (run in repo/)
  local what=$1 message=$2
  shift 2
  setup
  (cd repo && eval "$*")
  output=$(/usr/bin/python3 "$checker" repo 2>&1)
  code=$?
  if [ -z "$message" ]; then
    [ $code -eq 0 ] || { echo "FAILED: $what: expected a pass, got exit $code:"; echo "$output"; failed=1; }
  elif [ $code -ne 1 ] || [[ $output != *"$message"* ]]; then
    echo "FAILED: $what: expected exit 1 and '$message', got exit $code:"; echo "$output"; failed=1
  fi
}
expect "the valid repository" "" true
expect "a README over the cap" "over the cap of 300" 'for i in $(seq 300); do echo line >> README.md; done'
expect "a broken link" "no tracked file docs/guide/gone.md" 'sed -i "s|use.md#step-two|gone.md|" README.md'
expect "a broken anchor" "has no heading #step-three" 'sed -i "s|#step-two|#step-three|" README.md'
expect "a broken image" "no tracked file results/a/q.png" 'sed -i "s|p.png\"|q.png\"|" results/a/README.md'
expect "an untracked target" "no tracked file results/a/p.png" 'git rm -q --cached results/a/p.png'
expect "a page without a title" "opens with its '# ' title" 'sed -i "1d" results/a/README.md'
expect "a page that opens with a table" "in prose" 'sed -i "s/^What study a found./| a | b |/" results/a/README.md'
expect "a guide page without its question" "the question it answers" 'sed -i "s/How do I use it?/Using it./" docs/guide/use.md'
expect "a link in a code block (not checked)" "" 'printf "\n\`\`\`\n[x](nowhere.md)\n\`\`\`\n" >> docs/guide/use.md'
[ $failed -eq 0 ] && echo "check_docs self-test: every rule fails when broken, and passes when kept"
exit $failed
