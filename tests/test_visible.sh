#!/bin/sh
# test_visible.sh: section visible on the stand-in driver (tests/fakecuda),
# against figures worked out by hand: FAKE_CUDA_DEVICES=1, 2 and 8 with
# FAKE_CUDA_INIT_US=3000 (cuInit waits 3 ms per visible device, each primary
# context's first retain 3 ms), so cuInit with k visible is about 3k ms, the
# contexts on devices 1..k-1 about 3(k-1) ms, and restricting 8 to 1 saves
# about 42 ms; a parent's CUDA_VISIBLE_DEVICES of its own (N is what it
# lets the driver see, the children get its first entries); a driver that
# does not honour it (FAKE_CUDA_IGNORE_VISIBLE); a failed call in the
# child (HARNESS_FAULT, each child counts its own calls); a child that
# hangs; no driver. Checks the section runs first, before this process
# loads libcuda. Run from the repository root with HARNESS and FAKECUDA
# (make builds both). Ends with "visible: N passed, N failed".
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
# shellcheck source=tests/lib.sh
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
unset CUDA_VISIBLE_DEVICES HARNESS_FAULT FAKE_CUDA_IGNORE_VISIBLE
FAKE=$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")
US=3000

# vis NAME DEVICES ARGS...: section visible on the stand-in driver with
# DEVICES devices and FAKE_CUDA_INIT_US=$US; $T/NAME.{out,err,json}, $rc.
vis() {
    name=$1 devices=$2
    shift 2
    HARNESS_LIBCUDA=$FAKE FAKE_CUDA_DEVICES=$devices FAKE_CUDA_INIT_US=$US \
        run_harness "$T/$name.out" "$T/$name.err" --section=visible --json="$T/$name.json" "$@"
}

# flat NAME: NAME.out with every run of spaces and line breaks one space,
# so that a sentence reads the same however the table wrapped it.
flat() {
    tr '\n' ' ' <"$T/$1.out" | tr -s ' ' >"$T/$1.flat"
}

