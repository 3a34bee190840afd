/* sentences.c: the program entry's answers in words (sentences.h). */
#include "sections/program/sentences.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/answer.h"
#include "core/stats.h"
#include "core/verdict.h"
#include "cuda/demangle.h"
#include "sections/program/conclude.h"

/* ------------------------------------------------------------ helpers --- */

/* The median of "<side>.<fig>", NaN when absent. */
double pga_med(const results *r, const char *side, const char *fig)
{
    char k[128];
    const res_meas *m;
    snprintf(k, sizeof k, "%s.%s", side, fig);
    m = res_find(r, PG, k);
    return m ? m->stats.median : NAN;
}

/* The verdict text of "compare.<fig>", "" when none. */
const char *pga_verdict(const results *r, const char *fig)
{
    char k[128];
    const res_derived *d;
    snprintf(k, sizeof k, "compare.%s", fig);
    d = res_derived_find(r, PG, k);
    return d ? d->text : "";
}

void pga_store(results *r, enum pgf_derived_id id, const char *key, double value, const char *text)
{
    sch_derive(r, PG, &pgf_derived[id], key, NULL, value, text);
}

size_t pga_medians(const results *r, const pgk_plan *plan, const char *fk, const char *unit, char *t,
                   size_t len)
{
    size_t i, at = 0;
    t[0] = '\0';
    for (i = 0; i < plan->nsettings && at < len; i++) {
        double m = pga_med(r, plan->side[i].key, fk);
        if (isnan(m))
            at += (size_t)snprintf(t + at, len - at, "%s%s none, no run exited 0", i ? ", " : "",
                                   plan->side[i].label);
        else
            at += (size_t)snprintf(t + at, len - at, "%s%s %.0f %s", i ? ", " : "", plan->side[i].label,
                                   m, unit);
    }
    return at;
}

void pga_verdicts(const results *r, const pgk_plan *plan, const char *fk, char *t, size_t len)
{
    const res_derived *d[PG_MAX_SIDES] = { NULL };
    size_t i, at = 0, same = plan->nsettings > 2;
    t[0] = '\0';
    for (i = 1; i < plan->nsettings && i < PG_MAX_SIDES; i++) {
        char key[160];
        pgc_compare_key(plan, i, fk, key, sizeof key);
        d[i] = res_derived_find(r, PG, key);
        same &= d[i] && d[1] && strcmp(d[i]->text, d[1]->text) == 0 && plan->side[i].against == 0;
    }
    /* More than one verdict, each against the first, all in the same
     * words: said once. */
    if (same) {
        snprintf(t, len, "each against %s: %s", plan->side[0].label, d[1]->text);
        return;
    }
    for (i = 1; i < plan->nsettings && i < PG_MAX_SIDES && at < len; i++) {
        at += (size_t)snprintf(t + at, len - at, "%s%s%s%s%s", at ? "; " : "",
                               plan->nsettings > 2 ? plan->side[i].label : "",
                               plan->side[i].against ? " against " : "",
                               plan->side[i].against ? plan->side[plan->side[i].against].label : "",
                               d[i] ? "" : "no verdict");
        if (d[i]) at += (size_t)snprintf(t + at, len - at, "%s%s", plan->nsettings > 2 ? ": " : "", d[i]->text);
    }
}

/* The first kernel in words: on the clock inside the process, then from
 * the spawn, and with two settings which reached it sooner. */
static void pga_cold_start(const pga_in *in)
{
    const results *r = in->r;
    const pgk_plan *plan = in->plan;
    const char *in_fk = PGF_KEY(IN_FIRST_KERNEL), *at_fk = PRC_KEY(AT_FIRST_KERNEL);
    char t[2000], med[400], v[400], med2[400], v2[400], key[160], who[200] = "";
    const res_derived *d;

    pga_medians(r, plan, in_fk, "ms", med, sizeof med);
    pga_verdicts(r, plan, in_fk, v, sizeof v);
    pga_medians(r, plan, at_fk, "ms", med2, sizeof med2);
    pga_verdicts(r, plan, at_fk, v2, sizeof v2);
    pgc_compare_key(plan, 1, in_fk, key, sizeof key);
    d = plan->nsettings == 2 ? res_derived_find(r, PG, key) : NULL;
    if (d && strstr(d->text, " higher")) {
        /* diff: the first side's median less the second's. */
        int second_sooner = res_derived_num(d, "diff") > 0;
        snprintf(who, sizeof who, " %s reached its first kernel sooner%s.",
                 plan->side[second_sooner ? 1 : 0].label,
                 plan->maker->sooner && !second_sooner ? plan->maker->sooner : "");
    }
    snprintf(t, sizeof t, "Before the first kernel, inside the process (from cuInit, where the "
             "setting acts): %s (medians; %s).%s From the spawn, which adds the program's own "
             "start: %s (%s).", med, v, who, med2, v2);
    pga_store(in->r, PGF_D_COLD_START, NULL,
              pga_med(r, plan->side[1].key, in_fk) - pga_med(r, plan->side[0].key, in_fk), t);
}

