# Sourced by the shell tests: check NAME COMMAND... counts a check as passed
# when COMMAND succeeds and prints FAILED: NAME otherwise; checks_passed
# prints the tally and succeeds when nothing failed.
failures=0 passed=0
check() {
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); else echo "FAILED: $name"; failures=$((failures + 1)); fi
}
checks_passed() {
  echo "$passed checks passed, $failures failed"
  [ "$failures" -eq 0 ]
}
