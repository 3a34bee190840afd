"""ready: section program's first uses after the program was ready, one panel
per probed side on a shared axis of ms after ready.

What -- CMD stores of them (src/sections/program/: tally.c's pgt_put_uses,
conclude.c's pgc_ready_list): per probed side the run figures <side>.ready.at (ms after
the spawn), .ready.uses, .ready.stall, .ready.worst, and the derived
ready.<side>.<rank>: the slowest first uses after ready (the loads after
ready gathered per kind, named "(library loads)"), each its median stall in
ms (value), its median time after ready (field after_ms) and the runs it
came in. The first uses before ready are not stored with their times."""

import harness_json as hj

from .common import DPI, SERIES_STYLE, dnum, footer, of_first_run, place_labels, plain_log
from .program import MOMENTS, SIDE_COLORS, SIDES, kernel_label, program_runs, short_name, verdict

READY_NAMED = 3  # the largest stalls named on each side's panel
READY_AT = hj.Key("program", "<side>.ready.at")
READY_FIGURES = {k: hj.Key("program", "<side>.ready.%s" % k) for k in ("uses", "stall", "worst")}
FIRST_KERNEL = MOMENTS[2][0]                      # <side>.at.first_kernel
READY_USE = hj.Key("program", "ready.<side>.<i>", derived=True)
ANSWER_READY = hj.Key("program", "answer.ready", derived=True)
COMPARE_STALL = hj.Key("program", "compare.ready.stall", derived=True)


def ready_sides(r):
    """[(side, label)] of the probed sides of r's section program that have a
    ready mark or first uses after ready: the sides the environment names
    (program_side<N>_key and _label, bare sides left out), else the keys
    lazy, eager and default."""
    named, i = [], 1
    while r.env.get("program_side%d_key" % i):
        key = str(r.env["program_side%d_key" % i])
        if not key.startswith("bare."):
            named.append((key, str(r.env.get("program_side%d_label" % i) or key)))
        i += 1
    return [(side, label) for side, label in (named or SIDES)
            if READY_AT.med(r, side) is not None or READY_USE.get(r, side, 1)]


def has_first_uses(r):
    return bool(ready_sides(r))


def ready_uses(r, side):
    """[(after_ms, stall_ms, entry, is_load)] of side's stored first uses after
    ready (derived ready.<side>.1, .2, ... while there is one), slowest first."""
    out, k = [], 1
    while True:
        d = READY_USE.get(r, side, k)
        if d is None:
            return out
        a, v = dnum(d, "after_ms"), dnum(d, None)
        if a is not None and v is not None:
            out.append((a, v, d, str(d.get("name", "")).startswith("(")))
        k += 1


def ready_mark(r):
    """The ready mark's label and the first sentence of the harness's own
    (derived answer.ready), from what the run was given (--ready, stored as
    environment program_ready; --ready-after, program_ready_after_s)."""
    rx = r.env.get("program_ready")
    after = r.envnum("program_ready_after_s") or 0
    ans = ANSWER_READY.get(r)
    text = str(ans.get("text") or "") if ans else ""
    said = text.split(". ")[0].rstrip(".") + "." if text else ""
    fk = "the first kernel" + (" + %g s (--ready-after)" % after if after > 0 else "")
    if rx and not text.startswith("No line matched"):
        return "ready: a line matched %s" % rx, said
    if rx:
        return "ready: no line matched %s, so %s" % (rx, fk), said
    return "ready: %s%s" % (fk, "" if after > 0 else " (no --ready given)"), said


def ms3(v):
    """A time in ms to three significant figures, without an exponent: 0.0436, 6.14, 198, 59908."""
    return "%.0f" % v if abs(v) >= 100 else "%.3g" % v


