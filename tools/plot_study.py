#!/usr/bin/python3
"""Plots of a rotor study, drawn from the numbers rotor wrote (never computed here).

  plot_study.py study REPORT_JSON OUT_DIR   val_accuracy (a language model: val_loss), length_extrapolation
                                            (a language-model study: perplexity
                                            against length; none for a study
                                            evaluated at one split and length),
                                            rope_decay and, for
                                            each cell under "statistics",
                                            pairwise_<split>_<length>, and for
                                            each variant's measured profile under
                                            "offset_profiles", offsets_<variant>_L<layer>,
                                            and for each rotary variant's under
                                            "frequency_use", frequencies_<variant>_L<layer>,
                                            as PNG and SVG
  plot_study.py decay DECAY_JSON OUT_FILE   one RoPE decay curve (OUT_FILE.png/.svg)
  plot_study.py suite REPORT_JSON OUT_DIR   a suite of tasks' randomized_gain (plot_suite.py)
  plot_study.py attention|offsets|bias|passkey|frequencies JSON STEM
                                            `rotor analyze attention|offsets|bias|passkey|frequencies`
                                            (plot_diagnostics.py)

Run by `rotor compare` and `rotor analyze` with Debian's
/usr/bin/python3 and python3-matplotlib.
"""
import json
import os
import sys
import textwrap

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    sys.exit("matplotlib is not installed for this Python (Debian: apt-get install python3-matplotlib)")


def save(fig, stem):
    fig.tight_layout()
    for ext in (".png", ".svg"):
        fig.savefig(stem + ext, dpi=130 if ext == ".png" else None, bbox_inches="tight")
    plt.close(fig)


def colors(names):
    # Ten distinct default colours; beyond ten variants, tab20 so that no two variants share one.
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    if len(names) > len(cycle):
        cycle = [plt.get_cmap("tab20")(i) for i in range(20)]
    return {n: cycle[i % len(cycle)] for i, n in enumerate(names)}


def language_model(report):
    """A study of causal or masked language models: losses and perplexities, not accuracies."""
    return report.get("objective") in ("clm", "mlm")


def accuracy_metric(report):
    """(name, label) of the score the accuracy plots draw: the metric report.json names under "evidence_metric"
    (a sequence task's token accuracy); a classifier's report, which names none, draws its accuracy."""
    metric = report.get("evidence_metric", {"name": "accuracy", "label": "accuracy"})
    return metric["name"], metric["label"]


def curve_key(report):
    """The metric of the validation curves, the key beside "step" in their points (the objective's default best
    metric: accuracy, loss, sequence_accuracy)."""
    for v in report["variants"]:
        for p in v["val_curve"]:
            return next(k for k in p if k != "step")
    return "loss" if language_model(report) else "accuracy"


