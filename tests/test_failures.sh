#!/bin/sh
# test_failures.sh: failed and hung runs of -- CMD reported and diagnosed,
# on the CPU: the stand-in program (tests/standin_program.py) exits, hangs
# or dies per mode, and plants the live record the probe would keep
# (--live, written by tests/live_plant.c with src/probe/live.c). Values
# planted here: the spinner launched on stream 0xb0 at 300 ms, the setter's
# first use beside it at 300.1 ms, its wait of 15,000 ms; a thread inside
# cuCtxSynchronize since 301 ms; an out-of-memory first launch of
# touch_big(int) with 64 MiB free; a cuMemsetD32_v2 that returned 0 before
# a SIGSEGV.
: "${HARNESS:=./harness}"
: "${LIVE_PLANT:=build/live_plant}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
standin_setup
LIVE_PLANT=$(cd "$(dirname "$LIVE_PLANT")" && pwd)/$(basename "$LIVE_PLANT")
export LIVE_PLANT
if [ ! -x "$LIVE_PLANT" ]; then
    echo "FAILED failures: the live record planter ($LIVE_PLANT, built by make test) is missing"
    exit 0
fi
PAIR='LAZY=thread 4243;enter cuLaunchKernel spinner 300;launch 0xb0 spinner 300;exit 0 300.01'
PAIR="$PAIR;enter cuLaunchKernel setter 300.1;use setter cuLaunchKernel 0xb0 300.1;launch 0xa0 setter 300.1"
PAIR="$PAIR;exit 0 300.125;enter cuCtxSynchronize - 301"
FLAG="$PAIR;wait setter cuLaunchKernel 0xb0 15000 15300;done all 15300;exit 0 15301"

# The spin/flag pair: LAZY exits 5 after the setter waited 15 s; EAGER runs.
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" --compare-loading --rounds=2 --max-rounds=2 --warmup=0 \
    --json="$T/f.json" -- $SP --exit LAZY=5,EAGER=0 --live "$FLAG"
expect_exit "flag: a failed run fails the check (exit 1)" 1
check "flag: the headline: LAZY failed in 2 of 2 runs (exited with 5 after ...); EAGER ran in 2 of 2" \
    program_py "$T/f.json" "t = dv('answer.failed')['text']; assert t.startswith('LAZY failed in 2 of 2 runs (exited with 5 after ') and '; EAGER ran in 2 of 2 (' in t, t"
check "flag: each failed LAZY run diagnosed: setter's first use waited 15.00 s while spinner ran on 0xb0" \
    program_py "$T/f.json" "x = [dv('diagnosis.lazy.%d' % i) for i in (1, 2)]; assert all(y['name'] == 'a load beside running work' and y['fields']['wait_ms'] == 15000 and y['fields']['exit'] == 5 and \"setter's first use (cuLaunchKernel) began 0.30 s into the run while spinner ran on stream 0xb0, and it waited 15.00 s\" in y['text'] and '--preload-list' in y['text'] for y in x), x; assert dv('diagnosis.eager.1') is None"
check "flag: the failed runs' figures apart, the successful ones compared" \
    program_py "$T/f.json" "assert len(m('failed.lazy.wall')) == 1 and m('failed.lazy.wall')[0]['samples'] and len(m('failed.lazy.wall')[0]['samples']) == 2 and len(m('eager.wall')[0]['samples']) == 2 and not m('lazy.wall')"
expect_grep "flag: the table's block names each failed run" "LAZY, run 1, after" "$T/f.out"
expect_grep "flag: the answers say why" "Why LAZY's run 1 failed (exited with 5): a load beside running work" "$T/f.out"

# A hang for good under LAZY: killed at --child-timeout=2; the thread
# inside cuCtxSynchronize, the spinner in flight, the setter still waiting.
# shellcheck disable=SC2086
run_harness "$T/h.out" "$T/h.err" --compare-loading --rounds=1 --max-rounds=1 --warmup=0 \
    --child-timeout=2 --json="$T/h.json" -- $SP --hang --live "$PAIR"
