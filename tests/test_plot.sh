#!/bin/sh
# test_plot.sh: scripts/plot on the stored H200 results: every figure written
# as a real PNG with one line each, a figure without its data skipped with the
# reason, bad input exit 2. The bad-input checks run everywhere (the files are
# read before matplotlib is imported); the figure checks need matplotlib and
# are skipped with a message without it. Where the stand-in driver is
# (FAKECUDA, HARNESS): the figures of fresh fusion, --module and visible
# runs on it. The -- CMD figure from the stored H200 PyTorch run and, with
# HARNESS, from a stand-in program's run (tests/standin_program.py, no GPU).
# Run from the repository root.
# Ends with "plot: N passed, N failed".
# shellcheck source=tests/lib.sh
. tests/lib.sh
C=tests/compare_cases
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# The first python3 with matplotlib: pip's, or the distribution's package.
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import matplotlib' >/dev/null 2>&1; then
        PY=$p
        break
    fi
done

# run_plot OUT ERR ARGS...: run scripts/plot, set $rc.
run_plot() {
    out=$1
    err=$2
    shift 2
    "${PY:-python3}" scripts/plot "$@" >"$out" 2>"$err"
    # shellcheck disable=SC2034  # read by expect_exit in tests/lib.sh
    rc=$?
}

# is_png FILE: FILE starts with the PNG signature and holds more than 10 kB.
is_png() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
        [ "$(wc -c <"$1")" -gt 10000 ]
}

