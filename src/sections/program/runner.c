/* runner.c: one run of a side, the warm-ups, the measured rounds and
 * their stopping rule, a kind's search, --cleanup (runner.h). */
#include "sections/program/runner.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/trace.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/progress.h"
#include "os/ptree.h"
#include "sections/program/figures.h"
#include "sections/program/readiness.h"
#include "sections/program/recdir.h"

/* The most spans kept from the traced run of each side. */
#define PGR_TRACE_SPANS 20000
/* A run's environment: the side's setting, the kinds', the probe's six at most. */
#define PGR_NENV (1 + PGK_MAX_ENV + 6)

int pgr_user_nvtx(void)
{
    const char *v = getenv("NVTX_INJECTION64_PATH");
    return v && *v;
}

/* ------------------------------------------------------- one run's parts --- */

/* The environment of a run into env (strings in buf): the side's setting,
 * what the kinds add (run->env), the probe and its settings on a probed
 * side (its records into recdir; spans: keep the driver calls), none of the
 * probe's on a bare one. Returns the count. */
static size_t pgr_env(const pgr_runner *g, const pgk_run *run, const char *recdir, int spans,
                      char buf[][PGK_ENV_LEN], const char **env)
{
    const pgk_side *sd = run->side;
    size_t n = 0, i;
    if (sd->set[0]) snprintf(buf[n++], PGK_ENV_LEN, "%.4199s", sd->set);
    for (i = 0; i < run->nenv; i++) snprintf(buf[n++], PGK_ENV_LEN, "%s", run->env[i]);
    if (sd->probed && g->probe[0]) {
        snprintf(buf[n++], PGK_ENV_LEN, "CUDA_INJECTION64_PATH=%s", g->probe);
        snprintf(buf[n++], PGK_ENV_LEN, PRC_ENV_DIR "=%s", recdir);
        if (g->cupti[0]) snprintf(buf[n++], PGK_ENV_LEN, PRC_ENV_CUPTI "=%s", g->cupti);
        if (spans) snprintf(buf[n++], PGK_ENV_LEN, PRC_ENV_SPANS "=%d", PGR_TRACE_SPANS);
        /* --ready: the probe is the program's NVTX tool too (src/probe/marks.h),
         * unless the user named another (nsys, say): theirs is kept. */
        if (g->ready && !pgr_user_nvtx()) {
            snprintf(buf[n++], PGK_ENV_LEN, "NVTX_INJECTION64_PATH=%s", g->probe);
            snprintf(buf[n++], PGK_ENV_LEN, PRC_ENV_READY "=%.4000s", g->c->o->ready);
        }
    } else {
        snprintf(buf[n++], PGK_ENV_LEN, PRC_ENV_DIR);
        snprintf(buf[n++], PGK_ENV_LEN, PRC_ENV_READY);
        if (g->probe[0]) {
            const char *inj = getenv("CUDA_INJECTION64_PATH");
            if (inj && strcmp(inj, g->probe) == 0) snprintf(buf[n++], PGK_ENV_LEN, "CUDA_INJECTION64_PATH");
        }
    }
    for (i = 0; i < n; i++) env[i] = buf[i];
    return n;
}

/* What became of the run (p), into run->how; as a check what (not for a
 * search's run: its exit is the answer); 1 when it exited 0. Processes of
 * its tree that were still there at its end (killed: proc.h) are said on
 * stderr and are a failed check of their own. */
