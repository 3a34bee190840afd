#!/bin/sh
# run.sh [PART...]: one call on a GPU machine: build, then the named parts
# (default: all of them, in this order):
#   test       make test-gpu and the exit probe
#   reference  the default run twice (the first with --trace), the copy
#              floor check, and scripts/compare of the two
#   loading    section loading eager and lazy, two --compare-loading runs
#              and whether their verdicts agree, scripts/ncu-bytes
#   compare    two --compare-loading runs alone and whether their verdicts agree
#   compare-one  one more, and whether it agrees with each of the stored two
#   ab         tests/gpu/abtest.sh: scripts/compare's error rates, from 3 default
#              runs as built, 3 with two kernels slowed and 3 controls (the
#              kernels read from an unchanged copy), about 7.5 min; each run
#              kept in results/h200-ab/ as it ends, the archive packed every
#              minute while they run
#   modes      section loading eager and lazy alone
#   first      section stopwatches with --module-loading=lazy and =eager,
#              10 rounds each (10 whole-process children and 20 first-launch
#              children, both modes, per run), and gpu_checks.py first of both
#   repeat     launch and fusion twice more, back to back, and the 3% check
#   failure    tests/gpu/failure.sh: stuck kernels, signals, make sanitize-gpu
#   faults     tests/gpu/fault_walk.sh: every entry point failed once
#   sanitize   make sanitize-gpu alone (SANITIZE_TIMEOUT per tool and section)
#   sanitize-rest  the children under both tools, then racecheck of jit,
#              launch and fusion (the slow ones), as two runs of it
#   probe      tests/gpu/probe.sh: launch figures across processes, pinned or not
#   profile    one default run with HARNESS_PHASE_LOG: where the time went,
#              per phase of the parent and of each kind of child
#   newcomer   a fresh copy, env -i: make && ./harness, then make test, timed
#              (about 570 s on the H200: near a call's 600 s, so it is also two
#              parts for two calls on a warm machine: newcomer-run, then
#              newcomer-test, which runs make test in the copy the first left
#              in NEWCOMER_DIR, or in a fresh one where that is gone; NEWCOMER_TAR
#              names a git archive tarball to copy from instead of this tree)
#   unit       the unit tests on this machine (a driver and NVML here): the
#              lines that are not PASSED, results/h200-unit.txt
#   summary    one default run and the checks of what a user reads first:
#              the last 15 lines the summary, no line over 100 columns, the
#              JSON's provenance (results/h200-summary.{txt,json})
#   bench      the default run and --quick twice each, timed
#              (results/h200-runtime.txt), the first default run's phases
#              logged and summed; --compare-loading of libcublasLt
#              at its default children a mode
#   fleet      scripts/fleet.sbatch's command lines by hand as one node of a
#              job, and the merged table (results/h200-fleet/)
#   quick      ./harness --quick twice, timed (docs/build.md promises 10 s)
#   racecheck-launch  racecheck of section launch alone (SANITIZE_TIMEOUT, default 420)
#   storm      tests/storm.py gpu: SIGINT and SIGTERM at STORM_DELAYS (default 10)
#              moments of a default run, each run's exit, files, temporary
#              directories and children checked (about 6 default runs long;
#              STORM_ONLY=I,J,.. runs some of them, STORM_DURATION=S skips
#              the run that measures the length)
#   node       --device=all against --device=0, default runs (the same figures
#              within scripts/compare's noise; the node summary of one device;
#              the visible-devices table's one row)
#   program    tests/gpu/program.sh: -- CMD on a PyTorch program, the lesson's
#              program built by nvcc and a program of two CUDA processes,
#              the tables as results/h200-program-*
#   settings   tests/gpu/settings.sh: -- CMD under --jit-cache=cold,warm (a
#              PTX-only program, its JIT against its own clock),
#              --compare-env CUDA_MODULE_DATA_LOADING=LAZY,EAGER, --compare of
#              two builds, A/A false calls over 10 invocations, PyTorch
#              --compare-loading (SETTINGS=list picks; TORCH_RUNS, AA_RUNS)
#   hazards    tests/gpu/hazards.sh: a serving program's first uses after its
#              ready line, LAZY against EAGER, against its own request times,
#              and preloaded (HAZARDS_COST=1: and the probe's cost on the
#              requests, whole against subscribed only)
#   squeeze    tests/gpu/squeeze.sh: --squeeze=auto on a PyTorch program's
#              first linalg.qr and fft, LAZY and EAGER, against a sweep of
#              --squeeze=M by hand (SQUEEZE_SWEEP, MiB), and the failures
#              named; results/h200-squeeze-*
#   snapshot   tests/gpu/snapshot.sh: section snapshot under LAZY and EAGER
#              (every buffer intact, the steps within the child's own pause,
#              the memory released), a lock that times out on a running
#              kernel; results/<h100|h200>-snapshot.txt
#   concurrent tests/gpu/concurrent.sh: a first launch on one stream while a
#              kernel spins on another, LAZY against EAGER: the harness's
#              answer.concurrent, and the program's own launch times
#   program-trust  tests/gpu/program_trust.sh: a PyTorch program against the
#              harness: a setsid CUDA grandchild, SIGHUP and SIGKILL to the harness, two
#              runs on one --json, a program that drops the probe (PASSED and
#              FAILED lines; logs in $OUT/logs/program-trust)
#   overhead   tests/gpu/overhead.sh: the probe's cost beside a CUPTI activity
#              tracer's (tests/gpu/activity_tracer.c) and nsys profile
#              --trace=cuda's where nsys is (on the PATH, or the Debian CLI
#              that tests/gpu/nsys_pack.sh packs into build/nsys/, carried
#              along), on app_torch.py and vector.cu, OVERHEAD_RUNS (10)
#              runs each, alternating; results/h200-overhead.{txt,csv}
#   schema     a default run against the stored one before the one list of
#              sections (results/h200-summary.json, or BEFORE=FILE): the same
#              measurement and derived keys, scripts/compare's verdicts, and
#              the run's JSON checked against ./harness --schema
#              (results/h200-schema.txt, results/h200-schema-after.json)
#   room-default, room-torch  tests/gpu/room.sh: this tree against an older
#              one (BEFORE=a git archive --prefix=before/ tarball): the default
#              run, and --compare-loading on program/app_torch.py; the same
#              JSON keys, the same text apart from figures, scripts/compare's
#              calls beside an A/A pair's (logs in $OUT/logs/room)
#   fails      program/fails.cu alone, no harness, under LAZY and EAGER: the
#              spin/flag pair across two streams, out of memory at a lazy
#              load, SIGSEGV after a CUDA call; each mode's exit and its own
#              JSON line (results/GPU-fails.txt: h100, h200, as the device is)
#   probecost  the probe against the probe before the live record (PROBE_OLD,
#              default build/probe-old/harness-probe.so, carried) and bare, on
#              app_torch.py, OVERHEAD_RUNS (10) runs each (results/GPU-probecost.txt)
#   diagnose   tests/gpu/diagnose.sh: failed and hung runs explained under the
#              harness (fails.cu's flag, hang, the default bound, oom, segv),
#              results/GPU-diagnose-*, one checked line each (about 4 min)
#   eagercost  the probe's cost on the serving program's requests under EAGER
#              (issue: 14-19% at 3 runs a side), COST_RUNS (10) runs a side
#   torch80    app_torch.py under --compare-loading, COLUMNS=80: the report
#              as an 80-column terminal shows it, its widest line
#   terminal   at 80 columns on a pty, recorded with its progress: a PyTorch
#              --compare-loading, a built-in one, the default run
#              (tests/gpu/progress_checks.py; results/DEV-terminal-*)
#   libraries  scripts/libraries.sh: the CUDA libraries found here (--module,
#              both modes, ROUNDS children each, TIME_BUDGET_S), a --source run
#              on the fusion chain, a PTX-only fatbin by cache state
# The results this call wrote go to $OUT/results.tgz, the logs to $OUT/logs.tgz,
# after each part.
set -u
unset COLUMNS
OUT=${OUT:-/tmp/harness-out}
L="$OUT/logs"
mkdir -p "$L" results
touch "$L/.start"
parts=${*:-test reference loading repeat}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$L/nvidia-smi.txt" 2>&1
# DEV: the GPU's family in results' names (h100, h200; h200 where none is seen).
DEV=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 |
    grep -o 'H[0-9][0-9]*' | head -1 | tr H h)
