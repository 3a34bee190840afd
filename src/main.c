/* main.c: options -> plan -> run sections -> write results; nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/answer.h"
#include "core/report.h"
#include "core/results.h"
#include "core/trace.h"
#include "cuda/cudadrv.h"
#include "cuda/cufault.h"
#include "cuda/kcache.h"
#include "cuda/rtc.h"
#include "os/clock.h"
#include "os/fault.h"
#include "os/phase.h"
#include "os/progress.h"
#include "os/proc.h"
#include "os/sig.h"
#include "run/cli.h"
#include "run/markdown.h"
#include "run/host.h"
#include "run/section.h"
#include "run/table.h"
#include "sections/node/node.h"
#include "sections/program/program.h"

/* What the stop routine needs: the run's options and its results (NULL in
 * a child, which hands nothing on when it is stopped). */
typedef struct main_stop_arg {
    const cli_opts *o;
    results *r;
} main_stop_arg;

/* Write the outputs of a stopped run: the paths written go into done ("a",
 * "a and b", "a, b and c"), those that could not be written into failed
 * (af_write has said why). */
static void main_stop_write(const main_stop_arg *m, char *done, size_t dlen, char *failed, size_t flen)
{
    const char *path[3] = { m->o->json, m->o->csv, m->o->trace };
    const char *ok[3];
    size_t n = 0, i, at = 0, fat = 0;
    int rc;

    for (i = 0; i < 3; i++) {
        if (!path[i]) continue;
        rc = i == 0 ? rp_write_json(m->r, path[i]) : i == 1 ? rp_write_csv(m->r, path[i])
                                                            : tr_write(path[i]);
        if (rc == 0) ok[n++] = path[i];
        else if (fat < flen) fat += (size_t)snprintf(failed + fat, flen - fat, "%s%s", fat ? ", " : "", path[i]);
    }
    done[0] = '\0';
    for (i = 0; i < n && at < dlen; i++)
        at += (size_t)snprintf(done + at, dlen - at, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", ok[i]);
}

/* The stop routine (sg_stop), for a run ended by a signal or a stuck
 * kernel: remove the temporary directories, release a blocking kernel that
 * is held, and write the results so far (JSON, CSV and trace), marked
 * incomplete, with the reason in the environment record ("stopped") and in
 * the trace's otherData. Bounded: it waits at most 2 s for the released
 * kernel's stream, and on nothing else (an output that is a FIFO with no
 * reader is not written). It may run on a thread of its own while the
 * run's thread is inside NVRTC (sg_call_begin). */
static void main_stop(int code, const char *why, void *arg)
{
    main_stop_arg *m = arg;
    char done[3 * 4200], failed[3 * 4200];
    int rel;

    pr_cleanup();
    rel = drv_release_held(2.0);
    if (rel == 1) fprintf(stderr, "harness: the blocking kernel was released; its stream drained\n");
    else if (rel == 0) fprintf(stderr, "harness: the blocking kernel was released (its flag set); its "
                               "stream had not drained after 2 s\n");
    if (!m->r) {
        fprintf(stderr, "harness: %s: %s\n", m->o->child != CLI_CHILD_NONE ? "child stopped" : "stopped",
                why);
        return;
    }
    m->r->incomplete = 1;
    res_env_str(m->r, "stopped", why);
    host_device(m->r, m->o);
    tr_stopped(why);
    failed[0] = '\0';
    main_stop_write(m, done, sizeof done, failed, sizeof failed);
    fprintf(stderr, "harness: stopped: %s; exit code %d%s%s%s%s%s\n", why, code,
            done[0] ? "; the results so far, marked incomplete, are in " : "", done,
            failed[0] ? "; " : "", failed, failed[0] ? " could not be written" : "");
}

/* What a second signal does before the process ends at once (sg_on_kill):
 * kill the child being waited on, remove the run's temporary directories
 * (the compile cache, NVRTC's --time files...). Async-signal-safe. */
static void main_kill(void)
{
    pr_kill_child();
    pr_cleanup_now();
}

/* What the sections' answers come to, so far. */
typedef struct main_status {
    int usage;              /* a usage error found at run time */
    int failed;             /* a check, a call or a child failed */
    int no_gpu;             /* a section found no usable GPU */
} main_status;

/* Exit status from the sections' answers: a usage error first, then a
 * failure, then a missing GPU. */
static int exit_code(const main_status *st)
{
    if (st->usage) return 2;
    if (st->failed) return 1;
    if (st->no_gpu) return 3;
    return 0;
}

/* Fold section name's answer rc into *st. A child's usage error or missing
 * GPU (the child printed which) is the section's, recorded as its skip when
 * it recorded none. A usage error, or a failure that no failed check
 * explains (an error stopped it), leaves the run incomplete. checks and
 * skips: the failed checks and the skips before the section ran. */
static void main_section_done(sec_ctx *c, const char *name, int rc, size_t checks, size_t skips,
                              main_status *st)
{
    results *r = c->r;
    int unexplained = res_failed(r) == checks;

    if (c->child_usage) rc = SEC_USAGE;
    else if (c->child_no_gpu && rc == SEC_FAILED && unexplained) rc = SEC_NO_GPU;
    if ((c->child_usage || c->child_no_gpu) && r->nskip == skips)
        res_skip_section(r, name, c->child_usage ? "a child process found a usage error (its "
                         "message is above)" : "a child process found no usable GPU, or no "
                         "NVRTC (its message is above)");
    if (rc == SEC_USAGE) st->usage = r->incomplete = 1;
    else if (rc == SEC_FAILED) st->failed = 1;
    else if (rc == SEC_NO_GPU) st->no_gpu = 1;
    if (rc == SEC_FAILED && unexplained) r->incomplete = 1;
}

/* The tables of a node run's device: the sections its child ran. */
static void main_device_tables(FILE *f, const results *own, const cli_opts *o)
{
    int i;

    for (i = 0; i < CLI_NSECTIONS; i++)
        if (o->run[i] && sec_table[i].scope == SEC_SCOPE_DEVICE)
            tb_section(f, own, sec_table[i].name, sec_table[i].print);
}

/* The phase log's last line of a child (HARNESS_PHASE_LOG). */
static void main_mark_exit(void)
{
    ph_mark("exit");
}

/* Where a part of the report is printed before it is fitted to the
 * terminal's width (tb_fit): a memory stream, or NULL (then it goes to
 * stdout as it is). */
static FILE *main_fit_begin(char **buf, size_t *len)
{
    *buf = NULL;
    return open_memstream(buf, len);
}

/* Print what m holds fitted to width on f, and free it. */
static void main_fit_end(FILE *f, FILE *m, char **buf, size_t width)
{
    if (!m) return;
    if (fclose(m) == 0 && *buf) tb_fit(f, *buf, width);
    free(*buf);
    *buf = NULL;
}

/* One run of main: its options, results, context, status and times. */
typedef struct main_run {
    long long t_main;           /* CLOCK_MONOTONIC at the start, ns */
    time_t t_start;             /* the wall clock at the start */
    cli_opts o;
    results r;
    sec_ctx c;
    main_status st;
    double secs[CLI_NENTRIES];  /* each entry's seconds, where it ran */
    FILE *tables;               /* where the tables go: stdout, or stderr with --json=- */
    main_stop_arg stop;         /* the stop routine's (sg_on_stop) */
} main_run;

/* The value main's steps return to go on. */
#define MAIN_GO (-1)

/* The tables of the entries that ran here, fitted to width (the program's
 * printed as it is: it holds the program's own output), a node run's
 * devices in place of the roofline, the checks, and the seconds each
 * entry took. */
static void main_print_tables(FILE *f, const main_run *m, size_t width)
{
    const cli_opts *o = &m->o;
    char line[1024], *buf = NULL;
    size_t at = 0, len = 0;
    FILE *fit = main_fit_begin(&buf, &len), *out = fit ? fit : f;
    int i;

    tb_config(out, &m->r, o);
    line[0] = '\0';
    for (i = 0; i < CLI_NENTRIES; i++) {
        const sec_def *s = &sec_table[i];
        if (!sec_runs_here(o, i) || s->scope == SEC_SCOPE_NODE) continue;
        if (s->scope != SEC_SCOPE_PROGRAM) {
            tb_section(out, &m->r, s->name, s->print);
            continue;
        }
        main_fit_end(f, fit, &buf, width);
        tb_section(f, &m->r, s->name, s->print);
        out = (fit = main_fit_begin(&buf, &len)) ? fit : f;
    }
    if (sec_runs_here(o, CLI_SEC_NODE)) nd_print(out, &m->r, o, main_device_tables);
    else tb_roofline(out, &m->r);
    tb_checks(out, &m->r);
    for (i = 0; i < CLI_NENTRIES && at < sizeof line; i++)
        if (sec_runs_here(o, i) && sec_table[i].scope != SEC_SCOPE_PROGRAM)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %.1f", at ? ", " : "",
                                   sec_timed_name(i), m->secs[i]);
    if (line[0]) {
        fprintf(out, "\n");
        ly_para(out, 0, 2, width, "Seconds by section: %s", line);
    }
    main_fit_end(f, fit, &buf, width);
}

