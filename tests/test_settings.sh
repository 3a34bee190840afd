#!/bin/sh
# test_settings.sh: -- CMD under the settings its sides differ in, on the
# CPU with the stand-in program (tests/standin_program.py: figures per
# CUDA_MODULE_LOADING, a JIT cache under CUDA_CACHE_PATH with --ptx):
# --compare-env (two values, a value with an escaped comma, A/A), --jit-cache
# (the cache filled by the warm-up, PTX or none), --compare ... --vs (and
# --vs-word), --warmup, --prepare (a failing one fails its run alone),
# --cleanup, and the stopping rule: rounds until the headline verdicts are
# decided, --max-rounds and --max-time, the looks and their level worked out
# by hand. No driver here: a run that otherwise succeeds exits 3.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
standin_setup

# --compare-env on the variable the stand-in reads: the sides named by
# their values, keys from them, the verdicts and sentences as
# --compare-loading's. Rounds 5 to 5: one look at 0.01.
# shellcheck disable=SC2086
run_harness "$T/e.out" "$T/e.err" --compare-env=CUDA_MODULE_LOADING=LAZY,EAGER --max-rounds=5 --warmup=0 \
    --json="$T/e.json" -- $SP --first-kernel LAZY=300,EAGER=2900
expect_exit "--compare-env: the program ran" "$OK"
check "--compare-env: sides lazy and eager, EAGER higher before the first kernel (inside)" \
    program_py "$T/e.json" "assert e['program_compare'] == 'env' and e['program_setting'] == 'CUDA_MODULE_LOADING' and dv('compare.in.first_kernel')['text'] == 'EAGER higher' and len(m('eager.in.first_kernel')[0]['samples']) == 5"
check "--compare-env: one look at p < 0.01 (rounds 5 to 5)" \
    program_py "$T/e.json" "assert e['program_looks'] == 1 and e['program_looks_calling'] == 1 and e['program_alpha'] == 0.01"
expect_grep "--compare-env: the table names the variable" "the sides set CUDA_MODULE_LOADING" "$T/e.out"

# A value holding a comma, written "\,": the program sees the comma.
# shellcheck disable=SC2086
run_harness "$T/c.out" "$T/c.err" --compare-env='STANDIN_X=a\,b,c' --rounds=1 --max-rounds=1 --warmup=0 \
    --json="$T/c.json" -- sh -c 'echo "X=$STANDIN_X"'
check "--compare-env: '\\,' is a comma inside a value" \
    sh -c "grep -q 'X=a,b' '$T/c.json.program/run01-a_b.out' && grep -q 'X=c' '$T/c.json.program/run02-c.out'"

# A/A: the same value on both sides; the headline within the threshold
# after round 5: no difference, decided, nothing called.
# shellcheck disable=SC2086
run_harness "$T/aa.out" "$T/aa.err" --compare-env=CUDA_MODULE_LOADING=LAZY,LAZY --warmup=0 --json="$T/aa.json" \
    -- $SP --first-kernel 300
check "A/A: keys lazy and lazy-2, labels LAZY and LAZY (2)" \
    program_py "$T/aa.json" "assert e['program_side1_key'] == 'lazy' and e['program_side2_key'] == 'lazy-2' and e['program_side2_label'] == 'LAZY (2)'"
check "A/A: decided after round 5 (no difference), no difference called" \
    program_py "$T/aa.json" "assert e['program_rounds_taken'] == 5 and e['program_look_calls'] == 0 and dv('compare.in.first_kernel')['text'] == 'no difference'"
check "A/A decided before the first look that could call: the sentence gives the looks' level (0.0025), not round 5's 0" \
    program_py "$T/aa.json" "t = dv('answer.rounds')['text']; assert 'Verdicts at p < 0.0025: 0.01 shared equally (Bonferroni) over the 4 looks after rounds 7 to 10' in t and 'p < 0.0000' not in t, t"

