/* program.c: the user's own program (-- CMD), run as it is in fresh
 * processes, each side in turn: under the probe (src/probe/, loaded by the
 * driver through CUDA_INJECTION64_PATH) in the settings compared
 * (setting.h), and the same settings bare (no probe) for the probe's own
 * cost; each CUDA process's record read back and checked (precord.h), the
 * runs gathered (tally.h), compared (conclude.h) and put into sentences
 * (sentences.h). This file is the entry's steps: what the run is, its
 * sides, the runs (runner.h), the conclusions, the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sections/program/program.h"
#include "core/rx.h"
#include "cuda/cudadrv.h"
#include "cuda/nvml.h"
#include "os/proc.h"
#include "os/ufile.h"
#include "sections/program/conclude.h"
#include "sections/program/figures.h"
#include "sections/program/program_device.h"
#include "sections/program/runner.h"
#include "sections/program/sentences.h"
#include "sections/program/setting.h"
#include "sections/program/tally.h"

/* Everything one -- CMD run holds, on the heap: what was found before the
 * first run, the sides, the runner, the tallies. */
typedef struct pg_state {
    sec_ctx *c;
    char probe[4096];       /* "" when not found */
    char cupti[4096];       /* "" when not found */
    char outdir[4096];
    int outdir_tmp;         /* 1: a temporary directory, removed at the end */
    int nvml;               /* 1 when NVML answers */
    rx_prog *ready_re;      /* --ready, compiled (ready_on) */
    int ready_on;
    pgk_plan plan;
    pgt_tally tally;
    pgr_runner run;
} pg_state;

/* ------------------------------------------------------------ finding --- */

/* The probe: harness-probe.so beside this executable, else where make
 * install puts it. */
