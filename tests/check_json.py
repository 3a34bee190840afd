#!/usr/bin/env python3
# check_json.py: checks the shape of a harness JSON document (schema 1).
"""Usage: check_json.py FILE [--expect-measurements N] [--expect-skipped SECTION ...]
                     [--expect-checks-pass] [--expect-incomplete | --expect-complete]
                     [--expect-stopped TEXT] [--expect-env KEY=JSON ...] [--no-provenance]
                     [--schema SCHEMA]

Every file the harness writes says how it was made (the provenance fields of
its environment: command_line, started_utc, hostname, cpu_model, os_kernel,
harness_version, harness_commit; gpu, host_gpus and driver_version, null
where there are none); --no-provenance leaves them out, for documents made
by hand.

--schema SCHEMA (the JSON ./harness --schema prints) checks every
measurement's key against the keys its section declares, and every derived
entry's key against the derived entries it declares: it matches a
declaration (a key, or a pattern whose <word> parts match as the schema's
placeholders say; of several, the one with the most characters spelled
out, and two of those are an error), and the units agree.

Prints one line per problem and exits 1 when there is any; otherwise prints
"ok: N measurements" and exits 0."""

import argparse
import json
import os
import math
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)

STATES = {"first-launch", "L2-cold", "warm", "process"}
MEAS_STRINGS = ("section", "key", "name", "region", "state", "unit")
STATS_FIELDS = ("n", "min", "median", "mean", "max", "stdev", "cv",
                "ci_low", "ci_high", "ci_level")
DERIVED_STRINGS = ("section", "key", "name", "unit", "text")
DERIVED_KEYS = set(DERIVED_STRINGS) | {"value", "fields"}
FIELD_NAME = re.compile(r"[a-z0-9_.]+\Z")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def is_num_or_null(v):
    return v is None or is_num(v)


def check_stats(where, st, samples, problems):
    if not isinstance(st, dict):
        problems.append("%s: stats is not an object" % where)
        return
    for field in STATS_FIELDS:
        if field not in st:
            problems.append("%s: stats.%s missing" % (where, field))
    extra = sorted(set(st) - set(STATS_FIELDS))
    if extra:
        problems.append("%s: stats has unknown fields %s" % (where, extra))
    n = st.get("n")
    if not is_int(n) or n < 0:
        problems.append("%s: stats.n is not a non-negative integer" % where)
    elif isinstance(samples, list) and len(samples) != n:
        problems.append("%s: %d samples but stats.n is %d"
                        % (where, len(samples), n))
    for field in STATS_FIELDS[1:]:
        if field in st and not is_num_or_null(st[field]):
            problems.append("%s: stats.%s is not a number or null"
                            % (where, field))

    def num(field):
        v = st.get(field)
        return v if is_num(v) else None

    lo, med, hi = num("min"), num("median"), num("max")
    if lo is not None and hi is not None and lo > hi:
        problems.append("%s: stats.min %r > stats.max %r" % (where, lo, hi))
    if med is not None:
        if lo is not None and med < lo:
            problems.append("%s: median %r < min %r" % (where, med, lo))
        if hi is not None and med > hi:
            problems.append("%s: median %r > max %r" % (where, med, hi))
        cl, ch = num("ci_low"), num("ci_high")
        if cl is not None and cl > med:
            problems.append("%s: ci_low %r > median %r" % (where, cl, med))
        if ch is not None and med > ch:
            problems.append("%s: median %r > ci_high %r" % (where, med, ch))
    level = num("ci_level")
    if level is not None and not 0 <= level <= 1:
        problems.append("%s: ci_level %r outside [0, 1]" % (where, level))


