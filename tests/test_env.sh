#!/bin/sh
# test_env.sh: the test scripts leave the environment as they found it. With
# TMPDIR unset, empty and a path, a shell that sources tests/lib.sh, sets
# TMPDIR for one step (env_set) and restores it (env_restore) sees the
# environment it started with, TMPDIR unset where it was unset or empty
# (an empty one is unset by lib.sh), and nvcc's host compile works after it
# (an exported empty TMPDIR broke it: issue 24). And no test script sets
# TMPDIR but through env_set and env_restore (a restore by assignment,
# TMPDIR=$saved, leaves an unset TMPDIR exported and empty).
: "${CUDA_HOME:=/usr/local/cuda}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/tmp" "$T/step"
NVCC=$CUDA_HOME/bin/nvcc
[ -x "$NVCC" ] || NVCC=
printf 'extern "C" __global__ void k(float *a) { a[0] = 1; }\n' >"$T/k.cu"

# The steps one state runs: snapshot, one step with TMPDIR of its own, the
# restore, a snapshot; then what TMPDIR reads, and an nvcc host compile.
cat >"$T/steps.sh" <<'SH'
. tests/lib.sh
env_snapshot "$W/before"
env_set TMPDIR "$W/step"
sh -c 'echo "$TMPDIR"' >"$W/inner"
env_restore TMPDIR
env_snapshot "$W/after"
echo "${TMPDIR-unset}" >"$W/tmpdir"
sh -c 'echo "${TMPDIR-unset}"' >"$W/child"
if [ -n "$NVCC" ]; then
    (cd "$W" && "$NVCC" -shared -Xcompiler -fPIC -o "$W/k.so" "$W/k.cu") >"$W/nvcc.log" 2>&1
    echo $? >"$W/nvcc.rc"
fi
SH

for state in unset empty path; do
    W=$T/$state
    mkdir "$W" "$W/step"
    cp "$T/k.cu" "$W/"
    case $state in
        unset) want=unset; env -u TMPDIR W="$W" NVCC="$NVCC" sh "$T/steps.sh" ;;
        empty) want=unset; env TMPDIR= W="$W" NVCC="$NVCC" sh "$T/steps.sh" ;;
        path) want=$T/tmp; env TMPDIR="$T/tmp" W="$W" NVCC="$NVCC" sh "$T/steps.sh" ;;
    esac
    check "TMPDIR $state: the step saw its own TMPDIR" grep -qx "$W/step" "$W/inner"
    if cmp -s "$W/before" "$W/after"; then
        echo "PASSED TMPDIR $state: the environment after the step is the one before it"
    else
        echo "FAILED TMPDIR $state: the step changed the environment: $(diff "$W/before" "$W/after" | grep '^[<>]' | tr '\n' ' ')"
    fi
    check "TMPDIR $state: TMPDIR reads $want after the step, in the script and in a child" \
        sh -c "grep -qx '$want' '$W/tmpdir' && grep -qx '$want' '$W/child'"
    if [ -n "$NVCC" ]; then
        check "TMPDIR $state: nvcc's host compile works after the step" \
            sh -c "test \"\$(cat '$W/nvcc.rc')\" = 0 && test -s '$W/k.so'"
    fi
done
[ -n "$NVCC" ] || echo "SKIPPED TMPDIR: nvcc's host compile after the step: no nvcc"

# Every assignment to TMPDIR in the test scripts goes through env_set and
# env_restore (lib.sh's own unset of an empty one aside).
grep -n 'TMPDIR=\|export TMPDIR\|unset TMPDIR' tests/*.sh tests/gpu/*.sh |
    grep -v '^tests/lib.sh:' | grep -v '^tests/test_env.sh:' |
    grep -v 'env_set TMPDIR\|env_restore TMPDIR' >"$T/assign"
if [ -s "$T/assign" ]; then
    echo "FAILED TMPDIR is set only through env_set and env_restore: $(tr '\n' ' ' <"$T/assign")"
else
    echo "PASSED TMPDIR is set only through env_set and env_restore in tests/ and tests/gpu/"
fi