static int pgr_outcome(pgr_runner *g, pgk_run *run, const char *what, const pr_program *p,
                       double limit_s, int bounded)
{
    char detail[700], left[900];
    int ok = !p->timed_out && p->signal == 0 && p->exit_code == 0;
    if (p->timed_out && bounded)
        snprintf(run->how, sizeof run->how, "ran past the default bound of %.0f s (%.0f times the "
                 "slowest run that exited 0, at least %.0f s; --child-timeout sets another); its "
                 "process group was killed", limit_s, PGX_BOUND_FACTOR, PGX_BOUND_FLOOR_S);
    else if (p->timed_out)
        snprintf(run->how, sizeof run->how, "ran past --child-timeout=%.0f s; its process group was "
                 "killed", limit_s);
    else if (p->signal)
        snprintf(run->how, sizeof run->how, "killed by signal %d (%s)", p->signal, strsignal(p->signal));
    else
        snprintf(run->how, sizeof run->how, "exited with %d", p->exit_code);
    if (run->under[0]) snprintf(detail, sizeof detail, "%s, %s", run->how, run->under);
    else snprintf(detail, sizeof detail, "%s", run->how);
    if (run->purpose != PGK_TRY) res_check_add(g->c->r, PG, what, ok, detail);
    if (p->overflow)
        fprintf(stderr, "harness: " PG ": %s: more than %d processes: the later ones were not "
                "kept, and their records are refused\n", run->name, PT_MAX);
    if (p->stragglers) {
        snprintf(left, sizeof left, "%d process%s of the program still running %s %s killed "
                 "(SIGKILL): %s", p->stragglers, p->stragglers == 1 ? "" : "es",
                 p->timed_out ? "at the time limit" : "2 s after its main process exited",
                 p->stragglers == 1 ? "was" : "were", p->straggler_names);
        fprintf(stderr, "harness: " PG ": %s: %s\n", run->name, left);
        snprintf(detail, sizeof detail, "%s: no process of the program outlived it", run->name);
        res_check_add(g->c->r, PG, detail, 0, left);
    }
    return ok;
}

/* sh -c cmd in the side's setting (--prepare, --cleanup), its output into
 * the output directory as <tag>.out and .err; what it left running killed
 * and said on stderr. Returns 1 when it exited 0; else 0 with what became
 * of it in why. */
static int pgr_shell(const pgr_runner *g, const pgk_side *sd, const char *cmd, const char *tag,
                     char *why, size_t whylen)
{
    const char *argv[4] = { "sh", "-c", cmd, NULL };
    const char *env[1] = { sd->set };
    double timeout = g->c->o->child_timeout;
    char out[4300], err[4300];
    pr_program p;

    snprintf(out, sizeof out, "%s/%s.out", g->outdir, tag);
    snprintf(err, sizeof err, "%s/%s.err", g->outdir, tag);
    if (pr_run_program("/bin/sh", argv, env, sd->set[0] ? 1 : 0, NULL, out, err, timeout, NULL, NULL,
                       &p, why, whylen) != 0)
        return 0;
    /* What it left running is ended with it (ptree.h): said, not silent. */
    if (p.stragglers)
        fprintf(stderr, "harness: " PG ": %s: %s: %d process%s it started still running 2 s after "
                "it exited %s killed (SIGKILL), as every process of it is: %s\n", tag,
                cmd == g->c->o->prepare ? "--prepare" : "--cleanup", p.stragglers,
                p.stragglers == 1 ? "" : "es", p.stragglers == 1 ? "was" : "were", p.straggler_names);
    if (!p.timed_out && p.signal == 0 && p.exit_code == 0) return 1;
    if (p.timed_out) snprintf(why, whylen, "ran past --child-timeout=%.0f s", timeout);
    else if (p.signal) snprintf(why, whylen, "was killed by signal %d (%s)", p.signal, strsignal(p.signal));
    else snprintf(why, whylen, "exited with %d", p.exit_code);
    return 0;
}

/* The names of a run of side sd (run->margin: a search's): in words into
 * name ("run 3 (LAZY, round 2)"), its check's into what, its output files'
 * tag into tag. Returns its number (of its purpose). */
static int pgr_name(pgr_runner *g, const pgk_run *run, int round, char *name, size_t nlen,
                    char *what, size_t wlen, char *tag, size_t tlen)
{
    const pgk_side *sd = run->side;
    const pgk_kind *searcher = NULL;
    size_t k;
    int n;

    for (k = 0; k < g->plan->non && !searcher; k++)
        if (g->plan->on[k]->search) searcher = g->plan->on[k];
    n = run->purpose == PGK_MEASURED ? ++g->n.runs : run->purpose == PGK_WARMUP ? ++g->n.warmups
                                                                             : ++g->n.tries;
    if (run->purpose == PGK_MEASURED)
        snprintf(name, nlen, "run %d (%s, round %d)", n, sd->label, round + 1);
    else if (run->purpose == PGK_WARMUP)
        snprintf(name, nlen, "warm-up run %d (%s)", n, sd->label);
    else
        snprintf(name, nlen, "%s %d (%s, margin %.0f MiB)", searcher ? searcher->search_run : "?", n,
                 sd->label, run->margin);
    snprintf(what, wlen, "%s: the program exited 0", name);
    snprintf(tag, tlen, "%s%02d-%s", run->purpose == PGK_MEASURED ? "run"
             : run->purpose == PGK_WARMUP ? "warmup" : searcher ? searcher->search_tag : "try", n,
             sd->key);
    return n;
}

