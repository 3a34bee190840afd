#!/bin/sh
# test_squeeze.sh: --squeeze on the CPU, with the stand-in driver
# (tests/fakecuda: FAKE_CUDA_FREE_MIB of device memory shared by the
# processes, counted in FAKE_CUDA_MEM_DIR) and the stand-in program
# (tests/standin_program.py --needs: a first use that fails where the
# device has less free than it needs, recorded as the probe records a
# failed call). The memory holder is the real one: the harness as
# --child=hold, through the stand-in driver.
# Values chosen here: the device has 1000 MiB free; under LAZY the
# program's fft launch needs 300 MiB free, under EAGER its cuSOLVER load
# needs 700.
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
standin_setup     # OK is not used: the stand-in driver is there (exit 0, not 3)
if [ ! -e "$FAKECUDA" ]; then
    echo "FAILED --squeeze: the stand-in libcuda ($FAKECUDA, built by make) is missing"
    exit 0
fi
env_set HARNESS_LIBCUDA "$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")"
env_set FAKE_CUDA_FREE_MIB 1000
env_set FAKE_CUDA_MEM_DIR "$T/mem"
mkdir "$T/mem"
NEEDS='LAZY=300:cuLaunchKernel:_Z9fft_radixPf,EAGER=700:cuLibraryLoadData:libcusolver.so.11'