{
run_plot "$T/u.out" "$T/u.err"
expect_exit "plot without arguments: usage error" 2
check "the usage error is one line" test "$(wc -l <"$T/u.err")" -eq 1
run_plot "$T/u.out" "$T/u.err" results/h200.json
expect_exit "plot without --out: usage error" 2
expect_grep "plot without --out says so" "needs --out DIR" "$T/u.err"
run_plot "$T/u.out" "$T/u.err" results/h200.json --out
expect_exit "plot --out without a directory: usage error" 2
run_plot "$T/u.out" "$T/u.err" results/h200.json --out "$T/x" --frobnicate
expect_exit "plot with an unknown option: usage error" 2
expect_grep "the unknown option is named" "unknown option --frobnicate" "$T/u.err"
run_plot "$T/m.out" "$T/m.err" "$T/missing.json" --out "$T/x"
expect_exit "plot on a missing file" 2
expect_grep "the missing file is named" "missing\.json: No such file" "$T/m.err"
run_plot "$T/m.out" "$T/m.err" results/h200.json "$C/malformed.json" --out "$T/x"
expect_exit "plot on malformed JSON" 2
expect_grep "the malformed file is named" "malformed\.json: not valid JSON" "$T/m.err"
check "the error is one line" test "$(wc -l <"$T/m.err")" -eq 1
run_plot "$T/m.out" "$T/m.err" "$C/schema2.json" --out "$T/x"
expect_exit "plot on schema_version 2" 2
check "no figure directory after a bad file" test ! -e "$T/x"
run_plot "$T/h.out" "$T/h.err" --help
expect_exit "plot --help" 0
expect_grep "--help names every figure" "roofline.png" "$T/h.out"

if [ -z "$PY" ]; then
    echo "SKIPPED plot figures: matplotlib is not installed (python3 -m pip install matplotlib)"
else
    run_plot "$T/p.out" "$T/p.err" results/h200.json results/h200-eager.json --out "$T/figs"
    expect_exit "plot on the H200 default run and the EAGER loading run" 0
    for f in waterfall crossover loading-k; do
        check "$f.png is a PNG of more than 10 kB" is_png "$T/figs/$f.png"
        expect_grep "plot says it wrote $f.png" "^wrote $T/figs/$f.png: " "$T/p.out"
    done
    # The fusion figures read the conclusions the harness stores (derived
    # entries); a file written before it stored them gets none of them.
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("derived", None); json.dump(d, open(sys.argv[2], "w"))' \
        results/h200.json "$T/old.json"
    run_plot "$T/o.out" "$T/o.err" "$T/old.json" --out "$T/old"
    for f in fusion-n fusion-width roofline; do
        expect_grep "a file without derived entries: $f.png is skipped with the reason" \
            "^skipped $f.png: .*a file from before derived entries has" "$T/o.out"
    done
    check "one line per figure, nothing on stderr" \
        sh -c "test \"\$(wc -l <'$T/p.out')\" -eq 10 && test ! -s '$T/p.err'"
    expect_grep "a file without section program: program.png is skipped, saying so" \
        "^skipped program.png: no section program in the files" "$T/p.out"
    expect_grep "the H200 run's section visible: visible.png of its one count" \
        "^wrote $T/figs/visible.png: 1 count (N = 1) from results/h200.json$" "$T/p.out"
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for k in ("measurements", "derived", "checks"):
    d[k] = [m for m in d.get(k, []) if m.get("section") != "visible"]
json.dump(d, open(sys.argv[2], "w"))' results/h200.json "$T/novis.json"
    run_plot "$T/nv.out" "$T/nv.err" "$T/novis.json" --out "$T/novis"
    expect_grep "a file without section visible: visible.png is skipped, saying so" \
        "^skipped visible.png: no visible section in the files" "$T/nv.out"
    expect_grep "the loading figure takes EAGER and LAZY from the two files" \
        "loading-k.png: EAGER from results/h200-eager.json, LAZY from results/h200.json$" "$T/p.out"

    # A fresh run of section fusion on the stand-in driver (made-up times):
    # the fusion figures and the roofline from what it stored.
    if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ] && [ -x "${HARNESS:-}" ]; then
        HARNESS_LIBCUDA="$FAKECUDA" "$HARNESS" --section=fusion --quick --json="$T/fake.json" \
            >"$T/fake.out" 2>&1
        run_plot "$T/f.out" "$T/f.err" "$T/fake.json" --out "$T/fake"
        expect_exit "plot on a fresh fusion run (stand-in driver)" 0
        for f in fusion-n fusion-width roofline; do
            check "fresh run: $f.png is a PNG of more than 10 kB" is_png "$T/fake/$f.png"
        done
        expect_grep "fresh run: the roofline has every fusion kernel with a flop model" \
            "roofline.png: 14 kernels" "$T/f.out"
        # --module in both modes: the modules figure from what the children stored.
        HARNESS_LIBCUDA="$FAKECUDA" "$HARNESS" --section=loading --module=tests/fuzz/modules/sm90.fatbin \
            --module=tests/fuzz/modules/ptx-only-zstd.fatbin --compare-loading --rounds=2 \
            --json="$T/mod.json" >"$T/mod.out" 2>&1
        run_plot "$T/m2.out" "$T/m2.err" "$T/mod.json" --out "$T/mod"
        expect_exit "plot on a --module --compare-loading run (stand-in driver)" 0
        expect_grep "the modules figure: both modules" "^wrote $T/mod/modules.png: 2 modules" "$T/m2.out"
        check "modules.png is a PNG of more than 10 kB" is_png "$T/mod/modules.png"
        # Section visible on 8 stand-in devices at 3 ms each: the figure of
        # its four counts, and the one of a single device.
        HARNESS_LIBCUDA="$FAKECUDA" FAKE_CUDA_DEVICES=8 FAKE_CUDA_INIT_US=3000 "$HARNESS" \
            --section=visible --json="$T/vis.json" >"$T/vis.out" 2>&1
        run_plot "$T/v.out" "$T/v.err" "$T/vis.json" --out "$T/vis"
        expect_exit "plot on a fresh visible run, 8 devices (stand-in driver)" 0
        expect_grep "the visible figure: four counts of 8" "^wrote $T/vis/visible.png: 4 counts (N = 8)" "$T/v.out"
        check "visible.png is a PNG of more than 10 kB" is_png "$T/vis/visible.png"
        HARNESS_LIBCUDA="$FAKECUDA" "$HARNESS" --section=visible --rounds=1 --json="$T/vis1.json" \
            >"$T/vis1.out" 2>&1
        run_plot "$T/v1.out" "$T/v1.err" "$T/vis1.json" --out "$T/vis1"
        expect_grep "the visible figure of one device: one count" "^wrote $T/vis1/visible.png: 1 count (N = 1)" "$T/v1.out"
    else
        echo "SKIPPED plot of a fresh fusion run: no stand-in driver (FAKECUDA) or harness"
    fi

    run_plot "$T/l.out" "$T/l.err" results/h200-lazy.json --out "$T/lazy"
    expect_exit "plot on one loading mode: no figure is not an error" 0
    expect_grep "the loading figure is skipped with the reason" \
        "^skipped loading-k.png: needs section loading in both modes, the files hold LAZY only" "$T/l.out"
    expect_grep "the waterfall is skipped with the reason" "^skipped waterfall.png: no stopwatches" "$T/l.out"
    check "no PNG without data" sh -c "! ls '$T/lazy'/*.png"

    run_plot "$T/c.out" "$T/c.err" results/h200-compare.json --out "$T/cmp"
    expect_exit "plot on a --compare-loading run" 0
    expect_grep "a --compare-loading run holds both modes" \
        "^wrote $T/cmp/loading-k.png: EAGER and LAZY from results/h200-compare.json$" "$T/c.out"
    check "loading-k.png from the compare run is a PNG" is_png "$T/cmp/loading-k.png"
    check "the other nine are skipped" test "$(grep -c '^skipped ' "$T/c.out")" -eq 9

    # -- CMD: the PyTorch program on the H200 (--compare-loading; the rule
    # took 7 rounds where --rounds is 5).
    run_plot "$T/g.out" "$T/g.err" results/h200-program-torch.json --out "$T/prog"
    expect_exit "plot on the H200 -- CMD run (PyTorch)" 0
    expect_grep "program.png: both probed sides, the 7 runs a side the rounds took (not --rounds=5)" \
        "^wrote $T/prog/program.png: LAZY, EAGER, 7 runs a side from results/h200-program-torch.json$" \
        "$T/g.out"
    check "program.png is a PNG of more than 10 kB" is_png "$T/prog/program.png"
    check "program.png is 1400 x 950 px (14 x 9.5 in at 100 dpi), 50 to 400 kB" python3 -c "import struct, sys
