"""waterfall: section stopwatches' row 1, the whole process, taken apart step by step."""

import harness_json as hj

from .common import DPI, commas, footer, num_ok, of_first_run

ROW1 = hj.Key("stopwatches", "row1")
STEPS = hj.Key("stopwatches", "waterfall.", start=True)
ROW4 = hj.Key("stopwatches", "row4")


def has_waterfall(r):
    return ROW1.med(r) is not None and any(hj.median(m) is not None for _, m in STEPS.find(r))


def draw_steps(ax, steps, total):
    """Each step a bar starting where the one above ended, its time and
    share beside it; the total (row 1) below them. Returns the labels."""
    start = 0.0
    labels = []
    for i, (m, v) in enumerate(steps):
        parent = str(m.get("region", "")).startswith("parent")
        ax.barh(i, v, left=start, color="tab:gray" if parent else "tab:blue", height=0.7)
        ax.text(
            start + v + total * 0.005,
            i,
            "%.3f ms  %.1f%%" % (v, 100.0 * v / total),
            va="center",
            fontsize=8,
        )
        labels.append(m.get("name", m["key"]))
        start += v
    i = len(steps)
    ax.barh(i, total, color="tab:red", height=0.7)
    ax.text(total * 1.005, i, "%.3f ms" % total, va="center", fontsize=8)
    labels.append("total: row 1, wall clock, whole process")
    return labels


def fig_waterfall(plt, r):
    """Row 1 as a waterfall: each step a bar starting where the one above
    ended, the total at the bottom; steps the parent timed in their own colour."""
    from matplotlib.patches import Patch

    total = ROW1.med(r)
    steps = [(m, hj.median(m)) for _, m in STEPS.find(r)]
    steps = [(m, v) for m, v in steps if v is not None]
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.34 * (len(steps) + 1)), dpi=DPI)
    labels = draw_steps(ax, steps, total)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, total * 1.17)
    ax.set_xlabel("time since posix_spawn (ms, host clock)")
    row4 = ROW4.get(r)
    what = (
        " (one vectorAdd over %s floats)" % commas(row4["n"])
        if row4 and num_ok(row4.get("n")) and row4["n"] > 0
        else ""
    )
    ax.set_title("Where the whole process's %.1f ms went%s" % (total, what), fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(
        handles=[
            Patch(color="tab:blue", label="timed by the child"),
            Patch(color="tab:gray", label="timed by the parent (process exit)"),
            Patch(color="tab:red", label="row 1"),
        ],
        loc="upper right",
        fontsize=8,
    )
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footer(fig, r)
    return fig, "%d steps of row 1 (%.1f ms)" % (len(steps), total)


FIGURES = (
    of_first_run("waterfall.png", has_waterfall, fig_waterfall,
                 "no stopwatches waterfall (row1 and waterfall.* keys; section stopwatches)"),
)