# The stopping rule. Rounds 5 to 10 (the default, 2 x --rounds): a look at
# n a side can call where 2 / C(2n, n) < 0.01 / (10 - n + 1): n = 7 (p >=
# 0.00058 against 0.0025; n = 6 gives 0.0022 against 0.002): from round 7,
# 4 looks at 0.0025. The headline (2,900 against 300 ms inside) is called
# at the first of them: 3 looks in all, 1 that could call.
# shellcheck disable=SC2086
run_harness "$T/s.out" "$T/s.err" --compare-loading --warmup=0 --json="$T/s.json" -- $SP --first-kernel LAZY=300,EAGER=2900
check "stopping rule: 7 rounds, looks from 7, 4 planned at p < 0.0025, 3 taken" \
    program_py "$T/s.json" "assert e['program_rounds_taken'] == 7 and e['program_looks_first'] == 7 and e['program_looks_planned'] == 4 and e['program_alpha'] == 0.0025 and e['program_looks'] == 3 and e['program_looks_calling'] == 1"
check "stopping rule: bare sides run the first --rounds (5), probed ones every round (7)" \
    program_py "$T/s.json" "assert len(m('bare.lazy.wall')[0]['samples']) == 5 and len(m('lazy.wall')[0]['samples']) == 7"
check "stopping rule: the sentence says how many rounds and why" \
    program_py "$T/s.json" "t = dv('answer.rounds')['text']; assert 'The answer took 7 rounds' in t and 'decided after round 7' in t"
# Rounds 3 to 4: 2 / C(8, 4) = 0.029, no look can call: runs to the budget.
# shellcheck disable=SC2086
run_harness "$T/b.out" "$T/b.err" --compare-loading --rounds=3 --max-rounds=4 --warmup=0 --json="$T/b.json" \
    -- $SP --first-kernel LAZY=300,EAGER=2900
check "--max-rounds: no look can call at 3 or 4 a side; stopped at 4, said" \
    program_py "$T/b.json" "assert e['program_rounds_taken'] == 4 and e['program_looks_planned'] == 0 and e['program_looks_calling'] == 0 and '--max-rounds=4 taken' in e['program_stop'] and dv('compare.in.first_kernel')['text'].startswith('out of reach')"
# shellcheck disable=SC2086
run_harness "$T/t.out" "$T/t.err" --compare-loading --rounds=3 --max-rounds=20 --max-time=0.001 --warmup=0 \
    --json="$T/t.json" -- $SP --first-kernel LAZY=300,EAGER=2900
check "--max-time: spent after the first look; stopped at round 3, said" \
    program_py "$T/t.json" "assert e['program_rounds_taken'] == 3 and '--max-time=0.001 s spent' in e['program_stop']"

# --jit-cache: cold (a fresh cache each run) against warm (the one the
# warm-up filled). The stand-in's PTX load: 400 ms cold, 4 ms warm.
# Its own TMPDIR, where the caches go: another run on the machine leaves
# none there.
mkdir -p "$T/jtmp"
env_set TMPDIR "$T/jtmp"
# shellcheck disable=SC2086
run_harness "$T/j.out" "$T/j.err" --jit-cache=cold,warm --json="$T/j.json" -- $SP --ptx 400
env_restore TMPDIR
expect_exit "--jit-cache: the program ran" "$OK"
check "--jit-cache: the PTX loads 400 ms cold, 4 ms warm; cold higher on them and on code.ms" \
    program_py "$T/j.json" "assert m('cold.ptx.ms')[0]['stats']['median'] == 400 and m('warm.ptx.ms')[0]['stats']['median'] == 4 and dv('compare.ptx.ms')['text'] == 'cold higher' and dv('compare.code.ms')['text'] == 'cold higher'"
check "--jit-cache: the warm cache holds the stand-in's 4096 bytes after each run" \
    program_py "$T/j.json" "assert m('warm.cache.cuda')[0]['samples'] == [4096 / 1048576] * len(m('warm.cache.cuda')[0]['samples'])"
