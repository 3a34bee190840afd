# lib.sh: shell checks in the style of testhelp.h: each prints PASSED or
# FAILED with its description; the caller counts the lines.

# An empty TMPDIR names no directory: unset it, as the harness reads it
# (pr_mkdtemp: unset or empty is /tmp), so that nvcc's host compile, which
# takes an empty TMPDIR as the current directory's root, works as unset.
[ -n "${TMPDIR-}" ] || unset TMPDIR

# env_set NAME VALUE: export NAME=VALUE for the steps that follow, first
# noting whether NAME was set and to what, for env_restore. One level deep
# per name.
env_set() {
    if eval "[ \"\${$1+set}\" = set ]"; then
        eval "_env_was_$1=set; _env_val_$1=\$$1"
    else
        eval "_env_was_$1=unset; _env_val_$1="
    fi
    eval "$1=\$2; export $1"
}

# env_restore NAME: NAME as env_set found it: exported with its old value,
# or unset when it was unset (not set and empty).
env_restore() {
    if eval "[ \"\${_env_was_$1-}\" = set ]"; then
        eval "$1=\$_env_val_$1; export $1"
    else
        unset "$1"
    fi
    unset "_env_was_$1" "_env_val_$1"
}

# env_snapshot FILE: the exported environment, sorted, into FILE (less the
# shell's own "_"), to compare with a later one.
env_snapshot() {
    env | grep -v '^_=' | sort >"$1"
}

# check DESC CMD...: run CMD; PASSED when it exits 0.
check() {
    desc=$1
    shift
    if "$@" >/dev/null 2>&1; then echo "PASSED $desc"; else echo "FAILED $desc"; fi
}

# run_harness OUTFILE ERRFILE ARGS...: run $HARNESS, keep stdout and stderr,
# and set $rc to its exit code.
run_harness() {
    out=$1
    err=$2
    shift 2
    "$HARNESS" "$@" >"$out" 2>"$err"
    rc=$?
}

# expect_exit DESC CODE: PASSED when $rc is CODE.
expect_exit() {
    if [ "$rc" -eq "$2" ]; then echo "PASSED $1 (exit $rc)"
    else echo "FAILED $1 (exit $rc, expected $2)"; fi
}

# expect_grep DESC PATTERN FILE: PASSED when FILE has a line matching PATTERN.
expect_grep() {
    if grep -q -e "$2" "$3"; then echo "PASSED $1"
    else echo "FAILED $1 (no '$2' in $(basename "$3"))"; fi
}

# expect_label DESC LABEL FILE: PASSED when FILE holds a table row's label
# LABEL whole or wrapped in its own column (its words on consecutive lines:
# the label column narrows as the figures widen, so where it wraps depends
# on the run's values).
expect_label() {
    if python3 -c "import re, sys
w = sys.argv[1].split(' ')
sys.exit(0 if re.search(r'(?:[ ]|[^\n]*\n\s+)'.join(map(re.escape, w)), open(sys.argv[2]).read()) else 1)" \
            "$2" "$3"; then echo "PASSED $1"
    else echo "FAILED $1 (no row '$2', whole or wrapped, in $(basename "$3"))"; fi
}

# summary LOG [LABEL]: print LOG, then "[LABEL: ]N passed, N failed" counted
# from its PASSED and FAILED lines; fails when any check failed.
summary() {
    cat "$1"
    passed=$(grep -c '^PASSED' "$1")
    failed=$(grep -c '^FAILED' "$1")
    echo "${2:+$2: }$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# wait_path GLOB: wait up to 60 s for a path matching GLOB to exist.
wait_path() {
    i=0
    while [ "$i" -lt 1200 ]; do
        for f in $1; do [ -e "$f" ] && return 0; done
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# children_of PID: the process ids whose parent is PID (from /proc).
children_of() {
    for s in /proc/[0-9]*/status; do
        if grep -q "^PPid:[[:space:]]*$1\$" "$s" 2>/dev/null; then
            s=${s%/status}
            echo "${s#/proc/}"
        fi
    done
}

# signal_run SIG GLOB PREFIX ARGS...: start $HARNESS with ARGS in the
# background (stdout and stderr to PREFIX.out, PREFIX.err), wait until a
# path matching GLOB exists (a number instead: sleep that many seconds),
# note its children in $kids, send SIG, and wait: $rc is its exit code,
# $secs the seconds from the signal to its end.
signal_run() {
    sig=$1
    marker=$2
    prefix=$3
    shift 3
    "$HARNESS" "$@" >"$prefix.out" 2>"$prefix.err" &
    pid=$!
    case $marker in
        [0-9]*) sleep "$marker" ;;
        *) wait_path "$marker" || echo "FAILED $prefix: $marker never appeared"
           sleep 0.1 ;;   # past the instants between making the path and its use
    esac
    kids=$(children_of "$pid")
    t0=$(date +%s)
    kill -s "$sig" "$pid"
    wait "$pid"
    rc=$?
    secs=$(($(date +%s) - t0))
}

