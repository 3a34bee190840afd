/* setting_squeeze.c: -- CMD --squeeze (setting_squeeze.h): the margins,
 * the search, the failed calls and their sentences; the squeeze's lines
 * of the report; the two kinds' rows and their hooks around the runs. */
#include "sections/program/setting_squeeze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/answer.h"
#include "cuda/demangle.h"
#include "os/sig.h"
#include "run/table.h"
#include "sections/program/setting.h"

/* ---------------------------------------------------------- the runs --- */

int pgs_begin(pgs_state *q, const cli_opts *o, const char *const *key, const char *const *label,
              size_t nsides, size_t nsettings, int probed, const sq_held *first, char *why,
              size_t whylen)
{
    size_t i;

    memset(q, 0, sizeof *q);
    q->on = o->squeeze_auto || o->squeeze_mib >= 0;
    q->probed = probed;
    q->automatic = o->squeeze_auto;
    q->margin = o->squeeze_mib;
    q->free_mib = first->free_mib;
    q->total_mib = first->total_mib;
    q->nsides = nsides < PG_MAX_SIDES ? nsides : PG_MAX_SIDES;
    q->nsettings = nsettings < q->nsides ? nsettings : q->nsides;
    for (i = 0; i < q->nsides; i++) {
        pgs_side *sd = &q->side[i];
        snprintf(sd->key, sizeof sd->key, "%s", key[i]);
        snprintf(sd->label, sizeof sd->label, "%s", label[i]);
        sd->lo = sd->hi = -1;
        sd->held_min = sd->left_min = INFINITY;
        sd->held_max = sd->left_max = -INFINITY;
    }
    if (!q->automatic && q->margin > q->free_mib) {
        snprintf(why, whylen, "--squeeze=%.0f: above the free memory of device 0 (%.0f MiB free "
                 "once a context is made on it, of %.0f MiB)", q->margin, q->free_mib, q->total_mib);
        return -1;
    }
    return 0;
}

double pgs_next(pgs_state *q, size_t si)
{
    pgs_side *sd = &q->side[si];
    double low, free_mib = floor(q->free_mib);

    if (sd->done) return -1;
    if (sd->ntries >= CLI_SQUEEZE_TRIES || sd->broken[0]) goto done;
    if (sd->hi < 0) {
        if (sd->lo < 0) return fmin(PGS_FIRST_MIB, free_mib);
        if (sd->lo >= free_mib) goto done;      /* it failed with nothing held */
        return fmin(fmax(sd->lo * 2, PGS_FIRST_MIB), free_mib);
    }
    low = sd->lo < 0 ? 0 : sd->lo;
    if (sd->hi - low <= PGS_STEP_MIB) goto done;
    return floor((low + sd->hi) / 2);
done:
    sd->done = 1;
    return -1;
}

/* The try of side si at margin, or NULL. */
static const pgs_try *pgs_try_at(const pgs_state *q, size_t si, double margin)
{
    size_t k;
    for (k = 0; k < q->side[si].ntries; k++)
        if (q->side[si].tries[k].margin == margin) return &q->side[si].tries[k];
    return NULL;
}

int pgs_next_cross(const pgs_state *q, size_t *si, double *margin)
{
    size_t i, j;
    for (i = 0; i < q->nsettings; i++) {
        const pgs_side *a = &q->side[i];
        if (a->lo < 0) continue;
        for (j = 0; j < q->nsettings; j++)
            if (j != i && !q->side[j].broken[0] && q->side[j].ntries < PGS_MAX_TRIES &&
                !pgs_try_at(q, j, a->lo)) {
                *si = j;
                *margin = a->lo;
                return 1;
            }
    }
    return 0;
}

/* The failed calls of a run's records, gathered by (side, margin, call,
 * what, error); run numbers the run (a call that failed twice in one run,
 * in two processes, counts once). */
