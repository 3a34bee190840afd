#!/bin/sh
# test_width.sh: the report laid out for the width it is printed at: a
# run of every section on the stand-in driver (FAKECUDA) on an 80-column
# terminal (a pty, COLUMNS unset) and in a file (100 columns), and the
# -- CMD report at 80 and 100; no line wider than the width (a failed
# check's line stays whole, for grep: the stand-in driver computes
# nothing, so its checks fail), every label of the configuration beside
# its value, a value's continuation under the value. Prints one PASSED or
# FAILED line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
unset COLUMNS

# widest FILE WIDTH: no line of FILE (less "  FAILED " lines) wider than WIDTH.
widest_ok() {
    ! grep -v '^  FAILED ' "$1" | awk -v w="$2" 'length > w' | grep -q .
}

# labels_ok FILE: the configuration block's labels each have their value
# on their own line, and its continuation lines start at column 19.
labels_ok() {
    sed -n '2,/^$/p' "$1" | awk '
        /^  [a-z][a-zA-Z ]*[a-zA-Z]$/ { bad = 1 }          # a label alone
        /^ +[^ ]/ && !/^  [^ ]/ && !/^                   [^ ]/ { bad = 1 }
        END { exit bad }'
}

if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    env_set HARNESS_LIBCUDA "$FAKECUDA"
    # stdout and stderr one terminal; the driver's failed checks said on
    # stderr ("harness: ...") stay whole, as the report's FAILED lines do.
    # (no leak report on the terminal: under the sanitizers, stopwatches'
    # child unloads NVRTC, and libstdc++'s pool is reported as leaked)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        python3 tests/pty_run.py --cols=80 --both "$HARNESS" --quick >"$T/pty.out" 2>&1
    grep -v '^harness: ' "$T/pty.out" >"$T/pty.txt"
    check "width: on an 80-column terminal (a pty, COLUMNS unset) no line of a run of every section is wider than 80" \
        widest_ok "$T/pty.txt" 80
    check "width: the 80-column run printed the sections (the answers at the end)" \
        grep -q '^Answers' "$T/pty.txt"
    check "width: at 80 columns each label of the configuration keeps its value beside it" \
        labels_ok "$T/pty.txt"
    # The terminal is stderr's here; stdout is a pipe: 100 columns, as in a file.
    run_harness "$T/f.out" "$T/f.err" --quick
    check "width: in a file no line of a run of every section is wider than 100" widest_ok "$T/f.out" 100
    check "width: in a file each label of the configuration keeps its value beside it" labels_ok "$T/f.out"
    env_set COLUMNS 60
    run_harness "$T/c.out" "$T/c.err" --quick --section=stopwatches,crossover,launch
    env_restore COLUMNS
    check "width: COLUMNS=60: no line wider than 60" widest_ok "$T/c.out" 60
    check "width: COLUMNS=60: a row's figures stay on its first line beside the number and label" \
        grep -q '^  1  wall clock,.*[0-9]\.[0-9][0-9][0-9]  process' "$T/c.out"
    env_restore HARNESS_LIBCUDA
else
    echo "SKIPPED width: the stand-in libcuda (FAKECUDA) is missing"
fi

# -- CMD's report: the stand-in program, two sides, on 80 and 100 columns.
V=$("$HARNESS" --version | cut -d' ' -f2)
env_set HARNESS_PROBE /dev/null
env_set STANDIN_STATE "$T"
env_set COLUMNS 80
run_harness "$T/p80.out" "$T/p80.err" --compare-loading --rounds=3 -- python3 tests/standin_program.py \
    --version "$V" --first-kernel LAZY=300,EAGER=2900 --mem LAZY=900,EAGER=1960
env_restore COLUMNS
check "width: -- CMD's report at COLUMNS=80: no line wider than 80" widest_ok "$T/p80.out" 80
check "width: -- CMD's report at 80 columns holds both sides' figures" sh -c \
    "grep -q 'LAZY' '$T/p80.out' && grep -q 'EAGER' '$T/p80.out' && grep -q 'first kernel' '$T/p80.out'"
run_harness "$T/p100.out" "$T/p100.err" --compare-loading --rounds=3 -- python3 tests/standin_program.py \
    --version "$V" --first-kernel LAZY=300,EAGER=2900 --mem LAZY=900,EAGER=1960
check "width: -- CMD's report in a file: no line wider than 100" widest_ok "$T/p100.out" 100
env_restore STANDIN_STATE
env_restore HARNESS_PROBE
