#!/bin/sh
# layers.sh: src/ is in folders by layer, and each layer includes only the
# layers below it. The layers, bottom up (docs/architecture.md, "Layers"):
#   os/        the host: processes, signals, files, the clock   nothing else
#   core/      the results and what is derived and written       os/
#   cuda/      the driver, NVRTC, the kernels, timing, NVML      os/ core/
#   probe/     the probe and its record (precord)                os/ core/ cuda/
#   run/       the options, the list runner, the children,       os/ core/ cuda/
#              the tables                                        sections/list.h
#   sections/NAME/  one entry of the list                        all of the above,
#                                                                its own folder
#   sections/list.h                                              the rows
#   sections/NAME/NAME_opts.h  an entry's rows of the option     nothing
#              table (X-macros, gathered by sections/list.h)
#   main.c     the program                                       anything
# src/version.h (one declaration that make defines, including nothing) may be
# included from anywhere. Every quoted include names a file of src/ by its
# path under src/ (the -Isrc form, "core/results.h"). The folders of
# src/sections/ are the entries of SEC_LIST (sections/list.h), one each; src/
# itself holds main.c, version.h and the layers' folders. Exceptions, each
# with its reason, are in EXCEPTIONS below. Also checks itself on crafted
# trees. Prints one PASSED or FAILED line per check. Run from the top.
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# check_layers SRC: one PASSED or FAILED line per check of the tree SRC.
check_layers() {
    python3 - "$1" <<'PY'
import os, re, sys
src = sys.argv[1]
LAYERS = ["os", "core", "cuda", "probe", "run", "sections"]
# What each layer may include besides itself and version.h.
MAY = {
    "os": set(),
    "core": {"os"},
    "cuda": {"os", "core"},
    "probe": {"os", "core", "cuda"},
    "run": {"os", "core", "cuda", "list"},
    "entry": {"os", "core", "cuda", "probe", "run", "list", "rows"},
    "list": {"rows"},
    "rows": set(),
    "version": set(),
    "main": {"os", "core", "cuda", "probe", "run", "list", "entry", "rows"},
}
# (file, included): why. An include that breaks the rule on purpose.
EXCEPTIONS = {
    ("sections/crossover/crossover.c", "sections/stopwatches/stopwatches.h"):
        "crossover's rows at stopwatches' n are the same work as stopwatches' rows; "
        "that n (SW_N), the section's name (SW) and the keys of those rows (sw_keys) are "
        "defined once, in stopwatches.h",
    ("sections/fusion/fusion.c", "sections/launch/launch.h"):
        "fusion's held prices the staged chain's extra grids with section launch's empty kernel "
        "on that grid; launch's name, keys (la_keys) and shapes are defined once, in launch.h",
}

def layer(rel):
    """The layer of a path under src/, and for an entry its folder."""
    parts = rel.split("/")
    if len(parts) == 1:
        return ({"version.h": "version", "main.c": "main"}.get(rel, "top"), None)
    if parts[0] == "sections":
        if len(parts) == 2:
            return ("list", None)
        if len(parts) == 3 and parts[2] == parts[1] + "_opts.h":
            return ("rows", "/".join(parts[:2]))
        return ("entry", "/".join(parts[:2]))
    return (parts[0], None)

def check(desc, problems):
    if problems:
        print("FAILED layers: %s: %s" % (desc, "; ".join(problems[:10])
              + (" (and %d more)" % (len(problems) - 10) if len(problems) > 10 else "")))
    else:
        print("PASSED layers: " + desc)

files = sorted(os.path.relpath(os.path.join(d, f), src)
               for d, _, fs in os.walk(src) for f in fs if f.endswith((".c", ".h")))
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
unknown, form, up, used = [], [], [], set()
for rel in files:
    own, folder = layer(rel)
    if own not in MAY:
        unknown.append(rel)
        continue
    for name in inc.findall(open(os.path.join(src, rel), encoding="utf-8", errors="replace").read()):
        if not os.path.isfile(os.path.join(src, name)):
            form.append("%s: \"%s\" (not a path under src/)" % (rel, name))
            continue
        to, tofolder = layer(name)
        if to == "version" or (to == own and tofolder == folder) or to in MAY[own]:
            continue
        if (rel, name) in EXCEPTIONS:
            used.add((rel, name))
            continue
        up.append("%s (%s) includes %s (%s)" % (rel, folder or own, name, tofolder or to))
check("every file of src/ is in a layer's folder (%s), or main.c or version.h at the top"
      % ", ".join(LAYERS), unknown)
check("every quoted include names a file by its path under src/", form)
check("each layer includes only the layers below it (os < core < cuda < probe, run < sections < main)", up)
check("every exception to the layers is still needed",
      ["%s -> %s" % e for e in EXCEPTIONS if e not in used and os.path.isfile(os.path.join(src, e[0]))])

# The entries' folders are the list's entries.
lst = os.path.join(src, "sections", "list.h")
names = set(re.findall(r'(?m)^\s*X\([A-Z_]+, "([a-z-]+)", (?:DEVICE|NODE_LEVEL|NODE|PROGRAM),',
                       open(lst).read())) if os.path.isfile(lst) else set()
dirs = {d for d in os.listdir(os.path.join(src, "sections"))
        if os.path.isdir(os.path.join(src, "sections", d))} if os.path.isdir(os.path.join(src, "sections")) else set()
check("the folders of src/sections/ are the entries of SEC_LIST, one each (%d)" % len(names),
      (["no entries read from sections/list.h"] if not names else [])
      + ["sections/%s/: no entry of the list" % d for d in sorted(dirs - names)]
      + ["entry %s: no folder sections/%s/" % (n, n) for n in sorted(names - dirs)])
PY
}

