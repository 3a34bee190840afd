"""common: what every figure family of scripts/plot shares: the Figure
interface each family exposes, the colours, and the small helpers that read
a Run (harness_json) or place text on a figure."""

import math

import harness_json as hj

DPI = 100
SECTION_COLORS = {
    "stopwatches": "tab:blue",
    "crossover": "tab:orange",
    "fusion": "tab:green",
    "jit": "tab:purple",
    "loading": "tab:brown",
}
MODE_COLORS = {"EAGER": "tab:blue", "LAZY": "tab:orange"}
SERIES_STYLE = (("tab:red", "o"), ("tab:blue", "s"), ("tab:green", "^"), ("tab:olive", "v"),
                ("tab:cyan", "D"), ("tab:pink", "P"))

num_ok = hj.num_ok
median = hj.median


class Figure:
    """One PNG a family draws, the interface every family module exposes
    as FIGURES: name, the file's name; find(results), what to draw it from
    (None: the files hold nothing for it); draw(plt, found), (figure, what
    it shows, the files it came from or None); why(results), the reason it
    is skipped."""

    def __init__(self, name, find, draw, why):
        self.name, self.find, self.draw = name, find, draw
        self.why = why if callable(why) else (lambda results: why)


def of_first_run(name, has, draw, why):
    """The Figure drawn from the first file for which has(run) is true:
    draw(plt, run) -> (figure, what), the file named as its source."""
    return Figure(name, lambda results: first(results, has),
                  lambda plt, r: draw(plt, r) + (r.path,), why)


def first(results, has):
    """The first Run for which has(r) is true, or None."""
    for r in results:
        if has(r):
            return r
    return None


def commas(n):
    """An integer with thousands separators."""
    return "{:,}".format(int(n))


def gbs(m):
    """GB/s (1e9 bytes per second) of a measurement with a byte model and a
    median in ms; None without one."""
    t = median(m)
    b = m.get("bytes") if m else None
    if t is None or t <= 0 or not num_ok(b) or b <= 0:
        return None
    return b / t / 1e6


def footer(fig, r, extra=""):
    """The run's provenance in small type at the figure's bottom left."""
    fig.text(0.005, 0.005, r.source() + extra, fontsize=7, color="0.4", ha="left", va="bottom")


def dnum(d, field):
    """A finite figure of derived entry d: its value (field None) or a field; None."""
    if not d:
        return None
    v = d.get("value") if field is None else (d.get("fields") or {}).get(field)
    return float(v) if num_ok(v) else None


def interval(m):
    """(ci_low, ci_high) of measurement m's median when it has one from more
    than one sample, else None."""
    st = m.get("stats") if m else None
    if not isinstance(st, dict) or not num_ok(st.get("n")) or st["n"] < 2:
        return None
    lo, hi = st.get("ci_low"), st.get("ci_high")
    return (lo, hi) if num_ok(lo) and num_ok(hi) and lo <= hi else None


def sweep(r, key, rest=None):
    """[(n, median)] of r's measurements of key, a pattern whose first part
    is n (a start key: those whose rest is rest), sorted by n; only n > 0
    with a median above 0."""
    out = []
    for parts, m in key.find(r):
        if key.start and parts[-1] != rest:
            continue
        n, v = int(parts[0]), median(m)
        if v is not None and n > 0 and v > 0:
            out.append((n, v))
    return sorted(out)


def plain_log(ax, axis, minor=True):
    """Plain numbers (0.2, 1, 10) on a log axis instead of powers of ten;
    minor ticks labelled at 2 and 5 times a power of ten when minor, else not."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def some(v, _):
        m = v / 10 ** math.floor(math.log10(v) + 1e-9) if v > 0 else 0
        return "%g" % v if round(m) in (2, 5) and abs(m - round(m)) < 1e-6 else ""

    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
    a.set_minor_formatter(FuncFormatter(some) if minor else NullFormatter())


def _clusters(disp, w_pt):
    """The indices of disp's points, sorted by x, in runs whose neighbours
    lie closer than w_pt across."""
    byx = sorted(range(len(disp)), key=lambda i: disp[i][0])
    clusters, cur = [], [byx[0]] if byx else []
    for i in byx[1:]:
        if disp[i][0] - disp[cur[-1]][0] < w_pt:
            cur.append(i)
        else:
            clusters.append(cur)
            cur = [i]
    if cur:
        clusters.append(cur)
    return clusters


def _blocks(c, disp, h_pt):
    """[sum of wanted heights, labels] of cluster c (sorted top down): runs
    of labels h_pt apart, merged while one runs into the one above."""
    blocks = []
    for i in c:
        blocks.append([disp[i][1], 1])
        while len(blocks) > 1:
            (s1, n1), (s2, n2) = blocks[-2], blocks[-1]
            if (s1 / n1 - (n1 - 1) * h_pt / 2) - (s2 / n2 + (n2 - 1) * h_pt / 2) >= h_pt:
                break
            blocks[-2:] = [[s1 + s2, n1 + n2]]
    return blocks


def place_labels(ax, fig, xy, h_pt=9.0, w_pt=14.0):
    """Offsets in points (dx, dy) for a short label right of each data point
    xy. Points closer than w_pt across form a cluster whose labels stand in
    one column right of it, in the points' vertical order, at least h_pt
    apart, each run of crowded labels centred on its points."""
    scale = 72.0 / fig.dpi
    disp = [tuple(p * scale for p in ax.transData.transform(q)) for q in xy]
    out = [None] * len(xy)
    for c in _clusters(disp, w_pt):
        col = max(disp[i][0] for i in c) + (6 if len(c) == 1 else 10)
        c.sort(key=lambda i: -disp[i][1])
        k = 0
        for s, n in _blocks(c, disp, h_pt):
            for j in range(n):
                i = c[k]
                out[i] = (col - disp[i][0], s / n + (n - 1) * h_pt / 2 - j * h_pt - disp[i][1])
                k += 1
    return out