static int pg_find_probe(char *buf, size_t len, char *why, size_t whylen)
{
    char exe[4096], *slash;
    const char *given = getenv("HARNESS_PROBE");
    ssize_t n;

    /* HARNESS_PROBE=PATH: another build of it (and the CPU tests' stand-in). */
    if (given && *given) {
        if ((size_t)snprintf(buf, len, "%s", given) < len && access(buf, R_OK) == 0) return 0;
        snprintf(why, whylen, "HARNESS_PROBE=%.600s: %s", given, strerror(errno));
        buf[0] = '\0';
        return -1;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (n > 0) {
        exe[n] = '\0';
        if ((slash = strrchr(exe, '/'))) *slash = '\0';
        if ((size_t)snprintf(buf, len, "%s/harness-probe.so", exe) < len && access(buf, R_OK) == 0)
            return 0;
        if ((size_t)snprintf(buf, len, "%s/../lib/harness/harness-probe.so", exe) < len &&
            access(buf, R_OK) == 0)
            return 0;
    }
    snprintf(why, whylen, "harness-probe.so is neither beside the harness (%.600s) nor in "
             "../lib/harness/ (make builds it; make install installs it)", n > 0 ? exe : "?");
    buf[0] = '\0';
    return -1;
}

/* CUPTI: $CUDA_HOME's, the toolkit the harness was built with, the
 * loader's path (the probe's dlopen looks there itself), or the
 * nvidia-cuda-cupti wheel of the python3 on the path. */
static int pg_find_cupti(char *buf, size_t len, char *why, size_t whylen)
{
    const char *home = getenv("CUDA_HOME");
    const char *dirs[4];
    static const char *const names[] = { "libcupti.so", "libcupti.so.13", "libcupti.so.12" };
    size_t nd = 0, i, j, at = 0;
    FILE *py;

    if (home && *home) dirs[nd++] = home;
    dirs[nd++] = HARNESS_CUDA_HOME;
    for (i = 0; i < nd; i++)
        for (j = 0; j < sizeof names / sizeof names[0]; j++) {
            if ((size_t)snprintf(buf, len, "%s/lib64/%s", dirs[i], names[j]) < len &&
                access(buf, R_OK) == 0)
                return 0;
            if ((size_t)snprintf(buf, len, "%s/extras/CUPTI/lib64/%s", dirs[i], names[j]) < len &&
                access(buf, R_OK) == 0)
                return 0;
        }
    py = popen("python3 -c 'import glob, nvidia, os; print(\"\\n\".join(sorted(p for d in "
               "nvidia.__path__ for p in glob.glob(os.path.join(d, \"*\", \"lib\", "
               "\"libcupti.so*\")))))' 2>/dev/null", "r");
    if (py) {
        int got = fgets(buf, (int)len, py) != NULL;
        pclose(py);
        if (got) {
            buf[strcspn(buf, "\n")] = '\0';
            if (buf[0] && access(buf, R_OK) == 0) return 0;
        }
    }
    for (i = 0; i < nd && at < whylen; i++)
        at += (size_t)snprintf(why + at, whylen - at, "%s%s/lib64, %s/extras/CUPTI/lib64", i ? ", " : "",
                               dirs[i], dirs[i]);
    if (at < whylen)
        snprintf(why + at, whylen - at, " and python3's nvidia-cuda-cupti wheel; install the CUDA "
                 "toolkit's CUPTI or pip install nvidia-cuda-cupti, or set CUDA_HOME");
    buf[0] = '\0';
    return -1;
}

/* The directory of the program's output claimed by pg_claim_output ("":
 * none, a temporary one is made), and whether the claim was made. */
static char pg_claimed[4096];
static int pg_claim_done;

int pg_claim_output(const cli_opts *o)
{
    struct stat st;
    const char *opt = o->program_output ? "--program-output" : "--json";
    int fd;

    pg_claim_done = 1;
    pg_claimed[0] = '\0';
    if (o->program_output)
        snprintf(pg_claimed, sizeof pg_claimed, "%s", o->program_output);
    else if (o->json && strcmp(o->json, "-") != 0 &&
             (stat(o->json, &st) == 0 ? S_ISREG(st.st_mode) : errno == ENOENT))
        snprintf(pg_claimed, sizeof pg_claimed, "%s.program", o->json);
    else
        return 0;   /* none, stdout, /dev/null, a FIFO: nothing beside it */
    if (mkdir(pg_claimed, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "harness: %s=%s: cannot make %s: %s\n", opt,
                o->program_output ? o->program_output : o->json, pg_claimed, strerror(errno));
        return -1;
    }
    /* Held until the process ends (SIGKILL included: the kernel drops it),
     * never handed to the program (close-on-exec). */
    if ((fd = open(pg_claimed, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        fprintf(stderr, "harness: %s=%s: %s %s\n", opt, o->program_output ? o->program_output : o->json,
                pg_claimed, e == EWOULDBLOCK ? "is in use by another harness run (it holds a lock on "
                "it): the two programs' output would mix there; give this run another --json or "
                "--program-output" : strerror(e));
        if (fd >= 0) close(fd);
        return -1;
    }
    return 0;
}

/* Where the program's output goes: the directory pg_claim_output claimed,
 * else a temporary directory removed at the end. */
static int pg_output_dir(pg_state *s, char *why, size_t whylen)
{
    if (!pg_claim_done && pg_claim_output(s->c->o) != 0) {
        snprintf(why, whylen, "the program's output directory could not be claimed (said above)");
        return -1;
    }
    if (pg_claimed[0]) {
        snprintf(s->outdir, sizeof s->outdir, "%s", pg_claimed);
        return 0;
    }
    s->outdir_tmp = 1;
    return pr_mkdtemp("program-output", s->outdir, sizeof s->outdir, why, whylen);
}

/* ------------------------------------------------------------ set-up --- */

/* What the run is: the command, the sides, the probe, CUPTI, NVML, the
 * outputs; found before any run. Returns 0, or -1 (printed). */
/* The probe's variables as the caller's environment set them, removed:
 * each run gets those the harness sets for it, and no other (a caller's
 * HARNESS_PROBE_SPANS reached bare runs too, its HARNESS_PROBE_READY
 * matched marks against another expression). Each one removed is said. */
static void pg_strip_probe_env(void)
{
    static const char *const names[] = { PRC_ENV_DIR, PRC_ENV_T0, PRC_ENV_CUPTI, PRC_ENV_SPANS,
                                         PRC_ENV_READY, PRC_ENV_ONLY_SUBSCRIBE };
    char shown[120];
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (!v) continue;
        fprintf(stderr, "harness: " PG ": %s=%s in the environment is the harness's own variable: "
                "removed, not passed to the runs\n", names[i], uf_visible(v, shown, sizeof shown));
        unsetenv(names[i]);
    }
}

/* A run's files need room: the output directory's and TMPDIR's file
 * systems (the records go under TMPDIR) each with less than 1 MiB free
 * said before the first run, with what fails there (a program whose
 * writes to stdout fail exits 1 and cannot say why: its stderr is there
 * too). */
static void pg_check_space(const char *outdir)
{
    const char *tmp = getenv("TMPDIR");
    const char *where[2] = { outdir, tmp && *tmp ? tmp : "/tmp" };
    struct statvfs v;
    struct stat st[2];
    int ok[2] = { 0, 0 };
    size_t i;
    for (i = 0; i < 2; i++) {
        double free_b;
        if (!where[i] || stat(where[i], &st[i]) != 0) continue;
        ok[i] = 1;
        /* One file system: said once. */
        if (i == 1 && ok[0] && st[0].st_dev == st[1].st_dev) continue;
        if (statvfs(where[i], &v) != 0) continue;
        free_b = (double)v.f_bavail * (double)v.f_frsize;
        if (free_b < 1048576.0)
            fprintf(stderr, "harness: " PG ": %s%s: %.0f KiB free on its file system: %s\n",
                    i ? "TMPDIR=" : "the program's output directory ", where[i], free_b / 1024,
                    i ? "the runs' records cannot be written there"
                      : "the program's stdout and stderr cannot be written there (a program whose "
                        "writes fail may exit 1 without a word), nor, where it is under TMPDIR, the "
                        "runs' records");
    }
}

static int pg_setup(pg_state *s)
{
    results *r = s->c->r;
    const cli_opts *o = s->c->o;
    char why[1024], line[4096], sides[200];
    size_t i, at = 0;

    pg_strip_probe_env();

    if (pg_find_probe(s->probe, sizeof s->probe, why, sizeof why) != 0) {
        res_env_str(r, "program_probe", NULL);
        res_env_str(r, "program_probe_missing", why);
        fprintf(stderr, "harness: " PG ": %s; the runs are bare (no figures from inside)\n", why);
    }
    pgk_plan_make(&s->plan, o, s->probe[0] != 0);
    if (pg_output_dir(s, why, sizeof why) != 0) {
        fprintf(stderr, "harness: " PG ": %s\n", why);
        return -1;
    }
    pg_check_space(s->outdir);
    pgk_command_line(&s->plan, o, line, sizeof line);
    res_env_str(r, "program_command", line);
    res_env_str(r, "program_path", o->cmd_path);
    res_env_num(r, "program_rounds", o->rounds);
    for (i = 0; i < s->plan.nsides; i++)
        at += (size_t)snprintf(sides + at, sizeof sides - at, "%s%s", i ? ", " : "", s->plan.side[i].label);
    res_env_str(r, "program_sides", sides);
    res_env_str(r, "program_user_loading", getenv("CUDA_MODULE_LOADING"));
    /* Another injection of the user's (Nsight's, say): the probe takes its
     * place on probed runs; bare runs keep it. */
    res_env_str(r, "program_user_injection", getenv("CUDA_INJECTION64_PATH"));
    if (getenv("CUDA_INJECTION64_PATH") && *getenv("CUDA_INJECTION64_PATH"))
        fprintf(stderr, "harness: " PG ": CUDA_INJECTION64_PATH=%s is set: probed runs load the "
                "harness's probe in its place; bare runs keep it\n",
                uf_visible(getenv("CUDA_INJECTION64_PATH"), line, sizeof line));
    res_env_str(r, "program_output", s->outdir_tmp ? NULL : s->outdir);
    if (s->probe[0]) {
        res_env_str(r, "program_probe", s->probe);
        if (pg_find_cupti(s->cupti, sizeof s->cupti, why, sizeof why) == 0)
            res_env_str(r, "program_cupti", s->cupti);
        else {
            res_env_str(r, "program_cupti", NULL);
            res_env_str(r, "program_cupti_missing", why);
            fprintf(stderr, "harness: " PG ": no CUPTI: looked in %s; the wall time and exit status "
                    "are still measured\n", why);
        }
    }
    s->nvml = nv_open(why, sizeof why) == 0;
    res_env_str(r, "program_nvml", s->nvml ? "ok" : why);
    /* cli_parse compiled it once already: it cannot fail here but for memory. */
    if (o->ready && rx_compile(o->ready, &s->ready_re, why, sizeof why) == 0) s->ready_on = 1;
    res_env_str(r, "program_ready", o->ready);
    res_env_num(r, "program_ready_after_s", o->ready_after);
    res_env_str(r, "program_ready_marks", !s->ready_on || !s->probe[0] ? "none: no --ready, or no probe"
                : pgr_user_nvtx() ? "none: NVTX_INJECTION64_PATH is the user's" : "NVTX marks, through the probe");
    if (s->ready_on && s->probe[0] && pgr_user_nvtx())
        fprintf(stderr, "harness: " PG ": NVTX_INJECTION64_PATH=%s is set: --ready matches the "
                "program's lines only, not its NVTX marks\n",
                uf_visible(getenv("NVTX_INJECTION64_PATH"), line, sizeof line));
    return 0;
}

/* The environment fields of the sides (setting.h) and of the runner's
 * options (the printer and scripts read them). */
static void pg_env_sides(pg_state *s)
{
    results *r = s->c->r;
    const cli_opts *o = s->c->o;
    pgk_env_fields(r, &s->plan, o);
    res_env_num(r, "program_warmup", o->warmup);
    res_env_num(r, "program_max_rounds", o->max_rounds);
    res_env_str(r, "program_prepare", o->prepare);
    res_env_str(r, "program_cleanup", o->cleanup);
}

/* The runner, handed what the set-up found. */
static void pg_runner(pg_state *s)
{
    pgr_runner *g = &s->run;
    g->c = s->c;
    g->plan = &s->plan;
    g->tally = &s->tally;
    g->probe = s->probe;
    g->cupti = s->cupti;
    g->outdir = s->outdir;
    g->outdir_tmp = s->outdir_tmp;
    g->ready = s->ready_on ? s->ready_re : NULL;
    g->nvml = s->nvml;
}

/* The environment fields of the rounds taken. */
static void pg_env_rounds(pg_state *s)
{
    results *r = s->c->r;
    const pgr_counts *n = &s->run.n;
    res_env_num(r, "program_rounds_taken", n->round);
    res_env_str(r, "program_stop", n->stop);
    res_env_num(r, "program_alpha", n->alpha);
    res_env_num(r, "program_looks_first", n->looks.first);
    res_env_num(r, "program_looks_planned", n->looks.looks);
    res_env_num(r, "program_looks", n->nlooks);
    res_env_num(r, "program_looks_calling", n->nlooks_calling);
    res_env_num(r, "program_look_verdicts", n->look_pairs);
    res_env_num(r, "program_look_calls", n->look_calls);
}

/* The failed runs' answers (failures.h), first among the answers. */
static void pg_failures(pg_state *s)
{
    const char *keys[PG_MAX_SIDES], *labels[PG_MAX_SIDES];
    size_t i;
    for (i = 0; i < s->plan.nsides; i++) {
        keys[i] = s->plan.side[i].key;
        labels[i] = s->plan.side[i].label;
    }
    pgx_answer(&s->run.fail, s->c->r, keys, labels, s->plan.nsettings, s->plan.nsides);
}

/* The conclusions, in their order: the kinds' own (--squeeze's), the
 * verdicts, the probe's cost, the slowest first uses, the headline's
 * sentence, the kinds' sentences, the first uses after ready, the hazards'
 * sentences, --preload-list, what the runs came to. */
static void pg_conclude(pg_state *s)
{
    results *r = s->c->r;
    pgr_counts *n = &s->run.n;
    const pga_in in = { r, s->c->o, &s->plan, &s->tally, n };

    n->failed += pgk_conclude(&s->plan, s->c);
    pg_failures(s);
    if (s->plan.nsettings > 1) pgc_compare(r, &s->plan, n->alpha, s->c->o->threshold);
    pgc_probe_cost(r, &s->plan);
    pgc_slowest(r, &s->plan, &s->tally);
    pga_headline(&in);
    pgk_answer(&s->plan, r);
    pgc_ready_list(r, &s->plan, &s->tally);
    pga_hazards(&in);
    if (pgc_write_preload(r, &s->plan, s->c->o->preload_list) != 0) n->failed++;
    pga_outcome(&in);
}

/* --show-output: the first run's stdout and stderr, up to PG_SHOW_BYTES
 * each, into the env fields program_first_stdout_text and
 * program_first_stderr_text (the printer shows them; a cut is said, at
 * that size or at a NUL byte, where the text the results hold ends). */
#define PG_SHOW_BYTES 65536
static void pg_keep_output(pg_state *s)
{
    static const char *const from[2] = { "program_first_stdout", "program_first_stderr" };
    static const char *const to[2] = { "program_first_stdout_text", "program_first_stderr_text" };
    size_t i;
    for (i = 0; i < 2; i++) {
        const res_kv *kv = res_env_get(s->c->r, from[i]);
        char *buf = NULL, why[300], *shown, *nul;
        size_t n = 0;
        int cut = 0;
        if (!kv || kv->kind != RES_STR || !kv->str) continue;
        /* The program can put a FIFO or a link in its place: ufile.h. */
        if (uf_read(AT_FDCWD, kv->str, PG_SHOW_BYTES, &buf, &n, &cut, why, sizeof why) != 0) {
            char said[400];
            snprintf(said, sizeof said, "[not shown: %s: %s]\n", kv->str, why);
            res_env_str(s->c->r, to[i], said);
            continue;
        }
        /* A NUL ends the text the results hold: the cut there said. */
        if ((nul = memchr(buf, '\0', n)) != NULL) {
            size_t at = (size_t)(nul - buf);
            if ((shown = realloc(buf, at + 100))) {
                buf = shown;
                snprintf(buf + at, 100, "\n[cut at byte %zu, a NUL byte: the %zu%s bytes from it on not "
                         "shown]\n", at, n - at, cut ? " or more" : "");
            }
        } else if (cut && (shown = realloc(buf, n + 64))) {
            buf = shown;
            snprintf(buf + n, 64, "\n[cut at %d bytes]\n", PG_SHOW_BYTES);
        }
        res_env_str(s->c->r, to[i], buf);
        free(buf);
    }
}

/* Everything the run made, gone: the kinds' state, the tallies, the
 * compiled --ready, a temporary output directory (no path in the results
 * names a file gone), the state itself. */
static void pg_end(pg_state *s)
{
    pgk_stop(&s->plan);
    pgt_free(&s->tally);
    if (s->ready_on) rx_free(s->ready_re);
    if (s->outdir_tmp && s->outdir[0]) {
        pr_rmtree(s->outdir);
        res_env_str(s->c->r, "program_first_stdout", NULL);
        res_env_str(s->c->r, "program_first_stderr", NULL);
    }
    free(s);
}

/* The section's status: a failed run or a refused record (the figures are
 * not the whole: the results are incomplete) or a run not started fail
 * it; without a driver no CUDA device was used. */
static sec_status pg_status(sec_ctx *c, int rc, int failed, const char *no_driver)
{
    if (failed) c->r->incomplete = 1;
    if (rc != SEC_OK || failed) return SEC_FAILED;
    if (no_driver) {
        sec_skip(c, PG, "no CUDA device was used: no CUDA driver is there (the program ran; its "
                 "whole-process time and exit status are measured)");
        return SEC_NO_GPU;
    }
    return SEC_OK;
}

sec_status pg_run(sec_ctx *c)
{
    pg_state *s = calloc(1, sizeof *s);
    char why[512];
    int rc, failed, no_driver;

    if (!s) {
        fprintf(stderr, "harness: " PG ": out of memory\n");
        return SEC_FAILED;
    }
    s->c = c;
    if (pg_setup(s) != 0 || pgt_init(&s->tally, s->plan.nsides) != 0) {
        if (s->ready_on) rx_free(s->ready_re);
        free(s);
        return SEC_FAILED;
    }
    pg_env_sides(s);
    pg_runner(s);
    no_driver = drv_load(why, sizeof why) != 0;
    if (no_driver) res_env_str(c->r, "program_driver", why);
    rc = pgk_start(&s->plan, c, no_driver ? why : NULL);
    if (rc != SEC_OK && rc != SEC_ERROR) {
        pg_end(s);
        if (rc == SEC_FAILED) c->r->incomplete = 1;
        return rc;
    }
    rc = rc == SEC_ERROR || pgr_runs(&s->run) != 0 ? SEC_FAILED : SEC_OK;
    pgr_clean_up(&s->run);
    pg_env_rounds(s);
    pg_conclude(s);
    pgd_env(c->r, s->tally.bus, s->cupti);
    if (c->o->show_output) pg_keep_output(s);
    failed = s->run.n.failed || s->run.n.refused;
    pg_end(s);
    return pg_status(c, rc, failed, no_driver ? why : NULL);
}

/* ------------------------------------------------------------ schema --- */

void pg_schema(sch_out *o)
{
    pgf_schema_figures(o);
    pgx_schema_figures(o);
    pgk_schema_figures(o);
    sch_derived(o);
    pgf_schema_derived(o);
    pgx_schema_derived(o);
    pgk_schema(o);
}