check_layers src

# The checker on crafted trees: a good one passes, each fault is found.
crafted() {
    d=$T/$1
    for x in os core cuda probe run sections/one; do mkdir -p "$d/$x"; done
    printf '#include "sections/one/one_opts.h"\n#define SEC_LIST(X) \\\n    X(ONE, "one", DEVICE, a, b, c, d, e, f)\n' >"$d/sections/list.h"
    : >"$d/sections/one/one_opts.h"
    : >"$d/version.h"
    : >"$d/os/o.h"
    printf '#include "os/o.h"\n' >"$d/core/c.h"
    printf '#include "core/c.h"\n#include "os/o.h"\n' >"$d/cuda/k.h"
    printf '#include "cuda/k.h"\n' >"$d/probe/p.c"
    printf '#include "cuda/k.h"\n#include "sections/list.h"\n#include "version.h"\n' >"$d/run/r.h"
    printf '#include "run/r.h"\n#include "sections/one/one.h"\n' >"$d/sections/one/one.c"
    : >"$d/sections/one/one.h"
    printf '#include "sections/one/one.h"\n#include "run/r.h"\n' >"$d/main.c"
    echo "$d"
}
expect() {
    check_layers "$T/$1" >"$T/$1.out"
    if grep '^FAILED' "$T/$1.out" | grep -q -e "$2"; then echo "PASSED layers: the checker finds $1"
    else echo "FAILED layers: the checker does not find $1 ('$2' not among: $(grep '^FAILED' "$T/$1.out" | tr '\n' ' '))"; fi
}
d=$(crafted good)
check_layers "$d" >"$T/good.out"
if grep -q '^FAILED' "$T/good.out" || ! grep -q '^PASSED' "$T/good.out"; then
    echo "FAILED layers: the checker passes a good tree ($(grep '^FAILED' "$T/good.out" | tr '\n' ' '))"
else
    echo "PASSED layers: the checker passes a good tree"
fi
d=$(crafted up); printf '#include "run/r.h"\n' >>"$d/core/c.h"
expect up "core/c.h (core) includes run/r.h (run)"
d=$(crafted probe); printf '#include "sections/one/one.h"\n' >>"$d/probe/p.c"
expect probe "probe/p.c (probe) includes sections/one/one.h (sections/one)"
d=$(crafted entry); printf '#include "sections/one/one.h"\n' >>"$d/run/r.h"
expect entry "run/r.h (run) includes sections/one/one.h"
d=$(crafted form); printf '#include "o.h"\n' >>"$d/os/o.h"
expect form "os/o.h: \"o.h\" (not a path under src/)"
d=$(crafted loose); : >"$d/loose.h"; mkdir "$d/misc"; : >"$d/misc/m.c"
expect loose "in a layer's folder.*: loose.h; misc/m.c"
d=$(crafted folder); mkdir "$d/sections/two"
expect folder "sections/two/: no entry of the list"
d=$(crafted rows); printf '#include "run/r.h"\n' >"$d/sections/one/one_opts.h"
expect rows "sections/one/one_opts.h (sections/one) includes run/r.h (run)"
