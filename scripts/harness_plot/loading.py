"""loading: section loading's cost against K (the synthetic modules, EAGER and
LAZY, cubin and PTX) and, of --module runs in both modes, each module's load
and device memory."""

import os

import harness_json as hj

from .common import DPI, MODE_COLORS, Figure, footer, interval, median, num_ok, plain_log

# The synthetic modules' keys: <pre> the mode of a --compare-loading run,
# <module> synthK, <word> the format.
LOAD_STEPS = (
    (hj.Key("loading", "<pre><module>.<word>.total"), "load to all functions loaded", "-", "o"),
    (hj.Key("loading", "<pre><module>.<word>.load"), "module load (cuModuleLoadDataEx)", "--", "s"),
)
SYNTH_K = hj.Key("loading", "<pre><module>.<word>.k")
# A --module's figures in each mode (<modpre> eager. or lazy., <api> mod),
# and what section loading stored of it (derived module.<i>).
MODULE_STEPS = {step: hj.Key("loading", "<modpre>module.<i>.<api>.%s" % step)
                for step in ("load", "later", "mem_load", "mem_all")}
MODULE = hj.Key("loading", "module.<i>", derived=True)


def step_of(k):
    """(step key, [pre, module, format]) of a synthetic module's key k, or None."""
    for key, _, _, _ in LOAD_STEPS:
        parts = key.match(k)
        if parts is not None:
            return key, parts
    return None


def loading_modes(r):
    """{mode: {fmt: [(K, {step: (ms, interval or None)})]}} of the synthetic
    modules in r: plain keys synthK.fmt.step in the file's effective mode,
    eager. and lazy. keys in theirs."""
    eff = str(r.env.get("module_loading_effective") or "").upper()
    out = {}
    for k in r.keys("loading"):
        hit = step_of(k)
        if hit is None:
            continue
        step, (pre, mod, fmt) = hit
        mode = pre.rstrip(".").upper() if pre else eff
        v = r.med("loading", k)
        if mode not in MODE_COLORS or not mod.startswith("synth") or v is None or v <= 0:
            continue
        K = SYNTH_K.med(r, pre, mod, fmt)
        if K is None:
            K = float(mod[len("synth"):])
        if K > 0:
            out.setdefault(mode, {}).setdefault(fmt, {}).setdefault(K, {})[step] = (
                v,
                interval(r.get("loading", k)),
            )
    return {
        mode: {fmt: sorted(ks.items()) for fmt, ks in fmts.items()} for mode, fmts in out.items()
    }


def panel_format(ax, sources, fmt):
    """Load and total against K of one format, each mode, with the 95%
    interval of each median where every point has one. Returns whether
    any had."""
    bars = False
    Ks = set()
    for mode in ("EAGER", "LAZY"):
        rows = sources[mode][1].get(fmt, [])
        for step, label, style, marker in LOAD_STEPS:
            pts = [(K, s[step]) for K, s in rows if step in s]
            if not pts:
                continue
            xs, ys = [p[0] for p in pts], [p[1][0] for p in pts]
            err = None
            if all(p[1][1] for p in pts):
                err = [[y - p[1][1][0] for y, p in zip(ys, pts)],
                       [p[1][1][1] - y for y, p in zip(ys, pts)]]
                bars = True
            ax.errorbar(xs, ys, yerr=err, linestyle=style, marker=marker, capsize=3,
                        color=MODE_COLORS[mode], label="%s: %s" % (mode, label))
            Ks.update(xs)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sorted(Ks))
    plain_log(ax, "x", minor=False)
    plain_log(ax, "y")
    ax.set_xlabel("K (kernels in the module)")
    ax.set_ylabel("time (ms, host clock, median)")
    ax.set_title("%s modules" % ("cubin" if fmt == "cubin" else "PTX"), fontsize=10)
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", handlelength=3.5)
    return bars