def val_accuracy(report, stem):
    """Validation accuracy against step; a language model's validation loss (report "objective": clm, mlm)."""
    lm = language_model(report)
    key, scale = curve_key(report), (1 if lm else 100)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    color = colors([v["name"] for v in report["variants"]])
    for v in report["variants"]:
        pts = v["val_curve"]
        if not pts:
            continue
        steps = [p["step"] for p in pts]
        mean = [scale * p[key]["mean"] for p in pts]
        lo = [scale * p[key]["min"] for p in pts]
        hi = [scale * p[key]["max"] for p in pts]
        ax.plot(steps, mean, marker="o", markersize=3, color=color[v["name"]], label=v["name"])
        ax.fill_between(steps, lo, hi, color=color[v["name"]], alpha=0.18, linewidth=0)
    for c in report.get("convergence", []):  # the steps-to-threshold levels of the report
        ax.axhline(scale * c["threshold"], color="0.4", linestyle=":", linewidth=1)
    n = len(report["seeds"])
    what = "Validation loss" if lm else "Validation " + key.replace("_", " ")
    levels = " (dotted: thresholds)" if report.get("convergence") else ""
    ax.set_title(f"{what} (mean, band = min-max over {n} seed{'s' if n > 1 else ''}){levels}")
    ax.set_xlabel("step")
    ax.set_ylabel("validation loss (nats per token)" if lm else f"validation {key.replace('_', ' ')} (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, stem)


def has_value(cell, metric):
    """A sweep cell with a number: n/a cells and variants without a finished run have none."""
    return cell["available"] and cell[metric]["mean"] is not None


# Line style and marker per RoPE scaling (model.position.scaling's names); a name added to rotor later than to this
# table still plots, dash-dotted with a star, rather than failing the study's plots.
STYLES = {"none": "-", "linear": "--", "ntk": "-.", "yarn": ":", "llama3": (0, (5, 1)), "dynamic_ntk": (0, (1, 1)),
          "longrope": (0, (3, 1, 1, 1, 1, 1))}
MARKERS = {"none": "o", "linear": "s", "ntk": "^", "yarn": "D", "llama3": "v", "dynamic_ntk": "P", "longrope": "X"}


def scaling_style(scaling):
    return STYLES.get(scaling, (0, (3, 1, 1, 1))), MARKERS.get(scaling, "*")


def sweep_curves(report, split, metric):
    """(variant, scaling, cells, label) for every curve of `split` with values of `metric`: a scaled curve starts
    from the unscaled point before it (the training length); the label names the lengths that are n/a."""
    for v in report["variants"]:
        for scaling in report["evaluation"]["scalings"]:
            at = [c for c in v["sweep"] if c["split"] == split and c["scaling"] == scaling]
            cells = [c for c in at if has_value(c, metric)]
            if not cells:
                continue
            if scaling != "none":
                base = [c for c in v["sweep"] if c["split"] == split and c["scaling"] == "none"
                        and has_value(c, metric) and c["length"] < cells[0]["length"]]
                cells = base[-1:] + cells
            label = v["name"] if scaling == "none" else f"{v['name']} + {scaling}"
            missing = sorted({c["length"] for c in at if not c["available"]})
            if missing:
                label += " (n/a at " + ", ".join(str(m) for m in missing) + ")"
            yield v, scaling, cells, label


def staggered_labels(lengths):
    """Tick labels of the sorted lengths on a log2 axis; a length within 8% of the one labelled before it (variants
    whose data gives a split other window lengths: 76 and 79 tokens) drops a line, so the two do not overlap."""
    labels, top = [], None  # top: the last length labelled on the first line
    for x in sorted(lengths):
        if top is not None and x < 1.08 * top:
            labels.append("\n" + str(x))
        else:
            labels.append(str(x))
            top = x
    return labels


def length_axes(ax, report, lengths, label_y, label_va):
    """The training length marked, the evaluation lengths as log2 ticks, the legend below the axes (with a dozen
    lines, a legend inside hides some of them)."""
    for t in sorted({v["training_length"] for v in report["variants"]}):
        ax.axvline(t, color="grey", linestyle=":", linewidth=1)
        ax.annotate("training length", (t, label_y), xycoords=("data", "axes fraction"), rotation=90,
                    fontsize=7, color="grey", ha="right", va=label_va)
    ax.set_xscale("log", base=2)
    labels = staggered_labels(lengths)
    ax.set_xticks(sorted(lengths))
    ax.set_xticklabels(labels)
    ax.set_xlabel("evaluation window length (tokens)")
    below = -0.14 - (0.06 if any(label.startswith("\n") for label in labels) else 0)  # under a second tick line
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, below))


def length_extrapolation(report, stem):
    splits = report["evaluation"]["splits"]
    fig, axes = plt.subplots(1, len(splits), figsize=(7 * len(splits), 4.5), squeeze=False)
    color = colors([v["name"] for v in report["variants"]])
    metric, label_y = accuracy_metric(report)
    lengths = set()
    for ax, split in zip(axes[0], splits):
        for v, scaling, cells, label in sweep_curves(report, split, metric):
            xs = [c["length"] for c in cells]
            lengths.update(xs)
            ys = [100 * c[metric]["mean"] for c in cells]
            err = [100 * c[metric]["std"] for c in cells]
            ax.errorbar(xs, ys, yerr=err, capsize=3, color=color[v["name"]], linestyle=scaling_style(scaling)[0],
                        marker=scaling_style(scaling)[1], markersize=4, label=label)
        ax.set_title(f"{split} {label_y} by evaluation length (mean ± std over seeds)")
        ax.set_ylabel(f"{split} {label_y} (%)")
        ax.grid(alpha=0.3)
        length_axes(ax, report, lengths, 0.02, "bottom")
    save(fig, stem)