static void pgs_gather(pgs_state *q, size_t si, double margin, int ran, int run,
                       const prc_record *recs, size_t nrec)
{
    size_t i, j, k;

    for (i = 0; i < nrec; i++)
        for (j = 0; j < recs[i].r.nd; j++) {
            const res_derived *d = &recs[i].r.d[j];
            char call[48], err[64];
            pgs_fail *f = NULL;
            if (strncmp(d->key, "fail.", 5) != 0 ||
                prc_fail_text(d->text, call, sizeof call, err, sizeof err) != 0)
                continue;
            for (k = 0; k < q->nfail && !f; k++)
                if (q->fail[k].side == si && q->fail[k].margin == margin &&
                    strcmp(q->fail[k].call, call) == 0 && strcmp(q->fail[k].err, err) == 0 &&
                    strncmp(q->fail[k].name, d->name, sizeof q->fail[k].name - 1) == 0)
                    f = &q->fail[k];
            if (!f && q->nfail == PGS_MAX_FAILS) {
                q->nfail_lost++;
                continue;
            }
            if (!f) {
                f = &q->fail[q->nfail++];
                f->last_run = -1;
                f->side = si;
                f->margin = margin;
                f->error = res_derived_num(d, "error");
                f->free_mib = NAN;
                snprintf(f->name, sizeof f->name, "%s", d->name);
                snprintf(f->call, sizeof f->call, "%s", call);
                snprintf(f->err, sizeof f->err, "%s", err);
            }
            if (!isnan(res_derived_num(d, "free_mib")))
                f->free_mib = isnan(f->free_mib) ? res_derived_num(d, "free_mib")
                                                 : fmin(f->free_mib, res_derived_num(d, "free_mib"));
            if (f->last_run != run) {
                f->last_run = run;
                f->runs++;
                f->runs_ok += ran;
            }
        }
}

void pgs_note_run(pgs_state *q, size_t si, double margin, const sq_held *held, int ran,
                  const char *outcome, const prc_record *recs, size_t nrec)
{
    pgs_side *sd = &q->side[si];
    pgs_try *t;

    pgs_gather(q, si, margin, ran, ++q->nruns, recs, nrec);
    if (!q->automatic) {
        if (!held) {
            sd->lost++;
            return;
        }
        sd->runs++;
        sd->ran += ran;
        sd->held_min = fmin(sd->held_min, held->held_mib);
        sd->held_max = fmax(sd->held_max, held->held_mib);
        sd->left_min = fmin(sd->left_min, held->left_mib);
        sd->left_max = fmax(sd->left_max, held->left_mib);
        if (!ran && !sd->failed_how[0]) snprintf(sd->failed_how, sizeof sd->failed_how, "%s", outcome);
        return;
    }
    /* A search's run whose holder did not hold ends the search there; a
     * run at another side's margin is kept as failed, with why. */
    if (!held && !sd->done) {
        snprintf(sd->broken, sizeof sd->broken, "at %.0f MiB: %s", margin, outcome);
        return;
    }
    if (sd->ntries == PGS_MAX_TRIES) return;
    t = &sd->tries[sd->ntries++];
    t->margin = margin;
    t->held = held ? held->held_mib : NAN;
    t->left = held ? held->left_mib : NAN;
    t->ran = ran && held;
    t->cross = sd->done;
    snprintf(t->outcome, sizeof t->outcome, "%s", ran ? "ran" : outcome);
    if (sd->done) return;
    if (ran) sd->hi = sd->hi < 0 ? margin : fmin(sd->hi, margin);
    else sd->lo = fmax(sd->lo, margin);
}

/* ---------------------------------------------------------- the words --- */

/* --squeeze's derived entries, declared once (pgs_schema prints them). */
enum pgs_derived_id {
    PGS_D_ANSWER, PGS_D_FAIL_ANSWER, PGS_D_MORE, PGS_D_FAIL, PGS_D_SIDE, PGS_D_RAN, PGS_D_TRY,
    PGS_NDERIVED
};
static const sch_key pgs_derived[PGS_NDERIVED] = {
    [PGS_D_ANSWER] = { AN_PREFIX "squeeze", "MiB", RES_PROCESS, "the program under --squeeze",
                       "the margin (--squeeze=MiB), none with auto" },
    [PGS_D_FAIL_ANSWER] = { AN_PREFIX "squeeze_fail.<i>", "MiB", RES_PROCESS,
                                   "a failure under --squeeze",
                                   "the device memory free at the failed call, none for a run" },
    [PGS_D_MORE] = { AN_PREFIX "squeeze_more", "", RES_PROCESS, "failed calls not said", "" },
    [PGS_D_FAIL] = { "squeeze_fail.<i>", "MiB", RES_PROCESS,
                            "a first use or load that failed under --squeeze: what was loaded",
                            "the device memory free at the call" },
    [PGS_D_SIDE] = { "squeeze.<side>", "MiB", RES_PROCESS,
                            "the smallest margin it ran at (--squeeze=auto)", "" },
    [PGS_D_RAN] = { "squeeze.<side>.ran", "count", RES_PROCESS,
                           "runs that exited 0 under --squeeze", "" },
    [PGS_D_TRY] = { "squeeze.<side>.try<i>", "MiB", RES_PROCESS,
                           "a run at a margin (--squeeze=auto)", "" },
};