{
if [ ! -e "$FAKECUDA" ]; then
    echo "FAILED the stand-in libcuda (FAKECUDA, built by make) is missing"
else
    # One device: one count, nothing to restrict.
    vis one 1 --rounds=2
    expect_exit "1 device: exit 0" 0
    check "1 device: the JSON reads back, every check passed, complete" \
        python3 tests/check_json.py "$T/one.json" --expect-checks-pass --expect-complete
    check "1 device: count 1 only, 2 rounds, cuInit about 3 ms, context 0 about 3 ms" \
        python3 tests/check_visible.py "$T/one.json" --n 1 --counts 1 --rounds 2 --init-us $US
    flat one
    expect_grep "1 device: the table says there is nothing to restrict" \
        "Only one device is visible to this process, so there is nothing to restrict" "$T/one.flat"
    expect_grep "1 device: and how a node of several is measured" "CUDA_VISIBLE_DEVICES, which the driver respects" "$T/one.flat"
    check "1 device: the saving entry is a text, no figure" python3 -c "
import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
d = hj.load('$T/one.json').conclusion('visible', 'saving')
sys.exit(0 if d and d['value'] is None and 'nothing to restrict' in d['text'] else 1)"

    # Two devices: counts 1 and 2.
    vis two 2 --rounds=2
    expect_exit "2 devices: exit 0" 0
    check "2 devices: counts 1 and 2, cuInit 3 and 6 ms, the other context 3 ms, a saving" \
        python3 tests/check_visible.py "$T/two.json" --n 2 --counts 1,2 --rounds 2 --init-us $US --saving

    # Eight: counts 1, 2, 4, 8, three rounds (the default).
    vis eight 8
    expect_exit "8 devices: exit 0" 0
    check "8 devices: the JSON reads back, every check passed, complete" \
        python3 tests/check_json.py "$T/eight.json" --expect-checks-pass --expect-complete
    check "8 devices: counts 1, 2, 4, 8, 3 rounds; cuInit about 3k ms and growing; the others about 3(k-1) ms; the saving" \
        python3 tests/check_visible.py "$T/eight.json" --n 8 --counts 1,2,4,8 --rounds 3 --init-us $US --saving
    check "8 devices: every context saves about 42 ms (7 devices' cuInit and contexts), over 70% of the total" python3 -c "
import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
f = hj.load('$T/eight.json').conclusion('visible', 'saving')['fields']
sys.exit(0 if 0.8 * 42 <= f['total_n'] - f['total_1'] and f['pct'] > 70 else 1)"
    check "8 devices: one device's cold start saves about 21 ms (7 devices' cuInit), over 60% of it" python3 -c "
import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
f = hj.load('$T/eight.json').conclusion('visible', 'saving_one_gpu')['fields']
sys.exit(0 if 0.8 * 21 <= f['ready_n'] - f['ready_1'] < 42 and f['pct'] > 60 else 1)"
    # The Williams square of 4 (0132 1203 2310) over the counts 1, 2, 4, 8,
    # worked out by hand.
    check "8 devices: the counts in a balanced order: 1 2 8 4, 2 4 1 8, 4 8 2 1" \
        python3 -c "
import json, sys
c = [x['what'].split(':')[0] for x in json.load(open('$T/eight.json'))['checks'] if 'visible, round' in x['what']]
w = ['%s visible, round %d' % (k, r + 1) for r, row in enumerate(['1 2 8 4', '2 4 1 8', '4 8 2 1']) for k in row.split()]
sys.exit(0 if c == w else print(c) or 1)"
    check "8 devices: the first child is the entry first_child, total about 48 ms (cuInit 24, 8 contexts 24), no own.* measurement" python3 -c "
import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
r = hj.load('$T/eight.json'); d = r.conclusion('visible', 'first_child')
own = [k for (s, k) in r.meas if s == 'visible' and k.startswith('own.')]
sys.exit(0 if d and 48 <= d['value'] < 48 * 1.5 and d['fields']['init'] >= 24 and not own else 1)"
    flat eight
    expect_grep "8 devices: the first child's line" \
        "The first child, with this process's own visibility (CUDA_VISIBLE_DEVICES unset), counted 8 devices: total [0-9.]* ms (1 run, before the rounds; not in the rows)" "$T/eight.flat"
    expect_grep "8 devices: the table names N and the visibility" \
        "this process sees 8 (CUDA_VISIBLE_DEVICES unset)" "$T/eight.flat"
    expect_grep "8 devices: one row per count, k = 8 with 3 runs" "^ *8  .* 3$" "$T/eight.out"
    expect_grep "8 devices: both savings in words" \
        "Restricting CUDA_VISIBLE_DEVICES from 8 devices to the one a process uses saves a process that uses only that device [0-9.]* ms of its [0-9.]* ms to that device's context (.*), and one that makes a context on every device it sees [0-9.]* ms of its [0-9.]* ms total" "$T/eight.flat"
    expect_grep "8 devices: each region named" "cuInit child's host clock around cuInit(0)" "$T/eight.flat"
    check "8 devices: the parent never loaded libcuda (a passed check)" \
        grep -q '"this process had not loaded libcuda when the children ran"' "$T/eight.json"
    expect_grep "8 devices: the configuration says the GPU was not opened in this process" \
        "GPU *not opened" "$T/eight.out"

    # The parent's own CUDA_VISIBLE_DEVICES: N = 3, the children see its
    # first 1, 2 and 3 entries.
    CUDA_VISIBLE_DEVICES=3,5,6 vis cvd 8 --rounds=2
    expect_exit "CUDA_VISIBLE_DEVICES=3,5,6 of 8: exit 0" 0
    check "CUDA_VISIBLE_DEVICES=3,5,6: N = 3, counts 1, 2, 3, each child counted k" \
        python3 tests/check_visible.py "$T/cvd.json" --n 3 --counts 1,2,3 --rounds 2 --init-us $US --saving
    for sub in "3" "3,5" "3,5,6"; do
        check "CUDA_VISIBLE_DEVICES=3,5,6: a child was given $sub and counted it (a passed check)" \
            grep -q "the child with CUDA_VISIBLE_DEVICES=$sub ran and counted" "$T/cvd.json"
    done
    flat cvd
    expect_grep "CUDA_VISIBLE_DEVICES=3,5,6: the table names it" "this process sees 3 (CUDA_VISIBLE_DEVICES=3,5,6)" "$T/cvd.flat"
    # An entry the driver stops at: N is what it sees before it.
    CUDA_VISIBLE_DEVICES=1,0,7 vis stop 2 --rounds=1
    expect_exit "CUDA_VISIBLE_DEVICES=1,0,7 of 2: exit 0" 0
    check "CUDA_VISIBLE_DEVICES=1,0,7 of 2: N = 2 (the driver stops at 7), children given 1 and 1,0" sh -c "
        python3 tests/check_visible.py '$T/stop.json' --n 2 --counts 1,2 --rounds 1 &&
        grep -q 'CUDA_VISIBLE_DEVICES=1,0 ran' '$T/stop.json'"

    # A driver that does not honour CUDA_VISIBLE_DEVICES: every count but N
    # is a failed check naming both numbers.
    FAKE_CUDA_IGNORE_VISIBLE=1 vis ignore 4 --rounds=1
    expect_exit "a driver that ignores CUDA_VISIBLE_DEVICES: exit 1" 1
    expect_grep "ignored: the failed check names both counts" \
        "1 visible, round 1: the child with CUDA_VISIBLE_DEVICES=0 ran and counted 1: it counted 4 devices, not 1: CUDA_VISIBLE_DEVICES not honoured" "$T/ignore.err"
    check "ignored: counts 1 to 3 fail, 4 passes; the JSON is incomplete" sh -c "
        test \$(grep -c 'not honoured' '$T/ignore.err') -eq 3 &&
        python3 tests/check_json.py '$T/ignore.json' --expect-incomplete"
    flat ignore
    expect_grep "ignored: no saving, the text says why" "No saving: 1 visible has no figures" "$T/ignore.flat"

    # A failed call in the child: every child's first retain fails.
    HARNESS_FAULT=cuDevicePrimaryCtxRetain:1 vis f1 2 --rounds=1
    expect_exit "HARNESS_FAULT=cuDevicePrimaryCtxRetain:1: exit 1" 1
    expect_grep "cuDevicePrimaryCtxRetain:1: the child names the call" \
        "^harness: error: visible: child: drv.cuDevicePrimaryCtxRetain(.*(injected by HARNESS_FAULT)" "$T/f1.err"
    expect_grep "cuDevicePrimaryCtxRetain:1: the failed child is named with what became of it" \
        "^harness: visible: 2 visible, round 1: .*: the child --child=visible exited with 1$" "$T/f1.err"
    check "cuDevicePrimaryCtxRetain:1: the JSON is incomplete, the failures are checks" \
        python3 tests/check_json.py "$T/f1.json" --expect-incomplete
    check "cuDevicePrimaryCtxRetain:1: the first child counted 2 before it failed: both counts tried" \
        test "$(grep -c 'exited with 1' "$T/f1.err")" -eq 3
    # The second retain: one device's child runs through, two devices' fails.
    HARNESS_FAULT=cuDevicePrimaryCtxRetain:2 vis f2 2 --rounds=2
    expect_exit "HARNESS_FAULT=cuDevicePrimaryCtxRetain:2: exit 1" 1
    check "cuDevicePrimaryCtxRetain:2: count 1 measured in both rounds, count 2 in none; incomplete" sh -c "
        python3 tests/check_json.py '$T/f2.json' --expect-incomplete &&
        grep -q '\"k1.total\"' '$T/f2.json' && ! grep -q '\"k2.total\"' '$T/f2.json'"
    expect_grep "cuDevicePrimaryCtxRetain:2: the table says count 2 has no figures" \
        "no figures: see the failed checks" "$T/f2.out"
    HARNESS_FAULT=cuDevicePrimaryCtxRelease:1 vis rel 2 --rounds=1
    expect_exit "HARNESS_FAULT=cuDevicePrimaryCtxRelease:1: exit 1, no crash" 1
    expect_grep "cuDevicePrimaryCtxRelease:1: named" "drv.cuDevicePrimaryCtxRelease(.*(injected by HARNESS_FAULT)" "$T/rel.err"
    HARNESS_FAULT=cuInit:1 vis init 2 --rounds=1
    expect_exit "HARNESS_FAULT=cuInit:1 (no device): the skip, exit 3" 3
    expect_grep "cuInit:1: the section is skipped, the child's line above it" \
        "^harness: visible: skipped: its child found no CUDA driver or no usable GPU" "$T/init.err"

    # A child that hangs: killed at --child-timeout, named, the section stops.
    HARNESS_TEST_CHILD_HANG=1 vis hang 2 --rounds=1 --child-timeout=1
    expect_exit "a child that hangs: exit 1" 1
    expect_grep "a child that hangs: killed and named" \
        "the child --child=visible ran past --child-timeout=1 s and was killed" "$T/hang.err"
    check "a child that hangs: the JSON is incomplete" python3 tests/check_json.py "$T/hang.json" --expect-incomplete

    # First among the sections: before crossover loads libcuda here.
    HARNESS_LIBCUDA=$FAKE FAKE_CUDA_DEVICES=2 run_harness "$T/order.out" "$T/order.err" \
        --section=crossover,visible --quick --sizes=1024 --json="$T/order.json"
    check "crossover and visible: the configuration lists visible first" \
        grep -q "sections *visible, crossover" "$T/order.out"
    check "crossover and visible: visible's table before crossover's" sh -c \
        "test \$(grep -n '^visible:' '$T/order.out' | cut -d: -f1) -lt \$(grep -n '^crossover:' '$T/order.out' | cut -d: -f1)"
    check "crossover and visible: the parent had not loaded libcuda when visible's children ran" \
        python3 -c "
import json, sys
c = [x for x in json.load(open('$T/order.json'))['checks'] if x['what'].startswith('this process had not loaded libcuda')]
sys.exit(0 if len(c) == 1 and c[0]['passed'] else 1)"

    # The child alone: its figures as lines, exit 0; no driver, exit 3.
    HARNESS_LIBCUDA=$FAKE FAKE_CUDA_DEVICES=2 run_harness "$T/child.out" "$T/child.err" --child=visible
    expect_exit "--child=visible: exit 0" 0
    check "--child=visible: its figures as lines, the count 2" sh -c "
        grep -q '^m	visible	load	' '$T/child.out' && grep -q '^m	visible	ctx_others	' '$T/child.out' &&
        grep -q '^m	visible	devices	.*	2	0	0	0	\$' '$T/child.out'"
    HARNESS_LIBCUDA=/nonexistent/libcuda.so.1 run_harness "$T/cn.out" "$T/cn.err" --child=visible
    expect_exit "--child=visible without a driver: exit 3" 3
    check "--child=visible without a driver: the reason it said is its skip line, for the parent" \
        grep -q '^skip	visible	no CUDA driver: /nonexistent/libcuda.so.1' "$T/cn.out"
fi

# No driver: the child says so, the section is skipped, exit 3.
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1 run_harness "$T/nd.out" "$T/nd.err" --section=visible --json="$T/nd.json"
expect_exit "no driver: exit 3" 3
expect_grep "no driver: the child names it" "^harness: no CUDA driver: /nonexistent/libcuda.so.1" "$T/nd.err"
expect_grep "no driver: the section is skipped" "^harness: visible: skipped: " "$T/nd.err"
check "no driver: the JSON names the skip and is incomplete" \
    python3 tests/check_json.py "$T/nd.json" --expect-skipped visible --expect-incomplete --expect-measurements 0
# Visible's child says the reason; the parent's sections after it do not say
# it again (they said it twice: the child, then stopwatches in full).
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1 run_harness "$T/nd2.out" "$T/nd2.err" --quick \
    --section=visible,stopwatches,crossover
expect_exit "no driver, visible then stopwatches: exit 3" 3
check "no driver, visible then stopwatches: the reason said once on stderr, the later skips '(as above)'" sh -c \
    "test \$(grep -c 'cannot open shared object file' '$T/nd2.err') -eq 1 &&
     grep -q '^harness: no CUDA driver: /nonexistent/libcuda.so.1: cannot open' '$T/nd2.err' &&
     grep -q '^harness: stopwatches: skipped: no CUDA driver (as above)\$' '$T/nd2.err' &&
     grep -q '^harness: crossover: skipped: no CUDA driver (as above)\$' '$T/nd2.err'"
run_harness "$T/help.out" "$T/help.err" --help=all
expect_grep "--help lists visible first among the sections" "in order: visible, stopwatches" "$T/help.out"
# Under make sanitize: no sanitizer report from any run above, children included.
check "no AddressSanitizer, LeakSanitizer or UBSan report in any run" \
    sh -c "! cat '$T'/*.err | grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'"
} >"$T/log" 2>&1
summary "$T/log" visible
