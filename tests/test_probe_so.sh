#!/bin/sh
# test_probe_so.sh: the probe library as built (no GPU): it exists, exports
# InitializeInjection and no other symbol, needs neither libcupti nor
# libcuda, and loaded as the driver loads it (tests/probe_host.c: dlopen,
# InitializeInjection, exit) writes a whole record at exit, silently, even
# where CUPTI cannot subscribe; one line on stderr where it cannot write.
# As the program's NVTX tool (NVTX v3 compiled into the host, which finds
# the probe through NVTX_INJECTION64_PATH): the marks counted, the first
# that HARNESS_PROBE_READY matches timed, before the driver's load too.
: "${PROBE:=./harness-probe.so}"
: "${PROBE_HOST:=build/probe_host}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

if [ ! -e "$PROBE" ] || [ ! -x "$PROBE_HOST" ]; then
    echo "FAILED the probe ($PROBE) or its test host ($PROBE_HOST) is missing: make builds both"
    exit 0
fi
check "probe: $PROBE is built" test -s "$PROBE"
nm -D --defined-only "$PROBE" | awk '{ print $NF }' | sort >"$T/syms"
check "probe: InitializeInjection and NVTX's InitializeInjectionNvtx2 are the symbols it exports (nm -D --defined-only)" \
    sh -c "test \"\$(cat '$T/syms' | tr '\n' ' ')\" = 'InitializeInjection InitializeInjectionNvtx2 '"
readelf -d "$PROBE" | grep NEEDED >"$T/needed"
check "probe: it needs neither libcupti nor libcuda (both through dlopen)" \
    sh -c "! grep -qE 'libcupti|libcuda' '$T/needed'"

# Loaded with CUPTI asked for where it is not (the toolkit's own may still be
# found, and fail to subscribe without a driver): a whole record all the same.
mkdir "$T/rec"
HARNESS_PROBE_DIR="$T/rec" HARNESS_PROBE_CUPTI=/nonexistent/libcupti.so CUDA_HOME=/nonexistent \
    HARNESS_PROBE_SPANS=10 "$PROBE_HOST" run "$PROBE" >"$T/run.out" 2>"$T/run.err"
rc=$?
pid=$(sed -n 's/^pid //p' "$T/run.out")
expect_exit "probe: the host loaded it and exited" 0
expect_grep "probe: InitializeInjection returned 1" "^init 1\$" "$T/run.out"
check "probe: silent: nothing on stderr" test ! -s "$T/run.err"
check "probe: the record is DIR/<pid>.rec beside its live record DIR/<pid>.live, and nothing else is left there" \
    sh -c "test -n '$pid' && test \"\$(ls '$T/rec' | tr '\\n' ' ')\" = '$pid.live $pid.rec '"
"$PROBE_HOST" check "$T/rec/$pid.rec" "$pid" >"$T/check.out" 2>&1
rc=$?
expect_exit "probe: the record reads back whole ($(cat "$T/check.out"))" 0
# The toolkit's CUPTI is found past the missing one: where a driver is
# there (a GPU machine) it subscribes ("ok"); here it cannot and says how.
expect_grep "probe: env cupti is ok, or names the library asked for, or says how CUPTI failed" \
    "ok: cupti=\(ok\|not found: looked in /nonexistent/libcupti.so (HARNESS_PROBE_CUPTI)\|failed: \|another client\)" \
    "$T/check.out"

# Without HARNESS_PROBE_DIR it does nothing.
mkdir "$T/none"
(cd "$T/none" && HARNESS_PROBE_CUPTI=/nonexistent "$OLDPWD/$PROBE_HOST" run "$OLDPWD/$PROBE") \
    >"$T/none.out" 2>"$T/none.err"
check "probe: without HARNESS_PROBE_DIR: returns 1, writes nothing, says nothing" \
    sh -c "grep -qx 'init 1' '$T/none.out' && test -z \"\$(ls '$T/none')\" && test ! -s '$T/none.err'"

# A directory that is not there: one line, naming the path and the reason.
HARNESS_PROBE_DIR=/nonexistent-dir HARNESS_PROBE_CUPTI=/nonexistent "$PROBE_HOST" run "$PROBE" \
    >"$T/bad.out" 2>"$T/bad.err"
pid=$(sed -n 's/^pid //p' "$T/bad.out")
check "probe: an unwritable directory: the one line \"harness-probe: cannot write PATH: REASON\"" \
    sh -c "test \"\$(cat '$T/bad.err')\" = 'harness-probe: cannot write /nonexistent-dir/$pid.rec: No such file or directory'"

# The NVTX tool: marks before and after the driver's load (@init), the
# first "serving..." timed; the record reads back whole.
mkdir "$T/mk"
HARNESS_PROBE_DIR="$T/mk" HARNESS_PROBE_CUPTI=/nonexistent CUDA_HOME=/nonexistent \
    NVTX_INJECTION64_PATH="$PWD/$PROBE" HARNESS_PROBE_READY='^serving' \
    "$PROBE_HOST" marks "$PROBE" early @init warm-up serving-now serving again >"$T/mk.out" 2>"$T/mk.err"
pid=$(sed -n 's/^pid //p' "$T/mk.out")
"$PROBE_HOST" check "$T/mk/$pid.rec" "$pid" >"$T/mkc.out" 2>&1
check "probe as NVTX tool: 5 marks counted (one before the driver's load), the match timed" \
    sh -c "grep -q ' marks.n=5 at.ready_mark=[0-9.]*\$' '$T/mkc.out' && test ! -s '$T/mk.err'"
check "probe as NVTX tool: the match's time lies between the spawn and the exit handler" \
    python3 -c "
import re, sys
t = open(sys.argv[1]).read()
at = float(re.search(r'at.ready_mark=([0-9.e+-]+)', t).group(1))
assert 0 <= at < 10000, at" "$T/mkc.out"
# No mark matches: counted, not timed.
mkdir "$T/mn"
HARNESS_PROBE_DIR="$T/mn" HARNESS_PROBE_CUPTI=/nonexistent CUDA_HOME=/nonexistent \
    NVTX_INJECTION64_PATH="$PWD/$PROBE" HARNESS_PROBE_READY='^never' \
    "$PROBE_HOST" marks "$PROBE" @init a b >"$T/mn.out" 2>&1
pid=$(sed -n 's/^pid //p' "$T/mn.out")
"$PROBE_HOST" check "$T/mn/$pid.rec" "$pid" >"$T/mnc.out" 2>&1
check "probe as NVTX tool: no mark matches: 2 counted, no at.ready_mark" \
    sh -c "grep -q ' marks.n=2\$' '$T/mnc.out'"
# Without the expression it declines NVTX (every NVTX call stays a no-op).
mkdir "$T/mx"
HARNESS_PROBE_DIR="$T/mx" HARNESS_PROBE_CUPTI=/nonexistent CUDA_HOME=/nonexistent \
    NVTX_INJECTION64_PATH="$PWD/$PROBE" "$PROBE_HOST" marks "$PROBE" @init a >"$T/mx.out" 2>"$T/mx.err"
pid=$(sed -n 's/^pid //p' "$T/mx.out")
"$PROBE_HOST" check "$T/mx/$pid.rec" "$pid" >"$T/mxc.out" 2>&1
check "probe without HARNESS_PROBE_READY: NVTX declined, no marks figure, silent" \
    sh -c "grep -q '^ok: cupti=[^ ]*\( [^m][^ ]*\)*\$' '$T/mxc.out' && ! grep -q marks '$T/mxc.out' && test ! -s '$T/mx.err'"
