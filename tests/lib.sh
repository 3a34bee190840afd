# lib.sh: shell checks in the style of testhelp.h: each prints PASSED or
# FAILED with its description; the caller counts the lines.

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

# summary LOG [LABEL]: print LOG, then "[LABEL: ]N passed, N failed" counted
# from its PASSED and FAILED lines; fails when any check failed.
summary() {
    cat "$1"
    passed=$(grep -c '^PASSED' "$1")
    failed=$(grep -c '^FAILED' "$1")
    echo "${2:+$2: }$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
