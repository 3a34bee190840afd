#!/bin/sh
# test_docs.sh: the front page and the pages under docs/. README.md is at
# most 15,000 bytes and shows the two commands (make && ./harness, make
# test); every relative link and image in README.md, docs/*.md,
# results/README.md and scripts/README.md names a file that exists, and every
# #anchor a heading of its target (GitHub's rule: lowercase, spaces to '-',
# punctuation dropped, a repeated heading gets -1, -2, ...); every page of
# docs/ is linked from docs/README.md; docs/architecture.md is linked from
# README.md, and its prefix map names only prefixes of modules that exist and
# every module of src/. Also checks itself on crafted trees.
# Run from the repository root. Prints one PASSED or FAILED line each.
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# check_docs ROOT: print one PASSED or FAILED line per check of the tree ROOT.
check_docs() {
    python3 - "$1" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
LIMIT = 15000

def outside_fences(text):
    """(line number, line) of a markdown text's lines outside fenced code blocks."""
    fence = None
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
            elif m.group(1).startswith(fence):
                fence = None
        elif fence is None:
            yield no, line

def anchor(heading):
    """GitHub's anchor for a heading's text."""
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link: its text
    h = h.replace("`", "").strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)                             # punctuation dropped
    return h.replace(" ", "-")

anchors_of = {}
def anchors(path):
    if path not in anchors_of:
        seen, names = {}, set()
        with open(path, encoding="utf-8") as f:
            for _, line in outside_fences(f.read()):
                m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                a = anchor(m.group(1))
                n = seen.get(a, 0)
                seen[a] = n + 1
                names.add(a if n == 0 else "%s-%d" % (a, n))
        anchors_of[path] = names
    return anchors_of[path]

