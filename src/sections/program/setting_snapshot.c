/* setting_snapshot.c: the kind --snapshot (setting_snapshot.h): its sides,
 * the driver's checkpoint API asked for before any run, the steps on every
 * CUDA process of a run at its ready point (the ready hook, on the
 * runner's ready thread), what they came to stored once the run ended, and
 * every failure in one sentence with nothing left locked or checkpointed. */
#include "sections/program/setting_snapshot.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ckpt.h"
#include "cuda/nvml.h"
#include "os/clock.h"
#include "os/ptree.h"
#include "os/sig.h"
#include "probe/live.h"
#include "sections/program/recdir.h"

/* One process of the run under way, as the steps left it. */
typedef struct pgn_proc {
    ckp_proc P;
    double mem[3];          /* NVML, MiB: before the lock, checkpointed, after the unlock */
    char comm[24];          /* its command's name (/proc/<pid>/comm) */
} pgn_proc;

/* What the kind keeps: which sides take the snapshot, and the run under
 * way's steps (the ready thread writes them, the runner's thread reads
 * them once it joined that thread). */
typedef struct pgn_state {
    int snap[PG_MAX_SIDES];     /* side i takes the snapshot */
    unsigned lock_ms;           /* --snapshot-lock-timeout */
    int active;                 /* the run under way is of a snapshot side */
    int reached;                /* its ready hook was called */
    long long ready_ns, lock_ns, resumed_ns;
    char how[64];               /* what made it ready */
    pgn_proc proc[PG_MAX_PROCS];
    size_t nproc;
    int failed;                 /* a step failed, or nothing could be checkpointed */
    int stopped;                /* a signal came: released before stopping */
    char said[1200];            /* the failure's sentence */
} pgn_state;

/* ---------------------------------------------------------- the sides --- */

static int pgn_asked(const cli_opts *o)
{
    return o->compare == CLI_CMP_SNAPSHOT;
}

static size_t pgn_settings(const cli_opts *o)
{
    return o->nsettings;
}

/* Setting i: the mode (i / 2: LAZY, EAGER, or --module-loading's alone),
 * without (i even) or with the snapshot: "lazy", "LAZY"; "lazy_snapshot",
 * "LAZY snapshot". */
static void pgn_side(const cli_opts *o, const pgk_plan *plan, size_t i, pgk_side *d)
{
    static const char *const modes[2] = { "LAZY", "EAGER" };
    const char *mode = o->loading != CLI_LOAD_DEFAULT ? cli_loading_name(o->loading) : modes[i / 2 % 2];
    size_t k;
    (void)plan;
    d->mode = mode;
    for (k = 0; mode[k] && k + 1 < sizeof d->key; k++)
        d->key[k] = (char)tolower((unsigned char)mode[k]);
    d->key[k] = '\0';
    snprintf(d->label, sizeof d->label, "%s", mode);
    if (i % 2) {
        d->against = i - 1;
        snprintf(d->key + k, sizeof d->key - k, "_snapshot");
        snprintf(d->label + strlen(d->label), sizeof d->label - strlen(d->label), " snapshot");
    }
}

/* ------------------------------------------------------ before the runs --- */

/* The driver, cuInit and its checkpoint entry points, before any run: a
 * machine without them cannot make the comparison: skipped (one line, exit
 * 3, as section snapshot is there), the program not run. */
