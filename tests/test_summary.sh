#!/bin/sh
# test_summary.sh: the summary every run ends with (src/core/answer.c), on the
# stand-in driver (FAKECUDA; its kernels do not run, so checks fail and the
# runs exit 1: what counts is the summary's shape) and on a stand-in
# program (-- CMD): at most 15 lines, none wider than 100 columns with
# COLUMNS unset and stdout a file (nor than COLUMNS when it is set), the
# answers stored in the JSON as "answer.*" entries, each line's docs page
# a page of docs/, --quiet printing the summary alone, the default output
# ending with it. Prints one PASSED or FAILED line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
unset COLUMNS

# summary_ok FILE WIDTH: FILE's summary (from its last blank line before
# "Answers") has at most 15 lines, none wider than WIDTH, a heading, and
# a last line with the run time and exit code; every page it names exists.
summary_ok() {
    python3 - "$1" "$2" <<'PY'
import os, re, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
width = int(sys.argv[2])
start = max(i for i, l in enumerate(lines) if l.startswith("Answers") or l.startswith("No answers"))
s = lines[start - 1:]
assert s[0] == "", s[0]
assert len(s) <= 15, len(s)
assert all(len(l) <= width for l in s), [l for l in s if len(l) > width]
assert re.match(r"^Run time [0-9.]+ s; exit code [0-9]", s[-1]) or re.match(r"^Run time", s[-2]), s[-2:]
for p in re.findall(r"([a-z]+)\.md", "\n".join(s)):
    assert os.path.exists("docs/%s.md" % p), p
PY
}

if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    env_set HARNESS_LIBCUDA "$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")"
    Q="--quick --section=stopwatches,crossover,launch,fusion"
    # shellcheck disable=SC2086
    run_harness "$T/q.out" "$T/q.err" $Q --quiet --json="$T/q.json"
    expect_exit "summary: --quiet on the stand-in driver (its checks fail: exit 1)" 1
    check "summary: --quiet prints the summary alone (at most 15 lines, 100 columns)" summary_ok "$T/q.out" 100
    check "summary: --quiet prints nothing before it" sh -c "test \"\$(head -c1 '$T/q.out' | od -An -c | tr -d ' ')\" = '\\n'"
    check "summary: one answer line per section answered, with its page" sh -c \
        "grep -q '^  row 1 / row 4: .*x \\[' '$T/q.out' && grep -q '^  empty launch: submit ' '$T/q.out' &&
         grep -q '^  fusing: .*x \\[' '$T/q.out' && grep -q 'stopwatches.md\$' '$T/q.out' &&
         grep -q 'launch.md\$' '$T/q.out' && grep -q 'fusion.md\$' '$T/q.out'"
    check "summary: the last line has the run time, the exit code and the checks" \
        grep -q '^Run time [0-9.]* s; exit code 1.*; checks: [0-9]* passed, [1-9][0-9]* failed' "$T/q.out"
    check "summary: the answers are stored as derived entries answer.* where they are measured" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
k = {(x['section'], x['key']) for x in d['derived'] if x['key'].startswith('answer.')}
assert {('stopwatches', 'answer.row1_row4'), ('stopwatches', 'answer.first_launch'),
        ('launch', 'answer.launch'), ('fusion', 'answer.fusion')} <= k, k
for x in d['derived']:
    if x['key'].startswith('answer.'): assert x['name'] and x['text'], x" "$T/q.json"
    # shellcheck disable=SC2086
    run_harness "$T/d.out" "$T/d.err" $Q
    sed -n '/^Answers/,$p' "$T/d.out" | grep '^  [a-z]' | sed 's/:.*//' >"$T/d.sum"
    sed -n '/^Answers/,$p' "$T/q.out" | grep '^  [a-z]' | sed 's/:.*//' >"$T/q.sum"
    check "summary: the default output ends with it (tail -15), as --quiet prints it" sh -c \
        "tail -15 '$T/d.out' | grep -q '^Answers' && cmp -s '$T/d.sum' '$T/q.sum'"
    check "summary: the default output's summary fits" summary_ok "$T/d.out" 100
    env_set COLUMNS 60
    # shellcheck disable=SC2086
    run_harness "$T/c.out" "$T/c.err" $Q --quiet
    env_restore COLUMNS
    check "summary: COLUMNS=60 is the width it wraps to" summary_ok "$T/c.out" 60
    # Every section, COLUMNS unset, stdout a file: no line over 100 columns
    # (tables lose blank columns, then a name is shortened in the middle or
    # given its own line; prose is rewrapped), and the names stay whole in
    # the JSON.
    run_harness "$T/w.out" "$T/w.err" --quick --json="$T/w.json"
    check "width: no line of a run of every section is wider than 100 columns (a failed check's stays whole)" sh -c \
        "! awk 'length > 100' '$T/w.out' | grep -v '^  FAILED ' | grep -q ."
    check "width: the names stay whole in the JSON (none shortened with '...')" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
names = [m['name'] for m in d['measurements']] + [x['name'] for x in d['derived']]
assert names and not [n for n in names if '...' in n], [n for n in names if '...' in n][:3]" "$T/w.json"
    env_set COLUMNS 80
    run_harness "$T/w80.out" "$T/w80.err" --quick --section=stopwatches,crossover,launch
    env_restore COLUMNS
    check "width: COLUMNS=80 is the width the tables fit" sh -c \
        "! awk 'length > 80' '$T/w80.out' | grep -v '^  FAILED ' | grep -q ."
    # A node run: its first device's answers (each device's are in the JSON).
    env_set FAKE_CUDA_DEVICES 2
    run_harness "$T/nd.out" "$T/nd.err" --device=all --quick --section=launch --quiet
    env_restore FAKE_CUDA_DEVICES
    check "summary: a node run prints its first device's answers, within 15 lines" sh -c \
        "grep -q '^Answers, device 0 ' '$T/nd.out' && grep -q '^  empty launch: submit ' '$T/nd.out' &&
         test \$(wc -l <'$T/nd.out') -le 15"
    env_restore HARNESS_LIBCUDA
fi

# -- CMD: the program section's sentences, wrapped, within 15 lines.
V=$("$HARNESS" --version | cut -d' ' -f2)
export HARNESS_PROBE=/dev/null
export STANDIN_STATE="$T/state"
mkdir -p "$STANDIN_STATE"
run_harness "$T/p.out" "$T/p.err" --compare-loading --quiet -- python3 tests/standin_program.py \
    --version "$V" --first-kernel LAZY=300,EAGER=2900 --mem LAZY=900,EAGER=1960
check "summary: -- CMD --quiet prints the verdict sentences alone, within 15 lines" summary_ok "$T/p.out" 100
expect_grep "summary: -- CMD names the program's page once, in the heading" \
    '^Answers (docs/program.md explains them):' "$T/p.out"
check "summary: -- CMD's answers are the section's sentences (answer.* of section program)" python3 -c "
import sys
lines = open(sys.argv[1]).read().split('\\n')
i = lines.index('Answers (docs/program.md explains them):')
assert lines[i + 1][:2] == '  ' and lines[i + 1][2].isupper(), lines[i + 1]" "$T/p.out"
