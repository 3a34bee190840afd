/* cli.c: command-line parsing (getopt_long), validation, --help, --version. */
#include "run/cli.h"
#include "core/verdict.h"
#include "cuda/kernels.h"
#include "os/atomicfile.h"
#include "os/exe.h"
#include "version.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The --child words, by cli_child (sections/list.h). */
static const char *const cli_child_names[] = {
#define CLI_CHILD_WORD(id, word, owner) word,
    SEC_CHILD_LIST(CLI_CHILD_WORD)
#undef CLI_CHILD_WORD
};
_Static_assert(sizeof cli_child_names / sizeof cli_child_names[0] == CLI_NCHILDREN,
               "a --child word for each child kind");

const char *cli_child_name(cli_child k)
{
    return (unsigned)k < sizeof cli_child_names / sizeof cli_child_names[0]
        ? cli_child_names[k] : "?";
}

const char *cli_format_name(cli_format f)
{
    return f == CLI_FMT_PTX ? "ptx" : "cubin";
}

const char *cli_loading_name(cli_loading l)
{
    switch (l) {
    case CLI_LOAD_LAZY: return "LAZY";
    case CLI_LOAD_EAGER: return "EAGER";
    case CLI_LOAD_DEFAULT: break;
    }
    return "default";
}

/* A number's macro as a string literal, for the usage text. */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

/* --help=all: the head, the sections (cli_print_sections), the rest (a
 * format: crossover's top size, then --rounds' defaults). */
static const char cli_usage_head[] =
"usage: harness [options]\n"
"       harness [options] -- CMD [ARGS...]\n"
"Times one CUDA program step by step: driver load, init, context, compile,\n"
"module load, allocation, copies, launch and kernel, each as its own region.\n"
"\n";

static const char cli_usage[] =
"  --module-loading=MODE   lazy or eager: sets CUDA_MODULE_LOADING before cuInit;\n"
"                          the report shows the mode requested and in effect\n"
"  --device=N|LIST|all     CUDA device ordinal (default 0); a comma list of\n"
"                          ordinals, or all: the sections run once per device,\n"
"                          each device in a child process of its own, one after\n"
"                          the other; tables per device, then a node summary\n"
"  --node-threshold=P      with several devices: name a device whose figure lies\n"
"                          more than P percent from the node's median and beyond\n"
"                          its own interval (default 5)\n"
"  --sizes=LIST            sizes in elements for crossover and the fusion n sweep\n"
"                          (defaults 1024,65536,1048576,4194304,%u and\n"
"                          1024,16384,262144,4194304,16777216,67108864,268435456)\n"
"  --warmup=N              untimed runs before each timed kernel (default 3)\n"
"  --reps=N                exactly N timed samples per measurement (default: the\n"
"                          stopping rule below)\n"
"  --min-samples=N         stopping rule: at least N samples (default 10), then\n"
"  --max-noise=P           stop once the median's 95%% interval is within P percent\n"
"                          of it (default 1)\n"
"  --max-time=S            or after S seconds of one measurement (default 2), or\n"
"                          at a quarter of that where P is out of reach by then;\n"
"                          a measurement stopped that way is flagged noisy\n"
"  --cache=STATE           cold, warm or both (default): time kernels with the L2\n"
"                          flushed before each sample, warm, or both\n"
"  --quick                 a fast look: fewer sizes, rounds, warm-ups and samples\n"
"  --profile               run every kernel version once, nothing else queued,\n"
"                          for an external profiler (Nsight Compute, Systems)\n"
"  --trace=FILE            write a Chrome trace (Perfetto, chrome://tracing) of\n"
"                          every host region and timed device span\n"
"  --threshold=P           --compare-loading: the smallest change in percent\n"
"                          called a difference (default 20)\n"
"  --json=FILE             write every measurement, with all samples, as JSON\n"
"                          (--json=-: to stdout, the tables then to stderr)\n"
"  --csv=FILE              write one CSV row per measurement\n"
"                          (FILE of --json, --csv, --trace, --program-output:\n"
"                          %%n node, %%j Slurm job id, %%t task, %%%% a '%%')\n"
"  --kernels-dir=DIR       read kernel sources from DIR instead of the copies\n"
"                          built into the binary\n"
"  --arch=sm_XY            compile for this architecture (default: the device's)\n"
"  --module-format=FMT     cubin or ptx: what the kernels are compiled to; with\n"
"                          ptx the driver's JIT is a step of its own (default cubin)\n"
"  --synthetic-kernels=LIST  K for each generated module of K kernels, for\n"
"                          sections loading and jit (default 1,10,100; each K\n"
"                          at most " CLI_STR(KN_SYNTH_MAX_K) ")\n"
"  --compare-loading       run section loading in child processes, eager and lazy\n"
"                          alternating, and compare the modes side by side\n"
"  --rounds=N              repeats of every once-per-process figure: whole-process\n"
"                          and loading children, cache states, JIT levels\n"
"                          (default 3), and --compare-loading's children per mode\n"
"                          (default %d, --quick too: the fewest at which its U test\n"
"                          can reach p < %.2f; fewer are 'out of reach')\n"
"  --child-timeout=S       seconds a child process may run (default 300)\n"
"  --kernel-timeout=S      seconds any wait for the device may take before the\n"
"                          run is stopped as stuck (default 30)\n"
"  --module=PATH           section loading: read PATH (a cubin, PTX, a fatbin, or\n"
"                          an executable or shared library with device code),\n"
"                          list its fatbins and load each, instead of the\n"
"                          harness's own modules; repeatable\n"
"  --source=FILE.cu        section jit: compile FILE.cu with NVRTC as the built-in\n"
"                          sources are, then the driver's JIT of its PTX, instead\n"
"                          of the built-in sources; repeatable\n"
"  --nvrtc-option=OPT      an NVRTC option for every --source compile (-I, -D,\n"
"                          -std=); repeatable\n"
"  --program-output=DIR    -- CMD: keep each run's stdout and stderr in DIR\n"
"                          (default: beside --json, else not kept)\n"
"  --show-output           -- CMD: print the first run's stdout and stderr\n"
"  --compare-env=NAME=A,B  -- CMD: a side per value of NAME (2 to 6; a comma in a\n"
"                          value is written \\,), compared as --compare-loading's\n"
"  --jit-cache=cold,warm   -- CMD: CUDA_CACHE_PATH and the JIT layers' caches\n"
"                          fresh each run (cold), or filled by the warm-up (warm)\n"
"  --compare               -- CMD: a side per command: -- A [ARGS] --vs B [ARGS]\n"
"  --vs-word=WORD          --compare: what separates the commands (default --vs)\n"
"  --prepare=CMD           -- CMD: sh -c CMD before every run (a failure fails it)\n"
"  --cleanup=CMD           -- CMD: sh -c CMD after each side's last run\n"
"  --max-rounds=N          -- CMD: rounds go on past --rounds until every headline\n"
"                          verdict is decided, up to N (default 2 x --rounds);\n"
"                          --warmup=N and --max-time=S are, with -- CMD, the\n"
"                          unmeasured runs a side (default 1) and the budget\n"
"  --ready=REGEX           -- CMD: ready when a line of its output or an NVTX\n"
"                          mark matches; the first uses after it are listed\n"
"  --ready-after=S         -- CMD: else ready S seconds after the first kernel\n"
"  --preload-list=FILE     -- CMD: write the kernels first used after ready\n"
"  --squeeze=MiB|auto      -- CMD: before each run a helper holds all device 0's\n"
"                          free memory but MiB; auto: bisect each side's smallest\n"
"                          margin at which the program still exits 0\n"
"  --quiet                 print only the summary (the answers, the checks, the\n"
"                          exit code); no progress lines on stderr\n"
"  -h, --help              the short help: examples, common options, the docs\n"
"  --help=all              this text (man harness has it too)\n"
"  --version               the harness version and the commit it was built from\n"
"  --schema                every measurement key a run can write, with its unit,\n"
"                          state and description, as JSON (docs/output.md)\n"
"\n"
"-- CMD [ARGS...]: run your own program (no shell), --rounds times a side, in\n"
"fresh processes: with the probe (CUPTI, loaded by the driver) and without it,\n"
"in the mode --module-loading sets, or both with --compare-loading; where its\n"
"cold start, device memory and first uses went, side by side.\n"
"\n"
"Exit codes: 0 all ran and validated; 1 a validation or invariant failed, an\n"
"error stopped a section, or a kernel ran past --kernel-timeout; 2 usage error;\n"
"3 a section needs a GPU and none is usable (the GPU-free parts still ran);\n"
"130, 143, 129 and 131 stopped by SIGINT, SIGTERM, SIGHUP and SIGQUIT (the\n"
"results so far are written, marked incomplete).\n";