/* --prepare before a run, in the side's setting. Returns 1 when it exited
 * 0; else 0, the run not started (a failed check, said on stderr). */
static int pgr_prepare(pgr_runner *g, const pgk_side *sd, const char *what, const char *tag)
{
    char t[80], why[512], detail[700];
    snprintf(t, sizeof t, "%s.prepare", tag);
    if (pgr_shell(g, sd, g->c->o->prepare, t, why, sizeof why)) return 1;
    snprintf(detail, sizeof detail, "--prepare %s; the run was not started", why);
    res_check_add(g->c->r, PG, what, 0, detail);
    fprintf(stderr, "harness: " PG ": %.100s: --prepare %s\n", what, why);
    return 0;
}

/* What pgr_read_records hands recdir.c for each file it refuses. */
typedef struct pgr_refusal {
    pgr_runner *g;
    const char *what;
} pgr_refusal;

static void pgr_refuse(void *arg, long pid, const char *why)
{
    pgr_refusal *f = arg;
    char detail[600];
    if (pid > 0) snprintf(detail, sizeof detail, "process %ld: %s", pid, why);
    else snprintf(detail, sizeof detail, "the record directory: %s", why);     /* not one file's */
    res_check_add(f->g->c->r, PG, f->what, 0, detail);
    f->g->n.refused++;
}

/* Read every "<pid>.rec" of dir into recs (at most max; sorted), as
 * recdir.h says; a record refused, or one past max, is a failed check
 * naming the run, the process and why. */
static size_t pgr_read_records(pgr_runner *g, const char *dir, const char *what, prc_record *recs,
                               size_t max)
{
    pgr_refusal f = { g, what };
    results *r = g->c->r;
    rd_result got;
    char said[300];
    int refused = g->n.refused;

    if (rd_read(dir, recs, max, pt_known, pgr_refuse, &f, &got, said, sizeof said) != 0) {
        res_check_add(r, PG, what, 0, said);
        g->n.refused++;
        return 0;
    }
    if (got.over) {
        snprintf(said, sizeof said, "%zu records, %zu read: a run may have at most %zu CUDA "
                 "processes (docs/program.md); the figures would undercount", got.found - got.refused,
                 got.read, max);
        res_check_add(r, PG, what, 0, said);
        g->n.refused++;
    }
    if (g->n.refused == refused) {
        snprintf(said, sizeof said, "%zu record%s read", got.read, got.read == 1 ? "" : "s");
        res_check_add(r, PG, what, 1, said);
    }
    return got.read;
}

/* A measured run's figures (it exited 0): from the parent's clock and the
 * sampler, the kinds' (a cache's size), and on a probed side its records. */
static void pgr_keep(pgr_runner *g, const pgk_run *run)
{
    const pgk_side *sd = run->side;
    pgt_put_parent(g->c->r, sd->key, run->p, &g->smp, run->recs, run->nrec);
    pgk_keep(g->plan, g->c, run);
    if (sd->probed && g->probe[0]) {
        const pgt_run seen = { run->si, sd->key, g->n.runs, run->recs, run->nrec, run->p->t0_ns,
                               (long long)atomic_load(&g->smp.ready_ns), g->c->o->ready_after,
                               run->resumed_ns };
        pgt_put_records(g->tally, g->c->r, &seen);
    }
}

/* The first traced run of a side: its records' spans into the trace,
 * each process a track of its own, on the harness's axis. */
static void pgr_trace(const pgk_side *sd, long long t0_ns, const prc_record *recs, size_t n)
{
    double axis = tr_now() - (clk_now_ms() - (double)t0_ns / 1e6);
    size_t i, j;
    for (i = 0; i < n; i++) {
        char pname[160];
        const res_kv *cmd = res_env_get(&recs[i].r, "command");
        snprintf(pname, sizeof pname, "%s: %s (pid %ld)", sd->label,
                 cmd && cmd->kind == RES_STR && cmd->str ? cmd->str : "?", recs[i].pid);
        for (j = 0; j < recs[i].nspans; j++) {
            const prc_span *sp = &recs[i].spans[j];
            tr_process_span((int)recs[i].pid, pname, sp->tid, sp->name, axis + sp->start_ms, sp->ms);
        }
    }
}

