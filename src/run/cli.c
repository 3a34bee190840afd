/* cli.c: the command line: the harness's rows of the option table (the
 * entries add theirs, sections/list.h) and their own parsers, the checks
 * between options, --help and --version; cli_parse drives them. The
 * table's machinery (reading argv through it, the values, the help's
 * layout) is run/opt.c; the files the options name are run/cli_paths.c's,
 * -- CMD and its sides run/cli_command.c's. */
#include "run/cli.h"
#include "run/cli_command.h"
#include "run/cli_paths.h"
#include "run/opt.h"
#include "core/verdict.h"
#include "cuda/kernels.h"
#include "version.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* A number's macro as a string literal, for the help text. */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

/* ------------------------------------------------------ the option table --- */

/* The rows' own parsers and help printers (defined below; -- CMD's are
 * run/cli_command.c's). */
static opt_parse_fn cli_read_section, cli_read_device, cli_read_sizes, cli_read_reps,
    cli_read_noise, cli_read_arch, cli_read_synth, cli_read_help, cli_read_version,
    cli_read_completion, cli_read_child, cli_read_child_t0;
static opt_help_fn cli_help_sections, cli_help_sizes, cli_help_rounds;

static const opt_word cli_loading_words[] = {
    { "lazy", CLI_LOAD_LAZY }, { "eager", CLI_LOAD_EAGER }, { NULL, 0 } };
static const opt_word cli_cache_words[] = {
    { "cold", CLI_CACHE_COLD }, { "warm", CLI_CACHE_WARM }, { "both", CLI_CACHE_BOTH },
    { NULL, 0 } };
static const opt_word cli_format_words[] = {
    { "cubin", CLI_FMT_CUBIN }, { "ptx", CLI_FMT_PTX }, { NULL, 0 } };

/* The harness's own rows, before the entries' (the columns: run/opt.h).
 * --help=all prints the rows in the order they stand: these, the entries'
 * (SEC_OPT_LIST, sections/list.h), then CLI_OPTS_LAST. */
