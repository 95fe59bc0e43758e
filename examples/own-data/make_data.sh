#!/usr/bin/env bash
# Writes the example's labelled JSONL files (train 2000, val 200, test 200
# lines) next to this script. A sentence names two animals, one of which chases
# the other, among filler words; the label is the chaser. Both animals are in
# every sentence, so the words alone cannot tell the label: only their order
# can. Deterministic (awk's srand with a fixed seed per split).
set -euo pipefail
cd "$(dirname "$0")"
write() {  # write FILE COUNT SEED
  awk -v n="$2" -v prefix="${1%.jsonl}" -v seed="$3" 'BEGIN {
    srand(seed)
    split("cat dog fox owl", animal, " ")
    split("the a big small old young quick lazy brown grey", filler, " ")
    for (i = 0; i < n; i++) {
      a = animal[int(rand() * 4) + 1]
      do b = animal[int(rand() * 4) + 1]; while (b == a)
      text = ""
      for (w = int(rand() * 6); w > 0; w--) text = text filler[int(rand() * 10) + 1] " "
      text = text a " chased "
      for (w = int(rand() * 4); w > 0; w--) text = text filler[int(rand() * 10) + 1] " "
      text = text b
      for (w = int(rand() * 6); w > 0; w--) text = text " " filler[int(rand() * 10) + 1]
      printf "{\"id\": \"%s-%d\", \"text\": \"%s\", \"label\": \"%s\"}\n", prefix, i, text, a
    }
  }' > "$1"
}
write train.jsonl 2000 1
write val.jsonl 200 2
write test.jsonl 200 3
echo "wrote train.jsonl, val.jsonl and test.jsonl in $(pwd)"