static int pgn_start(sec_ctx *c, const pgk_plan *plan, const char *no_driver, void **state)
{
    pgn_state *s;
    char why[300], said[500];
    size_t i;

    if (no_driver || drv_init(why, sizeof why) != DRV_OK || drv_ckpt_missing(why, sizeof why)) {
        if (no_driver) snprintf(why, sizeof why, "no CUDA driver to checkpoint with: %s", no_driver);
        snprintf(said, sizeof said, "--snapshot: %s; the program was not run", why);
        sec_skip(c, PG, said);
        return SEC_NO_GPU;
    }
    if (!(*state = s = calloc(1, sizeof *s))) {
        fprintf(stderr, "harness: " PG ": out of memory\n");
        return SEC_ERROR;
    }
    s->lock_ms = (unsigned)c->o->snapshot_lock_ms;
    /* A bare side has no live record: its ready point is --ready's line
     * alone, and without --ready it is run without the snapshot. */
    for (i = 0; i < plan->nsides; i++)
        s->snap[i] = plan->side[i].which % 2 == 1 && (plan->side[i].probed || c->o->ready);
    res_env_num(c->r, "snapshot_lock_timeout_ms", c->o->snapshot_lock_ms);
    return SEC_OK;
}

/* A run's steps forgotten; whether it takes the snapshot. */
static int pgn_before(sec_ctx *c, void *state, pgk_run *run)
{
    pgn_state *s = state;
    (void)c;
    memset(&s->reached, 0, sizeof *s - offsetof(pgn_state, reached));
    s->active = s->snap[run->si];
    return 0;
}

/* ------------------------------------------------------------ the steps --- */

/* 1 once pid is gone (or a zombie: its memory the driver's again). */
static int pgn_gone(int pid)
{
    char path[64], buf[256], *p;
    FILE *f;
    size_t n;
    if (kill(pid, 0) != 0 && errno == ESRCH) return 1;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!(f = fopen(path, "r"))) return 1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (p = strrchr(buf, ')')) && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* The run's CUDA processes into s->proc: those with a live record in its
 * record directory, else (a bare side) those NVML lists of its tree. */
static void pgn_find(pgn_state *s, const pgk_run *run)
{
    long pids[PG_MAX_PROCS];
    size_t n = 0, i;
    char why[200], path[64];

    if (run->recdir && run->recdir[0]) {
        n = rd_live_pids(run->recdir, pt_known, pids, PG_MAX_PROCS);
    } else {
        nv_sample got[256];
        size_t m = 0;
        if (nv_processes(got, sizeof got / sizeof got[0], &m, why, sizeof why) == 0)
            for (i = 0; i < m && n < PG_MAX_PROCS; i++)
                if (pt_known(got[i].pid)) pids[n++] = got[i].pid;
    }
    for (i = 0; i < n; i++) {
        pgn_proc *p = &s->proc[i];
        FILE *f;
        ckp_init(&p->P, (int)pids[i]);
        p->mem[0] = p->mem[1] = p->mem[2] = NAN;
        snprintf(path, sizeof path, "/proc/%ld/comm", pids[i]);
        snprintf(p->comm, sizeof p->comm, "?");
        if ((f = fopen(path, "r"))) {
            if (fgets(p->comm, sizeof p->comm, f)) p->comm[strcspn(p->comm, "\n")] = '\0';
            fclose(f);
        }
    }
    s->nproc = n;
}

/* NVML's figure of each process, into mem[at]. */
static void pgn_mem(pgn_state *s, int at)
{
    char why[200];
    size_t i;
    for (i = 0; i < s->nproc; i++) s->proc[i].mem[at] = ckp_mem(s->proc[i].P.pid, why, sizeof why);
}

/* The kernel process p left running, from its live record: the last one
 * launched on a stream no synchronize has seen end since, into buf ("" none). */
static void pgn_busy(const pgk_run *run, const pgn_proc *p, char *buf, size_t len)
{
    lv_view *v;
    char path[4600], why[300];
    int64_t latest = -1;
    size_t i;

    buf[0] = '\0';
    if (!run->recdir || !run->recdir[0] || !(v = malloc(sizeof *v))) return;
    snprintf(path, sizeof path, "%s/%d.live", run->recdir, p->P.pid);
    if (lv_read_file(path, p->P.pid, v, why, sizeof why) == 0)
        for (i = 0; i < v->ns; i++)
            if (v->s[i].done_ns < v->s[i].since_ns && v->s[i].since_ns > latest) {
                latest = v->s[i].since_ns;
                snprintf(buf, len, "%s", v->s[i].kernel);
            }
    free(v);
}

