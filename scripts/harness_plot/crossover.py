"""crossover: section crossover's CPU, kernel and round trips against n, log-log,
with the n where each GPU curve crosses the CPU's."""

import math

import harness_json as hj

from .common import DPI, commas, footer, of_first_run, sweep

CPU = hj.Key("crossover", "n=<N>.cpu")
KERNEL = hj.Key("crossover", "n=<N>.kernel")
SERIES = (
    (CPU, "CPU, one thread", "tab:gray", "o"),
    (KERNEL, "kernel alone (events)", "tab:green", "s"),
    (hj.Key("crossover", "n=<N>.rt_pageable"), "round trip, pageable (copy in, kernel, copy back)",
     "tab:red", "^"),
    (hj.Key("crossover", "n=<N>.rt_pinned"), "round trip, pinned", "tab:blue", "v"),
)


def crossing(a, b):
    """The first n where curve b falls below curve a (both [(n, t)], the same
    n's), interpolated on log-log axes; 0 when b is below a from the first n,
    None when it never falls below."""
    da = dict(a)
    pts = [(n, da[n], t) for n, t in b if n in da]
    if pts and pts[0][2] < pts[0][1]:
        return 0
    for (n0, a0, b0), (n1, a1, b1) in zip(pts, pts[1:]):
        if b0 >= a0 and b1 < a1:
            d0 = math.log(b0) - math.log(a0)
            d1 = math.log(b1) - math.log(a1)
            f = d0 / (d0 - d1)
            return math.exp(math.log(n0) + f * (math.log(n1) - math.log(n0)))
    return None


def has_crossover(r):
    return len(sweep(r, CPU)) >= 2 and len(sweep(r, KERNEL)) >= 2


def mark_crossing(ax, x, short, color, nlab):
    """A dotted line at x, where the GPU curve short first beats the CPU,
    and its label, stacked nlab high above close ones."""
    ax.axvline(x, color=color, linestyle=":", alpha=0.8)
    x2 = round(x, 1 - int(math.floor(math.log10(x))))
    ax.annotate(
        "%s beats\nthe CPU from\nn = %s" % (short, commas(x2)),
        (x, 0.03 + 0.14 * nlab),
        xycoords=("data", "axes fraction"),
        xytext=(4, 0),
        textcoords="offset points",
        fontsize=8,
        color=color,
        ha="left",
        va="bottom",
        bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1),
    )


def draw_series(ax, r, cpu):
    """Each series against n; where a GPU curve crosses the CPU's, marked."""
    nlab, last = 0, None
    for key, label, color, marker in SERIES:
        pts = sweep(r, key)
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, label=label)
        if key is CPU:
            continue
        short = label.split(" (")[0]
        x = crossing(cpu, pts)
        if x == 0:
            ax.plot([], [], " ", label="  (%s beats the CPU at every n here)" % short)
        elif x:
            nlab = (
                nlab + 1 if last and abs(math.log(x / last)) < math.log(5) else 0
            )  # stack close ones
            last = x
            mark_crossing(ax, x, short, color, nlab)
        else:
            ax.plot([], [], " ", label="  (%s never beats the CPU here)" % short)


def fig_crossover(plt, r):
    """Log-log times against n; a dotted line where each GPU curve first
    drops below the CPU's."""
    fig, ax = plt.subplots(figsize=(9, 6), dpi=DPI)
    ax.set_xscale("log")
    ax.set_yscale("log")
    cpu = sweep(r, CPU)
    draw_series(ax, r, cpu)
    ax.set_xlabel(
        "n (floats per vector); dotted: where a GPU curve crosses the CPU's, "
        "interpolated between the measured sizes"
    )
    ax.set_ylabel("time (ms, median, warm)")
    ax.set_title("Crossover: one vector add, CPU against GPU", fontsize=11)
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footer(fig, r)
    return fig, "%d sizes" % len(cpu)


FIGURES = (
    of_first_run("crossover.png", has_crossover, fig_crossover,
                 "no crossover sweep (n=N.cpu and n=N.kernel at 2 sizes or more; section crossover)"),
)
