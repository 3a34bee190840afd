#!/bin/sh
# test_references.sh: the references a reader checks against the files:
# scripts/compare --help's example counts against what it gives on the two
# stored runs; the scripts name themselves as installed (harness-compare,
# not scripts/compare); the results files made before the provenance
# fields are the ones results/README.md lists; the README's excerpts of
# stored runs are in those runs, line by line. Prints one PASSED or FAILED
# line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# compare --help: "this rule gives 3 FASTER, 2 SLOWER, 24 UNCLEAR (4 of one
# sample a side, 4 batches that differ, 16 beyond the band at p >= 0.01) and
# 101 HOST ...; the earlier rule (--rule=interval) flagged 88 and left 106
# UNCLEAR, 41 and 56 at --threshold=5", each figure from the runs.
python3 scripts/compare --help >"$T/help.txt"
python3 scripts/compare results/h200.json results/h200-2.json >"$T/noise.txt" 2>&1
python3 scripts/compare results/h200.json results/h200-2.json --rule=interval >"$T/int.txt" 2>&1
python3 scripts/compare results/h200.json results/h200-2.json --rule=interval --threshold=5 >"$T/int5.txt" 2>&1
check "compare --help: its example's counts are what it gives on results/h200.json against h200-2.json" python3 -c "
import re, sys
h = ' '.join(open(sys.argv[1]).read().split())
def summary(f):
    s = [l for l in open(f) if l.startswith('summary: ')][-1]
    return {k: int(v) for v, k in re.findall(r'([0-9]+) (FASTER|SLOWER|SAME|UNCLEAR|HOST)', s)}
def why(f, w):
    return sum(1 for l in open(f) if l.rstrip().endswith('UNCLEAR (%s)' % w) or
               (w == 'batch' and re.search(r'UNCLEAR \(batch [0-9]+ vs [0-9]+\)$', l.rstrip())))
m = re.search(r'([0-9]+) timed figures\) this rule gives ([0-9]+) FASTER, ([0-9]+) SLOWER, ([0-9]+) UNCLEAR \(([0-9]+) of one sample a side, ([0-9]+) batches that differ, ([0-9]+) beyond the band at p >= 0.01\) and ([0-9]+) HOST', h)
e = re.search(r'flagged ([0-9]+) and left ([0-9]+) UNCLEAR, ([0-9]+) and ([0-9]+) at --threshold=5', h)
assert m and e, 'the example is not in --help'
n = summary(sys.argv[2]); i = summary(sys.argv[3]); i5 = summary(sys.argv[4])
said = [int(x) for x in m.groups()] + [int(x) for x in e.groups()]
got = [sum(n.values()), n['FASTER'], n['SLOWER'], n['UNCLEAR'], why(sys.argv[2], 'few samples'),
       why(sys.argv[2], 'batch'), why(sys.argv[2], 'p >= 0.01'), n['HOST'],
       i['FASTER'] + i['SLOWER'], i['UNCLEAR'], i5['FASTER'] + i5['SLOWER'], i5['UNCLEAR']]
assert said == got, (said, got)" "$T/help.txt" "$T/noise.txt" "$T/int.txt" "$T/int5.txt"

# Installed scripts are links named harness-NAME (make install): each
# says that name in its help and its usage errors.
mkdir -p "$T/bin"
for s in compare plot node-summary ncu-bytes; do
    ln -s "$(pwd)/scripts/$s" "$T/bin/harness-$s"
    check "installed as harness-$s: its --help names it so, never scripts/$s" sh -c \
        "'$T/bin/harness-$s' --help >'$T/$s.help' 2>&1; grep -q 'harness-$s' '$T/$s.help' && ! grep -q 'scripts/$s' '$T/$s.help'"
done
"$T/bin/harness-compare" only-one.json >"$T/c.out" 2>"$T/c.err"
check "installed as harness-compare: a usage error names harness-compare" sh -c \
    "grep -q '^harness-compare: .*(usage: harness-compare ' '$T/c.err'"
check "from the tree: scripts/compare --help names scripts/compare" grep -q 'Usage: scripts/compare' "$T/help.txt"
# reference.sh installed: the harness beside it, the installed scripts named.
ln -s "$(pwd)/scripts/reference.sh" "$T/bin/harness-reference.sh"
ln -s "$(cd "$(dirname "$HARNESS")" && pwd)/$(basename "$HARNESS")" "$T/bin/harness"
mkdir -p "$T/w"
(cd "$T/w" && env -u HARNESS "$T/bin/harness-reference.sh" --runs=1 ref --version >"$T/r.out" 2>&1)
check "installed as harness-reference.sh: it runs the harness beside it and names harness-compare" sh -c \
    "grep -q '^harness [0-9]' '$T/w/results/ref-1.txt' && grep -q '^  harness-compare results/ref-1.json' '$T/r.out'"

check "results/README.md lists exactly the results files made before the provenance fields" python3 -c "
import glob, json, os, re
listed = set(re.findall(r'^- \`([^\`]+\.json)\`\$', open('results/README.md').read().split('## Made before the provenance fields')[1], re.M))
lacking = set()
for f in glob.glob('results/*.json') + glob.glob('results/*/*.json'):
    d = json.load(open(f))
    if isinstance(d, dict) and d.get('schema_version') is not None and 'environment' in d \
            and 'harness_commit' not in d['environment']:
        lacking.add(os.path.relpath(f, 'results'))
assert listed and listed == lacking, (sorted(listed - lacking), sorted(lacking - listed))"

python3 tests/check_excerpts.py README.md
