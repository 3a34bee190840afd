#!/usr/bin/env python3
# gpu_checks.py: checks on the JSON of a GPU run, for tests/gpu.sh.
"""Usage: gpu_checks.py CHECK ARGS...

  csv JSON CSV              the CSV has one row per measurement of the JSON
  remainder JSON            the waterfall's parts, all >= 0, leave <= 5% of row 1 unaccounted
  contain JSON              row 1 >= row 5 >= row 4 (medians)
  crossover JSON N...       each N has cpu, kernel, rt_pageable, rt_pinned
  repeat A.json B.json      row-4 medians within 2% of each other
  mode JSON MODE            requested and effective module loading are MODE
  loaded JSON eager|lazy    cuFuncIsLoaded transitions of every module
  first JSON MODE           the first launch taken apart: both modes' parts; EAGER's module load
                            loaded every function; row 3 read this process's mode (MODE)
  compare JSON ROUNDS       eager.* and lazy.* figures with ROUNDS samples each
  jit JSON                  the jit section measured every part
  fusion JSON               every fusion version was checked against the CPU, and passed
  floor JSON                the copy floor: within 3% of cuMemcpyDtoD, >= 85% of the datasheet's
                            bandwidth the run stored (the harness's table of known devices)
  repeat3 A.json B.json     launch and large-size fusion figures within 3% in two runs
  verdicts A.json B.json    two --compare-loading runs agree on every verdict that is not
                            within the noise (stored compare.* entries of section loading)
  cold JSON N               crossover at N: the L2-cold kernel is slower than the warm one
  clocks JSON               every event-timed sample has an SM clock reading beside it
  runtime OUT SECONDS       the table output's "Run time" is at most SECONDS
  summary OUT JSON          OUT's last 15 lines are the summary: the heading "Answers", a line
                            for each answer of a default run (answer.* entries of the JSON:
                            stopwatches row1_row4, first_launch, lazy_eager; loading load; jit
                            nvrtc, driver_jit; launch launch; fusion fusion), the "Run time" line
  width OUT COLUMNS         no line of OUT is wider than COLUMNS
  provenance JSON           a GPU run names its GPU, the driver's version and the host's GPUs
  modules JSON I NAME       --compare-loading of --module I (tests/gpu/modules.sh's NAME):
                            EAGER loaded every function at load, LAZY (modules) not; both
                            loaded all after cuFuncLoad; refusals as NAME implies

Prints what it compared; exits 1 when the check fails."""

import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)


def load(path):
    """The document of a results file, by harness_json's rules (exits with
    its one-line reason on a bad file)."""
    try:
        return hj.load(path).doc
    except hj.Bad as e:
        raise SystemExit(str(e))


def find(doc, section, key):
    for m in doc["measurements"]:
        if m["section"] == section and m["key"] == key:
            return m
    raise SystemExit("%s/%s: not in the file" % (section, key))


def med(doc, key, section="stopwatches"):
    return find(doc, section, key)["stats"]["median"]


def derived(doc, section, key):
    """The derived entry (a conclusion the harness stored)."""
    for d in doc.get("derived", []):
        if d["section"] == section and d["key"] == key:
            return d
    raise SystemExit("derived %s/%s: not in the file" % (section, key))


def fusion_versions(doc, field):
    """Section fusion's stored versions (derived version.<key>) with a non-zero field."""
    return [d for d in doc.get("derived", []) if d["section"] == "fusion"
            and d["key"].startswith("version.") and d["fields"].get(field)]


