#!/bin/sh
# program_trust.sh: what a PyTorch program cannot do to -- CMD on a GPU
# (docs/program.md, "A program that works against the harness"), with
# tests/gpu/program/app_escape.py:
#   - a setsid CUDA grandchild still running after the main process exits:
#     killed and named (exit 1, a failed check), gone when the harness ends,
#     its record read; no GPU process of it left, no directory left;
#   - SIGHUP to the harness while the program and such a grandchild run:
#     exit 129, every process gone, no directory left, the JSON incomplete;
#     SIGKILL the same way: every process and directory gone all the same;
#   - two harness runs on one --json: the second refused at its start
#     (exit 2, the directory named), the first whole, its output alone;
#   - a program that re-executes itself without the probe and uses the GPU:
#     "The GPU was used without the probe", not "No CUDA process".
# Each check prints PASSED or FAILED; the logs go under L (default
# /tmp/program-trust); the last line is "program-trust: N passed, N failed".
: "${HARNESS:=./harness}"
. tests/lib.sh
L=${L:-/tmp/program-trust}
rm -rf "$L"
mkdir -p "$L/tmp" "$L/state"
APP="python3 tests/gpu/program/app_escape.py"
# Every run's temporary directories under $L/tmp, to be found empty after it.
env_set TMPDIR "$L/tmp"

# gone PID: no such process, or only its zombie.
gone() {
    [ -n "$1" ] || return 1
    sleep 0.5
    [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# no_gpu_process PID...: none of them among the GPU's compute processes.
no_gpu_process() {
    nvidia-smi --query-compute-apps=pid --format=csv,noheader >"$L/apps.txt" 2>&1 || return 1
    for p in "$@"; do grep -qx "$p" "$L/apps.txt" && return 1; done
    return 0
}

# tmp_empty: nothing of the harness left under $L/tmp.
tmp_empty() {
    [ -z "$(ls -A "$L/tmp")" ]
}

# py FILE CODE: CODE's asserts on the JSON FILE as d.
py() {
    python3 -c "import json
d = json.load(open('$1'))
t = {x['key']: x.get('text', '') for x in d['derived'] if x['section'] == 'program'}
$2"
}

{
# 1. A setsid CUDA grandchild outlives the main process.
rm -f "$L/state/"*
timeout -s KILL 300 "$HARNESS" --rounds=1 --module-loading=lazy --json="$L/setsid.json" \
    -- $APP --setsid-grandchild "$L/state" >"$L/setsid.out" 2>"$L/setsid.err"
rc=$?
expect_exit "setsid grandchild: a failed check (it outlived the main process)" 1
gc=$(cat "$L/state/grandchild" 2>/dev/null)
check "setsid grandchild: gone when the harness ends (pid $gc)" gone "$gc"
check "setsid grandchild: no GPU process of it left" no_gpu_process "$gc"
expect_grep "setsid grandchild: named on stderr as killed" "killed (SIGKILL): pid $gc" "$L/setsid.err"
check "setsid grandchild: named in a failed check" \
    py "$L/setsid.json" "assert [c for c in d['checks'] if not c['passed'] and 'outlived' in c['what'] and 'pid $gc' in c['detail']]"
check "setsid grandchild: its record read (a process of the run)" \
    py "$L/setsid.json" "m = {x['key']: x for x in d['measurements']}; assert m['lazy.processes']['samples'] == [1]"
check "setsid grandchild: no directory left" tmp_empty

# 2. SIGHUP to the harness while the program and its setsid grandchild run.
rm -f "$L/state/"*
"$HARNESS" --rounds=1 --module-loading=lazy --json="$L/hup.json" \
    -- $APP --hang "$L/state" >"$L/hup.out" 2>"$L/hup.err" &
hp=$!
wait_path "$L/state/main"
sleep 1
kill -HUP "$hp"
wait "$hp"
rc=$?
expect_exit "SIGHUP to the harness: exit 129" 129
gc=$(cat "$L/state/grandchild" 2>/dev/null)
mp=$(cat "$L/state/main" 2>/dev/null)
check "SIGHUP: the main process gone (pid $mp)" gone "$mp"
check "SIGHUP: the setsid CUDA grandchild gone (pid $gc)" gone "$gc"
check "SIGHUP: no GPU process of the program left" no_gpu_process "$gc" "$mp"
check "SIGHUP: no directory left" tmp_empty
check "SIGHUP: the results so far written, marked incomplete" \
    py "$L/hup.json" "assert d['incomplete'] is True and 'SIGHUP' in d['environment']['stopped']"

# 2b. SIGKILL to the harness: the kernel and the sentinel (ptree.h) end it all.
rm -f "$L/state/"*
"$HARNESS" --rounds=1 --module-loading=lazy --json="$L/kill.json" \
    -- $APP --hang "$L/state" >"$L/kill.out" 2>"$L/kill.err" &
hp=$!
wait_path "$L/state/main"
sleep 1
kill -KILL "$hp"
wait "$hp"
rc=$?
expect_exit "SIGKILL to the harness: exit 137" 137
gc=$(cat "$L/state/grandchild" 2>/dev/null)
mp=$(cat "$L/state/main" 2>/dev/null)
check "SIGKILL: the main process gone (pid $mp)" gone "$mp"
check "SIGKILL: the setsid CUDA grandchild gone (pid $gc)" gone "$gc"
check "SIGKILL: no GPU process of the program left" no_gpu_process "$gc" "$mp"
check "SIGKILL: no directory left" tmp_empty

# 3. Two harness runs on one --json.
rm -rf "$L/two.json" "$L/two.json.program"
"$HARNESS" --rounds=1 --module-loading=lazy --json="$L/two.json" \
    -- $APP --sleep 5 >"$L/two1.out" 2>"$L/two1.err" &
first=$!
wait_path "$L/two.json.program/run01-*"
"$HARNESS" --rounds=1 --module-loading=lazy --json="$L/two.json" \
    -- $APP --sleep 1 >"$L/two2.out" 2>"$L/two2.err"
rc=$?
expect_exit "two runs on one --json: the second refused at its start" 2
expect_grep "two runs on one --json: the directory named" "two.json.program is in use by another harness run" "$L/two2.err"
check "two runs on one --json: the second ran nothing" test ! -s "$L/two2.out"
wait "$first"
rc=$?
expect_exit "two runs on one --json: the first whole" 0
check "two runs on one --json: the first's output alone (a warm-up and a run a side, 8 files)" \
    sh -c "test \"\$(ls '$L/two.json.program' | tr '\n' ' ')\" = 'run01-lazy.err run01-lazy.out run02-bare.lazy.err run02-bare.lazy.out warmup01-lazy.err warmup01-lazy.out warmup02-bare.lazy.err warmup02-bare.lazy.out '"
check "two runs on one --json: the JSON is the first's, whole" \
    py "$L/two.json" "assert d['incomplete'] is False and d['environment']['program_command'].endswith('--sleep 5')"

# 4. The GPU used without the probe: said so.
timeout -s KILL 300 "$HARNESS" --rounds=2 --json="$L/own.json" \
    -- $APP --own-injection >"$L/own.out" 2>"$L/own.err"
rc=$?
expect_exit "a program that drops the probe: the runs pass" 0
check "a program that drops the probe: 'The GPU was used without the probe'" \
    py "$L/own.json" "assert t['answer.cuda'].startswith('The GPU was used without the probe')"
check "a program that drops the probe: no directory left" tmp_empty
} >"$L/log" 2>&1
env_restore TMPDIR
summary "$L/log" "program-trust"
