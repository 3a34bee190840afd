#!/bin/sh
# test_compare.sh: scripts/compare on the crafted files in tests/compare_cases/
# (the noise rule: within and beyond the noise, few samples, the floor, a
# batch that differs, the host moved or not, several runs a side; the
# earlier interval rule; the threshold, --fail-on-regression, the "--"
# syntax, bad files), its U test against values worked out by hand, a file
# against itself, and the real reference pairs.
# Run from the repository root. Ends with "compare: N passed, N failed".
# shellcheck source=tests/lib.sh
. tests/lib.sh
C=tests/compare_cases
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# run_cmp OUT ERR ARGS...: run scripts/compare, set $rc.
run_cmp() {
    out=$1
    err=$2
    shift 2
    python3 scripts/compare "$@" >"$out" 2>"$err"
    # shellcheck disable=SC2034  # read by expect_exit in tests/lib.sh
    rc=$?
}

{
for f in a b noreg host_a host_b hostq_b noise_a noise_b runs_a1 runs_a2 runs_a3 runs_b1 runs_b2 runs_b3; do
    check "case file $f.json passes check_json.py" python3 tests/check_json.py --no-provenance "$C/$f.json"
done

# The noise rule (the default) on one run a side, noise_a.json against
# noise_b.json (environment max_noise 0.01 in both: a floor of 1% + 1%).
# The noise of 10 samples 100, 101, ..., 109 is half the 2.5th-97.5th
# percentile range: positions 0.225 and 8.775, so (108.775 - 100.225) / 2 =
# 4.275, 4.1% of the median 104.5. p values by hand as in the U tests below.
run_cmp "$T/n.out" "$T/n.err" "$C/noise_a.json" "$C/noise_b.json"
expect_exit "noise_a.json vs noise_b.json" 0
expect_grep "the header names the rule and the floor, 1% + 1%" \
    '^B: .*rule noise, threshold 0%, noise floor 2%)$' "$T/n.out"
# B = A + 4: a rank test calls it (U = 18, ties: p = 0.0170) but 4 < 4.275.
expect_grep "B = A + 4 lies within A's noise (4.275 of 104.5): SAME though p = 0.017" \
    '^compare/within  *ms  *104\.5  *108\.5  *+3\.8%  *4\.1%  *0\.0170  SAME$' "$T/n.out"
expect_grep "B = A + 5 lies beyond either side's noise, p = 0.0051: SLOWER" \
    '^compare/beyond  *ms .* +4\.8%  *4\.1%  *0\.0051  SLOWER$' "$T/n.out"
# A: 100.0 ... 100.9 (noise 0.43); B: 95, 97, ..., 113 (noise (112.55 - 95.45) / 2 = 8.55).
expect_grep "within the noise of either side: +3.5% inside B's 8.55 (8.5% of A's median): SAME" \
    '^compare/either  *ms .* +3\.5%  *8\.5% .* SAME$' "$T/n.out"
expect_grep "3 samples a side, apart: beyond the noise, but 3 against 3 gives p = 0.1: UNCLEAR" \
    '^compare/three  *ms .* 0\.1000  UNCLEAR (p >= 0\.01)$' "$T/n.out"
expect_grep "5 samples a side, apart: exact p = 2/252: SLOWER" '^compare/five  *ms .* 0\.0079  SLOWER$' "$T/n.out"
expect_grep "tight samples 1.5% apart: under the 2% floor (what --max-noise promised): SAME" \
    '^compare/floor  *ms .* +1\.5%  *2\.0% .* SAME$' "$T/n.out"
expect_grep "tight samples 3% apart: past the floor: SLOWER" '^compare/past_floor  *ms .* +3\.0%  *2\.0% .* SLOWER$' "$T/n.out"
expect_grep "batch 2 against batch 3, 20% apart: not the same measurement: UNCLEAR" \
    '^compare/batch  *ms .* +20\.0% .* UNCLEAR (batch 2 vs 3)$' "$T/n.out"
expect_grep "all zeros on both sides: SAME" '^compare/zero  *ms .* SAME$' "$T/n.out"
expect_grep "2 samples a side: the noise is unknown: UNCLEAR" '^compare/few  *ms .* UNCLEAR (few samples)$' "$T/n.out"
expect_grep "a first launch, 1 sample a side, different: UNCLEAR" '^compare/first  *ms .* UNCLEAR (few samples)$' "$T/n.out"
expect_grep "a first launch, 1 sample a side, equal: SAME" '^compare/first_same  *ms .* SAME$' "$T/n.out"
check "a non-time unit (MiB) gets no row" sh -c "! grep -q 'compare/memory' '$T/n.out'"
check "no CPU-only figure and nothing host-bound flagged: no host speed line" sh -c "! grep -q '^host speed' '$T/n.out'"
expect_grep "the summary counts every verdict" \
    '^summary: 0 FASTER, 3 SLOWER, 5 SAME, 4 UNCLEAR, 0 HOST, 0 only in one side (0 only in A, 0 only in B); 1 skipped' "$T/n.out"
run_cmp "$T/n5.out" "$T/n5.err" "$C/noise_a.json" "$C/noise_b.json" --threshold=5
expect_grep "+4.8% beyond the noise but under --threshold=5: SAME" '^compare/beyond  *ms .* +4\.8% .* SAME$' "$T/n5.out"
expect_grep "--threshold=5 leaves +23.8% SLOWER" '^compare/five  *ms .* SLOWER$' "$T/n5.out"
run_cmp "$T/ni.out" "$T/ni.err" "$C/noise_a.json" "$C/noise_b.json" --rule=interval
expect_grep "the earlier rule on B = A + 4: the intervals overlap but p < 0.05: UNCLEAR" \
    '^compare/within  *ms .* 0\.0170  UNCLEAR$' "$T/ni.out"
run_cmp "$T/nf.out" "$T/nf.err" "$C/noise_a.json" "$C/noise_b.json" --fail-on-regression
expect_exit "--fail-on-regression with one run a side: refused (exit 2)" 2
expect_grep "... it says it needs 3 or more runs a side" \
    '^compare: --fail-on-regression needs 3 or more runs a side to gate, not 1 against 1' "$T/nf.err"
check "... in one line, and prints no table" sh -c "test \"\$(wc -l <'$T/nf.err')\" -eq 1 && ! test -s '$T/nf.out'"
run_cmp "$T/nf.out" "$T/nf.err" "$C/runs_a1.json" "$C/runs_a2.json" -- "$C/runs_b1.json" "$C/runs_b2.json" \
    --fail-on-regression
expect_exit "--fail-on-regression with 2 runs a side: refused (exit 2)" 2

# A file against itself: every figure SAME (the first launches too).
run_cmp "$T/s.out" "$T/s.err" "$C/noise_a.json" "$C/noise_a.json"
expect_grep "noise_a.json against itself: every figure SAME" \
    '^summary: 0 FASTER, 0 SLOWER, 12 SAME, 0 UNCLEAR, 0 HOST, 0 only' "$T/s.out"
run_cmp "$T/s.out" "$T/s.err" results/h200.json results/h200.json
expect_grep "results/h200.json against itself: every figure SAME" \
    '^summary: 0 FASTER, 0 SLOWER, [1-9][0-9]* SAME, 0 UNCLEAR, 0 HOST, 0 only' "$T/s.out"

# The host: host_b.json's yardstick launch/host.ref is 10% slower, beyond
# its noise (4.275 of 104.5 in A, 4.7 of 115 in B, 4.5% of A's median).
run_cmp "$T/host.out" "$T/host.err" "$C/host_a.json" "$C/host_b.json"
expect_exit "host_a.json vs host_b.json" 0
expect_grep "the yardstick beyond its noise: HOST (it is the host)" '^launch/host\.ref  *us .* +10\.0%  *4\.5% .* HOST$' "$T/host.out"
expect_grep "a host-bound figure 30% slower while the host moved: HOST" '^compare/hostbound  *ms .* +30\.0% .* HOST$' "$T/host.out"
expect_grep "a device figure 30% slower while the host moved: still SLOWER" '^compare/device  *ms .* +30\.0% .* SLOWER$' "$T/host.out"
expect_grep "a host-bound figure within its noise: SAME" '^compare/hostwithin  *ms .* +1\.0% .* SAME$' "$T/host.out"
expect_grep "the host speed line names the yardstick's move" \
    '^host speed: 1 CPU-only figure .* changed by +10\.0%' "$T/host.out"
expect_grep "... beyond its noise" '^  beyond their noise: launch/host\.ref +10\.0%$' "$T/host.out"
expect_grep "... and says the host, not the code, moved" 'so the host itself ran at another speed' "$T/host.out"
expect_grep "... and which verdicts that explains" '^  2 host-bound figures (host clocks' "$T/host.out"
expect_grep "the summary counts HOST" '^summary: 0 FASTER, 1 SLOWER, 1 SAME, 0 UNCLEAR, 2 HOST,' "$T/host.out"
run_cmp "$T/hn.out" "$T/hn.err" "$C/host_a.json" "$C/host_b.json" --rule=noise-nohost
expect_grep "--rule=noise-nohost: the host-bound figure judged as measured: SLOWER" \
    '^compare/hostbound  *ms .* SLOWER$' "$T/hn.out"
expect_grep "--rule=noise-nohost: no HOST" '^summary: 0 FASTER, 3 SLOWER, 1 SAME, 0 UNCLEAR, 0 HOST,' "$T/hn.out"
# HOST is not a regression: host_b.json without its device figure.
python3 - "$C/host_b.json" "$T/hostonly.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["measurements"] = [m for m in doc["measurements"] if m["key"] != "device"]
json.dump(doc, open(sys.argv[2], "w"))
PY
run_cmp "$T/ho.out" "$T/ho.err" "$C/host_a.json" "$C/host_a.json" "$C/host_a.json" -- \
    "$T/hostonly.json" "$T/hostonly.json" "$T/hostonly.json" --fail-on-regression
expect_exit "--fail-on-regression when only HOST rows moved (3 runs a side)" 0
# The yardstick 2% slower, within its noise: the host ran at the same speed.
run_cmp "$T/hq.out" "$T/hq.err" "$C/host_a.json" "$C/hostq_b.json"
expect_grep "a yardstick +2% within its noise: SAME" '^launch/host\.ref  *us .* +2\.0% .* SAME$' "$T/hq.out"
expect_grep "the host did not move: the host-bound figure 30% slower is SLOWER" '^compare/hostbound  *ms .* SLOWER$' "$T/hq.out"
expect_grep "the host speed line says the host ran at the same speed" '^  each within its noise: the host ran at the same speed' "$T/hq.out"

# Several runs a side: runs_a1..3 against runs_b1..3. "spread": tight
# samples, run medians 10.0045, 11.0045, 12.0045 against 0.5 more each; the
# medians' half band (11.9545 - 10.0545) / 2 = 0.95, 8.6% of 11.0045.
# "real": run medians 10.0045 + 0.1 i against 12.0045 + 0.1 i. "first": one
# sample a run, 5.0, 5.1, 5.2 against 6.0, 6.1, 6.2: with several runs a side
# the runs are the samples (Welch's t on the medians): t = 1.0 / sqrt(0.01/3 +
# 0.01/3) = 12.247, 4 degrees of freedom; for 4, P(|T| < t) = x (1 + (1 - x^2)/2)
# with x = t / sqrt(4 + t^2) = 0.986893, so p = 2.6e-04. "uneven": not in runs_a3.
run_cmp "$T/r3.out" "$T/r3.err" "$C/runs_a1.json" "$C/runs_a2.json" "$C/runs_a3.json" -- \
    "$C/runs_b1.json" "$C/runs_b2.json" "$C/runs_b3.json"
expect_exit "3 runs a side" 0
expect_grep "3 runs a side: the header names them" '^A: 3 runs: .*runs_a1\.json, .*runs_a2\.json, .*runs_a3\.json$' "$T/r3.out"
expect_grep "3 runs a side: +4.5% within the spread between runs (8.6%): SAME" \
    '^compare/spread  *ms  *11\.00  *11\.50  *+4\.5%  *8\.6% .* SAME$' "$T/r3.out"
expect_grep "3 runs a side: +19.8%, runs 0.1 apart: SLOWER" '^compare/real  *ms .* +19\.8% .* SLOWER$' "$T/r3.out"
expect_grep "3 runs a side of one sample each: the runs as samples, t test p = 2.6e-04: SLOWER" \
    '^compare/first  *ms .* 2\.6e-04  SLOWER$' "$T/r3.out"
expect_grep "a measurement missing from one run of A is left out, named" \
    '^left out, not in every run of a side: 1 measurement (compare/uneven)$' "$T/r3.out"
run_cmp "$T/r1.out" "$T/r1.err" "$C/runs_a1.json" "$C/runs_b1.json"
expect_grep "one run a side: the same +5% beyond the within-run noise: SLOWER" \
    '^compare/spread  *ms .* +5\.0%  *2\.0% .* SLOWER$' "$T/r1.out"
run_cmp "$T/r2.out" "$T/r2.err" "$C/runs_a1.json" "$C/runs_a2.json" -- "$C/runs_b1.json" "$C/runs_b2.json"
expect_grep "2 runs a side of one sample each: the noise is unknown: UNCLEAR" \
    '^compare/first  *ms .* UNCLEAR (few samples)$' "$T/r2.out"
run_cmp "$T/r4.out" "$T/r4.err" "$C/runs_a2.json" -- "$C/runs_b1.json" "$C/runs_b2.json" "$C/runs_b3.json"
expect_exit "1 run against 3" 0
expect_grep "1 run against 3: +4.5% within B's spread between runs (0.95 of 11.0045): SAME" \
    '^compare/spread  *ms .* +4\.5%  *8\.6% .* SAME$' "$T/r4.out"

# The earlier rule, --rule=interval, on the crafted pair a.json, b.json.
run_cmp "$T/ab.out" "$T/ab.err" "$C/a.json" "$C/b.json" --rule=interval
expect_exit "a.json vs b.json" 0
expect_grep "all B samples 20% higher: SLOWER" '^compare/slower  *ms .* +20\.0% .* SLOWER$' "$T/ab.out"
expect_grep "all B samples 20% lower: FASTER" '^compare/faster  *ms .* -20\.0% .* FASTER$' "$T/ab.out"
expect_grep "identical samples: SAME, p = 1" '^compare/same  *ms .* 1\.0000  SAME$' "$T/ab.out"
expect_grep "2 samples a side: UNCLEAR" '^compare/few  *ms .* UNCLEAR$' "$T/ab.out"
expect_grep "intervals overlap but p < 0.05: UNCLEAR" '^compare/overlap_sig  *ms .* 0\.0257  UNCLEAR$' "$T/ab.out"
expect_grep "intervals apart but p = 0.1: UNCLEAR" '^compare/apart_nosig  *ms .* 0\.1000  UNCLEAR$' "$T/ab.out"
expect_grep "+5% with intervals apart, no threshold: SLOWER" '^compare/small  *ms .* +5\.0% .* SLOWER$' "$T/ab.out"
expect_grep "the same times in us against ms: SAME" '^compare/units  *ms .* +0\.0% .* SAME$' "$T/ab.out"
expect_grep "n = 5 a side, exact p = 2/252: SLOWER" '^compare/five  *ms .* 0\.0079  SLOWER$' "$T/ab.out"
expect_grep "a measurement only in A is named" '^only in A: compare/only_a$' "$T/ab.out"
expect_grep "a measurement only in B is named" '^only in B: compare/only_b$' "$T/ab.out"
check "rows only in one file get no verdict row" sh -c "! grep -q '^compare/only_' '$T/ab.out'"
expect_grep "the summary line counts every verdict" \
    '^summary: 1 FASTER, 3 SLOWER, 2 SAME, 3 UNCLEAR, 0 HOST, 2 only in one side (1 only in A, 1 only in B); 1 skipped' "$T/ab.out"

run_cmp "$T/t.out" "$T/t.err" "$C/a.json" "$C/b.json" --threshold=10 --rule=interval
expect_exit "--threshold=10" 0
expect_grep "+5% under --threshold=10: SAME" '^compare/small  *ms .* +5\.0% .* SAME$' "$T/t.out"
expect_grep "+20% over --threshold=10: still SLOWER" '^compare/slower  *ms .* SLOWER$' "$T/t.out"
run_cmp "$T/t2.out" "$T/t2.err" "$C/a.json" "$C/b.json" --threshold=200 --rule=interval
expect_grep "a change under --threshold is SAME even where the intervals and the test disagree" \
    '^compare/overlap_sig  *ms .* +163\.6% .* SAME$' "$T/t2.out"
expect_grep "too few samples stays UNCLEAR under any --threshold" '^compare/few  *ms .* UNCLEAR$' "$T/t2.out"
run_cmp "$T/t3.out" "$T/t3.err" "$C/a.json" "$C/b.json" --threshold=200
expect_grep "the noise rule: too few samples stays UNCLEAR under any --threshold" \
    '^compare/few  *ms .* UNCLEAR (few samples)$' "$T/t3.out"

RA="$C/runs_a1.json $C/runs_a2.json $C/runs_a3.json"
RB="$C/runs_b1.json $C/runs_b2.json $C/runs_b3.json"
# shellcheck disable=SC2086
run_cmp "$T/f.out" "$T/f.err" $RA -- $RB --fail-on-regression
expect_exit "--fail-on-regression with a slowdown, 3 runs a side" 1
# shellcheck disable=SC2086
run_cmp "$T/f.out" "$T/f.err" --fail-on-regression $RB -- $RA
expect_exit "--fail-on-regression, only speedups, 3 runs a side" 0
# shellcheck disable=SC2086
run_cmp "$T/f.out" "$T/f.err" $RA -- $RA --fail-on-regression
expect_exit "--fail-on-regression, the same runs on both sides" 0
expect_grep "the same runs on both sides: no SLOWER row, no FASTER" '^summary: 0 FASTER, 0 SLOWER, ' "$T/f.out"
# shellcheck disable=SC2086
run_cmp "$T/f.out" "$T/f.err" $RA -- $RB --fail-on-regression --threshold 25
expect_exit "--fail-on-regression, every slowdown under --threshold 25 (a space, as the harness takes it)" 0
# --only-changed and --format=md|json.
run_cmp "$T/oc.out" "$T/oc.err" "$C/a.json" "$C/b.json" --only-changed
check "--only-changed: no SAME row, the others there, the SAME rows counted" sh -c \
    "! grep -q ' SAME\$' '$T/oc.out' && grep -q '^compare/slower .* SLOWER\$' '$T/oc.out' &&
     grep -q '^(--only-changed: 3 SAME rows not shown)\$' '$T/oc.out'"
expect_grep "--only-changed: the summary still counts every verdict" '^summary: 1 FASTER, 3 SLOWER, 3 SAME' "$T/oc.out"
run_cmp "$T/md.out" "$T/md.err" "$C/a.json" "$C/b.json" --format=md --only-changed
check "--format=md: a Markdown table of the rows not SAME, then the summary" sh -c \
    "grep -q '^| measurement | unit | median A | median B | change | noise | p | verdict |\$' '$T/md.out' &&
     grep -q '^| \`compare/slower\` | ms | .* | \*\*SLOWER\*\* |\$' '$T/md.out' && ! grep -q ' SAME |' '$T/md.out' &&
     tail -1 '$T/md.out' | grep -q '^summary: '"
run_cmp "$T/js.out" "$T/js.err" "$C/a.json" "$C/b.json" --format json
check "--format json: one object, its rows and counts as the table's" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
v = {r['key']: r['verdict'] for r in d['rows']}
assert v['compare/slower'] == 'SLOWER' and v['compare/faster'] == 'FASTER', v
assert d['counts']['SLOWER'] == 3 and d['regression'] is True and d['a'] and d['b'], d['counts']" "$T/js.out"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --format=html
expect_exit "--format=html: usage error" 2

run_cmp "$T/m.out" "$T/m.err" "$C/a.json" "$T/missing.json"
expect_exit "a missing file" 2
expect_grep "a missing file is named" "missing\.json" "$T/m.err"
run_cmp "$T/m.out" "$T/m.err" "$C/malformed.json" "$C/b.json"
expect_exit "a malformed file" 2
expect_grep "a malformed file is named" "malformed\.json" "$T/m.err"
check "the error is one line" test "$(wc -l <"$T/m.err")" -eq 1
run_cmp "$T/m.out" "$T/m.err" "$C/a.json" "$C/schema2.json"
expect_exit "schema_version 2" 2
expect_grep "the file with the wrong schema is named" "schema2\.json" "$T/m.err"
# One rule for a repeated key (scripts/harness_json.py): an error naming it.
python3 - "$C/noreg.json" "$T/dupkey.json" "$T/dupmeas.json" <<'PY'
import json, sys
src = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(src.replace('"gpu": "crafted",', '"gpu": "crafted", "gpu": "again",', 1))
doc = json.loads(src)
doc["measurements"].append(dict(doc["measurements"][0]))
open(sys.argv[3], "w").write(json.dumps(doc))
PY
run_cmp "$T/m.out" "$T/m.err" "$C/a.json" "$T/dupkey.json"
expect_exit "a key repeated in an object" 2
expect_grep "the repeated key is named, with its file" "dupkey\.json: .*repeated key 'gpu'" "$T/m.err"
run_cmp "$T/m.out" "$T/m.err" "$T/dupmeas.json" "$C/a.json"
expect_exit "a measurement repeated (section and key)" 2
expect_grep "the repeated measurement is named, with its file" "dupmeas\.json: measurements\[4\] repeats compare/faster" "$T/m.err"
# Hostile files: one line naming the file, exit 2, never a traceback.
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
open(t + "/deep.json", "w").write("[" * 100000 + "]" * 100000)
open(t + "/bigint.json", "w").write('{"schema_version": 1, "measurements": [{"section": "a", "key": "b", '
                                    '"unit": "ms", "samples": [1' + "0" * 400 + '], "stats": {}}]}')
open(t + "/bigfloat.json", "w").write('{"schema_version": 1, "measurements": [{"section": "a", "key": "b", '
                                      '"unit": "ms", "samples": [1e400], "stats": {}}]}')
PY
for v in true 1.0; do
    sed "s/\"schema_version\": 1,/\"schema_version\": $v,/" "$C/noreg.json" >"$T/sv.json"
    run_cmp "$T/m.out" "$T/m.err" "$T/sv.json" "$C/a.json"
    expect_exit "schema_version $v is not the integer 1" 2
done
for f in deep bigint bigfloat; do
    run_cmp "$T/m.out" "$T/m.err" "$T/$f.json" "$C/a.json"
    expect_exit "$f.json (nested 100,000 deep, an integer of 401 digits, 1e400)" 2
    check "$f.json: one line naming the file, no traceback" \
        sh -c "test \"\$(wc -l <'$T/m.err')\" -eq 1 && grep -q '$f\\.json: not valid JSON' '$T/m.err'"
done
# A gzip-compressed file (.gz) reads as the file it holds; a .gz that is not
# gzip, or is cut short, is one line naming it, exit 2.
gzip -c "$C/a.json" >"$T/a.json.gz"
run_cmp "$T/gz.out" "$T/gz.err" "$T/a.json.gz" "$C/a.json"
expect_exit "a.json.gz against a.json" 0
expect_grep "a.json.gz against a.json: every figure SAME" '^summary: 0 FASTER, 0 SLOWER, [1-9][0-9]* SAME, 0 UNCLEAR' "$T/gz.out"
cp "$C/a.json" "$T/plain.json.gz"
gzip -c "$C/a.json" | head -c 60 >"$T/cut.json.gz"
for f in plain cut; do
    run_cmp "$T/m.out" "$T/m.err" "$T/$f.json.gz" "$C/a.json"
    expect_exit "$f.json.gz (not gzip; cut short)" 2
    check "$f.json.gz: one line naming the file, no traceback" \
        sh -c "test \"\$(wc -l <'$T/m.err')\" -eq 1 && grep -q '$f\\.json\\.gz: not gzip-compressed JSON' '$T/m.err'"
done
run_cmp "$T/u.out" "$T/u.err" "$C/a.json"
expect_exit "one file only: usage error" 2
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --threshold=abc
expect_exit "--threshold=abc: usage error" 2
expect_grep "--threshold=abc is named" "threshold" "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --frobnicate
expect_exit "an unknown option: usage error" 2
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" "$C/noreg.json"
expect_exit "three files without --: usage error" 2
expect_grep "... which says to put runs around --" 'needs two files, or runs of each side around "--"; got 3 files' "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" -- "$C/b.json" -- "$C/noreg.json"
expect_exit "-- twice: usage error" 2
expect_grep "... named" '"--" given twice' "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --
expect_exit "no run after --: usage error" 2
expect_grep "... names the empty side B" 'no run of B: name at least one file on each side of "--"' "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" -- "$C/a.json" "$C/b.json"
expect_exit "no run before --: usage error" 2
expect_grep "... names the empty side A" 'no run of A:' "$T/u.err"
check "each usage error is one line" test "$(wc -l <"$T/u.err")" -eq 1
run_cmp "$T/u.out" "$T/u.err" "$C/runs_a1.json" "$C/runs_a2.json" -- "$C/runs_b1.json" --rule=interval
expect_exit "--rule=interval with two runs of A: usage error" 2
expect_grep "... says the earlier rule takes one run a side" 'interval compares one run a side, not 2 against 1' "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --rule=magic
expect_exit "--rule=magic: usage error" 2
expect_grep "... names the rules" 'rule=magic: not a rule (noise, noise-nohost, interval)' "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" -- "$C/missing.json" "$C/b.json"
expect_exit "a missing file among the runs" 2
expect_grep "... is named" 'missing\.json' "$T/u.err"

# scripts/reference.sh --runs=N: N runs kept as results/NAME-1..N, each with
# its command, run here by a stand-in that writes the JSON it is asked for.
ROOT=$(pwd)
mkdir -p "$T/ref"
# shellcheck disable=SC2016  # the stand-in's own $@, unexpanded here
printf '#!/bin/sh\nfor a in "$@"; do case $a in --json=*) echo "{}" >"${a#--json=}" ;; esac; done\n' >"$T/ref/h"
chmod +x "$T/ref/h"
(cd "$T/ref" && HARNESS=./h sh "$ROOT/scripts/reference.sh" --runs=3 base --section=launch >out 2>err)
check "reference.sh --runs=3 makes base-1..3 with their JSON and command" sh -c \
    "cd '$T/ref/results' && test -s base-1.json && test -s base-3.json && ! test -e base-4.json && grep -q -- '--section=launch --json=results/base-2.json' base-2.cmd"
expect_grep "reference.sh --runs=3 prints the compare command for them" \
    '^  scripts/compare results/base-1.json results/base-2.json results/base-3.json -- ' "$T/ref/out"
for n in 0 x 101; do
    (cd "$T/ref" && HARNESS=./h sh "$ROOT/scripts/reference.sh" --runs=$n base >out 2>err)
    rc=$?
    expect_exit "reference.sh --runs=$n: usage error" 2
done
expect_grep "... named" 'reference.sh: --runs=101: expected a whole number, 1 to 100' "$T/ref/err"

# tests/gpu/abtest.py on real runs with the slowdowns planted by hand: A is
# results/h200.json and h200-2.json, B the two launch,fusion runs with the
# samples of copy4 and wide4 at n = 67,108,864 and 268,435,456 scaled by 1.5
# and 1.1 (the rest of B is the same code as A).
python3 - results "$T" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
for name, f, scale in (("a1", "h200", False), ("a2", "h200-2", False),
                       ("b1", "h200-launch-fusion-1", True), ("b2", "h200-launch-fusion-2", True)):
    doc = json.load(open("%s/%s.json" % (src, f)))
    doc["measurements"] = [m for m in doc["measurements"] if m["section"] in ("launch", "fusion")]
    for m in doc["measurements"]:
        size, _, tail = m["key"].partition(".")
        x = {"copy4": 1.5, "wide4": 1.1}.get(tail.replace(".cold", ""), 1.0)
        if scale and size in ("n=67108864", "n=268435456") and x != 1.0:
            m["samples"] = [v * x for v in m["samples"]]
            for k in ("min", "median", "mean", "max", "stdev", "ci_low", "ci_high"):
                m["stats"][k] *= x
    json.dump(doc, open("%s/ab-%s.json" % (out, name), "w"))
PY
python3 tests/gpu/abtest.py --a "$T/ab-a1.json" "$T/ab-a2.json" --b "$T/ab-b1.json" "$T/ab-b2.json" >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_exit "abtest.py on two runs a side" 0
expect_grep "abtest.py: +50% planted on copy4: every target verdict SLOWER, 4 figures x 4 pairs" \
    '^    copy4, +50% predicted: 16 of 16 target verdicts SLOWER .*; measured +\(49\|5[01]\)\.[0-9]%' "$T/ab.out"
expect_grep "abtest.py: +10% planted on wide4: every target verdict SLOWER" \
    '^    wide4, +10% predicted: 16 of 16 target verdicts SLOWER .*; measured +9\.[0-9]%' "$T/ab.out"
expect_grep "abtest.py: the A/A share for each rule" '^  A/A, one run a side: [0-9.]*% flagged FASTER or SLOWER' "$T/ab.out"
expect_grep "abtest.py: the other figures of A/B, an A/A too" '^    every other figure (the same code on both sides' "$T/ab.out"
expect_grep "abtest.py: a README line per rule" '^| noise | [0-9.]*% | [0-9.]*% | [0-9.]*% | n/a | 16/16 | 16/16 | ' "$T/ab.out"
expect_grep "abtest.py: ... the earlier rule too" '^| interval | ' "$T/ab.out"
python3 tests/gpu/abtest.py --a "$T/ab-a1.json" --b "$T/ab-b1.json" "$T/ab-b2.json" >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_exit "abtest.py with one run of A: usage error" 2
python3 tests/gpu/abtest.py --a "$T/ab-a1.json" "$T/ab-a2.json" --b "$T/ab-b1.json" "$T/ab-b2.json" --c "$T/ab-a1.json" >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_exit "abtest.py with one run of C: usage error" 2
python3 tests/gpu/abtest.py --a "$T/ab-a1.json" --b "$T/ab-b1.json" "$T/ab-b2.json" --c "$T/ab-a1.json" "$T/ab-a2.json" >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_exit "abtest.py with one run of A and two of C: usage error" 2
python3 tests/gpu/abtest.py --a "$T/ab-a1.json" "$T/ab-a2.json" --b "$T/ab-b1.json" "$T/ab-b2.json" --c "$T/ab-a2.json" "$T/ab-a1.json" >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_exit "abtest.py with a control" 0
expect_grep "abtest.py with a control: C/B finds both planted slowdowns" \
    '^  C/B, one run a side (4 comparisons):' "$T/ab.out"
expect_grep "abtest.py with a control: C/B copy4 16 of 16" \
    '^    copy4, +50% predicted: 16 of 16 target verdicts SLOWER' "$T/ab.out"
expect_grep "abtest.py with a control: A and C joined, 2 runs against 2" \
    '^  A and C as one build, 2 runs against 2: ' "$T/ab.out"
expect_grep "abtest.py with a control: the README line's several-runs cell names A and C" \
    '^| noise | [0-9.]*% | [0-9.]*% | [0-9.]*% | [0-9.]*% (2 runs against 2, A and C) | 16/16 | 16/16 | ' "$T/ab.out"
# tests/gpu/abtest.sh end to end on a stand-in harness that records its
# arguments and writes a crafted run: the kernel edits take, A and B
# alternate, B gets --kernels-dir, and the report follows.
mkdir -p "$T/abt"
# shellcheck disable=SC2016  # the stand-in's own $*, unexpanded here
printf '#!/bin/sh\necho "$*" >>"%s/abt/args"\nfor a in "$@"; do case $a in --json=*) cp "%s/%s/noise_a.json" "${a#--json=}" ;; esac; done\n' \
    "$T" "$ROOT" "$C" >"$T/abt/h"
chmod +x "$T/abt/h"
HARNESS="$T/abt/h" OUT="$T/abt" AB_KEEP="$T/abt/keep" RUNS=2 sh tests/gpu/abtest.sh >"$T/abt/out" 2>"$T/abt/err"
rc=$?
expect_exit "abtest.sh on a stand-in harness" 0
expect_grep "abtest.sh: copyFloat4's edit took (shown as a diff)" \
    '^+.*float4 v = in\[i\], e = in\[(i + n4 / 2) % n4\]; /\* planted' "$T/abt/out"
expect_grep "abtest.sh: chainFusedWide<4>'s edit took" '^+    if (K == 4) { /\* planted' "$T/abt/out"
check "abtest.sh: only copy.cu and fusion.cu differ from kernels/" sh -c \
    "cd kernels && for f in *.cu; do case \$f in copy.cu|fusion.cu) ! cmp -s \$f '$T/abt/ab/kernels-b/'\$f || exit 1 ;; *) cmp -s \$f '$T/abt/ab/kernels-b/'\$f || exit 1 ;; esac; done"
check "abtest.sh: the control's kernels are kernels/ unchanged" sh -c \
    "cd kernels && for f in *.cu; do cmp -s \$f '$T/abt/ab/kernels-c/'\$f || exit 1; done"
check "abtest.sh: A C B, then C B A; B and C with their --kernels-dir, each its own JSON" sh -c \
    "printf '%s\n' '--json=.*/a1\.json' '--kernels-dir=.*kernels-c --json=.*/c1\.json' '--kernels-dir=.*kernels-b --json=.*/b1\.json' '--kernels-dir=.*kernels-c --json=.*/c2\.json' '--kernels-dir=.*kernels-b --json=.*/b2\.json' '--json=.*/a2\.json' >'$T/abt/want' && test \$(wc -l <'$T/abt/args') -eq 6 && i=1 && while read -r w; do sed -n \${i}p '$T/abt/args' | grep -q \"^\$w\\\$\" || exit 1; i=\$((i + 1)); done <'$T/abt/want'"
check "abtest.sh: AB_KEEP holds each run gzipped" sh -c \
    "cd '$T/abt/keep' && test \$(ls | wc -l) -eq 6 && for f in a1 a2 b1 b2 c1 c2; do gzip -dc \$f.json.gz | cmp -s - '$T/abt/ab/'\$f.json || exit 1; done"
expect_grep "abtest.sh: then the report, with the control" '^  A/C, one run a side (the same code' "$T/abt/out"
expect_grep "abtest.sh: ... and its README line" '^| noise | .* | [0-9.]*% | [0-9.]*% |$' "$T/abt/out"
rm -f "$T/abt/args"
HARNESS="$T/abt/h" OUT="$T/abt" CONTROL=0 RUNS=2 sh tests/gpu/abtest.sh >"$T/abt/out" 2>"$T/abt/err"
rc=$?
expect_exit "abtest.sh with CONTROL=0" 0
check "abtest.sh with CONTROL=0: A B, then B A, no control" sh -c \
    "test \$(wc -l <'$T/abt/args') -eq 4 && ! grep -q kernels-c '$T/abt/args' && sed -n 3p '$T/abt/args' | grep -q 'kernels-b --json=.*/b2\.json' && ! grep -q '^  A/C' '$T/abt/out'"
CONTROL=2 sh tests/gpu/abtest.sh >"$T/abt/out" 2>"$T/abt/err"
rc=$?
expect_exit "abtest.sh with CONTROL=2: usage error" 2
RUNS=1 sh tests/gpu/abtest.sh >"$T/abt/out" 2>"$T/abt/err"
# shellcheck disable=SC2034  # read by expect_exit in tests/lib.sh
rc=$?
expect_exit "abtest.sh with RUNS=1: usage error" 2

# The U test against p-values worked out by hand.
python3 - <<'PY'
import importlib.util
import math
from importlib.machinery import SourceFileLoader
loader = SourceFileLoader("compare", "scripts/compare")   # no .py suffix
cmp = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", loader))
loader.exec_module(cmp)

def expect(desc, a, b, want, method):
    u, p, how = cmp.mann_whitney_u(a, b)
    ok = abs(p - want) < 1e-9 and how == method
    print("%s U test: %s (p %.9g, expected %.9g, %s)"
          % ("PASSED" if ok else "FAILED", desc, p, want, how))

# Exact: of the C(6,3) = 20 ways to split 6 ranks, one puts all of A lowest
# and one all highest: p = 2/20.
expect("exact, [1,2,3] vs [4,5,6]: 2/20", [1, 2, 3], [4, 5, 6], 0.1, "exact")
# C(8,4) = 70 splits: p = 2/70.
expect("exact, [1..4] vs [5..8]: 2/70", [1, 2, 3, 4], [5, 6, 7, 8], 2 / 70, "exact")
# U_A = 1 (only 3 > 2.5): P(U <= 1) = 2 splits of 20, p = 4/20.
expect("exact, [1,2,3] vs [2.5,4,5]: 4/20", [1, 2, 3], [2.5, 4, 5], 0.2, "exact")
# Normal, no ties: n = 10 a side, U = 0, mean 50, var 10*10*21/12 = 175,
# z = (50 - 0.5)/sqrt(175), p = erfc(z/sqrt 2).
expect("normal, [1..10] vs [11..20], U = 0",
       list(range(1, 11)), list(range(11, 21)),
       math.erfc((50 - 0.5) / math.sqrt(175) / math.sqrt(2)), "normal")
# Normal with ties: A = 1..8, B = 5..12, n = 8 a side. Pairs A > B count 1, ties
# 1/2: A's 5, 6, 7, 8 give 0.5, 1.5, 2.5, 3.5, U = 8. Four tie groups of 2:
# var = 8*8/12 * (17 - 4*(2^3-2)/(16*15)) = 64/12 * 16.9.
expect("normal with ties, [1..8] vs [5..12], U = 8",
       list(range(1, 9)), list(range(5, 13)),
       math.erfc((32 - 8 - 0.5) / math.sqrt(64 / 12 * 16.9) / math.sqrt(2)), "normal")
# Small with ties: falls back to the normal approximation. [1,2,2] vs [2,3,4]:
# U = 0.5 + 0.5 = 1, mean 4.5, ties one group of 3: var = 9/12*(7 - 24/30).
expect("small with ties falls back to normal, [1,2,2] vs [2,3,4]",
       [1, 2, 2], [2, 3, 4],
       math.erfc((4.5 - 1 - 0.5) / math.sqrt(9 / 12 * (7 - 24 / 30)) / math.sqrt(2)), "normal")
# Symmetry: swapping A and B leaves p.
pa = cmp.mann_whitney_u([0.3, 1.2, 2.2, 0.9], [1.1, 2.5, 3.3, 4.0, 0.1])[1]
pb = cmp.mann_whitney_u([1.1, 2.5, 3.3, 4.0, 0.1], [0.3, 1.2, 2.2, 0.9])[1]
print("%s U test: swapping A and B leaves p" % ("PASSED" if abs(pa - pb) < 1e-12 else "FAILED"))

# Student's t, two-sided, against the tables' critical values at p = 0.05
# and 0.01 (Fisher and Yates), and I_0.4(2, 3) = sum_{j=2..4} C(4,j) 0.4^j
# 0.6^(4-j) = 0.5248.
for t, df, want in ((12.706, 1, 0.05), (4.303, 2, 0.05), (2.776, 4, 0.05), (2.228, 10, 0.05),
                    (9.925, 2, 0.01), (4.604, 4, 0.01), (0.0, 3, 1.0)):
    p = cmp.t_two_sided(t, df)
    print("%s t test: t = %g, %g degrees of freedom: p %.5f, expected %g"
          % ("PASSED" if abs(p - want) < 2e-4 else "FAILED", t, df, p, want))
v = cmp.betainc(2, 3, 0.4)
print("%s incomplete beta: I_0.4(2, 3) = %.10f, expected 0.5248" % ("PASSED" if abs(v - 0.5248) < 1e-12 else "FAILED", v))
# Runs as samples, one run against three: A's one run borrows B's variance
# (0.04) and B's 2 degrees of freedom: se = sqrt(0.04/1 + 0.04/3), t = 2/se =
# 8.660; for 2, p = 1 - t / sqrt(2 + t^2) = 0.013072.
p = cmp.runs_test([10.0], [12.0, 12.2, 11.8], 0.0, 0.0)
print("%s runs test: 1 run against 3, borrowed variance: p %.6f, expected 0.013072"
      % ("PASSED" if abs(p - 0.013072) < 2e-6 else "FAILED", p))
# A run's median's own uncertainty is a floor: B's runs equal, A one run.
p = cmp.runs_test([10.0], [12.0, 12.0, 12.0], 0.0, 0.0)
q = cmp.runs_test([10.0], [12.0, 12.0, 12.0], 1.0, 1.0)
print("%s runs test: equal runs and no interval: p %g (0); with a median variance of 1: p %.4f (> 0.05)"
      % ("PASSED" if p == 0.0 and q > 0.05 else "FAILED", p, q))
PY

# The host moved with several runs a side: the yardstick's run medians
# (100, 100.5, 101 against 106, 107, 115) lie beyond its band (B's medians'
# half band: positions 0.05 and 1.95, (114.6 - 106.05) / 2 = 4.275; the
# change 6.5) though the t test cannot call it (p about 0.09): the host's
# speed is in doubt, and the host-bound figure 20% slower in every run is
# HOST, not SLOWER (its verdict as measured, --rule=noise-nohost).
python3 - "$T" <<'PY'
import json, sys
def meas(key, region, med):
    s = [med - 0.0045 + 0.001 * i for i in range(10)]
    return {"section": key.split("/")[0], "key": key.split("/")[1], "name": key, "region": region,
            "state": "warm", "unit": "ms", "batch": 1, "n": 1, "bytes": 0, "flops": 0,
            "stats": {"n": 10, "min": s[0], "median": med, "mean": med, "max": s[-1],
                      "stdev": 0.003, "cv": 0.0, "ci_low": s[2], "ci_high": s[7], "ci_level": 0.98},
            "samples": s}
for side, yard, hb in (("a", (100.0, 100.5, 101.0), (50.0, 50.1, 50.2)),
                       ("b", (106.0, 107.0, 115.0), (60.0, 60.1, 60.2))):
    for i in range(3):
        doc = {"schema_version": 1, "incomplete": False,
               "environment": {"harness_version": "0.1.0", "gpu": "crafted", "max_noise": 0.01},
               "skipped": [], "checks": [],
               "measurements": [meas("launch/host.ref", "crafted: the CPU alone", yard[i]),
                                meas("compare/hostbound", "crafted: the host clock around a call", hb[i])]}
        doc["measurements"][0]["host_only"] = True
        json.dump(doc, open("%s/hm_%s%d.json" % (sys.argv[1], side, i + 1), "w"))
PY
run_cmp "$T/hm.out" "$T/hm.err" "$T/hm_a1.json" "$T/hm_a2.json" "$T/hm_a3.json" -- \
    "$T/hm_b1.json" "$T/hm_b2.json" "$T/hm_b3.json"
expect_grep "3 runs a side: the yardstick beyond its band, p too high to call it: UNCLEAR" \
    '^launch/host\.ref  *ms .* +6\.5% .* UNCLEAR (p >= 0\.01)$' "$T/hm.out"
expect_grep "... yet the host's speed is in doubt: the host-bound figure is HOST" '^compare/hostbound  *ms .* HOST$' "$T/hm.out"
expect_grep "... and the host speed line names the yardstick" '^  beyond their noise: launch/host\.ref +6\.5%$' "$T/hm.out"
run_cmp "$T/hmn.out" "$T/hmn.err" "$T/hm_a1.json" "$T/hm_a2.json" "$T/hm_a3.json" -- \
    "$T/hm_b1.json" "$T/hm_b2.json" "$T/hm_b3.json" --rule=noise-nohost
expect_grep "--rule=noise-nohost: the same figure as measured: SLOWER" '^compare/hostbound  *ms .* SLOWER$' "$T/hmn.out"

run_cmp "$T/r.out" "$T/r.err" results/h200-eager.json results/h200-lazy.json
expect_exit "the real eager vs lazy reference pair" 0
expect_grep "the real pair prints the summary line" \
    '^summary: [0-9]* FASTER, [0-9]* SLOWER, [0-9]* SAME, [0-9]* UNCLEAR, [0-9]* HOST, [0-9]* only in one side' "$T/r.out"
# Two default runs of the same code on the H200, a minute apart (the stored
# pair, remade with each reference run): the noise rule flags fewer figures
# FASTER, SLOWER or UNCLEAR than the earlier interval rule did.
run_cmp "$T/d.out" "$T/d.err" results/h200.json results/h200-2.json
cp "$T/d.out" "$T/d-noise.out"
run_cmp "$T/d.out" "$T/d.err" results/h200.json results/h200-2.json --rule=interval
check "results/h200.json vs h200-2.json: the noise rule flags fewer than the interval rule" python3 - \
    "$T/d-noise.out" "$T/d.out" <<'PY'
import re, sys
def flagged(path):
    line = [l for l in open(path) if l.startswith("summary: ")][0]
    n = dict((w, int(c)) for c, w in re.findall(r"(\d+) (FASTER|SLOWER|UNCLEAR)", line))
    return n["FASTER"] + n["SLOWER"] + n["UNCLEAR"]
sys.exit(0 if flagged(sys.argv[1]) < flagged(sys.argv[2]) else 1)
PY
} >"$T/log" 2>&1
summary "$T/log" compare

# The gate on the stored A/A and A/B runs of the H200 (results/h200-ab/):
# no A/A comparison of 3 runs a side fails it, every A/B one does with every
# planted figure SLOWER, one run a side is refused (docs/compare.md's table).
if [ -d results/h200-ab ]; then
    check "--fail-on-regression on results/h200-ab: 0 A/A failures, every planted slowdown fails" \
        python3 tests/compare_gate.py --check
fi
