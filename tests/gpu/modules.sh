#!/bin/sh
# modules.sh: the GPU tests of --module (tests/gpu.sh runs it): every kind of
# module nvcc builds here (a cubin, PTX, a fatbin of three arches, a fatbin
# of PTX alone, a library without sm_90 code, an executable, a relocatable
# one) loaded in both modes; cuFuncIsLoaded as each mode implies; the fatbins
# without code for this GPU counted as refused, not failed. PASSED/FAILED
# lines; SKIPPED where nvcc is missing.
: "${HARNESS:=./harness}"
: "${CUDA_HOME:=/usr/local/cuda}"
. tests/lib.sh
M=$(mktemp -d) || exit 1
trap 'rm -rf "$M"' EXIT
NVCC=$CUDA_HOME/bin/nvcc
[ -x "$NVCC" ] || NVCC=$(command -v nvcc)
if [ -z "$NVCC" ]; then
    echo "SKIPPED --module on the GPU: no nvcc"
    exit 0
fi
cat >"$M/k.cu" <<'CU'
extern "C" __global__ void add(float *a, const float *b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += b[i]; }
extern "C" __global__ void mul(float *a, const float *b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= b[i]; }
CU
cat >"$M/main.cu" <<'CU'
#include <cstdio>
extern "C" __global__ void k1(float *a) { a[threadIdx.x] += 1; }
int main() { std::printf("%p\n", (void *)k1); return 0; }
CU
"$NVCC" -cubin -arch=sm_90 -o "$M/k.cubin" "$M/k.cu" &&
"$NVCC" -ptx -arch=sm_90 -o "$M/k.ptx" "$M/k.cu" &&
"$NVCC" -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] \
    -o "$M/k3.fatbin" "$M/k.cu" &&
"$NVCC" -fatbin -gencode arch=compute_90,code=compute_90 -o "$M/kptx.fatbin" "$M/k.cu" &&
"$NVCC" -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_100,code=sm_100 -o "$M/libnosm90.so" "$M/k.cu" &&
"$NVCC" -gencode arch=compute_90,code=sm_90 -o "$M/exe" "$M/main.cu" &&
"$NVCC" -rdc=true -gencode arch=compute_90,code=sm_90 -o "$M/rdc_exe" "$M/main.cu"
check "nvcc builds the --module test modules" test -s "$M/rdc_exe"
MODS="k.cubin k.ptx k3.fatbin kptx.fatbin libnosm90.so exe rdc_exe"
args=""
for m in $MODS; do args="$args --module=$M/$m"; done
# shellcheck disable=SC2086
run_harness "$M/c.out" "$M/c.err" --section=loading $args --compare-loading --rounds=3 --json="$M/c.json"
expect_exit "--module, every kind, both modes: exit 0 (no code for this GPU is no error)" 0
check "--module: every check passed (the reader's no-code count is the driver's refusals)" \
    python3 tests/check_json.py "$M/c.json" --expect-checks-pass
i=0
for m in $MODS; do
    check "--module $m: cuFuncIsLoaded as the modes imply, every function loaded at the end" \
        python3 tests/gpu_checks.py modules "$M/c.json" "$i" "$m"
    i=$((i + 1))
done
expect_grep "--module: the table says where the cost went" "where the cost went: EAGER pays" "$M/c.out"
[ -n "${GPU_KEEP:-}" ] && mkdir -p "$GPU_KEEP" && cp "$M/c.out" "$M/c.err" "$M/c.json" "$GPU_KEEP"/ 2>/dev/null
exit 0