void pgs_schema(sch_out *o)
{
    sch_put_table(o, NULL, pgs_derived, PGS_NDERIVED);
}

/* Store derived entry id (key: its pattern filled in, or NULL; name: NULL
 * for the declared one); out of memory is said. */
static res_derived *pgs_derive(results *r, enum pgs_derived_id id, const char *key, const char *name,
                               double value, const char *text)
{
    return sch_derive(r, PG, &pgs_derived[id], key, name, value, text);
}

/* The key of declaration id, its placeholders filled with side (NULL:
 * none) and then the number k (0: none), into buf. */
static void pgs_key(char *buf, size_t len, enum pgs_derived_id id, const char *side, size_t k)
{
    char num[SCH_NUM];
    const char *parts[2];
    size_t n = 0;
    if (side) parts[n++] = side;
    if (k) parts[n++] = sch_num(num, (long long)k);
    sch_fill(buf, len, NULL, pgs_derived[id].key, parts, n);
}

/* Side j's result at margin m, in words ("ran in 3 of 3 runs", "failed
 * (exited with 1)"), into buf. */
static void pgs_result_at(const pgs_state *q, size_t j, double m, char *buf, size_t len)
{
    const pgs_side *sd = &q->side[j];
    const pgs_try *t;
    if (!q->automatic) {
        if (sd->runs == 0) snprintf(buf, len, "no run");
        else if (sd->ran == sd->runs) snprintf(buf, len, "ran in %d of %d runs", sd->ran, sd->runs);
        else if (sd->ran == 0) snprintf(buf, len, "failed in %d of %d runs (%s)", sd->runs, sd->runs,
                                        sd->failed_how);
        else snprintf(buf, len, "ran in %d of %d runs (the others: %s)", sd->ran, sd->runs, sd->failed_how);
        return;
    }
    t = pgs_try_at(q, j, m);
    if (!t) snprintf(buf, len, "not run at that margin");
    else if (t->ran) snprintf(buf, len, "ran");
    else snprintf(buf, len, "failed (%s)", t->outcome);
}

/* "; EAGER at the same margin: ran" for every other setting than si,
 * into buf. */
static void pgs_others(const pgs_state *q, size_t si, double m, char *buf, size_t len)
{
    size_t j, at = 0;
    buf[0] = '\0';
    for (j = 0; j < q->nsettings && at < len; j++) {
        char res[300];
        if (j == si) continue;
        pgs_result_at(q, j, m, res, sizeof res);
        at += (size_t)snprintf(buf + at, len - at, "; %s at the same margin: %s", q->side[j].label, res);
    }
}

/* The sentence of failed call f into t. */
static void pgs_fail_words(const pgs_state *q, const pgs_fail *f, char *t, size_t len)
{
    const pgs_side *sd = &q->side[f->side];
    char name[96], err[96], free_s[64] = "", runs[96], others[700];

    dm_table_name(f->name, 80, name, sizeof name);
    if (strcmp(f->err, "?") == 0) snprintf(err, sizeof err, "error %.0f", f->error);
    else snprintf(err, sizeof err, "%s (%.0f)", f->err, f->error);
    if (!isnan(f->free_mib)) snprintf(free_s, sizeof free_s, ", with %.0f MiB free", f->free_mib);
    if (q->automatic)
        snprintf(runs, sizeof runs, "%s", f->margin == sd->lo ? ", the largest margin it failed at" : "");
    else
        snprintf(runs, sizeof runs, " (in %d of %d runs%s)", f->runs, sd->runs,
                 f->runs_ok ? "; the program still exited 0 in some" : "");
    pgs_others(q, f->side, f->margin, others, sizeof others);
    snprintf(t, len, "Under %s at a margin of %.0f MiB%s: %s of %s failed with %s%s%s.", sd->label,
             f->margin, runs, f->call, name, err, free_s, others);
}