/* --help and -h: one screen (at most 40 lines); --help=all has the rest.
 * The head, the sections (cli_print_sections), the rest. */
static const char cli_brief_head[] =
"usage: harness [options]\n"
"       harness [options] -- CMD [ARGS...]\n"
"Times the cold start of CUDA programs step by step (driver load, init, context,\n"
"compile, module load, launch, kernel), each as its own region, and ends every\n"
"run with a summary of its answers.\n"
"\n"
"Examples:\n"
"  harness                              every section's tables, then the answers\n"
"  harness --quick --quiet              a fast look: the answers alone\n"
"  harness --compare-loading -- ./app   your program, LAZY against EAGER loading\n"
"  harness --section=loading --module=libfoo.so --compare-loading\n"
"                                       a library's device code in both modes\n"
"  harness --json=b1.json              keep a run; with 3 runs of each build,\n"
"                                       harness-compare a?.json -- b?.json\n"
"\n"
"Common options (--help=all lists every one):\n";

static const char cli_brief[] =
"  --quick               fewer sizes, rounds and samples\n"
"  --quiet               print only the summary; no progress lines\n"
"  --device=N|LIST|all   the device (default 0), or several: a child each\n"
"  --module-loading=MODE lazy or eager (sets CUDA_MODULE_LOADING)\n"
"  --compare-loading     both modes, alternating, with a verdict on each figure\n"
"  --rounds=N            fresh processes per once-per-process figure\n"
"  --module=PATH         section loading: your cubin, PTX, fatbin or library\n"
"  --source=FILE.cu      section jit: your kernel source\n"
"  --json=FILE           every measurement, with all samples (--csv=FILE too)\n"
"  -h, --help[=all]      this text; all: every option\n"
"  --version             the version and the commit it was built from\n"
"  --schema              every measurement key a run can write, as JSON\n"
"\n"
"Docs: docs/README.md indexes them (installed under share/doc/harness); one page\n"
"a section (stopwatches.md, loading.md, jit.md, launch.md, fusion.md...),\n"
"program.md for -- CMD, compare.md, options.md, output.md, failures.md.\n"
"Exit codes: 0 all ran and validated; 1 a check or a call failed; 2 usage error;\n"
"3 no usable GPU for a section asked for.\n";

/* The widest line of --help. */
#define CLI_HELP_WIDTH 79

/* --help's line of --section=LIST: lead (the option, padded to the column
 * of its description), then head (a phrase, or ""), the section names
 * (names[0..CLI_NSECTIONS-1]) each with a comma, "all" and tail (kept on one
 * line), one space apart, wrapped at CLI_HELP_WIDTH columns; each line after
 * the first is indented to the description's column. */
static void cli_print_sections(FILE *out, const char *const *names, const char *lead,
                               const char *head, const char *tail)
{
    char unit[128];
    size_t col = strlen(lead), start = col, i, n;

    fputs(lead, out);
    for (i = 0; i < CLI_NSECTIONS + 3; i++) {
        if (i == 0) snprintf(unit, sizeof unit, "%s", head);
        else if (i <= CLI_NSECTIONS) snprintf(unit, sizeof unit, "%s,", names[i - 1]);
        else snprintf(unit, sizeof unit, "%s", i == CLI_NSECTIONS + 1 ? "all" : tail);
        if (!(n = strlen(unit))) continue;
        if (col > start && col + 1 + n > CLI_HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)start, "");
            col = start;
        }
        fprintf(out, "%s%s", col > start ? " " : "", unit);
        col += (col > start) + n;
    }
    fputc('\n', out);
}

static const char cli_hint[] = "Try 'harness --help' for the options.\n";

enum { O_LOADING = 256, O_DEVICE, O_SECTION, O_SIZES, O_WARMUP, O_REPS, O_JSON,
       O_CSV, O_KDIR, O_ARCH, O_QUIET, O_HELP, O_VERSION, O_CHILD, O_CHILD_T0,
       O_FORMAT, O_SYNTH, O_COMPARE, O_ROUNDS, O_CTIMEOUT, O_MINS, O_NOISE,
       O_MAXTIME, O_CACHE, O_PROFILE, O_TRACE, O_QUICK, O_THRESHOLD, O_KTIMEOUT,
       O_MODULE, O_SOURCE, O_NVRTC_OPT, O_NODE_THRESHOLD, O_PROG_OUT, O_SHOW_OUT,
       O_COMPARE_ENV, O_JIT_CACHE, O_COMPARE_CMDS, O_VS_WORD, O_PREPARE, O_CLEANUP,
       O_MAX_ROUNDS, O_READY, O_READY_AFTER, O_PRELOAD, O_SQUEEZE, O_SCHEMA, O_LAST };

static const struct option cli_longopts[] = {
    { "module-loading", required_argument, NULL, O_LOADING },
    { "device",         required_argument, NULL, O_DEVICE },
    { "section",        required_argument, NULL, O_SECTION },
    { "sizes",          required_argument, NULL, O_SIZES },
    { "warmup",         required_argument, NULL, O_WARMUP },
    { "reps",           required_argument, NULL, O_REPS },
    { "json",           required_argument, NULL, O_JSON },
    { "csv",            required_argument, NULL, O_CSV },
    { "kernels-dir",    required_argument, NULL, O_KDIR },
    { "arch",           required_argument, NULL, O_ARCH },
    { "quiet",          no_argument,       NULL, O_QUIET },
    { "help",           optional_argument, NULL, O_HELP },
    { "version",        no_argument,       NULL, O_VERSION },
    { "child",          required_argument, NULL, O_CHILD },
    { "child-t0",       required_argument, NULL, O_CHILD_T0 },
    { "module-format",  required_argument, NULL, O_FORMAT },
    { "synthetic-kernels", required_argument, NULL, O_SYNTH },
    { "compare-loading", no_argument,      NULL, O_COMPARE },
    { "rounds",         required_argument, NULL, O_ROUNDS },
    { "child-timeout",  required_argument, NULL, O_CTIMEOUT },
    { "min-samples",    required_argument, NULL, O_MINS },
    { "max-noise",      required_argument, NULL, O_NOISE },
    { "max-time",       required_argument, NULL, O_MAXTIME },
    { "cache",          required_argument, NULL, O_CACHE },
    { "profile",        no_argument,       NULL, O_PROFILE },
    { "trace",          required_argument, NULL, O_TRACE },
    { "quick",          no_argument,       NULL, O_QUICK },
    { "threshold",      required_argument, NULL, O_THRESHOLD },
    { "kernel-timeout", required_argument, NULL, O_KTIMEOUT },
    { "module",         required_argument, NULL, O_MODULE },
    { "source",         required_argument, NULL, O_SOURCE },
    { "nvrtc-option",   required_argument, NULL, O_NVRTC_OPT },
    { "node-threshold", required_argument, NULL, O_NODE_THRESHOLD },
    { "program-output", required_argument, NULL, O_PROG_OUT },
    { "show-output",    no_argument,       NULL, O_SHOW_OUT },
    { "compare-env",    required_argument, NULL, O_COMPARE_ENV },
    { "jit-cache",      required_argument, NULL, O_JIT_CACHE },
    { "compare",        no_argument,       NULL, O_COMPARE_CMDS },
    { "vs-word",        required_argument, NULL, O_VS_WORD },
    { "prepare",        required_argument, NULL, O_PREPARE },
    { "cleanup",        required_argument, NULL, O_CLEANUP },
    { "max-rounds",     required_argument, NULL, O_MAX_ROUNDS },
    { "ready",          required_argument, NULL, O_READY },
    { "ready-after",    required_argument, NULL, O_READY_AFTER },
    { "preload-list",   required_argument, NULL, O_PRELOAD },
    { "squeeze",        required_argument, NULL, O_SQUEEZE },
    { "schema",         no_argument,       NULL, O_SCHEMA },
    { NULL, 0, NULL, 0 }
};
/* The error messages name an option by its place: cli_longopts[c - O_LOADING]. */
_Static_assert(sizeof cli_longopts / sizeof cli_longopts[0] == O_LAST - O_LOADING + 1,
               "one long option for each O_ value, in the enum's order");

