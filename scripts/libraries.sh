#!/bin/sh
# libraries.sh: find the CUDA libraries on this machine and time loading
# their device code (section loading --module, EAGER against LAZY), then the
# two companion runs: a --source run on the fusion chain with -lineinfo, and
# a fatbin of PTX alone (its JIT with the cache disabled, empty and warm).
# Each run is kept as results/PREFIX-NAME.{txt,json,csv,cmd} (reference.sh
# --run; one per library, PREFIX-libraries-LIB), the libraries found as
# results/PREFIX-libraries.paths, and the figure of them all as
# results/PREFIX-libraries.png where matplotlib is. Run from the
# repository root after make, on a machine with a GPU.
# Usage: scripts/libraries.sh [--list] [PREFIX]    (PREFIX default h200)
#   --list      only print what was found, one "NAME PATH (WHERE)" a line
#   ROUNDS=N    children per mode (default 3); LIBS="name ..." the libraries
#               to look for (default below); TIME_BUDGET_S=S no library run
#               starts after S seconds (default 300); CUDA_HOME the toolkit
set -u
H=${HARNESS:-./harness}
ROUNDS=${ROUNDS:-3}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
LIBS=${LIBS:-"libcublasLt libcusparse libcurand libnccl libcudnn_engines_precompiled libtorch_cuda"}
list=0
if [ "${1:-}" = --list ]; then
    list=1
    shift
fi
P=${1:-h200}

# Where libraries are: the toolkit's lib64, the loader's cache (ldconfig -p:
# NCCL and cuDNN where the system has them), the nvidia-* wheels of this
# python3 (site-packages/nvidia/*/lib), and PyTorch's own lib folder.
torch_lib() {
    python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null
}
wheel_libs() {
    python3 -c 'import nvidia, os
for p in nvidia.__path__:
    for d in sorted(os.listdir(p)):
        if os.path.isdir(os.path.join(p, d, "lib")): print(os.path.join(p, d, "lib"))' 2>/dev/null
}

# find_lib NAME: "PATH WHERE" of the first libNAME.so* found, or nothing.
find_lib() {
    for d in "$CUDA_HOME/lib64" "$CUDA_HOME/lib"; do
        for f in "$d/$1".so*; do
            [ -f "$f" ] && { echo "$(readlink -f "$f") toolkit"; return; }
        done
    done
    f=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 ~ "^"n"\\.so" { print $NF; exit }')
    [ -n "$f" ] && [ -f "$f" ] && { echo "$(readlink -f "$f") ldconfig"; return; }
    for d in $(wheel_libs) $(torch_lib); do
        for f in "$d/$1".so*; do
            [ -f "$f" ] && { echo "$(readlink -f "$f") $(basename "$(dirname "$d")")"; return; }
        done
    done
}

found=""
paths=$(mktemp) || exit 1
for name in $LIBS; do
    hit=$(find_lib "$name")
    if [ -z "$hit" ]; then
        echo "$name not found" | tee -a "$paths"
        continue
    fi
    echo "$name ${hit%% *} (${hit#* })" | tee -a "$paths"
    found="$found --module=${hit%% *}"
done
if [ "$list" = 1 ]; then
    rm -f "$paths"
    exit 0
fi
mkdir -p results
mv "$paths" "results/$P-libraries.paths"
[ -n "$found" ] || { echo "libraries.sh: none of $LIBS found" >&2; exit 1; }
[ -x "$H" ] || { echo "libraries.sh: $H is not built (make)" >&2; exit 2; }

# The libraries, one run each (what finished is kept if a later one is
# cut short), both modes, ROUNDS children per mode; once TIME_BUDGET_S
# seconds (default 300) have gone, the rest are skipped and named.
start=$(date +%s)
runs=""
for m in $found; do
    lib=${m#--module=}
    name=$(basename "$lib" | sed 's/\.so.*//')
    if [ $(($(date +%s) - start)) -ge "${TIME_BUDGET_S:-300}" ]; then
        echo "libraries.sh: $name skipped: the ${TIME_BUDGET_S:-300} s budget is spent" |
            tee -a "results/$P-libraries.paths"
        continue
    fi
    sh scripts/reference.sh --run "$P-libraries-$name" --section=loading "$m" --compare-loading \
        --rounds="$ROUNDS"
    runs="$runs results/$P-libraries-$name.json"
done
# A real-world source through NVRTC and the driver's JIT.
sh scripts/reference.sh --run "$P-source-fusion" --section=jit --source=kernels/fusion.cu \
    --nvrtc-option=-lineinfo --rounds="$ROUNDS"
# A fatbin of PTX alone: the JIT with the cache disabled, empty and warm.
NVCC=$CUDA_HOME/bin/nvcc
[ -x "$NVCC" ] || NVCC=$(command -v nvcc)
if [ -n "$NVCC" ]; then
    d=$(mktemp -d)
    "$NVCC" -fatbin -gencode arch=compute_90,code=compute_90 -o "$d/fusion-ptx.fatbin" kernels/fusion.cu &&
        sh scripts/reference.sh --run "$P-ptx-only" --section=loading --module="$d/fusion-ptx.fatbin" \
            --rounds="$ROUNDS"
    rm -rf "$d"
else
    echo "libraries.sh: no nvcc: the PTX-only fatbin is not built" >&2
fi
if python3 -c "import matplotlib" 2>/dev/null; then
    d=$(mktemp -d)
    # shellcheck disable=SC2086
    python3 scripts/plot $runs --out "$d" | grep modules
    [ -f "$d/modules.png" ] && mv "$d/modules.png" "results/$P-libraries.png"
    rm -rf "$d"
fi