/* The sentence of side si's failed runs at margin m that hold no failed
 * call (a library's own error, or the program's), into t. */
static void pgs_no_fail_words(const pgs_state *q, size_t si, double m, const char *how, char *t,
                              size_t len)
{
    char others[700];
    pgs_others(q, si, m, others, sizeof others);
    snprintf(t, len, "Under %s at a margin of %.0f MiB the program failed (%s), and no load, first "
             "use, context or device allocation failed inside it: a library's own error, or the "
             "program's (its stderr says which)%s.", q->side[si].label, m, how, others);
}

/* 1 when a failed call of side si at margin m was kept. */
static int pgs_has_fail(const pgs_state *q, size_t si, double m)
{
    size_t k;
    for (k = 0; k < q->nfail; k++)
        if (q->fail[k].side == si && q->fail[k].margin == m) return 1;
    return 0;
}

/* The failed calls in words: with auto, those at each side's largest
 * failing margin; else every one; a side's failed runs with none said as
 * such (probed sides only: bare ones have no records). At most PGS_SAID
 * answers, the rest counted. Each failed call is also "squeeze_fail.<k>". */
static void pgs_fail_answers(const pgs_state *q, results *r, int probed)
{
    char t[1600], key[64];
    size_t k, i, said = 0, more = q->nfail_lost;

    for (k = 0; k < q->nfail; k++) {
        const pgs_fail *f = &q->fail[k];
        res_derived *d;
        pgs_fail_words(q, f, t, sizeof t);
        pgs_key(key, sizeof key, PGS_D_FAIL, NULL, k + 1);
        if ((d = pgs_derive(r, PGS_D_FAIL, key, f->name, f->free_mib, t))) {
            res_derived_field(d, "margin_mib", f->margin);
            res_derived_field(d, "error", f->error);
            res_derived_field(d, "runs", f->runs);
        }
        if (q->automatic && f->margin != q->side[f->side].lo) continue;
        if (said == PGS_SAID) {
            more++;
            continue;
        }
        pgs_key(key, sizeof key, PGS_D_FAIL_ANSWER, NULL, ++said);
        pgs_derive(r, PGS_D_FAIL_ANSWER, key, "a first use or load that failed under --squeeze",
                   f->free_mib, t);
    }
    for (i = 0; i < q->nsettings && probed; i++) {
        const pgs_side *sd = &q->side[i];
        double m = q->automatic ? sd->lo : q->margin;
        const pgs_try *tr = q->automatic ? pgs_try_at(q, i, m) : NULL;
        if (m < 0 || pgs_has_fail(q, i, m) || (q->automatic ? !tr || tr->ran : sd->ran == sd->runs))
            continue;
        if (said == PGS_SAID) {
            more++;
            continue;
        }
        pgs_no_fail_words(q, i, m, q->automatic ? tr->outcome : sd->failed_how, t, sizeof t);
        pgs_key(key, sizeof key, PGS_D_FAIL_ANSWER, NULL, ++said);
        pgs_derive(r, PGS_D_FAIL_ANSWER, key, "a run that failed under --squeeze", NAN, t);
    }
    if (more) {
        snprintf(t, sizeof t, "%zu more failed call%s under --squeeze %s in the JSON (squeeze_fail.*).",
                 more, more == 1 ? "" : "s", more == 1 ? "is" : "are");
        pgs_derive(r, PGS_D_MORE, NULL, NULL, (double)more, t);
    }
}

/* 1 when there are more than two sides that ran, each in all of its
 * runs, and as many (*runs): their runs are then said in one sentence. */
static int pgs_all_ran(const pgs_state *q, int *runs)
{
    size_t i, n = 0;
    for (i = 0; i < q->nsides; i++) {
        const pgs_side *sd = &q->side[i];
        if (!sd->runs) continue;
        if (sd->ran != sd->runs || (n && sd->runs != *runs)) return 0;
        *runs = sd->runs;
        n++;
    }
    return n > 2;
}

