#!/bin/sh
# include_cycles.sh: the project's own headers (DIR/**/*.h, default src)
# include one another without a cycle, and so do its modules (a .c with its
# .h; the files of one entry's folder, DIR/sections/NAME/, count as one
# module, but for its rows of the option table, NAME_opts.h, which
# sections/list.h gathers and which include nothing). And the files of DIR
# call one another without a circle (by the names their objects define
# and use, OBJDIR/DIR/**.o of the sources that exist, nm; the section
# table's references to each entry's functions left out): two files of one
# module, or one entry, that use each other's names (loading.c and
# loading_modules.c did) are a circle the includes cannot show. Includes
# are read as the compiler finds them: beside the file, then under DIR (the
# -Isrc form, "core/results.h"). tests/layers.sh checks which way the
# folders include one another.
# Prints one PASSED or FAILED line each; a cycle is named step by step. Also
# checks itself on crafted cycles.
DIR=${1:-src}
: "${OBJDIR:=build/obj}"
: "${CC:=cc}"

# cycle_in DIR [modules]: print the first include cycle among DIR's headers
# ("a.h -> b.h -> a.h", paths under DIR), or with "modules" among the
# modules ("a -> b -> a"), or nothing; exits 2 when DIR has no headers.
cycle_in() {
    TESTS_DIR=$(dirname "$0") python3 - "$1" "${2:-}" <<'PY'
import os, re, sys
sys.path.insert(0, os.environ["TESTS_DIR"])
from cycle import first_cycle
d, modules = sys.argv[1], sys.argv[2] == "modules"
every = sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)
heads = [p for p in every if p.endswith(".h")]
if not heads:
    sys.exit(2)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
def includes(p):
    """The headers of DIR that p (a path under DIR) includes."""
    out = []
    for name in inc.findall(open(os.path.join(d, p)).read()):
        for base in (os.path.dirname(p), ""):
            q = os.path.normpath(os.path.join(base, name))
            if q in heads:
                out.append(q)
                break
    return out
if modules:
    def mod(p):
        parts = p.split("/")
        rows = len(parts) == 3 and parts[2] == parts[1] + "_opts.h"
        return "/".join(parts[:2]) if parts[0] == "sections" and len(parts) > 2 and not rows \
            else os.path.splitext(p)[0]
    edges = {}
    for p in every:
        if p.endswith((".c", ".h")):
            e = edges.setdefault(mod(p), [])
            e += [mod(x) for x in includes(p) if mod(x) != mod(p)]
    for h in heads:
        edges.setdefault(mod(h), [])
else:
    edges = {h: includes(h) for h in heads}
c = first_cycle(edges)
if c:
    print(" -> ".join(c))
PY
}

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
printf '#include "b.h"\n' >"$T/a.h"
printf '#include "c.h"\n' >"$T/b.h"
printf '#include "a.h"\n' >"$T/c.h"
mkdir -p "$T/m/x"
printf '#include "x/b.h"\n' >"$T/m/d.c"
printf '#include "d.h"\n' >"$T/m/x/b.c"
: >"$T/m/d.h"
: >"$T/m/x/b.h"
if [ -z "$(cycle_in "$T")" ]; then
    echo "FAILED include cycles: the check misses a crafted cycle a.h -> b.h -> c.h -> a.h"
elif [ -n "$(cycle_in "$T/m")" ] || [ -z "$(cycle_in "$T/m" modules)" ]; then
    echo "FAILED include cycles: the check misses a crafted module cycle d.c -> x/b.h, x/b.c -> d.h"
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

# name_cycle_in OBJDIR [SRCDIR]: the first circle of files among the
# objects under OBJDIR ("a -> b -> a": a uses a name b defines, b one a
# defines), or nothing; exits 2 when there are none. With SRCDIR, only the
# objects of its sources count (an object left from a file since moved does
# not). The edges from run/section (the table of entries) to sections/NAME/
# (each entry's functions) are the table's, not a use: left out.
name_cycle_in() {
    TESTS_DIR=$(dirname "$0") python3 - "$1" "${2:-}" <<'PY'
import glob, os, subprocess, sys
sys.path.insert(0, os.environ["TESTS_DIR"])
from cycle import first_cycle
root, srcdir = sys.argv[1], sys.argv[2]
objs = sorted(o for o in glob.glob(os.path.join(root, "**", "*.o"), recursive=True)
              if not srcdir or any(os.path.isfile(os.path.join(srcdir, os.path.relpath(o, root)[:-2] + x))
                                   for x in (".c", ".S")))
if not objs:
    sys.exit(2)
def nm(args, o):
    out = subprocess.run(["nm"] + args + [o], capture_output=True, text=True, check=True).stdout
    return [l.split()[-1] for l in out.splitlines() if l.strip()]
name = {o: os.path.relpath(o, root)[:-2] for o in objs}
owner = {}
for o in objs:
    for s in nm(["-g", "--defined-only"], o):
        owner[s] = name[o]
edges = {}
for o in objs:
    a = name[o]
    e = sorted({owner[s] for s in nm(["-u"], o) if s in owner and owner[s] != a})
    if a == "run/section":
        e = [b for b in e if not b.startswith("sections/")]
    edges[a] = e
c = first_cycle(edges)
if c:
    print(" -> ".join(c))
PY
}

# The check on a crafted circle: x.c calls y.c's function and y.c x.c's.
mkdir "$T/n" "$T/n/src"
printf 'int fx(int);\nint fy(int);\nint fx(int i) { return i ? fy(i - 1) : 0; }\n' >"$T/n/x.c"
printf 'int fx(int);\nint fy(int);\nint fy(int i) { return i ? fx(i - 1) : 1; }\n' >"$T/n/y.c"
"$CC" -c -o "$T/n/src/x.o" "$T/n/x.c" && "$CC" -c -o "$T/n/src/y.o" "$T/n/y.c"
# The objects of DIR: OBJDIR's (make test builds them), else built here.
objs=$OBJDIR/$DIR
if [ -z "$(find "$objs" -name '*.o' 2>/dev/null | head -1)" ]; then
    objs=$T/objs
    for c in $(find "$DIR" -name '*.c' | sort); do
        o=${c#"$DIR"/}
        o=$objs/${o%.c}.o
        mkdir -p "$(dirname "$o")"
        "$CC" -std=c11 -I"$DIR" -isystem "${CUDA_HOME:-/usr/local/cuda}/include" -D_GNU_SOURCE \
            -DHARNESS_VERSION='"0"' -DHARNESS_CUDA_HOME='"/"' -c -o "$o" "$c" 2>/dev/null
    done
fi
if [ -z "$(name_cycle_in "$T/n")" ]; then
    echo "FAILED name cycles: the check misses a crafted circle x.c -> y.c -> x.c"
elif ! cycle=$(name_cycle_in "$objs" "$DIR"); then
    echo "FAILED name cycles: no objects of $DIR in $OBJDIR (make builds them)"
elif [ -n "$cycle" ]; then
    echo "FAILED name cycles: $cycle (each uses a name the next defines)"
else
    echo "PASSED name cycles: the files of $DIR use one another's names without a circle (the section table aside)"
fi
