#!/bin/sh
# abi.sh: every entry point in the driver table is resolved by base name at
# the headers' CUDA_VERSION, so the driver returns the newest ABI at or below
# that version. Check at compile time that the type the table declares for it
# (cuda.h's prototype) is that ABI's typedef in cudaTypedefs.h: a mismatch
# (cuCtxSynchronize gained a parameter in 13.0) would call the driver wrongly.
: "${CUDA_HOME:=/usr/local/cuda}"
: "${CC:=cc}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
python3 - "$CUDA_HOME/include" >"$T/abi.c" <<'PY' || exit 1
import re, sys
inc = sys.argv[1]
cuda_h = open(inc + "/cuda.h").read()
version = int(re.search(r"#define CUDA_VERSION (\d+)", cuda_h).group(1))
typedefs = open(inc + "/cudaTypedefs.h").read()
src = open("src/cuda/cudadrv.h").read()
block = src[src.index("#define DRV_FUNCS(X)"):src.index("struct drv_api")]
names = re.findall(r"X\((cu\w+)\)", block)
print("#include <cuda.h>\n#include <cudaTypedefs.h>")
for n in names:
    vs = [int(v) for v in re.findall(r"PFN_%s_v(\d+)\)" % n, typedefs)]
    vs = [v for v in vs if v <= version]
    if not vs:
        print('#error "no typedef for %s"' % n)
        continue
    print('_Static_assert(__builtin_types_compatible_p(PFN_%s_v%d, __typeof__(&%s)), '
          '"%s: cuda.h prototype differs from the ABI cuGetProcAddress returns at %d");'
          % (n, max(vs), n, n, version))
print("int abi_checked = %d;" % len(names))
PY
n=$(grep -c _Static_assert "$T/abi.c")
if $CC -std=c11 -D_GNU_SOURCE -isystem "$CUDA_HOME/include" -c -o "$T/abi.o" "$T/abi.c" 2>"$T/err"; then
    echo "PASSED driver table: $n entry points have the ABI cuGetProcAddress returns"
else
    sed 's/^/  /' "$T/err" | grep -E 'error' | head -5
    echo "FAILED driver table: an entry point's type differs from the ABI it resolves to"
fi
