#!/usr/bin/env python3
# check_inventory.py: a --module run's inventory (its JSON) against something
# independent: what was built, readelf -SW, cuobjdump --list-elf/--list-ptx.
"""Usage: check_inventory.py JSON MODULE_INDEX [--expect KIND:ARCH=N,...]
                             [--readelf FILE] [--cuobjdump FILE] [--fatbins N]
                             [--no-code N] [--relfatbins N] [--compressed N] [--every-fatbin LIST]

--expect ELF:sm_90=1,PTX:compute_90=1  the entries per kind and arch, exactly
--every-fatbin ELF:sm_80,ELF:sm_100  every fatbin holds exactly these
--readelf FILE    readelf -SW output: .nv_fatbin's offset and size are the
                  inventory's, and its fatbins tile it (each starts where the
                  one before ends, the last ends at the section's end)
--cuobjdump FILE  cuobjdump --list-elf --list-ptx output: as many ELF and PTX
                  entries per arch as it lists
Prints one line per problem and exits 1 when there is any; else "ok: ..."."""

import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    run = hj.load(argv[1])
    mi = int(argv[2])
    opts = dict(zip(argv[3::2], argv[4::2]))
    bad = []
    mod = run.conclusion("loading", "module.%d" % mi)
    if mod is None:
        print("no derived entry module.%d in %s" % (mi, argv[1]))
        return 1
    f = mod.get("fields") or {}
    archs = Counter()
    for d in run.conclusions("loading", "module.%d.arch." % mi):
        kind = d["text"]
        archs["%s:%s" % (kind, d["key"].rsplit(".", 1)[1])] += int(d["value"])
    if "--expect" in opts:
        want = Counter()
        for part in opts["--expect"].split(","):
            k, n = part.split("=")
            want[k] = int(n)
        if want != archs:
            bad.append("entries per kind and arch: read %s, built %s" % (dict(archs), dict(want)))
    if "--every-fatbin" in opts:
        want = sorted(opts["--every-fatbin"].split(","))
        for d in run.conclusions("loading", "module.%d.fatbin." % mi):
            got = sorted("%s:%s" % tuple(e.split()[:2]) for e in d["text"].split("; "))
            if got != want:
                bad.append("%s holds %s, built %s" % (d["key"], got, want))
    for name, field in (("--fatbins", "fatbins"), ("--no-code", "no_code"),
                        ("--relfatbins", "relfatbins"), ("--compressed", "compressed")):
        if name in opts and int(opts[name]) != f.get(field):
            bad.append("%s: read %s, expected %s" % (field, f.get(field), opts[name]))
    if "--readelf" in opts:
        sec = None
        for line in open(opts["--readelf"]):
            m = re.match(r"\s*\[\s*\d+\]\s+\.nv_fatbin\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
            if m:
                sec = (int(m.group(1), 16), int(m.group(2), 16))
        if sec is None:
            bad.append("readelf lists no .nv_fatbin")
        elif (f.get("section_offset"), f.get("section_bytes")) != sec:
            bad.append(".nv_fatbin: read offset %s size %s, readelf says %s"
                       % (f.get("section_offset"), f.get("section_bytes"), sec))
        else:
            at = sec[0]
            fbs = sorted(run.conclusions("loading", "module.%d.fatbin." % mi),
                         key=lambda d: int(d["key"].rsplit(".", 1)[1]))
            for d in fbs:
                off = d["fields"]["offset"]
                if off < at or off - at >= 16:
                    bad.append("%s starts at %s, the one before ends at %s" % (d["key"], off, at))
                at = off + d["value"]
            if sec[0] + sec[1] - at >= 16 or at > sec[0] + sec[1]:
                bad.append("the fatbins end at %s, the section at %s" % (at, sec[0] + sec[1]))
            if len(fbs) != f.get("fatbins"):
                bad.append("%d fatbin entries, the module says %s" % (len(fbs), f.get("fatbins")))
    if "--cuobjdump" in opts:
        listed = Counter()
        for line in open(opts["--cuobjdump"]):
            m = re.match(r"(ELF|PTX) file\s+\d+: .*\.(sm_\w+?)\.(cubin|ptx)\s*$", line)
            if m:
                arch = m.group(2) if m.group(1) == "ELF" else m.group(2).replace("sm_", "compute_")
                # cuobjdump names a family ELF (sm_120f) by its plain arch.
                if m.group(1) == "ELF" and arch.endswith("f"):
                    arch = arch[:-1]
                listed["%s:%s" % (m.group(1), arch)] += 1
        plain = Counter()
        for k, n in archs.items():
            plain[k[:-1] if k.startswith("ELF:") and k.endswith("f") else k] += n
        if listed != plain:
            bad.append("entries per kind and arch: read %s, cuobjdump lists %s"
                       % (sorted(archs.items()), sorted(listed.items())))
    for b in bad:
        print(b)
    if bad:
        return 1
    print("ok: module %d: %s fatbins, %d entries" % (mi, f.get("fatbins"), sum(archs.values())))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except hj.Bad as e:
        print(e)
        sys.exit(1)