void pga_headline(const pga_in *in)
{
    const pgk_plan *plan = in->plan;
    char t[2000], med[400], v[400];
    int inside;

    if (plan->nsettings < 2 || plan->searching) return;
    inside = !isnan(pga_med(in->r, plan->side[0].key, PGF_KEY(IN_FIRST_KERNEL)));
    if (inside) pga_cold_start(in);
    if (!inside || plan->maker->headline_wall) {
        pga_medians(in->r, plan, PGF_KEY(WALL), "ms", med, sizeof med);
        pga_verdicts(in->r, plan, PGF_KEY(WALL), v, sizeof v);
        snprintf(t, sizeof t, "The whole process, from the spawn to its exit: %s (medians; %s).", med, v);
        pga_store(in->r, PGF_D_WALL, NULL, pga_med(in->r, plan->side[1].key, PGF_KEY(WALL)) -
                  pga_med(in->r, plan->side[0].key, PGF_KEY(WALL)), t);
    }
}

/* The digits a time in ms is said with in a sentence: two below 1 ms (a
 * first use of 0.04 ms is not "0.0 ms"), one above. */
static int pga_ms_digits(double ms)
{
    return fabs(ms) < 1.0 ? 2 : 1;
}

/* Drops the spaces a sentence built piece by piece ends with. */
static void pga_trim_end(char *t)
{
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == ' ') t[--n] = '\0';
}

/* The entry of l that came in the most runs (the first of those tied),
 * or NULL when l is empty. */
static const pgt_kernel *pga_most_runs(const pgt_list *l)
{
    const pgt_kernel *best = NULL;
    size_t k;
    for (k = 0; k < l->n; k++)
        if (!best || l->k[k].runs > best->runs) best = &l->k[k];
    return best;
}

/* The first uses after ready in words, per probed side: the count, the
 * stalls summed and the worst of a run (medians over the runs, as the
 * table's ready.* rows), and what was the worst in the most runs. */
static void pga_ready(const pga_in *in)
{
    char t[2400];
    size_t i, at;
    const cli_opts *o = in->o;
    if (!in->t->ready_runs) return;
    if (o->ready && in->t->ready_matched == 0 && in->t->mark_matched == 0)
        at = (size_t)snprintf(t, sizeof t, "No line or NVTX mark matched --ready=%s; first uses are "
                              "counted from the first kernel%s%s. ", o->ready,
                              o->ready_after > 0 ? " plus --ready-after" : "",
                              in->t->mark_runs ? "" : " (no run made an NVTX mark the probe saw)");
    else if (o->ready && in->t->mark_matched == 0)
        at = (size_t)snprintf(t, sizeof t, "Ready: a line matched --ready=%s in %d of %d runs. ",
                              o->ready, in->t->ready_matched, in->t->ready_runs);
    else if (o->ready && in->t->ready_matched == 0)
        at = (size_t)snprintf(t, sizeof t, "Ready: an NVTX mark matched --ready=%s in %d of %d runs. ",
                              o->ready, in->t->mark_matched, in->t->ready_runs);
    else if (o->ready)
        at = (size_t)snprintf(t, sizeof t, "Ready: a line matched --ready=%s in %d of %d runs, an NVTX "
                              "mark in %d (the earlier counts). ", o->ready, in->t->ready_matched,
                              in->t->ready_runs, in->t->mark_matched);
    else
        at = (size_t)snprintf(t, sizeof t, "Ready: %s (no --ready line given). ", o->ready_after > 0
                              ? "--ready-after past the first kernel" : "the first kernel");
    for (i = 0; i < in->plan->nsides && at < sizeof t; i++) {
        const pgk_side *sd = &in->plan->side[i];
        const pgt_kernel *w = pga_most_runs(&in->t->side[i].worst);
        double u = pga_med(in->r, sd->key, PGF_KEY(READY_USES)), st = pga_med(in->r, sd->key, PGF_KEY(READY_STALL));
        const res_meas *wm = pgc_meas(in->r, "", sd->key, PGF_KEY(READY_WORST));
        if (!sd->probed || isnan(u)) continue;
        /* Counts a run (medians): the table lists every name over the runs. */
        at += (size_t)snprintf(t + at, sizeof t - at, "%s: %.0f first use%s after ready a run, %.*f ms "
                               "of stalls in all (medians of the runs)", sd->label, u, u == 1 ? "" : "s",
                               pga_ms_digits(st), st);
        if (w && wm && at < sizeof t) {
            char name[64];
            size_t nl;
            dm_table_name(w->name, 60, name, sizeof name);
            /* A name in parentheses of its own ("(library loads)") loses
             * them inside the sentence's. */
            if (name[0] == '(' && (nl = strlen(name)) > 2 && name[nl - 1] == ')') {
                memmove(name, name + 1, nl - 2);
                name[nl - 2] = '\0';
            }
            at += (size_t)snprintf(t + at, sizeof t - at, ", the worst of a run %.*f ms (%s the worst in "
                                   "%zu of %zu runs)", pga_ms_digits(wm->stats.median), wm->stats.median, name,
                                   w->runs, wm->nsamples);
        }
        if (at < sizeof t) at += (size_t)snprintf(t + at, sizeof t - at, ". ");
    }
    pga_trim_end(t);
    pga_store(in->r, PGF_D_READY, NULL, NAN, t);
}