/* Parse a whole decimal integer in [lo, hi]. Returns 0, or -1. */
static int cli_int(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    long long x;
    if (!*s || isspace((unsigned char)*s)) return -1;
    errno = 0;
    x = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

/* Parse a finite decimal number in [lo, hi]. Returns 0, or -1. */
static int cli_num(const char *s, double lo, double hi, double *v)
{
    char *end;
    double x;
    if (!*s || isspace((unsigned char)*s)) return -1;
    errno = 0;
    x = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(x) || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int cli_parse_sizes(const char *s, size_t *sizes, size_t max, const char **why)
{
    size_t count = 0;
    const char *p = s;

    if (!*s) {
        *why = "the list is empty";
        return -1;
    }
    for (;;) {
        unsigned long long v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (unsigned long long)(*p - '0');
            if (v > (1ULL << 40)) {
                *why = "a size is larger than 2^40 elements";
                return -1;
            }
            p++;
        }
        if (p == start) {
            *why = *p == ',' || *p == '\0' ? "an empty entry" : "an entry that is not a whole number";
            return -1;
        }
        if (*p != ',' && *p != '\0') {
            *why = "an entry that is not a whole number";
            return -1;
        }
        if (v == 0) {
            *why = "a size of 0";
            return -1;
        }
        if (count == max) {
            *why = "too many sizes";
            return -1;
        }
        sizes[count++] = (size_t)v;
        if (*p == '\0') break;
        p++;
    }
    return (int)count;
}

/* The section names joined by ", " into buf (cut short when it is full). */
static const char *cli_join_names(const char *const *names, char *buf, size_t len)
{
    size_t i, at = 0;

    buf[0] = '\0';
    for (i = 0; i < CLI_NSECTIONS && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i]);
        if (w < 0) break;
        at += (size_t)w;
    }
    return buf;
}

/* Parse --section's list into run[]. Returns 0, or -1 with what is wrong in bad. */
static int cli_sections(const char *s, const char *const *names, int run[CLI_NSECTIONS], char *bad,
                        size_t badlen)
{
    char buf[256], *tok, *save = NULL;
    int i, any = 0;

    if (strlen(s) >= sizeof buf || !*s) {
        snprintf(bad, badlen, "%s", *s ? "the list is too long" : "the list is empty");
        return -1;
    }
    strcpy(buf, s);
    for (i = 0; i < CLI_NSECTIONS; i++) run[i] = 0;
    if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,")) {
        snprintf(bad, badlen, "an empty entry");
        return -1;
    }
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        if (strcmp(tok, "all") == 0) {
            for (i = 0; i < CLI_NSECTIONS; i++) run[i] = 1;
            found = 1;
        }
        for (i = 0; i < CLI_NSECTIONS && !found; i++) {
            if (strcmp(tok, names[i]) == 0) {
                run[i] = 1;
                found = 1;
            }
        }
        if (!found) {
            snprintf(bad, badlen, "unknown section '%.200s'", tok);
            return -1;
        }
        any = 1;
    }
    return any ? 0 : -1;
}

static int cli_valid_arch(const char *s)
{
    size_t i, digits = 0;
    if (strncmp(s, "sm_", 3) != 0) return 0;
    for (i = 3; s[i] >= '0' && s[i] <= '9'; i++) digits++;
    if (digits < 2 || digits > 3) return 0;
    if (s[i] == 'a' || s[i] == 'f') i++;
    return s[i] == '\0';
}

/* The suffixes of a valid sm_XY[a|f] NVRTC takes: 'a' (architecture-
 * specific features) from sm_90 on, 'f' (family-specific) from sm_100 on;
 * NVRTC 13.0 refuses sm_89a and sm_90f with "invalid or no value specified
 * with --nv_arch", after the run has begun. Which numbers this NVRTC
 * compiles for is rtc_arch_check's, once it is loaded. Returns 1 when s
 * keeps the rule, else 0 with the smallest number its suffix takes in
 * *from. */
static int cli_arch_suffix_ok(const char *s, unsigned *from)
{
    size_t n = strlen(s);
    unsigned v = (unsigned)strtoul(s + 3, NULL, 10);
    *from = s[n - 1] == 'a' ? 90 : s[n - 1] == 'f' ? 100 : 0;
    return v >= *from;
}

static void cli_defaults(cli_opts *o)
{
    /* Crossover's sizes end at the stopwatches' n, vectorAdd's, whose rows
     * it takes where that section ran (sections/crossover/crossover.c). */
    static const size_t sizes[] = { 1024, 65536, 1048576, 4194304, KN_VECADD_N };
    int i;
    memset(o, 0, sizeof *o);
    o->loading = CLI_LOAD_DEFAULT;
    for (i = 0; i < CLI_NSECTIONS; i++) o->run[i] = 1;
    memcpy(o->sizes, sizes, sizeof sizes);
    o->nsizes = sizeof sizes / sizeof sizes[0];
    o->warmup = 3;
    o->reps = 10;
    o->format = CLI_FMT_CUBIN;
    o->synth[0] = 1;
    o->synth[1] = 10;
    o->synth[2] = 100;
    o->nsynth = 3;
    o->rounds = 3;
    o->squeeze_mib = -1;
    o->child_timeout = 300;
    o->min_samples = 10;
    o->max_noise = 0.01;
    o->max_time = 2.0;
    o->cache = CLI_CACHE_BOTH;
    o->threshold = 20.0;
    o->kernel_timeout = 30;
    o->node_threshold = 5.0;
}

/* Parse --synthetic-kernels: K in 1 .. KN_SYNTH_MAX_K. Returns the count,
 * or -1 with what is wrong in bad. */
static int cli_synth(const char *s, long *k, size_t max, char *bad, size_t badlen)
{
    size_t sizes[CLI_MAX_SYNTH], i;
    const char *why = "";
    int n;

    if (*s == '-' || strstr(s, ",-")) {
        snprintf(bad, badlen, "a negative K");
        return -1;
    }
    n = cli_parse_sizes(s, sizes, max, &why);
    if (n < 0) {
        snprintf(bad, badlen, "%s", why);
        return -1;
    }
    for (i = 0; i < (size_t)n; i++) {
        if (sizes[i] > KN_SYNTH_MAX_K) {
            snprintf(bad, badlen, "K = %zu is more than %d, the most kernels one NVRTC compile "
                     "of a module finishes within the default --child-timeout (its time grows as "
                     "K squared)", sizes[i], KN_SYNTH_MAX_K);
            return -1;
        }
        k[i] = (long)sizes[i];
    }
    return n;
}

int cli_parse_devices(const char *s, int *dev, size_t max, char *bad, size_t badlen)
{
    size_t n = 0, i;
    const char *p = s;

    for (;;) {
        long v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= 1023) v = v * 10 + (*p++ - '0');
        if (p == start || (*p != ',' && *p != '\0') || v > 1023) {
            snprintf(bad, badlen, p == start && (*p == ',' || *p == '\0') ? "an empty entry"
                     : "'%.40s' is not a device ordinal, 0 to 1023", start);
            return -1;
        }
        for (i = 0; i < n; i++)
            if (dev[i] == (int)v) {
                snprintf(bad, badlen, "device %ld is named twice", v);
                return -1;
            }
        if (n == max) {
            snprintf(bad, badlen, "more than %zu devices", max);
            return -1;
        }
        dev[n++] = (int)v;
        if (*p == '\0') return (int)n;
        p++;
    }
}

int cli_node(const cli_opts *o)
{
    return o->device_all || o->ndevices > 0;
}

/* A usage error: "harness: <what>" and the hint to err (a FILE * in scope),
 * then return CLI_USAGE from the enclosing function. */
#define CLI_FAIL(...) do {                                                  \
        fprintf(err, "harness: ");                                          \
        fprintf(err, __VA_ARGS__);                                          \
        fprintf(err, "\n%s", cli_hint);                                     \
        return CLI_USAGE;                                                   \
    } while (0)

/* 1 when option opt was on the command line. */
static int cli_given(const int *seen, int opt)
{
    return seen[opt - O_LOADING] != 0;
}

/* What runs, on which device, over which sizes: --section, --device,
 * --module-loading, --compare-loading, --sizes, --synthetic-kernels.
 * Returns CLI_OK, or CLI_USAGE after printing what is wrong to err. */
static int cli_opt_plan(int c, const char *arg, cli_opts *o, FILE *err)
{
    char bad[256], list[256];
    const char *why = "";
    int n;

    switch (c) {
    case O_SECTION:
        if (cli_sections(arg, o->section_names, o->run, bad, sizeof bad) != 0)
            CLI_FAIL("--section=%s: %s; expected a comma list of %s, all", arg, bad,
                     cli_join_names(o->section_names, list, sizeof list));
        break;
    case O_DEVICE:
        if (strcmp(arg, "all") == 0) {
            o->device_all = 1;
            break;
        }
        n = cli_parse_devices(arg, o->devices, CLI_MAX_DEVICES, bad, sizeof bad);
        if (n < 0) CLI_FAIL("--device=%s: %s; expected a device ordinal, a comma list of "
                            "them (each once), or all", arg, bad);
        o->device = o->devices[0];
        o->ndevices = n > 1 ? (size_t)n : 0;
        break;
    case O_LOADING:
        if (strcmp(arg, "lazy") == 0) o->loading = CLI_LOAD_LAZY;
        else if (strcmp(arg, "eager") == 0) o->loading = CLI_LOAD_EAGER;
        else CLI_FAIL("--module-loading=%s: expected lazy or eager", arg);
        break;
    case O_COMPARE: o->compare_loading = 1; break;
    case O_SIZES:
        n = cli_parse_sizes(arg, o->sizes, CLI_MAX_SIZES, &why);
        if (n < 0) CLI_FAIL("--sizes=%s: %s; expected a comma list of element counts, "
                            "1 to 2^40, at most %d", arg, why, CLI_MAX_SIZES);
        o->nsizes = (size_t)n;
        o->sizes_given = 1;
        break;
    case O_SYNTH:
        n = cli_synth(arg, o->synth, CLI_MAX_SYNTH, bad, sizeof bad);
        if (n < 0) CLI_FAIL("--synthetic-kernels=%s: %s; expected a comma list of kernel "
                            "counts K from 1 to %d, at most %d", arg, bad, KN_SYNTH_MAX_K, CLI_MAX_SYNTH);
        o->nsynth = (size_t)n;
        break;
    }
    return CLI_OK;
}