/* What one run holds while it runs (on the heap: its records and its
 * environment are large). */
typedef struct pgr_one_run {
    pgk_run run;
    char recdir[512], name[160], what[200], why[512], out[4300], err[4300], tag[64];
    int shown;                  /* its output is the first run's (--show-output reads it) */
    char envbuf[PGR_NENV][PGK_ENV_LEN];
    const char *env[PGR_NENV];
    prc_record recs[PG_MAX_PROCS * 4];
    pr_program p;
    pgy_watch watch;        /* its ready point, for the kinds that act there */
    double limit_s;         /* the time limit it ran under */
    int bounded;            /* that limit is the default bound (failures.h) */
} pgr_one_run;

/* The program spawned and waited for, the sampler beside it, and where a
 * kind acts at the ready point, the ready thread (readiness.h); 0, or -1
 * when it could not be started (said on stderr). */
static int pgr_spawn(pgr_runner *g, pgr_one_run *w, int spans)
{
    const pgk_side *sd = w->run.side;
    const cli_opts *o = g->c->o;
    size_t nenv = pgr_env(g, &w->run, w->recdir, spans, w->envbuf, w->env);
    int started, rc;

    snprintf(w->out, sizeof w->out, "%s/%s.out", g->outdir, w->tag);
    snprintf(w->err, sizeof w->err, "%s/%s.err", g->outdir, w->tag);
    if (w->run.purpose == PGK_MEASURED && g->n.runs == 1) {
        res_env_str(g->c->r, "program_first_stdout", w->out);
        res_env_str(g->c->r, "program_first_stderr", w->err);
        w->shown = 1;
    }
    ph_set(w->what);
    w->limit_s = pgx_limit(&g->fail, o, &w->bounded);
    started = pgm_start(&g->smp, g->nvml, g->ready, w->out, w->err);
    pgy_start(&w->watch, g->plan, g->c, &w->run, &g->smp);
    rc = pr_run_program(sd->path, sd->cmd, w->env, nenv, sd->probed ? PRC_ENV_T0 : NULL, w->out,
                        w->err, w->limit_s, pgm_spawned, &g->smp, &w->p, w->why, sizeof w->why);
    pgy_stop(&w->watch);
    pgm_stop(&g->smp, started);
    if (rc != 0) fprintf(stderr, "harness: " PG ": %s\n", w->why);
    return rc;
}

/* A measured run that failed, diagnosed from its processes' live records
 * in its record directory (failures.h). */
static void pgr_failed(pgr_runner *g, const pgr_one_run *w, size_t nrec)
{
    const pgk_side *sd = w->run.side;
    lv_view *live = w->recdir[0] ? calloc(PG_MAX_PROCS, sizeof *live) : NULL;
    const res_kv *mode = nrec ? res_env_get(&w->recs[0].r, "loading_mode") : NULL;
    pgx_seen seen = { &w->p, w->limit_s, w->bounded, live, 0, w->recs, nrec,
                      sd->mode ? sd->mode : mode && mode->kind == RES_STR ? mode->str : NULL };
    if (live) seen.nlive = pgx_read_live(w->recdir, pt_known, live, PG_MAX_PROCS);
    pgx_note(&g->fail, g->c->r, w->run.si, sd->key, g->n.runs, &seen);
    free(live);
}

/* ------------------------------------------------------------ one run --- */

/* One run of side si (round round; margin: a search's), for purpose: its
 * --prepare, its record directory, the kinds' set-up, spawn and wait, its
 * outcome, its records read, its figures kept (a measured run's; a
 * warm-up's and a search's dropped), the kinds told, everything it made
 * removed at one place. Returns 0 (the run failed or not), or -1 when it
 * could not be started. */
