"""Plots of `rotor analyze attention` and `rotor analyze offsets`, drawn from the JSON rotor wrote
(never computed here); imported by plot_study.py, which owns the command line.

  attention: STEM_L<layer>_H<head>.png/.svg, a heatmap per map with the tokens on the axes
             (cells of `stride` slots when the window was downsampled)
  offsets:   STEM_L<layer>.png/.svg, attention mass against j - i, one curve per head
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


def offsets(data, stem, save):
    xs = data["offsets"]
    for layer in data["layers"]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for head in layer["heads"]:
            ax.plot(xs, head["profile"], label=f"head {head['head']} (mean |j−i| {head['mean_distance']:.2f})")
        ax.set_xlabel("relative distance j − i (key − query)")
        ax.set_ylabel("mean attention mass")
        ax.set_title(f"{data.get('position', '')} layer {layer['layer']}: attention against distance "
                     f"({data['windows']} windows of {data.get('split', '')})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        save(fig, f"{stem}_L{layer['layer']}")