/* --squeeze=MiB in words and figures: what was held, each side's runs. */
static void pgs_fixed_answer(const pgs_state *q, results *r)
{
    char t[1600];
    size_t i, at;
    double hmin = INFINITY, hmax = -INFINITY, lmin = INFINITY, lmax = -INFINITY;
    int lost = 0, runs = 0;

    for (i = 0; i < q->nsides; i++) {
        const pgs_side *sd = &q->side[i];
        char key[80];
        res_derived *d;
        lost += sd->lost;
        if (!sd->runs) continue;
        hmin = fmin(hmin, sd->held_min);
        hmax = fmax(hmax, sd->held_max);
        lmin = fmin(lmin, sd->left_min);
        lmax = fmax(lmax, sd->left_max);
        pgs_key(key, sizeof key, PGS_D_RAN, sd->key, 0);
        if ((d = pgs_derive(r, PGS_D_RAN, key, NULL, sd->ran, sd->failed_how))) {
            res_derived_field(d, "runs", sd->runs);
            res_derived_field(d, "held_min_mib", sd->held_min);
            res_derived_field(d, "held_max_mib", sd->held_max);
            res_derived_field(d, "left_min_mib", sd->left_min);
            res_derived_field(d, "left_max_mib", sd->left_max);
            res_derived_field(d, "lost", sd->lost);
        }
    }
    if (!isfinite(hmin)) return;
    at = (size_t)snprintf(t, sizeof t, "Under --squeeze=%.0f a holder held all of device 0's free "
                          "memory but %.0f MiB before each run (it held %.0f to %.0f MiB; the program "
                          "found %.0f to %.0f MiB free).", q->margin, q->margin, hmin, hmax, lmin, lmax);
    if (pgs_all_ran(q, &runs))
        at += (size_t)snprintf(t + at, sizeof t - at, " Every side ran in %d of %d runs.", runs, runs);
    for (i = 0; i < q->nsides && at < sizeof t && !pgs_all_ran(q, &runs); i++) {
        const pgs_side *sd = &q->side[i];
        char res[300];
        if (!sd->runs) continue;
        pgs_result_at(q, i, q->margin, res, sizeof res);
        at += (size_t)snprintf(t + at, sizeof t - at, " %s %s.", sd->label, res);
    }
    if (lost && at < sizeof t)
        snprintf(t + at, sizeof t - at, " %d run%s not counted: the holder ended during %s (said above).",
                 lost, lost == 1 ? "" : "s", lost == 1 ? "it" : "them");
    pgs_derive(r, PGS_D_ANSWER, NULL, NULL, q->margin, t);
}

/* --squeeze=auto in words and figures: each side's smallest margin, what
 * bracketed it, its tries. Returns the sides whose search stopped short. */
static int pgs_auto_answer(const pgs_state *q, results *r)
{
    char t[1600], key[96];
    size_t i, k, at;
    int broken = 0;

    at = (size_t)snprintf(t, sizeof t, "The smallest margin each side ran at (--squeeze=auto: the "
                          "free memory a holder left on device 0; bisection from %.0f MiB, one run a "
                          "margin, at most %d a side; device 0 had %.0f MiB free): ", PGS_FIRST_MIB,
                          CLI_SQUEEZE_TRIES, q->free_mib);
    for (i = 0; i < q->nsettings && at < sizeof t; i++) {
        const pgs_side *sd = &q->side[i];
        double low = sd->lo < 0 ? 0 : sd->lo;
        res_derived *d;
        pgs_key(key, sizeof key, PGS_D_SIDE, sd->key, 0);
        d = pgs_derive(r, PGS_D_SIDE, key, NULL, sd->hi < 0 ? NAN : sd->hi, sd->broken);
        if (d) {
            res_derived_field(d, "failed_at_mib", sd->lo < 0 ? NAN : sd->lo);
            res_derived_field(d, "step_mib", sd->hi < 0 ? NAN : sd->hi - low);
            res_derived_field(d, "tries", (double)sd->ntries);
        }
        for (k = 0; k < sd->ntries; k++) {
            const pgs_try *tr = &sd->tries[k];
            pgs_key(key, sizeof key, PGS_D_TRY, sd->key, k + 1);
            if ((d = pgs_derive(r, PGS_D_TRY, key, NULL, tr->margin, tr->outcome))) {
                res_derived_field(d, "held_mib", tr->held);
                res_derived_field(d, "left_mib", tr->left);
                res_derived_field(d, "ran", tr->ran);
                res_derived_field(d, "cross", tr->cross);
            }
        }
        at += (size_t)snprintf(t + at, sizeof t - at, "%s", i ? "; " : "");
        if (sd->broken[0]) {
            broken++;
            at += (size_t)snprintf(t + at, sizeof t - at, "%s: no answer, its holder did not hold %s",
                                   sd->label, sd->broken);
        } else if (sd->hi < 0) {
            broken++;
            at += (size_t)snprintf(t + at, sizeof t - at, "%s: it failed even with nothing held "
                                   "(margin %.0f MiB)", sd->label, sd->lo);
        } else {
            at += (size_t)snprintf(t + at, sizeof t - at, "%s %.0f MiB (", sd->label, sd->hi);
            if (sd->lo >= 0)
                at += (size_t)snprintf(t + at, sizeof t - at, "failed at %.0f", sd->lo);
            else
                at += (size_t)snprintf(t + at, sizeof t - at, "none below it failed; 0 not tried");
            at += (size_t)snprintf(t + at, sizeof t - at, "; step %.0f MiB; %zu run%s)", sd->hi - low,
                                   sd->ntries, sd->ntries == 1 ? "" : "s");
        }
    }
    if (at < sizeof t) snprintf(t + at, sizeof t - at, ".");
    pgs_derive(r, PGS_D_ANSWER, NULL, "the smallest margin each side ran at", NAN, t);
    return broken;
}

