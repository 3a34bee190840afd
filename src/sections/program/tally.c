/* tally.c: a measured run's figures and the tallies kept over the runs
 * (tally.h). */
#include "sections/program/tally.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/demangle.h"
#include "sections/program/program.h"

/* ------------------------------------------------------------ tallies --- */

int pgt_init(pgt_tally *t, size_t nsides)
{
    memset(t, 0, sizeof *t);
    if (!(t->side = calloc(nsides ? nsides : 1, sizeof *t->side))) return -1;
    t->nsides = nsides;
    return 0;
}

/* A list's kernels and their samples freed. */
static void pgt_list_free(pgt_list *l)
{
    size_t k;
    for (k = 0; k < l->n; k++) {
        free(l->k[k].ms);
        free(l->k[k].get);
        free(l->k[k].launch);
    }
    free(l->k);
    memset(l, 0, sizeof *l);
}

void pgt_free(pgt_tally *t)
{
    size_t i;
    for (i = 0; t->side && i < t->nsides; i++) {
        pgt_list_free(&t->side[i].slowest);
        pgt_list_free(&t->side[i].ready);
        pgt_list_free(&t->side[i].tune);
        pgt_list_free(&t->side[i].conc);
        pgt_list_free(&t->side[i].worst);
    }
    free(t->side);
    t->side = NULL;
    t->nsides = 0;
}

/* The kernel name of list l, added when new while there is room (at most
 * PGT_MAX_KERNELS); NULL when it is not there and cannot be. */
static pgt_kernel *pgt_kernel_of(pgt_list *l, const char *name)
{
    pgt_kernel *kn;
    size_t k;
    for (k = 0; k < l->n; k++)
        if (strcmp(l->k[k].name, name) == 0) return &l->k[k];
    if (l->n == PGT_MAX_KERNELS) return NULL;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        pgt_kernel *a = realloc(l->k, cap * sizeof *a);
        if (!a) return NULL;
        l->k = a;
        l->cap = cap;
    }
    kn = &l->k[l->n++];
    memset(kn, 0, sizeof *kn);
    snprintf(kn->name, sizeof kn->name, "%s", name);
    return kn;
}

/* One more sample (x, y, z) of the kernel name in l, from measured run
 * number run (1, 2, ...). Returns 0, or -1 when it was not kept. */
static int pgt_kernel_add(pgt_list *l, int run, const char *name, double x, double y, double z)
{
    pgt_kernel *kn = pgt_kernel_of(l, name);
    if (!kn) return -1;
    if (kn->n == kn->cap) {
        size_t cap = kn->cap ? kn->cap * 2 : 8;
        double *a = realloc(kn->ms, cap * sizeof *a), *b, *c;
        if (a) kn->ms = a;
        b = a ? realloc(kn->get, cap * sizeof *b) : NULL;
        if (b) kn->get = b;
        c = b ? realloc(kn->launch, cap * sizeof *c) : NULL;
        if (!c) return -1;
        kn->launch = c;
        kn->cap = cap;
    }
    kn->ms[kn->n] = x;
    kn->get[kn->n] = y;
    kn->launch[kn->n++] = z;
    if (kn->last_run != run) kn->runs++;
    kn->last_run = run;
    return 0;
}

/* ------------------------------------------------------------ figures --- */

/* One more sample of "<prefix><key>" in section PG. */
static void pgt_put(results *r, const char *prefix, const char *key, const char *name,
                    const char *region, const char *unit, double v)
{
    char k[128];
    if (isnan(v)) return;
    snprintf(k, sizeof k, "%s%s", prefix, key);
    if (!res_append(r, PG, k, name, region, RES_PROCESS, unit, v))
        fprintf(stderr, "harness: " PG ": out of memory storing %s\n", k);
}

void pgt_put_run(results *r, const char *prefix, pgf_id id, double v)
{
    const pgf_fig *f = &pgf_figs[id];
    pgt_put(r, prefix, f->key, f->name, f->region, f->unit, v);
}

/* A record's figure, or NaN. */
static double pgt_fig(const prc_record *rec, prc_fig_id f)
{
    const res_meas *m = res_find(&rec->r, PRC_SECTION, prc_figs[f].key);
    return m ? m->samples[0] : NAN;
}

/* The earliest of figure f over the run's records; NaN when none has it. */
static double pgt_earliest(const prc_record *recs, size_t n, prc_fig_id f)
{
    double v = NAN;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = pgt_fig(&recs[i], f);
        if (!isnan(x) && (isnan(v) || x < v)) v = x;
    }
    return v;
}

