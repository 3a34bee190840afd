#!/usr/bin/env python3
"""spread.py KEYS FILE.json...: for each section/key in KEYS (comma list,
'all' for every time figure), the medians of the files side by side and
their spread, (max - min) / min in percent."""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    docs = []
    for p in argv[2:]:
        with open(p) as f:
            docs.append({m["section"] + "/" + m["key"]: m for m in json.load(f)["measurements"]})
    keys = list(docs[0]) if argv[1] == "all" else argv[1].split(",")
    for k in keys:
        meds = [d[k]["stats"]["median"] for d in docs if k in d and d[k]["stats"]["median"]]
        if not meds:
            continue
        spread = (max(meds) - min(meds)) / min(meds) * 100 if min(meds) > 0 else 0.0
        print("%-40s %s  spread %5.1f%%" % (k, " ".join("%9.4g" % v for v in meds), spread))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
