/* cli_opts.h: what the command line says: the one options struct cli_parse
 * fills (run/cli.h) and its types, limits and result codes, defined once for
 * the parser and its modules (cli.c, cli_paths.c, cli_command.c) and every
 * reader of the options. Types only: the functions are cli.h's. */
#ifndef CLI_OPTS_H
#define CLI_OPTS_H

#include <stddef.h>
#include "sections/list.h"


/* The entries of a run, in the order they run (sections/list.h): indices
 * into the table of sections (sec_table in section.h), which holds their
 * names, measurements, printers and child entry points; cli_parse is
 * handed the names (so the parser depends on no section). The first
 * CLI_NSECTIONS are the sections --section names; the node run and the
 * program follow. */
typedef enum cli_section {
    CLI_SEC_NONE = -1,          /* no entry: a child kind main runs itself */
#define CLI_SEC_ID(id, ...) CLI_SEC_##id,
    SEC_LIST(CLI_SEC_ID)
#undef CLI_SEC_ID
    CLI_NENTRIES
} cli_section;

/* How many entries --section names. */
#define CLI_SEC_COUNT(id, name, scope, ...) + SEC_IS_SECTION_##scope
enum { CLI_NSECTIONS = 0 SEC_LIST(CLI_SEC_COUNT) };
#undef CLI_SEC_COUNT


typedef enum cli_loading { CLI_LOAD_DEFAULT, CLI_LOAD_LAZY, CLI_LOAD_EAGER } cli_loading;

#define CLI_MAX_SIZES 64
#define CLI_MAX_SYNTH 16
#define CLI_MAX_MODULES 32      /* --module=PATH, each once */
#define CLI_MAX_SOURCES 16      /* --source=FILE.cu */
#define CLI_MAX_NVRTC_OPTS 32   /* --nvrtc-option=OPT */
#define CLI_MAX_DEVICES 64      /* --device=LIST */
#define CLI_MAX_ARGS 512        /* command-line words (what a device child is given) */
#define CLI_PATH_MAX 4096       /* an output path after its placeholders are expanded */

typedef enum cli_format { CLI_FMT_CUBIN, CLI_FMT_PTX } cli_format;

/* -- CMD: what its sides differ in (one at a time). */
typedef enum cli_compare {
    CLI_CMP_NONE,       /* one side: the mode --module-loading sets, or the user's own */
    CLI_CMP_LOADING,    /* --compare-loading: CUDA_MODULE_LOADING=LAZY,EAGER */
    CLI_CMP_ENV,        /* --compare-env=NAME=A,B[,...] */
    CLI_CMP_JIT_CACHE,  /* --jit-cache=cold,warm: the compute cache and the JIT layers' caches */
    CLI_CMP_COMMANDS,   /* --compare -- A --vs B: one command a side */
    CLI_CMP_SNAPSHOT    /* --snapshot: each mode with and without the driver's checkpoint */
} cli_compare;
#define CLI_MAX_SETTINGS 6      /* sides of one comparison of settings */

/* Cache states timed for each kernel (the first launch is always its own figure). */
typedef enum cli_cache { CLI_CACHE_BOTH, CLI_CACHE_WARM, CLI_CACHE_COLD } cli_cache;

/* The most samples the stopping rule takes for one measurement. */
#define CLI_MAX_SAMPLES 2000

/* Child kinds: the harness re-executed by itself for one job
 * (sections/list.h: each kind's --child word and the entry that runs it). */
typedef enum cli_child {
#define CLI_CHILD_ID(id, ...) CLI_CHILD_##id,
    SEC_CHILD_LIST(CLI_CHILD_ID)
#undef CLI_CHILD_ID
    CLI_NCHILDREN
} cli_child;

