"""program: section program (-- CMD, the user's own program): the cold start
per probed side as a timeline from the spawn, device memory per side, and
the slowest first uses.

Its run figures are keyed <side>.<figure>, side lazy, eager or default
(probed) and bare.<side> (the same without the probe); its conclusions
compare.<figure>, probe_cost.<side>.<figure>, slowest.<side>.<rank>
(src/sections/program/: tally.c and conclude.c)."""

import harness_json as hj

from .common import DPI, MODE_COLORS, dnum, footer, interval, median, num_ok, of_first_run

SIDES = (("lazy", "LAZY"), ("eager", "EAGER"), ("default", "as set"))
SIDE_COLORS = {"lazy": MODE_COLORS["LAZY"], "eager": MODE_COLORS["EAGER"], "default": "tab:gray"}
WALL = hj.Key("program", "<side>.wall")
# The moments after the spawn, in order, and the stretch that ends at each.
MOMENTS = (
    (hj.Key("program", "<side>.at.probe"), "probe loaded (first cuInit)", "o",
     "spawn to first cuInit: interpreter and imports", "0.8"),
    (hj.Key("program", "<side>.at.context"), "first context", "s", "cuInit to context", "tab:red"),
    (hj.Key("program", "<side>.at.first_kernel"), "first kernel", "D",
     "context to first kernel (module loads)", "tab:purple"),
    (hj.Key("program", "<side>.at.exit"), "exit handler", "^",
     "after the first kernel: the program's work", "tab:green"),
    (WALL, "process exit (wall)", "v", "exit handler to process exit", "tab:olive"),
)
# The time inside the driver's calls a side's row names: (ms, calls), words.
INSIDE = tuple((hj.Key("program", "<side>.%s.ms" % k), hj.Key("program", "<side>.%s.n" % k), what)
               for k, what in (("library_load", "library loads"),
                               ("kernel_function", "kernel-to-function gets"),
                               ("launch_first", "first launches")))
MEM_FIRST = hj.Key("program", "<side>.mem.first_kernel")
MEM_PEAK = hj.Key("program", "<side>.mem.peak")
SLOWEST = hj.Key("program", "slowest.<side>.<i>", derived=True)
PROBE_COST_WALL = hj.Key("program", "probe_cost.<side>.wall", derived=True)
PROBE_COST_MEM = hj.Key("program", "probe_cost.<side>.mem.peak", derived=True)
COMPARE_FIRST_KERNEL = hj.Key("program", "compare.at.first_kernel", derived=True)


def program_sides(r):
    """[(side, label)] of the sides in r's section program: a probed side
    with any figure, or its bare side's wall; in table order."""
    out = []
    for side, label in SIDES:
        if any(m[0].med(r, side) is not None for m in MOMENTS) or \
                WALL.med(r, "bare." + side) is not None:
            out.append((side, label))
    return out


def has_program(r):
    return bool(program_sides(r))


def short_name(name, width=40):
    """A kernel symbol cut to width characters, an ellipsis where cut."""
    name = str(name)
    return name if len(name) <= width else name[: width - 1] + "\u2026"


def program_runs(r):
    """The runs of each probed side of a -- CMD file: the rounds taken (the
    stopping rule can take more than --rounds), or --rounds in a file from
    before the rule."""
    return r.envnum("program_rounds_taken") or r.envnum("program_rounds")


def kernel_label(d, width=40):
    """A slowest first use's kernel as people read it: its text, the name
    demangled by the harness (a file from before that held the side's label
    there: its name), without "void " and the parameter list, cut to width."""
    text = str(d.get("text") or "")
    if not text or text in ("LAZY", "EAGER", "as set"):
        return short_name(d.get("name"), width)
    if text.startswith("void "):
        text = text[5:]
    i = text.find("(")
    while i > 0 and text.startswith("(anonymous namespace)", i):
        i = text.find("(", i + 21)
    return short_name(text[:i] if i > 0 else text, width)


def verdict(d):
    """ "EAGER higher (p = 0.008)" of a derived compare or probe_cost entry; "" without one."""
    if not d or not d.get("text"):
        return ""
    p = dnum(d, "p")
    text = str(d["text"])
    return text + (" (p = %.2g)" % p if p is not None and not text.startswith("out of reach") else "")


def at(r, key, *parts):
    """(median, interval or None) of a program measurement, or None."""
    m = key.get(r, *parts)
    v = median(m)
    return None if v is None else (v, interval(m))