def check_measurement(i, m, problems):
    where = "measurements[%d]" % i
    if not isinstance(m, dict):
        problems.append("%s: not an object" % where)
        return
    for field in MEAS_STRINGS:
        if not isinstance(m.get(field), str):
            problems.append("%s: %s is not a string" % (where, field))
    if isinstance(m.get("section"), str) and isinstance(m.get("key"), str):
        where = "%s (%s/%s)" % (where, m["section"], m["key"])
    if isinstance(m.get("state"), str) and m["state"] not in STATES:
        problems.append("%s: unknown state %r" % (where, m["state"]))
    batch = m.get("batch")
    if not is_int(batch) or batch < 1:
        problems.append("%s: batch is not an integer >= 1" % where)
    n = m.get("n")
    if not is_int(n) or n < 0:
        problems.append("%s: n is not a non-negative integer" % where)
    for field in ("bytes", "flops"):
        if not is_num_or_null(m.get(field)):
            problems.append("%s: %s is not a number or null" % (where, field))
    samples = m.get("samples")
    if not isinstance(samples, list):
        problems.append("%s: samples is not a list" % where)
        samples = None
    else:
        for j, v in enumerate(samples):
            if not is_num_or_null(v):
                problems.append("%s: samples[%d] is not a number or null"
                                % (where, j))
                break
    check_stats(where, m.get("stats"), samples, problems)


def check_derived(derived, problems):
    """The conclusions: optional (documents from before them lack the list);
    each entry has exactly its keys, a number or null value and fields of
    [a-z0-9_.] names to numbers or null; one entry per section and key."""
    if derived is None:
        return
    if not isinstance(derived, list):
        problems.append("derived is not a list")
        return
    seen = set()
    for i, d in enumerate(derived):
        where = "derived[%d]" % i
        if not isinstance(d, dict):
            problems.append("%s: not an object" % where)
            continue
        for field in DERIVED_STRINGS:
            if not isinstance(d.get(field), str):
                problems.append("%s: %s is not a string" % (where, field))
        extra = sorted(set(d) - DERIVED_KEYS)
        if extra:
            problems.append("%s: unknown keys %s" % (where, extra))
        if not is_num_or_null(d.get("value", 0)) or "value" not in d:
            problems.append("%s: value is not a number or null" % where)
        fields = d.get("fields")
        if not isinstance(fields, dict):
            problems.append("%s: fields is not an object" % where)
        else:
            for k, v in fields.items():
                if not FIELD_NAME.match(k):
                    problems.append("%s: field name %r is not of [a-z0-9_.]" % (where, k))
                if not is_num_or_null(v):
                    problems.append("%s: field %s is not a number or null" % (where, k))
        k = (d.get("section"), d.get("key"))
        if k in seen:
            problems.append("%s: section %r key %r appears twice" % (where, k[0], k[1]))
        seen.add(k)


# What every results file of a program run (-- CMD) names: the GPU, the
# driver's and CUDA's versions, CUPTI, the demangler; each a non-empty
# string ("unknown: <why>" where NVML did not say).
PROGRAM_DEVICE_KEYS = ("program_gpu_name", "program_gpu_uuid", "program_gpu_bus_id",
                       "program_gpu_source", "program_driver_version",
                       "program_cuda_driver_version", "program_cupti_version",
                       "program_demangler")


def check_program_device(env, incomplete, problems):
    if "program_command" not in env or (incomplete and "program_gpu_name" not in env):
        return
    for k in PROGRAM_DEVICE_KEYS:
        v = env.get(k)
        if not isinstance(v, str) or not v.strip():
            problems.append("environment.%s: a program run names it (a non-empty string), "
                            "not %r" % (k, v))
    v = env.get("program_cuda_driver_version")
    if isinstance(v, str) and not v.startswith("unknown: ") and \
            not re.match(r"^[0-9]+\.[0-9]+$", v):
        problems.append("environment.program_cuda_driver_version %r is not MAJOR.MINOR" % v)
    v = env.get("program_gpu_uuid")
    if isinstance(v, str) and not v.startswith("unknown: ") and not v.startswith(("GPU-", "MIG-")):
        problems.append("environment.program_gpu_uuid %r is not NVML's GPU-... form" % v)


PROVENANCE = ("command_line", "started_utc", "hostname", "cpu_model", "os_kernel",
              "harness_version", "harness_commit")
PROVENANCE_OR_NULL = ("gpu", "host_gpus", "driver_version")