# no_holder_left: no process that holds device memory is left (the stand-in
# driver's counts of the live processes are all gone).
no_holder_left() {
    for f in "$T"/mem/*; do
        [ -e "$f" ] || continue
        p=$(basename "$f")
        case $p in *[!0-9]*) continue ;; esac
        if [ -e "/proc/$p" ] && ! grep -q '^State:.*[ZX]' "/proc/$p/status" 2>/dev/null; then return 1; fi
    done
    return 0
}

# --squeeze=500: LAZY's fft needs 300 and runs; EAGER's cuSOLVER load needs
# 700 and fails in every run; a failed run is a failed check (exit 1).
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" --compare-loading --rounds=2 --max-rounds=2 --warmup=0 \
    --squeeze=500 --json="$T/f.json" -- $SP --needs "$NEEDS"
expect_exit "--squeeze=500: EAGER's runs failed, as any run that fails" 1
check "--squeeze=500: held 500 of the 1000 MiB free before each run; LAZY ran in 2 of 2, EAGER failed in 2 of 2" \
    program_py "$T/f.json" "t = dv('answer.squeeze')['text']; assert t.startswith('Under --squeeze=500 a holder held all of device 0') and 'it held 500 to 500 MiB; the program found 500 to 500 MiB free' in t and 'LAZY ran in 2 of 2 runs.' in t and 'EAGER failed in 2 of 2 runs (exited with 1).' in t, t"
check "--squeeze=500: EAGER's failed load named in one sentence, with the call, the error, the free memory and LAZY's result" \
    program_py "$T/f.json" "t = dv('answer.squeeze_fail.1')['text']; assert t == 'Under EAGER at a margin of 500 MiB (in 2 of 2 runs): cuLibraryLoadData of libcusolver.so.11 failed with CUDA_ERROR_OUT_OF_MEMORY (2), with 500 MiB free; LAZY at the same margin: ran in 2 of 2 runs.', t"
check "--squeeze=500: the JSON holds the margin, the free memory, what each side's holders held and left" \
    program_py "$T/f.json" "assert e['program_squeeze'] == '500' and e['program_squeeze_free_mib'] == 1000 and e['program_squeeze_total_mib'] == 81920; f = dv('squeeze.eager.ran'); assert f['value'] == 0 and f['fields']['runs'] == 2 and f['fields']['held_min_mib'] == 500 and f['fields']['left_max_mib'] == 500 and dv('squeeze.lazy.ran')['value'] == 2; x = dv('squeeze_fail.1'); assert x['name'] == 'libcusolver.so.11' and x['fields']['margin_mib'] == 500 and x['fields']['error'] == 2"
expect_grep "--squeeze=500: the report says the margin first" "500 MiB of device 0 left free before each run" "$T/f.out"
check "--squeeze=500: no holder is left after the run" no_holder_left

# --squeeze=250: both modes fail, each named with the other's result.
# shellcheck disable=SC2086
run_harness "$T/b.out" "$T/b.err" --compare-loading --rounds=1 --max-rounds=1 --warmup=0 \
    --squeeze=250 --json="$T/b.json" -- $SP --needs "$NEEDS"
check "--squeeze=250: LAZY's failed first launch named, demangled, with EAGER's failure beside it" \
    program_py "$T/b.json" "t = [dv('answer.squeeze_fail.%d' % i)['text'] for i in (1, 2)]; assert 'Under LAZY at a margin of 250 MiB (in 1 of 1 runs): cuLaunchKernel of fft_radix(float*) failed with CUDA_ERROR_OUT_OF_MEMORY (2), with 250 MiB free; EAGER at the same margin: failed in 1 of 1 runs (exited with 1).' in t and 'Under EAGER at a margin of 250 MiB (in 1 of 1 runs): cuLibraryLoadData of libcusolver.so.11 failed with CUDA_ERROR_OUT_OF_MEMORY (2), with 250 MiB free; LAZY at the same margin: failed in 1 of 1 runs (exited with 1).' in t, t"

# Fragmentation: no allocation of more than 64 MiB succeeds; the holder
# halves its allocation (700, 350, 175, 87.5 MiB fail) and holds the 700
# MiB in 16 allocations of 43.75 MiB: the program finds 300 MiB, as asked.
# shellcheck disable=SC2086
FAKE_CUDA_MAX_ALLOC_MIB=64 run_harness "$T/g.out" "$T/g.err" --module-loading=lazy --rounds=1 \
    --warmup=0 --squeeze=300 --json="$T/g.json" -- $SP --needs "$NEEDS"
expect_exit "--squeeze=300, allocations of 64 MiB at most: LAZY ran" 0
check "--squeeze=300, allocations of 64 MiB at most: the holder held 700 MiB in smaller ones" \
    program_py "$T/g.json" "f = dv('squeeze.lazy.ran')['fields']; assert f['held_min_mib'] == 700 and f['left_max_mib'] == 300, f"

# A run that fails with no failed call inside it (a library's own error):
# said as such, not blamed on a load.
# shellcheck disable=SC2086
run_harness "$T/o.out" "$T/o.err" --module-loading=lazy --rounds=1 --warmup=0 --squeeze=300 \
    --json="$T/o.json" -- $SP --needs 'LAZY=400:-:own'
check "--squeeze=300, a failure with no failed call inside: said, no load named" \
    program_py "$T/o.json" "t = dv('answer.squeeze_fail.1')['text']; assert t.startswith('Under LAZY at a margin of 300 MiB the program failed (exited with 1), and no load, first use, context or device allocation failed inside it'), t"

# A device allocation that fails (a library's workspace, the program's own
# tensor): named by its call, size and the library that called (as the
# probe names it), with the free memory.
# shellcheck disable=SC2086
run_harness "$T/al.out" "$T/al.err" --module-loading=lazy --rounds=1 --warmup=0 --squeeze=300 \
    --json="$T/al.json" -- $SP --needs 'LAZY=400:cuMemAlloc_v2:20 MiB (called by libcufft.so.12)'
check "--squeeze=300, a device allocation fails: its call, size and caller named, with the free memory" \
    program_py "$T/al.json" "t = dv('answer.squeeze_fail.1')['text']; assert t == 'Under LAZY at a margin of 300 MiB (in 1 of 1 runs): cuMemAlloc_v2 of 20 MiB (called by libcufft.so.12) failed with CUDA_ERROR_OUT_OF_MEMORY (2), with 300 MiB free.', t"

# --squeeze=auto, worked out by hand. The search starts at 256 MiB, doubles
# while the program fails (capped at the 1000 MiB free), then halves the
# interval between the largest margin that failed and the smallest that
# ran (midpoints rounded down) until it is 16 MiB or less:
#   LAZY (needs 300):  256 failed, 512 ran, 384 ran, 320 ran, 288 failed,
#                      304 ran: 304 MiB, failed at 288, step 16 (6 runs)
#   EAGER (needs 700): 256 failed, 512 failed, 1000 ran, 756 ran, 634 failed,
#                      695 failed, 725 ran, 710 ran: 710 MiB, failed at 695,
#                      step 15 (8 runs)
# then each at the other's largest failing margin: LAZY at 695 ran, EAGER
# at 288 failed.
# shellcheck disable=SC2086
run_harness "$T/a.out" "$T/a.err" --compare-loading --squeeze=auto --warmup=0 --json="$T/a.json" \
    -- $SP --needs "$NEEDS"
expect_exit "--squeeze=auto: every side's search found a margin" 0
check "--squeeze=auto: LAZY's margin 304 MiB (failed at 288, step 16), EAGER's 710 (695, step 15)" \
    program_py "$T/a.json" "a, b = dv('squeeze.lazy'), dv('squeeze.eager'); assert (a['value'], a['fields']['failed_at_mib'], a['fields']['step_mib'], a['fields']['tries']) == (304, 288, 16, 7) and (b['value'], b['fields']['failed_at_mib'], b['fields']['step_mib'], b['fields']['tries']) == (710, 695, 15, 9), (a, b)"
check "--squeeze=auto: the runs in the order worked out by hand, the last of each at the other side's failing margin" \
    program_py "$T/a.json" "
def tries(k):
    out, i = [], 1
    while dv('squeeze.%s.try%d' % (k, i)):
        x = dv('squeeze.%s.try%d' % (k, i)); out.append((x['value'], x['fields']['ran'], x['fields']['cross'])); i += 1
    return out
assert tries('lazy') == [(256, 0, 0), (512, 1, 0), (384, 1, 0), (320, 1, 0), (288, 0, 0), (304, 1, 0), (695, 1, 1)], tries('lazy')
assert tries('eager') == [(256, 0, 0), (512, 0, 0), (1000, 1, 0), (756, 1, 0), (634, 0, 0), (695, 0, 0), (725, 1, 0), (710, 1, 0), (288, 0, 1)], tries('eager')"
check "--squeeze=auto: both margins side by side, with the step, in one sentence" \
    program_py "$T/a.json" "t = dv('answer.squeeze')['text']; assert t.startswith('The smallest margin each side ran at (--squeeze=auto') and 'LAZY 304 MiB (failed at 288; step 16 MiB; 7 runs); EAGER 710 MiB (failed at 695; step 15 MiB; 9 runs).' in t and 'device 0 had 1000 MiB free' in t, t"
check "--squeeze=auto: each side's failure at its largest failing margin, with the other's result there" \
    program_py "$T/a.json" "t = [dv('answer.squeeze_fail.%d' % i)['text'] for i in (1, 2)]; assert t[0] == 'Under LAZY at a margin of 288 MiB, the largest margin it failed at: cuLaunchKernel of fft_radix(float*) failed with CUDA_ERROR_OUT_OF_MEMORY (2), with 288 MiB free; EAGER at the same margin: failed (exited with 1).' and t[1] == 'Under EAGER at a margin of 695 MiB, the largest margin it failed at: cuLibraryLoadData of libcusolver.so.11 failed with CUDA_ERROR_OUT_OF_MEMORY (2), with 695 MiB free; LAZY at the same margin: ran.', t"
check "--squeeze=auto: the search's failed runs are its answer, not failed checks" \
    python3 tests/check_json.py "$T/a.json" --expect-checks-pass
expect_grep "--squeeze=auto: the report lists LAZY's runs in order" \
    "LAZY     256 failed, 512 ran, 384 ran, 320 ran, 288 failed, 304 ran, 695\\* ran" "$T/a.out"
check "--squeeze=auto: no holder is left after the search" no_holder_left

# A side that fails with nothing held: the search says so, exit 1.
# shellcheck disable=SC2086
run_harness "$T/n.out" "$T/n.err" --module-loading=lazy --squeeze=auto --warmup=0 \
    --json="$T/n.json" -- $SP --needs 'LAZY=2000:cuLaunchKernel:k'
expect_exit "--squeeze=auto, a program that fails with nothing held: a failure" 1
check "--squeeze=auto, a program that fails with nothing held: said (256, 512, 1000 MiB tried)" \
    program_py "$T/n.json" "t = dv('answer.squeeze')['text']; assert 'LAZY: it failed even with nothing held (margin 1000 MiB)' in t and dv('squeeze.lazy.try3')['value'] == 1000 and not dv('squeeze.lazy.try4'), t"

# The holder killed during a run: that run fails, named on stderr in one
# line; the next run's holder holds the same again (the memory came back).
"$HARNESS" --rounds=2 --max-rounds=2 --warmup=0 --squeeze=500 --json="$T/k.json" -- \
    python3 tests/standin_program.py --version "$V" --sleep 1.5 >"$T/k.out" 2>"$T/k.err" &
pid=$!
holder=
i=0
while [ -z "$holder" ] && [ "$i" -lt 400 ]; do
    for c in $(children_of "$pid"); do
        if tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -e '--child=hold'; then holder=$c; fi
    done
    [ -n "$holder" ] || sleep 0.05
    i=$((i + 1))
done
sleep 0.3
[ -n "$holder" ] && kill -9 "$holder"
wait "$pid"
rc=$?
check "the holder was found and killed during a run" test -n "$holder"
expect_exit "the holder killed during a run: the run fails" 1
expect_grep "the holder killed during a run: one line names it, its pid and its end" \
    "^harness: program: run 1 (as set, round 1): the memory holder of --squeeze=500 (pid $holder) ended during the run (killed by signal 9 (Killed)): the margin was not held, so the run counts as failed; the driver took its memory back\$" "$T/k.err"
check "the holder killed during a run: a failed check of its own; the other runs' holders held 500 MiB again" \
    program_py "$T/k.json" "c = [x for x in d['checks'] if 'the memory holder held through it' in x['what']]; assert len(c) == 1 and not c[0]['passed']; f = dv('squeeze.default.ran')['fields']; assert f['lost'] == 1 and f['runs'] == 1 and f['held_min_mib'] == 500 and f['left_max_mib'] == 500 and dv('squeeze.bare.default.ran')['fields']['held_min_mib'] == 500"
check "the holder killed during a run: no holder is left" no_holder_left

# Bad values found at run time: above the free memory (exit 2, one line,
# nothing run); no driver (exit 3, nothing run); a holder that cannot start.
run_harness "$T/x.out" "$T/x.err" --squeeze=1001 -- true
expect_exit "--squeeze=1001, above the 1000 MiB free: a usage error" 2
check "--squeeze=1001: one line says the margin is above the free memory, and nothing ran" sh -c \
    "grep -qx 'harness: --squeeze=1001: above the free memory of device 0 (1000 MiB free once a context is made on it, of 81920 MiB)' '$T/x.err' && test \"\$(wc -l <'$T/x.err')\" -eq 1 && test ! -s '$T/x.out'"
run_harness "$T/x.out" "$T/x.err" --squeeze=1000 --rounds=1 --warmup=0 -- true
expect_exit "--squeeze=1000, the free memory itself: it holds nothing, the program runs" 0
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1 run_harness "$T/x.out" "$T/x.err" --squeeze=100 -- true
expect_exit "--squeeze without a CUDA driver: no GPU" 3
expect_grep "--squeeze without a CUDA driver: the program is not run, and why" \
    "program: skipped: --squeeze holds device memory through the CUDA driver, and there is none: " "$T/x.err"
HARNESS_FAULT=cuInit:1 run_harness "$T/x.out" "$T/x.err" --squeeze=100 --rounds=1 -- true
expect_exit "--squeeze, the holder's cuInit fails: a failure" 1
expect_grep "--squeeze, the holder's cuInit fails: one line names the call and the error" \
    "^harness: program: --squeeze: the memory holder could not start on device 0: the memory holder of --squeeze: drv.cuInit(0) failed: CUDA_ERROR_NO_DEVICE (100) (injected by HARNESS_FAULT)" "$T/x.err"

env_restore FAKE_CUDA_MEM_DIR
env_restore FAKE_CUDA_FREE_MIB
env_restore HARNESS_LIBCUDA
schema_check_dir "--squeeze" "$T"