/* The tightest load after the first kernel, per probed side. */
static void pga_headroom(const pga_in *in)
{
    char t[1600];
    size_t i, at = 0;
    for (i = 0; i < in->plan->nsides && at < sizeof t; i++) {
        char took[64] = "";
        if (!in->plan->side[i].probed || !in->t->side[i].tight_seen) continue;
        /* Under 1 MiB in KiB: "took 0 MiB" said nothing. */
        if (!isnan(in->t->side[i].tight_took) && fabs(in->t->side[i].tight_took) < 1)
            snprintf(took, sizeof took, ", took %.0f KiB", in->t->side[i].tight_took * 1024.0);
        else if (!isnan(in->t->side[i].tight_took))
            snprintf(took, sizeof took, ", took %.0f MiB", in->t->side[i].tight_took);
        at += (size_t)snprintf(t + at, sizeof t - at, "%sunder %s the tightest load after the first "
                               "kernel (%.60s%s) ran with %.0f MiB free (the least over the runs; "
                               "median of each run's least: %.0f MiB)", at ? "; " : "Headroom: ",
                               in->plan->side[i].label, in->t->side[i].tight_name, took, in->t->side[i].tight_free,
                               pga_med(in->r, in->plan->side[i].key, PGF_KEY(HEADROOM)));
    }
    if (at && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ".");
        pga_store(in->r, PGF_D_HEADROOM, NULL, NAN, t);
    }
}

/* Kernels whose first launch took many times their later launches: a
 * timer around a first launch (an autotuner's) times the load. */
#define PGA_TUNE_FACTOR 10.0
#define PGA_TUNE_MIN_MS 1.0
static void pga_tune(const pga_in *in)
{
    char t[1600];
    size_t i, k, at = 0, shown = 0;
    for (i = 0; i < in->plan->nsides && at < sizeof t; i++) {
        if (!in->plan->side[i].probed) continue;
        for (k = 0; k < in->t->side[i].tune.n && shown < 3 && at < sizeof t; k++) {
            const pgt_kernel *kn = &in->t->side[i].tune.k[k];
            double first = st_median(kn->ms, kn->n), later = st_median(kn->get, kn->n);
            char name[64];
            if (!(first >= PGA_TUNE_MIN_MS && first >= PGA_TUNE_FACTOR * later)) continue;
            dm_table_name(kn->name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s, %s: first launch %.1f ms, later "
                                   "%.3f ms", shown++ ? "; " : "", in->plan->side[i].label, name, first,
                                   later);
        }
    }
    if (shown && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ": a timer around a first launch times the load (preload the "
                 "kernel, or time it after one launch).");
        pga_store(in->r, PGF_D_AUTOTUNE, NULL, (double)shown, t);
    }
}