#define CLI_OPTS(X)                                                                     \
    X(SECTION, "section", "LIST", OPT_CALL(cli_read_section), OPT_SECTIONS, 0,          \
      OPT_COMMON(1, "%s (default: all but snapshot)"),                                  \
      OPT_HELP_BY(cli_help_sections, "sections to run, in order: %s (default: all but "  \
                  "snapshot)"))                                                         \
    X(MODULE_LOADING, "module-loading", "MODE", OPT_WORD(loading, cli_loading_words),   \
      OPT_ANY, 0, OPT_COMMON(5, "lazy or eager (sets CUDA_MODULE_LOADING)"),            \
      "lazy or eager: sets CUDA_MODULE_LOADING before cuInit;\n"                        \
      "the report shows the mode requested and in effect")                              \
    X(DEVICE, "device", "N|LIST|all", OPT_CALL(cli_read_device), OPT_SECTIONS,          \
      OPT_PARENT, OPT_COMMON(4, "the device (default 0), or several: a child each"),    \
      "CUDA device ordinal (default 0); a comma list of\n"                              \
      "ordinals, or all: the sections run once per device,\n"                          \
      "each device in a child process of its own, one after\n"                          \
      "the other; tables per device, then a node summary")                              \
    X(NODE_THRESHOLD, "node-threshold", "P",                                            \
      OPT_ABOVE(node_threshold, 0, 1000, "a percentage"), OPT_SECTIONS, 0, OPT_RARE,    \
      "with several devices: name a device whose figure lies\n"                         \
      "more than P percent from the node's median and beyond\n"                         \
      "its own interval (default 5)")                                                   \
    X(SIZES, "sizes", "LIST", OPT_CALL(cli_read_sizes), OPT_SECTIONS, 0, OPT_RARE,      \
      OPT_HELP_BY(cli_help_sizes,                                                       \
                  "sizes in elements for crossover and the fusion n sweep\n"            \
                  "(defaults 1024,65536,1048576,4194304,%u and\n"                       \
                  "1024,16384,262144,4194304,16777216,67108864,268435456)"))            \
    X(WARMUP, "warmup", "N", OPT_INT(warmup, 0, 10000, "a whole number"), OPT_ANY, 0,   \
      OPT_RARE, "untimed runs before each timed kernel (default 3)")                    \
    X(REPS, "reps", "N", OPT_CALL_RANGE(cli_read_reps, 1, 100000, "a whole number"),    \
      OPT_SECTIONS, 0, OPT_RARE,                                                        \
      "exactly N timed samples per measurement (default: the\n"                         \
      "stopping rule below)")                                                           \
    X(MIN_SAMPLES, "min-samples", "N",                                                  \
      OPT_INT(min_samples, 1, CLI_MAX_SAMPLES, "a whole number"), OPT_SECTIONS, 0,      \
      OPT_RARE, "stopping rule: at least N samples (default 10), then")                 \
    X(MAX_NOISE, "max-noise", "P",                                                      \
      OPT_CALL_RANGE(cli_read_noise, 0.001, 100, "a percentage"), OPT_SECTIONS, 0,      \
      OPT_RARE,                                                                         \
      "stop once the median's 95% interval is within P percent\n"                       \
      "of it (default 1)")                                                              \
    X(MAX_TIME, "max-time", "S", OPT_NUM(max_time, 0.001, 3600, "seconds"), OPT_ANY, 0, \
      OPT_RARE,                                                                         \
      "or after S seconds of one measurement (default 2), or\n"                         \
      "at a quarter of that where P is out of reach by then;\n"                         \
      "a measurement stopped that way is flagged noisy")                                \
    X(CACHE, "cache", "STATE", OPT_WORD(cache, cli_cache_words), OPT_SECTIONS, 0,       \
      OPT_RARE,                                                                         \
      "cold, warm or both (default): time kernels with the L2\n"                        \
      "flushed before each sample, warm, or both")                                      \
    X(QUICK, "quick", NULL, OPT_FLAG(quick), OPT_ANY, 0,                                \
      OPT_COMMON(2, "fewer sizes, rounds and samples"),                                 \
      "a fast look: fewer sizes, rounds, warm-ups and samples")                         \
    X(PROFILE, "profile", NULL, OPT_FLAG(profile), OPT_SECTIONS, 0, OPT_RARE,           \
      "run every kernel version once, nothing else queued,\n"                           \
      "for an external profiler (Nsight Compute, Systems)")                             \
    X(TRACE, "trace", "FILE", OPT_TEXT(trace), OPT_ANY, OPT_PARENT, OPT_RARE,           \
      "write a Chrome trace (Perfetto, chrome://tracing) of\n"                          \
      "every host region and timed device span")                                        \
    X(THRESHOLD, "threshold", "P", OPT_NUM(threshold, 0, 1000, "a percentage"),         \
      OPT_ANY, 0, OPT_RARE,                                                             \
      "--compare-loading: the smallest change in percent\n"                             \
      "called a difference (default 20)")                                               \
    X(JSON, "json", "FILE", OPT_TEXT(json), OPT_ANY, OPT_PARENT,                        \
      OPT_COMMON(10, "every measurement, with all samples (--csv=FILE too)"),           \
      "write every measurement, with all samples, as JSON\n"                            \
      "(--json=-: to stdout, the tables then to stderr)")                               \
    X(CSV, "csv", "FILE", OPT_TEXT(csv), OPT_ANY, OPT_PARENT, OPT_RARE,                 \
      "write one CSV row per measurement\n"                                             \
      "(FILE of --json, --csv, --trace, --program-output:\n"                            \
      "%n node, %j Slurm job id, %t task, %% a '%')")                                   \
    X(MARKDOWN, "markdown", "FILE", OPT_TEXT(markdown), OPT_ANY, OPT_PARENT, OPT_RARE,  \
      "write the run's tables and answers as Markdown\n"                                \
      "(--markdown=-: to stdout, the tables then to stderr)")                           \
    X(KERNELS_DIR, "kernels-dir", "DIR", OPT_TEXT(kernels_dir), OPT_SECTIONS, 0,        \
      OPT_RARE,                                                                         \
      "read kernel sources from DIR instead of the copies\n"                            \
      "built into the binary")                                                          \
    X(ARCH, "arch", "sm_XY", OPT_CALL(cli_read_arch), OPT_SECTIONS, 0, OPT_RARE,        \
      "compile for this architecture (default: the device's)")                          \
    X(MODULE_FORMAT, "module-format", "FMT", OPT_WORD(format, cli_format_words),        \
      OPT_SECTIONS, 0, OPT_RARE,                                                        \
      "cubin or ptx: what the kernels are compiled to; with\n"                          \
      "ptx the driver's JIT is a step of its own (default cubin)")                      \
    X(SYNTHETIC_KERNELS, "synthetic-kernels", "LIST", OPT_CALL(cli_read_synth),         \
      OPT_SECTIONS, 0, OPT_RARE,                                                        \
      "K for each generated module of K kernels, for\n"                                 \
      "sections loading and jit (default 1,10,100; each K\n"                            \
      "at most " CLI_STR(KN_SYNTH_MAX_K) ")")                                           \
    X(COMPARE_LOADING, "compare-loading", NULL, OPT_FLAG(compare_loading), OPT_ANY, 0,  \
      OPT_COMMON(6, "both modes, alternating, with a verdict on each figure"),          \
      "run section loading in child processes, eager and lazy\n"                        \
      "alternating, and compare the modes side by side")                                \
    X(ROUNDS, "rounds", "N", OPT_INT(rounds, 1, 1000, "a whole number"), OPT_ANY, 0,    \
      OPT_COMMON(7, "fresh processes per once-per-process figure"),                     \
      OPT_HELP_BY(cli_help_rounds,                                                      \
                  "repeats of every once-per-process figure: whole-process\n"           \
                  "and loading children, cache states, JIT levels\n"                    \
                  "(default 3), and --compare-loading's children per mode\n"            \
                  "(default %d, --quick too: the fewest at which its U test\n"          \
                  "can reach p < %.2f; fewer are 'out of reach')"))                     \
    X(CHILD_TIMEOUT, "child-timeout", "S", OPT_INT(child_timeout, 1, 86400, "seconds"), \
      OPT_ANY, 0, OPT_RARE, "seconds a child process may run (default 300; -- CMD\n"   \
      "without it: once a run exited 0, 10 times the slowest\n"                         \
      "such run, at least 30 s)")                                                       \
    X(KERNEL_TIMEOUT, "kernel-timeout", "S",                                            \
      OPT_INT(kernel_timeout, 1, 86400, "seconds"), OPT_SECTIONS, 0, OPT_RARE,          \
      "seconds any wait for the device may take before the\n"                           \
      "run is stopped as stuck (default 30)")

