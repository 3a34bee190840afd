#!/bin/sh
# room.sh PART: a tree's output against the tree it was rebuilt from, on a GPU.
# BEFORE names a tarball of the older tree (git archive --prefix=before/);
# it is built in build/before/. Parts:
#   default  ./harness of each tree, twice, alternated (before, after,
#            before, after): the JSON keys, the text apart from figures,
#            and scripts/compare of each A/A pair beside each before/after pair
#   torch    --compare-loading -- python3 program/app_torch.py of each tree,
#            alternated: the JSON keys and the text apart from figures
# Logs and JSON under L (default /tmp/room); the checks' lines on stdout, in
# L/room-PART.txt and in results/GPU-room-PART.txt (GPU: h100, h200, as
# nvidia-smi names the device).
set -u
unset COLUMNS
L=${L:-/tmp/room}
mkdir -p "$L"
part=${1:-default}
B=build/before
if [ ! -x "$B/before/harness" ]; then
    [ -n "${BEFORE:-}" ] && [ -f "$BEFORE" ] || { echo "room.sh: BEFORE names no tarball"; exit 2; }
    rm -rf "$B" && mkdir -p "$B" && tar -C "$B" -xzf "$BEFORE" &&
        (cd "$B/before" && make -j8 >"$L/before-build.log" 2>&1) ||
        { echo "room.sh: the before tree does not build"; tail -20 "$L/before-build.log"; exit 1; }
fi
[ -x ./harness ] || make -j8 >"$L/after-build.log" 2>&1 || { echo "room.sh: this tree does not build"; exit 1; }

# one WHICH TAG ARGS...: WHICH's ./harness (before or after) with ARGS, its
# stdout in L/TAG.out, stderr in L/TAG.err, JSON in L/TAG.json.
one() {
    which=$1 tag=$2
    shift 2
    if [ "$which" = before ]; then dir=$B/before; else dir=.; fi
    s=$(date +%s.%N)
    (cd "$dir" && ./harness --json="$L/$tag.json" "$@") >"$L/$tag.out" 2>"$L/$tag.err"
    rc=$?
    echo "$tag: exit $rc, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $s }") s wall"
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -o 'H[0-9][0-9]*' | head -1 | tr H h)
case $part in
default)
    { one before b1; one after a1; one before b2; one after a2
      python3 tests/gpu/room_checks.py "$L" b1 a1 b2 a2
      for p in "b1 b2" "a1 a2" "b1 a1" "b2 a2" "b1 a2" "b2 a1"; do
          set -- $p
          echo "scripts/compare $1 $2: $(scripts/compare "$L/$1.json" "$L/$2.json" | grep '^summary:')"
      done; } 2>&1 | tee "$L/room-default.txt"
    { echo "# on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
      cat "$L/room-default.txt"; } >"results/${gpu:-gpu}-room-default.txt" ;;
torch)
    P=$(pwd)/tests/gpu/program
    { one before tb1 --compare-loading -- python3 "$P/app_torch.py"
      one after ta1 --compare-loading -- python3 "$P/app_torch.py"
      python3 tests/gpu/room_checks.py "$L" tb1 ta1
      echo "scripts/compare tb1 ta1: $(scripts/compare "$L/tb1.json" "$L/ta1.json" | grep '^summary:')"; } 2>&1 |
        tee "$L/room-torch.txt"
    { echo "# on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
      cat "$L/room-torch.txt"; } >"results/${gpu:-gpu}-room-torch.txt"
    for t in tb1 ta1; do cp "$L/$t.out" "results/${gpu:-gpu}-room-torch-$t.txt"; done ;;
*)
    echo "room.sh: no part $part"; exit 2 ;;
esac
