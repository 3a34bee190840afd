#!/bin/sh
# test_shared.sh: rows a section takes from measurements the run already
# made, on the stand-in driver (tests/fakecuda): crossover's top default
# size is the stopwatches' n, and where section stopwatches ran in the same
# process crossover's rows there are its samples, bit for bit, with a region
# that says so (tests/check_shared.py); crossover alone, or with --sizes,
# times them itself. Fusion's n sweep at the main n: the main phase's rows. Run from the repository root with HARNESS and FAKECUDA
# (make builds both). Ends with "shared: N passed, N failed".
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
# shellcheck source=tests/lib.sh
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
unset HARNESS_FAULT CUDA_VISIBLE_DEVICES
FAKE=$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")
FAST="--reps=2 --rounds=1 --warmup=0"

# fake NAME ARGS...: the harness on the stand-in driver; $T/NAME.{out,err,json}, $rc.
fake() {
    name=$1
    shift
    # shellcheck disable=SC2086
    HARNESS_LIBCUDA=$FAKE run_harness "$T/$name.out" "$T/$name.err" $FAST --json="$T/$name.json" "$@"
}

# field FILE SECTION KEY FIELD: a stored conclusion's field, as an integer.
field() {
    python3 -c "
import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
print('%d' % hj.load(sys.argv[1]).value(sys.argv[2], sys.argv[3], sys.argv[4]))" "$@" 2>/dev/null
}

# sizes FILE: crossover's sizes in the run, in order, one line.
sizes() {
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(' '.join(str(m['n']) for m in d['measurements'] if m['section'] == 'crossover' and m['key'].endswith('.cpu')))" "$1"
}

