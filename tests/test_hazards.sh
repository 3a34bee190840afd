#!/bin/sh
# test_hazards.sh: which loading mode is safe for a program, on the CPU with
# the stand-in program (tests/standin_program.py writes the first uses and
# loads the probe would record: --uses, --uses-eager, --loads; --ready-line
# prints a server's "ready" line): the first uses after --ready's line per
# mode with their stalls, the preload list, the tightest load's headroom,
# the autotuning sentence, a --ready that never matches, --ready-after.
# Values chosen here: under LAZY, fft stalls 198.5 ms and qr 11.5 ms after
# ready; under EAGER 3.3 and 0.3 ms; warm is used before ready; a library
# load after ready (30 ms, both modes) ran with 250 MiB free and took 90 MiB.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
standin_setup

USES='warm@1:0.1:0.2;fft@60000:198:0.5:4:0.2:500:40;qr@60010:5:6.5:2:0.1:300:12'
EAGER_USES='warm@1:0.1:0.2;fft@60000:2:1.3:4:0.2:500:1;qr@60010:0.1:0.2:2:0.1:700:0'
# shellcheck disable=SC2086
run_harness "$T/r.out" "$T/r.err" --compare-loading --rounds=3 --max-rounds=3 --ready='^READY$' \
    --preload-list="$T/preload.txt" --json="$T/r.json" -- $SP --ready-line READY \
    --uses "$USES" --uses-eager "$EAGER_USES" --loads 'library@60005:30:250:90'
expect_exit "--ready: the program ran" "$OK"
check "--ready: the line matched in every run, before the first uses at 60 s" \
    program_py "$T/r.json" "assert dv('answer.ready')['text'].startswith('Ready: a line matched --ready=^READY\$ in 6 of 6 runs') and max(m('lazy.ready.at')[0]['samples']) < 60000"
check "--ready: LAZY after ready: fft 198.5 ms, the library load 30 ms, qr 11.5 ms; warm (before) left out" \
    program_py "$T/r.json" "a, b, c = dv('ready.lazy.1'), dv('ready.lazy.2'), dv('ready.lazy.3'); assert (a['name'], a['value'], b['name'], b['value'], c['name'], c['value']) == ('fft', 198.5, '(library loads)', 30, 'qr', 11.5) and not dv('ready.lazy.4')"
check "--ready: per run 2 uses, 240 ms stalled (the load's 30 too), the worst 198.5 (LAZY); 33.6, 30 (EAGER)" \
    program_py "$T/r.json" "assert m('lazy.ready.uses')[0]['samples'] == [2, 2, 2] and m('lazy.ready.stall')[0]['samples'] == [240, 240, 240] and m('lazy.ready.worst')[0]['samples'] == [198.5] * 3 and abs(m('eager.ready.stall')[0]['stats']['median'] - 33.6) < 1e-9 and m('eager.ready.worst')[0]['samples'] == [30] * 3"
check "--ready: the sentence gives the worst of a run (medians) and what it was, per side" \
    program_py "$T/r.json" "t = dv('answer.ready')['text']; assert 'LAZY: 2 first uses after ready a run, 240.0 ms of stalls in all (medians of the runs), the worst of a run 198.5 ms (fft the worst in 3 of 3 runs)' in t and 'EAGER: 2 first uses after ready a run, 33.6 ms of stalls in all (medians of the runs), the worst of a run 30.0 ms (library loads the worst in 3 of 3 runs)' in t and '((' not in t, t"
check "--preload-list: the kernels first used after ready, slowest first, per side" \
    sh -c "grep -v '^#' '$T/preload.txt' | cut -f2,3 | tr '\n' ' ' | grep -qx 'lazy	fft lazy	qr eager	fft eager	qr '"
check "headroom: the library load after the first kernel, 250 MiB free, took 90" \
    program_py "$T/r.json" "t = dv('answer.headroom')['text']; assert 'under LAZY the tightest load after the first kernel (library loads, took 90 MiB) ran with 250 MiB free' in t and m('lazy.headroom')[0]['samples'] == [250] * 3"
check "autotuning: qr's first launch 6.5 ms against 0.05 later under LAZY; fft's 0.5 ms not (under 1 ms)" \
    program_py "$T/r.json" "t = dv('answer.autotune')['text']; assert 'LAZY, qr: first launch 6.5 ms, later 0.050 ms' in t and 'LAZY, fft' not in t and 'times the load' in t"