def err(v):
    """The error bar of (median, interval) v, or None without an interval."""
    return None if not v[1] else [[max(v[0] - v[1][0], 0)], [max(v[1][1] - v[0], 0)]]


def slowest(r):
    """(side, [derived slowest.<side>.1, .2, ... up to 10]) of the first side
    that has them (LAZY's, as set, EAGER's), or (None, [])."""
    side = next((s for s in ("lazy", "default", "eager") if SLOWEST.get(r, s, 1)), None)
    slow = []
    if side:
        i = 1
        while SLOWEST.get(r, side, i) and i <= 10:
            slow.append(SLOWEST.get(r, side, i))
            i += 1
    return side, slow


def row_moments(ax, r, y, side, seen):
    """One side's stretches and moments on the timeline at y. seen: the
    legend's stretches and moments so far. Returns (right end, any interval)."""
    start, right, bars = 0.0, 0.0, False
    for i, (key, mlabel, marker, slabel, color) in enumerate(MOMENTS):
        v = at(r, key, side)
        if v is None:
            start = None
            continue
        if start is not None and v[0] > start:
            ax.barh(y, v[0] - start, left=start, height=0.42, color=color, alpha=0.75,
                    label=None if slabel in seen[0] else slabel, zorder=1)
            seen[0].add(slabel)
        start = v[0] if start is None else max(start, v[0])
        e = err(v)
        bars = bars or e is not None
        ax.errorbar([v[0]], [y + (i - 2) * 0.05], xerr=e, fmt=marker, color="black", markersize=6,
                    capsize=3, zorder=3, label=None if mlabel in seen[1] else mlabel)
        seen[1].add(mlabel)
        right = max(right, v[1][1] if v[1] else v[0])
    return right, bars


def row_exit(ax, r, y, side, right, seen):
    """The bare run's exit on side's row, and the exits and the probe's
    cost in words right of it. Returns (right end, any interval)."""
    wall, bare, bars = at(r, WALL, side), at(r, WALL, "bare." + side), False
    if bare:
        e = err(bare)
        bars = e is not None
        ax.errorbar([bare[0]], [y - 0.3], xerr=e, fmt="v", mfc="white", color="0.3", markersize=6,
                    capsize=3, zorder=3,
                    label=None if "bare" in seen[1] else "process exit, bare (no probe)")
        seen[1].add("bare")
        right = max(right, bare[1][1] if bare[1] else bare[0])
    if wall or bare:
        lines = ["exit %.0f ms" % wall[0]] if wall else []
        if bare:
            lines.append("bare %.0f ms" % bare[0])
        pc = PROBE_COST_WALL.get(r, side)
        if pc and dnum(pc, "pct_of_bare") is not None:
            lines[-1] += ", probe %+.1f%%" % dnum(pc, "pct_of_bare")
            lines.append("(%s)" % str(pc.get("text", "")).split(" (")[0])
        ax.text(right, y - 0.1, "\n".join("  " + t for t in lines), va="center", ha="left", fontsize=8)
    return right, bars


def row_inside(ax, r, y, side):
    """The time a side spent inside the driver's calls, in words above its row."""
    inside = []
    for ms_key, n_key, what in INSIDE:
        ms, n = ms_key.med(r, side), n_key.med(r, side)
        if ms is not None:
            inside.append("%s %.1f ms%s" % (what, ms, " (%d calls)" % n if n is not None else ""))
    if inside:
        ax.text(0, y + 0.38, "  time inside: " + ", ".join(inside), va="center", ha="left",
                fontsize=8, color="0.25")


def panel_timeline(ax, r, sides):
    """Panel 1: the timeline, one row per side. Returns (the stretches'
    labels, any interval drawn)."""
    seen, right, bars = (set(), set()), 0.0, False
    for y, (side, label) in enumerate(sides):
        row_right, b1 = row_moments(ax, r, y, side, seen)
        row_right, b2 = row_exit(ax, r, y, side, row_right, seen)
        bars = bars or b1 or b2
        right = max(right, row_right)
        row_inside(ax, r, y, side)
    ax.set_yticks(range(len(sides)))
    ax.set_yticklabels([s[1] for s in sides])
    ax.set_ylim(len(sides) - 0.45, -0.6)
    ax.set_xlim(0, right * 1.28 if right > 0 else 1)
    ax.set_xlabel("ms after the program's spawn (medians over the runs; the probe's records and the "
                  "parent's clock)")
    ax.grid(axis="x", alpha=0.3)
    return seen[0], bars


