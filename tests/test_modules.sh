#!/bin/sh
# test_modules.sh: the --module reader on modules the toolkit's nvcc builds
# here (a cubin, PTX, a fatbin of three arches, a compressed fatbin, a shared
# library, an executable, a relocatable one) and on the toolkit's own
# libraries, checked against what was built, readelf -SW and cuobjdump; the
# bad files of issue 13, each one line naming the path, exit 2. No driver:
# the GPU part says it was skipped, exit 3. SKIPPED lines where nvcc or
# cuobjdump is missing.
: "${HARNESS:=./harness}"
: "${CUDA_HOME:=/usr/local/cuda}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
NVCC=$CUDA_HOME/bin/nvcc
CUOBJDUMP=$(find_cuobjdump)

# inv NAME FILE ARGS...: the harness's inventory of FILE as $T/NAME.json;
# then check_inventory.py with ARGS.
inv() {
    name=$1 file=$2
    shift 2
    run_harness "$T/$name.out" "$T/$name.err" --section=loading --module="$file" --json="$T/$name.json"
    expect_exit "--module $name: the inventory, then the GPU part skipped" 3
    check "--module $name: inventory as built ($*)" python3 tests/check_inventory.py "$T/$name.json" 0 "$@"
    # cuobjdump lists the ELF and PTX inside fatbins (a PTX file holds none).
    if [ -n "$CUOBJDUMP" ] && [ "$name" != ptx ]; then
        "$CUOBJDUMP" --list-elf --list-ptx "$file" >"$T/$name.cuobjdump" 2>/dev/null
        check "--module $name: the entries cuobjdump lists" \
            python3 tests/check_inventory.py "$T/$name.json" 0 --cuobjdump "$T/$name.cuobjdump"
    fi
}

if [ -x "$NVCC" ]; then
    cat >"$T/k.cu" <<'CU'
extern "C" __global__ void add(float *a, const float *b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += b[i]; }
extern "C" __global__ void mul(float *a, const float *b, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= b[i]; }
CU
    cat >"$T/main.cu" <<'CU'
#include <cstdio>
extern "C" __global__ void k1(float *a) { a[threadIdx.x] += 1; }
int main() { std::printf("%p\n", (void *)k1); return 0; }
CU
    G3="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
    "$NVCC" -cubin -arch=sm_90 -o "$T/k.cubin" "$T/k.cu" &&
    "$NVCC" -ptx -arch=sm_90 -o "$T/k.ptx" "$T/k.cu" &&
    # shellcheck disable=SC2086
    "$NVCC" -fatbin $G3 -o "$T/k3.fatbin" "$T/k.cu" &&
    "$NVCC" -fatbin -gencode arch=compute_75,code=[sm_75,compute_75] -Xfatbin -compress-all \
        -o "$T/kz.fatbin" "$T/k.cu" &&
    "$NVCC" -fatbin -gencode arch=compute_90,code=compute_90 -o "$T/kptx.fatbin" "$T/k.cu" &&
    "$NVCC" -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 \
        -gencode arch=compute_100,code=sm_100 -o "$T/libk.so" "$T/k.cu" &&
    "$NVCC" -gencode arch=compute_90,code=sm_90 -o "$T/exe" "$T/main.cu" &&
    "$NVCC" -rdc=true -gencode arch=compute_90,code=sm_90 -o "$T/rdc_exe" "$T/main.cu"
    check "nvcc builds the test modules" test -s "$T/rdc_exe"

    inv cubin "$T/k.cubin" --expect ELF:sm_90=1 --no-code 0
    expect_grep "--module cubin: named as a cubin for sm_90" "cubin for sm_90" "$T/cubin.out"
    inv ptx "$T/k.ptx" --expect PTX:compute_90=1 --no-code 0
    expect_grep "--module ptx: its .version and .target" "PTX [0-9]*\.[0-9]* for sm_90" "$T/ptx.out"
    inv fatbin3 "$T/k3.fatbin" --expect ELF:sm_80=1,ELF:sm_90=1,PTX:compute_90=1 --fatbins 1 --no-code 0
    inv compressed "$T/kz.fatbin" --expect ELF:sm_75=1,PTX:compute_75=1 --compressed 2 --no-code 0
    inv ptxonly "$T/kptx.fatbin" --expect PTX:compute_90=1 --no-code 0
    expect_grep "--module ptxonly: the fatbin holds only PTX for sm_90" "PTX only (JIT)" "$T/ptxonly.out"
    readelf -SW "$T/libk.so" >"$T/libk.readelf"
    # A program or library also carries the fatbin of the CUDA runtime nvcc
    # links (built for the same arches): every fatbin holds what was asked.
    inv shared "$T/libk.so" --every-fatbin ELF:sm_80,ELF:sm_100 --readelf "$T/libk.readelf"
    check "--module shared: every fatbin without sm_90 code is counted" python3 -c "