def check_provenance(env, problems):
    """How the run was made: every results file the harness writes says it."""
    for k in PROVENANCE:
        if not isinstance(env.get(k), str) or not env[k]:
            problems.append("environment.%s (provenance) is missing or empty" % k)
    for k in PROVENANCE_OR_NULL:
        if k not in env or not (env[k] is None or isinstance(env[k], str)):
            problems.append("environment.%s (provenance) is missing, or not a string or null" % k)
    t = env.get("started_utc")
    if isinstance(t, str) and not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", t):
        problems.append("environment.started_utc is %r, not UTC ISO 8601 (2026-01-31T12:00:00Z)" % t)
    c = env.get("harness_commit")
    if isinstance(c, str) and not re.match(r"^([0-9a-f]{7,40}(-dirty)?|unknown)$", c):
        problems.append("environment.harness_commit is %r, not a commit or unknown" % c)


def check(doc, args, problems):
    if not isinstance(doc, dict):
        problems.append("top level is not an object")
        return 0
    sv = doc.get("schema_version")
    if not is_int(sv) or sv != 1:
        problems.append("schema_version is %r, not 1" % (sv,))
    if "incomplete" in doc and not isinstance(doc["incomplete"], bool):
        problems.append("incomplete is not a boolean")
    env = doc.get("environment")
    if not isinstance(env, dict):
        problems.append("environment is not an object")
    else:
        for k, v in env.items():
            if not (v is None or isinstance(v, str) or is_num(v)):
                problems.append("environment.%s is not a string, number or null"
                                % k)
        check_program_device(env, doc.get("incomplete") is True, problems)

    skipped = doc.get("skipped")
    sections = set()
    if not isinstance(skipped, list):
        problems.append("skipped is not a list")
    else:
        for i, s in enumerate(skipped):
            if not isinstance(s, dict):
                problems.append("skipped[%d]: not an object" % i)
                continue
            for field in ("section", "reason"):
                if not isinstance(s.get(field), str):
                    problems.append("skipped[%d]: %s is not a string"
                                    % (i, field))
            if isinstance(s.get("section"), str):
                sections.add(s["section"])
    for sec in args.expect_skipped or []:
        if sec not in sections:
            problems.append("section %r is not among the skipped" % sec)

    checks = doc.get("checks")
    if not isinstance(checks, list):
        problems.append("checks is not a list")
    else:
        for i, c in enumerate(checks):
            if not isinstance(c, dict):
                problems.append("checks[%d]: not an object" % i)
                continue
            for field in ("section", "what", "detail"):
                if not isinstance(c.get(field), str):
                    problems.append("checks[%d]: %s is not a string"
                                    % (i, field))
            if not isinstance(c.get("passed"), bool):
                problems.append("checks[%d]: passed is not a boolean" % i)
            elif args.expect_checks_pass and not c["passed"]:
                problems.append("checks[%d] failed: %s: %s"
                                % (i, c.get("what"), c.get("detail")))

    if not args.no_provenance and isinstance(env, dict):
        check_provenance(env, problems)
    check_derived(doc.get("derived"), problems)

    meas = doc.get("measurements")
    if not isinstance(meas, list):
        problems.append("measurements is not a list")
        return 0
    seen = set()
    for i, m in enumerate(meas):
        check_measurement(i, m, problems)
        if isinstance(m, dict):
            k = (m.get("section"), m.get("key"))
            if k in seen:
                problems.append("measurements[%d]: section %r key %r appears twice" % (i, k[0], k[1]))
            seen.add(k)
    if args.expect_measurements is not None \
            and len(meas) != args.expect_measurements:
        problems.append("%d measurements, expected %d"
                        % (len(meas), args.expect_measurements))
    return len(meas)