# signal_child SIG PREFIX ARGS...: start $HARNESS with ARGS in the
# background (stdout and stderr to PREFIX.out, PREFIX.err), wait up to 60 s
# until it has a child process, send SIG to that child (not to the
# harness), and wait: $rc is the harness's exit code.
signal_child() {
    sig=$1
    prefix=$2
    shift 2
    "$HARNESS" "$@" >"$prefix.out" 2>"$prefix.err" &
    pid=$!
    i=0
    kids=
    while [ -z "$kids" ] && [ "$i" -lt 1200 ]; do
        sleep 0.05
        kids=$(children_of "$pid")
        i=$((i + 1))
    done
    [ -n "$kids" ] || echo "FAILED $prefix: the harness started no child"
    sleep 0.2    # past posix_spawn: the child is the harness, not a copy of the shell
    # shellcheck disable=SC2086
    kill -s "$sig" $kids
    wait "$pid"
    rc=$?
}

# kill_left FILE: of the pids in FILE (whitespace between them), those still
# running (not zombies) killed (SIGKILL); prints how many there were.
kill_left() {
    kl_n=0
    for kl_p in $(cat "$1" 2>/dev/null); do
        if [ -e "/proc/$kl_p" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$kl_p/status" 2>/dev/null; then
            kl_n=$((kl_n + 1))
            kill -9 "$kl_p" 2>/dev/null
        fi
    done
    echo "$kl_n"
}

# none_alive PID...: PASSED-style check that none of the processes exists.
none_alive() {
    for p in "$@"; do [ -e "/proc/$p" ] && return 1; done
    return 0
}

# find_cuobjdump: the path of a cuobjdump (on the path, in $CUDA_HOME/bin, or
# pip's nvidia-cuda-cuobjdump for this python3), or nothing.
find_cuobjdump() {
    for c in "$(command -v cuobjdump 2>/dev/null)" "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump" \
             "$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "bin", "cuobjdump"))' 2>/dev/null)"; do
        [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
    done
    return 0
}

# schema_check_dir LABEL DIR: one check that every harness JSON in DIR (each
# file check_json.py reads as one) has each measurement's and derived
# entry's key declared by ./harness --schema, in its unit; and that there
# was at least one.
schema_check_dir() {
    "$HARNESS" --schema >"$2/.schema" 2>/dev/null
    check "$1: the keys of every JSON it wrote are declared (--schema)" sh -c '
        n=0
        for f in "$1"/*.json; do
            [ -e "$f" ] || continue
            python3 tests/check_json.py "$f" >/dev/null 2>&1 || continue
            python3 tests/check_json.py "$f" --schema "$1/.schema" >"$1/.schema.out" 2>&1 ||
                { echo "$f:"; cat "$1/.schema.out"; exit 1; }
            n=$((n + 1))
        done
        echo "$n files"
        test "$n" -gt 0' sh "$2"
}

# standin_setup: what the CPU tests of -- CMD share: V the harness's
# version, SP the stand-in program's command (tests/standin_program.py),
# HARNESS_PROBE=/dev/null exported (a probe file that is there; the
# stand-in writes the records), and OK what a run that otherwise succeeds
# exits with here (3 without a CUDA driver: no CUDA device was used).
standin_setup() {
    V=$("$HARNESS" --version | cut -d' ' -f2)
    SP="python3 tests/standin_program.py --version $V"
    HARNESS_PROBE=/dev/null
    export HARNESS_PROBE
    if python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null; then OK=0; else OK=3; fi
}

# program_py FILE CODE: CODE's asserts on the results JSON FILE as d, with
# e its environment, m(key) the measurements and dv(key) the derived entry
# (or None) of section program; exits non-zero when one fails.
program_py() {
    python3 -c "import json
d = json.load(open('$1'))
e = d['environment']
def m(k): return [x for x in d['measurements'] if x['section'] == 'program' and x['key'] == k]
def dv(k):
    r = [x for x in d['derived'] if x['section'] == 'program' and x['key'] == k]
    return r[0] if r else None
$2" >/dev/null 2>&1
}

# ckpt_nothing_held DIR: no process is left locked or checkpointed: the
# stand-in driver's state file DIR/ckpt.<pid> of every pid it was asked
# about says RUNNING (0), or the process is gone.
ckpt_nothing_held() {
    for f in "$1"/ckpt.*; do
        [ -e "$f" ] || continue
        p=${f##*.}
        [ "$(cat "$f")" = 0 ] || [ ! -e "/proc/$p" ] || return 1
    done
    return 0
}