def perplexity_extrapolation(report, stem):
    """A language-model study: perplexity against evaluation length, log-log, one line per variant and
    scaling, the band the range over seeds, the training length marked (train short, test long)."""
    splits = report["evaluation"]["splits"]
    fig, axes = plt.subplots(1, len(splits), figsize=(7.5 * len(splits), 5), squeeze=False)
    color = colors([v["name"] for v in report["variants"]])
    lengths = set()
    seeds = len(report["seeds"])
    for ax, split in zip(axes[0], splits):
        for v, scaling, cells, label in sweep_curves(report, split, "perplexity"):
            xs = [c["length"] for c in cells]
            lengths.update(xs)
            ax.plot(xs, [c["perplexity"]["mean"] for c in cells], color=color[v["name"]],
                    linestyle=scaling_style(scaling)[0], marker=scaling_style(scaling)[1], markersize=4,
                    label=label)
            ax.fill_between(xs, [c["perplexity"]["min"] for c in cells], [c["perplexity"]["max"] for c in cells],
                            color=color[v["name"]], alpha=0.15, linewidth=0)
        ax.set_yscale("log")
        plain = matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}")  # 12, not 1.2 x 10^1
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_title(f"{split} perplexity by evaluation length (mean, band = min-max over {seeds} seed"
                     f"{'s' if seeds > 1 else ''})", fontsize=10)
        ax.set_ylabel(f"{split} perplexity (log scale, lower is better)")
        ax.grid(alpha=0.3, which="both")
        length_axes(ax, report, lengths, 0.98, "top")
    save(fig, stem)


def single_point(report):
    """Every variant evaluated at one split, one length and no scaling."""
    return len({(c["split"], c["length"], c["scaling"]) for v in report["variants"] for c in v["sweep"]}) <= 1


def one_length_per_split(report):
    """Splits of a generated task, each swept once with windows that hold its samples (test_256 at 256)."""
    splits = report["evaluation"]["splits"]
    points = {(c["split"], c["length"]) for v in report["variants"] for c in v["sweep"] if c["scaling"] == "none"}
    lengths = [sorted(l for s, l in points if s == split) for split in splits]
    return len(splits) > 1 and all(len(l) == 1 for l in lengths) and len({l[0] for l in lengths}) == len(splits)


def training_mark(variant):
    """Where training ends on a split's length axis: the longest training sample where the report knows it (a
    generated task's window is often longer), else the training window (reports before 2026-11-30)."""
    longest = variant.get("longest_training_sample") or 0
    if longest > 0:
        return longest, "longest training sample"
    return variant["training_length"], "training window"


