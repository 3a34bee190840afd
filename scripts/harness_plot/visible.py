"""visible: section visible's cold start against the visible-device count.

Its counts (k<K>.<part>, medians over its rounds) and the conclusions it
stored (derived devices and saving, src/sections/visible/visible.h)."""

import textwrap

import harness_json as hj

from .common import DPI, dnum, footer, median, num_ok, of_first_run

PARTS = (
    (hj.Key("visible", "k<i>.load"), "loading libcuda (dlopen + cuGetProcAddress)", "tab:gray"),
    (hj.Key("visible", "k<i>.init"), "cuInit", "tab:red"),
    (hj.Key("visible", "k<i>.count"), "cuDeviceGetCount", "tab:olive"),
    (hj.Key("visible", "k<i>.ctx0"), "the primary context on device 0", "tab:blue"),
    (hj.Key("visible", "k<i>.ctx_others"), "the first contexts on devices 1..k-1", "tab:cyan"),
)
TOTAL = hj.Key("visible", "k<i>.total")
DEVICES = hj.Key("visible", "devices", derived=True)
SAVING = hj.Key("visible", "saving", derived=True)
SAVING_ONE = hj.Key("visible", "saving_one_gpu", derived=True)


def visible_counts(r):
    """The visible-device counts with a measured total, sorted."""
    return sorted({int(parts[0]) for parts, m in TOTAL.find(r) if median(m) is not None})


def has_visible(r):
    return DEVICES.get(r) is not None and len(visible_counts(r)) >= 1


def draw_totals(ax, r, ks, bottom):
    """Beside each count's bar, every round's total, their range and the
    median in words. Returns the highest point drawn."""
    top = 0.0
    for i, k in enumerate(ks):
        m = TOTAL.get(r, k)
        rounds = [v for v in m.get("samples", []) if num_ok(v)]
        med = median(m)
        x = i + 0.36
        ax.errorbar([x], [med], yerr=[[med - min(rounds)], [max(rounds) - med]], fmt="_",
                    color="black", capsize=4, label="total: each round (dots), their range" if i == 0 else None)
        ax.scatter([x] * len(rounds), rounds, s=12, color="black", zorder=3)
        ax.text(i, max(bottom[i], max(rounds)) * 1.02, "%.3g ms" % med, ha="center", va="bottom",
                fontsize=8)
        top = max(top, bottom[i], max(rounds))
    return top


def saving_note(r):
    """What restricting the visible devices to one saves, in words ("" without it)."""
    sv, one = SAVING.get(r), SAVING_ONE.get(r)
    if sv and dnum(sv, None) is not None and dnum(one, None) is not None:
        note = ("restricting %d visible to 1 saves a process that uses one device %.1f ms of "
                "%.1f ms to its context (%.0f%%; %s),\none that makes a context on every "
                "device %.1f ms of %.1f ms (%.0f%%; %s)" % (
                    dnum(sv, "n"), dnum(one, None), dnum(one, "ready_n"), dnum(one, "pct"),
                    one.get("text", ""), dnum(sv, None), dnum(sv, "total_n"), dnum(sv, "pct"),
                    sv.get("text", "")))
    else:
        note = sv.get("text", "") if sv else ""
    return note


def fig_visible(plt, r):
    """The cold start's parts stacked per visible-device count (medians);
    beside each bar, every round's total and their range."""
    ks = visible_counts(r)
    dev = DEVICES.get(r)
    fig, ax = plt.subplots(figsize=(12, 6), dpi=DPI)
    xs = list(range(len(ks)))
    bottom = [0.0] * len(ks)
    for key, label, color in PARTS:
        v = [key.med(r, k) or 0.0 for k in ks]
        if any(v):
            ax.bar(xs, v, bottom=bottom, width=0.55, color=color, label=label)
        bottom = [b + a for a, b in zip(v, bottom)]
    top = draw_totals(ax, r, ks, bottom)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlim(-0.6, len(ks) - 0.2)
    ax.set_ylim(0, top * 1.2)
    ax.set_xlabel("visible devices k (CUDA_VISIBLE_DEVICES: the first k of this process's)")
    ax.set_ylabel("ms, the child's host clock (parts: medians over the rounds)")
    ax.set_title("Cold start against the visible-device count: this process sees %d (%s)"
                 % (dnum(dev, None), dev.get("text", "")), fontsize=11)
    note = saving_note(r)
    if note:
        note = "\n".join(textwrap.fill(line, 115) for line in note.split("\n"))
        ax.text(0.01, 0.98, note, transform=ax.transAxes, fontsize=8, va="top", ha="left")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footer(fig, r, ", %d rounds" % (dnum(dev, "rounds") or 0))
    return fig, "%d count%s (N = %d)" % (len(ks), "" if len(ks) == 1 else "s", dnum(dev, None))


FIGURES = (
    of_first_run("visible.png", has_visible, fig_visible,
                 "no visible section in the files (derived devices and k<K>.total; section visible, "
                 "which a default run or --section=visible runs)"),
)
