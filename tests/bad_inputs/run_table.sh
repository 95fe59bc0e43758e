#!/usr/bin/env bash
# Usage: run_table.sh ROTOR docs/guide/reliability.md [--show]
# Runs every row of the page's bad-input table (between the bad-inputs
# markers) in a scratch copy of fixtures/ and checks the exit code and that
# the output contains the row's exact message ('…' stands for any text).
# --show prints what each command really printed, to write new rows.
set -uo pipefail
export ROTOR=$(readlink -f "$1")
page=$(readlink -f "$2")
show=${3:-}
here=$(dirname "$(readlink -f "$0")")
work=$(mktemp -d /tmp/rotor-bad-inputs-XXXXXX)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"
}
trap cleanup EXIT
cp -r "$here/fixtures/." "$work/"
cd "$work" || exit 1
ln -s "$ROTOR" rotor
export PATH="$work:$PATH"

# --- Set-up: a trained run and damaged copies of its checkpoint.
rotor train ok.yaml --out trained > setup.log 2>&1 || { cat setup.log; exit 1; }
cp trained/checkpoints/step-00000004.h5 ckpt.h5
cp ckpt.h5 flipped.h5; printf 'X' | dd of=flipped.h5 bs=1 seek=3000 conv=notrunc status=none
head -c 5000 ckpt.h5 > truncated.h5
: > empty.h5
printf 'step: 4\n' > text.h5
rotor train other.yaml --out other > setup.log 2>&1 || { cat setup.log; exit 1; }
cp other/checkpoints/step-00000004.h5 other.h5
rotor train ok.yaml --out damaged --stop-after 2 > setup.log 2>&1 || { cat setup.log; exit 1; }
for f in damaged/checkpoints/step-*.h5; do printf 'X' | dd of="$f" bs=1 seek=3000 conv=notrunc status=none; done
rotor train ok.yaml --out finished > setup.log 2>&1 || { cat setup.log; exit 1; }
rotor train ok.yaml --out learned --set model.position.type=learned --set model.position.max_len=32 > setup.log 2>&1 ||
  { cat setup.log; exit 1; }
printf 'a file, not a directory\n' > plain-file
mkdir -p ro full
# A read-only directory and a small full disk. As root, permissions do not
# stop writes: use mounts; without mounts, those rows are skipped.
# ro/ holds a copy of the finished run, then turns read-only.
if mount -t tmpfs -o size=1m tmpfs ro 2>/dev/null; then
  mounts+=("$work/ro")
  { cp -r finished ro/finished && mount -o remount,ro ro; } || ro_skip=1
else ro_skip=1; fi
if mount -t tmpfs -o size=96k tmpfs full 2>/dev/null; then mounts+=("$work/full"); else full_skip=1; fi

rows=0 passed=0 failed=0 skipped=0
while IFS= read -r line; do
  [[ $line =~ ^\|\ *([0-9]+)\ *\| ]] || continue
  IFS='|' read -r _ num area input command code message _ <<< "$line"
  num=${num// /}
  command=$(sed -E -e 's/^ *`+ ?//' -e 's/ ?`+ *$//' <<< "$command")
  message=$(sed -E -e 's/^ *`+ ?//' -e 's/ ?`+ *$//' -e 's/\\[|]/|/g' <<< "$message")
  code=${code// /}
  rows=$((rows + 1))
  if { [[ $command == *" ro/"* ]] && [ -n "${ro_skip:-}" ]; } || { [[ $command == *" full/"* ]] && [ -n "${full_skip:-}" ]; }; then
    echo "skipped $num (no mount here): $command"; skipped=$((skipped + 1)); continue
  fi
  output=$(timeout 120 bash -c "$command" 2>&1 < /dev/null)
  got=$?
  pattern=$(sed 's/[][*?\\]/\\&/g' <<< "$message")  # literal, except '…': any text
  pattern=${pattern//…/*}
  if [ -n "$show" ]; then
    printf '%s | %s | exit %s\n%s\n\n' "$num" "$command" "$got" "$(grep -v '^$' <<< "$output" | tail -n 3)"
  elif [ "$got" = "$code" ] && [[ $output == *$pattern* ]] && ! grep -q 'error (unexpected)\|Segmentation\|terminate called\|HDF5-DIAG' <<< "$output"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAILED %s: %s\n  expected exit %s and: %s\n  got exit %s and:\n%s\n' "$num" "$command" "$code" "$message" \
      "$got" "$(sed 's/^/    /' <<< "$output" | tail -n 8)"
  fi
done < <(sed -n '/<!-- bad-inputs:begin -->/,/<!-- bad-inputs:end -->/p' "$page")
echo "bad inputs: $rows rows, $passed passed, $failed failed, $skipped skipped"
[ "$rows" -ge 60 ] || { echo "FAILED: the table has fewer than 60 rows"; exit 1; }
[ "$failed" -eq 0 ] && [ -z "$show" ]
