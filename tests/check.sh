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
# scratch_workdir NAME: a new folder $dir (/tmp/rotor-NAME-*), removed at exit, with a token cache of its own
# ($XDG_CACHE_HOME) and no $ROTOR_DATA; the test then runs in $dir/work.
scratch_workdir() {
  dir=$(mktemp -d "/tmp/rotor-$1-XXXXXX")
  trap 'rm -rf "$dir"' EXIT
  export XDG_CACHE_HOME="$dir/xdg"
  unset ROTOR_DATA
  mkdir -p "$dir/work" && cd "$dir/work" || exit 1
}
# two_class_corpus: corpus/a and corpus/b, 12 short documents each, a folder per class as data.train_path reads it.
two_class_corpus() {
  mkdir -p corpus/a corpus/b
  for i in $(seq 1 12); do
    echo "red green blue $i" > "corpus/a/doc$i.txt"
    echo "one two three $i" > "corpus/b/doc$i.txt"
  done
}
