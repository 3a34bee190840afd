/* test_cli.c: unit tests of src/run/cli.c: cli_parse run in-process on argv
 * arrays, with its out and err streams captured through tmpfile(). */
#include "testhelp.h"
#include "run/cli.h"
#include "run/cli_paths.h"
#include "run/section.h"
#include "sections/stopwatches/stopwatches.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_T_MAXARGS 6
#define CLI_T_ARGLEN 512
#define CLI_T_TEXT 16384

/* One cli_parse call: its own copy of argv (the options keep pointers into
 * it), its result and what it printed. */
typedef struct cli_run {
    char store[CLI_T_MAXARGS + 1][CLI_T_ARGLEN];
    char *argv[CLI_T_MAXARGS + 2];
    cli_opts o;
    int rc;
    char out[CLI_T_TEXT];
    char err[CLI_T_TEXT];
} cli_run;

/* Read back everything written to f (then closed) into buf. */
static void cli_t_slurp(FILE *f, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    if (!f) return;
    rewind(f);
    n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run cli_parse on "harness" followed by args (NULL-terminated, at most
 * CLI_T_MAXARGS). Returns the cli_parse result, also kept in r->rc; -99 when
 * the test itself could not set up (too many or too long arguments, or no
 * tmpfile). */
static int cli_t_parse(cli_run *r, const char *const *args)
{
    FILE *out, *err;
    int argc = 0;

    memset(r, 0, sizeof *r);
    r->rc = -99;
    snprintf(r->store[0], CLI_T_ARGLEN, "harness");
    r->argv[argc++] = r->store[0];
    for (; *args; args++) {
        if (argc > CLI_T_MAXARGS || strlen(*args) >= CLI_T_ARGLEN) return r->rc;
        snprintf(r->store[argc], CLI_T_ARGLEN, "%s", *args);
        r->argv[argc] = r->store[argc];
        argc++;
    }
    r->argv[argc] = NULL;
    out = tmpfile();
    err = tmpfile();
    if (!out || !err) {
        if (out) fclose(out);
        if (err) fclose(err);
        return r->rc;
    }
    r->rc = cli_parse(argc, r->argv, sec_names(), &r->o, out, err);
    cli_t_slurp(out, r->out, sizeof r->out);
    cli_t_slurp(err, r->err, sizeof r->err);
    return r->rc;
}

/* A usage error: CLI_USAGE, "harness: " and the option's name on err, the
 * hint line, and nothing on out. */
typedef struct cli_bad_case {
    const char *desc;
    const char *args[3];     /* NULL-terminated */
    const char *needle;      /* must appear in the err text */
} cli_bad_case;

static const cli_bad_case cli_bad_cases[] = {
    { "--reps=0 (below 1)",                 { "--reps=0", NULL },              "--reps=0" },
    { "--reps=abc",                         { "--reps=abc", NULL },            "--reps=abc" },
    { "--reps=-1",                          { "--reps=-1", NULL },             "--reps=-1" },
    { "--reps=99999999999999999999 (overflow)",
                                            { "--reps=99999999999999999999", NULL }, "--reps" },
    { "--reps= (empty)",                    { "--reps=", NULL },               "--reps needs a value" },
    { "--reps given twice",                 { "--reps=2", "--reps=3", NULL },  "--reps given more than once" },
    { "--warmup=-1",                        { "--warmup=-1", NULL },           "--warmup=-1" },
    { "--sizes=10,,x",                      { "--sizes=10,,x", NULL },         "--sizes=10,,x" },
    { "--sizes= (empty)",                   { "--sizes=", NULL },              "--sizes needs a value" },
    { "--sizes=0",                          { "--sizes=0", NULL },             "--sizes=0" },
    { "--sizes=,5 (leading comma)",         { "--sizes=,5", NULL },            "--sizes=,5" },
    { "--sizes=5, (trailing comma)",        { "--sizes=5,", NULL },            "--sizes=5," },
    { "--sizes=1099511627777 (over 2^40)",  { "--sizes=1099511627777", NULL }, "2^40" },
    { "--module-loading=fast",              { "--module-loading=fast", NULL }, "--module-loading=fast" },
    { "--section=bogus",                    { "--section=bogus", NULL },       "'bogus'" },
    { "--section=stopwatches,,crossover",   { "--section=stopwatches,,crossover", NULL }, "--section" },
    { "--device=abc",                       { "--device=abc", NULL },          "--device=abc" },
    { "--device=-1",                        { "--device=-1", NULL },           "--device=-1" },
    { "--arch=90",                          { "--arch=90", NULL },             "--arch=90" },
    { "--arch=sm_9",                        { "--arch=sm_9", NULL },           "--arch=sm_9" },
    { "--arch=sm_89a ('a' from sm_90 on)",  { "--arch=sm_89a", NULL },         "'a' suffix (architecture-specific) from sm_90 on; not for sm_89" },
    { "--arch=sm_90f ('f' from sm_100 on)", { "--arch=sm_90f", NULL },         "'f' suffix (family-specific) from sm_100 on; not for sm_90" },
    { "unknown option --bogus",             { "--bogus", NULL },               "--bogus" },
    { "a positional argument",              { "--quiet", "extra", NULL },      "'extra'" },
    { "--quiet=1 (takes no value)",         { "--quiet=1", NULL },             "--quiet" },
    { "--reps with no value at the end",    { "--reps", NULL },                "--reps" },
    { "--json and --csv the same file",     { "--json=a.json", "--csv=a.json", NULL }, "--json=a.json and --csv=a.json name the same file" },
    { "--kernel-timeout=0",                 { "--kernel-timeout=0", NULL },    "--kernel-timeout=0: expected seconds" },
    { "--kernel-timeout=x",                 { "--kernel-timeout=x", NULL },    "--kernel-timeout=x: expected seconds" },
    { "--sect=jit (no abbreviation)",       { "--sect=jit", NULL },            "unknown option '--sect=jit'; did you mean --section?" },
    { "--secton=jit (misspelled)",          { "--secton=jit", NULL },          "unknown option '--secton=jit'; did you mean --section?" },
    { "--comp (the start of three options)", { "--comp", NULL },               "unknown option '--comp'\n" },
    { "--json without its value at the end", { "--quiet", "--json", NULL },    "option '--json' needs a value" },
};

/* clp_expand_path directly, then through cli_parse with the Slurm variables
 * set in this process (and unset after). */
static void test_cli_expand(void)
{
    static cli_run r;
    static const struct { const char *tmpl, *want; } good[] = {
        { "r.json", "r.json" },
        { "results/fleet-%j/%n.json", "results/fleet-4242/gpu07.json" },
        { "r-%n-%j-%t.json", "r-gpu07-4242-3.json" },
        { "100%%-%t", "100%-3" },
        { "%%n", "%n" },
        { "%t%t", "33" },
    };
    static const struct { const char *tmpl, *needle; } bad[] = {
        { "r-%x.json", "'%x'" }, { "r-%", "at the end" }, { "%N", "'%N'" },
        { "%d.json", "'%d'" },
    };
    static const char *const a_good[] = { "--json=r-%n-%j-%t.json", "--csv=c-%t.csv", NULL };
    static const char *const a_bad[] = { "--csv=c-%q.csv", NULL };
    static const char *const a_pct[] = { "--json=a%%.json", NULL };
    static const char *const a_nojob[] = { "--json=r-%j-%t.json", NULL };
    char out[64], why[128], desc[256];
    size_t i;
    int rc;

    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        why[0] = '\0';
        rc = clp_expand_path(good[i].tmpl, "gpu07", "4242", "3", out, sizeof out, why, sizeof why);
        snprintf(desc, sizeof desc, "clp_expand_path: \"%s\" is \"%s\"", good[i].tmpl, good[i].want);
        th_check(desc, rc == 0 && strcmp(out, good[i].want) == 0);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        rc = clp_expand_path(bad[i].tmpl, "gpu07", "4242", "3", out, sizeof out, why, sizeof why);
        snprintf(desc, sizeof desc, "clp_expand_path: \"%s\" is refused, naming %s (%s)",
                 bad[i].tmpl, bad[i].needle, why);
        th_check(desc, rc == -1 && strstr(why, bad[i].needle) != NULL);
    }
    rc = clp_expand_path("%n.json", "a/b", "1", "0", out, sizeof out, why, sizeof why);
    th_check("clp_expand_path: a node name with a '/' is refused", rc == -1 && strstr(why, "'/'"));
    rc = clp_expand_path("%j.json", "n", "", "0", out, sizeof out, why, sizeof why);
    th_check("clp_expand_path: an empty value is refused", rc == -1 && strstr(why, "nothing"));
    rc = clp_expand_path("0123456789-%n", "gpu07", "1", "0", out, 16, why, sizeof why);
    th_check("clp_expand_path: a result longer than the buffer is refused",
             rc == -1 && strstr(why, "longer than 15"));
    rc = clp_expand_path("0123456789-%n", "gpu", "1", "0", out, 15, why, sizeof why);
    th_check("clp_expand_path: a result of exactly len - 1 fits",
             rc == 0 && strcmp(out, "0123456789-gpu") == 0);

    setenv("SLURMD_NODENAME", "gpu07", 1);
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("SLURM_PROCID", "3", 1);
    cli_t_parse(&r, a_good);
    th_check("cli: under Slurm, --json and --csv expanded from SLURMD_NODENAME, SLURM_JOB_ID, "
             "SLURM_PROCID, kept in the options",
             r.rc == CLI_OK && r.o.json && strcmp(r.o.json, "r-gpu07-4242-3.json") == 0 &&
             r.o.json == r.o.json_buf && r.o.csv && strcmp(r.o.csv, "c-3.csv") == 0);
    cli_t_parse(&r, a_bad);
    th_check("cli: --csv=c-%q.csv is a usage error naming the option and the placeholder",
             r.rc == CLI_USAGE && strstr(r.err, "harness: --csv=c-%q.csv: unknown placeholder '%q'") &&
             r.out[0] == '\0');
    cli_t_parse(&r, a_pct);
    th_check("cli: %% in --json is one '%'", r.rc == CLI_OK && strcmp(r.o.json, "a%.json") == 0);
    unsetenv("SLURMD_NODENAME");
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_PROCID");
    cli_t_parse(&r, a_nojob);
    th_check("cli: outside Slurm, %j is nojob and %t is 0",
             r.rc == CLI_OK && strcmp(r.o.json, "r-nojob-0.json") == 0);
}