/* First uses that began while another stream had work in flight, per
 * probed side: under LAZY such a first use loads its kernel there, and a
 * load can make the context wait (the CUDA Programming Guide's lazy-loading
 * hazard for kernels meant to run at once). */
static void pga_concurrent(const pga_in *in)
{
    char t[1600];
    size_t i, k, at = 0, sides = 0;
    for (i = 0; i < in->plan->nsides && at < sizeof t; i++) {
        double med = pga_med(in->r, in->plan->side[i].key, PGF_KEY(CONCURRENT));
        if (!in->plan->side[i].probed || !(med > 0) || !in->t->side[i].conc.n) continue;
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s: %.0f first use%s (median) began while "
                               "another stream had work in flight", sides++ ? "; " : "",
                               in->plan->side[i].label, med, med == 1 ? "" : "s");
        for (k = 0; k < in->t->side[i].conc.n && k < 3 && at < sizeof t; k++) {
            char name[64];
            dm_table_name(in->t->side[i].conc.k[k].name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s", k ? ", " : " (", name);
        }
        if (at < sizeof t) at += (size_t)snprintf(t + at, sizeof t - at, "%s)",
                                                  in->t->side[i].conc.n > 3 ? ", ..." : "");
    }
    if (sides && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ". Under LAZY a first use loads its kernel, and a load can "
                 "make the context wait: kernels meant to run at the same time can serialize, or "
                 "deadlock where one waits for the other (preload them, or use EAGER).");
        pga_store(in->r, PGF_D_CONCURRENT, NULL, NAN, t);
    }
}

/* How many rounds the answer took, and why the rounds stopped. */
static void pga_rounds(const pga_in *in)
{
    char t[600];
    const cli_opts *o = in->o;
    if (in->plan->nsettings < 2 || in->plan->searching) return;
    if (in->n->looks.looks == 0)
        snprintf(t, sizeof t, "The answer took %d round%s (%d runs; --rounds=%d, --max-rounds=%d): %s. "
                 "No look could call a difference: at %d runs a side the U test cannot reach p < %.2f "
                 "(raise --max-rounds).", in->n->round, in->n->round == 1 ? "" : "s", in->n->runs, o->rounds,
                 o->max_rounds, in->n->stop, o->max_rounds, VD_ALPHA);
    else
        snprintf(t, sizeof t, "The answer took %d round%s (%d runs; --rounds=%d, --max-rounds=%d): %s. "
                 "Verdicts at p < %.4f: %.2f shared equally (Bonferroni) over the %d look%s after "
                 "rounds %d to %d that could call a difference.", in->n->round, in->n->round == 1 ? "" : "s",
                 in->n->runs, o->rounds, o->max_rounds, in->n->stop, in->n->looks.alpha, VD_ALPHA, in->n->looks.looks,
                 in->n->looks.looks == 1 ? "" : "s", in->n->looks.first, o->max_rounds);
    pga_store(in->r, PGF_D_ROUNDS, NULL, in->n->round, t);
}

/* The mode in effect against the mode asked for, per side. */
static void pga_mode(const pga_in *in)
{
    size_t i;
    for (i = 0; i < in->plan->nsides; i++) {
        const pgk_side *sd = &in->plan->side[i];
        int want = sd->mode && strcmp(sd->mode, "LAZY") == 0 ? 0 : sd->mode ? 1 : -1;
        int other, seen = in->t->side[i].mode_seen[0] + in->t->side[i].mode_seen[1] + in->t->side[i].mode_seen[2];
        char key[64], t[400], lead[80] = "";
        if (!sd->probed || want < 0 || seen == 0) continue;
        other = in->t->side[i].mode_seen[1 - want];
        const char *side = sd->key;
        sch_fill(key, sizeof key, NULL, pgf_derived[PGF_D_MODE].key, &side, 1);
        /* A side named otherwise than its mode (LAZY snapshot) named first. */
        if (strcmp(sd->label, sd->mode) != 0) snprintf(lead, sizeof lead, "%s: ", sd->label);
        if (other)
            snprintf(t, sizeof t, "%s%s was requested, but %s was in effect in %d of %d CUDA processes "
                     "(cuModuleGetLoadingMode, read inside each).", lead, sd->mode,
                     want ? "LAZY" : "EAGER", other, seen);
        else
            snprintf(t, sizeof t, "%s%s was in effect in every CUDA process that launched a kernel "
                     "(%d of %d read it; cuModuleGetLoadingMode, inside each).", lead, sd->mode,
                     in->t->side[i].mode_seen[want], seen);
        pga_store(in->r, PGF_D_MODE, key, (double)other, t);
    }
}

