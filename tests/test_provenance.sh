#!/bin/sh
# test_provenance.sh: every results file says how it was made. The JSON of
# each section, of a node run and of -- CMD carries the provenance fields
# (tests/check_json.py checks them: the command line, the start time in UTC
# ISO 8601, hostname, CPU model, OS kernel, version and commit, GPU and
# driver or null); the command line is the one typed, quoted where a shell
# would read a word otherwise. No driver here (each run exits 3, or 1).
# Prints one PASSED or FAILED line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
env_set HARNESS_LIBCUDA /nonexistent/libcuda.so.1
for s in visible stopwatches crossover loading jit launch fusion; do
    run_harness "$T/$s.out" "$T/$s.err" --section=$s --quick --reps=1 --synthetic-kernels=1 \
        --json="$T/$s.json"
    check "provenance: section $s's JSON has every field" python3 tests/check_json.py "$T/$s.json"
done
run_harness "$T/n.out" "$T/n.err" --device=all --section=launch --json="$T/n.json"
check "provenance: a node run's JSON has every field" python3 tests/check_json.py "$T/n.json"
env_restore HARNESS_LIBCUDA
V=$("$HARNESS" --version | cut -d' ' -f2)
env_set HARNESS_PROBE /dev/null
env_set STANDIN_STATE "$T"
run_harness "$T/p.out" "$T/p.err" --rounds=1 --json="$T/p.json" -- python3 tests/standin_program.py \
    --version "$V" --sleep "LAZY=0.01"
check "provenance: -- CMD's JSON has every field" python3 tests/check_json.py "$T/p.json"
env_restore STANDIN_STATE
env_restore HARNESS_PROBE
check "provenance: the command line as typed, a word with a space or quote in '...'" python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['environment']
want = sys.argv[2] + ' --rounds=1 --json=' + sys.argv[3] + ' -- python3 tests/standin_program.py --version ' + sys.argv[4] + ' --sleep LAZY=0.01'
assert e['command_line'] == want, (e['command_line'], want)" "$T/p.json" "$HARNESS" "$T/p.json" "$V"
run_harness "$T/q.out" "$T/q.err" --section=jit --reps=1 --synthetic-kernels=1 "--json=$T/it's a.json"
check "provenance: a quote and a space in a word" python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['environment']
assert e['command_line'].endswith(\"'--json=\" + sys.argv[2] + \"/it'\\\\''s a.json'\"), e['command_line']" "$T/it's a.json" "$T"
check "provenance: started_utc within a minute of the run" python3 -c "
import json, sys, datetime
e = json.load(open(sys.argv[1]))['environment']
t = datetime.datetime.strptime(e['started_utc'], '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc)
assert abs((datetime.datetime.now(datetime.timezone.utc) - t).total_seconds()) < 600, t" "$T/p.json"