/* The harness's own rows after the entries': the output, the harness
 * itself, and the options of its own children. */
#define CLI_OPTS_LAST(X)                                                                \
    X(QUIET, "quiet", NULL, OPT_FLAG(quiet), OPT_ANY, 0,                                \
      OPT_COMMON(3, "print only the summary; no progress lines"),                       \
      "print only the summary (the answers, the checks, the\n"                          \
      "exit code); no progress lines on stderr")                                        \
    X(HELP, "help", "all", OPT_CALL(cli_read_help), OPT_ANY,                            \
      OPT_OPTIONAL | OPT_LETTER('h'), OPT_COMMON(11, "this text; all: every option"),   \
      "the short help: examples, common options, the docs\n"                            \
      "--help=all\tthis text (man harness has it too)")                                 \
    X(VERSION, "version", NULL, OPT_CALL(cli_read_version), OPT_ANY, 0,                 \
      OPT_COMMON(12, "the version and the commit it was built from"),                   \
      "the harness version and the commit it was built from")                           \
    X(COMPLETION, "completion", "SHELL", OPT_CALL(cli_read_completion), OPT_ANY, 0,     \
      OPT_RARE,                                                                         \
      "print a completion script for bash or zsh, made from\n"                          \
      "the option table (make install installs both)")                                  \
    X(SCHEMA, "schema", NULL, OPT_FLAG(schema), OPT_ANY, 0,                             \
      OPT_COMMON(13, "every measurement key a run can write, as JSON"),                 \
      "every measurement key a run can write, with its unit,\n"                         \
      "state and description, as JSON (docs/output.md)")                                \
    X(CHILD, "child", "KIND", OPT_CALL(cli_read_child), OPT_ANY,                        \
      OPT_PARENT | OPT_HIDDEN | OPT_EMPTY_OK, OPT_RARE, NULL)                           \
    X(CHILD_T0, "child-t0", "NS", OPT_CALL(cli_read_child_t0), OPT_ANY,                 \
      OPT_PARENT | OPT_HIDDEN, OPT_RARE, NULL)

