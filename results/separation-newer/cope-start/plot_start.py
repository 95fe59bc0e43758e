"""Training loss of CoPE by the start of its position embeddings, per task and seed.

Reads the runs of separation-newer.yaml (the zero start, `cope`) and of this folder's spec.yaml (N(0, 0.02) and
N(0, 0.25)) from runs/compare/, and writes loss_by_start.png beside this file:
    /usr/bin/python3 results/separation-newer/cope-start/plot_start.py
"""
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
STARTS = [("zero (the paper's code)", "separation-newer", "cope"),
          ("N(0, 0.02)", "cope-start", "cope-std0.02"),
          ("N(0, 0.25)", "cope-start", "cope-std0.25")]
TASKS = ["order", "offset-12"]
SEEDS = [1, 2, 3]


def train_loss(study, task, variant, seed):
    path = ROOT / "runs/compare" / study / task / "runs" / f"{variant}-seed{seed}" / "metrics.jsonl"
    steps, losses = [], []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row.get("event") == "train":
            steps.append(row["step"])
            losses.append(row["loss"])
    return steps, losses


def main():
    fig, axes = plt.subplots(len(TASKS), len(STARTS), figsize=(12, 6.5), sharex=True, sharey="row")
    for r, task in enumerate(TASKS):
        for c, (label, study, variant) in enumerate(STARTS):
            ax = axes[r][c]
            for seed in SEEDS:
                steps, losses = train_loss(study, task, variant, seed)
                ax.plot(steps, losses, label=f"seed {seed}", linewidth=1.2)
            ax.set_yscale("log")
            ax.set_title(f"{task}: embeddings start at {label}", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            if c == 0:
                ax.set_ylabel("training loss (log)")
            if r == len(TASKS) - 1:
                ax.set_xlabel("step")
    axes[0][0].legend(loc="lower left", fontsize=9)
    fig.suptitle("CoPE on the separation suite: a zero start leaves some seeds on the plateau at chance", fontsize=11)
    fig.tight_layout()
    out = pathlib.Path(__file__).with_name("loss_by_start.png")
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