/* How the kernels are built: --arch, --module-format, --kernels-dir.
 * Returns CLI_OK, or CLI_USAGE after printing what is wrong to err. */
static int cli_opt_build(int c, const char *arg, cli_opts *o, FILE *err)
{
    unsigned from;

    switch (c) {
    case O_ARCH:
        if (!cli_valid_arch(arg))
            CLI_FAIL("--arch=%s: expected sm_XY (e.g. sm_90, sm_90a)", arg);
        if (!cli_arch_suffix_ok(arg, &from))
            CLI_FAIL("--arch=%s: NVRTC takes the '%c' suffix (%s) from sm_%u on; not for %.*s",
                     arg, arg[strlen(arg) - 1],
                     from == 90 ? "architecture-specific" : "family-specific", from,
                     (int)strlen(arg) - 1, arg);
        o->arch = arg;
        break;
    case O_FORMAT:
        if (strcmp(arg, "cubin") == 0) o->format = CLI_FMT_CUBIN;
        else if (strcmp(arg, "ptx") == 0) o->format = CLI_FMT_PTX;
        else CLI_FAIL("--module-format=%s: expected cubin or ptx", arg);
        break;
    case O_KDIR: o->kernels_dir = arg; break;
    }
    return CLI_OK;
}

/* How many samples each measurement takes: --warmup, --reps and the
 * stopping rule (--min-samples, --max-noise, --max-time). Returns CLI_OK,
 * or CLI_USAGE after printing what is wrong to err. */
static int cli_opt_samples(int c, const char *arg, cli_opts *o, FILE *err)
{
    long long v;
    double d;

    switch (c) {
    case O_WARMUP:
        if (cli_int(arg, 0, 10000, &v) != 0)
            CLI_FAIL("--warmup=%s: expected a whole number, 0 to 10000", arg);
        o->warmup = (int)v;
        break;
    case O_REPS:
        if (cli_int(arg, 1, 100000, &v) != 0)
            CLI_FAIL("--reps=%s: expected a whole number, 1 to 100000", arg);
        o->reps = (int)v;
        o->reps_given = 1;
        break;
    case O_MINS:
        if (cli_int(arg, 1, CLI_MAX_SAMPLES, &v) != 0)
            CLI_FAIL("--min-samples=%s: expected a whole number, 1 to %d", arg, CLI_MAX_SAMPLES);
        o->min_samples = (int)v;
        break;
    case O_NOISE:
        if (cli_num(arg, 0.001, 100, &d) != 0)
            CLI_FAIL("--max-noise=%s: expected a percentage, 0.001 to 100", arg);
        o->max_noise = d / 100.0;
        break;
    case O_MAXTIME:
        if (cli_num(arg, 0.001, 3600, &d) != 0)
            CLI_FAIL("--max-time=%s: expected seconds, 0.001 to 3600", arg);
        o->max_time = d;
        break;
    }
    return CLI_OK;
}

/* Which states and repeats are measured, and the run's modes: --cache,
 * --rounds, --quick, --profile. Returns CLI_OK, or CLI_USAGE after printing
 * what is wrong to err. */
static int cli_opt_modes(int c, const char *arg, cli_opts *o, FILE *err)
{
    long long v;

    switch (c) {
    case O_CACHE:
        if (strcmp(arg, "both") == 0) o->cache = CLI_CACHE_BOTH;
        else if (strcmp(arg, "warm") == 0) o->cache = CLI_CACHE_WARM;
        else if (strcmp(arg, "cold") == 0) o->cache = CLI_CACHE_COLD;
        else CLI_FAIL("--cache=%s: expected cold, warm or both", arg);
        break;
    case O_ROUNDS:
        if (cli_int(arg, 1, 1000, &v) != 0)
            CLI_FAIL("--rounds=%s: expected a whole number, 1 to 1000", arg);
        o->rounds = (int)v;
        break;
    case O_QUICK: o->quick = 1; break;
    case O_PROFILE: o->profile = 1; break;
    }
    return CLI_OK;
}

/* Where results go and what is printed: --json, --csv, --trace, --quiet,
 * --threshold. Returns CLI_OK, or CLI_USAGE after printing what is wrong to
 * err. */
static int cli_opt_output(int c, const char *arg, cli_opts *o, FILE *err)
{
    double d;

    switch (c) {
    case O_JSON: o->json = arg; break;
    case O_CSV: o->csv = arg; break;
    case O_TRACE: o->trace = arg; break;
    case O_QUIET: o->quiet = 1; break;
    case O_THRESHOLD:
        if (cli_num(arg, 0, 1000, &d) != 0)
            CLI_FAIL("--threshold=%s: expected a percentage, 0 to 1000", arg);
        o->threshold = d;
        break;
    case O_NODE_THRESHOLD:
        if (cli_num(arg, 0, 1000, &d) != 0 || d <= 0)
            CLI_FAIL("--node-threshold=%s: expected a percentage above 0, at most 1000", arg);
        o->node_threshold = d;
        break;
    }
    return CLI_OK;
}

/* Time limits and the options of a child run: --child-timeout,
 * --kernel-timeout, --child, --child-t0. Returns CLI_OK, or CLI_USAGE after
 * printing what is wrong to err. */
static int cli_opt_process(int c, const char *arg, cli_opts *o, FILE *err)
{
    long long v;
    size_t k;

    switch (c) {
    case O_CTIMEOUT:
        if (cli_int(arg, 1, 86400, &v) != 0)
            CLI_FAIL("--child-timeout=%s: expected seconds, 1 to 86400", arg);
        o->child_timeout = (double)v;
        break;
    case O_KTIMEOUT:
        if (cli_int(arg, 1, 86400, &v) != 0)
            CLI_FAIL("--kernel-timeout=%s: expected seconds, 1 to 86400", arg);
        o->kernel_timeout = (double)v;
        break;
    case O_CHILD:
        for (k = 1; k < sizeof cli_child_names / sizeof cli_child_names[0]; k++)
            if (strcmp(arg, cli_child_names[k]) == 0) o->child = (cli_child)k;
        if (o->child == CLI_CHILD_NONE) CLI_FAIL("--child=%s: not a child kind", arg);
        break;
    case O_CHILD_T0:
        if (cli_int(arg, 0, LLONG_MAX, &v) != 0) CLI_FAIL("--child-t0=%s: bad time", arg);
        o->child_t0_ns = v;
        break;
    }
    return CLI_OK;
}

/* The user's own code: --module, --source, --nvrtc-option, each
 * repeatable up to its limit (a path given twice is one module). Returns
 * CLI_OK, or CLI_USAGE after printing what is wrong to err. */
static int cli_opt_code(int c, const char *arg, cli_opts *o, FILE *err)
{
    size_t i;

    switch (c) {
    case O_MODULE:
        for (i = 0; i < o->nmodules; i++)
            if (strcmp(o->modules[i], arg) == 0) CLI_FAIL("--module=%s given more than once", arg);
        if (o->nmodules == CLI_MAX_MODULES) CLI_FAIL("--module: at most %d modules", CLI_MAX_MODULES);
        o->modules[o->nmodules++] = arg;
        break;
    case O_SOURCE:
        if (o->nsources == CLI_MAX_SOURCES) CLI_FAIL("--source: at most %d sources", CLI_MAX_SOURCES);
        o->sources[o->nsources++] = arg;
        break;
    case O_NVRTC_OPT:
        if (o->nnvrtc_opts == CLI_MAX_NVRTC_OPTS)
            CLI_FAIL("--nvrtc-option: at most %d options", CLI_MAX_NVRTC_OPTS);
        o->nvrtc_opts[o->nnvrtc_opts++] = arg;
        break;
    case O_PROG_OUT: o->program_output = arg; break;
    case O_SHOW_OUT: o->show_output = 1; break;
    }
    return CLI_OK;
}