{
if [ ! -e "$FAKECUDA" ]; then
    echo "FAILED the stand-in libcuda (FAKECUDA, built by make) is missing"
else
    # The default sizes, both sections: the top size is the stopwatches' n,
    # and its rows are stopwatches' (no kernel runs on the stand-in, so the
    # checks fail: exit 1, every step run).
    fake both --section=stopwatches,crossover
    expect_exit "stopwatches,crossover: every step ran (the stand-in's checks fail)" 1
    N=$(field "$T/both.json" stopwatches setup n)
    check "stopwatches,crossover: the JSON is complete" python3 tests/check_json.py "$T/both.json" --expect-complete
    check "stopwatches,crossover: crossover's sizes end at the stopwatches' n ($N)" \
        test "$(sizes "$T/both.json")" = "1024 65536 1048576 4194304 $N"
    check "stopwatches,crossover: the rows at n = $N are stopwatches' samples, bit for bit, region and conclusion say so" \
        python3 tests/check_shared.py "$T/both.json" crossover "$N"
    check "stopwatches,crossover: crossover checks nothing at n = $N (checked where it ran), every other size" \
        python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
w = [c['what'] for c in d['checks'] if c['section'] == 'crossover']
sys.exit(0 if not [x for x in w if x.startswith('n = $N,')] and len(w) == 16 else 1)" "$T/both.json"
    expect_grep "stopwatches,crossover: the table says whose rows they are" \
        "^At n = $N the rows are the samples section stopwatches took" "$T/both.out"
    expect_grep "stopwatches,crossover: the table's row at n = $N" "^ *$N  *[0-9]" "$T/both.out"

    # Crossover alone: no stopwatches rows, so it times the size itself.
    fake alone --section=crossover
    expect_exit "crossover alone: every step ran" 1
    check "crossover alone: the same sizes" test "$(sizes "$T/alone.json")" = "1024 65536 1048576 4194304 $N"
    check "crossover alone: the rows at n = $N timed there, no shared conclusion" \
        python3 tests/check_shared.py "$T/alone.json" crossover "$N" --measured
    check "crossover alone: its checks at n = $N" grep -q "\"n = $N, round trip pinned vs CPU\"" "$T/alone.json"

    # --sizes: the user asked for the size to be measured.
    fake given --section=stopwatches,crossover --sizes=1024,"$N"
    check "--sizes=1024,$N with stopwatches: crossover times n = $N itself (samples differ)" \
        python3 tests/check_shared.py "$T/given.json" crossover "$N" --measured
    check "--sizes=1024,$N: nothing is said to be shared" sh -c "! grep -q 'the rows are the samples' '$T/given.out'"

    # --quick: the smallest and the largest size, the largest shared.
    fake quick --quick --section=stopwatches,crossover
    check "--quick: the smallest and the largest size" test "$(sizes "$T/quick.json")" = "1024 $N"
    check "--quick: the largest size's rows are stopwatches'" \
        python3 tests/check_shared.py "$T/quick.json" crossover "$N"

    # --cache=warm: the warm rows only, shared (stopwatches timed no cold one).
    fake warm --cache=warm --section=stopwatches,crossover
    check "--cache=warm: the warm rows shared" python3 tests/check_shared.py "$T/warm.json" crossover "$N"
    check "--cache=warm: 4 rows, no L2-cold one" sh -c "
        test '$(field "$T/warm.json" crossover "shared.n=$N" rows)' = 4 &&
        ! grep -q '\"n=$N.kernel.cold\"' '$T/warm.json'"

    # Fusion's sweep at the main size: the main phase's rows.
    fake fs --quick --section=fusion
    expect_exit "fusion --quick: every step ran (the stand-in's checks fail)" 1
    M=$(field "$T/fs.json" fusion sizes main_n)
    check "fusion --quick: the sweep's rows at the main n ($M) are the main phase's samples, bit for bit" \
        python3 tests/check_shared.py "$T/fs.json" fusion
    expect_grep "fusion --quick: the table says so under the sweep" \
        "^  At n = [0-9,]* the rows are the main size's samples" "$T/fs.out"
    fake fscold --quick --cache=cold --section=fusion
    check "fusion --cache=cold: the L2-cold rows shared" python3 tests/check_shared.py "$T/fscold.json" fusion
    check "fusion --cache=cold: 8 rows, no warm one at the main n" sh -c "
        test '$(field "$T/fscold.json" fusion "shared.n=$M" rows)' = 8 &&
        ! grep -q '\"n=$M.staged\"' '$T/fscold.json'"
    fake fsn --section=fusion --sizes=1024,4194304
    check "fusion --sizes without the main n: nothing shared, no sweep row at it" sh -c "
        ! grep -q '\"shared.n=' '$T/fsn.json' && ! grep -q '\"n=$M.' '$T/fsn.json' &&
        grep -q '\"n=4194304.staged\"' '$T/fsn.json'"
    # Section jit: the option sets without an option are vector.cu's rows.
    fake jt --section=jit --synthetic-kernels=1
    check "jit: opt.compute and opt.base are compile.vector.cu.ptx and .cubin, bit for bit, named so" \
        python3 - "$T/jt.json" <<'PY'
import json, sys
m = {x["key"]: x for x in json.load(open(sys.argv[1]))["measurements"] if x["section"] == "jit"}
for k, src in (("opt.compute", "compile.vector.cu.ptx"), ("opt.base", "compile.vector.cu.cubin")):
    assert m[k]["samples"] == m[src]["samples"] and len(m[k]["samples"]) > 1, k
    assert ("the samples of " + src) in m[k]["region"], m[k]["region"]
assert m["opt.G"]["samples"] != m["compile.vector.cu.cubin"]["samples"]
PY
fi
# Under a sanitizer build: no AddressSanitizer or UBSan report from any run
# above, children included (not LeakSanitizer: section stopwatches' whole-
# process child reports a leak inside a library it has unloaded).
check "no AddressSanitizer or UBSan report in any run" \
    sh -c "! cat '$T'/*.err | grep -qE 'ERROR: AddressSanitizer|runtime error:'"
} >"$T/log" 2>&1
summary "$T/log" shared
