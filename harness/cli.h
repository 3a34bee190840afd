/* cli.h: the command line: getopt_long parsing into one options struct,
 * validation, --help and --version. */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>

/* Sections, in the order they run. */
typedef enum cli_section {
    CLI_SEC_STOPWATCHES,
    CLI_SEC_CROSSOVER,
    CLI_NSECTIONS
} cli_section;

/* Name of a section ("stopwatches", ...). */
const char *cli_section_name(cli_section s);

typedef enum cli_loading { CLI_LOAD_DEFAULT, CLI_LOAD_LAZY, CLI_LOAD_EAGER } cli_loading;

/* Name of a loading mode as CUDA_MODULE_LOADING spells it ("LAZY", "EAGER"),
 * or "default". */
const char *cli_loading_name(cli_loading l);

#define CLI_MAX_SIZES 64

typedef struct cli_opts {
    cli_loading loading;         /* --module-loading */
    int device;                  /* --device=N, >= 0 */
    int run[CLI_NSECTIONS];      /* --section=LIST: 1 for each section to run */
    size_t sizes[CLI_MAX_SIZES]; /* --sizes=LIST, crossover sizes (elements) */
    size_t nsizes;
    int warmup;                  /* --warmup=N, >= 0 */
    int reps;                    /* --reps=N, >= 1 */
    const char *json;            /* --json=FILE or NULL */
    const char *csv;             /* --csv=FILE or NULL */
    const char *kernels_dir;     /* --kernels-dir=DIR or NULL (embedded sources) */
    const char *arch;            /* --arch=sm_XY or NULL (from the device) */
    int quiet;                   /* --quiet: tables only, no progress */
    /* Internal: set when the harness runs as its own child. */
    const char *child;           /* --child=KIND ("waterfall") */
    long long child_t0_ns;       /* --child-t0=NS: parent's CLOCK_MONOTONIC at spawn */
} cli_opts;

/* Result of cli_parse. */
enum { CLI_OK = 0, CLI_EXIT = 1, CLI_USAGE = 2 };

/* Parse argv into *o (defaults first). Returns CLI_OK to run; CLI_EXIT when
 * --help or --version was printed to out (exit 0); CLI_USAGE on a usage
 * error, after printing "harness: <what is wrong>" and a short usage hint to
 * err (exit 2). Never exits the process itself. */
int cli_parse(int argc, char **argv, cli_opts *o, FILE *out, FILE *err);

/* Parse a size list "1024,65536" into sizes[] (at most max entries; each an
 * integer in 1..2^40, decimal digits only). Returns the count, or -1 with a
 * reason in why (static string) on malformed input. */
int cli_parse_sizes(const char *s, size_t *sizes, size_t max, const char **why);

#endif