/* 1 when name is a variable name: a letter or '_', then letters, digits, '_'. */
static int cli_var_name(const char *name, size_t len)
{
    size_t i;
    if (len == 0 || isdigit((unsigned char)name[0])) return 0;
    for (i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_') return 0;
    return 1;
}

/* --compare-env=NAME=A,B[,...]: the name into o->setting_name, the values
 * (a comma inside one written "\,") into o->setting. Returns CLI_OK, or
 * CLI_USAGE after printing what is wrong to err. */
static int cli_compare_env(const char *arg, cli_opts *o, FILE *err)
{
    const char *eq = strchr(arg, '='), *p;
    size_t nl = eq ? (size_t)(eq - arg) : 0, at = 0, start = 0;

    if (!eq || nl == 0)
        CLI_FAIL("--compare-env=%s: expected NAME=A,B[,...] (a comma inside a value is "
                 "written \\,)", arg);
    if (!cli_var_name(arg, nl) || nl >= sizeof o->setting_name)
        CLI_FAIL("--compare-env=%s: '%.*s' is not a variable name (letters, digits and '_', "
                 "not starting with a digit, at most %zu)", arg, (int)nl, arg,
                 sizeof o->setting_name - 1);
    memcpy(o->setting_name, arg, nl);
    o->setting_name[nl] = '\0';
    if (strncmp(o->setting_name, "HARNESS_PROBE", 13) == 0 ||
        strcmp(o->setting_name, "CUDA_INJECTION64_PATH") == 0)
        CLI_FAIL("--compare-env=%s: %s is the harness's own (the probe is loaded through it)",
                 arg, o->setting_name);
    if (!eq[1]) CLI_FAIL("--compare-env=%s: no values after '='; expected NAME=A,B[,...]", arg);
    for (p = eq + 1;; p++) {
        if (at + 2 >= sizeof o->setting_buf)
            CLI_FAIL("--compare-env=%s: longer than %zu characters", arg, sizeof o->setting_buf - 2);
        if (*p == '\\' && p[1] == ',') {
            o->setting_buf[at++] = *++p;
            continue;
        }
        if (*p && *p != ',') {
            o->setting_buf[at++] = *p;
            continue;
        }
        o->setting_buf[at++] = '\0';
        if (at - 1 == start)
            CLI_FAIL("--compare-env=%s: value %zu is empty; write each value (a comma inside "
                     "one as \\,)", arg, o->nsettings + 1);
        if (o->nsettings == CLI_MAX_SETTINGS)
            CLI_FAIL("--compare-env=%s: more than %d values", arg, CLI_MAX_SETTINGS);
        o->setting[o->nsettings++] = o->setting_buf + start;
        start = at;
        if (!*p) break;
    }
    if (o->nsettings < 2)
        CLI_FAIL("--compare-env=%s: one value; a comparison takes two or more (NAME=A,B)", arg);
    o->compare = CLI_CMP_ENV;
    return CLI_OK;
}

/* --jit-cache=LIST: cold and warm, each at most once, in the order given. */
static int cli_jit_cache(const char *arg, cli_opts *o, FILE *err)
{
    const char *p = arg;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *v = n == 4 && strncmp(p, "cold", 4) == 0 ? "cold"
                      : n == 4 && strncmp(p, "warm", 4) == 0 ? "warm" : NULL;
        size_t i;
        if (!v) CLI_FAIL("--jit-cache=%s: '%.*s': expected cold, warm or cold,warm", arg, (int)n, p);
        for (i = 0; i < o->nsettings; i++)
            if (o->setting[i] == v) CLI_FAIL("--jit-cache=%s: %s given twice", arg, v);
        o->setting[o->nsettings++] = v;
        p += n;
        if (*p == ',' && !*++p) CLI_FAIL("--jit-cache=%s: an empty entry at the end", arg);
    }
    o->compare = CLI_CMP_JIT_CACHE;
    return CLI_OK;
}

/* The options of -- CMD's sides and runs: --compare-env, --jit-cache,
 * --compare, --vs-word, --prepare, --cleanup, --max-rounds. Returns
 * CLI_OK, or CLI_USAGE after printing what is wrong to err. */
static int cli_opt_program(int c, const char *arg, cli_opts *o, FILE *err)
{
    long long v;
    double d;

    if ((c == O_COMPARE_ENV || c == O_JIT_CACHE || c == O_COMPARE_CMDS) && o->compare != CLI_CMP_NONE)
        CLI_FAIL("--compare-env, --jit-cache and --compare each set the sides; give one of them");
    switch (c) {
    case O_COMPARE_ENV: return cli_compare_env(arg, o, err);
    case O_JIT_CACHE: return cli_jit_cache(arg, o, err);
    case O_COMPARE_CMDS: o->compare = CLI_CMP_COMMANDS; break;
    case O_VS_WORD: o->vs_word = arg; break;
    case O_PREPARE: o->prepare = arg; break;
    case O_CLEANUP: o->cleanup = arg; break;
    case O_MAX_ROUNDS:
        if (cli_int(arg, 1, 1000, &v) != 0)
            CLI_FAIL("--max-rounds=%s: expected a whole number, 1 to 1000", arg);
        o->max_rounds = (int)v;
        break;
    case O_READY: {
        regex_t re;
        char msg[200];
        int rc = regcomp(&re, arg, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            regerror(rc, &re, msg, sizeof msg);
            CLI_FAIL("--ready=%s: not a regular expression (POSIX extended): %s", arg, msg);
        }
        regfree(&re);
        o->ready = arg;
        break;
    }
    case O_READY_AFTER:
        if (cli_num(arg, 0, 86400, &d) != 0)
            CLI_FAIL("--ready-after=%s: expected seconds after the first kernel, 0 to 86400", arg);
        o->ready_after = d;
        break;
    case O_PRELOAD: o->preload_list = arg; break;
    case O_SQUEEZE:
        if (strcmp(arg, "auto") == 0) o->squeeze_auto = 1;
        else if (cli_int(arg, 0, (long long)CLI_SQUEEZE_MAX, &v) == 0) o->squeeze_mib = (double)v;
        else CLI_FAIL("--squeeze=%s: expected the MiB to leave free, a whole number from 0 to %.0f, "
                      "or auto", arg, CLI_SQUEEZE_MAX);
        break;
    }
    return CLI_OK;
}

/* Apply option c with its value arg (NULL for a flag) to o, through the
 * handler of its group. Returns CLI_OK; CLI_EXIT after printing --help or
 * --version to out; CLI_USAGE after printing what is wrong to err. */
static int cli_option(int c, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    switch (c) {
    case O_HELP:
        if (!arg) {
            fputs(cli_brief_head, out);
            cli_print_sections(out, o->section_names, "  --section=LIST        ", "", "(default)");
            fputs(cli_brief, out);
        } else if (strcmp(arg, "all") == 0) {
            fputs(cli_usage_head, out);
            cli_print_sections(out, o->section_names, "  --section=LIST          ",
                               "sections to run, in order:", "(default: all)");
            /* Its formats: crossover's top size, then --rounds'. */
            fprintf(out, cli_usage, KN_VECADD_N, vd_children(), VD_ALPHA);
        } else CLI_FAIL("--help=%s: the value is 'all' (or none: the short help)", arg);
        return CLI_EXIT;
    case O_VERSION:
        fprintf(out, "harness %s (commit %s)\n", HARNESS_VERSION, harness_commit);
        return CLI_EXIT;
    case O_SCHEMA:
        o->schema = 1;
        return CLI_OK;
    case O_SECTION: case O_DEVICE: case O_LOADING: case O_COMPARE: case O_SIZES: case O_SYNTH:
        return cli_opt_plan(c, arg, o, err);
    case O_ARCH: case O_FORMAT: case O_KDIR:
        return cli_opt_build(c, arg, o, err);
    case O_WARMUP: case O_REPS: case O_MINS: case O_NOISE: case O_MAXTIME:
        return cli_opt_samples(c, arg, o, err);
    case O_CACHE: case O_ROUNDS: case O_QUICK: case O_PROFILE:
        return cli_opt_modes(c, arg, o, err);
    case O_JSON: case O_CSV: case O_TRACE: case O_QUIET: case O_THRESHOLD: case O_NODE_THRESHOLD:
        return cli_opt_output(c, arg, o, err);
    case O_CTIMEOUT: case O_KTIMEOUT: case O_CHILD: case O_CHILD_T0:
        return cli_opt_process(c, arg, o, err);
    case O_MODULE: case O_SOURCE: case O_NVRTC_OPT: case O_PROG_OUT: case O_SHOW_OUT:
        return cli_opt_code(c, arg, o, err);
    case O_COMPARE_ENV: case O_JIT_CACHE: case O_COMPARE_CMDS: case O_VS_WORD: case O_PREPARE:
    case O_CLEANUP: case O_MAX_ROUNDS: case O_READY: case O_READY_AFTER: case O_PRELOAD:
    case O_SQUEEZE:
        return cli_opt_program(c, arg, o, err);
    }
    /* Only an option in cli_longopts without a handler above comes here. */
    CLI_FAIL("unknown option '--%s'", cli_longopts[c - O_LOADING].name);
}

