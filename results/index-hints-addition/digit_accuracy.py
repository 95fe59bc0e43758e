#!/usr/bin/env python3
"""Digits right in the greedy answers of a hinted-addition run, apart from its hints.

The study's token accuracy counts the answer's hints with its digits, and the hints are easy (they count up from
the operands' first hint), so it overstates how much of the sum is right. This reads `rotor predict --split S`
(greedy decoding) for each run and split and prints exact match, the share of hint places written right, and the
share of the expected digits written right at their own hint (a digit counts where the prediction has the same
hint before it). Two references from the same samples: the digits an adder that ignores carries gets right
(a_i + b_i mod 10), and those copying the longer operand's digit gets right (0 past its end). Last, the share of
answers that end early: every hint written right, but fewer of them than the sum has digits.

    results/index-hints-addition/digit_accuracy.py ROTOR RUN_DIR... [--splits test test_30 test_40] [--by-significance]

--by-significance prints, instead, the share of digits right at each significance (hint index) in bands of 5, the
first wrong digit's significance being where a greedy answer goes off.
"""
import argparse
import json
import subprocess


def operands(input_symbols):
    """The two operands' digits by hint, from a hinted input "h0 d h1 d + h0 d ..."."""
    left, right = " ".join(input_symbols).split(" + ")
    def digits(text):
        t = text.split()
        return {t[i]: int(t[i + 1]) for i in range(0, len(t), 2)}
    return digits(left), digits(right)


def score(rotor, run, split):
    out = subprocess.run([rotor, "predict", run, "--split", split], check=True, capture_output=True, text=True)
    exact = hints = hint_places = digits = digit_places = no_carry = copy_longer = early = 0
    by_band = {}  # significance // 5 -> [right, places]
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    for row in rows:
        expected, predicted = row["expected"].split(), row["predicted"].split()
        exact += row["right"]
        a, b = operands(row["input"].split())
        longer = a if len(a) >= len(b) else b
        written = predicted[0:len(predicted) - 1:2]
        early += len(written) < len(expected) // 2 and written == expected[0:len(written) * 2:2]
        got = {}  # hint -> the digit written after it
        for i in range(0, len(predicted) - 1, 2):
            got.setdefault(predicted[i], predicted[i + 1])
        for i in range(0, len(expected), 2):
            hint_places += 1
            hints += i < len(predicted) and predicted[i] == expected[i]
            digit_places += 1
            digits += got.get(expected[i]) == expected[i + 1]
            band = by_band.setdefault(i // 2 // 5, [0, 0])
            band[0] += got.get(expected[i]) == expected[i + 1]
            band[1] += 1
            want = int(expected[i + 1])
            no_carry += (a.get(expected[i], 0) + b.get(expected[i], 0)) % 10 == want
            copy_longer += longer.get(expected[i], 0) == want
    return (len(rows), exact / len(rows), hints / hint_places, digits / digit_places, no_carry / digit_places,
            copy_longer / digit_places, early / len(rows)), by_band


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rotor")
    p.add_argument("runs", nargs="+")
    p.add_argument("--splits", nargs="+", default=["test", "test_30", "test_40"])
    p.add_argument("--by-significance", action="store_true")
    a = p.parse_args()
    if a.by_significance:
        for run in a.runs:
            for split in a.splits:
                _, bands = score(a.rotor, run, split)
                cells = [f"{5 * b}-{5 * b + 4}: {100 * r / n:.0f}% of {n}" for b, (r, n) in sorted(bands.items())]
                print(f"{run.rstrip('/').split('/')[-1]}\t{split}\t" + "; ".join(cells))
        return
    print("run\tsplit\tsamples\texact_match\thints_right\tdigits_right\tno_carry_adder\tcopy_longer\tended_early")
    for run in a.runs:
        for split in a.splits:
            (n, *shares), _ = score(a.rotor, run, split)
            print(f"{run.rstrip('/').split('/')[-1]}\t{split}\t{n}\t" + "\t".join(f"{100 * x:.1f}" for x in shares))


if __name__ == "__main__":
    main()