b = open(sys.argv[1], 'rb').read()
assert struct.unpack('>II', b[16:24]) == (1400, 950) and 50000 < len(b) < 400000" "$T/prog/program.png"
    check "the -- CMD run: the other eight figures are skipped, nothing on stderr" \
        sh -c "test \"\$(grep -c '^skipped ' '$T/g.out')\" -eq 8 && test ! -s '$T/g.err'"
    expect_grep "the -- CMD run: its first uses after the first kernel drawn (5 a side in the file)" \
        "^wrote $T/prog/first-uses.png: after ready: LAZY 5, EAGER 5 listed from results/h200-program-torch.json$" "$T/g.out"
    # The first uses after ready: the H200 serving program (--ready='^READY\$',
    # 3 runs a side; the file keeps the 20 slowest a side).
    run_plot "$T/r.out" "$T/r.err" results/h200-hazards-serve.json --out "$T/ready"
    expect_exit "plot on the H200 serving run (--ready)" 0
    expect_grep "first-uses.png: the 20 stored first uses after ready of each side" \
        "^wrote $T/ready/first-uses.png: after ready: LAZY 20, EAGER 20 listed from results/h200-hazards-serve.json$" \
        "$T/r.out"
    check "first-uses.png is 1400 x 700 px (a panel a side), nothing on stderr" python3 -c "import struct, sys