/* What getopt_long returned for argv[optind - 1], before its value is read:
 * an unknown option, a flag given a value, a value missing or empty (only
 * --child may be empty), an option given twice (counted in seen). Returns
 * CLI_OK, or CLI_USAGE after printing what is wrong to err. */
static int cli_admit(int c, char **argv, int *seen, FILE *err)
{
    const char *name;

    if (c == '?') {
        if (optopt >= O_LOADING && optopt < O_LAST)
            CLI_FAIL("option '--%s' takes no value", cli_longopts[optopt - O_LOADING].name);
        /* A short option (there are none): getopt names its letter in optopt
         * and, inside a cluster such as -xyz, has not moved optind past it. */
        if (optopt > 0 && optopt < 256) CLI_FAIL("unknown option '-%c'", optopt);
        CLI_FAIL("unknown option '%s'", argv[optind - 1]);
    }
    if (c == ':') CLI_FAIL("option '%s' needs a value", argv[optind - 1]);
    if (c < O_LOADING || c >= O_LAST) CLI_FAIL("unknown option '%s'", argv[optind - 1]);
    name = cli_longopts[c - O_LOADING].name;
    if (seen[c - O_LOADING]++ && c != O_MODULE && c != O_SOURCE && c != O_NVRTC_OPT)
        CLI_FAIL("--%s given more than once", name);
    if (optarg && !*optarg && c != O_CHILD) CLI_FAIL("--%s needs a value; it is empty", name);
    return CLI_OK;
}

/* Keep the words argv[from..to-1] of option c for a device child, unless c
 * is one the node run sets itself (--device, --child, --child-t0) or one
 * whose files only the parent writes (--json, --csv, --trace). Returns
 * CLI_OK, or CLI_USAGE when the command line has more than CLI_MAX_ARGS
 * words. */
static int cli_keep_for_child(int c, char **argv, int from, int to, cli_opts *o, FILE *err)
{
    int i;

    if (c == O_DEVICE || c == O_JSON || c == O_CSV || c == O_TRACE || c == O_CHILD ||
        c == O_CHILD_T0)
        return CLI_OK;
    for (i = from; i < to; i++) {
        if (o->nchild_args == CLI_MAX_ARGS) CLI_FAIL("more than %d options", CLI_MAX_ARGS);
        o->child_args[o->nchild_args++] = argv[i];
    }
    return CLI_OK;
}

/* The getopt_long loop: admit and apply each option in order, then refuse
 * a word that is not an option. Returns CLI_OK, or the first CLI_EXIT or
 * CLI_USAGE (printed). */
static int cli_read_options(int argc, char **argv, cli_opts *o, int *seen, FILE *out, FILE *err)
{
    int c, idx, rc, from;

    opterr = 0;
    optind = 0;     /* 0, not 1: glibc then also forgets a cluster left half read */
    for (;;) {
        from = optind < 1 ? 1 : optind;
        if ((c = getopt_long(argc, argv, ":h", cli_longopts, &idx)) == -1) break;
        if (c == 'h') c = O_HELP;       /* -h: --help */
        if ((rc = cli_admit(c, argv, seen, err)) != CLI_OK) return rc;
        if ((rc = cli_option(c, optarg, o, out, err)) != CLI_OK) return rc;
        if ((rc = cli_keep_for_child(c, argv, from, optind, o, err)) != CLI_OK) return rc;
    }
    if (optind < argc) CLI_FAIL("unexpected argument '%s'", argv[optind]);
    return CLI_OK;
}

/* 1 when s holds a control character (below 0x20, or 0x7f). */
static int cli_has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

/* What makes a placeholder's value unfit for a path, or NULL: it names
 * another directory ('/', ".."), or holds a control character. */
static const char *cli_bad_value(const char *val)
{
    if (!val || !*val) return "nothing";
    if (strchr(val, '/')) return "which holds a '/'";
    if (strstr(val, "..")) return "which holds '..'";
    if (cli_has_control(val)) return "which holds a control character";
    return NULL;
}

int cli_expand_path(const char *tmpl, const char *node, const char *job, const char *task,
                    char *out, size_t len, char *why, size_t whylen)
{
    size_t n = 0;
    const char *p, *val;
    char one[2] = { '%', '\0' };

    for (p = tmpl; *p; p++) {
        val = NULL;
        if (*p != '%') {
            one[0] = *p;
            val = one;
        } else {
            switch (p[1]) {
            case 'n': val = node; break;
            case 'j': val = job; break;
            case 't': val = task; break;
            case '%': one[0] = '%'; val = one; break;
            case '\0':
                snprintf(why, whylen, "a '%%' at the end; a placeholder is %%n, %%j, %%t or %%%%");
                return -1;
            default:
                snprintf(why, whylen, "unknown placeholder '%%%c'; expected %%n, %%j, %%t or %%%%",
                         p[1]);
                return -1;
            }
            if (p[1] != '%' && cli_bad_value(val)) {
                snprintf(why, whylen, "%%%c expands to '%s', %s", p[1], val && !cli_has_control(val)
                         ? val : "(not shown)", cli_bad_value(val));
                return -1;
            }
            p++;
        }
        if (n + strlen(val) >= len) {
            snprintf(why, whylen, "longer than %zu characters once expanded", len - 1);
            return -1;
        }
        memcpy(out + n, val, strlen(val));
        n += strlen(val);
    }
    out[n] = '\0';
    return 0;
}

/* The value of environment variable name, NULL where unset or empty. */
static const char *cli_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Expand the placeholders of --json, --csv, --trace and --program-output
 * (cli_expand_path) into the buffers of o, with the node, job and task of
 * a Slurm task where set. A value without a '%' is kept as it is. Returns
 * CLI_OK, or CLI_USAGE after printing the option and what is wrong to err. */
static int cli_expand_outputs(cli_opts *o, FILE *err)
{
    struct { const char *name; const char **path; char *buf; } out[] = {
        { "json", &o->json, o->json_buf }, { "csv", &o->csv, o->csv_buf },
        { "trace", &o->trace, o->trace_buf },
        { "program-output", &o->program_output, o->program_output_buf },
    };
    char host[256], why[256];
    const char *node = cli_env("SLURMD_NODENAME"), *job = cli_env("SLURM_JOB_ID");
    const char *task = cli_env("SLURM_PROCID");
    size_t i;

    if (!node) node = cli_env("SLURM_NODENAME");
    if (!node) {
        host[0] = '\0';
        if (gethostname(host, sizeof host) != 0) host[0] = '\0';
        host[sizeof host - 1] = '\0';
        node = host;
    }
    for (i = 0; i < sizeof out / sizeof out[0]; i++) {
        if (!*out[i].path || !strchr(*out[i].path, '%')) continue;
        if (cli_expand_path(*out[i].path, node, job ? job : "nojob", task ? task : "0",
                            out[i].buf, CLI_PATH_MAX, why, sizeof why) != 0)
            CLI_FAIL("--%s=%s: %s", out[i].name, *out[i].path, why);
        *out[i].path = out[i].buf;
    }
    return CLI_OK;
}

/* The output files, --json, --csv and --trace: none names a directory,
 * each can be written (its directory is there and takes new files:
 * af_check_target), and no two name one file, however spelled (r.json and
 * ./r.json, a symbolic link and the file it names; the same path twice, a
 * device's included): the second write would replace the first. All before
 * any section runs. Returns CLI_OK, or CLI_USAGE after printing what is
 * wrong to err. */
static int cli_check_outputs(const cli_opts *o, FILE *err)
{
    struct { const char *name, *path; } out[] = {
        { "json", o->json }, { "csv", o->csv }, { "trace", o->trace },
        { "preload-list", o->preload_list },
    };
    size_t i, j, n = sizeof out / sizeof out[0];
    char why[PATH_MAX + 64];


    /* --json=- is stdout, nothing to check. */
    for (i = 0; i < n; i++)
        if (i == 0 && out[i].path && strcmp(out[i].path, "-") == 0) out[i].path = NULL;
    for (i = 0; i < n; i++)
        if (out[i].path && af_names_directory(out[i].path))
            CLI_FAIL("--%s=%s: names a directory; expected a file name", out[i].name, out[i].path);
    for (i = 0; i < n; i++)
        if (out[i].path && af_check_target(out[i].path, why, sizeof why) != 0)
            CLI_FAIL("--%s=%s: cannot be written: %s", out[i].name, out[i].path, why);
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (out[i].path && out[j].path &&
                (strcmp(out[i].path, out[j].path) == 0 || af_same_file(out[i].path, out[j].path)))
                CLI_FAIL("--%s=%s and --%s=%s name the same file", out[i].name, out[i].path,
                         out[j].name, out[j].path);
    return CLI_OK;
}

