#!/bin/sh
# run.sh: the README's test command (make test). CPU tests everywhere: the
# unit tests, the driver table's ABI, no include cycle among the headers of
# src/, its layers including only downward (tests/layers.sh), every bad
# command line, the no-driver and stub-driver paths of the real binary,
# its JSON read back, install, scripts/compare and scripts/plot (its
# figures where matplotlib is), the scripts' command lines and key schema
# (tests/test_scripts.sh), the --module reader on modules nvcc builds
# and on the toolkit's libraries (tests/test_modules.sh), section
# visible and the run's compile cache on the stand-in driver
# (tests/test_visible.sh, tests/test_kcache.sh), rows one section takes
# from another's measurements (tests/test_shared.sh), the probe library
# as built (tests/test_probe_so.sh), the user's own program with a stand-in
# (tests/test_program.sh), under the settings it compares
# (tests/test_settings.sh), the hazards of its loading mode
# (tests/test_hazards.sh), its failed and hung runs diagnosed
# (tests/test_failures.sh), with all device memory but a margin held on
# the stand-in driver (tests/test_squeeze.sh), section snapshot on the
# stand-in driver's checkpoint entry points (tests/test_snapshot.sh) and
# -- CMD --snapshot on them (tests/test_snapshot_cmd.sh), and
# with a hostile one, with
# the record reader's benchmark (tests/test_hostile.sh), its output, tree,
# paths and bytes under hostile input (tests/test_trust.sh), the README and
# docs/: size, the two commands,
# every link (tests/test_docs.sh); the options the manual page and
# docs/options.md list, against the option table (tests/test_options.sh);
# --schema, and the keys of runs on the stand-in driver, of the stand-in
# program and of the H200's default run checked against it
# (tests/test_schema.sh); the environment as found at the end
# (tests/test_env.sh: TMPDIR unset, empty or a path).
# The GPU tests too where a GPU is usable. Prints one line per suite as it
# ends (its name, passed, failed, seconds), then the FAILED lines in full,
# and ends with "N passed, N failed"; the whole log is kept in
# $(dirname $UNIT)/test.log.
: "${HARNESS:=./harness}"
: "${UNIT:=build/unit}"
: "${CUDA_HOME:=/usr/local/cuda}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
# The environment as this script found it (an empty TMPDIR unset by lib.sh),
# to compare with the one its last steps see.
env_snapshot "$T/env.start"
LOG="$(dirname "$UNIT")/test.log"
: >"$T/log"
exec 3>&1
M0=$(date +%s.%N) P0=0 F0=0
# mark NAME: the suite NAME has ended: one line on the terminal with the
# PASSED and FAILED lines the log gained since the last mark, and the time.
mark() {
    m_now=$(date +%s.%N)
    m_p=$(grep -c '^PASSED' "$T/log")
    m_f=$(grep -c '^FAILED' "$T/log")
    awk -v n="$1" -v p=$((m_p - P0)) -v f=$((m_f - F0)) -v t0="$M0" -v t1="$m_now" \
        'BEGIN { printf "%-14s %5d passed %4d failed %7.1f s\n", n, p, f, t1 - t0 }' >&3
    P0=$m_p F0=$m_f M0=$m_now
}
{
"$UNIT" || echo "FAILED unit tests exited non-zero"
mark unit
sh tests/test_env.sh
mark env
sh tests/abi.sh
mark abi
OBJDIR="${OBJDIR:-$(dirname "$UNIT")/obj}" sh tests/include_cycles.sh
mark include-cycles
sh tests/layers.sh
mark layers
sh tests/test_compare.sh
mark compare
sh tests/test_plot.sh
mark plot
sh tests/test_scripts.sh
mark scripts
sh tests/test_modules.sh
mark modules
sh tests/test_sources.sh
mark sources
sh tests/test_node.sh
mark node
sh tests/test_slurm.sh
mark slurm
sh tests/test_probe_so.sh
mark probe-so
sh tests/test_program.sh
mark program
sh tests/test_settings.sh
mark settings
sh tests/test_hazards.sh
mark hazards
FAKECUDA="${FAKECUDA:-}" sh tests/test_squeeze.sh
mark squeeze
FAKECUDA="${FAKECUDA:-}" LIVE_PLANT="${LIVE_PLANT:-}" sh tests/test_failures.sh
mark failures
FAKECUDA="${FAKECUDA:-}" FAKENVML="${FAKENVML:-}" sh tests/test_snapshot.sh
mark snapshot
FAKECUDA="${FAKECUDA:-}" FAKENVML="${FAKENVML:-}" LIVE_PLANT="${LIVE_PLANT:-}" sh tests/test_snapshot_cmd.sh
mark snapshot-cmd
BENCH="${BENCH:-}" sh tests/test_hostile.sh
mark hostile
FAKECUDA="${FAKECUDA:-}" sh tests/test_trust.sh
mark trust
sh tests/test_docs.sh
mark docs
sh tests/test_options.sh
mark options
FAKECUDA="${FAKECUDA:-}" sh tests/test_schema.sh
mark schema
sh tests/test_summary.sh
mark summary
sh tests/test_glitches.sh
mark glitches
FAKECUDA="${FAKECUDA:-}" sh tests/test_width.sh
mark width
FAKECUDA="${FAKECUDA:-}" sh tests/test_progress.sh
mark progress
FAKECUDA="${FAKECUDA:-}" sh tests/test_markdown.sh
mark markdown
sh tests/test_references.sh
mark references
sh tests/test_provenance.sh
mark provenance

# Bad command lines: exit code and the error text.
grep -v '^#' tests/cli_cases.txt | grep -v '^$' | while IFS='|' read -r code text args; do
    code=$(echo "$code" | tr -d ' ')
    text=$(echo "$text" | sed 's/^ *//; s/ *$//')
    # shellcheck disable=SC2086
    "$HARNESS" $args >"$T/cli.out" 2>"$T/cli.err"
    rc=$?
    expect_exit "cli:$args" "$code"
    expect_grep "cli:$args says: $text" "$text" "$T/cli.err"
done
run_harness "$T/h.out" "$T/h.err" --help
expect_exit "--help" 0
check "--help fits one screen: at most 40 lines of at most 80 columns" \
    sh -c "test \$(wc -l <'$T/h.out') -le 40 && ! awk 'length > 80' '$T/h.out' | grep -q ."
check "--help has six examples and the docs index" sh -c \
    "test \$(grep -c '^  harness ' '$T/h.out') -eq 6 && grep -q 'docs/README.md' '$T/h.out'"
run_harness "$T/h2.out" "$T/h2.err" -h
expect_exit "-h" 0
check "-h prints what --help prints" cmp -s "$T/h.out" "$T/h2.out"
run_harness "$T/ha.out" "$T/ha.err" --help=all
expect_exit "--help=all" 0
expect_grep "--help=all lists every option" "--kernels-dir=DIR" "$T/ha.out"
run_harness "$T/hx.out" "$T/hx.err" --help=some
expect_exit "--help=some: a usage error" 2
expect_grep "--help=some: names the value it takes" "^harness: --help=some: the value is 'all'" "$T/hx.err"
run_harness "$T/v.out" "$T/v.err" --version
expect_exit "--version" 0
# The commit where the tree is a git checkout; "unknown" in a tree without
# git (a release tarball, a downloaded zip).
if git rev-parse HEAD >/dev/null 2>&1; then
    expect_grep "--version prints the version and the commit" "^harness [0-9][0-9.]* (commit [0-9a-f]\\{7,\\}\\(-dirty\\)\\{0,1\\})\$" "$T/v.out"
else
    expect_grep "--version outside a git checkout prints the version and the commit unknown" "^harness [0-9][0-9.]* (commit unknown)\$" "$T/v.out"
fi
mkdir -p "$T/ng/src" && cp Makefile "$T/ng/" && cp src/version.h "$T/ng/src/"
if ! git -C "$T/ng" rev-parse HEAD >/dev/null 2>&1; then
    check "--version outside a git checkout: the build names the commit unknown" sh -c \
        "make -s -C '$T/ng' SANITIZER= build/version.c && grep -q '\"unknown\"' '$T/ng/build/version.c'"
fi
# A quiet build: one short line a step; V=1 every command in full (a copy
# of the tree's Makefile and one source, built into the copy).
mkdir -p "$T/ng/src/os" && cp src/os/clock.c src/os/clock.h "$T/ng/src/os/"
# (the outer make's flags not passed on: under make -jN a nested make warns
# of the jobserver it cannot reach)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$T/ng" --no-print-directory SANITIZER= \
    build/obj/src/os/clock.o >"$T/mq.out" 2>&1
rm -f "$T/ng/build/obj/src/os/clock.o"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$T/ng" --no-print-directory SANITIZER= V=1 \
    build/obj/src/os/clock.o >"$T/mv.out" 2>&1
check "make: quiet by default (one line, '  CC      src/os/clock.c'), V=1 the full command" sh -c \
    "test \"\$(cat '$T/mq.out')\" = '  CC      src/os/clock.c' && grep -q -- '-MMD -MP -c -o build/obj/src/os/clock.o' '$T/mv.out'"

mark cli
# No driver: a library that is not there, then the toolkit's stub.
env_set HARNESS_LIBCUDA /nonexistent/libcuda.so.1
run_harness "$T/n.out" "$T/n.err" --section=stopwatches,crossover,loading --json="$T/n.json" --csv="$T/n.csv"
expect_exit "no driver: GPU sections skipped" 3
expect_grep "no driver: one line per skipped section" "stopwatches: skipped: no CUDA driver: " "$T/n.err"
expect_grep "no driver: crossover skipped too, the reason not said again" \
    "crossover: skipped: no CUDA driver (as above)\$" "$T/n.err"
check "no driver: the reason said once on stderr and once in the report (its GPU line)" sh -c \
    "test \$(grep -c 'cannot open shared object' '$T/n.err') -eq 1 &&
     test \$(grep -c 'cannot open shared object' '$T/n.out') -eq 1 &&
     grep -q '^crossover: skipped: no CUDA driver (the GPU line above)\$' '$T/n.out'"
check "no driver: the JSON is written and reads back" \
    python3 tests/check_json.py "$T/n.json" --expect-measurements 0 --expect-skipped stopwatches crossover loading
check "no driver: the JSON says the run is incomplete (sections asked for were skipped)" \
    python3 tests/check_json.py "$T/n.json" --expect-incomplete
check "no driver: the CSV has its header" grep -q '^section,key,name,state' "$T/n.csv"
check "no driver: the JSON says no device was opened, and names none" sh -c \
    "python3 tests/check_json.py '$T/n.json' --expect-env device_opened='\"none\"' &&
     ! grep -q '\"uuid\"\\|\"pci_bus_id\"' '$T/n.json'"
run_harness "$T/j.out" "$T/j.err" --section=jit --reps=2 --synthetic-kernels=1,10 --json="$T/j.json"
expect_exit "no driver: section jit runs its NVRTC part, then exit 3" 3
expect_grep "no driver: jit names the part it skipped" "jit: skipped: the driver JIT part: no CUDA driver" "$T/j.err"
check "no driver: jit's NVRTC figures are in the JSON" python3 tests/check_json.py "$T/j.json" --expect-skipped jit
expect_grep "no driver: jit prints its NVRTC table" "first compile in a fresh process" "$T/j.out"
check "no driver: jit timed each source to PTX and cubin, and K=10" sh -c "grep -q '\"compile.vector.cu.cubin\"' '$T/j.json' && grep -q '\"synth.10.ptx\"' '$T/j.json' && grep -q '\"phases.vector.cubin.' '$T/j.json'"
# --arch that NVRTC does not compile for: a usage error naming --arch, found
# when NVRTC is loaded; the JSON says the run is incomplete and why.
for a in sm_00 sm_10 sm_999 sm_101a; do
    rm -f "$T/a.json"
    run_harness "$T/a.out" "$T/a.err" --arch=$a --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 --json="$T/a.json"
    expect_exit "--arch=$a: usage error" 2
    expect_grep "--arch=$a: one line names --arch and what NVRTC compiles for" "^harness: --arch=$a: this NVRTC compiles for sm_.*; not $a\$" "$T/a.err"
    check "--arch=$a: the JSON is marked incomplete and names the skip" sh -c \
        "python3 tests/check_json.py '$T/a.json' --expect-incomplete --expect-skipped jit && grep -q 'arch=$a' '$T/a.json'"
done
# A suffix NVRTC does not take for that number (sm_89a, sm_90f): found
# before any compile (NVRTC refused it at the first compile, exit 1).
for a in sm_89a sm_90f; do
    run_harness "$T/a.out" "$T/a.err" --arch=$a --section=jit --reps=1 --rounds=1 --synthetic-kernels=1
    expect_exit "--arch=$a: a usage error" 2
    expect_grep "--arch=$a: one line names --arch and the suffix's first architecture" \
        "^harness: --arch=$a: NVRTC takes the '.' suffix (.*) from sm_[0-9]* on; not for ${a%?}\$" "$T/a.err"
    check "--arch=$a: nothing compiled, nothing printed" \
        sh -c "test ! -s '$T/a.out' && ! grep -q 'nv_arch\|compil' '$T/a.err'"
done
run_harness "$T/tr.out" "$T/tr.err" --section=jit --reps=1 --synthetic-kernels=1 --trace="$T/tr.json"
expect_exit "no driver: --trace of section jit" 3
check "--trace writes a Chrome trace-event document" python3 tests/check_trace.py "$T/tr.json"
run_harness "$T/trw.out" "$T/trw.err" --section=jit --reps=1 --synthetic-kernels=1 --trace=/nonexistent-dir/t.json
expect_exit "--trace to a path that cannot be written: a usage error" 2
expect_grep "--trace: it names the option, the path and the reason" \
    "^harness: --trace=/nonexistent-dir/t.json: cannot be written: /nonexistent-dir: No such file or directory\$" "$T/trw.err"
check "--trace that cannot be written: nothing ran (no table, no progress line)" \
    sh -c "test ! -s '$T/trw.out' && test \"\$(grep -vc '^Try ' '$T/trw.err')\" -eq 1"
export HARNESS_TEST_CHILD_HANG=1
run_harness "$T/hang.out" "$T/hang.err" --section=jit --reps=1 --rounds=2 --synthetic-kernels=1 --child-timeout=1
expect_exit "a child that hangs: killed at --child-timeout, the run goes on, exit 1" 1
expect_grep "the hung child is reported with its time limit" "ran past --child-timeout=1 s and was killed" "$T/hang.err"
check "both rounds ran although the first child hung" test "$(grep -c 'ran past --child-timeout' "$T/hang.err")" -eq 2
expect_grep "the rest of the section still printed" "options, vector.cu" "$T/hang.out"
signal_child ABRT "$T/kj" --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 --json="$T/kj.json"
unset HARNESS_TEST_CHILD_HANG
expect_exit "a jit child killed by SIGABRT: exit 1" 1
expect_grep "a jit child killed by SIGABRT: named as death by signal 6" \
    "the child --child=jit-first died of signal 6 (" "$T/kj.err"
check "a jit child killed by SIGABRT: the JSON is marked incomplete" \
    python3 tests/check_json.py "$T/kj.json" --expect-incomplete
# A SIGINT while section jit compiles (no driver): exit 130, the results so
# far written and marked incomplete, NVRTC's temporary directory gone.
mkdir "$T/tmp1"
env_set TMPDIR "$T/tmp1"
signal_run INT 1 "$T/si" --section=jit --reps=3 --rounds=1 --json="$T/si.json" --csv="$T/si.csv"
env_restore TMPDIR
expect_exit "SIGINT during section jit: exit 130" 130
check "SIGINT: the run ended within 10 s of the signal" test "$secs" -le 10
expect_grep "SIGINT: the stop is reported with the files written" "stopped: interrupted by SIGINT; exit code 130; the results so far, marked incomplete, are in" "$T/si.err"
check "SIGINT: the JSON so far is valid, incomplete, says why" \
    python3 tests/check_json.py "$T/si.json" --expect-stopped "interrupted by SIGINT"
check "SIGINT: the CSV so far has its header" grep -q '^section,key,name,state' "$T/si.csv"
check "SIGINT: no temporary directory left" test -z "$(ls -A "$T/tmp1")"

mark no-driver
# The signal storm (tests/storm.py): SIGINT and SIGTERM spread over runs of
# each section on the stand-in driver and of jit's NVRTC part, inside a slow
# first NVRTC compile and a long later one, FIFOs as outputs and sources.
HARNESS="$HARNESS" FAKECUDA="${FAKECUDA:-}" python3 tests/storm.py ci >"$T/storm.log" 2>&1 ||
    grep -q '^FAILED' "$T/storm.log" || { tail -5 "$T/storm.log"; echo "FAILED tests/storm.py ci exited non-zero"; }
grep -E '^(PASSED|FAILED|storm )' "$T/storm.log"

mark storm
# A directory where --kernels-dir should hold a source: said so (its size
# read as 9223372036854775807 bytes).
mkdir "$T/kd" "$T/kd/vector.cu"
cp kernels/*.cu "$T/kd/" 2>/dev/null
run_harness "$T/kd.out" "$T/kd.err" --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 --kernels-dir="$T/kd"
expect_exit "--kernels-dir whose vector.cu is a directory: exit 1" 1
expect_grep "--kernels-dir whose vector.cu is a directory: says so" "$T/kd/vector.cu: not a regular file (a directory); a kernel source must be one" "$T/kd.err"

# Output files: a failed write says why and leaves the earlier file whole.
printf 'earlier\n' >"$T/prev.json"
(ulimit -f 1; trap '' XFSZ; exec "$HARNESS" --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 \
    --json="$T/prev.json") >/dev/null 2>"$T/fs.err"
rc=$?
expect_exit "a JSON over the file size limit: exit 1" 1
expect_grep "the failed write names the file and the reason" "cannot write $T/prev.json: File too large" "$T/fs.err"
check "the earlier file is untouched" grep -qx earlier "$T/prev.json"
check "no temporary file is left beside it" test -z "$(ls "$T" | grep 'prev.json.tmp')"
# One file under two spellings, or through a link, is a usage error before
# the run (the second write replaced the first); the file is not touched.
OF="--section=jit --reps=1 --rounds=1 --synthetic-kernels=1"
mkdir "$T/o" "$T/o/sub"
printf 'earlier\n' >"$T/o/e.json"
ln -s e.json "$T/o/le.json"
ln -s d.json "$T/o/ld.json"
ln -s sub/../d2.json "$T/o/ld2.json"
for pair in "--json=$T/o/r.json --csv=$T/o/./r.json" "--trace=$T/o//x --json=$T/o/x" \
            "--json=$T/o/le.json --csv=$T/o/e.json" "--csv=$T/o/ld.json --json=$T/o/d.json" \
            "--json=$T/o/sub/../e.json --trace=$T/o/e.json"; do
    # shellcheck disable=SC2086
    run_harness "$T/sf.out" "$T/sf.err" $OF $pair
    expect_exit "$pair: one file twice, a usage error" 2
    expect_grep "$pair: names both options" "^harness: --.*=.* and --.*=.* name the same file\$" "$T/sf.err"
done
check "one file twice: nothing was written" sh -c "test ! -e '$T/o/r.json' && test ! -e '$T/o/x' && test ! -e '$T/o/d.json' && grep -qx earlier '$T/o/e.json'"
# A dangling link as an output: the file it names is created, the link kept.
run_harness "$T/dl.out" "$T/dl.err" $OF --json="$T/o/ld2.json"
expect_exit "a dangling link as --json: the run's own exit code" 3
check "a dangling link as --json: the file it names is written" python3 tests/check_json.py "$T/o/d2.json"
check "a dangling link as --json: the link is still a link to it" test "$(readlink "$T/o/ld2.json")" = sub/../d2.json
# A directory as an output: a usage error that says so.
for d in "$T/o/" "$T/o" "$T/o/nodir/"; do
    run_harness "$T/dd.out" "$T/dd.err" $OF --csv="$d"
    expect_exit "--csv=$d: usage error" 2
    expect_grep "--csv=$d: says it names a directory" "^harness: --csv=$d: names a directory; expected a file name\$" "$T/dd.err"
done
run_harness "$T/df.out" "$T/df.err" --section=stopwatches --json=/dev/full
expect_exit "--json=/dev/full: exit 1" 1
expect_grep "--json=/dev/full: says why" "cannot write /dev/full: No space left on device" "$T/df.err"
check "--json=/dev/full: the device is written in place, not replaced" test -c /dev/full
run_harness "$T/dn.out" "$T/dn.err" --section=stopwatches --json=/dev/null
expect_exit "--json=/dev/null: the run's own exit code (no GPU)" 3

mark outputs
# Stuck work and signals on a stand-in driver (tests/fakecuda/fake_libcuda.c): one
# device whose work never finishes (FAKE_CUDA_HANG).
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    export HARNESS_LIBCUDA="$FAKECUDA"
    export FAKE_CUDA_HANG="$T/hang1"
    t0=$(date +%s)
    run_harness "$T/kt.out" "$T/kt.err" --section=crossover --sizes=1024 --reps=2 --kernel-timeout=1 \
        --json="$T/kt.json" --csv="$T/kt.csv"
    secs=$(($(date +%s) - t0))
    expect_exit "a kernel that never finishes: stopped at --kernel-timeout, exit 1" 1
    check "the stuck run ended within 10 s (limit 1 s)" test "$secs" -le 10
    expect_grep "the wait that timed out is named, with its limit" \
        "error: crossover: cuStreamSynchronize timed out after 1 s (--kernel-timeout=1)" "$T/kt.err"
    expect_grep "the stop names the files written" \
        "stopped: a kernel ran past --kernel-timeout=1 s in crossover; exit code 1; the results so far, marked incomplete, are in" "$T/kt.err"
    check "stuck kernel: the JSON so far is valid, incomplete, says why" \
        python3 tests/check_json.py "$T/kt.json" --expect-stopped "ran past --kernel-timeout=1 s"
    check "stuck kernel: the CSV so far has its header" grep -q '^section,key,name,state' "$T/kt.csv"
    check "stuck kernel: no tables printed for a stopped run" test ! -s "$T/kt.out"

    # HARNESS_PHASE_LOG: the parent's phases and each child's, one process
    # per pid, the child named by its first line and ended by "exit".
    env_set HARNESS_PHASE_LOG "$T/phases.log"
    run_harness "$T/pl.out" "$T/pl.err" --section=visible --rounds=2
    env_restore HARNESS_PHASE_LOG
    check "HARNESS_PHASE_LOG: the parent's phases and its three children's, each to its exit" \
        python3 - "$T/phases.log" <<'PY'
import sys
from collections import defaultdict
by = defaultdict(list)
for line in open(sys.argv[1]):
    pid, ms, phase = line.rstrip("\n").split("\t")
    by[int(pid)].append((float(ms), phase))
kids = [v for v in by.values() if v[0][1] == "visible"]
parent = [v for v in by.values() if v[0][1] != "visible"]
assert len(kids) == 3 and len(parent) == 1, (len(kids), len(parent))
assert all(v[-1][1] == "exit" and any(p == "visible: child" for _, p in v) for v in kids)
assert parent[0][0][1] == "visible: children"
assert all(a[0] <= b[0] for v in by.values() for a, b in zip(v, v[1:]))
assert min(v[0][0] for v in kids) >= parent[0][0][0]
PY

    export FAKE_CUDA_HANG="$T/hang2"
    signal_run TERM "$T/hang2" "$T/st" --section=crossover --sizes=1024 --json="$T/st.json"
    expect_exit "SIGTERM while waiting on the device: exit 143" 143
    check "SIGTERM: the wait noticed it within 10 s" test "$secs" -le 10
    check "SIGTERM: the JSON so far is valid, incomplete, says why" \
        python3 tests/check_json.py "$T/st.json" --expect-stopped "interrupted by SIGTERM"
    unset FAKE_CUDA_HANG

    # SIGINT while a child runs and the jit cache directory exists: the child
    # is killed and reaped, the directory removed.
    mkdir "$T/tmp2"
    export HARNESS_TEST_CHILD_HANG=1
    env_set TMPDIR "$T/tmp2"
    signal_run INT "$T/tmp2/harness-jit-cache-*" "$T/sj" --section=jit --reps=1 \
        --rounds=1 --synthetic-kernels=1 --child-timeout=2 --json="$T/sj.json"
    env_restore TMPDIR
    unset HARNESS_TEST_CHILD_HANG
    expect_exit "SIGINT while a child runs: exit 130" 130
    check "SIGINT: a child was running when the signal came" test -n "$kids"
    # shellcheck disable=SC2086
    check "SIGINT: the child was killed and reaped" none_alive $kids
    check "SIGINT: the private JIT cache directory is removed" test -z "$(ls -A "$T/tmp2")"
    check "SIGINT: the JSON so far is valid, incomplete, says why" \
        python3 tests/check_json.py "$T/sj.json" --expect-stopped "interrupted by SIGINT"

    # A driver that sees no CUDA device: the reason said once on stderr,
    # whichever process says it first, each skip after it "(as above)" (the
    # children of stopwatches, loading and jit each said it again: 4 times).
    env_set CUDA_VISIBLE_DEVICES -1
    run_harness "$T/nd.out" "$T/nd.err" --section=visible,stopwatches,crossover,loading,jit,launch \
        --reps=2 --synthetic-kernels=1
    env_restore CUDA_VISIBLE_DEVICES
    expect_exit "no usable GPU: exit 3" 3
    check "no usable GPU: the reason said once on stderr, every skip there '(as above)' or 'the line above'" \
        python3 -c "import re
lines = open('$T/nd.err').read().splitlines()
assert sum('the driver sees no CUDA device' in l for l in lines) == 1, lines
skips = [l for l in lines if ': skipped: ' in l]
assert len(skips) >= 4 and all(l.endswith(('(as above)', '(the line above)')) for l in skips), lines"

    # A failed cuMemFree in the whole-process child's teardown: the cleanup
    # frees what is left, nothing twice (it freed the buffers before the
    # failed one again, and crashed).
    for k in 1 2 3; do
        export HARNESS_FAULT="cuMemFree:$k"
        run_harness "$T/wf.out" "$T/wf.err" --child=waterfall
        unset HARNESS_FAULT
        expect_exit "waterfall child, HARNESS_FAULT=cuMemFree:$k: exit 1, no signal" 1
        expect_grep "waterfall child, HARNESS_FAULT=cuMemFree:$k: one line names the call" \
            "^harness: error: stopwatches: whole-process child: drv.cuMemFree(.*(injected by HARNESS_FAULT)" "$T/wf.err"
        check "waterfall child, HARNESS_FAULT=cuMemFree:$k: no sanitizer error (make sanitize)" \
            sh -c "! grep -q 'ERROR: AddressSanitizer' '$T/wf.err'"
    done
    # The first launch taken apart, end to end: one LAZY and one EAGER child
    # (the stand-in's modules load as the mode says), the conclusions in the
    # JSON, the tables from them. No kernel runs, so the checks fail: exit 1.
    run_harness "$T/fl.out" "$T/fl.err" --section=stopwatches --rounds=1 --reps=2 --json="$T/fl.json"
    expect_exit "stand-in driver: stopwatches with the first launch taken apart: exit 1 (no kernel runs)" 1
    check "stand-in driver: the first-launch JSON reads back" python3 tests/check_json.py "$T/fl.json"
    check "stand-in driver: both modes' children ran and stored their parts, loading and comparisons" \
        python3 -c 'import json, sys
d = {(x["section"], x["key"]): x for x in json.load(open(sys.argv[1]))["derived"]}
need = ["first.%s.part.%s" % (m, p) for m in ("lazy", "eager") for p in
        ("surplus", "alone", "context", "load", "module", "left", "load_in_launch",
         "get_in_launch", "fresh")] + ["first.where.load", "first.where.get", "first.where.surplus"]
assert all(("stopwatches", k) in d for k in need), [k for k in need if ("stopwatches", k) not in d]
assert d["stopwatches", "first.lazy.loading"]["text"] == "cuModuleGetFunction"
assert d["stopwatches", "first.eager.loading"]["text"] == "the module load"
assert d["stopwatches", "first.lazy.loading"]["fields"]["unloaded_loaded"] == 0
assert d["stopwatches", "first.eager.loading"]["fields"]["unloaded_loaded"] == 1' "$T/fl.json"
    expect_grep "stand-in driver: the first-launch table is printed" "^The first launch taken apart" "$T/fl.out"
    expect_grep "stand-in driver: row 3 in this process's mode, from the children's conclusions" \
        "In LAZY's children" "$T/fl.out"
    tr '\n' ' ' <"$T/fl.out" | tr -s ' ' >"$T/fl.flat"    # sentences, however wrapped
    expect_grep "stand-in driver: where the cost went, from both modes" \
        "EAGER had 2 of 2 functions loaded, LAZY 0 of 2" "$T/fl.flat"
    expect_grep "stand-in driver: row 3: LAZY loaded vectorAdd in cuModuleGetFunction" \
        "vectorAdd was loaded by cuModuleGetFunction, before the launch" "$T/fl.flat"

    # A child killed by a signal is reported as killed, with the signal (the
    # whole-process child was reported as "exited with 134 before its check").
    # --quick: no first-launch children, so the first child is the waterfall.
    # SIGABRT, as an abort inside the driver would send: ASan (make sanitize)
    # catches SIGSEGV itself and exits 1.
    export HARNESS_TEST_CHILD_HANG=1
    signal_child ABRT "$T/ks" --quick --section=stopwatches --reps=1 --rounds=1 --warmup=0 --json="$T/ks.json"
    unset HARNESS_TEST_CHILD_HANG
    expect_exit "whole-process child killed by SIGABRT: exit 1" 1
    expect_grep "whole-process child killed by SIGABRT: named as death by signal 6" \
        "^harness: stopwatches: whole-process child: the child --child=waterfall died of signal 6 (.*) before its check\$" "$T/ks.err"
    check "whole-process child killed by SIGABRT: the JSON is marked incomplete" \
        python3 tests/check_json.py "$T/ks.json" --expect-incomplete
    HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
fi

if [ -e "$CUDA_HOME/lib64/stubs/libcuda.so" ]; then
    HARNESS_LIBCUDA="$CUDA_HOME/lib64/stubs/libcuda.so"
    run_harness "$T/s.out" "$T/s.err" --section=stopwatches
    expect_exit "stub driver: treated as no driver" 3
    expect_grep "stub driver: named as the stub, by the path tried" \
        "CUDA_ERROR_STUB_LIBRARY (34): this $CUDA_HOME/lib64/stubs/libcuda.so (HARNESS_LIBCUDA) is the toolkit's stub" "$T/s.err"
fi
mark stand-in
# A library that is not a driver: named as tried, with what it lacks.
HARNESS_LIBCUDA=libm.so.6
run_harness "$T/lm.out" "$T/lm.err" --section=crossover
expect_exit "HARNESS_LIBCUDA=libm.so.6: treated as no driver" 3
expect_grep "HARNESS_LIBCUDA=libm.so.6: names that library and what is missing" \
    "no CUDA driver: libm.so.6 (HARNESS_LIBCUDA) has no cuGetProcAddress: not a CUDA driver" "$T/lm.err"
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
# Fault injection: each NVRTC entry point section jit calls (listed by
# HARNESS_FAULT_LOG) fails once; every run exits 1, names the phase and the
# call on one line, writes a JSON marked incomplete, and does not crash.
FJ="--section=jit --reps=1 --rounds=1 --synthetic-kernels=1"
export HARNESS_FAULT_LOG="$T/fault.log"
# shellcheck disable=SC2086
run_harness "$T/fl.out" "$T/fl.err" $FJ
unset HARNESS_FAULT_LOG
check "HARNESS_FAULT_LOG counts each NVRTC entry point's calls" grep -q '^nvrtcCompileProgram [1-9]' "$T/fault.log"
for name in $(grep -v '^#' "$T/fault.log" | cut -d' ' -f1 | sort -u); do
    export HARNESS_FAULT="$name:1"
    rm -f "$T/f.json"
    # shellcheck disable=SC2086
    run_harness "$T/f.out" "$T/f.err" $FJ --json="$T/f.json"
    unset HARNESS_FAULT
    expect_exit "HARNESS_FAULT=$name:1: exit 1" 1
    expect_grep "HARNESS_FAULT=$name:1: one line names the phase and the call" \
        "^harness: error: jit.*$name(.*(injected by HARNESS_FAULT)" "$T/f.err"
    check "HARNESS_FAULT=$name:1: the JSON reads back, marked incomplete" \
        python3 tests/check_json.py "$T/f.json" --expect-incomplete
done
export HARNESS_FAULT=nvrtcCompileProgram:3:NVRTC_ERROR_OUT_OF_MEMORY
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" $FJ --json="$T/f.json"
unset HARNESS_FAULT
expect_exit "HARNESS_FAULT=nvrtcCompileProgram:3:NVRTC_ERROR_OUT_OF_MEMORY: exit 1" 1
expect_grep "HARNESS_FAULT with a named code: that code, on the third compile" \
    "nvrtcCompileProgram(.*NVRTC_ERROR_OUT_OF_MEMORY (1) (injected" "$T/f.err"
check "HARNESS_FAULT with a named code: the JSON reads back, marked incomplete" python3 tests/check_json.py "$T/f.json" --expect-incomplete
# A fault past the last call never fires: the run measures as usual (exit 3
# here: no driver for jit's driver part) and says the fault did not fire.
export HARNESS_FAULT=nvrtcCompileProgram:1000000
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" $FJ
unset HARNESS_FAULT
expect_exit "HARNESS_FAULT past the last call: the run's own exit code" 3
expect_grep "HARNESS_FAULT past the last call: it says the fault did not fire, and the calls made" \
    "^harness: HARNESS_FAULT=nvrtcCompileProgram:1000000 did not fire in this process: it made [1-9][0-9]* checked calls of nvrtcCompileProgram" "$T/f.err"
for spec in cuMemAlloc nvrtcNope:1 cuMemAlloc:0 cuMemAlloc:1:0 cuMemAlloc:1:CUDA_ERROR_NOPE; do
    export HARNESS_FAULT="$spec"
    run_harness "$T/f.out" "$T/f.err" --section=jit
    unset HARNESS_FAULT
    expect_exit "HARNESS_FAULT=$spec: usage error" 2
    expect_grep "HARNESS_FAULT=$spec: names the variable and what is wrong" "^harness: HARNESS_FAULT=$spec: " "$T/f.err"
done
mark faults
# The driver's error paths, on a stand-in libcuda (tests/fakecuda: no kernel
# runs, so the run's checks fail and every run exits 1; what counts is the
# error line, the JSON and no crash). tests/gpu/fault_walk.sh does every
# section on a GPU.
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    HARNESS_LIBCUDA="$FAKECUDA"
    FX="--section=crossover --sizes=1024 --reps=1 --warmup=0"
    # A device that is not there: found at run time, a usage error all the same.
    # shellcheck disable=SC2086
    run_harness "$T/d3.out" "$T/d3.err" $FX --device=3 --json="$T/d3.json"
    expect_exit "fake driver, --device=3 on a machine of one: usage error" 2
    expect_grep "fake driver, --device=3: names the device count" "^harness: --device=3: this machine has 1 CUDA device" "$T/d3.err"
    check "fake driver, --device=3: the JSON is marked incomplete and names the skip" \
        python3 tests/check_json.py "$T/d3.json" --expect-incomplete --expect-skipped crossover
    # The same where a child finds it (row 1's child, loading's, jit's):
    # exit 2 from the first child, the skip recorded, no child after it.
    for s in stopwatches loading jit; do
        rm -f "$T/d3.json"
        run_harness "$T/d3.out" "$T/d3.err" --section=$s --device=3 --reps=1 --rounds=1 \
            --synthetic-kernels=1 --json="$T/d3.json"
        expect_exit "fake driver, --device=3, section $s (found in a child): usage error" 2
        check "fake driver, --device=3, section $s: one line says it" \
            test "$(grep -c '^harness: --device=3: this machine has 1 CUDA device' "$T/d3.err")" -eq 1
        check "fake driver, --device=3, section $s: the JSON is marked incomplete and names the skip" \
            python3 tests/check_json.py "$T/d3.json" --expect-incomplete --expect-skipped $s
    done
    # cuInit: CUDA_ERROR_NO_DEVICE (HARNESS_FAULT's default for it) is how a
    # machine without a usable GPU answers: exit 3; any other code is a
    # failed call: exit 1 and its error line. Either way a section asked for
    # did not run, and the JSON says so.
    for spec in cuInit:1 cuInit:1:CUDA_ERROR_SYSTEM_DRIVER_MISMATCH cuInit:1:CUDA_ERROR_OUT_OF_MEMORY \
                cuDeviceGetCount:1; do
        case $spec in cuInit:1|*MISMATCH) want=3 ;; *) want=1 ;; esac
        rm -f "$T/ci.json"
        export HARNESS_FAULT=$spec
        # shellcheck disable=SC2086
        run_harness "$T/ci.out" "$T/ci.err" $FX --json="$T/ci.json"
        unset HARNESS_FAULT
        expect_exit "fake driver, HARNESS_FAULT=$spec: exit $want" $want
        check "fake driver, HARNESS_FAULT=$spec: the JSON is marked incomplete and names the skip" \
            python3 tests/check_json.py "$T/ci.json" --expect-incomplete --expect-skipped crossover
        if [ $want -eq 1 ]; then
            expect_grep "fake driver, HARNESS_FAULT=$spec: the one error line of a failed call" \
                "^harness: error: crossover: drv\.${spec%%:*}(.*) failed: .* (injected by HARNESS_FAULT) at " "$T/ci.err"
        else
            expect_grep "fake driver, HARNESS_FAULT=$spec: skipped for no usable GPU, with the code" \
                "^harness: crossover: skipped: no usable GPU: cuInit: CUDA_ERROR_.* (injected by HARNESS_FAULT)" "$T/ci.err"
        fi
    done
    # A run that did everything asked is complete, even when checks fail
    # (no kernel runs on the stand-in driver): "incomplete" is about what
    # ran, a failed check about what it found.
    for s in crossover stopwatches; do
        rm -f "$T/co.json"
        run_harness "$T/co.out" "$T/co.err" --section=$s --sizes=1024 --reps=1 --rounds=1 --json="$T/co.json"
        expect_exit "fake driver, section $s: its checks fail, exit 1" 1
        check "fake driver, section $s: every step ran, the JSON is not marked incomplete" \
            python3 tests/check_json.py "$T/co.json" --expect-complete
        check "fake driver, section $s: the JSON names the device, its bus id and UUID, opened here" \
            python3 tests/check_json.py "$T/co.json" --expect-env gpu='"Fake GPU"' \
                --expect-env pci_bus_id='"00000000:19:00.0"' \
                --expect-env uuid='"GPU-fafafafa-fafa-fafa-fafa-fafafafafa00"' \
                --expect-env device_opened='"this process"'
    done
    # A size that does not fit is a failed check, and a measurement asked
    # for and not made: the JSON is marked incomplete.
    for s in crossover fusion; do
        rm -f "$T/nf.json"
        run_harness "$T/nf.out" "$T/nf.err" --section=$s --sizes=100000000000 --reps=1 --json="$T/nf.json"
        expect_exit "fake driver, section $s, a size beyond device memory: exit 1" 1
        expect_grep "fake driver, section $s, a size beyond device memory: says what it needs" \
            "n = 100000000000: needs .* GiB" "$T/nf.err"
        check "fake driver, section $s, a size beyond device memory: the JSON is marked incomplete" \
            python3 tests/check_json.py "$T/nf.json" --expect-incomplete
    done
    # --profile records the sampling it applies, not the defaults it ignores.
    rm -f "$T/pr.json"
    run_harness "$T/pr.out" "$T/pr.err" --profile --section=crossover --sizes=1024 --json="$T/pr.json"
    check "fake driver, --profile: the JSON records warm-up 0, one sample, no stopping rule, warm only" \
        python3 tests/check_json.py "$T/pr.json" --expect-env mode='"profile"' --expect-env warmup=0 \
            --expect-env reps=1 --expect-env min_samples=null --expect-env max_noise=null \
            --expect-env max_time_s=null --expect-env cache='"warm"'
    export HARNESS_FAULT_LOG="$T/fake.log"
    # shellcheck disable=SC2086
    run_harness "$T/fx.out" "$T/fx.err" $FX
    unset HARNESS_FAULT_LOG
    check "fake driver: HARNESS_FAULT_LOG lists cuMemAlloc by its base name" grep -q '^cuMemAlloc [1-9]' "$T/fake.log"
    # Where children make cuInit (row 1's, loading's, jit's driver part): a
    # child that finds no usable GPU exits 3 and the section is skipped.
    for s in stopwatches loading jit; do
        rm -f "$T/ci.json"
        export HARNESS_FAULT=cuInit:1
        run_harness "$T/ci.out" "$T/ci.err" --section=$s --reps=1 --rounds=1 --synthetic-kernels=1 \
            --json="$T/ci.json"
        unset HARNESS_FAULT
        expect_exit "fake driver, HARNESS_FAULT=cuInit:1, section $s (children too): exit 3" 3
        check "fake driver, HARNESS_FAULT=cuInit:1, section $s: the JSON is marked incomplete and names the skip" \
            python3 tests/check_json.py "$T/ci.json" --expect-incomplete --expect-skipped $s
    done
    # Every entry point section crossover calls fails at its call 1, 2 and
    # last: a clear error, the JSON marked incomplete, no crash, and under
    # make sanitize no sanitizer report (make sanitize walks every section).
    HARNESS="$HARNESS" FAKECUDA="$FAKECUDA" sh tests/fault_walk_fake.sh crossover
    # Section visible against figures worked out by hand: 1, 2 and 8
    # devices, a CUDA_VISIBLE_DEVICES of its own, failed and hung children.
    HARNESS="$HARNESS" FAKECUDA="$FAKECUDA" sh tests/test_visible.sh
    # Rows taken from measurements the run already made: crossover's top
    # size from section stopwatches' rows.
    HARNESS="$HARNESS" FAKECUDA="$FAKECUDA" sh tests/test_shared.sh
    # The run's compile cache: each distinct source compiled once, the
    # children that measure a compile still compiling.
    HARNESS="$HARNESS" FAKECUDA="$FAKECUDA" sh tests/test_kcache.sh
else
    echo "FAILED the stand-in libcuda (FAKECUDA, built by make) is missing"
fi
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
# An output whose directory is not there: exit 2 at once, one line naming
# the option, the path and the reason; no section ran (it took every
# section, then failed with exit 1, before).
mkdir "$T/ro"
for w in "--json=/nonexistent-dir/x.json|/nonexistent-dir: No such file or directory" \
         "--csv=$T/prev.json/x.csv|$T/prev.json: Not a directory" \
         "--trace=$T/o/ld-missing/t.json|$T/o/ld-missing: No such file or directory"; do
    arg=${w%%|*}
    run_harness "$T/w.out" "$T/w.err" "$arg"
    expect_exit "$arg: a usage error before any section" 2
    expect_grep "$arg: one line names the option, the path and the reason" \
        "^harness: $arg: cannot be written: ${w#*|}\$" "$T/w.err"
    check "$arg: nothing ran (no table, no progress line, no file)" \
        sh -c "test ! -s '$T/w.out' && test \"\$(grep -vc '^Try ' '$T/w.err')\" -eq 1"
done
# A link to a file in a directory that is not there: the same, for the link.
ln -s "$T/gone/d.json" "$T/o/lgone.json"
run_harness "$T/w.out" "$T/w.err" --json="$T/o/lgone.json"
expect_exit "--json through a link into a missing directory: a usage error" 2
expect_grep "--json through a link into a missing directory: names the directory" \
    "^harness: --json=$T/o/lgone.json: cannot be written: $T/gone: No such file or directory\$" "$T/w.err"
if [ "$(id -u)" -ne 0 ]; then
    chmod 555 "$T/ro"
    run_harness "$T/w.out" "$T/w.err" --json="$T/ro/x.json"
    expect_exit "--json in a directory this user cannot write: a usage error" 2
    expect_grep "--json in a read-only directory: says so" \
        "^harness: --json=$T/ro/x.json: cannot be written: $T/ro: Permission denied\$" "$T/w.err"
    chmod 755 "$T/ro"
else
    echo "SKIPPED --json in a read-only directory: root writes everywhere"
fi

mark fakecuda
env_restore HARNESS_LIBCUDA
env_snapshot "$T/env.end"
if cmp -s "$T/env.start" "$T/env.end"; then
    echo "PASSED the steps leave the environment as they found it (TMPDIR: ${TMPDIR-unset})"
else
    echo "FAILED the steps leave the environment as they found it: $(diff "$T/env.start" "$T/env.end" | grep '^[<>]' | tr '\n' ' ')"
fi
make -s install PREFIX="$T/prefix" >/dev/null 2>&1
check "make install PREFIX=... installs a working binary" "$T/prefix/bin/harness" --version
check "make install PREFIX=... installs the probe in lib/harness" test -s "$T/prefix/lib/harness/harness-probe.so"
check "make install PREFIX=...: harness(1) names every option --help=all lists" python3 -c "
import re, subprocess, sys
opts = set(re.findall(r'(--[a-z][a-z-]*)', subprocess.run([sys.argv[1], '--help=all'],
       capture_output=True, text=True).stdout))
page = open(sys.argv[2]).read().replace(chr(92) + '-', '-')
missing = sorted(o for o in opts if o not in page)
assert not missing, missing" "$HARNESS" "$T/prefix/share/man/man1/harness.1"
# man where it renders a page at all: a minimal page of our own first (some
# images ship a man that only says the pages were removed).
printf '.TH PROBE 1\n.SH NAME\nprobe \\- a page man must render\n' >"$T/probe.1"
if ! command -v man >/dev/null 2>&1; then
    echo "SKIPPED man harness: no man here"
elif ! MANWIDTH=80 man -l "$T/probe.1" 2>/dev/null | grep -q 'a page man must render'; then
    echo "SKIPPED man harness: this man renders no page (a minimal one of the test's own failed)"
else
    check "make install PREFIX=...: man -l renders harness(1) without a warning" sh -c \
        "MANWIDTH=80 man --warnings -l '$T/prefix/share/man/man1/harness.1' 2>'$T/man.err' | grep -q 'harness - time the cold start' && ! test -s '$T/man.err'"
    check "make install PREFIX=...: man harness finds it under the prefix" sh -c \
        "MANPATH='$T/prefix/share/man' MANWIDTH=80 man harness 2>/dev/null | grep -q '^EXIT STATUS'"
fi
# The completions, made from the option table: every option --help=all
# lists (but --vs, the word between two commands after --), and a value's
# words (bash: completed as a shell would ask).
check "make install PREFIX=...: bash and zsh completions name every option --help=all lists" python3 -c "
import re, subprocess, sys
opts = set(re.findall(r'(--[a-z][a-z-]*)', subprocess.run([sys.argv[1], '--help=all'],
       capture_output=True, text=True).stdout)) - {'--vs'}
for f in sys.argv[2:]:
    text = open(f).read()
    missing = sorted(o for o in opts if not re.search(re.escape(o) + r'[=\\[ )\']', text))
    assert not missing, (f, missing)" "$HARNESS" "$T/prefix/share/bash-completion/completions/harness" \
    "$T/prefix/share/zsh/site-functions/_harness"
if command -v bash >/dev/null 2>&1; then
    check "make install PREFIX=...: bash completes --sec to --section= and --section=j to jit" bash -c "
. '$T/prefix/share/bash-completion/completions/harness'
COMP_WORDS=(harness --sec); COMP_CWORD=1; _harness; test \"\${COMPREPLY[*]}\" = --section= || exit 1
COMP_WORDS=(harness --section = j); COMP_CWORD=3; _harness; test \"\${COMPREPLY[*]}\" = jit || exit 1
COMP_WORDS=(harness --module-loading = ''); COMP_CWORD=3; _harness; test \"\${COMPREPLY[*]}\" = 'lazy eager'"
fi
if command -v zsh >/dev/null 2>&1; then
    check "make install PREFIX=...: the zsh completion parses" zsh -n "$T/prefix/share/zsh/site-functions/_harness"
fi
for s in compare plot node-summary; do
    check "make install PREFIX=...: harness-$s runs from another directory (--help)" sh -c \
        "cd / && '$T/prefix/bin/harness-$s' --help >/dev/null"
done
check "make install PREFIX=...: the key schema beside the scripts, as ./harness --schema prints it" sh -c \
    "'$HARNESS' --schema | cmp -s - '$T/prefix/lib/harness/schema.json'"
if python3 -c 'import matplotlib' 2>/dev/null; then
    check "make install PREFIX=...: harness-plot draws from another directory (its figures' modules installed)" sh -c \
        "cp results/h200-compare.json '$T/' && cd / &&
         '$T/prefix/bin/harness-plot' '$T/h200-compare.json' --out '$T/figs' | grep -q '^wrote .*loading-k.png' &&
         test -s '$T/figs/loading-k.png'"
else
    echo "SKIPPED make install PREFIX=...: harness-plot draws a figure: matplotlib is not installed"
fi
check "make install PREFIX=...: harness-compare compares two stored runs from another directory" sh -c \
    "cp results/h200.json results/h200-2.json '$T/' && cd / &&
     '$T/prefix/bin/harness-compare' '$T/h200.json' '$T/h200-2.json' >/dev/null"
check "make install PREFIX=...: harness-fleet.sbatch, the docs and their index" sh -c \
    "test -x '$T/prefix/bin/harness-fleet.sbatch' && test -s '$T/prefix/share/doc/harness/README.md' &&
     test -s '$T/prefix/share/doc/harness/compare.md'"

mark install
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    HARNESS="$HARNESS" sh tests/gpu.sh | grep -E '^(PASSED|FAILED)'
else
    echo "SKIPPED GPU tests: no usable GPU here (make test-gpu runs them on one)"
fi
mark gpu
} >>"$T/log" 2>&1
cp "$T/log" "$LOG" 2>/dev/null || LOG="(not kept)"
grep '^FAILED' "$T/log"
passed=$(grep -c '^PASSED' "$T/log")
failed=$(grep -c '^FAILED' "$T/log")
echo "every check's line: $LOG"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
