"""Plots of `rotor analyze attention`, `offsets`, `bias`, `passkey` and `frequencies`, drawn from the JSON rotor wrote
(never computed here); imported by plot_study.py, which owns the command line.

  attention: STEM_L<layer>_H<head>.png/.svg, a heatmap per map with the tokens on the axes
             (cells of `stride` slots when the window was downsampled)
  offsets:   STEM_L<layer>.png/.svg, attention mass against j - i, one curve per head
  passkey:   STEM.png/.svg, retrieval accuracy as a depth x length heatmap (n/a cells grey)
  frequencies: STEM_L<layer>.png/.svg, heads x frequency pairs heatmap of the mean |share| of q.k, and
             the mean q and k pair norms against the pair's frequency
"""
import matplotlib.pyplot as plt


def attention(data, stem, save):
    tokens = data["tokens"]
    for m in data["maps"]:
        grid, stride = m["probabilities"], m["stride"]
        size = min(12, 3 + 0.12 * len(grid))
        fig, ax = plt.subplots(figsize=(size + 1.5, size))
        image = ax.imshow(grid, cmap="viridis", vmin=0, aspect="equal", interpolation="nearest")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="attention probability")
        if stride == 1 and len(tokens) <= 96:
            ax.set_xticks(range(len(tokens)), tokens, fontsize=6, rotation=90)
            ax.set_yticks(range(len(tokens)), tokens, fontsize=6)
            ax.set_xlabel("key")
            ax.set_ylabel("query")
        else:
            ax.set_xlabel(f"key (cells of {stride} slots)")
            ax.set_ylabel(f"query (cells of {stride} slots)")
        ax.set_title(f"{data.get('position', '')} layer {m['layer']} head {m['head']} ({len(tokens)} slots)")
        save(fig, f"{stem}_L{m['layer']}_H{m['head']}")


def shown_name(data):
    """A study's variant ("rope-randomized"), else the analysed checkpoint's encoding."""
    return data.get("variant", data.get("position", ""))


def offsets(data, stem, save):
    xs = data["offsets"]
    for layer in data["layers"]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for head in layer["heads"]:
            ax.plot(xs, head["profile"], label=f"head {head['head']} (mean |j−i| {head['mean_distance']:.2f})")
        ax.set_xlabel("relative distance j − i (key − query)")
        ax.set_ylabel("mean attention mass")
        ax.set_title(f"{shown_name(data)} layer {layer['layer']}: attention against distance "
                     f"({data['windows']} windows of {data.get('split', '')}"
                     + (f", queries '{data['query']}')" if "query" in data else ")"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        save(fig, f"{stem}_L{layer['layer']}")


def bias(data, stem, save):
    """A learned bias against distance per head and the attention it alone gives, one row per layer."""
    layers = data["layers"]
    fig, axes = plt.subplots(len(layers), 2, figsize=(11, 3.4 * len(layers)), squeeze=False)
    heads = len(layers[0]["queries"][0]["bias"])
    for (left, right), layer in zip(axes, layers):
        for query, style in zip(layer["queries"], ("-", "--")):
            for h in range(heads):
                label = f"head {h}, query at {query['query_position']}"
                left.plot(query["distances"], query["bias"][h], style, color=f"C{h % 10}", label=label)
                right.plot(query["distances"], query["attention"][h], style, color=f"C{h % 10}", label=label)
        name = "all layers" if layer["layer"] == "all" else f"layer {layer['layer']}"
        left.set_title(f"{data['encoding']} bias, {name}")
        left.set_ylabel("bias added to the logit")
        right.set_title(f"attention from the bias alone, {name}")
        right.set_yscale("log")
        for ax in (left, right):
            ax.axvline(-(data["training_length"] - 1), color="grey", lw=0.8, ls=":")
            ax.set_xlabel("key - query")
            ax.grid(alpha=0.3)
    axes[0][1].legend(fontsize=7, ncol=2)
    save(fig, stem)


def passkey(data, stem, save):
    """Passkey accuracy per (depth, length); a length the model cannot read is n/a, as the JSON says why."""
    lengths, depths = data["lengths"], data["depths"]
    grid = [[float("nan")] * len(lengths) for _ in depths]
    for i, cell in enumerate(data["cells"]):
        if "accuracy" in cell:
            grid[i // len(lengths)][i % len(lengths)] = cell["accuracy"]
    fig, ax = plt.subplots(figsize=(2.5 + 0.9 * len(lengths), 1.8 + 0.5 * len(depths)))
    ax.set_facecolor("lightgrey")
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="exact-match accuracy")
    for d, row in enumerate(grid):
        for l, value in enumerate(row):
            ax.text(l, d, "n/a" if value != value else f"{value:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(lengths)), [str(n) for n in lengths])
    ax.set_yticks(range(len(depths)), [f"{d:g}" for d in depths])
    ax.axvline(sum(n <= data["training_length"] for n in lengths) - 0.5, color="black", lw=1, ls=":")
    ax.set_xlabel(f"window length in tokens (trained at {data['training_length']})")
    ax.set_ylabel("key depth (0: start, 1: end)")
    ax.set_title(f"{data['position']} passkey retrieval, {data['trials']} keys per cell")
    save(fig, stem)


def frequencies(data, stem, save):
    freqs = [p["frequency"] for p in data["pairs"]]
    for layer in data["layers"]:
        heads = layer["heads"]
        fig, (left, right) = plt.subplots(1, 2, figsize=(13, 1.5 + 0.5 * len(heads) + 3))
        image = left.imshow([h["mean_abs_share"] for h in heads], cmap="viridis", vmin=0, aspect="auto",
                            interpolation="nearest")
        fig.colorbar(image, ax=left, label="mean |share| of q·k")
        left.set_xlabel("frequency pair (fastest first)")
        left.set_ylabel("head")
        left.set_yticks(range(len(heads)), [str(h["head"]) for h in heads])
        # Unrotated pairs (frequency 0) sit left of every rotating one on a log axis: plot them at a floor.
        floor = min([f for f in freqs if f > 0], default=1.0) / 10
        xs = [f if f > 0 else floor for f in freqs]
        for h in heads:
            colour = f"C{h['head'] % 10}"
            right.plot(xs, h["q_norm"], "o-", color=colour, ms=3, label=f"head {h['head']} q")
            right.plot(xs, h["k_norm"], "x--", color=colour, ms=3, label=f"head {h['head']} k")
        right.set_xscale("log")
        unrotated = f"; unrotated pairs at {floor:.2g}" if 0 in freqs else ""
        right.set_xlabel(f"frequency (rad/token{unrotated})")
        right.set_ylabel("mean pair norm")
        right.grid(alpha=0.3)
        right.legend(fontsize=6, ncol=2)
        fig.suptitle(f"{shown_name(data)} layer {layer['layer']}: frequency use "
                     f"({data['windows']} windows of {data.get('split', '')})")
        save(fig, f"{stem}_L{layer['layer']}")