/* The probe's cost in words. */
static void pga_cost(const pga_in *in)
{
    char t[800];
    size_t i, at = 0;
    for (i = 0; i < in->plan->nsides && at < sizeof t; i++) {
        char kw[96], km[96];
        const res_derived *w, *m;
        if (!in->plan->side[i].probed) continue;
        snprintf(kw, sizeof kw, PGF_COST_PREFIX "%s.%s", in->plan->side[i].key, PGF_KEY(WALL));
        snprintf(km, sizeof km, PGF_COST_PREFIX "%s.%s", in->plan->side[i].key, PGF_KEY(MEM_PEAK));
        if (!(w = res_derived_find(in->r, PG, kw))) continue;
        m = res_derived_find(in->r, PG, km);
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s: %+.1f%% of the whole process (%+.0f ms; %s)",
                               at ? "; " : "The probe's own cost, probed against bare runs: ",
                               in->plan->side[i].label, res_derived_num(w, "pct_of_bare"), w->value, w->text);
        if (m && at < sizeof t)
            at += (size_t)snprintf(t + at, sizeof t - at, ", %+.0f MiB of device memory at the peak",
                                   m->value);
    }
    if (at && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ".");
        pga_store(in->r, PGF_D_PROBE_COST_ANSWER, NULL, NAN, t);
    }
}

/* Whether CUDA was used (no record where the probe was), whether CUPTI
 * answered inside, and the runs that failed. */
static void pga_runs(const pga_in *in)
{
    char t[600];
    if (in->plan->probe && in->t->with_record == 0 && in->n->runs > in->n->failed && in->n->nvml_runs) {
        snprintf(t, sizeof t, "The GPU was used without the probe: NVML saw the program's processes "
                 "on a device in %d probed run%s, but none left a record. Likely causes: the program "
                 "set its own CUDA_INJECTION64_PATH or cleared the harness's variables before it "
                 "started a CUDA process; another injection or profiler took the probe's place; or "
                 "the probe could not load (its stderr says why). Only the whole-process time, host "
                 "memory and NVML's device memory are measured.", in->n->nvml_runs,
                 in->n->nvml_runs == 1 ? "" : "s");
        pga_store(in->r, PGF_D_CUDA, NULL, 1, t);
    } else if (in->plan->probe && in->t->with_record == 0 && in->n->runs > in->n->failed &&
               in->n->refused) {
        snprintf(t, sizeof t, "No record was read: %d refused (a record, or the record directory; "
                 "each named above with its reason); only the whole-process time and host memory "
                 "are measured.", in->n->refused);
        pga_store(in->r, PGF_D_CUDA, NULL, 0, t);
    } else if (in->plan->probe && in->t->with_record == 0 && in->n->runs > in->n->failed) {
        snprintf(t, sizeof t, "No CUDA process: in no probed run did the driver load the probe (the "
                 "program never called cuInit, or no CUDA driver is there); only its whole-process "
                 "time and host memory are measured.");
        pga_store(in->r, PGF_D_CUDA, NULL, 0, t);
    }
    if (in->t->no_cupti) {
        snprintf(t, sizeof t, "CUPTI did not answer inside %d of %d CUDA processes (the first said: "
                 "%s): their records hold what is measured without callbacks (the probe's load, "
                 "exit, host memory).", in->t->no_cupti, in->t->records, in->t->cupti_why);
        pga_store(in->r, PGF_D_CUPTI, NULL, in->t->no_cupti, t);
    }
    if (in->n->failed && in->n->runs && !res_derived_find(in->r, PG, AN_PREFIX "failed")) {
        snprintf(t, sizeof t, "%d of %d runs failed (their figures are left out; the rest are "
                 "compared).", in->n->failed, in->n->runs);
        pga_store(in->r, PGF_D_FAILED, NULL, in->n->failed, t);
    }
}

void pga_hazards(const pga_in *in)
{
    pga_ready(in);
    pga_headroom(in);
    pga_tune(in);
    pga_concurrent(in);
}

void pga_outcome(const pga_in *in)
{
    pga_rounds(in);
    pga_mode(in);
    pga_cost(in);
    pga_runs(in);
}