def fig_loading(plt, sources):
    """Two panels (cubin, PTX): per mode, load and total against K, log-log,
    with the 95% interval of each median where it has one.
    sources: {mode: (Result, {fmt: [(K, {step: (ms, interval)})]})}."""
    fmts = [f for f in ("cubin", "ptx") if any(f in s[1] for s in sources.values())]
    fig, axs = plt.subplots(1, len(fmts), figsize=(6.5 * len(fmts), 5.5), dpi=DPI, squeeze=False)
    bars = False
    for ax, fmt in zip(axs[0], fmts):
        bars = panel_format(ax, sources, fmt) or bars
    fig.suptitle(
        "Loading cost against K: EAGER loads every function inside the module load, "
        "LAZY each on first use",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    e, l = sources["EAGER"][0], sources["LAZY"][0]
    fig.text(
        0.005,
        0.005,
        "%s; EAGER from %s, LAZY from %s%s"
        % (
            e.source().rsplit(", ", 1)[0],
            os.path.basename(e.path),
            os.path.basename(l.path),
            "; bars: 95% interval of the median" if bars else "",
        ),
        fontsize=7,
        color="0.4",
    )
    if e is l:
        return fig, "EAGER and LAZY from %s" % e.path, None
    return fig, "EAGER from %s, LAZY from %s" % (e.path, l.path), None


def find_modes(results):
    """{mode: (Run, its synthetic modules)} of the first file holding each
    mode; None unless both are there."""
    modes = {}
    for r in results:
        for mode, data in loading_modes(r).items():
            modes.setdefault(mode, (r, data))
    return modes if "EAGER" in modes and "LAZY" in modes else None


def why_loading(results):
    modes = {}
    for r in results:
        for mode in loading_modes(r):
            modes.setdefault(mode, r)
    have = "%s only" % list(modes)[0] if modes else "neither"
    return ("needs section loading in both modes, the files hold %s (add a run with "
            "--module-loading=eager or =lazy, or one with --compare-loading)" % have)


def module_rows(r):
    """[(label, {figure: (median, interval)}, no-code share)] of each --module of
    a --compare-loading run in r, in order; [] when there is none."""
    rows = []
    i = 0
    while True:
        d = MODULE.get(r, i)
        if d is None:
            break
        f = d.get("fields") or {}
        vals = {}
        for mode in ("eager", "lazy"):
            for step, key in MODULE_STEPS.items():
                m = key.get(r, mode + ".", i, "mod")
                v = median(m)
                if v is not None:
                    vals[(mode, step)] = (v, interval(m))
        imgs = f.get("fatbins") if d.get("text") in ("host ELF", "fatbin") else 1
        share = (f.get("no_code") / imgs) if num_ok(f.get("no_code")) and num_ok(imgs) and imgs else None
        if ("eager", "load") in vals and ("lazy", "load") in vals:
            rows.append((os.path.basename(str(d.get("name"))), vals, share))
        i += 1
    return rows


def has_modules(r):
    return bool(module_rows(r))


def bar(axis, x, key, vals, w, bottom=0.0, **kw):
    """One bar of vals[key] at x, with its interval; returns its height (0 without one)."""
    v = vals.get(key)
    if v is None:
        return 0.0
    err = None
    if v[1]:
        err = [[v[0] - v[1][0]], [v[1][1] - v[0]]]
    axis.bar([x], [v[0]], w, bottom=[bottom], yerr=err, capsize=3, **kw)
    return v[0]


def module_bars(ax, am, x, vals, w):
    """One module's bars: the load per mode with LAZY's later on it (ax),
    device memory after load and with every function loaded (am)."""
    first = x == 0
    bar(ax, x - w / 2, ("eager", "load"), vals, w, color=MODE_COLORS["EAGER"],
        label="EAGER: load" if first else None)
    lo = bar(ax, x + w / 2, ("lazy", "load"), vals, w, color=MODE_COLORS["LAZY"],
             label="LAZY: load" if first else None)
    bar(ax, x + w / 2, ("lazy", "later"), vals, w, bottom=lo, color=MODE_COLORS["LAZY"], alpha=0.45,
        label="LAZY: later, getting and loading every function" if first else None)
    bar(am, x - w / 2, ("eager", "mem_load"), vals, w, color=MODE_COLORS["EAGER"],
        label="EAGER: after load" if first else None)
    bar(am, x + w / 2, ("lazy", "mem_load"), vals, w, color=MODE_COLORS["LAZY"],
        label="LAZY: after load" if first else None)
    for mode, dx in (("eager", -w / 2), ("lazy", w / 2)):
        v = vals.get((mode, "mem_all"))
        if v is not None:
            am.plot([x + dx], [v[0]], marker="_", markersize=18, color="black",
                    label="every function loaded" if first and mode == "eager" else None)


def fig_modules(plt, runs):
    """Two panels over the modules of every run that has them: time (load
    EAGER; load LAZY with what LAZY pays later stacked on it) and device
    memory (after load, every function)."""
    rows = [row for r in runs for row in module_rows(r)]
    fig, (ax, am) = plt.subplots(1, 2, figsize=(13, 5.5), dpi=DPI)
    xs = list(range(len(rows)))
    for x, (label, vals, share) in zip(xs, rows):
        module_bars(ax, am, x, vals, 0.38)
    labels = [
        "%s\n%s" % (row[0], "" if row[2] is None else "%.0f%% of fatbins: no code" % (100 * row[2]))
        for row in rows
    ]
    times = [v[0] for row in rows for k, v in row[1].items() if k[1] in ("load", "later") and v[0] > 0]
    if times and max(times) / min(times) > 50:
        ax.set_yscale("log")          # the libraries span orders of magnitude
    for a in (ax, am):
        a.set_xticks(xs)
        a.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
        a.grid(axis="y", alpha=0.3)
        a.legend(fontsize=8, loc="best")
    ax.set_ylabel("ms, host clock, median of the children")
    ax.set_title("loading every image: EAGER against LAZY", fontsize=10)
    am.set_ylabel("device memory in use (MiB, cuMemGetInfo)")
    am.set_title("device memory after the load and with every function loaded", fontsize=10)
    fig.suptitle("What loading a library's device code costs, and where LAZY moves it", fontsize=11)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    footer(fig, runs[0], "; bars: 95% interval of the median where the children gave one")
    return fig, "%d modules" % len(rows), ", ".join(r.path for r in runs)


FIGURES = (
    Figure("loading-k.png", find_modes, fig_loading, why_loading),
    Figure("modules.png", lambda results: [r for r in results if has_modules(r)] or None,
           fig_modules,
           "no --module run in both modes (loading --module=PATH --compare-loading: derived "
           "module.N and eager./lazy.module.N.mod.load)"),
)