/* --kernels-dir names a directory this process can list and read: a usage
 * error now, not a failed compile later. Returns CLI_OK, or CLI_USAGE after
 * printing what is wrong to err. */
static int cli_check_kernels_dir(const cli_opts *o, FILE *err)
{
    struct stat st;

    if (!o->kernels_dir) return CLI_OK;
    if (stat(o->kernels_dir, &st) != 0)
        CLI_FAIL("--kernels-dir=%s: %s", o->kernels_dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) CLI_FAIL("--kernels-dir=%s: not a directory", o->kernels_dir);
    if (access(o->kernels_dir, R_OK | X_OK) != 0)
        CLI_FAIL("--kernels-dir=%s: %s", o->kernels_dir, strerror(errno));
    return CLI_OK;
}

/* --profile fixes the sampling (one run of each kernel, no warm-up, no
 * flush): the options it would ignore, --quick (a mode of its own; the
 * environment records one mode), and section launch (it times launches,
 * not kernels) named in --section cannot go with it. Returns CLI_OK, or
 * CLI_USAGE after printing the first conflict to err. */
static int cli_check_profile(const cli_opts *o, const int *seen, FILE *err)
{
    static const struct { int opt; const char *name; } fixed[] = {
        { O_COMPARE, "--compare-loading" }, { O_REPS, "--reps" }, { O_WARMUP, "--warmup" },
        { O_MINS, "--min-samples" }, { O_NOISE, "--max-noise" }, { O_MAXTIME, "--max-time" },
        { O_CACHE, "--cache" }, { O_QUICK, "--quick" },
    };
    size_t i;

    if (!o->profile) return CLI_OK;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (cli_given(seen, fixed[i].opt))
            CLI_FAIL("--profile runs every kernel once; it cannot be combined with %s",
                     fixed[i].name);
    if (cli_given(seen, O_SECTION) && o->run[CLI_SEC_LAUNCH])
        CLI_FAIL("--profile runs every kernel once; section %s times launches, not kernels: "
                 "leave it out of --section", o->section_names[CLI_SEC_LAUNCH]);
    return CLI_OK;
}

/* Options that cannot go together: --compare-loading with --module-loading;
 * --module without section loading, --source without section jit,
 * --nvrtc-option without --source; outputs that name a directory or one
 * file twice (cli_check_outputs); a --kernels-dir that is not a readable
 * directory;
 * --reps with the stopping rule; --profile with what it fixes
 * (cli_check_profile). Returns CLI_OK, or CLI_USAGE after printing the
 * first conflict to err. */
static int cli_check_combinations(const cli_opts *o, const int *seen, FILE *err)
{
    int rc;

    if (o->compare_loading && o->loading != CLI_LOAD_DEFAULT)
        CLI_FAIL("--compare-loading runs both modes; it cannot be combined with --module-loading");
    if ((rc = cli_check_outputs(o, err)) != CLI_OK) return rc;
    if ((rc = cli_check_kernels_dir(o, err)) != CLI_OK) return rc;
    if (o->reps_given && (cli_given(seen, O_MINS) || cli_given(seen, O_NOISE) ||
                          cli_given(seen, O_MAXTIME)))
        CLI_FAIL("--reps fixes the sample count; it cannot be combined with "
                 "--min-samples, --max-noise or --max-time");
    if ((rc = cli_check_profile(o, seen, err)) != CLI_OK) return rc;
    if (o->nmodules && !o->run[CLI_SEC_LOADING])
        CLI_FAIL("--module is read by section loading; --section does not include it");
    if (o->nsources && !o->run[CLI_SEC_JIT])
        CLI_FAIL("--source is compiled by section jit; --section does not include it");
    if (o->nnvrtc_opts && !o->nsources)
        CLI_FAIL("--nvrtc-option applies to --source compiles; no --source is given");
    return CLI_OK;
}

/* What --quick and --profile change in the options (--quick: the defaults
 * of those not given; --profile: those it fixes, which cannot be given),
 * and the fixed-count loops' sample count (--reps, else --min-samples). */
static void cli_apply_modes(cli_opts *o, const int *seen)
{
    if (o->quick) {
        /* A fast look: the first two sizes of each sweep are kept by the
         * sections; here the sampling and the children shrink. */
        if (!cli_given(seen, O_WARMUP)) o->warmup = 1;
        if (!cli_given(seen, O_MINS)) o->min_samples = 3;
        if (!cli_given(seen, O_NOISE)) o->max_noise = 0.03;
        if (!cli_given(seen, O_MAXTIME)) o->max_time = 0.2;
        if (!cli_given(seen, O_ROUNDS)) o->rounds = 1;
        if (!cli_given(seen, O_SYNTH)) o->nsynth = 2;       /* K = 1, 10 */
    }
    /* --profile: one instance of each kernel, so one child of each kind; a
     * fixed count of one sample, no warm-up, the warm state only (no flush),
     * and no section launch. */
    if (o->profile) {
        if (!cli_given(seen, O_ROUNDS)) o->rounds = 1;
        o->reps = 1;
        o->reps_given = 1;
        o->warmup = 0;
        o->cache = CLI_CACHE_WARM;
        o->run[CLI_SEC_LAUNCH] = 0;
    }
    if (!o->reps_given) o->reps = o->min_samples;
    /* --compare-loading: enough children a mode for a verdict to be
     * reachable (also under --quick), unless --rounds says how many. */
    o->compare_rounds = cli_given(seen, O_ROUNDS) || o->profile ? o->rounds : vd_children();
}

/* The user's program: the words after the first "--" (o->cmd, o->ncmd;
 * cmd set, ncmd 0, for a "--" with nothing after it). Returns the count of
 * the words before it, what getopt_long reads. */
static int cli_split_command(int argc, char **argv, cli_opts *o)
{
    int i;

    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            o->cmd = (const char *const *)(argv + i + 1);
            o->ncmd = (size_t)(argc - i - 1);
            return i;
        }
    return argc;
}

int cli_find_program(const char *cmd, const char *path, char *buf, size_t len, char *why,
                     size_t whylen)
{
    const char *p, *end;
    struct stat st;
    int denied = 0;

    if (!*cmd) {
        snprintf(why, whylen, "an empty command name");
        return -1;
    }
    if (strchr(cmd, '/')) {
        if ((size_t)snprintf(buf, len, "%s", cmd) >= len) {
            snprintf(why, whylen, "the name is too long");
            return -1;
        }
        if (stat(buf, &st) != 0) {
            snprintf(why, whylen, "%s", strerror(errno));
            return -1;
        }
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "is a directory");
            return -1;
        }
        if (!S_ISREG(st.st_mode) || access(buf, X_OK) != 0) {
            snprintf(why, whylen, "not an executable file");
            return -1;
        }
        return 0;
    }
    if (!path || !*path) path = "/usr/bin:/bin";
    for (p = path;; p = end + 1) {
        size_t dl;
        end = strchr(p, ':');
        if (!end) end = p + strlen(p);
        dl = (size_t)(end - p);
        /* An empty entry is the current directory, as for execvp. */
        if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "./", cmd) < len &&
            stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(buf, X_OK) == 0) return 0;
            denied = 1;
        }
        if (!*end) break;
    }
    snprintf(why, whylen, denied ? "found in PATH, but not executable" : "not found in PATH");
    return -1;
}

/* --compare: the command split at each --vs-word (default "--vs") into
 * copies of its words (o->cmds, each NULL-terminated), each part a command
 * that is found. Returns CLI_OK, or CLI_USAGE after printing
 * what is wrong to err. */