static int pgr_one(pgr_runner *g, size_t si, pgk_purpose purpose, int round, double margin)
{
    pgk_side *sd = &g->plan->side[si];
    pgr_one_run *w = calloc(1, sizeof *w);
    size_t nrec = 0, begun = 0, i;
    int rc = 0, spans, measured = purpose == PGK_MEASURED;

    if (!w) {
        fprintf(stderr, "harness: " PG ": out of memory\n");
        return -1;
    }
    w->run = (pgk_run){ .side = sd, .si = si, .purpose = purpose, .margin = margin, .name = w->name,
                        .recdir = w->recdir };
    pgr_name(g, &w->run, round, w->name, sizeof w->name, w->what, sizeof w->what, w->tag, sizeof w->tag);
    if (g->c->o->prepare && !pgr_prepare(g, sd, w->what, w->tag)) {
        if (measured) g->n.failed++;
        goto done;
    }
    if (sd->probed && g->probe[0] &&
        pr_mkdtemp("program", w->recdir, sizeof w->recdir, w->why, sizeof w->why) != 0) {
        fprintf(stderr, "harness: " PG ": %s\n", w->why);
        rc = -1;
        goto done;
    }
    if ((rc = pgk_before(g->plan, g->c, &w->run, &begun)) != 0) {
        if (rc > 0 && purpose != PGK_WARMUP) g->n.failed++;
        rc = rc > 0 ? 0 : -1;
        goto done;
    }
    spans = measured && g->c->o->trace && sd->probed && !g->traced[si];
    if ((rc = pgr_spawn(g, w, spans)) != 0) goto done;
    w->run.p = &w->p;
    w->run.ok = pgr_outcome(g, &w->run, w->what, &w->p, w->limit_s, w->bounded);
    pgk_ended(g->plan, g->c, &w->run);
    if (sd->probed && g->smp.peak_sum >= 0) g->n.nvml_runs++;
    if (w->recdir[0]) {
        snprintf(w->what, sizeof w->what, "%s: every CUDA process's record read", w->name);
        nrec = pgr_read_records(g, w->recdir, w->what, w->recs, sizeof w->recs / sizeof w->recs[0]);
    }
    w->run.recs = w->recs;
    w->run.nrec = nrec;
    pgx_ran(&g->fail, si, measured, w->run.ok, w->p.ms);
    if (!w->run.ok && measured && sd->probed) pgr_failed(g, w, nrec);
    if (!w->run.ok && (measured || w->run.lost)) g->n.failed++;
    if (w->run.ok && measured) pgr_keep(g, &w->run);
    if (spans && nrec) {
        pgr_trace(sd, w->p.t0_ns, w->recs, nrec);
        g->traced[si] = 1;
    }
done:
    pgk_done(g->plan, g->c, &w->run, begun);
    if (w->recdir[0]) pr_rmtree(w->recdir);
    /* Output not kept goes as soon as it is read (it piled up in TMPDIR). */
    if (g->outdir_tmp && w->out[0] && !w->shown) {
        unlink(w->out);
        unlink(w->err);
    }
    for (i = 0; i < nrec; i++) prc_free(&w->recs[i]);
    free(w);
    return rc;
}

/* ----------------------------------------------------------- the runs --- */

/* The warm-up runs: --warmup a side, the sides alternating; unmeasured
 * (a --jit-cache warm side's caches are filled here); with a search, the
 * settings searched only. Returns 0, or -1 when a run could not be
 * started. */
static int pgr_warm_up(pgr_runner *g)
{
    size_t n = g->plan->searching ? g->plan->nsettings : g->plan->nsides, k;
    int w;
    for (w = 0; w < g->c->o->warmup; w++)
        for (k = 0; k < n; k++)
            if (pgr_one(g, (k + (size_t)w) % n, PGK_WARMUP, w, -1) != 0) return -1;
    return 0;
}

/* A search's run (pgk_try_fn). */
static int pgr_try(void *arg, size_t si, double margin)
{
    return pgr_one(arg, si, PGK_TRY, 0, margin);
}

/* A look at the headline verdicts after a round, at level alpha (0: this
 * look calls nothing). Counts the look, the verdicts judged and the
 * differences called. Returns 1 when every one is decided: a difference
 * called, or no difference. */
static int pgr_look(pgr_runner *g, double alpha)
{
    const pgk_plan *plan = g->plan;
    const results *r = g->c->r;
    const char *key[4];
    size_t nk = pgk_headline(plan, r, key), i, k;
    int decided = 1;

    g->n.nlooks++;
    if (alpha > 0) g->n.nlooks_calling++;
    for (i = 1; i < plan->nsettings; i++)
        for (k = 0; k < nk; k++) {
            char ka[160], kb[160];
            const res_meas *a, *b;
            vd_result v;
            snprintf(ka, sizeof ka, "%s.%s", plan->side[i].key, key[k]);
            snprintf(kb, sizeof kb, "%s.%s", plan->side[0].key, key[k]);
            if (!(a = res_find(r, PG, ka)) || !(b = res_find(r, PG, kb))) continue;
            vd_judge_at(a->samples, a->nsamples, b->samples, b->nsamples, plan->side[i].label,
                        plan->side[0].label, g->c->o->threshold, 0.0, alpha, &v);
            g->n.look_pairs++;
            g->n.look_calls += v.called;
            if (!v.called && strcmp(v.text, "no difference") != 0) decided = 0;
        }
    return decided;
}

