/* program_opts.h: the program entry's rows of the option table (-- CMD; the
 * columns: run/opt.h; gathered by SEC_OPT_LIST, sections/list.h). Each is
 * refused without a command after "--". The parsers they name (clc_read_*)
 * are run/cli_command.c's. Includes nothing. */
#ifndef PROGRAM_OPTS_H
#define PROGRAM_OPTS_H

#define PG_OPTS(X, NO_PROFILE)                                                          \
    X(PROGRAM_OUTPUT, "program-output", "DIR", OPT_TEXT(program_output),                \
      OPT_OWNED(PROGRAM, "keeps the output of"), 0, OPT_RARE,                           \
      "-- CMD: keep each run's stdout and stderr in DIR\n"                              \
      "(default: beside --json, else not kept)")                                        \
    X(SHOW_OUTPUT, "show-output", NULL, OPT_FLAG(show_output),                          \
      OPT_OWNED(PROGRAM, "prints the output of"), 0, OPT_RARE,                          \
      "-- CMD: print the first run's stdout and stderr")                                \
    X(COMPARE_ENV, "compare-env", "NAME=A,B", OPT_CALL(clc_read_compare_env),           \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: a side per value of NAME (2 to 6; a comma in a\n"                        \
      "value is written \\,), compared as --compare-loading's")                         \
    X(JIT_CACHE, "jit-cache", "cold,warm", OPT_CALL(clc_read_jit_cache),                \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: CUDA_CACHE_PATH and the JIT layers' caches\n"                            \
      "fresh each run (cold), or filled by the warm-up (warm)")                         \
    X(COMPARE, "compare", NULL, OPT_CALL(clc_read_compare),                             \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: a side per command: -- A [ARGS] --vs B [ARGS]")                          \
    X(VS_WORD, "vs-word", "WORD", OPT_TEXT(vs_word),                                    \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "--compare: what separates the commands (default --vs)")                          \
    X(PREPARE, "prepare", "CMD", OPT_TEXT(prepare),                                     \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: sh -c CMD before every run (a failure fails it)")                        \
    X(CLEANUP, "cleanup", "CMD", OPT_TEXT(cleanup),                                     \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: sh -c CMD after each side's last run")                                   \
    X(MAX_ROUNDS, "max-rounds", "N", OPT_INT(max_rounds, 1, 1000, "a whole number"),    \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: rounds go on past --rounds until every headline\n"                       \
      "verdict is decided, up to N (default 2 x --rounds);\n"                           \
      "--warmup=N and --max-time=S are, with -- CMD, the\n"                             \
      "unmeasured runs a side (default 1) and the budget")                              \
    X(READY, "ready", "REGEX", OPT_CALL(clc_read_ready),                                \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: ready when a line of its output or an NVTX\n"                            \
      "mark matches; the first uses after it are listed")                               \
    X(READY_AFTER, "ready-after", "S",                                                  \
      OPT_NUM(ready_after, 0, 86400, "seconds after the first kernel"),                 \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: else ready S seconds after the first kernel")                            \
    X(PRELOAD_LIST, "preload-list", "FILE", OPT_TEXT(preload_list),                     \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: write the kernels first used after ready")                               \
    X(SQUEEZE, "squeeze", "MiB|auto", OPT_CALL(clc_read_squeeze),                       \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: before each run a helper holds all device 0's\n"                         \
      "free memory but MiB; auto: bisect each side's smallest\n"                        \
      "margin at which the program still exits 0")                                     \
    X(SNAPSHOT_CMD, "snapshot", NULL, OPT_FLAG(snapshot),                               \
      OPT_OWNED(PROGRAM, "applies to"), 0, OPT_RARE,                                    \
      "-- CMD: at its ready point (--ready, --ready-after) each\n"                      \
      "CUDA process is checkpointed and restored by the driver,\n"                      \
      "against the same mode without; LAZY and EAGER, or\n"                             \
      "--module-loading's (driver 570 or later)")

#endif
