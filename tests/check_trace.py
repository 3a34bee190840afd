#!/usr/bin/env python3
"""check_trace.py TRACE.json [--expect-device] [--expect-stopped TEXT]: the
shape of a --trace file.

A Chrome trace-event document (what Perfetto and chrome://tracing read): an
object with "traceEvents", a list of events; metadata events ("ph": "M")
name the process and its tracks; every other event is a complete event
("ph": "X") with a non-empty name, pid, tid, and ts and dur in microseconds,
finite and not negative. At least one section span (tid 1) must be there;
with --expect-device, at least one device span (tid 3) too. With
--expect-stopped TEXT, the trace of a run stopped early: otherData says
"incomplete": true and its "stopped" contains TEXT (no section span is
required: a run can be stopped before its first). Without it, otherData
must not say "incomplete": true. Exits 1 with the first problem found."""
import os
import math
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    try:
        doc = hj.read_json(argv[1])
    except hj.Bad as e:
        print(e)
        return 1
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("not a trace-event document: no traceEvents list")
        return 1
    stopped = argv[argv.index("--expect-stopped") + 1] if "--expect-stopped" in argv[:-1] else None
    other = doc.get("otherData")
    if not isinstance(other, dict):
        print("no otherData object")
        return 1
    if stopped is not None:
        why = other.get("stopped")
        if other.get("incomplete") is not True or not isinstance(why, str) or stopped not in why:
            print("otherData: incomplete %r, stopped %r; expected true and a reason containing %r"
                  % (other.get("incomplete"), why, stopped))
            return 1
    elif other.get("incomplete", False) is not False:
        print("otherData: incomplete is %r in a run that was not stopped" % (other.get("incomplete"),))
        return 1
    tids = {}
    for i, e in enumerate(doc["traceEvents"]):
        if not isinstance(e, dict) or e.get("ph") not in ("M", "X"):
            print("event %d: not a metadata or complete event: %r" % (i, e))
            return 1
        if e["ph"] == "M":
            continue
        ok = isinstance(e.get("name"), str) and e["name"] and isinstance(e.get("pid"), int) \
            and isinstance(e.get("tid"), int) and all(
                isinstance(e.get(k), (int, float)) and math.isfinite(e[k]) and e[k] >= 0
                for k in ("ts", "dur"))
        if not ok:
            print("event %d: a complete event needs name, pid, tid, ts >= 0, dur >= 0: %r" % (i, e))
            return 1
        tids[e["tid"]] = tids.get(e["tid"], 0) + 1
    print("events per track: %s" % ", ".join("%d: %d" % kv for kv in sorted(tids.items())))
    if not tids.get(1) and stopped is None:
        print("no section span")
        return 1
    if "--expect-device" in argv and not tids.get(3):
        print("no device span")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