DEV=${DEV:-h200}
export DEV
make -j8 >"$L/build.log" 2>&1 || { tail -30 "$L/build.log"; exit 1; }

# reference NAME ARGS...: one run kept as results/NAME.* with its command.
reference() {
    sh scripts/reference.sh --run "$@"
}

# timed LABEL LOG CMD...: CMD with its stdout and stderr in LOG, then one
# line "LABEL: exit RC, S s wall"; returns CMD's exit code.
timed() {
    label=$1 log=$2
    shift 2
    t_s=$(date +%s.%N)
    "$@" >"$log" 2>&1
    t_rc=$?
    t_e=$(date +%s.%N)
    echo "$label: exit $t_rc, $(awk "BEGIN { printf \"%.1f\", $t_e - $t_s }") s wall"
    return $t_rc
}

# pack: the results this call wrote into $OUT/results.tgz, and the logs so
# far (less the ab runs' raw JSON, kept gzipped in the results) into
# $OUT/logs.tgz: after every part, so a call cut short by its time limit
# still brings back what finished; two archives, each well under the 16 MiB
# a file that comes back may hold.
pack() {
    find results -type f -newer "$L/.start" | while read -r f; do
        mkdir -p "$OUT/res/$(dirname "$f")" && cp "$f" "$OUT/res/$f"
    done
    [ ! -d "$OUT/res" ] ||
        { tar -C "$OUT/res" -czf "$OUT/results.tgz.tmp" . && mv "$OUT/results.tgz.tmp" "$OUT/results.tgz"; }
    tar -C "$OUT" --exclude='logs/ab/*.json' -czf "$OUT/logs.tgz.tmp" logs &&
        mv "$OUT/logs.tgz.tmp" "$OUT/logs.tgz"
    find "$OUT" -maxdepth 1 -name '*.tgz' -size +15M -exec echo "run.sh: {} is over 15 MiB: it will not come back" \;
}

