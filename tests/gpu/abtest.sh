#!/bin/sh
# abtest.sh: scripts/compare's own error rates on this GPU. RUNS runs of the
# built harness as it is (A), RUNS with --kernels-dir at a copy of kernels/
# in which two kernels move more bytes (B), and RUNS with --kernels-dir at an
# unchanged copy (C, the control: it differs from B in the planted edits
# alone; CONTROL=0 leaves it out), in rounds of one run of each, the order
# rotated by one each round (A C B, C B A, B A C) so that neither a drift of
# the machine nor a place in the round falls on one side; then
# tests/gpu/abtest.py over them: for each verdict rule, the share of figures
# flagged between runs of one build (A/A, A/C), whether each planted
# slowdown was flagged SLOWER (A/B, C/B), and what else was flagged.
#
# The planted slowdowns, made here from kernels/*.cu with sed (nothing else
# differs; the results stay the same, so every check still passes):
#   copyFloat4 (fusion's copy4) reads a second float4 per float4 it copies,
#     from the far half of its input (read again only half a grid later, long
#     out of the L2): 12 bytes per element instead of 8. At the copy floor
#     (n >= 67,108,864: buffers of at least 4x the L2) the byte model
#     predicts +50%.
#   chainFusedWide<4> (fusion's wide4, at the floor there too) reads one more
#     float per thread from half a grid away, and every fifth warp a second
#     one: 52.8 bytes per 4 elements instead of 48, +10%.
# vectorScale and the stage kernels would be the obvious ones, but they pay
# their grid's time on top of their bytes (the fusion section shows it), so
# their time does not follow the byte model: vectorAdd moves 1.5x
# vectorScale's bytes in 1.16x its time (results/h200.json).
#
# Device time: 3 x RUNS runs of ./harness $AB_ARGS (2 x RUNS with CONTROL=0);
# a default run takes about 50 s on the H200, so RUNS=3 (the default) about
# 7.5 minutes, and A with C gives A/A at 3 runs a side.
# Usage: [RUNS=3] [CONTROL=1] [AB_ARGS=...] [AB_KEEP=DIR] [OUT=DIR]
#        sh tests/gpu/abtest.sh   (from the repository root, after make).
# The runs and the kernels stay in $OUT/ab (OUT a new temporary directory
# unless given), and with AB_KEEP each run is also copied there gzipped as
# it ends; the report goes to stdout. Exit 1 when a run failed or a kernel
# edit did not take, 2 on a bad RUNS or CONTROL.
set -u
H=${HARNESS:-./harness}
RUNS=${RUNS:-3}
CONTROL=${CONTROL:-1}
case $RUNS in '' | *[!0-9]* | 0 | 1) echo "abtest.sh: RUNS=$RUNS: expected 2 or more" >&2; exit 2 ;; esac
case $CONTROL in 0) sides="a b" ;; 1) sides="a c b" ;; *) echo "abtest.sh: CONTROL=$CONTROL: expected 0 or 1" >&2; exit 2 ;; esac
D=${OUT:-$(mktemp -d)}/ab
K="$D/kernels-b"
KC="$D/kernels-c"
[ -x "$H" ] || { echo "abtest.sh: $H is not built (make)" >&2; exit 1; }
rm -rf "$D"
mkdir -p "$K" "$KC" || exit 1
cp kernels/*.cu "$K/" && cp kernels/*.cu "$KC/" || exit 1
if [ -n "${AB_KEEP:-}" ]; then rm -rf "$AB_KEEP" && mkdir -p "$AB_KEEP" || exit 1; fi

# copyFloat4: its one statement becomes a copy with a second, far read whose
# value is used only when it holds a NaN payload no input has.
sed -i '/void copyFloat4(/,/^}/ s|^        out\[i\] = in\[i\];$|        { float4 v = in[i], e = in[(i + n4 / 2) % n4]; /* planted: +8 bytes per float4 */ if (__float_as_uint(e.x) == 0x7fbadbadu) v.y = e.y; out[i] = v; }|' "$K/copy.cu"
# chainFusedWide<K>: for K == 4 only, the extra reads before its first loop.
sed -i '/^__global__ void chainFusedWide(/,/^}/ s|^    float v\[K\];$|    float v[K];\n    if (K == 4) { /* planted: one more float per thread, every fifth warp two */\n        size_t j = (base + stride / 2) % n;\n        float e = x[j];\n        if ((base / 32) % 5 == 0) e += r[j];\n        if (__float_as_uint(e) == 0x7fbadbadu) y[j] = e;\n    }|' "$K/fusion.cu"
for f in copy.cu fusion.cu; do
    grep -q 'planted' "$K/$f" || { echo "abtest.sh: the edit of kernels/$f did not take" >&2; exit 1; }
done
for f in copy.cu fusion.cu; do
    diff -u --label "kernels/$f" --label "kernels-b/$f" "kernels/$f" "$K/$f"
done

# rotate LIST: its first word moved to the end.
rotate() {
    first=$1
    shift
    echo "$* $first"
}

failed=0
i=1
order=$sides
while [ "$i" -le "$RUNS" ]; do
    for side in $order; do
        case $side in a) dir= ;; b) dir=--kernels-dir=$K ;; c) dir=--kernels-dir=$KC ;; esac
        s=$(date +%s)
        # shellcheck disable=SC2086  # AB_ARGS and dir are lists of words
        "$H" ${AB_ARGS:-} $dir --json="$D/$side$i.json" >"$D/$side$i.txt" 2>&1
        rc=$?
        echo "run $side$i: exit $rc, $(($(date +%s) - s)) s"
        [ $rc -eq 0 ] || { failed=1; tail -5 "$D/$side$i.txt"; }
        [ -z "${AB_KEEP:-}" ] || [ ! -e "$D/$side$i.json" ] ||
            gzip -9 -c "$D/$side$i.json" >"$AB_KEEP/$side$i.json.gz"
    done
    # shellcheck disable=SC2086  # order is a list of words
    order=$(rotate $order)
    i=$((i + 1))
done
[ $failed -eq 0 ] || { echo "abtest.sh: a run failed; no rates from it" >&2; exit 1; }
control=
[ "$CONTROL" = 0 ] || control="--c $(echo "$D"/c[0-9]*.json)"
# shellcheck disable=SC2086  # control is a list of words
python3 tests/gpu/abtest.py --label "${AB_ARGS:-default runs}" --a "$D"/a[0-9]*.json --b "$D"/b[0-9]*.json $control