import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
r = hj.load('$T/shared.json'); f = r.conclusion('loading', 'module.0')['fields']
sys.exit(0 if f['no_code'] == f['fatbins'] >= 1 else 1)"
    readelf -SW "$T/exe" >"$T/exe.readelf"
    inv exe "$T/exe" --every-fatbin ELF:sm_90 --no-code 0 --readelf "$T/exe.readelf"
    readelf -SW "$T/rdc_exe" >"$T/rdc.readelf"
    inv rdc "$T/rdc_exe" --relfatbins 1 --readelf "$T/rdc.readelf"
    # The report is fitted to 100 columns: read it with its lines joined.
    tr '\n' ' ' <"$T/rdc.out" | tr -s ' ' >"$T/rdc.flat"
    expect_grep "--module rdc: __nv_relfatbin listed, not loaded, with the reason" \
        "__nv_relfatbin: 1 fatbins.*not loaded (relocatable device code needs device linking" "$T/rdc.flat"
    expect_grep "--module: the GPU part's skip is named" \
        "loading: skipped: the GPU part of --module" "$T/rdc.err"
    check "--module without a driver: the JSON says no device was opened, and names none" sh -c \
        "python3 tests/check_json.py '$T/rdc.json' --expect-env device_opened='\"none\"' &&
         ! grep -q '\"uuid\"' '$T/rdc.json'"
    # The stand-in driver (tests/fakecuda, a GPU of sm_90 that refuses a
    # fatbin with no code for it): the children load every image in both
    # modes; the reader's no-code count is the driver's refusals.
    if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
        HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/fk.out" "$T/fk.err" --section=loading \
            --module="$T/libk.so" --module="$T/k3.fatbin" --compare-loading --rounds=2 --json="$T/fk.json"
        expect_exit "--module on the stand-in driver, both modes: exit 0" 0
        check "--module on the stand-in driver: checks pass, each mode's figures in the JSON" sh -c \
            "python3 tests/check_json.py '$T/fk.json' --expect-checks-pass &&
             grep -q '\"eager.module.0.mod.refused_nobin\"' '$T/fk.json' &&
             grep -q '\"lazy.module.1.lib.functions\"' '$T/fk.json'"
        expect_grep "--module on the stand-in driver: the reader's prediction is the driver's refusal (a passed check)" \
            "the images the reader finds no code for sm_90 in are those the driver refused" "$T/fk.json"
        expect_grep "--module on the stand-in driver: where the cost went, in words" \
            "where the cost went: EAGER pays .* ms at load" "$T/fk.out"
        expect_grep "--module on the stand-in driver: eager against lazy" "^    mod  *load  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[-+][0-9.]*: " "$T/fk.out"
        check "--module on the stand-in driver: the parent's JSON names the children's device, bus id and UUID" \
            python3 tests/check_json.py "$T/fk.json" --expect-env gpu='"Fake GPU"' --expect-env device=0 \
                --expect-env pci_bus_id='"00000000:19:00.0"' \
                --expect-env uuid='"GPU-fafafafa-fafa-fafa-fafa-fafafafafa00"' \
                --expect-env device_opened='"child processes"'
        # The verdict wraps in its column of the table; whole in the JSON.
        check "--module --compare-loading --rounds=2: a difference is out of reach at 2 a side, not unclear" \
            sh -c "grep -q 'out of reach at 2 a side' '$T/fk.out' &&
                   grep -q \"out of reach at 2 a side: the U test's smallest p is 0.333\" '$T/fk.json'"
        # No --rounds: as many children a mode as the U test needs to reach
        # p < 0.01 (5: 2/252), so no verdict is out of reach.
        HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/f5.out" "$T/f5.err" --section=loading \
            --module="$T/k3.fatbin" --compare-loading --json="$T/f5.json"
        expect_exit "--module --compare-loading, no --rounds, on the stand-in driver: exit 0" 0
        check "--compare-loading, no --rounds: 5 children a mode, every verdict on 5 a side, none out of reach" \
            python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["derived"] if x["section"] == "loading" and x["key"].startswith("compare.")]