def timeline_legends(ax, lg, stretches):
    """The timeline's legend right of it: the stretches above, the moments below."""
    handles, labels = ax.get_legend_handles_labels()
    pick = [(h, lab) for h, lab in zip(handles, labels) if lab in stretches]
    leg = lg.legend([p[0] for p in pick], [p[1] for p in pick], fontsize=8, loc="upper left",
                    title="stretches (medians)", title_fontsize=8, alignment="left")
    lg.add_artist(leg)
    pick = [(h, lab) for h, lab in zip(handles, labels) if lab not in stretches]
    lg.legend([p[0] for p in pick], [p[1] for p in pick], fontsize=8, loc="lower left",
              title="moments: median and interval\n(staggered to keep them apart)",
              title_fontsize=8, alignment="left")


def timeline_title(r):
    """The timeline's title, with the verdict on the first kernel."""
    cmp = COMPARE_FIRST_KERNEL.get(r)
    title = "The program's cold start, from the spawn"
    if cmp:
        f = cmp.get("fields") or {}
        title += "; before the first kernel: %s" % verdict(cmp)
        if num_ok(f.get("lazy_median")) and num_ok(f.get("eager_median")):
            title += "; LAZY %.0f ms, EAGER %.0f ms" % (f["lazy_median"], f["eager_median"])
    return title


MEM_KINDS = ((MEM_FIRST, "", "at the first kernel", dict(alpha=0.5)),
             (MEM_PEAK, "", "peak", dict()),
             (MEM_PEAK, "bare.", "peak, bare (no probe)", dict(fill=False, hatch="//")))


def memory_bars(am, r, x, side, w, drawn, top):
    """One side's memory bars (at the first kernel, the peak, the bare peak)
    at x, and the probe's cost above them. Returns (top, any interval)."""
    bars = False
    for j, (key, pre, klabel, style) in enumerate(MEM_KINDS):
        v = at(r, key, pre + side)
        if v is None:
            continue
        e = err(v)
        if e and (e[0][0] > 0 or e[1][0] > 0):
            bars = True
        c = SIDE_COLORS[side]
        am.bar([x + (j - 1) * w], [v[0]], w * 0.95, yerr=e, capsize=3, color=c, edgecolor=c, **style)
        am.text(x + (j - 1) * w, v[1][1] if v[1] else v[0], "%.0f" % v[0], ha="center",
                va="bottom", fontsize=8)
        drawn.add(j)
        top = max(top, v[1][1] if v[1] else v[0])
    pc = PROBE_COST_MEM.get(r, side)
    if pc and dnum(pc, None) is not None:
        am.text(x + 0.5 * w, top * 1.1 if top else 1, "probe: %+.0f MiB\n(%+.1f%%)"
                % (dnum(pc, None), dnum(pc, "pct_of_bare") or 0), ha="center", va="bottom",
                fontsize=8, color="0.3")
    return top, bars


def panel_memory(am, r, sides):
    """Panel 2: device memory per side. Returns whether an interval was drawn."""
    from matplotlib.patches import Patch

    w, top, drawn, bars = 0.26, 0.0, set(), False
    for x, (side, label) in enumerate(sides):
        top, b = memory_bars(am, r, x, side, w, drawn, top)
        bars = bars or b
    if drawn:
        am.set_ylim(0, top * 1.35)
        patches = (Patch(facecolor="0.5", alpha=0.5, label=MEM_KINDS[0][2]),
                   Patch(facecolor="0.5", label=MEM_KINDS[1][2]),
                   Patch(fill=False, hatch="//", edgecolor="0.3", label=MEM_KINDS[2][2]))
        am.legend(handles=[p for j, p in enumerate(patches) if j in drawn], fontsize=8,
                  loc="upper left")
    else:
        am.text(0.5, 0.5, "no device memory figures in the file\n(NVML gave none)",
                ha="center", va="center", transform=am.transAxes, fontsize=9)
    am.set_xticks(range(len(sides)))
    am.set_xticklabels([s[1] for s in sides])
    am.set_xlim(-0.6, len(sides) - 0.4)
    am.set_ylabel("device memory (MiB, NVML, the run's processes)")
    am.set_title("Device memory: at the first kernel and at the peak", fontsize=10)
    am.grid(axis="y", alpha=0.3)
    return bars


