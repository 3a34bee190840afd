#!/bin/sh
# test_options.sh: the option table (src/run/cli.c, the entries' rows from
# src/sections/list.h) against the pages that list the options: every
# option --help=all prints (it prints every row but the harness's own
# --child and --child-t0) has an entry in man/harness.1's OPTIONS and in
# docs/options.md's option lists (the lines of its code blocks that begin
# with an option), and those list no other option. Also checks itself on
# crafted pages. Run from the repository root with HARNESS set. Prints one
# PASSED or FAILED line each.
: "${HARNESS:=./harness}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# check_options HELP MAN MD: one PASSED or FAILED line per page.
check_options() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys
help_text, man, md = (open(p, encoding="utf-8").read() for p in sys.argv[1:4])
OPT = r"(?:-h, )?--([a-z0-9][a-z0-9-]*)"

def rows():
    """The options --help=all lists: the labels at the start of its entries."""
    return {m.group(1) for m in re.finditer(r"(?m)^  " + OPT, help_text)}

def man_options():
    """The options of the manual's OPTIONS: the line after each .TP."""
    sec = re.search(r"(?ms)^\.SH OPTIONS\n(.*?)^\.SH ", man)
    lines = sec.group(1).replace("\\-", "-").split("\n") if sec else []
    return {m.group(1) for prev, line in zip(lines, lines[1:]) if prev.startswith(".TP")
            for m in [re.match(r"^\.BI? " + OPT, line)] if m}

def md_options():
    """The options docs/options.md lists: code lines that begin with one."""
    found, fence = set(), False
    for line in md.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif fence and re.match(OPT, line):
            found.add(re.match(OPT, line).group(1))
    return found

def check(desc, page):
    want = rows()
    problems = ["no entry for --%s" % o for o in sorted(want - page)] + \
               ["--%s is no option of the table" % o for o in sorted(page - want)]
    if not want:
        problems.append("--help=all lists no option")
    print(("FAILED %s: %s" % (desc, "; ".join(problems))) if problems else "PASSED " + desc)

check("options: man/harness.1 lists every option of the table, and no other", man_options())
check("options: docs/options.md lists every option of the table, and no other", md_options())
PY
}

"$HARNESS" --help=all >"$T/help" 2>&1
check_options "$T/help" man/harness.1 docs/options.md

# The checker itself: a page without an option, or with one the table lacks.
printf '  --alpha=N    a\n  -h, --help   b\n  --help=all   c\n' >"$T/h"
printf '.SH OPTIONS\n.TP\n.B \\-\\-alpha=N\na\n.TP\n.B \\-h, \\-\\-help\nb\n.SH NEXT\n' >"$T/man"
printf '```\n--alpha=N     a\n-h, --help    b\n```\n' >"$T/md"
check_options "$T/h" "$T/man" "$T/md" >"$T/good.out"
if grep -q FAILED "$T/good.out"; then
    echo "FAILED options: the checker passes good pages ($(tr '\n' ' ' <"$T/good.out"))"
else
    echo "PASSED options: the checker passes good pages"
fi
printf '.SH OPTIONS\n.TP\n.BI \\-\\-beta= N\nb\n.TP\n.B \\-h, \\-\\-help\nb\n.SH NEXT\n' >"$T/man2"
printf '```\n--alpha=N     a\n```\n' >"$T/md2"
check_options "$T/h" "$T/man2" "$T/md2" >"$T/bad.out"
if grep -q "FAILED options: man.*no entry for --alpha; --beta is no option" "$T/bad.out" &&
   grep -q "FAILED options: docs.*no entry for --help" "$T/bad.out"; then
    echo "PASSED options: the checker finds an option missing and one too many"
else
    echo "FAILED options: the checker finds an option missing and one too many" \
        "($(tr '\n' ' ' <"$T/bad.out"))"
fi
