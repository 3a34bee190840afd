#!/bin/sh
# overhead.sh: what each tool adds to a program's run, in one call: the same
# programs (tests/gpu/program/app_torch.py where python3 has torch, and the
# lesson's vector.cu built here by nvcc) run OVERHEAD_RUNS times each
# (default 10, after one unmeasured run), the variants alternating:
#   bare      the program as it is
#   probe     under the harness's probe (harness-probe.so), as -- CMD runs it
#   activity  under tests/gpu/activity_tracer.c, built here against the
#             toolkit's CUPTI: kernels, copies, sets, runtime and driver API
#             through CUPTI's activity API, buffers written to a file
#   nsys      under nsys profile --trace=cuda, where nsys is found: $NSYS,
#             nsys on the PATH, or the tarball tests/gpu/nsys_pack.sh makes
#             (NSYS_TAR, default build/nsys/nsys-target.tar.xz), unpacked here
# Writes $OUT/overhead.txt (per program and variant: median wall time, its
# [min, max] and IQR, the difference from bare, the program's own span, the
# bytes the tool wrote), $OUT/overhead.csv (every run) and
# $OUT/overhead-<program>-<variant>.err (the first run's stderr: what nsys or
# CUPTI said). OVERHEAD_TIMEOUT (s, default 300) ends a run that hangs;
# vector.cu is built for OVERHEAD_ARCH (default sm_90, the H200's);
# OVERHEAD_PROGRAMS (default "vector torch") picks the programs; PROBE_OLD
# names another build of the probe, run as a variant of its own (probe-old:
# the probe before a change); OVERHEAD_NO_TOOLS=1 leaves the tracer and
# nsys out (the probes alone). Needs a
# GPU; make builds the probe first. Exit 0 when every run exited 0.
: "${CUDA_HOME:=/usr/local/cuda}"
: "${OVERHEAD_RUNS:=10}"
OUT=${OUT:-/tmp/harness-out}
NSYS_TAR=${NSYS_TAR:-build/nsys/nsys-target.tar.xz}
P=tests/gpu/program
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"

[ -f harness-probe.so ] || make -j8 harness-probe.so >"$W/make.log" 2>&1 || { tail -20 "$W/make.log"; exit 1; }
cupti=""
for c in "$CUDA_HOME/lib64/libcupti.so" "$CUDA_HOME/extras/CUPTI/lib64/libcupti.so"; do
    [ -f "$c" ] && { cupti=$c; break; }
done
cuptidir=$(dirname "${cupti:-$CUDA_HOME/lib64/x}")
set -- --probe "$PWD/harness-probe.so"
[ -n "$cupti" ] && set -- "$@" --cupti "$cupti"
# PROBE_OLD: another build of the probe (the one before a change), a variant of its own.
[ -n "${PROBE_OLD:-}" ] && set -- "$@" --probe-old "$PROBE_OLD"
[ -n "${OVERHEAD_NO_TOOLS:-}" ] && NSYS=none    # the probes alone: no tracer, no nsys
if [ -z "${OVERHEAD_NO_TOOLS:-}" ] &&
   cc -std=c11 -D_GNU_SOURCE -O2 -shared -fPIC -I"$CUDA_HOME/include" -o "$W/libactivity.so" \
        tests/gpu/activity_tracer.c -L"$cuptidir" -lcupti -Wl,-rpath,"$cuptidir" >"$W/cc.log" 2>&1; then
    set -- "$@" --tracer "$W/libactivity.so"
else
    echo "overhead.sh: the activity tracer did not build (no CUPTI headers or library?):"
    tail -5 "$W/cc.log"
fi

# nsys: $NSYS, the PATH, or the packed Debian CLI (its binary must sit in a
# directory named target-linux-x64).
nsys=${NSYS:-$(command -v nsys 2>/dev/null)}
if [ -z "$nsys" ] && [ -f "$NSYS_TAR" ]; then
    mkdir -p "$W/nsys/target-linux-x64"
    tar -xJf "$NSYS_TAR" -C "$W/nsys/target-linux-x64" && nsys="$W/nsys/target-linux-x64/nsys"
fi
if [ -n "$nsys" ] && [ "$nsys" != none ] && "$nsys" --version >"$W/nsys.version" 2>&1; then
    echo "overhead.sh: nsys: $(head -1 "$W/nsys.version") ($nsys)"
    set -- "$@" --nsys "$nsys"
else
    echo "overhead.sh: no nsys (NSYS, the PATH, $NSYS_TAR): the nsys variant is left out"
fi

case " ${OVERHEAD_PROGRAMS:-vector torch} " in *" vector "*)
if "$CUDA_HOME/bin/nvcc" -O2 -arch="${OVERHEAD_ARCH:-sm_90}" -o "$W/vector" "$P/vector.cu" >"$W/nvcc.log" 2>&1; then
    set -- "$@" --program "vector=$W/vector"
else
    echo "overhead.sh: nvcc did not build $P/vector.cu:"; tail -5 "$W/nvcc.log"
fi ;;
esac
case " ${OVERHEAD_PROGRAMS:-vector torch} " in *" torch "*)
if python3 -c "import torch" 2>/dev/null; then
    set -- "$@" --program "torch=python3 $P/app_torch.py"
else
    echo "overhead.sh: python3 has no torch: app_torch.py is left out"
fi ;;
esac
{ echo "# overhead.sh on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  [ -n "$nsys" ] && echo "# nsys: $(head -1 "$W/nsys.version")"
  echo "# activity tracer: CUPTI of $cuptidir"; } >"$OUT/overhead.head"
python3 tests/gpu/overhead.py --runs "$OVERHEAD_RUNS" --warmup 1 --out "$OUT" "$@"
rc=$?
cat "$OUT/overhead.head" "$OUT/overhead.txt" >"$OUT/overhead.txt.tmp" && mv "$OUT/overhead.txt.tmp" "$OUT/overhead.txt"
rm -f "$OUT/overhead.head"
exit $rc