/* The entries whose answers the summary gives, into names; their count. */
static size_t main_answer_names(const main_run *m, const char **names)
{
    size_t n = 0;
    int i;
    for (i = 0; i < CLI_NENTRIES; i++)
        if (sec_asked(&m->o, i) && sec_table[i].scope != SEC_SCOPE_NODE)
            names[n++] = sec_table[i].name;
    return n;
}

/* The tables (not under --quiet), then the summary every run ends with:
 * the answers of the entries asked for, from the results alone. */
static void main_print(FILE *f, const main_run *m, int code, double seconds)
{
    const results *r = &m->r;
    const char *names[CLI_NENTRIES];
    size_t n = main_answer_names(m, names), width = tb_width();
    int node = sec_runs_here(&m->o, CLI_SEC_NODE);
    an_run run;

    if (!m->o.quiet) main_print_tables(f, m, width);
    run.seconds = seconds;
    run.exit_code = code;
    run.width = width;
    /* A node run: the first device's answers (each device's are in the JSON). */
    run.answers = node && r->ndev ? r->dev[0].own : NULL;
    run.device = node && r->ndev ? r->dev[0].ordinal : 0;
    an_summary(f, r, names, n, &run);
}

/* 1 when an output's path is "-", stdout. */
static int main_dash(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

/* The command line read, HARNESS_FAULT armed, -- CMD's output directory
 * claimed and the sampling planned. Returns MAIN_GO, or the exit code. */
static int main_options(main_run *m, int argc, char **argv)
{
    int rc = cli_parse(argc, argv, sec_names(), &m->o, stdout, stderr);

    if (rc == CLI_EXIT) return 0;
    if (rc != CLI_OK) return 2;
    if (m->o.schema) {
        errno = 0;
        if (sec_print_schema(stdout) == 0 && fflush(stdout) == 0) return 0;
        fprintf(stderr, "harness: --schema: cannot write to stdout: %s\n", strerror(errno ? errno : EIO));
        return 1;
    }
    if (cf_setup() != 0) return 2;
    /* --json=- (or --csv, --trace, --preload-list, --markdown): that output
     * alone on stdout; the tables go to stderr. */
    m->tables = main_dash(m->o.json) || main_dash(m->o.csv) || main_dash(m->o.trace) ||
                main_dash(m->o.preload_list) || main_dash(m->o.markdown) ? stderr : stdout;
    /* -- CMD: the directory of the program's output claimed (or refused,
     * when another harness run holds it) before anything is written. */
    if (m->o.cmd && m->o.child == CLI_CHILD_NONE && pg_claim_output(&m->o) != 0) return 2;
    sec_timing_plan(&m->o);
    return MAIN_GO;
}

/* The process made ready: the stop routine, the signals, the loading mode
 * in the environment, a child's phase log. Returns MAIN_GO, or the exit
 * code. */
static int main_process(main_run *m)
{
    const cli_opts *o = &m->o;

    /* Every wait on the device is bounded; a stuck one stops the process. */
    m->stop.o = o;
    sg_on_stop(main_stop, &m->stop);
    sg_on_kill(main_kill);
    drv_set_kernel_timeout(o->kernel_timeout);
    /* SIGINT, SIGTERM, SIGHUP and SIGQUIT end the run at its next safe
     * point (a child keeps the default action: the parent kills and reaps
     * it). Before any library is loaded: every thread it starts inherits
     * the blocked mask. */
    if (o->child == CLI_CHILD_NONE && sg_install() != 0) {
        perror("harness: catching SIGINT, SIGTERM, SIGHUP and SIGQUIT");
        return 1;
    }
    /* The driver reads CUDA_MODULE_LOADING at cuInit: set it first, for this
     * process and the children it starts. */
    if (o->loading != CLI_LOAD_DEFAULT && setenv("CUDA_MODULE_LOADING", cli_loading_name(o->loading), 1) != 0) {
        perror("harness: setenv CUDA_MODULE_LOADING");
        return 1;
    }
    /* A reason the parent said already is not said again by a child. */
    sec_said_inherit(o->child != CLI_CHILD_NONE);
    /* Test hook: a child that hangs, for the time limit's tests. */
    if (o->child != CLI_CHILD_NONE && getenv("HARNESS_TEST_CHILD_HANG")) {
        for (;;) pause();
    }
    if (o->child != CLI_CHILD_NONE) {
        ph_mark(cli_child_name(o->child));
        atexit(main_mark_exit);
    }
    return MAIN_GO;
}

/* The run begun: the compile cache, the results with their environment,
 * the trace, the context the entries share. */
static void main_begin(main_run *m, int argc, char **argv)
{
    /* The run's compile cache, for the built-in sections and their children
     * (not for -- CMD: the user's program is given no variable of ours). */
    if (m->o.child == CLI_CHILD_NONE && !m->o.cmd) {
        char why[512];
        if (kc_begin(why, sizeof why) != 0)
            fprintf(stderr, "harness: no compile cache for this run (each process compiles what "
                    "it loads): %s\n", why);
    }
    res_init(&m->r);
    /* The progress lines are the parent's: a child's would draw over them. */
    tr_init(m->t_main, m->o.trace != NULL, !m->o.quiet && m->o.child == CLI_CHILD_NONE);
    pl_allow(!m->o.quiet && m->o.child == CLI_CHILD_NONE);
    ph_on_set(tr_phase);
    m->c.o = &m->o;
    m->c.r = &m->r;
    if (m->o.child == CLI_CHILD_NONE) m->stop.r = &m->r;
    host_record(&m->r, &m->o);
    host_provenance(&m->r, argc, argv, m->t_start);
}

/* Entry i's plan, before any entry runs. */
static void main_plan(main_run *m, cli_section i)
{
    size_t checks = res_failed(&m->r), skips = m->r.nskip;
    int rc = sec_table[i].plan(&m->c);

    main_section_done(&m->c, sec_table[i].name, rc, checks, skips, &m->st);
}

/* Run entry i: traced (but the node run, whose devices are), timed, its
 * answers stored, its answer folded into the status. */
static void main_run_entry(main_run *m, cli_section i)
{
    const sec_def *s = &sec_table[i];
    size_t checks = res_failed(&m->r), skips = m->r.nskip;
    char key[64];
    long long t0;
    int rc;

    sg_check();
    m->c.child_usage = m->c.child_no_gpu = 0;
    if (s->scope != SEC_SCOPE_NODE) tr_section_begin(s->name);
    t0 = clk_now_ns();
    rc = s->run(&m->c);
    if (m->o.child == CLI_CHILD_NONE || m->o.child == CLI_CHILD_DEVICE) s->answer(&m->r);
    if (s->scope != SEC_SCOPE_NODE) tr_section_end();
    m->secs[i] = (double)(clk_now_ns() - t0) / 1e9;
    snprintf(key, sizeof key, "seconds_%s", sec_timed_name(i));
    res_env_num(&m->r, key, m->secs[i]);
    main_section_done(&m->c, s->name, rc, checks, skips, &m->st);
}

/* Every entry that runs here: the plans, then the runs, in the list's
 * order, until a usage error. */
static void main_entries(main_run *m)
{
    int i;

    for (i = 0; i < CLI_NENTRIES && !m->st.usage; i++)
        if (sec_runs_here(&m->o, i)) main_plan(m, i);
    for (i = 0; i < CLI_NENTRIES && !m->st.usage; i++)
        if (sec_runs_here(&m->o, i)) main_run_entry(m, i);
}

/* After the entries: the compile cache gone, and the status and the
 * environment from what the results and the driver and NVRTC say. */
static void main_settle(main_run *m)
{
    results *r = &m->r;

    /* Nothing compiles after the sections: the cache goes now, before the
     * tables and files (a second signal while they are written finds it gone). */
    kc_end();
    sg_check();
    /* A section, or a part of one, skipped (no GPU, no NVRTC, a usage error
     * found at run time): something asked for was not done. */
    if (r->nskip > 0) r->incomplete = 1;
    if (res_failed(r) > 0) m->st.failed = 1;
    /* A driver or NVRTC call failed: what came after it was not measured. */
    if (drv_errors() > 0 || rtc_errors() > 0) {
        r->incomplete = 1;
        m->st.failed = 1;
        if (drv_first_error()) res_env_str(r, "first_error", drv_first_error());
    }
    if (m->c.gpu_state != SEC_GPU_OPEN && m->c.gpu_why[0]) res_env_str(r, "gpu_unusable", m->c.gpu_why);
    host_device(r, &m->o);
}

/* 1 in a child that hands its results to its parent as lines. */
static int main_lines_child(const cli_opts *o)
{
    return o->child == CLI_CHILD_RESULTS || o->child == CLI_CHILD_DEVICE;
}

/* --markdown: the tables laid out at 100 columns, then the answers, the
 * checks, the run time and the exit code as they stand now. Returns 0, or
 * -1 (said on stderr). */
static int main_markdown(main_run *m)
{
    const char *names[CLI_NENTRIES];
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    md_doc d;
    int rc;

    tb_set_width(100);
    if (mem) {
        main_print_tables(mem, m, 100);
        if (fclose(mem) != 0) {
            free(buf);
            buf = NULL;
        }
    }
    tb_set_width(0);
    d.r = &m->r;
    d.tables = buf;
    d.sections = names;
    d.nsections = main_answer_names(m, names);
    d.seconds = (double)(clk_now_ns() - m->t_main) / 1e9;
    d.exit_code = exit_code(&m->st);
    rc = md_write(m->o.markdown, &d);
    free(buf);
    return rc;
}

/* The results written: a child's lines, the JSON, the CSV, the trace and
 * the Markdown. */
static void main_write(main_run *m)
{
    const cli_opts *o = &m->o;

    /* A child hands everything to its parent as lines, no tables. */
    if (main_lines_child(o) && sec_child_end(&m->r, exit_code(&m->st)) == SEC_FAILED)
        m->st.failed = 1;
    if (fflush(stdout) != 0) m->st.failed = 1;
    if (o->json && rp_write_json(&m->r, o->json) != 0) m->st.failed = 1;
    if (o->csv && rp_write_csv(&m->r, o->csv) != 0) m->st.failed = 1;
    if (o->trace && tr_write(o->trace) != 0) m->st.failed = 1;
    if (o->markdown && !main_lines_child(o) && !m->st.usage && main_markdown(m) != 0) m->st.failed = 1;
}

/* The tables and the summary (not in a child, nor after a usage error),
 * after every file is written: the exit code the summary's last line names
 * is the one the process returns. */
static void main_report(main_run *m)
{
    if (main_lines_child(&m->o) || m->st.usage) return;
    main_print(m->tables, m, sg_pending() ? 128 + sg_pending() : exit_code(&m->st),
               (double)(clk_now_ns() - m->t_main) / 1e9);
    if (fflush(m->tables) != 0) m->st.failed = 1;
}

/* What the run holds released; a HARNESS_FAULT that never fired named.
 * Returns the exit code. */
static int main_end(main_run *m)
{
    char name[FT_NAME_MAX];
    long k, calls;

    tr_free();
    sec_end(&m->c);
    if (m->c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&m->c.gpu);
    res_free(&m->r);
    /* HARNESS_FAULT that never fired here: the run measured as usual, and a
     * test reading its exit code must know (each child counts its own). */
    if (m->o.child == CLI_CHILD_NONE && ft_unfired(name, sizeof name, &k, &calls))
        fprintf(stderr, "harness: HARNESS_FAULT=%s:%ld did not fire in this process: it made "
                "%ld checked call%s of %s (each child process counts its own)\n", name, k, calls,
                calls == 1 ? "" : "s", name);
    /* A signal after the last section: the results are whole; say so. */
    if (sg_pending()) return 128 + sg_pending();
    return exit_code(&m->st);
}

/* Descriptors 0, 1 and 2 made valid: a closed one opened on /dev/null
 * (read for 0, write for 1 and 2), before anything opens a descriptor
 * that would land there (the signal pipe, an output file) and take the
 * messages and tables meant for stdout and stderr. Returns 0, or -1 when
 * /dev/null cannot be opened (nothing can be said: the caller exits 1). */
static int main_fds(void)
{
    int fd, got;
    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        /* The lowest free descriptor is fd: those below it are open. */
        got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got != fd) return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static main_run m;      /* large (the options hold whole paths): not on the stack */
    const sec_def *owner;
    int rc;

    if (main_fds() != 0) return 1;
    m.t_main = clk_now_ns();
    m.t_start = time(NULL);
    if ((rc = main_options(&m, argc, argv)) != MAIN_GO) return rc;
    if ((rc = main_process(&m)) != MAIN_GO) return rc;
    /* A child for one job: the entry that owns its kind runs it. */
    if ((owner = sec_of_child(m.o.child)) != NULL) return owner->child(&m.o, m.t_main);
    main_begin(&m, argc, argv);
    main_entries(&m);
    main_settle(&m);
    main_write(&m);
    main_report(&m);
    return main_end(&m);
}