int pgs_conclude(const pgs_state *q, results *r)
{
    char v[32];
    int broken = 0;

    if (!q->on) return 0;
    if (q->automatic) snprintf(v, sizeof v, "auto");
    else snprintf(v, sizeof v, "%.0f", q->margin);
    res_env_str(r, "program_squeeze", v);
    res_env_num(r, "program_squeeze_free_mib", q->free_mib);
    res_env_num(r, "program_squeeze_total_mib", q->total_mib);
    if (q->automatic) {
        res_env_num(r, "program_squeeze_first_mib", PGS_FIRST_MIB);
        res_env_num(r, "program_squeeze_step_mib", PGS_STEP_MIB);
        res_env_num(r, "program_squeeze_tries_max", CLI_SQUEEZE_TRIES);
        broken = pgs_auto_answer(q, r);
    } else {
        pgs_fixed_answer(q, r);
    }
    pgs_fail_answers(q, r, q->probed);
    return broken;
}

/* ---------------------------------------------------------- the report --- */

void pgs_print(FILE *f, const results *r)
{
    const char *v = tb_env_str(r, "program_squeeze", NULL);
    size_t n = (size_t)tb_env_num(r, "program_settings"), i, k;

    if (!v || strcmp(v, "auto") != 0 || !(n >= 1 && n <= PG_MAX_SIDES)) return;
    fprintf(f, "\n  --squeeze=auto: each side's runs, in order (margin MiB: the program ran or "
            "failed; * a run at another side's failing margin)\n");
    for (i = 0; i < n; i++) {
        char k1[64], k2[96], line[2000];
        const char *key, *label;
        const res_derived *d;
        size_t at = 0;
        snprintf(k1, sizeof k1, "program_side%zu_key", i + 1);
        snprintf(k2, sizeof k2, "program_side%zu_label", i + 1);
        if (!(key = tb_env_str(r, k1, NULL))) continue;
        label = tb_env_str(r, k2, "?");
        line[0] = '\0';
        for (k = 1; k <= PGS_MAX_TRIES && at < sizeof line; k++) {
            snprintf(k2, sizeof k2, "squeeze.%s.try%zu", key, k);
            if (!(d = res_derived_find(r, PG, k2))) break;
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%.0f%s %s", k > 1 ? ", " : "",
                                   d->value, res_derived_num(d, "cross") == 1 ? "*" : "",
                                   res_derived_num(d, "ran") == 1 ? "ran" : "failed");
        }
        if (line[0]) tb_wrap(f, "  ", "      ", tb_width(), "%-8s %s", label, line);
    }
}

/* ----------------------------------------------------------- the kinds --- */

/* What the kinds keep over the runs: the margins and what the runs came
 * to, and the holder of the run under way. */