check "hang: the thread and the call at the kill, the kernel in flight, the wait still open" \
    program_py "$T/h.json" "y = dv('diagnosis.lazy.1'); t = y['text']; assert y['fields']['timed_out'] == 1 and y['fields']['bounded'] == 0 and 'it was still waiting' in t and 'a hang at the time limit: at the kill' in t and 'thread 4243 (pid ' in t and 'inside cuCtxSynchronize for ' in t and 'in flight: ' in t and 'spinner on stream 0xb0 since 0.30 s' in t and 'setter on stream 0xa0 since 0.30 s' in t, t"
check "hang: EAGER's hang, without a live record of its own, said as a hang, with no live record read" \
    program_py "$T/h.json" "t = dv('diagnosis.eager.1')['text']; assert 'a hang at the time limit' in t and 'no live record was read' in t and 'no kernel in flight' not in t, t"
expect_grep "hang: the answer names the time limit" "killed at --child-timeout=2 s" "$T/h.out"

# Out of memory at a lazy load, in a plain run (no --squeeze): the call, the
# kernel, the free memory, from the record the probe writes at the failure
# (the stand-in driver's device: 64 MiB free).
if [ -e "${FAKECUDA:-}" ]; then
    env_set HARNESS_LIBCUDA "$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")"
    env_set FAKE_CUDA_MEM_DIR "$T/mem"
    mkdir "$T/mem"
fi
# shellcheck disable=SC2086
FAKE_CUDA_FREE_MIB=64 run_harness "$T/o.out" "$T/o.err" --compare-loading --rounds=1 --max-rounds=1 \
    --warmup=0 --json="$T/o.json" -- $SP --needs 'LAZY=512:cuLaunchKernel:_Z9touch_bigi'
check "oom: the failed call, its result, the kernel and the free memory named, and LAZY's remedy" \
    program_py "$T/o.json" "t = dv('diagnosis.lazy.1')['text']; assert 'a failure inside a CUDA call: cuLaunchKernel returned CUDA_ERROR_OUT_OF_MEMORY' in t and '_Z9touch_bigi' in t and 'with 64 MiB of device memory free' in t and 'leave room' in t, t; assert dv('diagnosis.eager.1') is None"

# A crash by SIGSEGV after a CUDA call: its last call named with its result.
# shellcheck disable=SC2086
run_harness "$T/s.out" "$T/s.err" --compare-loading --rounds=1 --max-rounds=1 --warmup=0 \
    --json="$T/s.json" -- $SP --signal LAZY=SIGSEGV --live 'LAZY=thread 77;enter cuMemAlloc_v2 - 10;exit 0 10.5;enter cuMemsetD32_v2 - 11;exit 0 11.2'
check "segv: the signal and the thread's last CUDA call, returned CUDA_SUCCESS" \
    program_py "$T/s.json" "t = dv('diagnosis.lazy.1')['text']; assert 'a crash by signal 11 (' in t and 'thread 77 (pid ' in t and 'cuMemsetD32_v2 returned CUDA_SUCCESS 0.01 s into the run' in t, t"

# A forged live record (another pid's, a torn header) is left out: the
# diagnosis then says what the record alone gives, and nothing crashes.
mkdir -p "$T/forge"
python3 - "$T/forge" <<'EOF'
import os, sys
d = sys.argv[1]
open(os.path.join(d, "forge.py"), "w").write('''
import os, sys, subprocess
dirp = os.environ.get("HARNESS_PROBE_DIR")
if dirp:
    subprocess.run([os.environ["LIVE_PLANT"], dirp, "1", "0", "thread 1;enter cuCtxSynchronize - 1"], check=True)
    os.rename(os.path.join(dirp, "1.live"), os.path.join(dirp, "%d.live" % os.getpid()))
    open(os.path.join(dirp, "%d.live" % (os.getpid() + 1)), "wb").write(b"hlive\\n1\\0" + b"\\xff" * 100)
sys.exit(3)
''')
EOF
run_harness "$T/g.out" "$T/g.err" --rounds=1 --max-rounds=1 --warmup=0 --json="$T/g.json" \
    -- python3 "$T/forge/forge.py"
check "forged: a live record of another pid and a torn one are refused; the run is still diagnosed" \
    program_py "$T/g.json" "t = dv('diagnosis.default.1')['text']; assert 'no CUDA process left a record' in t and dv('diagnosis.default.1')['fields']['exit'] == 3, t"