typedef struct cli_opts {
    cli_loading loading;         /* --module-loading */
    int device;                  /* --device=N, >= 0 (with a LIST: its first) */
    int device_all;              /* --device=all: every device, one child each */
    int devices[CLI_MAX_DEVICES]; /* --device=LIST (two or more, each once) */
    size_t ndevices;             /* 0 unless --device=LIST */
    double node_threshold;       /* --node-threshold=P: how far, in percent, a device's
                                    figure may lie from the node's median (default 5) */
    const char *child_args[CLI_MAX_ARGS]; /* the command line's words a device child
                                    is given: all but --device, --json, --csv,
                                    --trace, --child and --child-t0 */
    size_t nchild_args;
    const char *const *section_names; /* the CLI_NSECTIONS names cli_parse was given */
    int run[CLI_NSECTIONS];      /* --section=LIST: 1 for each section to run */
    size_t sizes[CLI_MAX_SIZES]; /* --sizes=LIST, crossover sizes (elements) */
    size_t nsizes;
    int sizes_given;             /* 1 when --sizes was on the command line */
    int warmup;                  /* --warmup=N, >= 0 */
    int reps;                    /* --reps=N, >= 1: a fixed count when reps_given,
                                    else the samples that fixed-count loops take */
    int reps_given;              /* 1: every measurement takes exactly reps samples
                                    (--reps, or --profile's one) */
    int min_samples;             /* --min-samples=N (default 10) */
    double max_noise;            /* --max-noise=P, as a fraction (default 0.01) */
    double max_time;             /* --max-time=S per measurement (default 2) */
    cli_cache cache;             /* --cache=cold|warm|both */
    int profile;                 /* --profile: every kernel once, nothing else on the GPU
                                    (reps 1, warmup 0, cache warm, no section launch) */
    const char *trace;           /* --trace=FILE or NULL */
    int quick;                   /* --quick: a fast look */
    double threshold;            /* --threshold=P: the smallest change in percent a
                                    comparison calls a difference (default 20) */
    const char *json;            /* --json=FILE or NULL */
    const char *csv;             /* --csv=FILE or NULL */
    const char *markdown;        /* --markdown=FILE, "-" (stdout) or NULL: the tables and
                                    answers as Markdown */
    const char *kernels_dir;     /* --kernels-dir=DIR or NULL (embedded sources) */
    const char *arch;            /* --arch=sm_XY or NULL (from the device) */
    int quiet;                   /* --quiet: tables only, no progress */
    int schema;                  /* --schema: print the declared keys, run nothing */
    cli_format format;           /* --module-format=cubin|ptx */
    long synth[CLI_MAX_SYNTH];   /* --synthetic-kernels=LIST: K per generated module */
    size_t nsynth;
    int compare_loading;         /* --compare-loading */
    int rounds;                  /* --rounds=N (>= 1): repeats of each once-per-process
                                    figure (children, cache states, JIT levels) */
    int compare_rounds;          /* --compare-loading's children per mode: --rounds where
                                    given (--profile: 1), else vd_children(), the fewest
                                    at which its U test can reach its level */
    const char *snapshot_mib;    /* --snapshot-mib=LIST (section snapshot), NULL: the
                                    default sizes (sections/snapshot/snapshot.h) */
    int snapshot_lock_ms;        /* --snapshot-lock-timeout=MS (default 5000; 0: none) */
    double child_timeout;        /* --child-timeout=S, seconds */
    int child_timeout_given;     /* 1 when --child-timeout was given (-- CMD: no default
                                    bound of a side's runs then, docs/program.md) */
    double kernel_timeout;       /* --kernel-timeout=S, seconds: any wait on the device */
    const char *modules[CLI_MAX_MODULES]; /* --module=PATH (repeatable): section loading
                                    reads and loads these instead of its own */
    size_t nmodules;
    const char *sources[CLI_MAX_SOURCES]; /* --source=FILE.cu (repeatable): section jit
                                    compiles these instead of its own */
    size_t nsources;
    const char *nvrtc_opts[CLI_MAX_NVRTC_OPTS]; /* --nvrtc-option=OPT (repeatable), for
                                    every --source compile */
    size_t nnvrtc_opts;
    /* Internal: set when the harness runs as its own child. */
    cli_child child;             /* --child=KIND */
    long long child_t0_ns;       /* --child-t0=NS: parent's CLOCK_MONOTONIC at spawn */
    /* The user's program: everything after "--", run without a shell. */
    const char *const *cmd;      /* its words (cmd[0] as typed), NULL when none */
    size_t ncmd;
    char cmd_path[4096];         /* cmd[0] found: as given when it has a '/', else
                                    the first executable of that name on PATH */
    cli_compare compare;         /* what the sides differ in (CLI_CMP_NONE without -- CMD) */
    char setting_name[128];      /* the variable the sides set (CUDA_MODULE_LOADING for
                                    --compare-loading, NAME of --compare-env), else "" */
    const char *setting[CLI_MAX_SETTINGS]; /* each side's value (--compare-env, with
                                    "\," read as a comma; "LAZY", "EAGER"; "cold",
                                    "warm"), pointing into setting_buf */
    size_t nsettings;            /* the sides: values, cache states or commands */
    char setting_buf[2048];
    const char *const *cmds[CLI_MAX_SETTINGS]; /* --compare: each command's words
                                    (NULL-terminated copies in cmd_words; argv is
                                    left as it is) */
    const char *cmd_words[CLI_MAX_ARGS + CLI_MAX_SETTINGS];
    size_t ncmds[CLI_MAX_SETTINGS];
    char cmd_paths[CLI_MAX_SETTINGS][CLI_PATH_MAX]; /* each found as cmd_path is */
    const char *vs_word;         /* --vs-word=WORD: what separates --compare's commands
                                    (default "--vs") */
    int warmup_given;            /* 1 when --warmup was given (-- CMD: unmeasured runs a
                                    side before the first measured one, default 1) */
    const char *prepare;         /* --prepare=CMD: sh -c CMD before each run, or NULL */
    const char *cleanup;         /* --cleanup=CMD: sh -c CMD after a side's last run, or NULL */
    int max_rounds;              /* --max-rounds=N (-- CMD): rounds go on past --rounds
                                    until every headline verdict is decided, up to N;
                                    default 2 x --rounds with a comparison, else --rounds */
    const char *ready;           /* --ready=REGEX (POSIX extended): the program is ready
                                    when a line of its stdout or stderr first matches */
    double ready_after;          /* --ready-after=S: ready S seconds after the first
                                    kernel (without --ready, or where it never matched) */
    double squeeze_mib;          /* --squeeze=MiB: before each run a helper holds the
                                    device's free memory but this many MiB; -1 when not
                                    given (and with --squeeze=auto) */
    int squeeze_auto;            /* --squeeze=auto: search each side's smallest margin */
    int snapshot;                /* --snapshot: each CUDA process of the program checkpointed
                                    and restored at its ready point (CLI_CMP_SNAPSHOT) */
    const char *preload_list;    /* --preload-list=FILE: the kernels first used after
                                    ready, written there, or NULL */
    int max_time_given;          /* --max-time=S with -- CMD: no round starts after S
                                    seconds of runs (max_time) */
    const char *program_output;  /* --program-output=DIR or NULL: keep each run's
                                    stdout and stderr there */
    int show_output;             /* --show-output: print the first run's output */
    /* --json, --csv, --trace and --program-output with their placeholders
     * (%n, %j, %t, %%) expanded: json, csv, trace and program_output point
     * here when the value had a '%' (clp_expand_outputs, run/cli_paths.h),
     * else at argv. */
    char json_buf[CLI_PATH_MAX];
    char csv_buf[CLI_PATH_MAX];
    char trace_buf[CLI_PATH_MAX];
    char program_output_buf[CLI_PATH_MAX];
} cli_opts;

/* The largest --squeeze=MiB taken (16 TiB); the device's free memory
 * bounds it at run time. */
#define CLI_SQUEEZE_MAX 16777216.0
/* The most runs --squeeze=auto's search takes a side. */
#define CLI_SQUEEZE_TRIES 16

/* Result of cli_parse. */
enum { CLI_OK = 0, CLI_EXIT = 1, CLI_USAGE = 2 };

/* A usage error in the command line's modules (cli.c, cli_paths.c,
 * cli_command.c, which include run/opt.h): "harness: <what>" and the hint
 * to err (a FILE * in scope), returned from the enclosing function as
 * CLI_USAGE. */
#define CLI_FAIL(...) return opt_fail(err, __VA_ARGS__)

#endif