typedef struct pgs_setting {
    pgs_state q;
    sq_holder holder;
    int holding;            /* the holder was started for the run and not yet released */
    int held;               /* it held through the run */
    sq_held kept;           /* what it held */
} pgs_setting;

static int pgs_fixed_asked(const cli_opts *o)
{
    return o->squeeze_mib >= 0;
}

static int pgs_auto_asked(const cli_opts *o)
{
    return o->squeeze_auto;
}

/* Device 0's memory as a holder that holds nothing finds it (the search's
 * upper bound; --squeeze=MiB above its free memory is a usage error), then
 * the sides handed to pgs_begin. */
static int pgs_start(sec_ctx *c, const pgk_plan *plan, const char *no_driver, void **state)
{
    const cli_opts *o = c->o;
    const char *key[PG_MAX_SIDES], *label[PG_MAX_SIDES], *env[1] = { plan->side[0].set };
    pgs_setting *s;
    char why[700];
    sq_holder h;
    sq_held first;
    size_t i;

    if (no_driver) {
        snprintf(why, sizeof why, "--squeeze holds device memory through the CUDA driver, and "
                 "there is none: %s; the program was not run", no_driver);
        sec_skip(c, PG, why);
        return SEC_NO_GPU;
    }
    if (sq_start(CLI_SQUEEZE_MAX, env, plan->side[0].set[0] ? 1 : 0, o->child_timeout, &h, why,
                 sizeof why) != 0) {
        fprintf(stderr, "harness: " PG ": --squeeze: the memory holder could not start on device "
                "0: %s\n", why);
        res_check_add(c->r, PG, "--squeeze: the memory holder started on device 0", 0, why);
        return SEC_FAILED;
    }
    first = h.held;
    sq_release(&h);
    if (!(*state = s = calloc(1, sizeof *s))) {
        fprintf(stderr, "harness: " PG ": out of memory\n");
        return SEC_FAILED;
    }
    for (i = 0; i < plan->nsides; i++) {
        key[i] = plan->side[i].key;
        label[i] = plan->side[i].label;
    }
    if (pgs_begin(&s->q, o, key, label, plan->nsides, plan->nsettings, plan->probe, &first, why,
                  sizeof why) != 0) {
        fprintf(stderr, "harness: %s\n", why);
        return SEC_USAGE;
    }
    return SEC_OK;
}

/* A holder of all device 0's free memory but the run's margin, started
 * before it in the side's setting (squeeze_holder.h): --squeeze=MiB's
 * margin, none for --squeeze=auto's warm-ups, the margin a search's run
 * tries. Returns 0; 1 when it could not hold (a failed check naming it,
 * said on stderr: the run is not started, and a run that was to count is
 * noted failed). */
static int pgs_before(sec_ctx *c, void *state, pgk_run *run)
{
    pgs_setting *s = state;
    const char *env[1] = { run->side->set };
    char why[600], detail[900], check[300];

    if (run->purpose != PGK_TRY) run->margin = s->q.automatic ? -1 : s->q.margin;
    s->held = 1;
    memset(&s->kept, 0, sizeof s->kept);
    if (run->margin < 0) return 0;
    snprintf(run->under, sizeof run->under, "with all but %.0f MiB of device 0's free memory held "
             "(--squeeze)", run->margin);
    if (sq_start(run->margin, env, run->side->set[0] ? 1 : 0, c->o->child_timeout, &s->holder, why,
                 sizeof why) == 0) {
        s->holding = 1;
        return 0;
    }
    snprintf(detail, sizeof detail, "the memory holder of --squeeze=%.0f could not hold device 0's "
             "memory: %s; the run was not started", run->margin, why);
    snprintf(check, sizeof check, "%.160s: the memory holder held through it", run->name);
    res_check_add(c->r, PG, check, 0, detail);
    fprintf(stderr, "harness: " PG ": %.160s: %s\n", run->name, detail);
    sg_check();
    if (run->purpose != PGK_WARMUP)
        pgs_note_run(&s->q, run->si, run->margin, NULL, 0, "its holder could not hold", NULL, 0);
    return 1;
}

/* After the run: the holder held through it (what it held kept), and is
 * released; where it ended during the run, the run fails and is no answer
 * (a failed check naming the holder, one line on stderr, what became of it
 * into run->how). */