void pgt_put_parent(results *r, const char *side, const pr_program *p, const pgm_sampler *m,
                    const prc_record *recs, size_t n)
{
    const pgf_fig *f = &pgf_figs[PGF_MEM_PEAK];
    char prefix[64];
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", side);
    pgt_put_run(r, prefix, PGF_WALL, p->ms);
    pgt_put_run(r, prefix, PGF_CPU, p->cpu_ms);
    pgt_put_run(r, prefix, PGF_RSS_MAIN, p->rss_mib);
    if (m->peak_sum >= 0) pgt_put_run(r, prefix, PGF_MEM_PEAK, m->peak_sum);
    if (n < 2) return;
    for (i = 0; i < n && i < PG_MAX_PROCS; i++)
        for (j = 0; j < m->npid; j++)
            if (m->pid[j] == recs[i].pid) {
                snprintf(prefix, sizeof prefix, "proc%zu.%s.", i + 1, side);
                pgt_put(r, prefix, f->key, f->name, PGF_PROC_PEAK_REGION, f->unit, m->peak[j]);
            }
}

/* The figures on the clock inside the process (from the probe's load:
 * the program's own start before cuInit left out), and the host time spent
 * making code ready. */
static void pgt_put_inside(results *r, const char *prefix, const prc_record *recs, size_t n)
{
    static const prc_fig_id code[] = { PRC_F_MODULE_LOAD_MS, PRC_F_LIBRARY_LOAD_MS,
                                       PRC_F_GET_FUNCTION_MS, PRC_F_GET_KERNEL_MS,
                                       PRC_F_KERNEL_FUNCTION_MS, PRC_F_FUNC_LOAD_MS,
                                       PRC_F_LAUNCH_FIRST_MS };
    double probe = pgt_earliest(recs, n, PRC_F_AT_PROBE), sum = NAN;
    size_t i, k;

    pgt_put_run(r, prefix, PGF_IN_CONTEXT, pgt_earliest(recs, n, PRC_F_AT_CONTEXT) - probe);
    pgt_put_run(r, prefix, PGF_IN_FIRST_KERNEL, pgt_earliest(recs, n, PRC_F_AT_FIRST_KERNEL) - probe);
    for (i = 0; i < n; i++)
        for (k = 0; k < sizeof code / sizeof code[0]; k++) {
            double x = pgt_fig(&recs[i], code[k]);
            if (!isnan(x)) sum = isnan(sum) ? x : sum + x;
        }
    if (n && isnan(sum) && !isnan(pgt_fig(&recs[0], PRC_F_LAUNCH_FIRST_N))) sum = 0;
    pgt_put_run(r, prefix, PGF_CODE_MS, sum);
}

/* The run's figures from its records: "at." the earliest, the others
 * summed; then, with procs, each process's own where the run had several. */
static void pgt_put_figures(results *r, const char *side, const prc_record *recs, size_t n, int procs)
{
    char prefix[64], region[600];
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", side);
    pgt_put_run(r, prefix, PGF_PROCESSES, (double)n);
    pgt_put_inside(r, prefix, recs, n);
    for (j = 0; j < PRC_NFIGS; j++) {
        const prc_fig *f = &prc_figs[j];
        int at = strncmp(f->key, "at.", 3) == 0;
        double v = NAN;
        for (i = 0; i < n; i++) {
            double x = pgt_fig(&recs[i], (prc_fig_id)j);
            if (isnan(x)) continue;
            v = isnan(v) ? x : at ? fmin(v, x) : v + x;
        }
        snprintf(region, sizeof region, "%s: %s", at ? "the earliest of the run's CUDA processes"
                 : "summed over the run's CUDA processes", f->region);
        pgt_put(r, prefix, f->key, f->name, region, f->unit, v);
    }
    if (n < 2 || !procs) return;
    for (i = 0; i < n && i < PG_MAX_PROCS; i++) {
        char env[64];
        const res_kv *cmd = res_env_get(&recs[i].r, "command");
        snprintf(prefix, sizeof prefix, "proc%zu.%s.", i + 1, side);
        for (j = 0; j < PRC_NFIGS; j++)
            pgt_put(r, prefix, prc_figs[j].key, prc_figs[j].name, prc_figs[j].region, prc_figs[j].unit,
                    pgt_fig(&recs[i], (prc_fig_id)j));
        snprintf(env, sizeof env, "program_proc%zu_command", i + 1);
        if (!res_env_get(r, env) && cmd && cmd->kind == RES_STR) res_env_str(r, env, cmd->str);
    }
}

/* The slowest first uses of the records, gathered by kernel name. */
static void pgt_gather_slowest(pgt_side *ts, const pgt_run *run)
{
    size_t i, j;
    for (i = 0; i < run->n; i++)
        for (j = 0; j < run->recs[i].r.nd; j++) {
            const res_derived *d = &run->recs[i].r.d[j];
            if (strncmp(d->key, "slowest.", 8) != 0) continue;
            pgt_kernel_add(&ts->slowest, run->number, d->name, d->value,
                           res_derived_num(d, "get_ms"), res_derived_num(d, "launch_ms"));
        }
}

