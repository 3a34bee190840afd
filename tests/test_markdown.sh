#!/bin/sh
# test_markdown.sh: --markdown=FILE|-: the run's tables and answers as
# Markdown, its answers table against the JSON's answer.* entries of the
# same run, "-" on stdout with the tables on stderr, and the refusals.
# Prints one PASSED or FAILED line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
unset COLUMNS

# answers_ok MD JSON: the Markdown's answers table holds, row by row, the
# JSON's answer.* entries (name and text, '|' escaped), and its tables
# block is fenced and no line of it is over 100 columns.
answers_ok() {
    python3 -c "
import json, sys
md, doc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
want = [(x['name'], x['text'].replace('|', '\\\\|')) for x in doc['derived'] if x['key'].startswith('answer.')]
rows = [l for l in md.split('\n') if l.startswith('| ') and not l.startswith('| answer |')]
got = [tuple(c.strip() for c in l[2:].rsplit(' | ', 1)[0].split(' | ', 1)) for l in rows]
assert want and got == want, (got, want)
assert md.startswith('# harness ') and '## Tables' in md and md.count('\`\`\`\`') >= 4
block = md.split('\`\`\`\`text\n', 1)[1].split('\`\`\`\`', 1)[0]
assert block.strip() and max(len(l) for l in block.split('\n')) <= 100
assert '- exit code: ' in md" "$1" "$2"
}

if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    env_set HARNESS_LIBCUDA "$FAKECUDA"
    env_set COLUMNS 60
    run_harness "$T/a.out" "$T/a.err" --quick --section=launch --markdown="$T/a.md" --json="$T/a.json"
    env_restore COLUMNS
    check "--markdown=FILE: the answers table is the JSON's answers, the tables fenced at 100 columns (COLUMNS=60 for the report)" \
        answers_ok "$T/a.md" "$T/a.json"
    check "--markdown=FILE: the report on stdout as without it" grep -q '^Answers' "$T/a.out"
    run_harness "$T/b.out" "$T/b.err" --quick --section=launch --markdown=-
    check "--markdown=-: the Markdown on stdout, the tables on stderr" sh -c \
        "head -1 '$T/b.out' | grep -q '^# harness ' && grep -q '^launch: what one empty launch costs' '$T/b.err'"
    env_restore HARNESS_LIBCUDA
else
    echo "SKIPPED --markdown: the stand-in libcuda (FAKECUDA) is missing"
fi
run_harness "$T/c.out" "$T/c.err" --markdown=- --json=-
expect_exit "--markdown=- with --json=-: usage error" 2
expect_grep "--markdown=- with --json=-: said" "both name stdout" "$T/c.err"
run_harness "$T/d.out" "$T/d.err" --markdown=/nonexistent-dir/run.md
expect_exit "--markdown in a directory that is not there: usage error before any run" 2
expect_grep "--markdown=/nonexistent-dir/run.md: said" "cannot be written" "$T/d.err"