expect_grep "the table lists the first uses after ready" "LAZY: every first use after ready" "$T/r.out"
# A load under 1 MiB is said in KiB ("took 0 MiB" before).
# shellcheck disable=SC2086
run_harness "$T/kib.out" "$T/kib.err" --module-loading=lazy --rounds=1 --json="$T/kib.json" -- $SP \
    --uses "$USES" --loads 'library@60005:30:250:0.5'
check "headroom: a load that took 0.5 MiB is said as 512 KiB (never 'took 0 MiB')" \
    program_py "$T/kib.json" "t = dv('answer.headroom')['text']; assert 'took 512 KiB' in t and 'took 0 MiB' not in t, t"

# A burst of loads whose span (80 ms: the work around its loads) is longer
# than the loads' own time (30 ms): the span is its stall.
# shellcheck disable=SC2086
run_harness "$T/s.out" "$T/s.err" --rounds=1 --ready='^READY$' --json="$T/s.json" -- $SP --ready-line READY \
    --uses "$USES" --loads 'library@60005:30:250:90:80'
check "--ready: a burst's span is its stall (198.5 + 11.5 + 80 = 290 ms, the loads' own 30 left out)" \
    program_py "$T/s.json" "assert m('default.ready.stall')[0]['samples'] == [290] and dv('ready.default.2')['value'] == 80"

# First uses beside busy streams (the probe's busy field: other streams with
# work in flight when the use began): consumer 1, fft 0; warm (the first
# kernel's, not asked) not counted; named in a sentence with the hazard;
# under LAZY only.
# shellcheck disable=SC2086
run_harness "$T/c.out" "$T/c.err" --rounds=1 --compare-loading --max-rounds=1 --json="$T/c.json" -- $SP \
    --uses 'warm@1:0.1:0.2;consumer@60000:1:2:1:0.1:500:4:1;fft@60010:1:2:1:0.1:500:4:0'
check "concurrent: one first use beside a busy stream, named, the hazard said" \
    program_py "$T/c.json" "t = dv('answer.concurrent')['text']; assert m('lazy.concurrent')[0]['samples'] == [1] and t.startswith('LAZY: 1 first use (median) began while another stream had work in flight (consumer)') and 'deadlock' in t"
check "concurrent: not counted under EAGER (its first uses load nothing)" \
    program_py "$T/c.json" "assert not m('eager.concurrent') and 'EAGER:' not in dv('answer.concurrent')['text']"
check "concurrent: a run whose records do not say (no busy field): no figure, no sentence" \
    program_py "$T/s.json" "assert not m('default.concurrent') and not dv('answer.concurrent')"

# Two bursts of library loads after ready in each of 2 runs: one entry,
# in 2 runs, 4 times, its stall the median of 30, 10, 30, 10 (20 ms).
# shellcheck disable=SC2086
run_harness "$T/b.out" "$T/b.err" --rounds=2 --ready='^READY$' --json="$T/b.json" -- $SP \
    --ready-line READY --uses "$USES" --loads 'library@60005:30:250:90;library@60020:10:240:10'
expect_exit "two bursts of loads a run: the program ran" "$OK"
check "two bursts of loads a run: one entry, in 2 runs, 4 times, median 20 ms" \
    program_py "$T/b.json" "x = [d for d in d['derived'] if d['key'].startswith('ready.default.') and d['name'] == '(library loads)'][0]; f = x['fields']; assert (f['runs'], f['times'], x['value']) == (2, 4, 20), x"
expect_grep "two bursts of loads a run: the table says 2 runs, 4 times" \
    "ms after ready  in 2 runs, 4 times  (library loads)$" "$T/b.out"
expect_grep "a kernel once a run: the table says in 2 runs alone" "ms after ready  in 2 runs  *fft$" "$T/b.out"
# A long burst and a short one a run: the worst of a run is the long one
# (300 ms), not the entry's median over its 4 times (155 ms).
# shellcheck disable=SC2086
run_harness "$T/w.out" "$T/w.err" --rounds=2 --ready='^READY$' --json="$T/w.json" -- $SP \
    --ready-line READY --uses "$USES" --loads 'library@60005:300:250:90;library@60020:10:240:10'