/* ----------------------------------------------------------- the uses --- */

/* What a run's first uses and loads come to (pgt_put_uses). */
typedef struct pgt_uses {
    double ready, first;    /* ready and the first kernel, ms after the spawn (NaN: unknown) */
    double from;            /* the first uses after ready are those after this: ready,
                               or where a kind held the program at ready, its resumption */
    double uses, stall, worst, conc;
    double tight, took;     /* the tightest load after the first kernel, what it took */
    int asked;              /* the records say which streams were busy */
    char tname[128], wname[512]; /* the tightest load, the worst stall: what they were */
} pgt_uses;

/* The moment the run was ready, ms after the spawn: the earlier of
 * --ready's line (ready_ns, 0: none) and its NVTX mark (mark, the records'
 * earliest at.ready_mark; NaN: none) where either matched, else the first
 * kernel plus --ready-after; NaN when none is known. */
static double pgt_ready_at(const pgt_run *run, double mark, double first)
{
    double line = run->ready_ns > 0 ? (double)(run->ready_ns - run->t0_ns) / 1e6 : NAN;
    if (!isnan(line) || !isnan(mark)) return fmin(line, mark);     /* fmin: the one that is there */
    return first + run->ready_after * 1e3;
}

/* One more stall ms of what after ready: u->worst the largest so far,
 * u->wname what it was (the first one's until a larger comes). */
static void pgt_note_worst(pgt_uses *u, double ms, const char *what)
{
    if (ms > u->worst || !u->wname[0]) snprintf(u->wname, sizeof u->wname, "%s", what);
    u->worst = fmax(u->worst, ms);
}

/* A first use (d, "use.<i>", of a process under LAZY where lazy is 1):
 * after ready, its stall; its first launch against its later ones; under
 * LAZY, whether other streams were busy when it began. */
static void pgt_use(pgt_side *ts, int number, pgt_uses *u, const res_derived *d, int lazy)
{
    double g = res_derived_num(d, "get_ms"), l = res_derived_num(d, "launch_ms");
    double ln = res_derived_num(d, "later_n"), lm = res_derived_num(d, "later_ms");
    double busy = res_derived_num(d, "busy");

    if (!isnan(u->from) && d->value > u->from) {
        u->uses++;
        u->stall += g + l;
        pgt_note_worst(u, g + l, d->name);
        pgt_kernel_add(&ts->ready, number, d->name, g + l, d->value - u->from, 0);
    }
    if (ln >= 1) pgt_kernel_add(&ts->tune, number, d->name, l, lm / ln, 0);
    /* Under LAZY only: there a first use loads its kernel. */
    if (lazy && !isnan(busy)) u->asked = 1;
    if (lazy && busy > 0 && !isnan(u->first) && d->value >= u->first) {
        u->conc++;
        pgt_kernel_add(&ts->conc, number, d->name, busy, d->value, 0);
    }
}

/* A burst of loads after the first kernel (d, "load.<i>"), after ready:
 * its stall, the burst's span where the record has it (the work around
 * the loads stalls the program too), else its loads' time. */
static void pgt_load(pgt_side *ts, int number, pgt_uses *u, const res_derived *d)
{
    double ms = !isnan(res_derived_num(d, "span_ms")) ? res_derived_num(d, "span_ms")
                                                       : res_derived_num(d, "ms");
    const char *what = strcmp(d->name, "library") == 0 ? "(library loads)" : "(module loads)";
    if (isnan(u->from) || !(d->value > u->from)) return;
    u->stall += ms;
    pgt_note_worst(u, ms, what);
    pgt_kernel_add(&ts->ready, number, what, ms, d->value - u->from, 0);
}

/* A first use or load that read the free memory after the first kernel:
 * the tightest so far, and what it was. */
static void pgt_tight(pgt_uses *u, const res_derived *d, int use)
{
    double free_mib = res_derived_num(d, "free_mib");
    if (isnan(free_mib) || isnan(u->first) || !(d->value >= u->first) || !(free_mib < u->tight))
        return;
    u->tight = free_mib;
    u->took = res_derived_num(d, "took_mib");
    if (use) dm_table_name(d->name, 60, u->tname, sizeof u->tname);
    else snprintf(u->tname, sizeof u->tname, "%s", strcmp(d->name, "library") == 0
                  ? "library loads" : "module loads");
}

/* The figures of a run's uses (ready.*, concurrent, headroom) and the
 * side's worst and tightest over the runs. */
