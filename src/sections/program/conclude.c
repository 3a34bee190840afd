/* conclude.c: the verdicts, the probe's cost, the ranked first uses and
 * --preload-list (conclude.h). */
#include "sections/program/conclude.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/verdict.h"
#include "cuda/demangle.h"
#include "os/atomicfile.h"
#include "sections/program/figures.h"

void pgc_compare_key(const pgk_plan *plan, size_t side, const char *fk, char *buf, size_t len)
{
    if (plan->nsettings == 2)
        snprintf(buf, len, "compare.%s%s", plan->side[side].probed ? "" : "bare.", fk);
    else
        snprintf(buf, len, "compare.%s.%s", plan->side[side].key, fk);
}

const res_meas *pgc_meas(const results *r, const char *prefix, const char *side, const char *fk)
{
    char k[160];
    snprintf(k, sizeof k, "%.32s%.63s.%.60s", prefix, side, fk);
    return res_find(r, PG, k);
}

/* The key of figure f of the run-level figures then the record's. */
static const char *pgc_fig_key(size_t f)
{
    return f < PGF_N ? pgf_figs[f].key : prc_figs[f - PGF_N].key;
}

/* Side ai against side bi (the side of its group it is compared with:
 * pgk_side's against), every figure, at level alpha. */
static void pgc_compare_pair(results *r, const pgk_plan *plan, size_t ai, size_t bi, double alpha,
                             double threshold)
{
    const pgk_side *a = &plan->side[ai], *b = &plan->side[bi];
    char key[160], name[300];
    size_t f;
    for (f = 0; f < PGF_N + PRC_NFIGS; f++) {
        const char *fk = pgc_fig_key(f);
        const res_meas *ma = pgc_meas(r, "", a->key, fk), *mb = pgc_meas(r, "", b->key, fk);
        vd_result v;
        if (!ma || !mb) continue;
        vd_judge_at(ma->samples, ma->nsamples, mb->samples, mb->nsamples, a->setting, b->setting,
                    threshold, 0.0, alpha, &v);
        pgc_compare_key(plan, ai, fk, key, sizeof key);
        snprintf(name, sizeof name, "%s against %s, %s: the U test's p", a->label, b->label, fk);
        vd_store(r, PG, key, name, &v, a->setting, b->setting, threshold);
    }
}

/* With two settings, each process of the second against the first's. */
static void pgc_compare_procs(results *r, const pgk_plan *plan, double alpha, double threshold)
{
    const pgk_side *a = &plan->side[1], *b = &plan->side[0];
    char key[160], name[300], prefix[32];
    size_t j, f;
    for (j = 1; j <= PG_MAX_PROCS; j++)
        for (f = 0; f < PGF_N + PRC_NFIGS; f++) {
            const char *fk = pgc_fig_key(f);
            const res_meas *ma, *mb;
            vd_result v;
            snprintf(prefix, sizeof prefix, "proc%zu.", j);
            ma = pgc_meas(r, prefix, a->key, fk);
            mb = pgc_meas(r, prefix, b->key, fk);
            if (!ma || !mb) continue;
            vd_judge_at(ma->samples, ma->nsamples, mb->samples, mb->nsamples, a->label, b->label,
                        threshold, 0.0, alpha, &v);
            snprintf(key, sizeof key, "compare.proc%zu.%s", j, fk);
            snprintf(name, sizeof name, "process %zu, %s against %s, %s", j, a->label, b->label, fk);
            vd_store(r, PG, key, name, &v, a->label, b->label, threshold);
        }
}

void pgc_compare(results *r, const pgk_plan *plan, double alpha, double threshold)
{
    size_t i, group;
    for (group = 0; group < plan->nsides; group += plan->nsettings)
        for (i = 1; i < plan->nsettings; i++)
            /* Bare sides beside probed ones run the first --rounds only: a
             * count fixed in advance, one look at VD_ALPHA. */
            pgc_compare_pair(r, plan, group + i, group + plan->side[group + i].against,
                             group && plan->probe ? VD_ALPHA : alpha, threshold);
    if (plan->nsettings == 2) pgc_compare_procs(r, plan, alpha, threshold);
}

void pgc_probe_cost(results *r, const pgk_plan *plan)
{
    size_t i, f;
    for (i = 0; i < plan->nsides; i++) {
        const pgk_side *sd = &plan->side[i];
        if (!sd->probed) continue;
        for (f = 0; f < PGF_NCOST; f++) {
            const char *fk = pgf_figs[pgf_cost[f]].key;
            char kb[128], key[128], name[200];
            const res_meas *b, *p;
            res_derived *d;
            vd_result v;
            snprintf(kb, sizeof kb, "bare.%s", sd->key);
            if (!(b = pgc_meas(r, "", kb, fk)) || !(p = pgc_meas(r, "", sd->key, fk))) continue;
            vd_judge(b->samples, b->nsamples, p->samples, p->nsamples, "bare", "probed",
                     0.0, 0.0, &v);
            snprintf(key, sizeof key, PGF_COST_PREFIX "%s.%s", sd->key, fk);
            snprintf(name, sizeof name, "the probe's cost, %s, %s: probed median less bare", sd->label,
                     fk);
            if ((d = vd_store(r, PG, key, name, &v, "bare", "probed", 0.0))) {
                d->value = v.diff;
                res_derived_field(d, "pct_of_bare", v.a_median != 0 ? v.diff / v.a_median * 100.0 : NAN);
            }
        }
    }
}