def split_extrapolation(report, stem):
    """One panel: each split at its window length on x, so test, test_128, test_256 read as one curve."""
    splits = report["evaluation"]["splits"]
    fig, ax = plt.subplots(figsize=(8, 5))
    color = colors([v["name"] for v in report["variants"]])
    metric, label_y = accuracy_metric(report)
    ticks = {}
    for v in report["variants"]:
        cells = sorted((c for c in v["sweep"] if c["scaling"] == "none" and c["split"] in splits
                        and has_value(c, metric)), key=lambda c: c["length"])
        if not cells:
            continue
        for c in cells:
            ticks[c["length"]] = c["split"]
        ax.errorbar([c["length"] for c in cells], [100 * c[metric]["mean"] for c in cells],
                    yerr=[100 * c[metric]["std"] for c in cells], capsize=3, color=color[v["name"]],
                    marker="o", markersize=4, label=v["name"])
    for t, label in sorted({training_mark(v) for v in report["variants"]}):
        ax.axvline(t, color="grey", linestyle=":", linewidth=1)
        ax.annotate(label, (t, 0.02), xycoords=("data", "axes fraction"), rotation=90,
                    fontsize=7, color="grey", ha="right", va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(ticks))
    ax.set_xticklabels([f"{ticks[x]}\n(up to {x})" for x in sorted(ticks)])
    ax.set_title(f"test {label_y} by sample length (mean ± std over seeds)")
    ax.set_xlabel("held-out split (longest sample, tokens)")
    ax.set_ylabel(f"{label_y} (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    save(fig, stem)


def difference_matrix(cell, scale=100):
    """Variants with a finished run, best mean first (lowest for a loss), and scale * (row - column) with
    Holm flags."""
    sign = 1 if cell.get("lower_is_better", False) else -1
    names = [v["name"] for v in sorted((v for v in cell["variants"] if v["n_seeds"]),
                                       key=lambda v: (sign * v["mean"], v["name"]))]
    index = {n: i for i, n in enumerate(names)}
    diff = [[float("nan")] * len(names) for _ in names]
    star = [[False] * len(names) for _ in names]
    for p in cell["pairs"]:
        a, b = index[p["a"]], index[p["b"]]
        diff[a][b], diff[b][a] = scale * p["difference"], -scale * p["difference"]
        star[a][b] = star[b][a] = p["different"]
    return names, diff, star


def missing_columns(cell, variants, width):
    """Why variants of the cell have no column, one line each wrapped at `width` characters: n/a at this length
    with the sweep's reason (learned positions past their table), not evaluated at this length (a variant whose
    data gives its split other lengths), else no finished run."""
    point = (cell["split"], cell["length"], cell["scaling"])
    reasons = {v["name"]: c.get("reason", "") for v in variants for c in v.get("sweep", [])
               if (c["split"], c["length"], c["scaling"]) == point and not c.get("available", True)}
    evaluated = {v["name"] for v in variants if v.get("finished")}
    absent = [v["name"] for v in cell["variants"] if not v["n_seeds"]]
    lines = [f"{name}: n/a at {cell['length']} tokens: {reasons[name]}" for name in absent if name in reasons]
    elsewhere = [name for name in absent if name not in reasons and name in evaluated]
    if elsewhere:
        lines.append(f"not evaluated at {cell['length']} tokens: " + ", ".join(elsewhere))
    unfinished = [name for name in absent if name not in reasons and name not in evaluated]
    if unfinished:
        lines.append("no finished run: " + ", ".join(unfinished))
    return ["\n".join(textwrap.wrap(line, width)) for line in lines]


def pairwise_heatmap(cell, variants, alpha, stem):
    loss = cell.get("lower_is_better", False)  # a language model's cell: nats per token, lower is better
    names, diff, star = difference_matrix(cell, 1 if loss else 100)
    if len(names) < 2:
        return
    values = [abs(d) for row in diff for d in row if d == d]
    # At least 5 points (0.05 nats) either way, so that a small difference
    # does not look as saturated as a large one.
    limit = max(values + [0.05 if loss else 5.0])
    size = max(4.0, 1.2 + 0.62 * len(names))
    fig, ax = plt.subplots(figsize=(size + 2.2, size))
    cmap = plt.get_cmap("RdBu_r" if loss else "RdBu").copy()  # blue: the row variant is better
    cmap.set_bad("#e0e0e0")  # the diagonal and pairs without a shared seed
    image = ax.imshow(diff, cmap=cmap, vmin=-limit, vmax=limit)
    for i, row in enumerate(diff):
        for j, d in enumerate(row):
            if d != d:
                continue
            ax.text(j, i, (f"{d:+.3f}" if loss else f"{d:+.1f}") + ("*" if star[i][j] else ""), ha="center",
                    va="center", fontsize=8,
                    color="white" if abs(d) > 0.6 * limit else "black")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    missing = missing_columns(cell, variants, int(10 * size))
    ax.set_xlabel("\n".join(["column variant"] + [f"({line})" for line in missing]))
    ax.set_ylabel("row variant")
    scaling = "" if cell["scaling"] == "none" else f", {cell['scaling']} scaling"
    unit = "loss in nats/token (blue: row lower)" if loss else "accuracy points"
    ax.set_title(f"{cell['split']} at {cell['length']} tokens{scaling}: row minus column\n"
                 f"{unit}, * Holm-corrected p < {alpha:g}", fontsize=10)
    fig.colorbar(image, ax=ax, label="loss difference (nats/token)" if loss else "accuracy difference (points)")
    save(fig, stem)


def pairwise_heatmaps(statistics, variants, out):
    """One heatmap per cell of report.json's "statistics" (absent in older reports); `variants`: report.json's,
    whose sweep says why a variant is n/a at a length."""
    alpha = statistics.get("method", {}).get("alpha", 0.05)
    for cell in statistics["cells"]:
        suffix = "" if cell["scaling"] == "none" else "_" + cell["scaling"]
        pairwise_heatmap(cell, variants, alpha, os.path.join(out, f"pairwise_{cell['split']}_{cell['length']}{suffix}"))


def rope_decay(decay, stem):
    pts = decay["points"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    query = decay.get("query_index", 0)
    xs = [p["key"] for p in pts] if query else [p["distance"] for p in pts]
    top.plot(xs, [p["bound"] for p in pts], color="C0")
    top.set_ylabel("relative upper bound")
    top.set_title(f"RoPE long-term decay (head dim {decay['head_dim']}, base {decay['base']:g})")
    bottom.plot(xs, [p["score"] for p in pts], color="C1")
    bottom.set_ylabel("q·k score, all-ones q and k")
    bottom.set_xlabel(f"key position (query at {query})" if query else "relative distance")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    save(fig, stem)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("study", "suite", "decay", "bias", "attention", "offsets", "passkey",
                                         "frequencies"):
        sys.exit(__doc__)
    with open(argv[2]) as f:
        data = json.load(f)
    if argv[1] in ("attention", "offsets", "bias", "passkey", "frequencies"):
        import plot_diagnostics  # beside this script
        getattr(plot_diagnostics, argv[1])(data, argv[3], save)
        return
    if argv[1] == "decay":
        stem, ext = os.path.splitext(argv[3])
        rope_decay(data, stem if ext in (".png", ".svg") else argv[3])
        return
    out = argv[3]
    os.makedirs(out, exist_ok=True)
    if argv[1] == "suite":
        import plot_suite  # beside this script
        plot_suite.randomized_gain(data, os.path.join(out, "randomized_gain"), save, colors)
        return
    val_accuracy(data, os.path.join(out, "val_loss" if language_model(data) else "val_accuracy"))
    if single_point(data):  # a length plot of one split at one length would be a column of dots: none (and no stale one)
        for ext in (".png", ".svg"):
            if os.path.exists(os.path.join(out, "length_extrapolation" + ext)):
                os.remove(os.path.join(out, "length_extrapolation" + ext))
    elif language_model(data):
        perplexity_extrapolation(data, os.path.join(out, "length_extrapolation"))
    elif one_length_per_split(data):
        split_extrapolation(data, os.path.join(out, "length_extrapolation"))
    else:
        length_extrapolation(data, os.path.join(out, "length_extrapolation"))
    if "rope_decay" in data:
        rope_decay(data["rope_decay"], os.path.join(out, "rope_decay"))
    if "statistics" in data:
        pairwise_heatmaps(data["statistics"], data["variants"], out)
    import plot_diagnostics  # beside this script
    for profile in data.get("offset_profiles", []):  # one seed per variant; absent in an older report
        if profile["available"]:
            plot_diagnostics.offsets(profile, os.path.join(out, f"offsets_{profile['variant']}"), save)
    for use in data.get("frequency_use", []):  # a rotary variant's first seed; absent in an older report
        if use["available"]:
            plot_diagnostics.frequencies(use, os.path.join(out, f"frequencies_{use['variant']}"), save)


if __name__ == "__main__":
    main(sys.argv)