for part in $parts; do
    echo "run.sh: part $part from $(date +%T)"
    case $part in
    test)
        GPU_KEEP="$L/gpu" make test-gpu 2>&1 | tee "$L/test-gpu.log" | grep -E '^(FAILED|gpu:)'
        cc -std=c11 -D_GNU_SOURCE -O2 -o build/exit_probe tests/gpu/exit_probe.c -ldl &&
            ./build/exit_probe >results/$DEV-exit-probe.txt 2>&1 ;;
    reference)
        # The default run twice (the first with its trace), compared.
        reference $DEV --trace=results/$DEV.trace.json
        gzip -9 -f results/$DEV.trace.json
        python3 tests/gpu_checks.py floor results/$DEV.json | tee results/$DEV-floor.txt
        # The summary is its last 15 lines, no line is over 100 columns
        # (COLUMNS unset, stdout a file), the JSON says how it was made.
        { python3 tests/gpu_checks.py summary results/$DEV.txt results/$DEV.json
          python3 tests/gpu_checks.py width results/$DEV.txt 100
          python3 tests/gpu_checks.py provenance results/$DEV.json
          echo "./harness | tail -15:"
          grep -v '^exit code [0-9]*$' results/$DEV.txt | tail -15; } | tee results/$DEV-summary.txt
        reference $DEV-2
        scripts/compare results/$DEV.json results/$DEV-2.json >results/$DEV-default-compare.txt
        tail -3 results/$DEV-default-compare.txt ;;
    loading)
        # Section loading in each mode, two --compare-loading runs, ncu-bytes.
        reference $DEV-eager --section=loading --module-loading=eager
        reference $DEV-lazy --section=loading --module-loading=lazy
        reference $DEV-compare --section=loading --compare-loading --rounds=40
        reference $DEV-compare-2 --section=loading --compare-loading --rounds=40
        python3 tests/gpu_checks.py verdicts results/$DEV-compare.json results/$DEV-compare-2.json |
            tee results/$DEV-compare-verdicts.txt
        scripts/ncu-bytes --out "$L/ncu" >results/$DEV-ncu-bytes.txt 2>&1
        cat results/$DEV-ncu-bytes.txt ;;
    ab)
        # A/A and A/B: the share flagged between runs of one build, and
        # whether a planted +50% and +10% are flagged SLOWER.
        # The runs themselves (results/h200-ab/), so the rates can be
        # recomputed from them, packed while they run: a call cut short
        # still brings back the runs that ended.
        ( while sleep 60; do pack; done ) &
        packer=$!
        OUT="$L" AB_KEEP=results/$DEV-ab sh tests/gpu/abtest.sh 2>&1 | tee results/$DEV-ab.txt
        kill "$packer" 2>/dev/null
        wait "$packer" 2>/dev/null ;;
    modes)
        reference $DEV-eager --section=loading --module-loading=eager
        reference $DEV-lazy --section=loading --module-loading=lazy ;;
    first)
        # The first launch taken apart, the process itself in each mode.
        reference $DEV-stopwatches-lazy --section=stopwatches --module-loading=lazy --rounds=10
        reference $DEV-stopwatches-eager --section=stopwatches --module-loading=eager --rounds=10
        { python3 tests/gpu_checks.py first results/$DEV-stopwatches-lazy.json LAZY
          python3 tests/gpu_checks.py first results/$DEV-stopwatches-eager.json EAGER; } |
            tee results/$DEV-first.txt ;;
    compare)
        reference $DEV-compare --section=loading --compare-loading --rounds=40
        reference $DEV-compare-2 --section=loading --compare-loading --rounds=40
        python3 tests/gpu_checks.py verdicts results/$DEV-compare.json results/$DEV-compare-2.json |
            tee results/$DEV-compare-verdicts.txt ;;
    compare-one)
        # One more --compare-loading run against the two stored ones.
        reference $DEV-compare-3 --section=loading --compare-loading --rounds=40
        for f in $DEV-compare $DEV-compare-2; do
            python3 tests/gpu_checks.py verdicts "results/$f.json" results/$DEV-compare-3.json
        done | tee results/$DEV-compare-verdicts-3.txt ;;
    repeat)
        reference $DEV-launch-fusion-1 --section=launch,fusion
        reference $DEV-launch-fusion-2 --section=launch,fusion
        python3 tests/gpu_checks.py repeat3 results/$DEV-launch-fusion-1.json \
            results/$DEV-launch-fusion-2.json | tee results/$DEV-repeat.txt ;;
    failure)
        OUT="$L" sh tests/gpu/failure.sh 2>&1 | tail -40 ;;
    sanitize)
        OUT="$L" make -s sanitize-gpu 2>&1 | tail -40 ;;
    sanitize-rest)
        # The children directly under both tools, then racecheck of the
        # sections that take longest under it.
        OUT="$L" SANITIZE_SECTIONS=none make -s sanitize-gpu 2>&1 | grep -E '^(PASSED|FAILED|  )'
        mv "$L/sanitize-gpu" "$L/sanitize-children"
        OUT="$L" SANITIZE_TOOLS=racecheck SANITIZE_CHILDREN=none SANITIZE_SECTIONS=jit,launch,fusion \
            make -s sanitize-gpu 2>&1 | grep -E '^(PASSED|FAILED|  )' ;;
    probe)
        L="$L/probe" sh tests/gpu/probe.sh 2>&1 | tail -60 ;;
    profile)
        # One default run with every process's phases logged
        # (HARNESS_PHASE_LOG), its trace and JSON, and where the time went.
        rm -f "$L/phases.log"
        timed "harness (default run, phases logged)" "$L/profile.txt" \
            env HARNESS_PHASE_LOG="$L/phases.log" ./harness --trace="$L/profile.trace.json" \
            --json="$L/profile.json"
        tail -3 "$L/profile.txt"
        python3 scripts/phases "$L/phases.log" >"$L/phases.txt" 2>&1
        head -120 "$L/phases.txt" ;;
    newcomer|newcomer-run|newcomer-test)
        # The README's two commands as a newcomer runs them: a fresh copy of
        # the tree (no build outputs), only PATH and HOME in the environment
        # (TMPDIR unset), `make && ./harness`, then `make test`; each timed,
        # the summary lines kept in results/DEV-newcomer-*.txt.
        d=${NEWCOMER_DIR:-/tmp/harness-newcomer}
        if [ "$part" != newcomer-test ] || [ ! -f "$d/Makefile" ]; then
            [ "$part" = newcomer-test ] && echo "run.sh: no copy in $d (the machine is a fresh one): make test in a fresh copy"
            rm -rf "$d" && mkdir -p "$d"
            # NEWCOMER_TAR: a tarball of the tree as a user downloads it (git archive:
            # no .git, no build outputs); else this tree less its build outputs.
            if [ -n "${NEWCOMER_TAR:-}" ]; then
                tar -C "$d" -xf "$NEWCOMER_TAR"
            else
                tar --exclude=./build --exclude=./harness --exclude=./harness-probe.so -cf - . | tar -C "$d" -xf -
            fi
        fi
        if [ "$part" != newcomer-test ]; then
            s=$(date +%s.%N)
            # make's lines to a log of their own, ./harness's stdout and stderr apart:
            # its last 15 lines are the summary, none wider than 100 columns.
            (cd "$d" && env -i PATH="$PATH" HOME="$HOME" sh -c 'make >"$1" 2>&1 && ./harness' sh \
                "$L/newcomer-make.log") >"$L/newcomer-harness.log" 2>"$L/newcomer-harness.err"
            rc=$?
            e=$(date +%s.%N)
            { echo "# on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)," \
                   "from ${NEWCOMER_TAR:-this tree}"
              echo "# make && ./harness in a fresh copy, env -i PATH HOME (TMPDIR unset): exit $rc, $(awk "BEGIN { printf \"%.1f\", $e - $s }") s wall"
              echo "# ./harness's stdout: $(wc -l <"$L/newcomer-harness.log") lines, the widest $(awk '{ if (length > m) m = length } END { print m + 0 }' "$L/newcomer-harness.log") columns; its last 15 lines:"
              tail -15 "$L/newcomer-harness.log"; } | tee results/$DEV-newcomer-harness.txt
        fi
        if [ "$part" != newcomer-run ]; then
            s=$(date +%s.%N)
            (cd "$d" && env -i PATH="$PATH" HOME="$HOME" make test) >"$L/newcomer-make-test.log" 2>&1
            rc=$?
            e=$(date +%s.%N)
            { echo "# on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
              echo "# make test in the same copy, env -i PATH HOME (TMPDIR unset): exit $rc, $(awk "BEGIN { printf \"%.1f\", $e - $s }") s wall"
              grep -E '^(SKIPPED|FAILED)' "$L/newcomer-make-test.log"; tail -1 "$L/newcomer-make-test.log"; } |
                tee results/$DEV-newcomer-make-test.txt
            rm -rf "$d"
        fi ;;
    unit)
        make -s build/unit >/dev/null 2>&1
        { ./build/unit 2>&1; echo "exit $?"; } | grep -v '^PASSED' | tee results/$DEV-unit.txt ;;
    summary)
        unset COLUMNS
        ./harness --json="$L/summary.json" >"$L/summary.out" 2>"$L/summary.err"
        { echo "# ./harness (exit $?): its last 15 lines, then the checks"
          tail -15 "$L/summary.out"
          for c in "summary $L/summary.out $L/summary.json" "width $L/summary.out 100" \
                   "provenance $L/summary.json"; do
              # shellcheck disable=SC2086
              if python3 tests/gpu_checks.py $c; then echo "PASSED ${c%% *}"; else echo "FAILED ${c%% *}"; fi
          done; } 2>&1 | tee results/$DEV-summary.txt | tail -5
        cp "$L/summary.json" results/$DEV-summary.json ;;
    bench)
        # The default run's length, twice, and --quick's, twice (as built, in
        # this tree): results/h200-runtime.txt; then --compare-loading of
        # libcublasLt at its default children a mode.
        rm -f "$L/phases.log"
        { for i in 1 2; do
            # The first with every process's phases logged (scripts/phases).
            pl=
            [ "$i" = 1 ] && pl="HARNESS_PHASE_LOG=$L/phases.log"
            # shellcheck disable=SC2086
            timed "./harness, run $i" "$L/bench$i.txt" env $pl ./harness --json="$L/bench$i.json"
            grep -E '^(Checks:|Run time)' "$L/bench$i.txt"
          done
          for i in 1 2; do
            timed "./harness --quick, run $i" "$L/quick$i.txt" ./harness --quick --json="$L/quick$i.json"
            grep -E '^(Checks:|Run time)' "$L/quick$i.txt"
          done; } | tee results/$DEV-runtime.txt
        python3 scripts/phases "$L/phases.log" >"$L/phases.txt" 2>&1
        head -150 "$L/phases.txt"
        lt=$(ls /usr/local/cuda/lib64/libcublasLt.so.* 2>/dev/null | head -1)
        reference $DEV-compare-cublasLt-default --section=loading --module="$lt" --compare-loading
        grep -E 'mem_load|\.load |verdict|out of reach' results/$DEV-compare-cublasLt-default.txt | head -30 ;;
    fleet)
        # scripts/fleet.sbatch's two command lines by hand, as the one node of
        # a job (the variables srun would set, set here), then the merge;
        # kept as results/h200-fleet/.
        out=results/$DEV-fleet
        rm -rf "$out" && mkdir -p "$out"
        timed "fleet: the node's harness" "$out/$DEV-node1.txt" \
            env SLURM_JOB_ID=1 SLURM_JOB_NUM_NODES=1 SLURMD_NODENAME=$DEV-node1 SLURM_PROCID=0 \
            ./harness --device=all --quiet --json=results/$DEV-fleet/%n.json
        scripts/node-summary "$out"/*.json --json="$out/summary.json" --fail-on-outlier \
            --expect-nodes=1 >"$out/summary.txt" 2>&1
        echo "fleet: node-summary exited $?"
        cat "$out/summary.txt" ;;
    quick)
        for i in 1 2; do
            timed "harness --quick, run $i" "$L/quick$i.txt" ./harness --quick --json="$L/quick$i.json"
        done | tee results/$DEV-quick.txt ;;
    racecheck-launch)
        OUT="$L" SANITIZE_TOOLS=racecheck SANITIZE_CHILDREN=none SANITIZE_SECTIONS=launch \
            SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-420} make -s sanitize-gpu 2>&1 | grep -E '^(PASSED|FAILED|  |sanitize-gpu)' ;;
    overhead)
        # What each tool adds: bare, the probe, the activity tracer, nsys.
        OUT="$L/overhead" sh tests/gpu/overhead.sh 2>&1 | tail -20
        cp "$L/overhead/overhead.txt" results/$DEV-overhead.txt
        cp "$L/overhead/overhead.csv" results/$DEV-overhead.csv
        tail -c 600 "$L"/overhead/overhead-*-nsys.err 2>/dev/null ;;
    program)
        L="$L/program" sh tests/gpu/program.sh 2>&1 | tail -40 ;;
    settings)
        L="$L/settings" sh tests/gpu/settings.sh 2>&1 | tail -60 ;;
    hazards)
        L="$L/hazards" sh tests/gpu/hazards.sh 2>&1 | tail -30 ;;
    squeeze)
        L="$L/squeeze" sh tests/gpu/squeeze.sh 2>&1 | tail -40 ;;
    snapshot)
        L="$L/snapshot" sh tests/gpu/snapshot.sh 2>&1 | tail -40 ;;
    concurrent)
        L="$L/concurrent" sh tests/gpu/concurrent.sh 2>&1 | tail -20 ;;
    program-trust)
        L="$L/program-trust" sh tests/gpu/program_trust.sh 2>&1 | tail -40 ;;
    schema)
        before=${BEFORE:-results/$DEV-summary.json}
        cp "$before" "$L/before.json"
        ./harness --json="$L/after.json" >"$L/after.out" 2>"$L/after.err"
        rc=$?
        ./harness --schema >"$L/schema.json"
        { echo "# ./harness (exit $rc) at $(git rev-parse --short HEAD 2>/dev/null) against $before"
          if python3 tests/check_json.py "$L/after.json" --schema "$L/schema.json"; then
              echo "PASSED schema"; else echo "FAILED schema"; fi
          python3 - "$L/before.json" "$L/after.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for part in ("measurements", "derived"):
    ka = {(m["section"], m["key"]) for m in a.get(part, [])}
    kb = {(m["section"], m["key"]) for m in b.get(part, [])}
    print("%s: %d before, %d after, only before %s, only after %s"
          % (part, len(ka), len(kb), sorted(ka - kb), sorted(kb - ka)))
    print("%s %s keys" % ("PASSED" if ka == kb else "FAILED", part))
PY
          scripts/compare "$L/before.json" "$L/after.json" | tail -3; } 2>&1 | tee results/$DEV-schema.txt
        cp "$L/after.json" results/$DEV-schema-after.json ;;
    room-default|room-torch)
        L="$L/room" sh tests/gpu/room.sh "${part#room-}" ;;
    fails)
        nvcc -O2 -arch=sm_90 -o build/fails tests/gpu/program/fails.cu >"$L/fails-nvcc.log" 2>&1 ||
            { tail -5 "$L/fails-nvcc.log"; continue; }
        { echo "# on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
        for m in flag oom segv; do
            for mode in LAZY EAGER; do
                s=$(date +%s.%N)
                r=$(CUDA_MODULE_LOADING=$mode timeout 60 ./build/fails $m 2>&1)
                rc=$?
                echo "fails $m under $mode: exit $rc, $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $s }") s wall: $r"
            done
        done; } | tee "results/$DEV-fails.txt" ;;
    probecost)
        OUT="$L/probecost" PROBE_OLD="$PWD/${PROBE_OLD:-build/probe-old/harness-probe.so}" \
            OVERHEAD_NO_TOOLS=1 OVERHEAD_PROGRAMS=torch sh tests/gpu/overhead.sh 2>&1 | tail -12
        cp "$L/probecost/overhead.txt" "results/$DEV-probecost.txt"
        cp "$L/probecost/overhead.csv" "results/$DEV-probecost.csv" ;;
    eagercost)
        # The probe's cost on the serving program's requests under EAGER, at
        # COST_RUNS (10) runs a side, probed and bare alternating
        # (serve_checks.py --cost1): results/DEV-eager-cost.{txt,json}.
        n=${COST_RUNS:-10}
        HARNESS_PROBE=./harness-probe.so ./harness --module-loading=eager --rounds="$n" --max-rounds="$n" \
            --warmup=1 --ready='^READY$' --json="$L/ecost.json" --program-output="$L/ecost-out" \
            -- python3 tests/gpu/program/app_serve.py >"$L/ecost.out" 2>"$L/ecost.err"
        { echo "# on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1):" \
               "./harness --module-loading=eager --rounds=$n -- app_serve.py: exit $?"
          python3 tests/gpu/program/serve_checks.py --cost1 "$L/ecost-out"
          grep -A4 "the probe's own cost" "$L/ecost.out"; } | tee "results/$DEV-eager-cost.txt"
        cp "$L/ecost.json" "results/$DEV-eager-cost.json" ;;
    terminal)
        # The report as an 80-column terminal shows it, recorded with the
        # progress line (tests/pty_run.py --both: stdout and stderr on one
        # pty): a PyTorch -- CMD --compare-loading, a built-in one and the
        # default run; each checked by tests/gpu/progress_checks.py
        # (results/DEV-terminal-NAME.{screen,raw,timing}, -checks.txt).
        for t in "torch --compare-loading --rounds=3 --max-rounds=3 -- python3 tests/gpu/program/app_torch.py" \
                 "loading --section=loading --compare-loading --rounds=10 --max-rounds=10" \
                 "default"; do
            name=${t%% *} args=${t#* }
            [ "$name" = default ] && args=
            r="results/$DEV-terminal-$name"
            # shellcheck disable=SC2086
            python3 tests/pty_run.py --cols=80 --raw="$r.raw" --timing="$r.timing" --both ./harness $args \
                >"$r.screen" 2>&1
            echo "terminal $name: exit $?"
            python3 tests/gpu/progress_checks.py "$name" "$r.raw" "$r.timing" "$r.screen" 80 \
                    $([ "$name" = default ] && echo --width-only) |
                tee "$r-checks.txt" | grep -E '^(PASSED|FAILED)'
        done ;;
    torch80)
        # A PyTorch program under -- CMD as a terminal of 80 columns shows it.
        COLUMNS=80 ./harness --compare-loading --rounds=3 --max-rounds=3 \
            -- python3 tests/gpu/program/app_torch.py >"results/$DEV-program-torch-80.txt" 2>"$L/torch80.err"
        echo "torch80: exit $?, widest $(awk '{ if (length > m) m = length } END { print m + 0 }' \
            "results/$DEV-program-torch-80.txt") columns"
        tail -22 "results/$DEV-program-torch-80.txt" ;;
    diagnose)
        OUT="$OUT" sh tests/gpu/diagnose.sh "$DEV" 2>&1 | tail -30 ;;
    libraries)
        sh scripts/libraries.sh $DEV 2>&1 | tail -20 ;;
    node)
        reference $DEV-node --device=all
        reference $DEV-device0 --device=0
        scripts/compare results/$DEV-device0.json results/$DEV-node.json \
            >results/$DEV-node-compare.txt 2>&1
        tail -4 results/$DEV-node-compare.txt ;;
    faults)
        OUT="$L" FAULT_WALK_BUDGET_S=${FAULT_WALK_BUDGET_S:-60} bash tests/gpu/fault_walk.sh 2>&1 | tail -30 ;;
    storm)
        python3 tests/storm.py gpu --jobs 1 --delays "${STORM_DELAYS:-10}" \
            ${STORM_ONLY:+--only "$STORM_ONLY"} ${STORM_DURATION:+--duration "$STORM_DURATION"} \
            2>&1 | tee results/$DEV-storm.txt | tail -15 ;;
    *)
        echo "run.sh: no part '$part' (test, unit, summary, newcomer, newcomer-run, newcomer-test, reference, loading, compare, compare-one, ab, modes, first, repeat, failure, faults, sanitize, sanitize-rest, probe, quick, racecheck-launch, storm, program, settings, hazards, squeeze, concurrent, program-trust, overhead, schema, diagnose, probecost, eagercost, terminal, torch80, fails, libraries, node)" >&2
        exit 2 ;;
    esac
    pack
done
echo "run.sh: done at $(date +%T)"
rm -rf "$L" "$OUT/res"    # packed after the last part; the archives alone come back