check "the worst of a run: the long burst, 300 ms in 2 of 2 runs; the list's entry the median, 155" \
    program_py "$T/w.json" "t = dv('answer.ready')['text']; assert 'the worst of a run 300.0 ms (library loads the worst in 2 of 2 runs)' in t and m('default.ready.worst')[0]['samples'] == [300, 300] and [x for x in d['derived'] if x['key'].startswith('ready.default.') and x['name'] == '(library loads)'][0]['value'] == 155, t"
# A --ready that never matches: said; first uses counted from the first kernel.
# shellcheck disable=SC2086
run_harness "$T/n.out" "$T/n.err" --rounds=1 --ready='^NEVER' --json="$T/n.json" -- $SP --uses "$USES"
check "--ready never matched: said, counted from the first kernel (not an error)" \
    program_py "$T/n.json" "assert dv('answer.ready')['text'].startswith('No line or NVTX mark matched --ready=^NEVER; first uses are counted from the first kernel (no run made an NVTX mark the probe saw)') and m('default.ready.uses')[0]['samples'] == [2]"
expect_exit "--ready never matched: the program ran" "$OK"
# An NVTX mark matches --ready (the stand-in writes what the probe would,
# as the program's NVTX tool): ready at the mark's 1,000 ms, no line needed;
# the harness made the probe that tool (NVTX_INJECTION64_PATH, the expression).
# shellcheck disable=SC2086
run_harness "$T/k.out" "$T/k.err" --rounds=1 --ready='^serving' --json="$T/k.json" -- $SP --uses "$USES" \
    --marks 'warm-up@500;serving requests@1000;serving again@2000'
check "--ready, an NVTX mark: ready at the first matching mark (1,000 ms), said" \
    program_py "$T/k.json" "assert m('default.ready.at')[0]['samples'] == [1000] and dv('answer.ready')['text'].startswith('Ready: an NVTX mark matched --ready=^serving in 1 of 1 runs') and m('default.marks.n')[0]['samples'] == [3] and m('default.at.ready_mark')[0]['samples'] == [1000]"
check "--ready, an NVTX mark: the JSON says marks are seen through the probe" \
    program_py "$T/k.json" "assert e['program_ready_marks'] == 'NVTX marks, through the probe'"
# A line and a mark: the earlier counts (the line, printed at the start).
# shellcheck disable=SC2086
run_harness "$T/l.out" "$T/l.err" --rounds=1 --ready='^serving' --json="$T/l.json" -- $SP --uses "$USES" \
    --ready-line serving --marks 'serving@50000'
check "--ready, a line and a mark: the earlier (the line) counts, both said" \
    program_py "$T/l.json" "assert m('default.ready.at')[0]['samples'][0] < 50000 and 'a line matched --ready=^serving in 1 of 1 runs, an NVTX mark in 1 (the earlier counts)' in dv('answer.ready')['text']"
# The user's own NVTX tool (nsys's, say): kept, said; marks not seen.
# shellcheck disable=SC2086
NVTX_INJECTION64_PATH=/nonexistent/libtool.so run_harness "$T/u.out" "$T/u.err" --rounds=1 \
    --ready='^serving' --json="$T/u.json" -- $SP --uses "$USES" --marks 'serving@1000'
expect_grep "--ready with the user's NVTX_INJECTION64_PATH: said, theirs kept" \
    "NVTX_INJECTION64_PATH=/nonexistent/libtool.so is set: --ready matches the program's lines only" "$T/u.err"
check "--ready with the user's NVTX_INJECTION64_PATH: no mark counted" \
    program_py "$T/u.json" "assert dv('answer.ready')['text'].startswith('No line or NVTX mark matched') and e['program_ready_marks'].startswith('none: ')"
# --ready-after=100: ready 100 s after the first kernel: no first use after it.
# shellcheck disable=SC2086
run_harness "$T/a.out" "$T/a.err" --rounds=1 --ready-after=100 --json="$T/a.json" -- $SP --uses "$USES"
check "--ready-after=100: no first use after ready" \
    program_py "$T/a.json" "assert m('default.ready.uses')[0]['samples'] == [0] and not dv('ready.default.1')"
schema_check_dir "the hazards" "$T"
