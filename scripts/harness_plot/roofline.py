"""roofline: every warm measurement with a byte and flop model under
min(FP32 peak, intensity x copy floor), as the harness's roofline table."""

import harness_json as hj

from .common import DPI, SECTION_COLORS, commas, dnum, footer, median, num_ok, of_first_run, place_labels
from .fusion import MAIN

COPY_FLOOR = hj.Key("fusion", "copy_floor", derived=True)


def copy_roof(r):
    """(GB/s, n) of the copy floor section fusion stored (derived copy_floor:
    the best copy with buffers of at least 4x the L2, as the harness's table
    takes it); (None, None) when the file holds none."""
    d = COPY_FLOOR.get(r)
    return (dnum(d, None), dnum(d, "n")) if dnum(d, None) else (None, None)


def roof_points(r):
    """[(measurement, intensity flops/B, achieved GFLOP/s)]: every warm ms
    measurement with a byte and flop model, fusion at its main size only."""
    out = []
    for (s, k), m in r.meas.items():
        f, b, t = m.get("flops"), m.get("bytes"), median(m)
        if not (num_ok(f) and f > 0 and num_ok(b) and b > 0 and t and t > 0):
            continue
        if m.get("unit") != "ms" or m.get("state") != "warm":
            continue
        if s == MAIN.section and MAIN.match(k) is None:
            continue
        out.append((m, f / b, f / t / 1e6))
    return out


def has_roofline(r):
    return copy_roof(r)[0] is not None and r.envnum("fp32_peak_gflops") and roof_points(r)


def draw_roofs(ax, lo, hi, peak, floor, floor_n):
    """The attainable line min(peak, intensity x floor), the memory and
    compute roofs and the ridge."""
    ridge = peak / floor
    xs = [lo * (hi / lo) ** (i / 200.0) for i in range(201)]
    ax.plot(xs, [min(peak, x * floor) for x in xs], color="k", linewidth=2.5, label="attainable",
            zorder=2)
    ax.plot([lo, hi], [lo * floor, hi * floor], color="tab:red", linestyle="--", linewidth=1,
            zorder=1,
            label="memory roof: the copy floor, %.1f GB/s (copy at n = %s)" % (floor, commas(floor_n)))
    ax.axhline(peak, color="tab:purple", linestyle="--", linewidth=1, zorder=1,
               label="compute roof: FP32 peak, %.0f GFLOP/s" % peak)
    ax.axvline(ridge, color="0.6", linestyle=":", linewidth=1,
               label="ridge: %.1f flops per byte" % ridge)


def draw_points(ax, pts):
    """Each kernel a point in its section's colour, one legend entry a section."""
    seen = set()
    for m, ai, ach in pts:
        s = m["section"]
        ax.scatter([ai], [ach], color=SECTION_COLORS.get(s, "tab:gray"), zorder=3, s=25,
                   label=None if s in seen else "section %s" % s)
        seen.add(s)


def number_points(ax, fig, pts, peak, floor):
    """Each point's number beside it; returns the key's lines: number,
    section, kernel, n, intensity, GFLOP/s and the share of its roof."""
    offs = place_labels(ax, fig, [(p[1], p[2]) for p in pts])
    lines = ["%-3s %-11s %-34s %11s %7s %9s %6s"
             % ("", "section", "kernel", "n", "flops/B", "GFLOP/s", "% roof")]
    for i, ((m, ai, ach), off) in enumerate(zip(pts, offs), 1):
        ax.annotate(
            str(i), (ai, ach), xytext=off, textcoords="offset points", fontsize=7, va="center",
            color=SECTION_COLORS.get(m["section"], "k"),
            bbox=dict(boxstyle="square,pad=0.05", facecolor="white", edgecolor="none", alpha=0.8),
            arrowprops=(
                dict(arrowstyle="-", color="0.6", linewidth=0.5, shrinkA=0, shrinkB=3)
                if abs(off[1]) > 3 or off[0] > 7
                else None
            ),
        )
        att = min(peak, ai * floor)
        name = str(m.get("name", m["key"]))
        lines.append("%-3d %-11s %-34s %11s %7.3f %9.1f %6.1f"
                     % (i, m["section"], name[:34], commas(m["n"]) if num_ok(m.get("n")) else "?",
                        ai, ach, 100.0 * ach / att))
    return lines


def fig_roofline(plt, r):
    """Log-log GFLOP/s against flops per byte; the roof min(peak, intensity
    x floor); each kernel a numbered point, the numbers named at the right."""
    floor, floor_n = copy_roof(r)
    peak = r.envnum("fp32_peak_gflops")
    pts = roof_points(r)
    fig = plt.figure(figsize=(14, 7), dpi=DPI)
    ax = fig.add_axes([0.065, 0.09, 0.49, 0.84])
    key = fig.add_axes([0.575, 0.09, 0.42, 0.84])
    key.axis("off")
    lo = min(p[1] for p in pts) / 3
    hi = max(peak / floor * 4, max(p[1] for p in pts) * 3)
    draw_roofs(ax, lo, hi, peak, floor, floor_n)
    draw_points(ax, pts)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(p[2] for p in pts) / 3, peak * 3)
    ax.set_xlabel("arithmetic intensity (flops per byte of the kernel's byte model)")
    ax.set_ylabel("GFLOP/s (the model's flops over the median, warm)")
    ax.set_title("Roofline: every kernel with a byte and flop model (warm, medians)", fontsize=11)
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    lines = number_points(ax, fig, pts, peak, floor)
    key.text(0, 1, "\n".join(lines), family="monospace", fontsize=7.5, va="top", ha="left",
             transform=key.transAxes)
    key.text(0, 0, "%% roof: achieved over min(peak, intensity x floor).\nPeak: %s."
             % r.env.get("fp32_peak_source", "?"), fontsize=8, va="bottom", transform=key.transAxes)
    footer(fig, r)
    return fig, "%d kernels" % len(pts)


FIGURES = (
    of_first_run("roofline.png", has_roofline, fig_roofline,
                 "no roofline data (the FP32 peak in the environment, the copy floor section fusion "
                 "stored, derived copy_floor, and kernels with a byte and flop model; a file from "
                 "before derived entries has no floor)"),
)
