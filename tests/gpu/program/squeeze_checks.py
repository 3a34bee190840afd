#!/usr/bin/env python3
"""squeeze_checks.py AUTO.json SWEEP.json...: whether --squeeze=auto's
margin per mode agrees with a sweep by hand within one step, and the
failure sentences at the failing margins. AUTO.json is a --compare-loading
--squeeze=auto run; each SWEEP.json a --compare-loading --squeeze=M run.

Per mode, auto found A (the smallest margin it ran at), F (the largest it
failed at) and its step (A - F, or A where nothing failed). The sweep agrees
within one step when every margin it ran at is above F - step and every
margin it failed at is below A + step. Prints one PASSED or FAILED line per
mode, the sweep's table, and the sentences."""
import json
import sys

MODES = ("lazy", "eager")


def load(path):
    with open(path) as f:
        return json.load(f)


def derived(d, key):
    for x in d["derived"]:
        if x["section"] == "program" and x["key"] == key:
            return x
    return None


def answers(d, prefix):
    return [x["text"] for x in d["derived"]
            if x["section"] == "program" and x["key"].startswith(prefix)]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    auto = load(argv[1])
    sweep = {}
    for path in argv[2:]:
        d = load(path)
        if "program_squeeze" not in d["environment"]:
            print("%s: no --squeeze run in it (a usage error?): left out" % path)
            continue
        m = float(d["environment"]["program_squeeze"])
        sweep[m] = {k: derived(d, "squeeze.%s.ran" % k) for k in MODES}
        sweep[m]["said"] = answers(d, "answer.squeeze_fail.")
    print("the sweep by hand (--squeeze=M, one run a mode): ran or failed")
    for m in sorted(sweep):
        cells = []
        for k in MODES:
            x = sweep[m][k]
            cells.append("%s %s" % (k.upper(), "-" if not x else "ran" if x["value"] == x["fields"]["runs"]
                                    and x["fields"]["runs"] > 0 else "failed"))
        print("  %6.0f MiB  %s" % (m, ", ".join(cells)))
    bad = 0
    for k in MODES:
        a = derived(auto, "squeeze." + k)
        if not a or a["value"] is None:
            print("FAILED %s: --squeeze=auto found no margin (%s)" % (k.upper(), a["text"] if a else "none"))
            bad += 1
            continue
        top, low = a["value"], a["fields"].get("failed_at_mib")
        step = a["fields"].get("step_mib") or 0
        low = -1 if low is None else low
        ran = [m for m in sweep if sweep[m][k] and sweep[m][k]["value"] == sweep[m][k]["fields"]["runs"]
               and sweep[m][k]["fields"]["runs"] > 0]
        failed = [m for m in sweep if sweep[m][k] and sweep[m][k]["value"] < sweep[m][k]["fields"]["runs"]]
        wrong = [m for m in ran if m <= low - step] + [m for m in failed if m >= top + step]
        verdict = "PASSED" if not wrong else "FAILED"
        bad += bool(wrong)
        print("%s %s: auto's margin %.0f MiB (failed at %s, step %.0f) agrees with the sweep within one "
              "step (sweep ran at %s, failed at %s MiB%s)" % (
                  verdict, k.upper(), top, "%.0f" % low if low >= 0 else "none", step,
                  ", ".join("%.0f" % m for m in sorted(ran)) or "none",
                  ", ".join("%.0f" % m for m in sorted(failed)) or "none",
                  "; disagrees at " + ", ".join("%.0f" % m for m in sorted(wrong)) if wrong else ""))
    print("\n--squeeze=auto's answers:")
    for t in answers(auto, "answer.squeeze"):
        print("  " + t)
    for m in sorted(sweep):
        if sweep[m]["said"]:
            print("\nthe failures at --squeeze=%.0f:" % m)
            for t in sweep[m]["said"]:
                print("  " + t)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