void test_cli(void)
{
    static const size_t default_sizes[] = { 1024, 65536, 1048576, 4194304, SW_N };
    static const char *const none[] = { NULL };
    static cli_run r; /* large; static keeps it off the stack */
    char desc[256], many[CLI_T_ARGLEN];
    size_t sizes[8], i, len;
    const char *why;
    int n, ok;

    /* Defaults. */
    cli_t_parse(&r, none);
    th_check("cli: no arguments returns CLI_OK and prints nothing",
             r.rc == CLI_OK && r.out[0] == '\0' && r.err[0] == '\0');
    th_check("cli: default reps 10, warmup 3", r.o.reps == 10 && r.o.warmup == 3);
    th_check("cli: every section on by default",
             r.o.run[CLI_SEC_STOPWATCHES] == 1 && r.o.run[CLI_SEC_CROSSOVER] == 1);
    th_check("cli: the 5 default sizes",
             r.o.nsizes == 5 && memcmp(r.o.sizes, default_sizes, sizeof default_sizes) == 0);
    th_check("cli: default device 0, module loading default, not quiet",
             r.o.device == 0 && r.o.loading == CLI_LOAD_DEFAULT && r.o.quiet == 0);
    th_check("cli: default --rounds 3", r.o.rounds == 3);
    th_check("cli: default children per mode of --compare-loading 5 (the fewest that reach p < 0.01)",
             r.o.compare_rounds == 5);
    {
        static const char *const a[] = { "--compare-loading", "--quick", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --compare-loading --quick: 1 round, still 5 children a mode",
                 r.rc == CLI_OK && r.o.rounds == 1 && r.o.compare_rounds == 5);
    }
    {
        static const char *const a[] = { "--compare-loading", "--rounds=3", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --compare-loading --rounds=3: 3 a mode (--rounds wins)",
                 r.rc == CLI_OK && r.o.rounds == 3 && r.o.compare_rounds == 3);
    }
    {
        static const char *const a[] = { "--help=all", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --help=all names --compare-loading's default, 5, and the level it reaches",
                 r.rc == CLI_EXIT && strstr(r.out, "(default 5, --quick too: the fewest at which its U test\n"
                                           "                          can reach p < 0.01;") &&
                 strstr(r.out, "the median's 95% interval"));
        snprintf(desc, sizeof desc, "(defaults 1024,65536,1048576,4194304,%u and\n", SW_N);
        th_check("cli: --help=all gives crossover's default sizes, ending at the stopwatches' n",
                 r.rc == CLI_EXIT && strstr(r.out, desc) != NULL);
    }
    {
        static const char *const a[] = { "--quick", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --quick: 1 round", r.rc == CLI_OK && r.o.rounds == 1);
        th_check("cli: --quick: 1 warm-up", r.o.warmup == 1);
    }
    {
        static const char *const a[] = { "--quick", "--warmup=5", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --quick --warmup=5 keeps 5", r.rc == CLI_OK && r.o.warmup == 5);
    }
    {
        static const char *const a[] = { "--profile", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --profile: 1 round (one child of each kind), one a mode of --compare-loading",
                 r.rc == CLI_OK && r.o.rounds == 1 && r.o.compare_rounds == 1);
        th_check("cli: --profile: a fixed count of 1, no warm-up, the warm state only",
                 r.o.reps_given == 1 && r.o.reps == 1 && r.o.warmup == 0 &&
                 r.o.cache == CLI_CACHE_WARM);
        th_check("cli: --profile: every section but launch",
                 r.o.run[CLI_SEC_LAUNCH] == 0 && r.o.run[CLI_SEC_FUSION] == 1 &&
                 r.o.run[CLI_SEC_STOPWATCHES] == 1);
    }
    {
        static const char *const a[] = { "--profile", "--section=fusion,stopwatches", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --profile --section=fusion,stopwatches: those two",
                 r.rc == CLI_OK && r.o.run[CLI_SEC_FUSION] == 1 && r.o.run[CLI_SEC_STOPWATCHES] == 1 &&
                 r.o.run[CLI_SEC_LAUNCH] == 0 && r.o.run[CLI_SEC_JIT] == 0);
    }
    {
        static const char *const a[] = { "--profile", "--rounds=4", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --profile --rounds=4 keeps 4", r.rc == CLI_OK && r.o.rounds == 4);
        th_check("cli: --profile --rounds=4: 4 a mode of --compare-loading", r.o.compare_rounds == 4);
    }
    cli_t_parse(&r, none);
    th_check("cli: no json, csv, kernels-dir, arch or child by default",
             !r.o.json && !r.o.csv && !r.o.kernels_dir && !r.o.arch && !r.o.child &&
             r.o.child_t0_ns == 0);

    /* --help and --version. */
    {
        static const char *const a[] = { "--help", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --help returns CLI_EXIT", r.rc == CLI_EXIT);
        th_check("cli: --help prints \"usage:\" to out and nothing to err",
                 strncmp(r.out, "usage:", 6) == 0 && r.err[0] == '\0');
    }
    {
        static const char *const a[] = { "--version", NULL };
        cli_t_parse(&r, a);
        char want[256];
        snprintf(want, sizeof want, "harness %s (commit %s)\n", HARNESS_VERSION, harness_commit);
        th_check("cli: --version returns CLI_EXIT and prints \"harness <version> (commit <commit>)\"",
                 r.rc == CLI_EXIT && strcmp(r.out, want) == 0 && r.err[0] == '\0');
    }

    th_check("cli: default --kernel-timeout 30 s, --child-timeout 300 s",
             r.o.kernel_timeout == 30 && r.o.child_timeout == 300);
    {
        static const char *const a[] = { "--kernel-timeout=5", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --kernel-timeout=5", r.rc == CLI_OK && r.o.kernel_timeout == 5);
    }

    /* Valid values. */
    {
        /* The bound, by hand (KN_SYNTH_MAX_K in kernels.h says why). */
        static const char *const a[] = { "--synthetic-kernels=1,10000", NULL };
        static const char *const b[] = { "--synthetic-kernels=10001", NULL };
        cli_t_parse(&r, a);
        ok = r.rc == CLI_OK && r.o.nsynth == 2 && r.o.synth[1] == 10000;
        cli_t_parse(&r, b);
        th_check("cli: --synthetic-kernels takes K = 10000, refuses 10001",
                 ok && r.rc == CLI_USAGE && strstr(r.err, "K = 10001 is more than 10000") != NULL);
    }
    {
        static const char *const a[] = { "--reps=5", "--warmup=0", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --reps=5 --warmup=0",
                 r.rc == CLI_OK && r.o.reps == 5 && r.o.warmup == 0 && r.err[0] == '\0');
    }
    {
        static const char *const a[] = { "--sizes=1,2,3", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --sizes=1,2,3",
                 r.rc == CLI_OK && r.o.nsizes == 3 &&
                 r.o.sizes[0] == 1 && r.o.sizes[1] == 2 && r.o.sizes[2] == 3);
    }
    {
        static const char *const a[] = { "-xyz", NULL };
        static const char *const b[] = { "--section=bogus", NULL };
        int first;
        cli_t_parse(&r, a);
        first = r.rc == CLI_USAGE && strstr(r.err, "unknown option '-x'") != NULL;
        cli_t_parse(&r, b);
        th_check("cli: -xyz names '-x'; the next parse starts afresh (no cluster left half read)",
                 first && r.rc == CLI_USAGE && strstr(r.err, "unknown section 'bogus'") != NULL);
    }
    {
        static const char *const a[] = { "--section=crossover", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --section=crossover runs only crossover",
                 r.rc == CLI_OK && r.o.run[CLI_SEC_CROSSOVER] == 1 &&
                 r.o.run[CLI_SEC_STOPWATCHES] == 0 &&
                 strcmp(r.o.section_names[CLI_SEC_CROSSOVER], "crossover") == 0 &&
                 strcmp(r.o.section_names[CLI_SEC_STOPWATCHES], "stopwatches") == 0);
    }
    {
        static const char *const a[] = { "--section=crossover,stopwatches", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --section=crossover,stopwatches runs both",
                 r.rc == CLI_OK && r.o.run[CLI_SEC_CROSSOVER] == 1 &&
                 r.o.run[CLI_SEC_STOPWATCHES] == 1);
    }
    {
        static const char *const a[] = { "--module-loading=eager", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --module-loading=eager",
                 r.rc == CLI_OK && r.o.loading == CLI_LOAD_EAGER &&
                 strcmp(cli_loading_name(r.o.loading), "EAGER") == 0);
    }
    {
        static const char *const a[] = { "--module-loading=lazy", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --module-loading=lazy",
                 r.rc == CLI_OK && r.o.loading == CLI_LOAD_LAZY &&
                 strcmp(cli_loading_name(r.o.loading), "LAZY") == 0);
    }
    {
        static const char *const a[] = { "--arch=sm_90a", "--device=1", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --arch=sm_90a --device=1",
                 r.rc == CLI_OK && r.o.arch && strcmp(r.o.arch, "sm_90a") == 0 &&
                 r.o.device == 1);
    }
    {
        static const char *const takes[] = { "sm_90a", "sm_100a", "sm_100f", "sm_103f", "sm_120a",
                                             "sm_121f", "sm_75", "sm_89" };
        size_t k;
        int all = 1;
        for (k = 0; k < sizeof takes / sizeof takes[0]; k++) {
            char opt[32];
            const char *a[] = { opt, NULL };
            snprintf(opt, sizeof opt, "--arch=%s", takes[k]);
            cli_t_parse(&r, a);
            all = all && r.rc == CLI_OK && strcmp(r.o.arch, takes[k]) == 0;
        }
        th_check("cli: --arch takes sm_90a, sm_100a, sm_100f, sm_103f, sm_120a, sm_121f, sm_75, sm_89", all);
    }
    {
        static const char *const a[] = { "--json=a.json", "--quiet", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --json=a.json --quiet",
                 r.rc == CLI_OK && r.o.json && strcmp(r.o.json, "a.json") == 0 &&
                 !r.o.csv && r.o.quiet == 1);
    }
    {
        static const char *const a[] = { "--json=a.json", "--csv=a.csv", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --json and --csv on different files",
                 r.rc == CLI_OK && r.o.json && r.o.csv && strcmp(r.o.csv, "a.csv") == 0);
    }

    /* Usage errors. */
    for (i = 0; i < sizeof cli_bad_cases / sizeof cli_bad_cases[0]; i++) {
        const cli_bad_case *c = &cli_bad_cases[i];
        cli_t_parse(&r, c->args);
        ok = r.rc == CLI_USAGE && strncmp(r.err, "harness: ", 9) == 0 &&
             strstr(r.err, c->needle) != NULL && strstr(r.err, "--help") != NULL &&
             r.out[0] == '\0';
        snprintf(desc, sizeof desc, "cli: usage error: %s (rc %d, err: %.120s)",
                 c->desc, r.rc, r.err);
        /* keep the description on one line */
        for (len = 0; desc[len]; len++)
            if (desc[len] == '\n') desc[len] = ' ';
        th_check(desc, ok);
    }

    /* The words of an option: its value after '=' or in the next word; a
     * device child is given them as typed, but those the node run's parent
     * keeps (--device, --json, --csv, --trace). */
    {
        static const char *const a[] = { "--device=all", "--reps", "5", "--json=a.json",
                                         "--quick", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --reps 5 (the value in the next word) is --reps=5",
                 r.rc == CLI_OK && r.o.reps == 5 && r.o.reps_given == 1 && r.o.quick == 1);
        th_check("cli: a device child is given --reps 5 --quick, not --device or --json",
                 r.o.nchild_args == 3 && strcmp(r.o.child_args[0], "--reps") == 0 &&
                 strcmp(r.o.child_args[1], "5") == 0 && strcmp(r.o.child_args[2], "--quick") == 0);
    }
    {
        static const char *const a[] = { "--json", "--quick", NULL };
        cli_t_parse(&r, a);
        th_check("cli: --json --quick: the next word is --json's value, whatever it is",
                 r.rc == CLI_OK && r.o.json && strcmp(r.o.json, "--quick") == 0 && !r.o.quick);
    }
    {
        static const char *const a[] = { "--help=all", NULL };
        static const char *const b[] = { "--help", NULL };
        static const char *const rows[] = {
            "\n  --module-loading=MODE   lazy or eager", "\n  --synthetic-kernels=LIST  K for",
            "\n  -h, --help              the short help", "\n  --help=all              this text",
        };
        static const char *const common[] = {
            "\n  --section=LIST        visible,", "\n  --module-loading=MODE lazy or eager",
            "\n  -h, --help[=all]      this text",
        };
        size_t k;
        cli_t_parse(&r, a);
        ok = r.rc == CLI_EXIT && !strstr(r.out, "--child=") && !strstr(r.out, "--child-t0");
        for (k = 0; k < sizeof rows / sizeof rows[0]; k++) ok = ok && strstr(r.out, rows[k]);
        th_check("cli: --help=all: each row's label, padded to column 26 (at least 2 spaces), "
                 "its own line for --help=all; not the children's options", ok);
        cli_t_parse(&r, b);
        ok = r.rc == CLI_EXIT && strstr(r.out, "--module=PATH") &&
             strstr(r.out, "--quick") < strstr(r.out, "--quiet") && !strstr(r.out, "--reps");
        for (k = 0; k < sizeof common / sizeof common[0]; k++) ok = ok && strstr(r.out, common[k]);
        th_check("cli: --help: the common options in their places, padded to column 24", ok);
    }

    /* 64 sizes are accepted, 65 are not. */
    snprintf(many, sizeof many, "--sizes=1");
    for (i = 1; i < CLI_MAX_SIZES; i++) {
        len = strlen(many);
        snprintf(many + len, sizeof many - len, ",%zu", i + 1);
    }
    {
        const char *a[] = { many, NULL };
        cli_t_parse(&r, a);
        th_check("cli: 64 entries in --sizes are accepted",
                 r.rc == CLI_OK && r.o.nsizes == CLI_MAX_SIZES && r.o.sizes[63] == 64);
        len = strlen(many);
        snprintf(many + len, sizeof many - len, ",65");
        cli_t_parse(&r, a);
        th_check("cli: 65 entries in --sizes are a usage error naming --sizes",
                 r.rc == CLI_USAGE && strstr(r.err, "--sizes=") != NULL &&
                 strstr(r.err, "too many") != NULL);
    }

    /* cli_parse_sizes directly. */
    why = "";
    n = cli_parse_sizes("1024,65536,7", sizes, 8, &why);
    th_check("cli_parse_sizes: \"1024,65536,7\" gives 3 values in order",
             n == 3 && sizes[0] == 1024 && sizes[1] == 65536 && sizes[2] == 7);
    n = cli_parse_sizes("1099511627776", sizes, 8, &why);
    th_check("cli_parse_sizes: 2^40 itself is accepted",
             n == 1 && sizes[0] == ((size_t)1 << 40));
    {
        static const struct { const char *s; size_t max; } bad[] = {
            { "", 8 }, { "1,,2", 8 }, { "5,", 8 }, { ",5", 8 }, { "0", 8 },
            { "1099511627777", 8 }, { "99999999999999999999999", 8 },
            { "12a", 8 }, { "-1", 8 }, { "+1", 8 }, { " 1", 8 },
            { "1,2,3", 2 },
        };
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            why = NULL;
            n = cli_parse_sizes(bad[i].s, sizes, bad[i].max, &why);
            snprintf(desc, sizeof desc, "cli_parse_sizes: \"%s\" (max %zu) is -1 with a reason (%s)",
                     bad[i].s, bad[i].max, why ? why : "no reason");
            th_check(desc, n == -1 && why != NULL && why[0] != '\0');
        }
    }
    test_cli_expand();
}