/* The stopping rule after a round from --rounds on: why the rounds stop
 * into n.stop, or 0 to go on (alpha the round's level). */
static int pgr_stop(pgr_runner *g, double alpha, double t0)
{
    const cli_opts *o = g->c->o;
    pgr_counts *n = &g->n;
    if (g->plan->nsettings < 2)
        snprintf(n->stop, sizeof n->stop, "--rounds=%d taken", o->rounds);
    else if (pgr_look(g, alpha))
        snprintf(n->stop, sizeof n->stop, "every headline verdict was decided after round %d", n->round);
    else if (n->round >= o->max_rounds)
        snprintf(n->stop, sizeof n->stop, "--max-rounds=%d taken with a headline verdict undecided",
                 o->max_rounds);
    else if (o->max_time_given && clk_now_ms() - t0 >= o->max_time * 1e3)
        snprintf(n->stop, sizeof n->stop, "--max-time=%g s spent with a headline verdict undecided",
                 o->max_time);
    else
        return 0;
    return 1;
}

/* The most measured runs the rounds may take: every side in each of the
 * first --rounds, the probed sides in the rounds after, to --max-rounds. */
static int pgr_most_runs(const pgr_runner *g)
{
    const cli_opts *o = g->c->o;
    size_t k;
    int most = 0;
    for (k = 0; k < g->plan->nsides; k++)
        most += g->plan->side[k].probed || !g->probe[0] ? o->max_rounds : o->rounds;
    return most;
}

/* The measured rounds: every side once a round (bare sides in the first
 * --rounds only: the probe's cost), in vd_order's balanced order; from
 * --rounds on, a look at the headline verdicts after each round, until
 * every one is decided, --max-rounds are taken or --max-time is spent.
 * Returns 0, or -1 when a run could not be started. */
static int pgr_rounds(pgr_runner *g)
{
    const cli_opts *o = g->c->o;
    const pgk_plan *plan = g->plan;
    double t0 = clk_now_ms();
    size_t k;

    g->n.looks = vd_plan_looks(o->rounds, o->max_rounds);
    pl_begin(PG, o->max_rounds, pgr_most_runs(g));
    for (g->n.round = 0;;) {
        for (k = 0; k < plan->nsides; k++) {
            size_t si = vd_order(plan->nsides, (size_t)g->n.round, k);
            if (!plan->side[si].probed && g->probe[0] && g->n.round >= o->rounds) continue;
            pl_run(g->n.round, plan->side[si].label);
            if (pgr_one(g, si, PGK_MEASURED, g->n.round, -1) != 0) return -1;
            pl_run_done();
        }
        g->n.round++;
        g->n.alpha = g->n.round >= g->n.looks.first ? g->n.looks.alpha : 0.0;
        if (g->n.round >= o->rounds && pgr_stop(g, g->n.alpha, t0)) return 0;
    }
}

int pgr_runs(pgr_runner *g)
{
    if (pgr_warm_up(g) != 0) return -1;
    int rc;
    if (g->plan->searching) return pgk_search(g->plan, g->c, pgr_try, g, g->n.stop, sizeof g->n.stop);
    rc = pgr_rounds(g);
    pl_end();
    return rc;
}

void pgr_clean_up(pgr_runner *g)
{
    const pgk_plan *plan = g->plan;
    size_t k;
    for (k = 0; k < plan->nsides && g->c->o->cleanup; k++) {
        char what[200], why[512], tag[64];
        int ok;
        snprintf(tag, sizeof tag, "cleanup-%s", plan->side[k].key);
        ok = pgr_shell(g, &plan->side[k], g->c->o->cleanup, tag, why, sizeof why);
        snprintf(what, sizeof what, "--cleanup after the runs of %s exited 0", plan->side[k].label);
        res_check_add(g->c->r, PG, what, ok, ok ? "exited 0" : why);
        if (!ok) {
            fprintf(stderr, "harness: " PG ": --cleanup after %s: %s\n", plan->side[k].label, why);
            g->n.failed++;
        }
    }
}
