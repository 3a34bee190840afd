"""fusion: section fusion's n sweep (times, staged/fused against the byte and
launch ratios, GB/s against the copy floor) and its fused-wide<K> versions.

Both read the section's stored facts and conclusions (the JSON's "derived"
entries, src/sections/fusion/fusion.h): its versions, sizes, predictions
and copy floors; a file without them is skipped."""

import harness_json as hj

from .common import DPI, SERIES_STYLE, commas, dnum, footer, gbs, num_ok, of_first_run, sweep

N_ANY = hj.Key("fusion", "n=<N>.", start=True)        # n=<N>.<version>
N_STAGED = hj.Key("fusion", "n=<N>.staged")
MAIN = hj.Key("fusion", "main.", start=True)           # main.<version>
MAIN_FUSED = hj.Key("fusion", "main.fused")
OCCUPANCY = hj.Key("fusion", "width.<N>.occupancy")
REGS = hj.Key("fusion", "width.<N>.regs")
BLOCKS = hj.Key("fusion", "width.<N>.blocks")
VERSION = hj.Key("fusion", "version.<word>", derived=True)
SWEEP = hj.Key("fusion", "sweep.n=<N>", derived=True)
PREDICTIONS = hj.Key("fusion", "predictions", derived=True)
FLOOR_N = hj.Key("fusion", "floor.n=<N>", derived=True)
FLOOR_MAIN = hj.Key("fusion", "floor.main", derived=True)


def fusion_versions(r, field):
    """The fusion versions (derived version.<key>) with a non-zero field, in
    table order: [(key, entry)]."""
    return [(parts[0], d) for parts, d in VERSION.find(r) if dnum(d, field)]


def fusion_sweep_ns(r):
    """The n of the stored sweep readings (sweep.n=N), sorted."""
    return sorted(int(dnum(d, "n")) for _, d in SWEEP.find(r) if dnum(d, "n"))


def has_fusion_n(r):
    return (
        len(fusion_sweep_ns(r)) >= 2
        and PREDICTIONS.get(r) is not None
        and len(sweep(r, N_STAGED)) >= 2
    )


def best_copy(r, n):
    """(ms, GB/s) of the stored copy floor at n, or (None, None)."""
    d = FLOOR_N.get(r, n)
    return (dnum(d, "ms"), dnum(d, None))


