#!/bin/sh
# test_compare.sh: scripts/compare on the crafted pairs in tests/compare_cases/
# (every verdict, the threshold, --fail-on-regression, bad files), its U test
# against values worked out by hand, and the real eager/lazy reference pair.
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
for f in a b noreg host_a host_b; do
    check "case file $f.json passes check_json.py" python3 tests/check_json.py "$C/$f.json"
done

run_cmp "$T/host.out" "$T/host.err" "$C/host_a.json" "$C/host_b.json"
expect_exit "host_a.json vs host_b.json" 0
expect_grep "a CPU-only yardstick 10% slower: the host speed line names it" \
    '^host speed: 1 CPU-only figure .* changed by +10\.0%' "$T/host.out"
expect_grep "... and says the machine, not the code, moved" 'the machine itself ran at another speed' "$T/host.out"

run_cmp "$T/ab.out" "$T/ab.err" "$C/a.json" "$C/b.json"
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
check "a non-time unit (MiB) gets no row" sh -c "! grep -q 'compare/memory' '$T/ab.out'"
check "no CPU-only figure in either file: no host speed line" sh -c "! grep -q '^host speed' '$T/ab.out'"
check "rows only in one file get no verdict row" sh -c "! grep -q '^compare/only_' '$T/ab.out'"
expect_grep "the summary line counts every verdict" \
    '^summary: 1 FASTER, 3 SLOWER, 2 SAME, 3 UNCLEAR, 2 only in one file (1 only in A, 1 only in B); 1 skipped' "$T/ab.out"

run_cmp "$T/t.out" "$T/t.err" "$C/a.json" "$C/b.json" --threshold=10
expect_exit "--threshold=10" 0
expect_grep "+5% under --threshold=10: SAME" '^compare/small  *ms .* +5\.0% .* SAME$' "$T/t.out"
expect_grep "+20% over --threshold=10: still SLOWER" '^compare/slower  *ms .* SLOWER$' "$T/t.out"
run_cmp "$T/t2.out" "$T/t2.err" "$C/a.json" "$C/b.json" --threshold=200
expect_grep "a change under --threshold is SAME even where the intervals and the test disagree" \
    '^compare/overlap_sig  *ms .* +163\.6% .* SAME$' "$T/t2.out"
expect_grep "too few samples stays UNCLEAR under any --threshold" '^compare/few  *ms .* UNCLEAR$' "$T/t2.out"

run_cmp "$T/f.out" "$T/f.err" "$C/a.json" "$C/b.json" --fail-on-regression
expect_exit "--fail-on-regression with a slowdown" 1
run_cmp "$T/f.out" "$T/f.err" --fail-on-regression "$C/a.json" "$C/noreg.json"
expect_exit "--fail-on-regression, only speedups and no change" 0
expect_grep "the pair without regression: no SLOWER row" '^summary: 1 FASTER, 0 SLOWER, 1 SAME, 2 UNCLEAR' "$T/f.out"
run_cmp "$T/f.out" "$T/f.err" "$C/a.json" "$C/b.json" --fail-on-regression --threshold=25
expect_exit "--fail-on-regression, every slowdown under --threshold=25" 0

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
run_cmp "$T/u.out" "$T/u.err" "$C/a.json"
expect_exit "one file only: usage error" 2
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --threshold=abc
expect_exit "--threshold=abc: usage error" 2
expect_grep "--threshold=abc is named" "threshold" "$T/u.err"
run_cmp "$T/u.out" "$T/u.err" "$C/a.json" "$C/b.json" --frobnicate
expect_exit "an unknown option: usage error" 2

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
PY

run_cmp "$T/r.out" "$T/r.err" results/h200-eager.json results/h200-lazy.json
expect_exit "the real eager vs lazy reference pair" 0
expect_grep "the real pair prints the summary line" \
    '^summary: [0-9]* FASTER, [0-9]* SLOWER, [0-9]* SAME, [0-9]* UNCLEAR, [0-9]* only in one file' "$T/r.out"
} >"$T/log" 2>&1
summary "$T/log" compare