b = open(sys.argv[1], 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n' and struct.unpack('>II', b[16:24]) == (1400, 700) and len(b) > 10000
assert open(sys.argv[2]).read() == ''" "$T/ready/first-uses.png" "$T/r.err"
    # The same file without the first uses after ready (as a file from before
    # --ready): skipped with the reason, program.png still drawn.
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["measurements"] = [m for m in d["measurements"] if ".ready." not in m["key"]]
d["derived"] = [x for x in d["derived"] if not x["key"].startswith("ready.")]
json.dump(d, open(sys.argv[2], "w"))' results/h200-hazards-serve.json "$T/noready.json"
    run_plot "$T/nr.out" "$T/nr.err" "$T/noready.json" --out "$T/noready"
    expect_exit "plot on a -- CMD file without first uses after ready: not an error" 0
    expect_grep "without them: first-uses.png is skipped with the reason" \
        "^skipped first-uses.png: no first uses after ready in the files (-- CMD: <side>.ready.at" "$T/nr.out"
    check "without them: no first-uses.png" test ! -e "$T/noready/first-uses.png"
    check "without them: program.png is still drawn" is_png "$T/noready/program.png"
    # The same file without its section program: skipped with the reason.
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for k in ("measurements", "derived", "checks"):
    d[k] = [m for m in d.get(k, []) if m.get("section") != "program"]
json.dump(d, open(sys.argv[2], "w"))' results/h200-program-torch.json "$T/noprog.json"
    run_plot "$T/np.out" "$T/np.err" "$T/noprog.json" --out "$T/noprog"
    expect_exit "plot on a file without section program: no figure is not an error" 0
    expect_grep "without section program: skipped program.png with the reason" \
        "^skipped program.png: no section program in the files" "$T/np.out"
    check "without section program: no program.png" test ! -e "$T/noprog/program.png"
    # A CPU-made -- CMD run: the stand-in program writes the probe's records
    # (no GPU: exit 3), the figure from what the harness stored.
    if [ -x "${HARNESS:-}" ] && [ -f tests/standin_program.py ]; then
        V=$("$HARNESS" --version | cut -d' ' -f2)
        mkdir -p "$T/state"
        HARNESS_PROBE=/dev/null STANDIN_STATE="$T/state" "$HARNESS" --compare-loading --rounds=2 \
            --json="$T/sp.json" -- python3 tests/standin_program.py --version "$V" \
            --first-kernel LAZY=300,EAGER=2900 --mem LAZY=900,EAGER=1960 >"$T/sp.run" 2>&1
        # shellcheck disable=SC2034  # read by expect_exit in tests/lib.sh
        rc=$?
        ok=3
        python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null && ok=0
        expect_exit "the stand-in program under --compare-loading (exit 3 without a driver)" "$ok"
        run_plot "$T/s.out" "$T/s.err" "$T/sp.json" --out "$T/sp"
        expect_exit "plot on the stand-in's -- CMD run" 0
        expect_grep "the stand-in's program.png: both sides, 4 runs a side (the rounds taken: --max-rounds=4)" \
            "^wrote $T/sp/program.png: LAZY, EAGER, 4 runs a side from $T/sp.json$" "$T/s.out"
        check "the stand-in's program.png is a PNG of more than 10 kB" is_png "$T/sp/program.png"
        check "the stand-in's run: nothing on stderr" test ! -s "$T/s.err"
        # --ready on the stand-in (tests/test_hazards.sh's values): under LAZY
        # fft stalls 198.5 ms and qr 11.5 ms after ready, a library load 30 ms.
        HARNESS_PROBE=/dev/null "$HARNESS" --compare-loading --rounds=2 --ready='^READY$' \
            --json="$T/sr.json" -- python3 tests/standin_program.py --version "$V" --ready-line READY \
            --uses 'warm@1:0.1:0.2;fft@60000:198:0.5;qr@60010:5:6.5' \
            --uses-eager 'warm@1:0.1:0.2;fft@60000:2:1.3;qr@60010:0.1:0.2' \
            --loads 'library@60005:30:250:90' >"$T/sr.run" 2>&1
        run_plot "$T/sr.out" "$T/sr.err" "$T/sr.json" --out "$T/sr"
        expect_exit "plot on the stand-in's --ready run" 0
        expect_grep "the stand-in's first-uses.png: fft, qr and the library load on each side" \
            "^wrote $T/sr/first-uses.png: after ready: LAZY 3, EAGER 3 listed from $T/sr.json$" "$T/sr.out"
        check "the stand-in's first-uses.png is a PNG of more than 10 kB" is_png "$T/sr/first-uses.png"
        # --ready-after=100: ready 100 s after the first kernel, no first use
        # after it: the figure still says so (the mark, no point).
        HARNESS_PROBE=/dev/null "$HARNESS" --rounds=1 --ready-after=100 --json="$T/sa.json" -- \
            python3 tests/standin_program.py --version "$V" --uses 'fft@60000:198:0.5' >"$T/sa.run" 2>&1
        run_plot "$T/sa.out" "$T/sa.err" "$T/sa.json" --out "$T/sa"
        expect_grep "--ready-after past every first use: first-uses.png with none listed" \
            "^wrote $T/sa/first-uses.png: after ready: as set 0 listed from $T/sa.json$" "$T/sa.out"
    else
        echo "SKIPPED plot of a stand-in -- CMD run: no harness (HARNESS) or tests/standin_program.py"
    fi

    : >"$T/file"
    run_plot "$T/w.out" "$T/w.err" results/h200.json --out "$T/file/sub"
    expect_exit "plot into a directory that cannot be made" 1
    expect_grep "the directory is named" "cannot create $T/file/sub" "$T/w.err"
fi
} >"$T/log" 2>&1
summary "$T/log" plot