def ready_extent(r, sides, uses):
    """(left, right, marks) of the shared axis of ms after ready: the stored
    first uses after ready with 0 (the mark) and a margin, widened to each
    side's first kernel where it is near; marks {side: the first kernel's
    median less ready's, or None}."""
    xs = [u[0] for us in uses.values() for u in us] + [0.0]
    span = (max(xs) - min(xs) or 1.0) if len(xs) > 1 else 100.0  # none after ready: 100 ms
    left, right = min(xs) - 0.03 * span, (max(xs) + 0.06 * span) if len(xs) > 1 else span
    marks = {}
    for side, _ in sides:
        at, fk = READY_AT.med(r, side), FIRST_KERNEL.med(r, side)
        off = marks[side] = fk - at if at is not None and fk is not None else None
        if off is not None and -0.25 * span <= off < left:
            left = off - 0.02 * span
        if off is not None and right < off <= 1.25 * span:
            right = off + 0.02 * span
    return left, right, marks


def stall_scale(uses):
    """(log, low, high) of the shared stall axis: log where the stalls span
    more than 30 times, else linear from 0."""
    pos = [u[1] for us in uses.values() for u in us if u[1] > 0]
    if pos and max(pos) / min(pos) > 30:
        return True, min(pos) / 2, max(pos) * 4
    return False, 0.0, (max(pos) * 1.3 if pos else 1.0)


def ready_title(r, side, label, us):
    """A side's panel title: the stored run figures ready.uses, .stall,
    .worst (medians), and how many of the first uses the file lists."""
    med = {k: key.med(r, side) for k, key in READY_FIGURES.items()}
    kern = sum(1 for u in us if not u[3])
    if med["uses"] is None:
        return "%s: %d first uses after ready stored" % (label, kern)
    t = "%s: %.0f first use%s after ready per run" % (label, med["uses"], "" if med["uses"] == 1 else "s")
    if med["stall"] is not None:
        t += ", %s ms of stalls with the loads" % ms3(med["stall"])
    if med["worst"] is not None and med["uses"] > 0:
        t += ", the worst %s ms" % ms3(med["worst"])
    t += " (medians over the runs)"
    if kern < med["uses"]:
        t += "; %d kernels shown: the file keeps the slowest %d entries" % (kern, len(us))
    return t


def mark_ready(ax, color, right, rlabel, off, left):
    """The request path shaded from the ready mark (0), the mark, and the
    first kernel at off (ms after ready) where it is in view or named at the left."""
    ax.axvspan(0, right, color=color, alpha=0.07, lw=0, label="after ready: the request path")
    ax.axvline(0, color="black", lw=1.6, label=rlabel)
    if off is not None and off != 0 and left <= off <= right:
        ax.axvline(off, color="0.35", lw=1, ls=":", label="first kernel (median)")
    elif off is not None and off < left:
        ax.annotate("\u2190 first kernel: %.0f ms before ready (medians)" % -off, (0.005, 0.04),
                    xycoords="axes fraction", fontsize=8, color="0.35",
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1))


def stems(ax, us, color, ylo):
    """Each use a stem to its stall, the kernels' and the loads' apart."""
    for is_load, marker, mcolor, mlabel in (
            (False, "o", color, "a kernel's first use: get + first launch (median)"),
            (True, "s", "0.45", "loads after ready, per kind (median of each load)")):
        pts = [(u[0], max(u[1], ylo)) for u in us if u[3] == is_load]
        if pts:
            ax.vlines([p[0] for p in pts], ylo, [p[1] for p in pts], color=mcolor, lw=1.2, alpha=0.8)
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=30, color=mcolor,
                       edgecolor="black", linewidth=0.5, zorder=3, label=mlabel)