assert d["environment"]["compare_loading_rounds"] == 5
assert v and all(x["fields"]["eager_n"] == 5 and x["fields"]["lazy_n"] == 5 for x in v), v
assert not any(x["text"].startswith("out of reach") for x in v)' "$T/f5.json"
        expect_grep "--module on the stand-in driver: the slowest images, with their entries" \
            "^ *1\.  image 0  .*ELF sm_[0-9]" "$T/fk.out"
        # Images the driver will not take: a corrupt one (the stand-in's
        # FAKE_CUDA_REFUSE_SIZE: CUDA_ERROR_INVALID_IMAGE) is counted and
        # named in its row, the other images measured, exit 1; one that kills
        # the child loading it (FAKE_CUDA_CRASH_SIZE: abort) is named, left
        # out, and a fresh child measures the rest, exit 1. By the bytes of
        # the executable's two fatbins (its own and the runtime's), from the
        # inventory above.
        sizes=$(python3 -c 'import json, sys
d = {x["key"]: x["value"] for x in json.load(open(sys.argv[1]))["derived"]}
print(int(d["module.0.fatbin.0"]), int(d["module.0.fatbin.1"]))' "$T/exe.json" 2>/dev/null)
        b0=${sizes% *}
        b1=${sizes#* }
        if [ -n "$sizes" ] && [ "$b0" != "$b1" ]; then
            FAKE_CUDA_REFUSE_SIZE=$b0 HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/rf.out" "$T/rf.err" \
                --section=loading --module="$T/exe" --rounds=2 --json="$T/rf.json"
            expect_exit "--module, a corrupt image (CUDA_ERROR_INVALID_IMAGE): the run goes on, exit 1" 1
            expect_grep "--module, a corrupt image: one line names the module, the image and the error" \
                "^harness: loading: --module=$T/exe: 1 image refused by the driver: image 0: CUDA_ERROR_INVALID_IMAGE (200); the other images measured\$" "$T/rf.err"
            check "--module, a corrupt image: no error line but that one (no failed call)" \
                test "$(grep -c '^harness: error' "$T/rf.err")" -eq 0
            expect_grep "--module, a corrupt image: counted in its row" \
                "refused: another error  *1\$" "$T/rf.out"
            expect_grep "--module, a corrupt image: named under its row" \
                "^      image 0: CUDA_ERROR_INVALID_IMAGE (200)\$" "$T/rf.out"
            check "--module, a corrupt image: the other image measured in both children, both APIs" \
                python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = {x["key"]: x for x in d["measurements"]}
assert m["module.0.mod.loaded"]["stats"]["median"] == 1 and m["module.0.mod.loaded"]["stats"]["n"] == 2
assert m["module.0.lib.loaded"]["stats"]["median"] == 1 and m["module.0.mod.refused_other"]["stats"]["median"] == 1
assert "module.0.mod.fb.1.load" in m and "module.0.mod.fb.0.load" not in m
assert any(not c["passed"] and "every image loaded" in c["what"] for c in d["checks"])' "$T/rf.json"
            FAKE_CUDA_CRASH_SIZE=$b1 HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/cr.out" "$T/cr.err" \
                --section=loading --module="$T/exe" --compare-loading --rounds=2 --json="$T/cr.json"
            expect_exit "--module, an image that kills the child loading it: the run goes on, exit 1" 1
            expect_grep "--module, a child killed in the driver: the image it was loading is named" \
                "^harness: loading: --module=$T/exe: image 1: the child --child=results died of signal 6 (Aborted) while cuModuleLoadDataEx loaded it; measured again without it, in a fresh child\$" "$T/cr.err"
            check "--module, a child killed in the driver: one child died, once (the image left out after)" \
                test "$(grep -c 'died of signal' "$T/cr.err")" -eq 2
            expect_grep "--module, a child killed in the driver: its row counts the image left out" \
                "left out: killed a child loading it  *1  *1\$" "$T/cr.out"
            check "--module, a child killed in the driver: every later child measured the rest, both modes" \
                python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = {x["key"]: x for x in d["measurements"]}
for mode in ("eager", "lazy"):
    assert m[mode + ".module.0.mod.loaded"]["stats"]["n"] == 2, mode
    assert m[mode + ".module.0.mod.loaded"]["stats"]["median"] == 1, mode
    assert m[mode + ".module.0.lib.skipped"]["stats"]["median"] == 1, mode
s = [x for x in d["derived"] if x["key"] == "module.0.skipped"]
assert s and s[0]["value"] == 1 and s[0]["text"].startswith("image 1: "), s
assert sum(1 for c in d["checks"] if not c["passed"]) == 1, [c for c in d["checks"] if not c["passed"]]' "$T/cr.json"
        else
            echo "FAILED --module, images the driver will not take: the executable's two fatbin sizes ($sizes)"
        fi
        HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/fp.out" "$T/fp.err" --section=loading \
            --module="$T/kptx.fatbin" --rounds=1 --json="$T/fp.json"
        expect_exit "--module of PTX alone on the stand-in driver: exit 0" 0
        expect_grep "--module of PTX alone: the JIT with the cache disabled, empty and warm" \
            "EAGER, the same cache, warm" "$T/fp.out"
        check "--module of PTX alone: the empty and warm cache children in the JSON" sh -c \
            "grep -q '\"cache.empty.module.0.mod.jit\"' '$T/fp.json' && grep -q '\"cache.warm.module.0.mod.jit\"' '$T/fp.json'"
        # PTX newer than the driver (the stand-in takes PTX up to 9.0): counted
        # and named in one line, no error.
        printf '//\n.version 9.9\n.target sm_90\n.address_size 64\n' >"$T/new.ptx"
        HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/np.out" "$T/np.err" --section=loading \
            --module="$T/new.ptx" --rounds=1
        expect_exit "--module of PTX newer than the driver: counted, exit 0" 0
        expect_grep "--module of PTX newer than the driver: one line with the path" \
            "^harness: loading: --module=$T/new.ptx: 1 image refused as PTX newer than this driver (CUDA 13.0) takes (CUDA_ERROR_UNSUPPORTED_PTX_VERSION): counted, not an error$" "$T/np.err"
        check "--module of PTX newer than the driver: that one line only" test "$(wc -l <"$T/np.err")" -eq 1
        expect_grep "--module of PTX newer than the driver: the table counts it" \
            "refused: PTX newer than the driver  *1$" "$T/np.out"
    else
        echo "SKIPPED --module on the stand-in driver: no FAKECUDA"
    fi
    run_harness "$T/all.out" "$T/all.err" --section=loading --module="$T/k.cubin" --module="$T/libk.so" \
        --module="$T/rdc_exe"
    expect_exit "--module three times: each listed" 3
    check "--module three times: modules 0, 1 and 2 in the table" \
        sh -c "grep -q 'module 0: $T/k.cubin' '$T/all.out' && grep -q 'module 2: $T/rdc_exe' '$T/all.out'"

    # Damaged modules: one line with the path, the offset and what is wrong.
    python3 - "$T" <<'PY'
import struct, sys
t = sys.argv[1]
d = open(t + "/k3.fatbin", "rb").read()
open(t + "/cut.fatbin", "wb").write(d[:len(d) // 2])
e = bytearray(d); struct.pack_into("<Q", e, 16 + 8, 1 << 30); open(t + "/entry.fatbin", "wb").write(e)
s = bytearray(open(t + "/libk.so", "rb").read())
struct.pack_into("<Q", s, 0x28, len(s) - 64); open(t + "/shdr.so", "wb").write(s)
PY
    for c in "cut.fatbin|offset 0 (0x0): a fatbin (version 1, header 16 bytes, size [0-9]*) runs past the end of the file" \
             "entry.fatbin|offset 16 (0x10): fatbin entry of [0-9]* bytes (header 64, payload 1073741824) runs past the end of its fatbin" \
             "shdr.so|offset [0-9]* (0x[0-9a-f]*): the section headers ([0-9]* headers of 64 bytes) run past the end of the file"; do
        f=${c%%|*} text=${c#*|}
        run_harness "$T/bad.out" "$T/bad.err" --section=loading --module="$T/$f" --json="$T/bad.json"
        expect_exit "--module=$f: exit 2" 2
        expect_grep "--module=$f: one line with the path and the offset" "^harness: error: --module: $T/$f: $text" "$T/bad.err"
        check "--module=$f: one line only" test "$(wc -l <"$T/bad.err")" -eq 1
        check "--module=$f: no table printed" test ! -s "$T/bad.out"
        check "--module=$f: the JSON marks the run incomplete" python3 tests/check_json.py "$T/bad.json" --expect-incomplete --expect-skipped loading
    done
else
    echo "SKIPPED the nvcc-built modules: no $NVCC"
fi

# Bad files that need no nvcc.
: >"$T/empty"
printf 'just text\n' >"$T/text"
cp "$(command -v readelf)" "$T/nocuda"
truncate -s 5G "$T/huge.fatbin"
printf '\120\355\125\272\001\000\020\000' | dd of="$T/huge.fatbin" conv=notrunc 2>/dev/null
for c in "/nonexistent/m.cubin|cannot open: No such file or directory" "$T|a directory, not a module file" \
         "$T/empty|an empty file" "$T/text|not a cubin, PTX, fatbin or host ELF" \
         "$T/nocuda|a host ELF (e_machine [0-9]*) with no .nv_fatbin section" \
         "$T/huge.fatbin|a fatbin of 5368709120 bytes, over the 4294967296 the harness loads"; do
    f=${c%%|*} text=${c#*|}
    run_harness "$T/bad.out" "$T/bad.err" --section=loading --module="$f"
    expect_exit "--module=$(basename "$f"): exit 2" 2
    # A path that is not there or is a directory is refused as the command
    # line is read (--module=PATH: ...); a file's contents when it is read.
    expect_grep "--module=$(basename "$f"): the path and the reason" \
        "^harness: \(error: --module: $f\|--module=$f\): $text" "$T/bad.err"
done
rm -f "$T/huge.fatbin"
# A --module that is not there stops the run before its first measurement
# (it ran every other section first, 20 s on a GPU, before).
t0=$(date +%s%N)
run_harness "$T/first.out" "$T/first.err" --module=/nonexistent.cubin
t1=$(date +%s%N)
expect_exit "--module=/nonexistent.cubin with every section: exit 2" 2
check "--module=/nonexistent.cubin: refused in under 1 s ($(( (t1 - t0) / 1000000 )) ms), nothing on stdout" \
    sh -c "test $(( (t1 - t0) / 1000000 )) -lt 1000 && ! test -s '$T/first.out'"

# The toolkit's own libraries: .nv_fatbin's size against readelf -S, every
# fatbin boundary, and (libcurand, libnccl) the entries cuobjdump lists.
for lib in libcublasLt.so.13 libcurand.so.10 libnccl.so.2 libcusparse.so.12; do
    f=$CUDA_HOME/lib64/$lib
    [ -e "$f" ] || { echo "SKIPPED $lib: not in $CUDA_HOME/lib64"; continue; }
    readelf -SW "$f" >"$T/$lib.readelf"
    run_harness "$T/$lib.out" "$T/$lib.err" --section=loading --module="$f" --json="$T/$lib.json"
    expect_exit "--module $lib: read, GPU part skipped" 3
    check "--module $lib: .nv_fatbin as readelf -S says, the fatbins tile it" \
        python3 tests/check_inventory.py "$T/$lib.json" 0 --readelf "$T/$lib.readelf"
    case $lib in libcurand*|libnccl*)
        if [ -n "$CUOBJDUMP" ]; then
            "$CUOBJDUMP" --list-elf --list-ptx "$f" >"$T/$lib.cuobjdump" 2>/dev/null
            check "--module $lib: the entries cuobjdump lists" \
                python3 tests/check_inventory.py "$T/$lib.json" 0 --cuobjdump "$T/$lib.cuobjdump"
        fi ;;
    esac
done
grep -q . "$T/libnccl.so.2.out" 2>/dev/null &&
    expect_grep "--module libnccl: __nv_relfatbin listed, not loaded" "__nv_relfatbin: [0-9]* fatbins" "$T/libnccl.so.2.out"
# scripts/libraries.sh finds the libraries it would time (no run: --list).
sh scripts/libraries.sh --list >"$T/libs.txt" 2>&1
if [ -e "$CUDA_HOME/lib64/libcublasLt.so.13" ]; then
    expect_grep "scripts/libraries.sh --list finds libcublasLt in the toolkit" "^libcublasLt /.*libcublasLt.so.* (toolkit)" "$T/libs.txt"
fi
expect_grep "scripts/libraries.sh --list names what it did not find, or finds libtorch_cuda" "^libtorch_cuda " "$T/libs.txt"
[ -n "$CUOBJDUMP" ] || echo "SKIPPED the comparisons with cuobjdump: none found (pip's nvidia-cuda-cuobjdump has one)"