def slowest_bars(sl, slow, side, theirs, h):
    """Each slow first use's get and first launch as a bar, the same
    kernel's under the other side beside it."""
    c, other, named = SIDE_COLORS[side], "eager" if side != "eager" else "lazy", set()

    def once(label):
        """label the first time it is asked for, then None (one legend entry each)."""
        if label in named:
            return None
        named.add(label)
        return label

    for y, d in enumerate(slow):
        g, la, v = dnum(d, "get_ms") or 0.0, dnum(d, "launch_ms"), dnum(d, None) or 0.0
        if la is None:
            la = max(v - g, 0.0)
        if g > 0:
            sl.barh(y, g, h, color=c, label=once("get (cuKernelGetFunction and the like)"))
        sl.barh(y, la, h, left=g, color=c, alpha=0.55, label=once("first launch"))
        sl.text(v, y, " %.2f ms" % v, va="center", fontsize=8)
        o = theirs.get(str(d.get("name")))
        if o and dnum(o, None) is not None:
            sl.barh(y + h, dnum(o, None), h, color=SIDE_COLORS[other], alpha=0.8,
                    label=once("the same kernel under %s" % other.upper()))
            sl.text(dnum(o, None), y + h, " %.2f ms" % dnum(o, None), va="center", fontsize=7,
                    color="0.3")


def panel_slowest(sl, r, side, slow):
    """Panel 3: the slowest first uses of side, the other side's beside them."""
    other = "eager" if side != "eager" else "lazy"
    theirs = {str(d.get("name")): d for parts, d in SLOWEST.find(r) if parts[0] == other}
    ys = list(range(len(slow)))
    h = 0.4 if theirs else 0.7
    slowest_bars(sl, slow, side, theirs, h)
    sl.set_yticks([y + (h / 2 if theirs else 0) for y in ys])
    sl.set_yticklabels([kernel_label(d) for d in slow], fontsize=8, family="monospace")
    sl.invert_yaxis()
    vmax = max([dnum(d, None) or 0 for d in slow] + [dnum(d, None) or 0 for d in theirs.values()])
    sl.set_xlim(0, vmax * 1.25 if vmax > 0 else 1)
    sl.set_xlabel("ms, host time (median over the runs the kernel was in)")
    sl.set_title("%s: the slowest first uses (get + first launch)" % dict(SIDES)[side], fontsize=10)
    sl.grid(axis="x", alpha=0.3)
    sl.legend(fontsize=8, loc="lower right")


def fig_program(plt, r):
    """Two or three panels of a -- CMD run: the cold start per probed side as
    a timeline from the spawn (each moment's median and interval), device
    memory per side (at the first kernel, the peak, the bare peak), and the
    slowest first uses under LAZY when the file has them."""
    sides = program_sides(r)
    slow_side, slow = slowest(r)
    fig = plt.figure(figsize=(14, 9.5), dpi=DPI)
    gs = fig.add_gridspec(2, 2 if slow else 1, height_ratios=[1.15, 1],
                          width_ratios=[1, 1.25] if slow else [1])
    top_gs = gs[0, :].subgridspec(1, 2, width_ratios=[3.4, 1], wspace=0.02)
    ax = fig.add_subplot(top_gs[0])
    lg = fig.add_subplot(top_gs[1])
    lg.axis("off")
    am = fig.add_subplot(gs[1, 0])
    stretches, bars = panel_timeline(ax, r, sides)
    timeline_legends(ax, lg, stretches)
    ax.set_title(timeline_title(r), fontsize=11)
    bars = panel_memory(am, r, sides) or bars
    if slow:
        panel_slowest(fig.add_subplot(gs[1, 1]), r, slow_side, slow)
    fig.tight_layout(rect=(0, 0.025, 1, 1))
    cmd = r.env.get("program_command")
    rounds = program_runs(r)
    footer(fig, r, "%s%s%s" % (
        "; program: %s" % short_name(cmd, 70) if cmd else "",
        "; %d runs a side" % rounds if rounds else "",
        "; bars: 95% interval of the median (the range below 6 runs)" if bars else ""))
    what = ", ".join(s[1] for s in sides)
    if rounds:
        what += ", %d runs a side" % rounds
    return fig, what


FIGURES = (
    of_first_run("program.png", has_program, fig_program,
                 "no section program in the files (-- CMD: <side>.wall and <side>.at.* keys, side "
                 "lazy, eager or default)"),
)