/* ------------------------------------------------------------- ranks --- */

static int pgc_order_cmp(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Side key side's kernels l ranked by their median ms over the runs they
 * were in, slowest first: the first max as derived entries of declaration
 * what ("<what>.<side>.<rank>": name the symbol, text the name demangled,
 * value the median over its samples), with fields runs (the runs it came
 * in), times (its samples) and, where named, get_field and launch_field
 * (the medians of each kernel's get and launch samples). */
static void pgc_rank(results *r, const char *side, const pgt_list *l, enum pgf_derived_id what,
                     size_t max, const char *get_field, const char *launch_field)
{
    double (*order)[2] = l->n ? malloc(l->n * sizeof *order) : NULL;
    size_t k;
    if (!order) return;
    for (k = 0; k < l->n; k++) {
        order[k][0] = st_median(l->k[k].ms, l->k[k].n);
        order[k][1] = (double)k;
    }
    qsort(order, l->n, sizeof order[0], pgc_order_cmp);
    for (k = 0; k < l->n && k < max; k++) {
        const pgt_kernel *kn = &l->k[(size_t)order[k][1]];
        char key[96], full[4096];
        res_derived *d;
        pgf_rank_key(what, side, k + 1, key, sizeof key);
        dm_demangle(kn->name, full, sizeof full);
        d = sch_derive(r, PG, &pgf_derived[what], key, kn->name, order[k][0], full);
        if (!d) continue;
        res_derived_field(d, "runs", (double)kn->runs);
        res_derived_field(d, "times", (double)kn->n);
        if (get_field) res_derived_field(d, get_field, st_median(kn->get, kn->n));
        if (launch_field) res_derived_field(d, launch_field, st_median(kn->launch, kn->n));
    }
    free(order);
}

void pgc_slowest(results *r, const pgk_plan *plan, const pgt_tally *t)
{
    size_t si;
    for (si = 0; si < plan->nsides; si++)
        pgc_rank(r, plan->side[si].key, &t->side[si].slowest, PGF_D_SLOWEST, PRC_SLOWEST, "get_ms",
                 "launch_ms");
}

void pgc_ready_list(results *r, const pgk_plan *plan, const pgt_tally *t)
{
    size_t si;
    for (si = 0; si < plan->nsides; si++)
        pgc_rank(r, plan->side[si].key, &t->side[si].ready, PGF_D_READY_RANK, PGC_READY_LIST,
                 "after_ms", NULL);
}

/* ------------------------------------------------------ --preload-list --- */

/* What pgc_emit_preload writes from. */
typedef struct pgc_preload {
    const results *r;
    const pgk_plan *plan;
} pgc_preload;

/* Every kernel first used after ready on a probed side, slowest first (its
 * median stall on the side where it was slowest). */
static int pgc_emit_preload(FILE *f, const void *arg)
{
    const pgc_preload *w = arg;
    size_t i, k;
    fprintf(f, "# harness --preload-list: kernels first used after the program was ready; preload "
           "each (cudaFuncGetAttributes, cuKernelGetFunction) before it is\n"
            "# stall_ms\tside\tsymbol\tdemangled\n");
    for (i = 0; i < w->plan->nsides; i++) {
        const pgk_side *sd = &w->plan->side[i];
        if (!sd->probed) continue;
        for (k = 1; k <= PGC_READY_LIST; k++) {
            char key[96];
            const res_derived *d;
            pgf_rank_key(PGF_D_READY_RANK, sd->key, k, key, sizeof key);
            if (!(d = res_derived_find(w->r, PG, key))) break;
            if (d->name[0] == '(') continue;    /* a load: nothing to preload by name */
            fprintf(f, "%.3f\t%s\t%s\t%s\n", d->value, sd->key, d->name, d->text);
        }
    }
    return ferror(f) ? -1 : 0;
}

int pgc_write_preload(results *r, const pgk_plan *plan, const char *path)
{
    const pgc_preload w = { r, plan };
    if (!path) return 0;
    if (af_write(path, pgc_emit_preload, &w) != 0) {
        fprintf(stderr, "harness: " PG ": --preload-list=%s: cannot be written: %s\n", path,
                strerror(errno));
        return -1;
    }
    res_env_str(r, "program_preload_list", path);
    return 0;
}