def panel_times(ax, r, series, ns):
    """Each swept version's time against n, and the copy floor's."""
    for suffix, label, color, marker in series:
        pts = sweep(r, N_ANY, suffix)
        if pts:
            ax.plot(
                [p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, label=label
            )
    cp = [(n, best_copy(r, n)[0]) for n in ns if best_copy(r, n)[0]]
    if cp:
        ax.plot([p[0] for p in cp], [p[1] for p in cp], "k--", label="best copy (the copy floor at n)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (floats)")
    ax.set_ylabel("time (ms, median, warm)")
    ax.set_title("Time", fontsize=10)
    ax.legend(fontsize=8)


def panel_ratio(ax, r, ns):
    """Staged over fused against n, beside the byte and launch ratios."""
    pred = PREDICTIONS.get(r)
    pts = [(n, dnum(SWEEP.get(r, n), None)) for n in ns]
    pts = [p for p in pts if p[1]]
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color="tab:purple",
            label="staged / fused, measured")
    byte_ratio, launch_ratio = dnum(pred, None), dnum(pred, "launch_ratio")
    if byte_ratio:
        ax.axhline(byte_ratio, color="tab:green", linestyle="--",
                   label="byte ratio %.2f (%.0f B against %.0f B per element)"
                   % (byte_ratio, dnum(pred, "staged_bytes"), dnum(pred, "fused_bytes")))
    if launch_ratio:
        ax.axhline(launch_ratio, color="tab:red", linestyle=":",
                   label="launch ratio %.0f (%.0f kernels against %.0f)"
                   % (launch_ratio, dnum(pred, "staged_kernels"), dnum(pred, "fused_kernels")))
    ax.set_xscale("log")
    ax.set_ylim(0, max([p[1] for p in pts] + [launch_ratio or 0]) * 1.2)
    ax.set_xlabel("n (floats)")
    ax.set_ylabel("staged time / fused time")
    ax.set_title("Which prediction holds", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")


def panel_bandwidth(ax, r, series, ns):
    """Each swept version's GB/s against n, the copy floor's, and where one
    buffer fills the L2."""
    for suffix, label, color, marker in series:
        pts = [(n, gbs(N_ANY.get(r, n, suffix))) for n in ns]
        pts = [p for p in pts if p[1]]
        if pts:
            ax.plot(
                [p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, label=label
            )
    fl = [(n, best_copy(r, n)[1]) for n in ns if best_copy(r, n)[1]]
    if fl:
        ax.plot([p[0] for p in fl], [p[1] for p in fl], "k--", label="copy floor (best copy at n)")
    l2 = r.envnum("l2_bytes")
    if l2:
        ax.axvline(l2 / 4, color="0.5", linestyle=":",
                   label="one buffer = the L2 (%.0f MiB)" % (l2 / 1048576))
    ax.set_xscale("log")
    ax.set_xlabel("n (floats)")
    ax.set_ylabel("GB/s (bytes each version names, 1e9 B/s)")
    ax.set_title("Bandwidth", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")


def fig_fusion_n(plt, r):
    """Three panels over the n sweep: times, staged/fused, GB/s."""
    fig, axs = plt.subplots(1, 3, figsize=(16, 5.2), dpi=DPI)
    chains = [(k, d) for k, d in fusion_versions(r, "sweep") if not dnum(d, "floor")]
    series = [
        (k, "%s (%d kernel%s)" % (d.get("name", k), dnum(d, "kernels"), "" if dnum(d, "kernels") == 1 else "s"))
        + SERIES_STYLE[i % len(SERIES_STYLE)]
        for i, (k, d) in enumerate(chains)
    ]
    ns = fusion_sweep_ns(r)
    panel_times(axs[0], r, series, ns)
    panel_ratio(axs[1], r, ns)
    panel_bandwidth(axs[2], r, series, ns)
    for a in axs:
        a.grid(which="both", alpha=0.3)
    fig.suptitle(
        "Fusion: one chain of four elementwise stages, staged against fused, over n", fontsize=11
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    footer(fig, r)
    return fig, "%d sizes" % len(ns)


def widths(r):
    """The K of the stored fused-wide<K> versions (version.<key> with a width)
    timed at the main size: [(K, key)], sorted by K."""
    out = []
    for key, d in fusion_versions(r, "width"):
        if gbs(MAIN.get(r, key)):
            out.append((int(dnum(d, "width")), key))
    return sorted(out)


def has_width(r):
    return len(widths(r)) >= 2


def panel_width_gbs(top, r, wk):
    """GB/s of fused-wide<K> against K, the copy floor and fused at the
    main size. Returns its first version's main measurement."""
    Ks = [K for K, _ in wk]
    g = [gbs(MAIN.get(r, key)) for _, key in wk]
    top.plot(Ks, g, "o-", color="tab:green", label="fused-wide<K>: K elements per thread, a grid apart")
    for K, v in zip(Ks, g):
        top.annotate("%.0f" % v, (K, v), xytext=(0, 6), textcoords="offset points", ha="center",
                     fontsize=8)
    fd = FLOOR_MAIN.get(r)
    floors = [dnum(fd, None)] if dnum(fd, None) else []
    if floors:
        best = VERSION.get(r, str(fd.get("text")))
        top.axhline(floors[0], color="k", linestyle="--", label="copy floor at this n: %.0f GB/s (%s)"
                    % (floors[0], (best or {}).get("name", fd.get("text"))))
    fu = gbs(MAIN_FUSED.get(r))
    if fu:
        top.axhline(fu, color="tab:blue", linestyle=":",
                    label="fused, one float per thread: %.0f GB/s" % fu)
    m0 = MAIN.get(r, wk[0][1])
    bpe = "%.0f B per element, " % (m0["bytes"] / m0["n"]) if num_ok(m0.get("n")) and m0["n"] > 0 else ""
    top.set_ylabel("GB/s (%s1e9 B/s)" % bpe)
    top.set_ylim(0, max(g + floors) * 1.15)
    top.grid(alpha=0.3)
    top.legend(fontsize=8, loc="lower left")
    return m0


def panel_occupancy(bot, r, Ks):
    """Occupancy per K as bars, with registers and blocks per SM."""
    occ = [OCCUPANCY.med(r, K) for K in Ks]
    bars = [(K, o) for K, o in zip(Ks, occ) if o is not None]
    if bars:
        bot.bar([b[0] for b in bars], [b[1] for b in bars], width=[b[0] * 0.35 for b in bars],
                color="tab:gray")
        for K, o in bars:
            regs, blocks = REGS.med(r, K), BLOCKS.med(r, K)
            text = "%.2f" % o
            if regs is not None:
                text += "\n%d regs" % regs
            if blocks is not None:
                text += "\n%d blocks/SM" % blocks
            bot.annotate(text, (K, o), xytext=(0, 3), textcoords="offset points", ha="center",
                         va="bottom", fontsize=8)
        bot.set_ylim(0, 1.6)
        bot.set_yticks([0, 0.25, 0.5, 0.75, 1])
    else:
        bot.text(0.5, 0.5, "no occupancy figures in the file", ha="center", transform=bot.transAxes)
    bot.set_ylabel("occupancy (fraction)")
    bot.set_xscale("log", base=2)
    bot.set_xticks(Ks)
    bot.set_xticklabels([str(K) for K in Ks])
    bot.set_xlabel("K (elements per thread)")
    bot.grid(axis="y", alpha=0.3)


def fig_width(plt, r):
    """GB/s of fused-wide<K> against the copy floor at the main size; below
    it, occupancy per K with registers and blocks per SM."""
    wk = widths(r)
    Ks = [K for K, _ in wk]
    fig, (top, bot) = plt.subplots(
        2, 1, figsize=(9, 7.5), dpi=DPI, sharex=True, gridspec_kw={"height_ratios": [3, 2]}
    )
    m0 = panel_width_gbs(top, r, wk)
    panel_occupancy(bot, r, Ks)
    n = " at n = %s" % commas(m0["n"]) if num_ok(m0.get("n")) and m0["n"] > 0 else ""
    top.set_title("Fusion: the fused chain with K elements per thread%s" % n, fontsize=11)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footer(fig, r)
    return fig, "K = %s" % ", ".join(str(K) for K in Ks)


FIGURES = (
    of_first_run("fusion-n.png", has_fusion_n, fig_fusion_n,
                 "no fusion n sweep (n=N.staged and its stored readings, derived sweep.n=N, at 2 "
                 "sizes or more; section fusion; a file from before derived entries has none)"),
    of_first_run("fusion-width.png", has_width, fig_width,
                 "no fused-wide<K> at 2 widths or more (main.wideK of the stored versions, derived "
                 "version.wideK; section fusion; a file from before derived entries has none)"),
)