/* Step k of process j failed with r: its sentence kept. */
static void pgn_fail(pgn_state *s, const pgk_run *run, size_t j, ckp_step k, CUresult r)
{
    pgn_proc *p = &s->proc[j];
    char who[300], busy[LV_NAME] = "", option[64];
    ckp_failed f;

    snprintf(who, sizeof who, "process %d (%s) of %s", p->P.pid, p->comm, run->name);
    snprintf(option, sizeof option, "--snapshot-lock-timeout=%u", s->lock_ms);
    if (k == CKP_LOCK) pgn_busy(run, p, busy, sizeof busy);
    f = (ckp_failed){ who, pgn_gone(p->P.pid) ? "was gone (it exited or was killed)" : NULL, busy,
                      option, s->lock_ms, p->mem[0], NULL, 0 };
    ckp_sentence(s->said, sizeof s->said, &p->P, k, r, &f);
    s->failed = 1;
}

/* Every process brought back to RUNNING; one that cannot be is killed
 * (what is gone holds nothing), and said. */
static void pgn_release(pgn_state *s, const pgk_run *run, const char *why)
{
    size_t j;
    for (j = 0; j < s->nproc; j++) {
        pgn_proc *p = &s->proc[j];
        CUprocessState was = p->P.state;
        char code[120];
        if (was == CU_PROCESS_STATE_RUNNING || pgn_gone(p->P.pid)) continue;
        if (ckp_release(&p->P, s->lock_ms, code, sizeof code) == 0) {
            fprintf(stderr, "harness: " PG ": %s: process %d (%s), left %s, was %sunlocked %s\n",
                    run->name, p->P.pid, p->comm, ckp_state_name(was),
                    was == CU_PROCESS_STATE_CHECKPOINTED ? "restored and " : "", why);
            continue;
        }
        fprintf(stderr, "harness: " PG ": %s: process %d (%s) could not be brought back from %s (%s): "
                "killed, so that nothing is left %s\n", run->name, p->P.pid, p->comm,
                ckp_state_name(was), code, ckp_state_name(p->P.state));
        kill(p->P.pid, SIGKILL);
    }
}

/* The four steps, each over every process in turn (all locked before any
 * is checkpointed: processes that wait on each other are held together),
 * NVML read before, checkpointed and after. Returns 0, or -1 after a
 * failed step or a signal (every process released). */
static int pgn_steps(pgn_state *s, const pgk_run *run)
{
    int k;
    size_t j;
    pgn_mem(s, 0);
    s->lock_ns = clk_now_ns();
    for (k = 0; k < CKP_NSTEPS; k++) {
        for (j = 0; j < s->nproc; j++) {
            CUresult r = ckp_step_on(&s->proc[j].P, (ckp_step)k, s->lock_ms);
            if (r != CUDA_SUCCESS) {
                pgn_fail(s, run, j, (ckp_step)k, r);
                pgn_release(s, run, "after the failed step");
                return -1;
            }
        }
        if (k == CKP_CHECKPOINT) pgn_mem(s, 1);
        if (sg_pending() && k < CKP_UNLOCK) {
            s->stopped = 1;
            pgn_release(s, run, "before stopping");
            return -1;
        }
    }
    pgn_mem(s, 2);
    return 0;
}

/* The ready hook: on a snapshot side, every CUDA process of the run
 * checkpointed and restored (the ready thread: state only, no results). */
static void pgn_ready(sec_ctx *c, void *state, const pgk_run *run, const pgk_ready_at *at)
{
    pgn_state *s = state;
    (void)c;
    if (!s->active) return;
    s->reached = 1;
    s->ready_ns = at->at_ns;
    snprintf(s->how, sizeof s->how, "%s", at->how);
    pgn_find(s, run);
    if (!s->nproc) {
        snprintf(s->said, sizeof s->said, "%s was ready (%s), but no CUDA process of it was found to "
                 "checkpoint (%s)", run->name, s->how, run->recdir && run->recdir[0]
                 ? "none had a live record" : "NVML listed none of its processes");
        s->failed = 1;
        return;
    }
    if (pgn_steps(s, run) == 0) s->resumed_ns = clk_now_ns();
}