def load_schema(path):
    """({section: [(regex, declaration), ...]} of the measurement keys, the
    same of the derived entries) from the --schema document."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    words = {w: "(?:%s)" % p["regex"] for w, p in doc["placeholders"].items()}

    def compile_key(key):
        out, pos = [], 0
        for m in re.finditer(r"<([A-Za-z]+)>", key):
            out.append(re.escape(key[pos:m.start()]))
            out.append(words[m.group(1)])
            pos = m.end()
        out.append(re.escape(key[pos:]))
        return re.compile("".join(out) + r"\Z")

    return tuple({s["section"]: [(compile_key(k["key"]), k) for k in s[part]]
                  for s in doc["sections"]} for part in ("keys", "derived"))


def check_schema(meas, schema, problems, what="measurements"):
    """Each entry's key matches one declaration of its section, of its unit."""
    for i, m in enumerate(meas):
        if not isinstance(m, dict):
            continue
        sec, key = m.get("section"), m.get("key")
        hits = [k for rx, k in schema.get(sec, []) if rx.match(key or "")]
        if len(hits) > 1:
            # The most specific declaration: the most characters spelled out
            # ("compare.proc<i>.wall" over "compare.<side>.wall").
            spelled = [len(re.sub(r"<[A-Za-z]+>", "", k["key"])) for k in hits]
            hits = [k for k, n in zip(hits, spelled) if n == max(spelled)]
        if not hits:
            problems.append("%s[%d]: %s key %r is not declared" % (what, i, sec, key))
        elif len(hits) > 1:
            problems.append("%s[%d]: %s key %r matches %d declarations: %s"
                            % (what, i, sec, key, len(hits), ", ".join(k["key"] for k in hits)))
        elif hits[0]["unit"] != m.get("unit"):
            problems.append("%s[%d]: %s key %r in %r, declared %r (%s)"
                            % (what, i, sec, key, m.get("unit"), hits[0]["unit"], hits[0]["key"]))


def main():
    ap = argparse.ArgumentParser(
        description="Check the shape of a harness JSON document.")
    ap.add_argument("file")
    ap.add_argument("--expect-measurements", type=int, metavar="N")
    ap.add_argument("--no-provenance", action="store_true",
                    help="a document made by hand: do not ask for the provenance fields")
    ap.add_argument("--expect-skipped", nargs="+", action="append",
                    metavar="SECTION", default=[])
    ap.add_argument("--expect-checks-pass", action="store_true",
                    help="every entry of checks[] must have passed")
    ap.add_argument("--expect-incomplete", action="store_true",
                    help="the document must say \"incomplete\": true")
    ap.add_argument("--expect-complete", action="store_true",
                    help="the document must say \"incomplete\": false")
    ap.add_argument("--expect-env", action="append", default=[], metavar="KEY=JSON",
                    help="environment.KEY must equal the JSON value (null, 3, \"warm\")")
    ap.add_argument("--expect-stopped", metavar="TEXT",
                    help="a stopped run: incomplete is true and environment.stopped "
                    "(why the run stopped) contains TEXT")
    ap.add_argument("--schema", metavar="SCHEMA",
                    help="the keys declared (./harness --schema): every measurement's key "
                    "must match one, of its unit")
    args = ap.parse_args()
    args.expect_skipped = [s for group in args.expect_skipped for s in group]

    problems = []
    try:
        doc = hj.read_json(args.file)
    except hj.Bad as e:
        print(e)
        return 1
    nmeas = check(doc, args, problems)
    if args.schema and isinstance(doc, dict):
        keys, derived = load_schema(args.schema)
        for what, decl in (("measurements", keys), ("derived", derived)):
            if isinstance(doc.get(what), list):
                check_schema(doc[what], decl, problems, what)
    if args.expect_incomplete and (not isinstance(doc, dict)
                                   or doc.get("incomplete") is not True):
        problems.append("incomplete is not true")
    if args.expect_complete and (not isinstance(doc, dict)
                                 or doc.get("incomplete") is not False):
        problems.append("incomplete is not false")
    for spec in args.expect_env:
        key, _, want = spec.partition("=")
        env = doc.get("environment") if isinstance(doc, dict) else None
        got = env.get(key, "(missing)") if isinstance(env, dict) else "(no environment)"
        if got != json.loads(want) or isinstance(got, bool):
            problems.append("environment.%s is %r, expected %s" % (key, got, want))
    if args.expect_stopped is not None and isinstance(doc, dict):
        env = doc.get("environment")
        why = env.get("stopped") if isinstance(env, dict) else None
        if doc.get("incomplete") is not True:
            problems.append("incomplete is not true in a stopped run")
        if not isinstance(why, str) or args.expect_stopped not in why:
            problems.append("environment.stopped is %r, expected it to contain %r"
                            % (why, args.expect_stopped))
    for p in problems:
        print("%s: %s" % (args.file, p))
    if problems:
        return 1
    print("ok: %d measurements" % nmeas)
    return 0


if __name__ == "__main__":
    sys.exit(main())