/* Every row's ID, in the table's order. */
typedef enum cli_opt {
#define CLI_ROW_ID(id, ...) CLI_O_##id,
#define CLI_NO_ROW(...)
    CLI_OPTS(CLI_ROW_ID) SEC_OPT_LIST(CLI_ROW_ID, CLI_NO_ROW) CLI_OPTS_LAST(CLI_ROW_ID)
    CLI_NOPTS
} cli_opt;

/* The table. */
static const opt_row cli_rows[CLI_NOPTS] = {
    CLI_OPTS(OPT_ROW) SEC_OPT_LIST(OPT_ROW, CLI_NO_ROW) CLI_OPTS_LAST(OPT_ROW)
};

/* The entries --profile leaves out of the run, and why; a last one with
 * no entry. */
static const struct { int entry; const char *why; } cli_no_profile[] = {
#define CLI_NO_PROFILE(e, why_) { CLI_SEC_##e, why_ },
    SEC_OPT_LIST(CLI_NO_ROW, CLI_NO_PROFILE)
#undef CLI_NO_PROFILE
    { CLI_SEC_NONE, NULL }
};
#undef CLI_NO_ROW
#undef CLI_ROW_ID

_Static_assert((int)OPT_OK == (int)CLI_OK && (int)OPT_EXIT == (int)CLI_EXIT &&
               (int)OPT_USAGE == (int)CLI_USAGE,
               "a row's parser returns cli_parse's codes");

/* 1 for each entry of the list whose options need -- CMD (sections/list.h). */
static const unsigned char cli_entry_program[CLI_NENTRIES] = {
#define CLI_ENTRY_PROGRAM(id, name, scope, ...) SEC_IS_PROGRAM_##scope,
    SEC_LIST(CLI_ENTRY_PROGRAM)
#undef CLI_ENTRY_PROGRAM
};

/* ---------------------------------------------------------------- --help --- */

/* --help=all: the head, every row but the hidden (opt_print_rows), the
 * tail. */
static const char cli_usage_head[] =
"usage: harness [options]\n"
"       harness [options] -- CMD [ARGS...]\n"
"Times one CUDA program step by step: driver load, init, context, compile,\n"
"module load, allocation, copies, launch and kernel, each as its own region.\n"
"\n";

static const char cli_usage_tail[] =
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
 * The head, the common rows in their places (opt_print_rows), the tail. */
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
"  harness --section=snapshot           a restore from the driver's checkpoint\n"
"                                       against a cold start (not run by default)\n"
"\n"
"Common options (--help=all lists every one):\n";

static const char cli_brief_tail[] =
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

/* --section's entry: its text "HEAD %s TAIL", the names and "all" where
 * the %s stands (cli_print_sections). */
static void cli_help_sections(FILE *out, const opt_layout *l, const char *label, const char *text,
                              const char *const *names)
{
    char lead[128], head[128], tail[128];
    const char *at = strstr(text, "%s");
    size_t hn = at ? (size_t)(at - text) : strlen(text);

    while (hn && text[hn - 1] == ' ') hn--;
    snprintf(head, sizeof head, "%.*s", (int)hn, text);
    snprintf(tail, sizeof tail, "%s", at ? at + 2 + strspn(at + 2, " ") : "");
    cli_print_sections(out, names, opt_help_lead(lead, sizeof lead, l, label), head, tail);
}

/* --sizes' entry: its text a format of crossover's top size. */
static void cli_help_sizes(FILE *out, const opt_layout *l, const char *label, const char *text,
                           const char *const *names)
{
    char buf[512];

    (void)names;
    snprintf(buf, sizeof buf, text, KN_VECADD_N);
    opt_help_entry(out, l, label, buf);
}