/* --------------------------------------------------------- after the run --- */

/* What the steps came to, once the run ended: a failure, or a run that
 * ended before it was ready, is a failed check and fails the run; else
 * the first uses are counted from the last unlock. */
static void pgn_ended(sec_ctx *c, void *state, pgk_run *run)
{
    pgn_state *s = state;
    char what[300];
    if (!s->active) return;
    snprintf(what, sizeof what, "%s: every CUDA process checkpointed and restored at ready", run->name);
    if (!s->reached)
        snprintf(s->said, sizeof s->said, "%s ended before it was ready (it %s): nothing was "
                 "checkpointed", run->name, run->how);
    if (!s->reached || s->failed || s->stopped) {
        if (!s->stopped) fprintf(stderr, "harness: " PG ": %s\n", s->said);
        res_check_add(c->r, PG, what, 0, s->stopped ? "stopped by a signal" : s->said);
        run->ok = 0;
        return;
    }
    res_check_add(c->r, PG, what, 1, s->how);
    run->resumed_ns = s->resumed_ns;
}

/* One sample of figure f of side under prefix ("" or "proc<i>."); none
 * where it is unknown (NVML did not say). */
static void pgn_put(results *r, const char *prefix, const char *side, pgn_fig f, double v)
{
    char key[160];
    if (isnan(v)) return;
    pgn_key(key, sizeof key, prefix, side, f);
    res_append(r, PG, key, pgn_figs[f].name, pgn_figs[f].desc, RES_PROCESS, pgn_figs[f].unit, v);
}

/* A measured run's figures: each step and NVML's memory per process and
 * summed; the lateness, the hold, the resumption, the count. */
static void pgn_keep(sec_ctx *c, void *state, const pgk_run *run)
{
    const pgn_state *s = state;
    const char *side = run->side->key;
    double sum[PGN_MEM_AFTER + 1] = { 0 };
    size_t j;
    int f;

    if (!s->active || !s->reached || s->failed) return;
    for (j = 0; j < s->nproc; j++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "proc%zu.", j + 1);
        for (f = 0; f <= PGN_MEM_AFTER; f++) {
            double v = f < CKP_NSTEPS ? s->proc[j].P.ms[f] : s->proc[j].mem[f - PGN_MEM_BEFORE];
            sum[f] += v;
            pgn_put(c->r, prefix, side, (pgn_fig)f, v);
        }
    }
    for (f = 0; f <= PGN_MEM_AFTER; f++) pgn_put(c->r, "", side, (pgn_fig)f, sum[f]);
    pgn_put(c->r, "", side, PGN_WAIT, (double)(s->lock_ns - s->ready_ns) / 1e6);
    pgn_put(c->r, "", side, PGN_HELD, (double)(s->resumed_ns - s->ready_ns) / 1e6);
    pgn_put(c->r, "", side, PGN_RESUMED, (double)(s->resumed_ns - run->p->t0_ns) / 1e6);
    pgn_put(c->r, "", side, PGN_PROCS, (double)s->nproc);
}

static void pgn_stop(void *state)
{
    free(state);
}

const pgk_kind pgk_snapshot = {
    .name = "snapshot",
    .asked = pgn_asked,
    .settings = pgn_settings,
    .side = pgn_side,
    .start = pgn_start,
    .before = pgn_before,
    .ready = pgn_ready,
    .ended = pgn_ended,
    .keep = pgn_keep,
    .answer = pgn_answer,
    .stop = pgn_stop,
    .print = pgn_print,
    .schema = pgn_schema,
    .schema_figures = pgn_schema_figures,
};