def links(path):
    """(line number, target) of every inline link and image outside code."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    for no, line in outside_fences(text):
        line = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line)      # code spans
        for m in re.finditer(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", line):
            out.append((no, m.group(1)))
    return out

def check(desc, problems):
    if problems:
        print("FAILED %s: %s" % (desc, "; ".join(problems[:10])
                                 + (" (and %d more)" % (len(problems) - 10) if len(problems) > 10 else "")))
    else:
        print("PASSED " + desc)

readme = os.path.join(root, "README.md")
if not os.path.isfile(readme):
    print("FAILED README.md exists")
    sys.exit(0)
size = os.path.getsize(readme)
check("README.md is at most %d bytes" % LIMIT,
      [] if size <= LIMIT else ["%d bytes" % size])
text = open(readme, encoding="utf-8").read()
for cmd in ("make && ./harness", "make test"):
    check("README.md shows '%s'" % cmd, [] if cmd in text else ["not found"])

pages = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
files = [readme] + pages + [p for p in (os.path.join(root, "results", "README.md"),
                                       os.path.join(root, "scripts", "README.md"))
                            if os.path.isfile(p)]
for path in files:
    rel = os.path.relpath(path, root)
    bad = []
    for no, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):    # https:, mailto:
            continue
        name, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
        if not os.path.exists(dest):
            bad.append("%s:%d: %s: no such file" % (rel, no, target))
        elif frag and dest.endswith(".md") and frag not in anchors(dest):
            bad.append("%s:%d: %s: no heading with anchor #%s in %s"
                       % (rel, no, target, frag, os.path.relpath(dest, root)))
    check("%s: every relative link and image resolves, every #anchor to a heading" % rel, bad)

index = os.path.join(root, "docs", "README.md")
if not os.path.isfile(index):
    print("FAILED docs/README.md, the index of docs/, exists")
else:
    linked = {os.path.normpath(os.path.join(os.path.dirname(index), t.partition("#")[0]))
              for _, t in links(index) if t.partition("#")[0]}
    check("docs/README.md links every page of docs/",
          [os.path.relpath(p, root) for p in pages
           if p != index and os.path.normpath(p) not in linked])

# docs/architecture.md: linked from the front page; its prefix map's rows
# ("| `pr_` | `src/os/proc.c`, ... | what |") name files that exist, each
# defining or declaring a function whose name starts with the row's prefix;
# every module of src/ (every .c under src/, at any depth) is in a row.
arch = os.path.join(root, "docs", "architecture.md")
if not os.path.isfile(arch):
    print("FAILED docs/architecture.md exists")
else:
    check("README.md links docs/architecture.md",
          [] if any(os.path.normpath(os.path.join(root, t.partition("#")[0])) == os.path.normpath(arch)
                    for _, t in links(readme)) else ["no link"])
    rows, listed, bad = 0, set(), []
    for no, line in outside_fences(open(arch, encoding="utf-8").read()):
        m = re.match(r"^\|\s*`([a-z][a-z0-9]*_)`\s*\|([^|]*)\|", line)
        if not m:
            continue
        rows += 1
        prefix, srcs = m.group(1), re.findall(r"`(src/[^`]+\.c)`", m.group(2))
        if not srcs:
            bad.append("line %d: %s names no src/ file" % (no, prefix))
        fn = re.compile(r"(?m)^(?:static\s+)?[A-Za-z_][\w\s*]*?[\s*]" + re.escape(prefix) + r"\w*\s*\(")
        for src in srcs:
            listed.add(src)
            path = os.path.join(root, src)
            if not os.path.isfile(path):
                bad.append("line %d: %s: no such file" % (no, src))
            elif not fn.search(open(path, encoding="utf-8", errors="replace").read()):
                bad.append("line %d: %s: no function %s* in it" % (no, src, prefix))
    if rows == 0:
        bad.append("no prefix map (rows | `xx_` | `src/FILE.c` | ... |)")
    check("docs/architecture.md: every prefix of its map is a module's that exists", bad)
    modules = sorted(os.path.relpath(p, root) for p in
                     glob.glob(os.path.join(root, "src", "**", "*.c"), recursive=True))
    check("docs/architecture.md: every module of src/ is in its prefix map",
          [m for m in modules if m not in listed])

# docs/build.md's layout: its list names every folder of src/ ("os/") and
# every entry's folder of src/sections/ ("jit/").
build = os.path.join(root, "docs", "build.md")
if os.path.isfile(build):
    text = open(build, encoding="utf-8").read()
    m = re.search(r"(?ms)^## Layout\s*\n+```\n(.*?)^```", text)
    src = os.path.join(root, "src")
    dirs = sorted({os.path.relpath(d, src) for d in glob.glob(os.path.join(src, "*", ""))
                   + glob.glob(os.path.join(src, "sections", "*", ""))}) if os.path.isdir(src) else []
    check("docs/build.md: its layout names every folder of src/",
          ["no layout list"] if not m else
          [d.rstrip("/") + "/" for d in dirs
           if not re.search(r"(?<![\w/])" + re.escape(os.path.basename(d.rstrip("/"))) + "/", m.group(1))])
PY
}

check_docs . | sed -e 's/^PASSED /PASSED docs: /' -e 's/^FAILED /FAILED docs: /'

# The checker itself, on crafted trees: each fault is found, a good tree passes.
# crafted NAME: a small good tree in $T/NAME.
crafted() {
    d=$T/$1
    mkdir -p "$d/docs" "$d/results/figures"
    printf 'x' >"$d/results/figures/a.png"
    printf '# Top\n\n`make && ./harness`, `make test`; [docs](docs/README.md), [A](docs/a.md#the-a-page-a-b), [arch](docs/architecture.md)\n' >"$d/README.md"
    printf '# Docs\n\n[a](a.md) [b](b.md#b) [top](../README.md#top) [arch](architecture.md) [build](build.md)\n' >"$d/docs/README.md"
    printf '# Build\n\n## Layout\n\n```\nsrc/  ab\n  sections/  cd.c\n```\n' >"$d/docs/build.md"
    mkdir -p "$d/src/sections"
    printf 'static int ab_one(void);\n' >"$d/src/ab.c"
    printf 'int cd_one(void)\n{\n    return 0;\n}\n' >"$d/src/sections/cd.c"
    printf '# Arch\n\n| Prefix | Files | What |\n| --- | --- | --- |\n| `ab_` | `src/ab.c` | a |\n| `cd_` | `src/sections/cd.c` | c |\n' >"$d/docs/architecture.md"
    printf '# The A page: `a` (b)\n\n![fig](../results/figures/a.png) [self](#the-a-page-a-b) [twice](#same-1)\n\n## Same\n\n## Same\n\n```\n[not a link](nowhere.md)\n# not a heading\n```\n' >"$d/docs/a.md"
    printf '# B?\n\nsee `[code](nowhere.md)`\n' >"$d/docs/b.md"
    echo "$d"
}
# expect NAME PATTERN: the checker over tree NAME prints PATTERN among its FAILED lines.
expect() {
    check_docs "$T/$1" >"$T/$1.out"
    if grep '^FAILED' "$T/$1.out" | grep -q -e "$2"; then echo "PASSED docs: the checker finds $1"
    else echo "FAILED docs: the checker does not find $1 ('$2' not among: $(grep '^FAILED' "$T/$1.out" | tr '\n' ' '))"; fi
}
d=$(crafted good)
check_docs "$d" >"$T/good.out"
if grep -q '^FAILED' "$T/good.out" || ! grep -q '^PASSED' "$T/good.out"; then
    echo "FAILED docs: the checker passes a good tree ($(grep '^FAILED' "$T/good.out" | tr '\n' ' '))"
else
    echo "PASSED docs: the checker passes a good tree (anchors with punctuation and repeats, fences, code spans)"
fi
d=$(crafted big); head -c 15001 /dev/zero | tr '\0' x >>"$d/README.md"
expect big "README.md is at most 15000 bytes"
d=$(crafted nocmd); printf '# Top\n\n[docs](docs/README.md)\n' >"$d/README.md"
expect nocmd "README.md shows 'make test'"
d=$(crafted file); printf '[gone](results/figures/gone.png)\n' >>"$d/README.md"
expect file "README.md:.*gone.png: no such file"
d=$(crafted image); printf '![gone](../results/gone.png)\n' >>"$d/docs/a.md"
expect image "docs/a.md:.*no such file"
d=$(crafted anchor); printf '[x](docs/a.md#no-such-heading)\n' >>"$d/README.md"
expect anchor "no heading with anchor #no-such-heading in docs/a.md"
d=$(crafted self); printf '[x](#same-2)\n' >>"$d/docs/a.md"
expect self "docs/a.md:.*#same-2"
d=$(crafted orphan); printf '# C\n' >"$d/docs/c.md"
expect orphan "docs/README.md links every page of docs/: docs/c.md"
d=$(crafted noarch); rm "$d/docs/architecture.md"
expect noarch "docs/architecture.md exists"
d=$(crafted archlink); printf '# Top\n\n`make && ./harness`, `make test`; [docs](docs/README.md)\n' >"$d/README.md"
expect archlink "README.md links docs/architecture.md"
d=$(crafted prefix); printf '| `ef_` | `src/ab.c` | e |\n| `gh_` | `src/gh.c` | g |\n' >>"$d/docs/architecture.md"
expect prefix "src/ab.c: no function ef_\\* in it; .*src/gh.c: no such file"
d=$(crafted module); printf 'int ij_one(void);\n' >"$d/src/ij.c"
expect module "every module of src/ is in its prefix map: src/ij.c"
d=$(crafted layout); mkdir -p "$d/src/sections/mn"
expect layout "its layout names every folder of src/: sections/mn/"
d=$(crafted deep); mkdir -p "$d/src/sections/kl"; printf 'int kl_one(void);\n' >"$d/src/sections/kl/kl.c"
expect deep "every module of src/ is in its prefix map: src/sections/kl/kl.c"