/* --rounds' entry: its text a format of --compare-loading's children a
 * side and the level their U test reaches. */
static void cli_help_rounds(FILE *out, const opt_layout *l, const char *label, const char *text,
                            const char *const *names)
{
    char buf[512];

    (void)names;
    snprintf(buf, sizeof buf, text, vd_children(), VD_ALPHA);
    opt_help_entry(out, l, label, buf);
}

/* ------------------------------------------------------------ values --- */

/* 1 when option opt was on the command line. */
static int cli_given(const int *seen, cli_opt opt)
{
    return seen[opt] != 0;
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
#define CLI_OPT_IN(id) o->run[CLI_SEC_##id] = 0;
    SEC_OPT_IN_LIST(CLI_OPT_IN)
#undef CLI_OPT_IN
    o->snapshot_lock_ms = 5000;
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

/* ------------------------------------------------------ the rows' parsers --- */

/* --section=LIST: the sections to run. */
static int cli_read_section(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    char bad[256], list[256];

    (void)r;
    (void)out;
    if (cli_sections(arg, o->section_names, o->run, bad, sizeof bad) != 0)
        CLI_FAIL("--section=%s: %s; expected a comma list of %s, all", arg, bad,
                 cli_join_names(o->section_names, list, sizeof list));
    return CLI_OK;
}

/* --device=N|LIST|all. */
static int cli_read_device(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    char bad[256];
    int n;

    (void)r;
    (void)out;
    if (strcmp(arg, "all") == 0) {
        o->device_all = 1;
        return CLI_OK;
    }
    n = cli_parse_devices(arg, o->devices, CLI_MAX_DEVICES, bad, sizeof bad);
    if (n < 0) CLI_FAIL("--device=%s: %s; expected a device ordinal, a comma list of "
                        "them (each once), or all", arg, bad);
    o->device = o->devices[0];
    o->ndevices = n > 1 ? (size_t)n : 0;
    return CLI_OK;
}

/* --sizes=LIST: the sizes, and that they were given. */
static int cli_read_sizes(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    const char *why = "";
    int n;

    (void)r;
    (void)out;
    n = cli_parse_sizes(arg, o->sizes, CLI_MAX_SIZES, &why);
    if (n < 0) CLI_FAIL("--sizes=%s: %s; expected a comma list of element counts, "
                        "1 to 2^40, at most %d", arg, why, CLI_MAX_SIZES);
    o->nsizes = (size_t)n;
    o->sizes_given = 1;
    return CLI_OK;
}

/* --reps=N: a fixed count of samples. */
static int cli_read_reps(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    long long v;

    (void)out;
    if (opt_read_int(r, arg, &v, err) != CLI_OK) return CLI_USAGE;
    o->reps = (int)v;
    o->reps_given = 1;
    return CLI_OK;
}

/* --max-noise=P: a percentage, kept as a fraction. */
static int cli_read_noise(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    double d;

    (void)out;
    if (opt_read_num(r, arg, &d, err) != CLI_OK) return CLI_USAGE;
    o->max_noise = d / 100.0;
    return CLI_OK;
}

/* --arch=sm_XY[a|f], with the suffix NVRTC takes for its number. */
static int cli_read_arch(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    unsigned from;

    (void)r;
    (void)out;
    if (!cli_valid_arch(arg))
        CLI_FAIL("--arch=%s: expected sm_XY (e.g. sm_90, sm_90a)", arg);
    if (!cli_arch_suffix_ok(arg, &from))
        CLI_FAIL("--arch=%s: NVRTC takes the '%c' suffix (%s) from sm_%u on; not for %.*s",
                 arg, arg[strlen(arg) - 1],
                 from == 90 ? "architecture-specific" : "family-specific", from,
                 (int)strlen(arg) - 1, arg);
    o->arch = arg;
    return CLI_OK;
}

/* --synthetic-kernels=LIST. */
static int cli_read_synth(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    char bad[256];
    int n;

    (void)r;
    (void)out;
    n = cli_synth(arg, o->synth, CLI_MAX_SYNTH, bad, sizeof bad);
    if (n < 0) CLI_FAIL("--synthetic-kernels=%s: %s; expected a comma list of kernel "
                        "counts K from 1 to %d, at most %d", arg, bad, KN_SYNTH_MAX_K, CLI_MAX_SYNTH);
    o->nsynth = (size_t)n;
    return CLI_OK;
}

/* --help[=all]: the short help, or every option. */
static int cli_read_help(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    (void)r;
    if (arg && strcmp(arg, "all") != 0)
        CLI_FAIL("--help=%s: the value is 'all' (or none: the short help)", arg);
    fputs(arg ? cli_usage_head : cli_brief_head, out);
    opt_print_rows(out, cli_rows, CLI_NOPTS, !arg, o->section_names);
    fputs(arg ? cli_usage_tail : cli_brief_tail, out);
    return CLI_EXIT;
}

/* --completion=bash|zsh: the script, from the option table; the sections
 * are --section's words. */
static int cli_read_completion(const opt_row *r, const char *arg, cli_opts *o, FILE *out,
                               FILE *err)
{
    const char *names[CLI_NSECTIONS + 1];
    int i;

    (void)r;
    for (i = 0; i < CLI_NSECTIONS; i++) names[i] = o->section_names[i];
    names[CLI_NSECTIONS] = NULL;
    if (opt_completion(out, cli_rows, CLI_NOPTS, arg, "section", names) != 0)
        CLI_FAIL("--completion=%s: expected bash or zsh", arg);
    return CLI_EXIT;
}

/* --version. */
static int cli_read_version(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    (void)r;
    (void)arg;
    (void)o;
    (void)err;
    fprintf(out, "harness %s (commit %s)\n", HARNESS_VERSION, harness_commit);
    return CLI_EXIT;
}

/* --child=KIND: the harness runs as its own child of that kind. */
static int cli_read_child(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    size_t k;

    (void)r;
    (void)out;
    for (k = 1; k < sizeof cli_child_names / sizeof cli_child_names[0]; k++)
        if (strcmp(arg, cli_child_names[k]) == 0) o->child = (cli_child)k;
    if (o->child == CLI_CHILD_NONE) CLI_FAIL("--child=%s: not a child kind", arg);
    return CLI_OK;
}

/* --child-t0=NS: the parent's clock when it started this child. */
static int cli_read_child_t0(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    long long v;

    (void)r;
    (void)out;
    if (opt_int(arg, 0, LLONG_MAX, &v) != 0) CLI_FAIL("--child-t0=%s: bad time", arg);
    o->child_t0_ns = v;
    return CLI_OK;
}

/* ------------------------------------------------------------ checks --- */

/* --profile fixes the sampling (one run of each kernel, no warm-up, no
 * flush): the options it would ignore, --quick (a mode of its own; the
 * environment records one mode), and the entries it leaves out
 * (cli_no_profile) named in --section cannot go with it. Returns CLI_OK, or
 * CLI_USAGE after printing the first conflict to err. */
static int cli_check_profile(const cli_opts *o, const int *seen, FILE *err)
{
    static const cli_opt fixed[] = {
        CLI_O_COMPARE_LOADING, CLI_O_REPS, CLI_O_WARMUP, CLI_O_MIN_SAMPLES, CLI_O_MAX_NOISE,
        CLI_O_MAX_TIME, CLI_O_CACHE, CLI_O_QUICK,
    };
    size_t i;

    if (!o->profile) return CLI_OK;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (cli_given(seen, fixed[i]))
            CLI_FAIL("--profile runs every kernel once; it cannot be combined with --%s",
                     cli_rows[fixed[i]].name);
    for (i = 0; cli_no_profile[i].why; i++)
        if (cli_given(seen, CLI_O_SECTION) && o->run[cli_no_profile[i].entry])
            CLI_FAIL("--profile runs every kernel once; section %s %s: leave it out of --section",
                     o->section_names[cli_no_profile[i].entry], cli_no_profile[i].why);
    return CLI_OK;
}

/* The rows given whose entry or option is not: a section's option with
 * --section leaving the section out, an option without the option it
 * needs. Returns CLI_OK, or CLI_USAGE after printing the first to err. */
static int cli_check_owners(const cli_opts *o, const int *seen, FILE *err)
{
    size_t i;

    for (i = 0; i < CLI_NOPTS; i++) {
        const opt_row *r = &cli_rows[i];
        if (!seen[i]) continue;
        if (r->scope == OPT_S_ENTRY && r->entry < CLI_NSECTIONS && !o->run[r->entry])
            CLI_FAIL("--%s %s section %s; --section does not include it", r->name, r->why,
                     o->section_names[r->entry]);
        if (r->scope == OPT_S_NEEDS && !seen[r->needs])
            CLI_FAIL("--%s %s; no --%s is given", r->name, r->why, cli_rows[r->needs].name);
    }
    return CLI_OK;
}

/* Options that cannot go together: --compare-loading with --module-loading;
 * outputs that name a directory or one file twice (clp_check_outputs); a
 * --kernels-dir that is not a readable directory (clp_check_kernels_dir);
 * --reps with the stopping rule; --profile with what it fixes
 * (cli_check_profile); an option without its section or the option it
 * needs (cli_check_owners); a --module or --source that cannot be read
 * (clp_check_inputs). Returns CLI_OK, or CLI_USAGE after printing the first
 * conflict to err. */
static int cli_check_combinations(const cli_opts *o, const int *seen, FILE *err)
{
    int rc;

    if (o->compare_loading && o->loading != CLI_LOAD_DEFAULT)
        CLI_FAIL("--compare-loading runs both modes; it cannot be combined with --module-loading");
    if ((rc = clp_check_outputs(o, err)) != CLI_OK) return rc;
    if ((rc = clp_check_kernels_dir(o, err)) != CLI_OK) return rc;
    if (o->reps_given && (cli_given(seen, CLI_O_MIN_SAMPLES) || cli_given(seen, CLI_O_MAX_NOISE) ||
                          cli_given(seen, CLI_O_MAX_TIME)))
        CLI_FAIL("--reps fixes the sample count; it cannot be combined with "
                 "--min-samples, --max-noise or --max-time");
    if ((rc = cli_check_profile(o, seen, err)) != CLI_OK) return rc;
    /* Read by two entries: section snapshot and -- CMD --snapshot. */
    if (cli_given(seen, CLI_O_SNAPSHOT_LOCK_TIMEOUT) && (o->cmd ? !o->snapshot : !o->run[CLI_SEC_SNAPSHOT]))
        CLI_FAIL("--snapshot-lock-timeout is read by section snapshot and by -- CMD --snapshot; %s",
                 o->cmd ? "--snapshot is not given" : "--section does not include snapshot");
    if ((rc = cli_check_owners(o, seen, err)) != CLI_OK) return rc;
    return clp_check_inputs(o, err);
}

/* What --quick and --profile change in the options (--quick: the defaults
 * of those not given; --profile: those it fixes, which cannot be given, and
 * the entries it leaves out), and the fixed-count loops' sample count
 * (--reps, else --min-samples). */
static void cli_apply_modes(cli_opts *o, const int *seen)
{
    size_t i;

    if (o->quick) {
        /* A fast look: the first two sizes of each sweep are kept by the
         * sections; here the sampling and the children shrink. */
        if (!cli_given(seen, CLI_O_WARMUP)) o->warmup = 1;
        if (!cli_given(seen, CLI_O_MIN_SAMPLES)) o->min_samples = 3;
        if (!cli_given(seen, CLI_O_MAX_NOISE)) o->max_noise = 0.03;
        if (!cli_given(seen, CLI_O_MAX_TIME)) o->max_time = 0.2;
        if (!cli_given(seen, CLI_O_ROUNDS)) o->rounds = 1;
        if (!cli_given(seen, CLI_O_SYNTHETIC_KERNELS)) o->nsynth = 2;       /* K = 1, 10 */
    }
    /* --profile: one instance of each kernel, so one child of each kind; a
     * fixed count of one sample, no warm-up, the warm state only (no flush),
     * and not the entries that time something else. */
    if (o->profile) {
        if (!cli_given(seen, CLI_O_ROUNDS)) o->rounds = 1;
        o->reps = 1;
        o->reps_given = 1;
        o->warmup = 0;
        o->cache = CLI_CACHE_WARM;
        for (i = 0; cli_no_profile[i].why; i++) o->run[cli_no_profile[i].entry] = 0;
    }
    if (!o->reps_given) o->reps = o->min_samples;
    /* --compare-loading: enough children a mode for a verdict to be
     * reachable (also under --quick), unless --rounds says how many. */
    o->compare_rounds = cli_given(seen, CLI_O_ROUNDS) || o->profile ? o->rounds : vd_children();
}

/* The rows given that do not apply to this run: with -- CMD, those only the
 * built-in sections read (the program's own code is what is run); without
 * it, the program's. A row that needs another (OPT_NEEDS) applies where
 * that one does, which is given too. Returns CLI_OK, or CLI_USAGE after
 * printing the first to err. */
static int cli_check_scopes(const cli_opts *o, const int *seen, FILE *err)
{
    size_t i;

    for (i = 0; i < CLI_NOPTS; i++) {
        const opt_row *r = &cli_rows[i];
        int program = r->scope == OPT_S_ENTRY && cli_entry_program[r->entry];
        int sections = r->scope == OPT_S_SECTIONS || (r->scope == OPT_S_ENTRY && !program);
        if (!seen[i]) continue;
        if (!o->cmd && program)
            CLI_FAIL("--%s %s a program given after --; none is given", r->name, r->why);
        if (o->cmd && sections)
            CLI_FAIL("--%s applies to the built-in sections; it cannot be combined with -- CMD "
                     "(the program runs as it is)", r->name);
    }
    return CLI_OK;
}

/* -- CMD: a command after "--", found and executable; only the options that
 * apply to it, and with a command only those (cli_check_scopes). The
 * default --rounds is the smallest count a side at which the comparison
 * can reach its level. Returns CLI_OK, or CLI_USAGE after printing what is
 * wrong to err. */
static int cli_check_program(cli_opts *o, const int *seen, FILE *err)
{
    /* The memory holder is given the margin it holds to, and no command. */
    if (o->child == CLI_CHILD_HOLD) return CLI_OK;
    if (!o->cmd) return cli_check_scopes(o, seen, err);
    if (o->ncmd == 0) CLI_FAIL("-- needs a command after it: harness [options] -- CMD [ARGS...]");
    if (cli_check_scopes(o, seen, err) != CLI_OK) return CLI_USAGE;
    if (clc_check_command(o, err) != CLI_OK) return CLI_USAGE;
    if (clp_check_program_output(o, err) != CLI_OK) return CLI_USAGE;
    if (!cli_given(seen, CLI_O_ROUNDS) && !cli_given(seen, CLI_O_QUICK))
        o->rounds = vd_children();
    o->warmup_given = cli_given(seen, CLI_O_WARMUP);
    if (!o->warmup_given) o->warmup = 1;
    if (o->warmup > 100) CLI_FAIL("--warmup=%d: with -- CMD, at most 100 runs a side", o->warmup);
    o->max_time_given = cli_given(seen, CLI_O_MAX_TIME);
    o->child_timeout_given = cli_given(seen, CLI_O_CHILD_TIMEOUT);
    if (o->squeeze_auto && (cli_given(seen, CLI_O_ROUNDS) || o->max_rounds || o->max_time_given))
        CLI_FAIL("--squeeze=auto runs its own search (one run a margin, at most %d a side); "
                 "--rounds, --max-rounds and --max-time do not apply to it", CLI_SQUEEZE_TRIES);
    return clc_check_sides(o, err);
}

int cli_parse(int argc, char **argv, const char *const *sections, cli_opts *o, FILE *out,
              FILE *err)
{
    int seen[CLI_NOPTS];
    const opt_dest dest = { o, seen, o->child_args, &o->nchild_args, CLI_MAX_ARGS };
    int rc;

    cli_defaults(o);
    o->section_names = sections;
    memset(seen, 0, sizeof seen);
    argc = clc_split_command(argc, argv, o);
    if ((rc = opt_read_argv(cli_rows, CLI_NOPTS, argc, argv, &dest, out, err)) != CLI_OK)
        return rc;
    if ((rc = clp_expand_outputs(o, err)) != CLI_OK) return rc;
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
