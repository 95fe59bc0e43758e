"""Plots of a suite of tasks (`rotor compare` on a spec with `tasks:`), drawn from the suite's report.json (never
computed here); imported by plot_study.py, which owns the command line.

  randomized_gain: each randomized variant's papers' score minus its plain twin's, per task (a dot per encoding, the
                   task's mean as a bar), and below the tasks the mean over them with its 95% interval and the mean
                   over the learnt tasks, as report.md's table gives them. None when the suite pairs no variant
                   with a randomized twin.
"""
import math

import matplotlib.pyplot as plt


def points(value):
    return None if value is None else 100.0 * value


def randomized_gain(report, stem, save, colors):
    gain = report.get("papers_scores", {}).get("randomized_gain")
    if not gain or not gain.get("pairs") or not gain.get("by_task"):
        return False
    tasks = [t["task"] for t in report["tasks"] if t["task"] in gain["by_task"]]
    learnt = set(report["papers_scores"].get("learnt_tasks", []))
    pairs = gain["pairs"]
    color = colors([p["plain"] for p in pairs])
    rows = len(tasks) + 3  # the tasks, a gap, the mean over the tasks, over the learnt ones
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.32 * rows))
    for i, task in enumerate(tasks):
        mean = points(gain.get("task_mean", {}).get(task))  # absent in an older report: no bar
        if mean is not None:
            ax.barh(i, mean, height=0.6, color="0.85", zorder=1)
        for k, p in enumerate(pairs):
            value = points(gain["by_task"][task].get(p["randomized"]))
            if value is not None:  # spread an encoding's dots a little so that equal gains stay visible
                ax.scatter(value, i + 0.3 * (k / max(1, len(pairs) - 1) - 0.5), s=16, color=color[p["plain"]],
                           zorder=3, label=p["plain"] if i == 0 else None)
    mean, low, high = points(gain["mean"]), points(gain["low"]), points(gain["high"])
    y_mean = len(tasks) + 1
    if mean is not None:
        has_interval = low is not None and not math.isnan(low)
        ax.errorbar(mean, y_mean, xerr=[[mean - low], [high - mean]] if has_interval else None, fmt="D", color="k",
                    capsize=4, zorder=3)
    ticks = list(range(len(tasks))) + [y_mean]
    labels = [f"{t} *" if t in learnt else t for t in tasks] + ["mean over tasks (95% interval)"]
    learnt_mean = points(gain.get("learnt_mean"))
    if learnt_mean is not None and len(learnt) < len(tasks):
        ax.scatter(learnt_mean, y_mean + 1, marker="D", color="k", zorder=3)
        ticks.append(y_mean + 1)
        labels.append("mean over learnt tasks (*)")
    ax.set_yticks(ticks, labels)
    ax.invert_yaxis()
    ax.axvline(0, color="0.4", linewidth=0.8)
    ax.set_xlabel("randomized minus plain, papers' score (points)")
    ax.set_title("What randomized positions add, per task and encoding (bar: the task's mean)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), title="encoding", title_fontsize=8)
    save(fig, stem)
    return True