static int cli_split_commands(cli_opts *o, FILE *err)
{
    const char *vs = o->vs_word ? o->vs_word : "--vs";
    const char *const *w = o->cmd;
    char why[256];
    size_t i, start = 0, n = 0, at = 0;

    if (o->ncmd + CLI_MAX_SETTINGS > sizeof o->cmd_words / sizeof o->cmd_words[0])
        CLI_FAIL("--compare: more than %d words after --", CLI_MAX_ARGS);
    for (i = 0; i <= o->ncmd; i++) {
        if (i < o->ncmd && strcmp(w[i], vs) != 0) continue;
        if (i == start)
            CLI_FAIL("--compare: command %zu is empty; write %s between commands: "
                     "harness --compare -- A [ARGS] %s B [ARGS]", n + 1, vs, vs);
        if (n == CLI_MAX_SETTINGS) CLI_FAIL("--compare: more than %d commands", CLI_MAX_SETTINGS);
        if (cli_find_program(w[start], getenv("PATH"), o->cmd_paths[n], sizeof o->cmd_paths[n], why,
                             sizeof why) != 0)
            CLI_FAIL("--compare: command %zu, %s: %s", n + 1, w[start], why);
        /* The command's words copied, NULL-terminated: argv stays whole. */
        o->cmds[n] = o->cmd_words + at;
        o->ncmds[n] = i - start;
        memcpy(o->cmd_words + at, w + start, (i - start) * sizeof *w);
        at += i - start;
        o->cmd_words[at++] = NULL;
        n++;
        start = i + 1;
    }
    if (n < 2)
        CLI_FAIL("--compare: one command; write %s between two or more (harness --compare -- A "
                 "%s B; --vs-word=WORD where %s is one of the program's own words)", vs, vs, vs);
    o->nsettings = n;
    o->cmd = o->cmds[0];
    o->ncmd = o->ncmds[0];
    memcpy(o->cmd_path, o->cmd_paths[0], sizeof o->cmd_path);
    return CLI_OK;
}

/* The sides of -- CMD: --compare-loading as CUDA_MODULE_LOADING=LAZY,EAGER,
 * one comparison at a time, --module-loading not with a comparison of the
 * same variable, --jit-cache's warm side filled by a warm-up run,
 * --vs-word only with --compare. Returns CLI_OK, or CLI_USAGE after
 * printing what is wrong to err. */
static int cli_check_sides(cli_opts *o, FILE *err)
{
    if (o->compare_loading) {
        if (o->compare != CLI_CMP_NONE)
            CLI_FAIL("--compare-loading compares CUDA_MODULE_LOADING; it cannot be combined with "
                     "--compare-env, --jit-cache or --compare");
        o->compare = CLI_CMP_LOADING;
        snprintf(o->setting_name, sizeof o->setting_name, "CUDA_MODULE_LOADING");
        o->setting[0] = "LAZY";
        o->setting[1] = "EAGER";
        o->nsettings = 2;
    }
    if (o->compare == CLI_CMP_ENV && o->loading != CLI_LOAD_DEFAULT &&
        strcmp(o->setting_name, "CUDA_MODULE_LOADING") == 0)
        CLI_FAIL("--compare-env=CUDA_MODULE_LOADING=... sets the mode per side; it cannot be "
                 "combined with --module-loading");
    if (o->compare == CLI_CMP_JIT_CACHE && o->warmup < 1)
        for (size_t i = 0; i < o->nsettings; i++)
            if (strcmp(o->setting[i], "warm") == 0)
                CLI_FAIL("--jit-cache=warm is a cache a warm-up run filled; --warmup=0 leaves it "
                         "empty (give --warmup=1 or more)");
    if (o->vs_word && o->compare != CLI_CMP_COMMANDS)
        CLI_FAIL("--vs-word=%s separates the commands of --compare; --compare is not given", o->vs_word);
    if (o->compare == CLI_CMP_COMMANDS) return cli_split_commands(o, err);
    return CLI_OK;
}

/* -- CMD: a command after "--", found and executable; none of the options
 * that only the built-in sections read (the program's own code is what is
 * run); --program-output and --show-output only with a command. The
 * default --rounds is the smallest count a side at which the comparison
 * can reach its level. Returns CLI_OK, or CLI_USAGE after printing what is
 * wrong to err. */
static int cli_check_program(cli_opts *o, const int *seen, FILE *err)
{
    static const struct { int opt; const char *name; } sections_only[] = {
        { O_SECTION, "--section" }, { O_DEVICE, "--device" }, { O_SIZES, "--sizes" },
        { O_REPS, "--reps" }, { O_KDIR, "--kernels-dir" },
        { O_ARCH, "--arch" }, { O_FORMAT, "--module-format" }, { O_SYNTH, "--synthetic-kernels" },
        { O_MINS, "--min-samples" }, { O_NOISE, "--max-noise" },
        { O_CACHE, "--cache" }, { O_PROFILE, "--profile" }, { O_MODULE, "--module" },
        { O_SOURCE, "--source" }, { O_NVRTC_OPT, "--nvrtc-option" },
        { O_KTIMEOUT, "--kernel-timeout" }, { O_NODE_THRESHOLD, "--node-threshold" },
    };
    char why[256];
    size_t i;

    static const struct { int opt; const char *name; } program_only[] = {
        { O_COMPARE_ENV, "--compare-env" }, { O_JIT_CACHE, "--jit-cache" },
        { O_COMPARE_CMDS, "--compare" }, { O_VS_WORD, "--vs-word" }, { O_PREPARE, "--prepare" },
        { O_CLEANUP, "--cleanup" }, { O_MAX_ROUNDS, "--max-rounds" }, { O_READY, "--ready" },
        { O_READY_AFTER, "--ready-after" }, { O_PRELOAD, "--preload-list" },
        { O_SQUEEZE, "--squeeze" },
    };

    /* The memory holder is given the margin it holds to, and no command. */
    if (o->child == CLI_CHILD_HOLD) return CLI_OK;
    if (!o->cmd) {
        for (i = 0; i < sizeof program_only / sizeof program_only[0]; i++)
            if (cli_given(seen, program_only[i].opt))
                CLI_FAIL("%s applies to a program given after --; none is given", program_only[i].name);
        if (o->program_output) CLI_FAIL("--program-output keeps the output of a program given "
                                        "after --; none is given");
        if (o->show_output) CLI_FAIL("--show-output prints the output of a program given after "
                                     "--; none is given");
        return CLI_OK;
    }
    if (o->ncmd == 0) CLI_FAIL("-- needs a command after it: harness [options] -- CMD [ARGS...]");
    for (i = 0; i < sizeof sections_only / sizeof sections_only[0]; i++)
        if (cli_given(seen, sections_only[i].opt))
            CLI_FAIL("%s applies to the built-in sections; it cannot be combined with -- CMD "
                     "(the program runs as it is)", sections_only[i].name);
    /* --compare: each command is found once it is split (cli_split_commands). */
    if (o->compare != CLI_CMP_COMMANDS &&
        cli_find_program(o->cmd[0], getenv("PATH"), o->cmd_path, sizeof o->cmd_path, why,
                         sizeof why) != 0)
        CLI_FAIL("-- %s: %s", o->cmd[0], why);
    if (ex_check(o->cmd_path, why, sizeof why) != 0)
        CLI_FAIL("-- %s: cannot be run: %s", o->cmd[0], why);
    if (o->program_output && af_names_directory(o->program_output) == 0) {
        struct stat st;
        if (stat(o->program_output, &st) == 0)
            CLI_FAIL("--program-output=%s: not a directory", o->program_output);
    }
    if (!cli_given(seen, O_ROUNDS) && !cli_given(seen, O_QUICK))
        o->rounds = vd_children();
    o->warmup_given = cli_given(seen, O_WARMUP);
    if (!o->warmup_given) o->warmup = 1;
    if (o->warmup > 100) CLI_FAIL("--warmup=%d: with -- CMD, at most 100 runs a side", o->warmup);
    o->max_time_given = cli_given(seen, O_MAXTIME);
    if (o->squeeze_auto && (cli_given(seen, O_ROUNDS) || cli_given(seen, O_MAX_ROUNDS) ||
                            o->max_time_given))
        CLI_FAIL("--squeeze=auto runs its own search (one run a margin, at most %d a side); "
                 "--rounds, --max-rounds and --max-time do not apply to it", CLI_SQUEEZE_TRIES);
    return cli_check_sides(o, err);
}

int cli_parse(int argc, char **argv, const char *const *sections, cli_opts *o, FILE *out,
              FILE *err)
{
    int seen[O_LAST - O_LOADING];
    int rc;

    cli_defaults(o);
    o->section_names = sections;
    memset(seen, 0, sizeof seen);
    argc = cli_split_command(argc, argv, o);
    if ((rc = cli_read_options(argc, argv, o, seen, out, err)) != CLI_OK) return rc;
    if ((rc = cli_expand_outputs(o, err)) != CLI_OK) return rc;
    if ((rc = cli_check_combinations(o, seen, err)) != CLI_OK) return rc;
    if ((rc = cli_check_program(o, seen, err)) != CLI_OK) return rc;
    cli_apply_modes(o, seen);
    if (o->cmd && o->max_rounds && o->max_rounds < o->rounds)
        CLI_FAIL("--max-rounds=%d is below --rounds=%d (the fewest rounds run)", o->max_rounds,
                 o->rounds);
    if (o->cmd && !o->max_rounds)
        o->max_rounds = o->compare != CLI_CMP_NONE ? 2 * o->rounds : o->rounds;
    return CLI_OK;
}