def check_modules(doc, i, name):
    """The cuFuncIsLoaded counts and refusals of --module i in both modes."""
    def m(pre, step):
        key = "%smodule.%s.%s" % (pre, i, step)
        for x in doc["measurements"]:
            if x["section"] == "loading" and x["key"] == key:
                return x["stats"]["median"]
        return None
    bad = []
    for api in ("mod", "lib"):
        fe, fl = m("eager.", api + ".functions"), m("lazy.", api + ".functions")
        ge, gl = m("eager.", api + ".loaded_get"), m("lazy.", api + ".loaded_get")
        ae, al = m("eager.", api + ".loaded_all"), m("lazy.", api + ".loaded_all")
        print("%s %s: functions %s/%s, loaded once got %s/%s, after cuFuncLoad %s/%s (eager/lazy)"
              % (name, api, fe, fl, ge, gl, ae, al))
        if None in (fe, fl, ge, gl, ae, al):
            bad.append("%s: a figure is missing" % api)
            continue
        if ae != fe or al != fl:
            bad.append("%s: not every function loaded after cuFuncLoad" % api)
        if ge != fe:
            bad.append("%s: EAGER left functions unloaded after the load" % api)
        # LAZY: an enumerated function of a module is not loaded before
        # cuFuncLoad; cuKernelGetFunction (the library path) may load it, so
        # the library path's count is printed, not judged.
        if api == "mod" and fl > 0 and gl >= fl:
            bad.append("%s: LAZY had every function loaded before cuFuncLoad" % api)
        nob = m("eager.", api + ".refused_nobin")
        loaded = m("eager.", api + ".loaded")
        if api == "lib":
            # cuLibraryLoadData refuses no image (on the H200 it took all of
            # libcublasLt's images without sm_90 code): printed, not judged.
            print("%s lib: %s images refused at cuLibraryLoadData" % (name, nob))
        elif name.startswith("libnosm90"):
            if not (nob and nob >= 1 and loaded == 0):
                bad.append("%s: the library without sm_90 code: refused %s, loaded %s" % (api, nob, loaded))
        elif nob != 0:
            bad.append("%s: %s images refused as without code for this GPU" % (api, nob))
    if name == "kptx.fatbin":
        j = m("eager.", "mod.jit_images")
        if j != 1:
            bad.append("the PTX-only fatbin: %s images JIT-compiled (expected 1)" % j)
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    what, path = argv[1], argv[2]
    doc = None if what in ("runtime", "width") else load(argv[3] if what == "summary" else path)
    if what == "csv":
        with open(argv[3], newline="") as f:
            rows = list(csv.reader(f))
        ok = len(rows) == 1 + len(doc["measurements"])
        print("csv rows %d, measurements %d" % (len(rows) - 1, len(doc["measurements"])))
    elif what == "remainder":
        total = med(doc, "row1")
        parts = [m for m in doc["measurements"]
                 if m["section"] == "stopwatches" and m["key"].startswith("waterfall.")]
        named = sum(m["stats"]["median"] for m in parts)
        rem = total - named
        print("row 1 %.3f ms, %d named parts %.3f ms, unaccounted %.3f ms (%.2f%%)"
              % (total, len(parts), named, rem, 100 * rem / total))
        ok = len(parts) >= 18 and abs(rem) <= 0.05 * total
        ok = ok and all(m["stats"]["median"] >= 0 for m in parts)
    elif what == "contain":
        r1, r5, r4 = med(doc, "row1"), med(doc, "row5"), med(doc, "row4")
        print("row1 %.3f >= row5 %.3f >= row4 %.4f" % (r1, r5, r4))
        ok = r1 >= r5 >= r4
    elif what == "crossover":
        ok = True
        for n in argv[3:]:
            for k in ("cpu", "kernel", "rt_pageable", "rt_pinned"):
                m = find(doc, "crossover", "n=%s.%s" % (n, k))
                ok = ok and m["stats"]["n"] >= 1 and m["n"] == int(n)
        print("crossover sizes %s present" % " ".join(argv[3:]))
    elif what == "repeat":
        a, b = med(doc, "row4"), med(load(argv[3]), "row4")
        diff = abs(a - b) / min(a, b)
        print("row 4: %.5f ms and %.5f ms, %.2f%% apart" % (a, b, 100 * diff))
        ok = diff <= 0.02
    elif what == "mode":
        env = doc["environment"]
        req, eff = env.get("module_loading_requested"), env.get("module_loading_effective")
        print("requested %s, effective %s" % (req, eff))
        ok = req == argv[3] and eff == argv[3]
    elif what == "loaded":
        # Every module: all functions loaded at the end; under eager all of
        # them right after the module load (cuModuleEnumerateFunctions'
        # handles) and the first as soon as it is got; under lazy the
        # count after the load is shown, not required.
        mode = argv[3]
        ok = True
        mods = [m["key"][:-len(".k")] for m in doc["measurements"]
                if m["section"] == "loading" and m["key"].endswith(".k")]
        for mod in mods:
            k = med(doc, mod + ".k", "loading")
            at_load = med(doc, mod + ".loaded_load", "loading")
            get = med(doc, mod + ".loaded_get", "loading")
            launch = med(doc, mod + ".loaded_launch", "loading")
            last = med(doc, mod + ".loaded_all", "loading")
            good = last == k and launch == 1 and (get == 1 and at_load == k if mode == "eager" else True)
            print("%-16s K %4d: loaded after the load %d, after get %d, after launch %d, at the end %d %s"
                  % (mod, k, at_load, get, launch, last, "" if good else "<- unexpected"))
            ok = ok and good
        ok = ok and len(mods) >= 4
    elif what == "first":
        # Section stopwatches' first-launch experiment: every part in both
        # modes (printed), where vectorAdd was loaded (EAGER: the module
        # load, every function loaded after it), and row 3's conclusion in
        # this process's mode with the experiment behind it.
        ok = True
        for mode in ("lazy", "eager"):
            s = derived(doc, "stopwatches", "first.%s.part.surplus" % mode)
            ld = derived(doc, "stopwatches", "first.%s.loading" % mode)
            print("%s: surplus %.4f ms [%.4f, %.4f] of %d children; vectorAdd loaded by %s "
                  "(%d of %d after a module load)"
                  % (mode.upper(), s["value"], s["fields"]["ci_low"], s["fields"]["ci_high"],
                     s["fields"]["n"], ld["text"], ld["fields"]["loaded_load"], ld["fields"]["functions"]))
            for p in ("alone", "context", "load", "module", "left", "load_in_launch", "get_in_launch",
                      "fresh"):
                d = derived(doc, "stopwatches", "first.%s.part.%s" % (mode, p))
                print("  %-15s %8.4f ms [%8.4f, %8.4f] %s" % (p, d["value"], d["fields"]["ci_low"],
                                                              d["fields"]["ci_high"], d["text"]))
            if mode == "eager":
                ok = ok and ld["text"] == "the module load"
        r3 = derived(doc, "stopwatches", "row3")
        print("row 3: %.4f ms over row 4, in %s, experiment %d" % (r3["value"], r3["text"],
                                                                r3["fields"]["experiment"]))
        ok = ok and r3["text"] == argv[3] and r3["fields"]["experiment"] == 1
    elif what == "compare":
        rounds = int(argv[3])
        eager = [m for m in doc["measurements"] if m["key"].startswith("eager.")]
        lazy = [m for m in doc["measurements"] if m["key"].startswith("lazy.")]
        ok = len(eager) > 20 and len(eager) == len(lazy)
        ok = ok and all(m["stats"]["n"] == rounds for m in eager + lazy)
        print("%d eager and %d lazy figures, %d rounds each" % (len(eager), len(lazy), rounds))
    elif what == "verdicts":
        # The verdicts each run stored (derived compare.<module>.<fmt>.<step>
        # of section loading). A verdict within the noise (|diff| <= noise:
        # what the next child could show) may go either way; every other
        # verdict must be the same in both runs.
        def verdicts(d):
            return {e["key"]: e for e in d.get("derived", [])
                    if e["section"] == "loading" and e["key"].startswith("compare.")}

        def within(e):
            f = e.get("fields", {})
            return abs(f.get("diff", 0.0)) <= f.get("noise", 0.0)
        a, b = verdicts(doc), verdicts(load(argv[3]))
        both = sorted(set(a) & set(b))
        excused = [k for k in both if within(a[k]) or within(b[k])]
        differ = [k for k in both if k not in excused and a[k]["text"] != b[k]["text"]]
        loose = [k for k in excused if a[k]["text"] != b[k]["text"]]
        for k in differ:
            print("%-34s %-14s %s" % (k, a[k]["text"], b[k]["text"]))
        print("%d verdicts, %d within the noise in either run (%d of them differ), %d beyond it "
              "differ" % (len(both), len(excused), len(loose), len(differ)))
        ok = bool(both) and not differ and set(a) == set(b)
    elif what == "cold":
        n = argv[3]
        ms = {m["key"]: m for m in doc["measurements"] if m["section"] == "crossover"}
        warm, cold = ms["n=%s.kernel" % n], ms["n=%s.kernel.cold" % n]
        print("n = %s: warm %.4f ms (%s), L2-cold %.4f ms (%s), %d and %d samples"
              % (n, warm["stats"]["median"], warm["state"], cold["stats"]["median"], cold["state"],
                 warm["stats"]["n"], cold["stats"]["n"]))
        ok = cold["stats"]["median"] > warm["stats"]["median"] and cold["state"] == "L2-cold" \
            and warm["state"] == "warm"
    elif what == "clocks":
        ok, seen, low = True, 0, 0
        for m in doc["measurements"]:
            if m["state"] not in ("warm", "L2-cold") or not m["region"].startswith("event") \
                    or m["section"] not in ("stopwatches", "crossover", "fusion", "loading"):
                continue
            clk = m.get("clock_mhz")
            good = isinstance(clk, list) and len(clk) == len(m["samples"]) and \
                all(isinstance(v, (int, float)) and v > 0 for v in clk)
            if not good:
                print("no clock beside every sample: %s/%s" % (m["section"], m["key"]))
                ok = False
            else:
                seen += len(clk)
                low += m["low_clock_samples"]
        print("%d samples with a clock reading, %d below 75%% of the SM clock" % (seen, low))
        ok = ok and seen > 0
    elif what == "modules":
        return check_modules(doc, argv[3], argv[4])
    elif what == "runtime":
        import re as _re
        t = None
        for line in open(path):
            m = _re.match(r"Run time ([0-9.]+) s", line)
            if m:
                t = float(m.group(1))
        print("run time %s s, limit %s s" % (t, argv[3]))
        ok = t is not None and t <= float(argv[3])
    elif what == "summary":
        lines = open(path).read().split("\n")[:-1]
        if lines and re.match(r"^exit code [0-9]+$", lines[-1]):
            lines = lines[:-1]          # scripts/reference.sh's own last line
        tail = lines[-15:]
        need = [("stopwatches", "answer.row1_row4"), ("stopwatches", "answer.first_launch"),
                ("stopwatches", "answer.lazy_eager"), ("loading", "answer.load"),
                ("jit", "answer.nvrtc"), ("jit", "answer.driver_jit"), ("launch", "answer.launch"),
                ("fusion", "answer.fusion")]
        have = {(d["section"], d["key"]): d for d in doc["derived"]}
        missing = [k for k in need if k not in have]
        head = [i for i, l in enumerate(tail) if l.startswith("Answers")]
        shown = [k for k in need if k in have and any(
            l.startswith("  %s: " % have[k]["name"]) for l in tail)]
        print("answers stored: %d of %d (missing %s); in the last 15 lines: %d; heading at %s; "
              "last line %r" % (len(need) - len(missing), len(need), missing or "none", len(shown),
                                head, tail[-1] if tail else None))
        ok = (not missing and len(shown) == len(need) and head and
              tail[-1].startswith("Run time") and all(len(l) <= 100 for l in tail))
    elif what == "provenance":
        env = doc["environment"]
        keys = ("command_line", "started_utc", "hostname", "cpu_model", "os_kernel",
                "harness_version", "harness_commit", "gpu", "host_gpus", "driver_version")
        for k in keys:
            print("%s: %r" % (k, env.get(k)))
        ok = all(isinstance(env.get(k), str) and env[k] for k in keys)
    elif what == "width":
        lines = open(path).read().split("\n")
        wide = [(i + 1, len(l)) for i, l in enumerate(lines) if len(l) > int(argv[3])]
        print("%d lines wider than %s columns (the widest %s)" %
              (len(wide), argv[3], max((w for _, w in wide), default=0)))
        for i, w in wide[:10]:
            print("  line %d: %d columns: %s" % (i, w, lines[i - 1][:80]))
        ok = not wide
    elif what == "fusion":
        # Every version the section says it validates, at its stored check n.
        checks = [c for c in doc["checks"] if c["section"] == "fusion"]
        at = " at n = {:,},".format(int(derived(doc, "fusion", "sizes")["fields"]["check_n"]))
        versions = [d["name"] for d in fusion_versions(doc, "checked")]
        ok = len(versions) > 0
        for v in versions:
            hit = [c for c in checks if c["what"].startswith(v + at)]
            print("%-30s %s" % (v, hit[0]["detail"] if hit else "NOT CHECKED"))
            ok = ok and bool(hit) and all(c["passed"] for c in hit)
    elif what == "floor":
        # The copy floor section fusion stored (the best copy with buffers of
        # at least 4x the L2): within 3% of cuMemcpyDtoD at that n, and at
        # least 85% of the datasheet bandwidth stored beside it (from the
        # harness's table of known devices, src/cuda/devices.c); a GPU not in it
        # fails the check, which then says so.
        cf = derived(doc, "fusion", "copy_floor")
        g, gd, n = cf["value"], cf["fields"]["dtod_gbs"], int(cf["fields"]["n"])
        sheet = cf["fields"].get("datasheet_gbs")
        print("floor %.1f GB/s at n = %d (%s%s): %.1f%% of cuMemcpyDtoD, %s"
              % (g, n, cf["text"], ", fallback" if cf["fields"]["fallback"] else "",
                 100 * g / gd, "%.1f%% of the datasheet's %.0f GB/s" % (100 * g / sheet, sheet)
                 if sheet else "no datasheet figure for this GPU in the run"))
        ok = (abs(g / gd - 1) <= 0.03 and bool(sheet) and g >= 0.85 * sheet
              and not cf["fields"]["fallback"])
    elif what == "repeat3":
        b = load(argv[3])
        mb = {(m["section"], m["key"]): m for m in b["measurements"]}
        worst, bad = 0, []
        # The largest n of the fusion sweep, as the section stored its readings.
        ns = [int(d["fields"]["n"]) for d in doc.get("derived", [])
              if d["section"] == "fusion" and d["key"].startswith("sweep.n=")]
        largest = "n=%d." % max(ns) if ns else "main."
        for m in doc["measurements"]:
            k = (m["section"], m["key"])
            big = m["section"] == "fusion" and (m["key"].startswith("main.") or
                                                m["key"].startswith(largest))
            if not (big or m["section"] == "launch") or k not in mb or m["unit"] not in ("ms", "us"):
                continue
            a1, a2 = m["stats"]["median"], mb[k]["stats"]["median"]
            d = abs(a1 - a2) / min(a1, a2)
            worst = max(worst, d)
            if d > 0.03:
                bad.append("%s/%s %.4g %.4g (%.1f%%)" % (k[0], k[1], a1, a2, 100 * d))
        print("largest difference %.1f%%; over 3%%: %s" % (100 * worst, "; ".join(bad) or "none"))
        ok = not bad
    elif what == "jit":
        keys = {m["key"] for m in doc["measurements"] if m["section"] == "jit"}
        need = ["cache.disabled.jit", "cache.empty.jit", "cache.warm.load", "lazy.disabled.jit",
                "jitopt.O0.warm", "jitopt.O4.jit", "order.init_first.init",
                "order.compile_first.compile", "order.init_first.nopreload.init",
                "nvrtc.first", "compile.vector.cu.cubin", "synth.100.cubin"]
        missing = [k for k in need if k not in keys]
        print("missing: %s" % (", ".join(missing) or "none"))
        ok = not missing
    else:
        print(__doc__)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