def name_largest(fig, ax, us, ylo):
    """The READY_NAMED largest stalls numbered, and named right of the axes."""
    named = sorted(us, key=lambda u: -u[1])[:READY_NAMED]
    if not named:
        ax.text(0.5, 0.5, "no first use after ready", transform=ax.transAxes, ha="center",
                va="center", fontsize=10, color="0.3")
        return
    fig.canvas.draw()  # the transforms place_labels reads
    offs = place_labels(ax, fig, [(u[0], max(u[1], ylo)) for u in named])
    for i, (u, (dx, dy)) in enumerate(zip(named, offs)):
        ax.annotate(str(i + 1), (u[0], max(u[1], ylo)), xytext=(dx, dy), textcoords="offset points",
                    fontsize=8, va="center", weight="bold")
    ax.text(1.008, 0.0, "the largest stalls:\n" + "\n".join(
        "%d %s %s ms, at +%s" % (i + 1, kernel_label(u[2], 30), ms3(u[1]), ms3(u[0]))
        for i, u in enumerate(named)), transform=ax.transAxes, fontsize=7.5,
        family="monospace", va="bottom", ha="left")


def ready_panel(fig, ax, us, color, extent, scale, rlabel, off):
    """One side's first uses after ready on ax: the request path shaded from
    the ready mark (0), the first kernel at off (ms after ready) where it is
    in view or named at the left, each use a stem to its stall, loads apart,
    the READY_NAMED largest stalls numbered and named right of the axes."""
    (left, right), (log, ylo, yhi) = extent, scale
    mark_ready(ax, color, right, rlabel, off, left)
    stems(ax, us, color, ylo)
    if log:
        ax.set_yscale("log")
        plain_log(ax, "y", minor=False)
    ax.set_ylim(ylo, yhi)
    ax.set_xlim(left, right)
    name_largest(fig, ax, us, ylo)
    ax.set_ylabel("stall (ms%s)" % (", log" if log else ""))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1))


def ready_suptitle(r, said):
    """The figure's title: what it shows, the harness's answer and its verdict on the stalls."""
    cmp = COMPARE_STALL.get(r)
    sub = [t for t in (said, "Stalls after ready, %s: %s." % (str(cmp.get("name", "")).split(",")[0],
                                                              verdict(cmp)) if cmp else "") if t]
    return ("First uses after the program was ready: when each came, how long it stalled"
            + ("\n" + " ".join(sub) if sub else ""))


def fig_first_uses(plt, r):
    """One panel per probed side, sharing both axes: each stored first use
    after ready at its median time after ready, its median stall as a stem,
    the ready mark at 0 (ready_panel)."""
    sides = ready_sides(r)
    uses = {side: ready_uses(r, side) for side, _ in sides}
    left, right, marks = ready_extent(r, sides, uses)
    scale = stall_scale(uses)
    rlabel, said = ready_mark(r)
    fig, axs = plt.subplots(len(sides), 1, figsize=(14, 1.6 + 2.7 * len(sides)), dpi=DPI,
                            sharex=True, sharey=True, squeeze=False)
    for n, (ax, (side, label)) in enumerate(zip((a[0] for a in axs), sides)):
        color = SIDE_COLORS.get(side) or SERIES_STYLE[n % len(SERIES_STYLE)][0]
        ready_panel(fig, ax, uses[side], color, (left, right), scale, rlabel, marks[side])
        ax.set_title(ready_title(r, side, label, uses[side]), fontsize=10, loc="left")
    axs[-1][0].set_xlabel("ms after ready (each first use's median time after its run's ready mark, "
                          "over the runs it came in); first uses before ready are not stored with "
                          "their times")
    fig.suptitle(ready_suptitle(r, said), fontsize=11)
    fig.tight_layout(rect=(0, 0.025, 1, 1))
    cmd = r.env.get("program_command")
    rounds = program_runs(r)
    footer(fig, r, "%s%s" % ("; program: %s" % short_name(cmd, 70) if cmd else "",
                             "; %d runs a side" % rounds if rounds else ""))
    return fig, "after ready: %s listed" % ", ".join("%s %d" % (label, len(uses[side]))
                                                    for side, label in sides)


FIGURES = (
    of_first_run("first-uses.png", has_first_uses, fig_first_uses,
                 "no first uses after ready in the files (-- CMD: <side>.ready.at and derived "
                 "ready.<side>.N; a file from before --ready has none)"),
)
