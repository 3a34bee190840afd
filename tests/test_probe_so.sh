#!/bin/sh
# test_probe_so.sh: the probe library as built (no GPU): it exists, exports
# InitializeInjection and no other symbol, needs neither libcupti nor
# libcuda, and loaded as the driver loads it (tests/probe_host.c: dlopen,
# InitializeInjection, exit) writes a whole record at exit, silently, even
# where CUPTI cannot subscribe; one line on stderr where it cannot write.
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
check "probe: InitializeInjection is the one symbol it exports (nm -D --defined-only)" \
    sh -c "test \"\$(cat '$T/syms')\" = InitializeInjection"
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
check "probe: the record is DIR/<pid>.rec, and nothing else is left there" \
    sh -c "test -n '$pid' && test \"\$(ls '$T/rec')\" = '$pid.rec'"
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
