#!/bin/sh
# include_cycles.sh: the project's own headers (DIR/*.h, default src) include
# one another without a cycle, and so do its modules (a .c with its .h; the
# files of DIR/sections/ count as module "section", whose table names them).
# Prints one PASSED or FAILED line each; a cycle is named step by step. Also
# checks itself on crafted cycles.
DIR=${1:-src}

# cycle_in DIR [modules]: print the first include cycle among DIR/*.h ("a.h
# -> b.h -> a.h"), or with "modules" among the modules ("a -> b -> a"), or
# nothing; exits 2 when DIR has no headers.
cycle_in() {
    python3 - "$1" "${2:-}" <<'PY'
import glob, os, re, sys
d, modules = sys.argv[1], sys.argv[2] == "modules"
heads = {os.path.basename(p): p for p in glob.glob(os.path.join(d, "*.h"))}
if not heads:
    sys.exit(2)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
if modules:
    files = glob.glob(os.path.join(d, "*.[ch]")) + glob.glob(os.path.join(d, "sections", "*.[ch]"))
    def mod(p):
        return "section" if os.path.basename(os.path.dirname(p)) == "sections" \
            else os.path.splitext(os.path.basename(p))[0]
    edges = {}
    for p in files:
        e = edges.setdefault(mod(p), [])
        e += [x[:-2] for x in inc.findall(open(p).read()) if x in heads and x[:-2] != mod(p)]
    for h in heads:
        edges.setdefault(h[:-2], [])
    heads = edges
else:
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
mkdir "$T/m"
printf '#include "b.h"\n' >"$T/m/d.c"
printf '#include "d.h"\n' >"$T/m/b.c"
: >"$T/m/d.h"
: >"$T/m/b.h"
if [ -z "$(cycle_in "$T")" ]; then
    echo "FAILED include cycles: the check misses a crafted cycle a.h -> b.h -> c.h -> a.h"
elif [ -n "$(cycle_in "$T/m")" ] || [ -z "$(cycle_in "$T/m" modules)" ]; then
    echo "FAILED include cycles: the check misses a crafted module cycle d.c -> b.h, b.c -> d.h"
elif ! cycle=$(cycle_in "$DIR"); then
    echo "FAILED include cycles: no headers in $DIR"
elif [ -n "$cycle" ]; then
    echo "FAILED include cycles: $cycle"
else
    echo "PASSED include cycles: the headers in $DIR include one another without a cycle"
fi
if ! cycle=$(cycle_in "$DIR" modules); then
    echo "FAILED module cycles: no headers in $DIR"
elif [ -n "$cycle" ]; then
    echo "FAILED module cycles: $cycle"
else
    echo "PASSED module cycles: the modules in $DIR (a .c with its .h) depend on one another without a cycle"
fi
