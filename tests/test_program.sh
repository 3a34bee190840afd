#!/bin/sh
# test_program.sh: -- CMD, the user's own program, on the CPU: a stand-in
# program (tests/standin_program.py) writes the records the probe would
# write, with figures set per mode, so that the figures, verdicts and
# sentences can be checked against values chosen here; then every bad input:
# no command, a command not found or not executable, runs that fail, hang
# (their whole process group ended), die of a signal, never call CUDA, fork
# workers, write truncated or forged records; SIGTERM to the harness during
# a run; the outputs (--json, --csv, --trace, --program-output,
# --show-output) and scripts/compare on two such files. No driver here:
# a run that otherwise succeeds exits 3 (no CUDA device was used).
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
standin_setup
export STANDIN_STATE="$T/state"
mkdir -p "$STANDIN_STATE"

# gone PID: no such process, or only its zombie (ended, not yet reaped by
# the process it was handed to).
gone() {
    sleep 0.2
    [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# Both modes, figures set per mode: EAGER sleeps longer and reaches its
# first kernel 2.6 s later, with 1,060 MiB more at it. NVML absent here
# (HARNESS_NVML names no library), as on a machine without a driver, so
# that the device fields read the same on a GPU machine.
# shellcheck disable=SC2086
HARNESS_NVML="$T/none/libnvidia-ml.so.1" run_harness "$T/c.out" "$T/c.err" --compare-loading --json="$T/c.json" --csv="$T/c.csv" \
    --trace="$T/c.trace" -- $SP --sleep LAZY=0.02,EAGER=0.7 --first-kernel LAZY=300,EAGER=2900 \
    --mem LAZY=900,EAGER=1960 --spans 3
expect_exit "-- CMD --compare-loading: the program ran (exit 3 without a driver)" "$OK"
# Rounds 5 to 10 (2 x --rounds): Bonferroni over the looks that can call,
# worked out by hand: after round 7, 4 looks at 0.0025 each (7 a side can
# give p = 2/3432 = 0.00058; 6 a side only 2/924 = 0.0022, above 0.01/5).
check "-- CMD: 7 rounds: the headline decided at the first look that can call it" \
    program_py "$T/c.json" "assert len(m('lazy.wall')[0]['samples']) == 7 and len(m('bare.eager.wall')[0]['samples']) == 5 and d['environment']['program_rounds_taken'] == 7"
check "-- CMD: the table says the runs taken, the bare sides' 5 apart" \
    grep -q "^  7 runs a side (the bare sides in the first 5), each a fresh process" "$T/c.out"
check "-- CMD: the looks: from round 7, 4 planned, p < 0.0025" \
    program_py "$T/c.json" "e = d['environment']; assert e['program_looks_first'] == 7 and e['program_looks_planned'] == 4 and e['program_alpha'] == 0.0025 and e['program_looks'] == 3 and e['program_looks_calling'] == 1"
check "-- CMD: the record's figures per run (before the first kernel, EAGER above 2,900 ms)" \
    program_py "$T/c.json" "assert min(m('eager.at.first_kernel')[0]['samples']) > 2900 and max(m('lazy.at.first_kernel')[0]['samples']) < 2900"
check "-- CMD: verdict on the first kernel: EAGER higher" \
    program_py "$T/c.json" "assert dv('compare.at.first_kernel')['text'] == 'EAGER higher'"
check "-- CMD: verdict on the whole process: EAGER higher (it sleeps 0.68 s longer)" \
    program_py "$T/c.json" "assert dv('compare.wall')['text'] == 'EAGER higher' and dv('compare.bare.wall')['text'] == 'EAGER higher'"
check "-- CMD: verdict on library loads (3,424 against 11): EAGER higher" \
    program_py "$T/c.json" "assert dv('compare.library_load.n')['text'] == 'EAGER higher'"
check "-- CMD: memory at the first kernel, medians 900-903 and 1960-1963" \
    program_py "$T/c.json" "x = dv('compare.mem.first_kernel')['fields']; assert 900 <= x['lazy_median'] <= 903 and 1960 <= x['eager_median'] <= 1963"
check "-- CMD: the slowest first use under LAZY named (kernelA, 10 ms), mangled as the probe saw it, demangled in its text" \
    program_py "$T/c.json" "x = dv('slowest.lazy.1'); assert x['name'] == '_Z7kernelAPf' and x['text'] == 'kernelA(float*)' and x['value'] == 10"
check "-- CMD: a name that is not C++ keeps its name as its text" \
    program_py "$T/c.json" "x = dv('slowest.lazy.2'); assert x['name'] == 'kernelB' and x['text'] == 'kernelB'"
expect_grep "-- CMD: the table shows the demangled name" "in 7 runs  kernelA(float\\*)$" "$T/c.out"
check "-- CMD: the table does not show the mangled one" sh -c "! grep -q '_Z7kernelAPf' '$T/c.out'"
check "-- CMD: the JSON names the device, driver, CUPTI and demangler (tests/check_json.py)" \
    python3 tests/check_json.py "$T/c.json"
check "-- CMD: without NVML every device field says so" \
    program_py "$T/c.json" "e = d['environment']; assert all(e[k].startswith('unknown: NVML not available') for k in ('program_gpu_name', 'program_gpu_uuid', 'program_gpu_bus_id', 'program_driver_version', 'program_cuda_driver_version'))"
check "-- CMD: the demangler named" program_py "$T/c.json" "assert d['environment']['program_demangler'] == '__cxa_demangle of libstdc++.so.6'"
expect_grep "-- CMD: the table's header names the device (unknown without NVML)" "Device: unknown, its name, UUID, bus, driver and CUDA alike (NVML not available" "$T/c.out"
expect_grep "-- CMD without NVML: the configuration's GPU line says none was opened" "not opened (no section run in this process" "$T/c.out"
check "-- CMD: the probe's cost stored per mode" \
    program_py "$T/c.json" "assert dv('probe_cost.lazy.wall') and dv('probe_cost.eager.wall')"
check "-- CMD: the four sides named in their order (0 to 3)" \
    program_py "$T/c.json" "assert d['environment']['program_sides'] == 'LAZY, EAGER, LAZY bare, EAGER bare'"
# The run order, worked out by hand from the Williams square of 4 sides
# (0132 1203 2310 3021, then 0132 again; rounds 6 and 7 without the bare
# sides 2 and 3): each side after every other once in the first four
# rounds, and LAZY not always after EAGER bare as a rotation by one had it.
check "-- CMD: the runs in a balanced order (the kept outputs' names, run by run)" \
    python3 -c "import os, re, sys
d = sys.argv[1]
got = [re.sub(r'^run[0-9]+-', '', f[:-4]) for f in sorted(os.listdir(d)) if f.startswith('run') and f.endswith('.out')]
L, E, l, e = 'lazy', 'eager', 'bare.lazy', 'bare.eager'
want = [L, E, e, l, E, l, L, e, l, e, E, L, e, L, l, E, L, E, e, l, E, L, E, L]
assert got == want, got" "$T/c.json.program"
expect_label "-- CMD: the table's first-kernel row, inside the process" "first kernel, from cuInit" "$T/c.out"
expect_label "-- CMD: the table's first-kernel row, from the spawn" "first kernel, from the spawn" "$T/c.out"
# The stand-in writes at.probe as its clock, at.context one ms and
# at.first_kernel 2 + 2,900 + 0..3 ms later: a difference of two doubles,
# within rounding of those (1 + 1e-13 where at.probe is just under a power
# of two), not exactly.
check "-- CMD: the headline inside the process: at.first_kernel less at.probe, run by run" \
    program_py "$T/c.json" "a = m('eager.in.first_kernel')[0]['samples']; c = m('lazy.in.context')[0]['samples']; assert len(a) == 7 and 2902 - 1e-6 <= min(a) and max(a) <= 2905 + 1e-6 and len(c) == 7 and all(abs(x - 1.0) < 1e-6 for x in c), (a, c)"
check "-- CMD: the rounds sentence" \
    program_py "$T/c.json" "assert 'The answer took 7 rounds' in dv('answer.rounds')['text']"
check "-- CMD: the cold-start sentence" \
    program_py "$T/c.json" "assert 'LAZY reached its first kernel sooner' in dv('answer.cold_start')['text']"
expect_grep "-- CMD: the probe's cost row" "the probe's own cost" "$T/c.out"
check "-- CMD: no line of the output ends in a space (a side with no figure, the Ready sentence)" \
    sh -c "! grep -n ' \$' '$T/c.out'"
[ "$OK" = 3 ] && expect_grep "-- CMD: no driver: said" "no CUDA device was used" "$T/c.out"
expect_grep "-- CMD --csv: program rows" "program,lazy.at.first_kernel" "$T/c.csv"
check "-- CMD --trace: the spans of a probed run drawn as a process of their own" \
    python3 -c "import json; t = json.load(open('$T/c.trace'))['traceEvents']; assert [e for e in t if e.get('cat') == 'driver' and e['name'] == 'cuLibraryLoadData']; assert [e for e in t if e['name'] == 'process_name' and 'standin main' in e['args']['name']]"
check "-- CMD: the output kept beside --json" test -s "$T/c.json.program/run01-lazy.out"

# The device named through a stand-in NVML (tests/fakenvml/): the bus id
# of the records (00000000:00:00.0) matched, its name, UUID, the driver's
# and CUDA's versions; then an NVML that answers none of the names.
if [ -n "${FAKENVML:-}" ] && [ -f "$FAKENVML" ]; then
    # shellcheck disable=SC2086
    HARNESS_NVML="$FAKENVML" run_harness "$T/n.out" "$T/n.err" --rounds=2 --json="$T/n.json" \
        --csv="$T/n.csv" -- $SP
    expect_exit "-- CMD with NVML (stand-in): the program ran" "$OK"
    check "-- CMD with NVML: the GPU of the records' bus id, its UUID, the driver 580.00.01, CUDA 13.0" \
        program_py "$T/n.json" "e = d['environment']; assert e['program_gpu_name'] == 'NVIDIA H200 (stand-in)' and e['program_gpu_uuid'].startswith('GPU-00000000-') and e['program_gpu_bus_id'] == '00000000:00:00.0' and e['program_driver_version'] == '580.00.01' and e['program_cuda_driver_version'] == '13.0' and 'its record' in e['program_gpu_source']"
    check "-- CMD with NVML: tests/check_json.py passes" python3 tests/check_json.py "$T/n.json"
    expect_grep "-- CMD with NVML: the header line" "Device: NVIDIA H200 (stand-in) (GPU-00000000-1111-2222-3333-444444444444, bus" "$T/n.out"
    expect_grep "-- CMD with NVML: the configuration's GPU line is the program's device" \
        "^  GPU  *NVIDIA H200 (stand-in) (the program's, bus 00000000:00:00.0)$" "$T/n.out"
    expect_grep "-- CMD with NVML: the CSV's program rows name the bus id" "^program,default.wall,.*,00000000:00:00.0$" "$T/n.csv"
    check "-- CMD with NVML: CUPTI named (API version and file, or none found)" \
        program_py "$T/n.json" "v = d['environment']['program_cupti_version']; assert v.startswith('CUPTI API ') or v == 'none found' or v.startswith('unknown: ')"
    # shellcheck disable=SC2086
    HARNESS_NVML="$FAKENVML" FAKE_NVML_NAMES=off run_harness "$T/q.out" "$T/q.err" --rounds=2 \
        --json="$T/q.json" -- $SP
    check "-- CMD with an NVML that answers no name: each field says which query failed" \
        program_py "$T/q.json" "e = d['environment']; assert e['program_gpu_name'].startswith('unknown: nvmlDeviceGetName: Not Supported') and e['program_gpu_uuid'].startswith('unknown: nvmlDeviceGetUUID: ') and e['program_driver_version'].startswith('unknown: nvmlSystemGetDriverVersion: ') and e['program_gpu_bus_id'] == '00000000:00:00.0' and e['program_cuda_driver_version'].startswith('unknown: nvmlSystemGetCudaDriverVersion: ')"
    check "-- CMD with an NVML that answers no name: tests/check_json.py passes" python3 tests/check_json.py "$T/q.json"
    # shellcheck disable=SC2086
    HARNESS_NVML="$FAKENVML" FAKE_NVML_INIT=fail run_harness "$T/i.out" "$T/i.err" --rounds=2 \
        --json="$T/i.json" -- $SP
    check "-- CMD with an NVML whose nvmlInit_v2 fails: the fields say so" \
        program_py "$T/i.json" "assert d['environment']['program_gpu_uuid'].startswith('unknown: nvmlInit_v2: ')"
    # shellcheck disable=SC2086
    HARNESS_NVML="$FAKENVML" STANDIN_DEVICE=0000:42:00.0 run_harness "$T/b.out" "$T/b.err" \
        --rounds=2 --json="$T/b.json" -- $SP
    check "-- CMD: a bus id NVML does not know: the device's fields say so, the driver's are named" \
        program_py "$T/b.json" "e = d['environment']; assert e['program_gpu_name'].startswith('unknown: nvmlDeviceGetHandleByPciBusId_v2(0000:42:00.0): Not Found') and e['program_driver_version'] == '580.00.01'"
    # shellcheck disable=SC2086
    HARNESS_NVML="$FAKENVML" STANDIN_DEVICE= run_harness "$T/u.out" "$T/u.err" \
        --rounds=2 --json="$T/u.json" -- $SP
    check "-- CMD: no record names a device: the one device NVML counts, said so" \
        program_py "$T/u.json" "e = d['environment']; assert e['program_gpu_name'] == 'NVIDIA H200 (stand-in)' and 'no CUDA process reported' in e['program_gpu_source'] and e['program_gpu_bus_id'].startswith('unknown: nvmlDeviceGetPciInfo_v3: not in this NVML')"
fi
check "-- CMD: scripts/compare reads two such files" sh -c "python3 scripts/compare '$T/c.json' '$T/c.json' >'$T/cmp.out' 2>&1; grep -q 'program' '$T/cmp.out'"

# Fewer runs than the level needs: the verdict says so.
# shellcheck disable=SC2086
run_harness "$T/r3.out" "$T/r3.err" --compare-loading --rounds=3 --max-rounds=3 --json="$T/r3.json" -- \
    $SP --first-kernel LAZY=300,EAGER=2900
check "-- CMD --rounds=3: out of reach, not unclear" \
    program_py "$T/r3.json" "assert dv('compare.at.first_kernel')['text'].startswith('out of reach at 3 a side')"

# LAZY asked for, EAGER in effect.
# shellcheck disable=SC2086
run_harness "$T/e.out" "$T/e.err" --module-loading=lazy --rounds=2 --json="$T/e.json" -- \
    $SP --effective EAGER
expect_grep "-- CMD: LAZY requested but EAGER in effect: said" "LAZY was requested, but EAGER was in effect in 2 of 2" "$T/e.out"

# CUPTI already had a subscriber inside the program: said.
# shellcheck disable=SC2086
run_harness "$T/u.out" "$T/u.err" --rounds=1 --json="$T/u.json" -- $SP --cupti "another client is subscribed"
check "-- CMD, CUPTI taken by another client inside: said" \
    program_py "$T/u.json" "assert 'CUPTI did not answer inside 1 of 1' in dv('answer.cupti')['text'] and 'another client' in dv('answer.cupti')['text']"

# Bad command lines: exit 2 before any run.
run_harness "$T/b1.out" "$T/b1.err" --compare-loading --
expect_exit "-- with no command: usage error" 2
expect_grep "-- with no command: says so" "needs a command after it" "$T/b1.err"
run_harness "$T/b2.out" "$T/b2.err" -- no-such-program-here
expect_exit "-- CMD not found: usage error" 2
expect_grep "-- CMD not found: names it" "no-such-program-here: not found in PATH" "$T/b2.err"
printf 'x\n' >"$T/noexec"
run_harness "$T/b3.out" "$T/b3.err" -- "$T/noexec"
expect_exit "-- CMD not executable: usage error" 2
expect_grep "-- CMD not executable: says so" "not an executable file" "$T/b3.err"
run_harness "$T/b4.out" "$T/b4.err" --section=jit -- true
expect_exit "-- CMD with --section: usage error" 2
run_harness "$T/b5.out" "$T/b5.err" --show-output
expect_exit "--show-output without a command: usage error" 2
check "-- CMD not found: nothing run, nothing written" test ! -s "$T/b2.out"

# Runs that fail: every second exits 1; the others are still compared.
rm -f "$STANDIN_STATE/count"
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" --module-loading=eager --rounds=3 --json="$T/f.json" -- \
    $SP --fail-every 2
expect_exit "-- CMD, runs that exit 1: exit 1" 1
expect_grep "-- CMD, runs that exit 1: how many failed" "In all, 3 of 6 measured" "$T/f.out"
check "-- CMD, runs that exit 1: the others' figures kept" \
    program_py "$T/f.json" "assert len(m('eager.wall')[0]['samples']) + len(m('bare.eager.wall')[0]['samples']) == 3"

# A program that hangs, with a worker that hangs: --child-timeout ends its
# whole process group.
rm -f "$STANDIN_STATE/hung"
# shellcheck disable=SC2086
run_harness "$T/h.out" "$T/h.err" --rounds=1 --child-timeout=1 -- $SP --hang
expect_exit "-- CMD that hangs: exit 1" 1
expect_grep "-- CMD that hangs: the time limit named" "ran past --child-timeout=1 s; its process group was killed" "$T/h.out"
check "-- CMD that hangs: its worker is gone too" gone "$(cat "$STANDIN_STATE/hung")"

# Killed by a signal.
# shellcheck disable=SC2086
run_harness "$T/k.out" "$T/k.err" --rounds=1 -- $SP --signal SIGKILL
expect_exit "-- CMD killed by a signal: exit 1" 1
expect_grep "-- CMD killed by a signal: named" "killed by signal 9" "$T/k.out"

# Never calls CUDA: said, not an error of the harness.
# shellcheck disable=SC2086
run_harness "$T/n.out" "$T/n.err" --rounds=1 -- $SP --no-cuda
expect_exit "-- CMD without CUDA: not a failure" "$OK"
expect_grep "-- CMD without CUDA: said" "No CUDA process" "$T/n.out"

# Workers: each process's record kept, figures per process.
# shellcheck disable=SC2086
run_harness "$T/w.out" "$T/w.err" --module-loading=lazy --rounds=2 --json="$T/w.json" -- \
    $SP --workers 2
check "-- CMD with 2 workers: 3 CUDA processes a run, none lost" \
    program_py "$T/w.json" "assert m('lazy.processes')[0]['samples'] == [3, 3]"
check "-- CMD with 2 workers: figures per process" \
    program_py "$T/w.json" "e = d['environment']; assert m('proc3.lazy.at.first_kernel') and sorted(e['program_proc%d_command' % i] for i in (1, 2, 3)) == ['standin main', 'standin worker', 'standin worker']"
expect_grep "-- CMD with 2 workers: a table per process" "process 3 (standin" "$T/w.out"

# Truncated and forged records: refused with the reason.
# shellcheck disable=SC2086
run_harness "$T/t.out" "$T/t.err" --rounds=1 -- $SP --truncate
expect_exit "-- CMD, a truncated record: exit 1" 1
expect_grep "-- CMD, a truncated record: refused, why" "truncated: no end line" "$T/t.out"
# shellcheck disable=SC2086
run_harness "$T/g.out" "$T/g.err" --rounds=1 -- $SP --forge-pid
expect_exit "-- CMD, a forged record: exit 1" 1
expect_grep "-- CMD, a forged record: refused, why" "not a process of this run" "$T/g.out"

# --show-output prints the first run's output.
# shellcheck disable=SC2086
run_harness "$T/o.out" "$T/o.err" --rounds=1 --show-output -- $SP
expect_grep "--show-output: the first run's stdout" "stand-in ran in mode" "$T/o.out"
expect_grep "--show-output: its stderr" "stand-in's stderr" "$T/o.out"
# shellcheck disable=SC2086
run_harness "$T/p.out" "$T/p.err" --rounds=1 --program-output="$T/outs" -- $SP
check "--program-output=DIR: each run's stdout and stderr there" \
    sh -c "test -s '$T/outs/run01-default.out' && test -s '$T/outs/run02-bare.default.err'"

# SIGTERM to the harness while the program runs: its group ended, the
# results so far written, marked incomplete.
rm -f "$STANDIN_STATE/hung"
# shellcheck disable=SC2086
signal_run TERM "$STANDIN_STATE/hung" "$T/s" --rounds=1 --json="$T/s.json" -- $SP --hang
expect_exit "-- CMD, SIGTERM to the harness: exit 143" 143
check "-- CMD, SIGTERM to the harness: the JSON marked incomplete" \
    program_py "$T/s.json" "assert d['incomplete'] is True"
check "-- CMD, SIGTERM to the harness: the program's group ended" gone "$(cat "$STANDIN_STATE/hung")"

# tests/gpu/overhead.py's mechanics on the CPU (the GPU run is part overhead
# of tests/gpu/run.sh): every run of each variant alternating, the table and
# the CSV; a run that fails is counted and said, the exit is 1.
python3 tests/gpu/overhead.py --runs 2 --warmup 1 --out "$T/ovh" --probe "$PWD/${PROBE:-harness-probe.so}" \
    --program "true=true" --program "py=python3 -c print('{\"t_start_ns\":0,\"t_end_ns\":5000000}')" \
    >"$T/ovh.out" 2>"$T/ovh.err"
rc=$?
expect_exit "overhead.py: every run exited 0" 0
check "overhead.py: the CSV has every run (2 programs x 2 variants x 2 runs)" \
    sh -c "[ \$(grep -c ',0,' '$T/ovh/overhead.csv') -eq 8 ]"
expect_grep "overhead.py: the table's probe row, against bare" "^true  *probe  *2/2 " "$T/ovh/overhead.txt"
expect_grep "overhead.py: the program's own span, from its JSON line" "^py  *bare  *2/2 .* 5.0 " "$T/ovh/overhead.txt"
python3 tests/gpu/overhead.py --runs 1 --warmup 0 --out "$T/ovf" --program "false=false" \
    >"$T/ovf.out" 2>"$T/ovf.err"
rc=$?
expect_exit "overhead.py: a run that fails: exit 1" 1
expect_grep "overhead.py: the failed run said" "false under bare, round 1: exit 1" "$T/ovf.err"
schema_check_dir "-- CMD" "$T"
