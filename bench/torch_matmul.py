#!/usr/bin/python3
"""torch.matmul on rotor's transformer GEMM shapes (see bench/README.md).

Run with Debian's interpreter, /usr/bin/python3 (python3-torch); the python3
first on PATH may be another interpreter without Debian's packages.

Standalone:  /usr/bin/python3 bench/torch_matmul.py [--tokens 2048,8192] [--threads 1,2]
                 [--reps 5] [--json FILE]
   Same methodology as bench_gemm: a warm-up round, then `reps` rounds; in each
   round every (shape, threads) pair is timed once, in an order rotated by round;
   the median per pair is reported.

Server (used by `bench_gemm --with-torch`):  torch_matmul.py --serve
   Prints one JSON line {"ok": true, ...} (or {"ok": false, "error": ...} and
   exits), then answers each request line
     {"ta": 0, "tb": 1, "M": .., "N": .., "K": .., "threads": 2, "inner": 4, "warmup": 0}
   with {"sec": <mean seconds per call over `inner` calls>}; "quit" ends it.
"""
import argparse
import json
import statistics
import sys
import time


def shapes_for(T):
    # (name, ta, tb, M, N, K, in_step) -- same list as bench/gemm_bench.cpp
    return [
        ("fwd 256>768", False, True, T, 768, 256, True),
        ("fwd 256>1024", False, True, T, 1024, 256, True),
        ("fwd 1024>256", False, True, T, 256, 1024, True),
        ("dX 768>256", False, False, T, 256, 768, True),
        ("dX 1024>256", False, False, T, 256, 1024, True),
        ("dX 256>1024", False, False, T, 1024, 256, True),
        ("dW 768x256", True, False, 768, 256, T, True),
        ("dW 1024x256", True, False, 1024, 256, T, True),
        ("dW 256x1024", True, False, 256, 1024, T, True),
        ("TT 768>256", True, True, T, 256, 768, False),
        ("1tile 64x64", True, False, 64, 64, T, False),
    ]


class Problem:
    """Operands stored as rotor stores them; transposes are views (no copies)."""

    def __init__(self, torch, ta, tb, M, N, K):
        g = torch.Generator().manual_seed(1234)
        a = torch.rand((K, M) if ta else (M, K), generator=g) * 2 - 1
        b = torch.rand((N, K) if tb else (K, N), generator=g) * 2 - 1
        self.a = a.t() if ta else a
        self.b = b.t() if tb else b
        self.c = torch.empty(M, N)
        self.torch = torch

    def run(self, n):
        mm, a, b, c = self.torch.matmul, self.a, self.b, self.c
        for _ in range(n):
            mm(a, b, out=c)

    def time(self, threads, inner, warmup):
        self.torch.set_num_threads(threads)
        self.run(warmup)
        t0 = time.perf_counter()
        self.run(inner)
        return (time.perf_counter() - t0) / max(inner, 1)


def import_torch():
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - report any import failure
        return None, "%s: %s (interpreter %s)" % (type(e).__name__, e, sys.executable)
    return torch, None


def serve():
    torch, err = import_torch()
    if torch is None:
        print(json.dumps({"ok": False, "error": err}), flush=True)
        return 0
    print(json.dumps({"ok": True, "torch": torch.__version__, "python": sys.executable,
                      "default_threads": torch.get_num_threads()}), flush=True)
    cache = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if line == "quit":
            break
        try:
            r = json.loads(line)
            key = (bool(r["ta"]), bool(r["tb"]), int(r["M"]), int(r["N"]), int(r["K"]))
            if key not in cache:
                cache.clear()  # one shape at a time: bench_gemm goes shape by shape
                cache[key] = Problem(torch, *key)
            sec = cache[key].time(int(r["threads"]), int(r.get("inner", 1)), int(r.get("warmup", 0)))
            print(json.dumps({"sec": sec}), flush=True)
        except Exception as e:  # noqa: BLE001 - keep the protocol alive, report
            print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}), flush=True)
    return 0


def standalone(args):
    torch, err = import_torch()
    if torch is None:
        print("torch unavailable: " + err)
        return 1
    threads = [int(x) for x in args.threads.split(",")]
    out = {"torch": torch.__version__, "reps": args.reps, "results": []}
    print("torch %s  (%s)  median GFLOP/s over %d interleaved rounds, threads %s"
          % (torch.__version__, sys.executable, args.reps, "/".join(map(str, threads))))
    for T in [int(x) for x in args.tokens.split(",")]:
        shapes = shapes_for(T)
        pairs = [(s, t) for s in range(len(shapes)) for t in threads]
        samples = {p: [] for p in pairs}
        for rnd in range(args.reps + 1):
            for s in range(len(shapes)):
                name, ta, tb, M, N, K, _ = shapes[s]
                prob = Problem(torch, ta, tb, M, N, K)
                for j in range(len(threads)):
                    t = threads[(j + rnd + s) % len(threads)]
                    inner = max(1, round(2e9 / (2.0 * M * N * K)))  # ~2 GFLOP per sample, as bench_gemm
                    if rnd == 0:
                        prob.time(t, 1, 1)
                    else:
                        samples[(s, t)].append(prob.time(t, inner, 0))
        print("\nT = %d" % T)
        print("%-13s %2s %5s %5s %5s  %s" % ("shape", "op", "M", "N", "K",
                                            "  ".join("%6s" % ("%dt" % t) for t in threads)))
        for s, (name, ta, tb, M, N, K, in_step) in enumerate(shapes):
            fl = 2.0 * M * N * K
            row = []
            for t in threads:
                med = statistics.median(samples[(s, t)])
                row.append(fl / med * 1e-9)
                out["results"].append({"T": T, "shape": name, "M": M, "N": N, "K": K, "threads": t,
                                       "median_gflops": fl / med * 1e-9, "samples_s": samples[(s, t)]})
            print("%-13s %2s %5d %5d %5d  %s" % (name, ("T" if ta else "N") + ("T" if tb else "N"), M, N, K,
                                                "  ".join("%6.0f" % g for g in row)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve", action="store_true", help="request/response mode for bench_gemm")
    ap.add_argument("--tokens", default="2048,8192")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    return serve() if args.serve else standalone(args)


if __name__ == "__main__":
    sys.exit(main())