check "--jit-cache: the sentence names the caches written" \
    program_py "$T/j.json" "t = dv('answer.jit')['text']; assert 'CUDA_CACHE_PATH 0.00391 MiB' in t and 'TRITON_CACHE_DIR none' in t"
check "--jit-cache: no cache left behind (its TMPDIR empty)" sh -c "test -z \"\$(ls -A '$T/jtmp')\""
# shellcheck disable=SC2086
run_harness "$T/n.out" "$T/n.err" --jit-cache=cold,warm --rounds=3 --max-rounds=3 --json="$T/n.json" -- $SP
check "--jit-cache on a program without PTX: said, not an error" \
    program_py "$T/n.json" "assert 'the cache cannot matter' in dv('answer.jit')['text']"
expect_exit "--jit-cache on a program without PTX: the program ran" "$OK"

# --compare: two commands, one a side; --vs-word for a program that takes --vs.
# shellcheck disable=SC2086
run_harness "$T/v.out" "$T/v.err" --compare --max-rounds=5 --warmup=0 --json="$T/v.json" -- \
    $SP --first-kernel 100 --vs $SP --first-kernel 900
check "--compare: sides A and B, each command named, B higher before the first kernel" \
    program_py "$T/v.json" "assert e['program_side1_command'].endswith('--first-kernel 100') and e['program_side2_command'].endswith('--first-kernel 900') and dv('compare.in.first_kernel')['text'] == 'B higher' and dv('answer.wall')"
expect_grep "--compare: the table names each command" "  B: python3 tests/standin_program.py" "$T/v.out"
# shellcheck disable=SC2086
run_harness "$T/w.out" "$T/w.err" --compare --vs-word=:: --rounds=1 --max-rounds=1 --json="$T/w.json" -- \
    sh -c 'echo "$@"' x --vs :: sh -c 'echo "$@"' y
check "--vs-word: '::' separates; a literal --vs reaches the program" \
    sh -c "grep -q '^--vs$' '$T/w.json.program/run01-a.out' && ! grep -q -- '--vs' '$T/w.json.program/run02-b.out'"

# --warmup=2: two unmeasured runs a side first, their figures left out.
# shellcheck disable=SC2086
run_harness "$T/u.out" "$T/u.err" --warmup=2 --rounds=2 --json="$T/u.json" -- $SP
check "--warmup=2: 4 warm-up runs (2 a side), 2 measured a side" \
    sh -c "test \$(ls '$T/u.json.program' | grep -c '^warmup.*\\.out\$') = 4 && test \$(ls '$T/u.json.program' | grep -c '^run.*\\.out\$') = 4"
check "--warmup=2: the samples are the measured runs' alone" \
    program_py "$T/u.json" "assert len(m('default.wall')[0]['samples']) == 2 and e['program_warmup'] == 2"

# --prepare before each run; the third fails: that run fails, named, the
# others go on. --cleanup after each side's last run.
# shellcheck disable=SC2086
run_harness "$T/p.out" "$T/p.err" --rounds=3 --max-rounds=3 --json="$T/p.json" \
    --prepare="n=\$(cat '$T/count' 2>/dev/null || echo 0); echo \$((n + 1)) >'$T/count'; [ \$n -ne 5 ] || exit 4" \
    --cleanup="echo \"\$CUDA_MODULE_LOADING\" >>'$T/cleaned'" --compare-loading -- $SP
expect_exit "--prepare failing once: exit 1" 1
check "--prepare: every run prepared (4 warm-up, 12 measured)" sh -c "test \$(cat '$T/count') = 16"
check "--prepare failing once: that run failed, named, the rest measured" \
    program_py "$T/p.json" "f = [c for c in d['checks'] if not c['passed']]; assert len(f) == 1 and '--prepare exited with 4' in f[0]['detail'] and f[0]['what'].startswith('run 2 (')" 
check "--cleanup: once after each side's runs, in its setting" \
    sh -c "test \$(grep -c LAZY '$T/cleaned') = 2 && test \$(grep -c EAGER '$T/cleaned') = 2"
schema_check_dir "the settings" "$T"