static void pgs_ended(sec_ctx *c, void *state, pgk_run *run)
{
    pgs_setting *s = state;
    char why[300], detail[900], check[300];
    int pid = s->holder.pid, alive;

    if (!s->holding) return;
    alive = sq_alive(&s->holder, why, sizeof why);
    s->kept = s->holder.held;
    sq_release(&s->holder);
    s->holding = 0;
    if (alive) return;
    s->held = run->ok = 0;
    run->lost = 1;
    snprintf(run->how, sizeof run->how, "the memory holder of --squeeze ended during the run (%s)", why);
    snprintf(detail, sizeof detail, "the memory holder of --squeeze=%.0f (pid %d) ended during the "
             "run (%s): the margin was not held, so the run counts as failed; the driver took its "
             "memory back", run->margin, pid, why);
    snprintf(check, sizeof check, "%.160s: the memory holder held through it", run->name);
    res_check_add(c->r, PG, check, 0, detail);
    fprintf(stderr, "harness: " PG ": %.160s: %s\n", run->name, detail);
}

/* What the run at a margin came to, noted (not for a warm-up); a holder
 * left by a run that did not start, released. */
static void pgs_done(sec_ctx *c, void *state, const pgk_run *run)
{
    pgs_setting *s = state;
    (void)c;
    if (s->holding) sq_release(&s->holder);
    s->holding = 0;
    if (run->p && run->margin >= 0 && run->purpose != PGK_WARMUP)
        pgs_note_run(&s->q, run->si, run->margin, s->held ? &s->kept : NULL, run->ok, run->how,
                     run->recs, run->nrec);
}

/* --squeeze=auto: each setting's search, one run a margin, the settings
 * one after the other; then a run of each setting at another's largest
 * failing margin where it was not tried there. */
static int pgs_search(sec_ctx *c, void *state, pgk_try_fn try_run, void *arg, char *stop,
                      size_t stoplen)
{
    pgs_setting *s = state;
    size_t i;
    double m;
    int tries = 0;

    (void)c;
    for (i = 0; i < s->q.nsettings; i++)
        while ((m = pgs_next(&s->q, i)) >= 0) {
            tries++;
            if (try_run(arg, i, m) != 0) return -1;
        }
    while (pgs_next_cross(&s->q, &i, &m)) {
        tries++;
        if (try_run(arg, i, m) != 0) return -1;
    }
    snprintf(stop, stoplen, "the search of --squeeze=auto: %d runs, no measured round", tries);
    return 0;
}

/* The conclusions (pgs_conclude); with auto, whether every side's search
 * found its margin, a check. Returns 1 when one did not (a failure). */
static int pgs_conclude_kind(sec_ctx *c, void *state, const pgk_plan *plan)
{
    pgs_setting *s = state;
    char t[600];
    int broken = pgs_conclude(&s->q, c->r);
    if (!s->q.automatic) return 0;
    snprintf(t, sizeof t, "%d of %zu sides' searches ended without a margin (said in the answer)",
             broken, plan->nsettings);
    res_check_add(c->r, PG, "--squeeze=auto: every side's search found its smallest margin",
                  broken == 0, broken ? t : "each side ran at a margin and its search ended");
    return broken ? 1 : 0;
}

static void pgs_stop(void *state)
{
    pgs_setting *s = state;
    if (s->holding) sq_release(&s->holder);
    free(s);
}

const pgk_kind pgk_squeeze = {
    .name = "squeeze",
    .asked = pgs_fixed_asked,
    .start = pgs_start,
    .before = pgs_before,
    .ended = pgs_ended,
    .done = pgs_done,
    .conclude = pgs_conclude_kind,
    .stop = pgs_stop,
    /* Both kinds' lines and declarations (pgs_print tells them apart). */
    .print = pgs_print,
    .schema = pgs_schema,
};

const pgk_kind pgk_squeeze_auto = {
    .name = "squeeze-auto",
    .asked = pgs_auto_asked,
    .start = pgs_start,
    .before = pgs_before,
    .ended = pgs_ended,
    .done = pgs_done,
    .search = pgs_search,
    .search_run = "--squeeze=auto run",
    .search_tag = "squeeze",
    .conclude = pgs_conclude_kind,
    .stop = pgs_stop,
};
