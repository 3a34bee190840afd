#!/bin/sh
# include_cycles.sh: the project's own headers (DIR/*.h, default src) include
# one another without a cycle. Prints one PASSED or FAILED line; a cycle is
# named header by header. Also checks itself on a crafted cycle.
DIR=${1:-src}

# cycle_in DIR: print the first include cycle among DIR/*.h ("a.h -> b.h ->
# a.h"), or nothing; exits 2 when DIR has no headers.
cycle_in() {
    python3 - "$1" <<'PY'
import glob, os, re, sys
d = sys.argv[1]
heads = {os.path.basename(p): p for p in glob.glob(os.path.join(d, "*.h"))}
if not heads:
    sys.exit(2)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
edges = {h: [x for x in inc.findall(open(p).read()) if x in heads] for h, p in heads.items()}
state = {}
def walk(h, path):
    state[h] = 1
    for x in edges[h]:
        if state.get(x) == 1:
            return path[path.index(x):] + [x]
        if not state.get(x):
            c = walk(x, path + [x])
            if c:
                return c
    state[h] = 2
    return None
for h in sorted(heads):
    c = None if state.get(h) else walk(h, [h])
    if c:
        print(" -> ".join(c))
        break
PY
}

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
printf '#include "b.h"\n' >"$T/a.h"
printf '#include "c.h"\n' >"$T/b.h"
printf '#include "a.h"\n' >"$T/c.h"
if [ -z "$(cycle_in "$T")" ]; then
    echo "FAILED include cycles: the check misses a crafted cycle a.h -> b.h -> c.h -> a.h"
elif ! cycle=$(cycle_in "$DIR"); then
    echo "FAILED include cycles: no headers in $DIR"
elif [ -n "$cycle" ]; then
    echo "FAILED include cycles: $cycle"
else
    echo "PASSED include cycles: the headers in $DIR include one another without a cycle"
fi