static void pgt_put_use_figures(pgt_side *ts, results *r, const pgt_run *run, const pgt_uses *u)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", run->side);
    if (!isnan(u->ready)) {
        pgt_put_run(r, prefix, PGF_READY_AT, u->ready);
        pgt_put_run(r, prefix, PGF_READY_USES, u->uses);
        pgt_put_run(r, prefix, PGF_READY_STALL, u->stall);
        pgt_put_run(r, prefix, PGF_READY_WORST, u->worst);
        if (u->wname[0]) pgt_kernel_add(&ts->worst, run->number, u->wname, u->worst, 0, 0);
    }
    if (u->asked) pgt_put_run(r, prefix, PGF_CONCURRENT, u->conc);
    if (!isfinite(u->tight)) return;
    pgt_put_run(r, prefix, PGF_HEADROOM, u->tight);
    if (!ts->tight_seen || u->tight < ts->tight_free) {
        ts->tight_seen = 1;
        ts->tight_free = u->tight;
        ts->tight_took = u->took;
        snprintf(ts->tight_name, sizeof ts->tight_name, "%s", u->tname);
    }
}

/* The first uses after ready (each kernel's stall and when it came), the
 * tightest load after the first kernel, and the kernels whose first launch
 * is many times their later ones, from a run's records. */
static void pgt_put_uses(pgt_tally *t, results *r, const pgt_run *run)
{
    pgt_side *ts = &t->side[run->si];
    double mark = pgt_earliest(run->recs, run->n, PRC_F_AT_READY_MARK);
    pgt_uses u;
    size_t i, j;

    memset(&u, 0, sizeof u);
    u.first = pgt_earliest(run->recs, run->n, PRC_F_AT_FIRST_KERNEL);
    u.ready = pgt_ready_at(run, mark, u.first);
    u.from = run->resumed_ns > 0 ? (double)(run->resumed_ns - run->t0_ns) / 1e6 : u.ready;
    u.tight = INFINITY;
    u.took = NAN;
    t->ready_runs++;
    if (run->ready_ns > 0) t->ready_matched++;
    if (!isnan(mark)) t->mark_matched++;
    if (!isnan(mark) || pgt_earliest(run->recs, run->n, PRC_F_MARKS_N) > 0) t->mark_runs++;
    for (i = 0; i < run->n; i++)
        for (j = 0; j < run->recs[i].r.nd; j++) {
            const res_derived *d = &run->recs[i].r.d[j];
            const res_kv *mode = res_env_get(&run->recs[i].r, "loading_mode");
            int lazy = mode && mode->kind == RES_STR && mode->str && strcmp(mode->str, "LAZY") == 0;
            int use = strncmp(d->key, "use.", 4) == 0, load = strncmp(d->key, "load.", 5) == 0;
            if (use) pgt_use(ts, run->number, &u, d, lazy);
            if (load) pgt_load(ts, run->number, &u, d);
            if (use || load) pgt_tight(&u, d, use);
        }
    pgt_put_use_figures(ts, r, run, &u);
}

/* Which loading mode the records read in their processes, and whether
 * CUPTI answered in each (another client subscribed, say). */
static void pgt_tally_modes(pgt_tally *t, size_t si, const prc_record *recs, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const res_kv *kv = res_env_get(&recs[i].r, "loading_mode");
        const res_kv *cu = res_env_get(&recs[i].r, "cupti");
        const char *m = kv && kv->kind == RES_STR && kv->str ? kv->str : "";
        const char *c = cu && cu->kind == RES_STR && cu->str ? cu->str : "not said";
        const res_kv *dev = res_env_get(&recs[i].r, "device");
        if (!t->bus[0] && dev && dev->kind == RES_STR && dev->str)
            snprintf(t->bus, sizeof t->bus, "%s", dev->str);
        t->side[si].mode_seen[strcmp(m, "LAZY") == 0 ? 0 : strcmp(m, "EAGER") == 0 ? 1 : 2]++;
        t->records++;
        if (strcmp(c, "ok") != 0 && !t->no_cupti++)
            snprintf(t->cupti_why, sizeof t->cupti_why, "%s", c);
    }
}

void pgt_put_records(pgt_tally *t, results *r, const pgt_run *run)
{
    pgt_put_figures(r, run->side, run->recs, run->n, 1);
    pgt_gather_slowest(&t->side[run->si], run);
    pgt_put_uses(t, r, run);
    pgt_tally_modes(t, run->si, run->recs, run->n);
    if (run->n) t->with_record++;
}

void pgt_put_failed(results *r, const char *prefix_side, const pr_program *p, const prc_record *recs,
                    size_t n)
{
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s.", prefix_side);
    pgt_put_run(r, prefix, PGF_WALL, p->ms);
    pgt_put_run(r, prefix, PGF_CPU, p->cpu_ms);
    pgt_put_run(r, prefix, PGF_RSS_MAIN, p->rss_mib);
    pgt_put_figures(r, prefix_side, recs, n, 0);
}
