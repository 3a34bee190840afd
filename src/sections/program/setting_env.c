/* setting_env.c: the kinds of setting that set a variable of the
 * environment: none (one side, in the CUDA_MODULE_LOADING --module-loading
 * sets or the user's own), --compare-env=NAME=A,B[,...] (a side per value
 * of the variable) and --compare-loading (the same of CUDA_MODULE_LOADING,
 * LAZY and EAGER, with the sentences of what each mode costs): rows of
 * setting.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/demangle.h"
#include "sections/program/figures.h"
#include "sections/program/sentences.h"
#include "sections/program/setting.h"

/* A value as a key: lower case, letters, digits, '-' and '_' kept, others
 * '_', at most 16; "empty" for none. */
static void pgk_value_key(const char *v, char *key, size_t len)
{
    size_t i, n = 0;
    for (i = 0; v[i] && n + 1 < len && n < 16; i++) {
        unsigned char ch = (unsigned char)v[i];
        key[n++] = isalnum(ch) ? (char)tolower(ch) : ch == '-' ? '-' : '_';
    }
    key[n] = '\0';
    if (!n) snprintf(key, len, "empty");
}

/* 1 when key is taken by one of the first n sides. */
static int pgk_key_taken(const pgk_plan *plan, size_t n, const char *key)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(plan->side[i].key, key) == 0) return 1;
    return 0;
}

static int pgk_none_asked(const cli_opts *o)
{
    return o->compare == CLI_CMP_NONE;
}

static size_t pgk_none_settings(const cli_opts *o)
{
    (void)o;
    return 1;
}

/* The one side: the mode --module-loading sets ("lazy", "LAZY"), else the
 * user's own ("default", "as set"). */
static void pgk_none_side(const cli_opts *o, const pgk_plan *plan, size_t i, pgk_side *d)
{
    (void)o;
    (void)plan;
    (void)i;
    pgk_value_key(d->mode ? d->mode : "default", d->key, sizeof d->key);
    snprintf(d->label, sizeof d->label, "%s", d->mode ? d->mode : "as set");
}

const pgk_kind pgk_none = {
    .name = "none",
    .asked = pgk_none_asked,
    .settings = pgk_none_settings,
    .side = pgk_none_side,
};

static int pgk_env_asked(const cli_opts *o)
{
    return o->compare == CLI_CMP_ENV;
}

static int pgk_loading_asked(const cli_opts *o)
{
    return o->compare == CLI_CMP_LOADING;
}

static size_t pgk_env_settings(const cli_opts *o)
{
    return o->nsettings;
}

/* Value i of the variable: its key (the value as a key, "-2", "-3" after
 * it where an earlier value took it), its label (the value as given,
 * control characters as '?', " (i)" after it where an earlier value is the
 * same), NAME=VALUE; the mode where the variable is CUDA_MODULE_LOADING. */
static void pgk_env_side(const cli_opts *o, const pgk_plan *plan, size_t i, pgk_side *d)
{
    char key[32];
    size_t k;

    pgk_value_key(o->setting[i], key, sizeof key);
    for (k = 2; pgk_key_taken(plan, i, key); k++) {
        char base[32];
        pgk_value_key(o->setting[i], base, sizeof base);
        snprintf(key, sizeof key, "%.16s-%zu", base, k);
    }
    snprintf(d->key, sizeof d->key, "%s", key);
    snprintf(d->label, sizeof d->label, "%.36s", o->setting[i]);
    for (k = 0; d->label[k]; k++)
        if (iscntrl((unsigned char)d->label[k])) d->label[k] = '?';
    for (k = 0; k < i; k++)
        if (strcmp(o->setting[k], o->setting[i]) == 0) {
            size_t at = strlen(d->label);
            snprintf(d->label + at, sizeof d->label - at, " (%zu)", i + 1);
            break;
        }
    snprintf(d->set, sizeof d->set, "%s=%s", o->setting_name, o->setting[i]);
    if (strcmp(o->setting_name, "CUDA_MODULE_LOADING") == 0) d->mode = o->setting[i];
}

/* The loads under each mode (host time inside module and library loads). */
static void pgk_loading_loads(results *r)
{
    const char *lib = PRC_KEY(LIBRARY_LOAD_MS), *mod = PRC_KEY(MODULE_LOAD_MS);
    char t[300];
    double be = pga_med(r, "eager", lib) + pga_med(r, "eager", mod);
    double bl = pga_med(r, "lazy", lib) + pga_med(r, "lazy", mod);
    if (isnan(be) || isnan(bl)) return;
    snprintf(t, sizeof t, "Module and library loads took %.0f ms under EAGER and %.0f ms "
             "under LAZY (host time inside the calls, medians).", be, bl);
    pga_store(r, PGF_D_LOADS, NULL, bl - be, t);
}

/* What each mode costs in device memory: at its peak, and at the first
 * kernel where the records say. */
static void pgk_loading_memory(results *r)
{
    const char *first = PRC_KEY(MEM_FIRST_KERNEL), *peak = PGF_KEY(MEM_PEAK);
    char t[1200];
    double me = pga_med(r, "eager", first), ml = pga_med(r, "lazy", first);
    double pe = pga_med(r, "eager", peak), pl = pga_med(r, "lazy", peak);
    if (isnan(pe) || isnan(pl)) return;
    snprintf(t, sizeof t, "Device memory: EAGER %.0f MiB at its peak, LAZY %.0f MiB (%s)%s%s.",
             pe, pl, pga_verdict(r, peak), !isnan(me) && !isnan(ml) ? "; at the first kernel " : "", "");
    if (!isnan(me) && !isnan(ml))
        snprintf(t + strlen(t) - 1, sizeof t - strlen(t) + 1, "EAGER %.0f MiB, LAZY %.0f MiB (%s).",
                 me, ml, pga_verdict(r, first));
    pga_store(r, PGF_D_MEMORY, NULL, pe - pl, t);
}

/* What LAZY pays later: the time inside the gets and first launches (its
 * loads), against EAGER's, and its slowest first uses. */
static void pgk_loading_later(results *r)
{
    static const struct { prc_fig_id fig; const char *calls; } later[] = {
        { PRC_F_KERNEL_FUNCTION_MS, "cuKernelGetFunction" },
        { PRC_F_GET_FUNCTION_MS, "cuModuleGetFunction" },
        { PRC_F_FUNC_LOAD_MS, "cuFuncLoad" }, { PRC_F_LAUNCH_FIRST_MS, "first launches" },
    };
    char t[1200];
    double gl = pga_med(r, "lazy", PRC_KEY(KERNEL_FUNCTION_MS));
    double fl = pga_med(r, "lazy", PRC_KEY(LAUNCH_FIRST_MS));
    size_t k, shown = 0, at;

    if (isnan(gl) && isnan(fl)) return;
    at = (size_t)snprintf(t, sizeof t, "What LAZY pays later (host time inside the calls, medians): ");
    for (k = 0; k < sizeof later / sizeof later[0] && at < sizeof t; k++) {
        double l = pga_med(r, "lazy", prc_figs[later[k].fig].key);
        double e = pga_med(r, "eager", prc_figs[later[k].fig].key);
        char eager[32] = "none";
        if (isnan(l)) continue;
        if (!isnan(e)) snprintf(eager, sizeof eager, "%.2f ms", e);
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %.2f ms (EAGER %s)",
                               shown++ ? ", " : "", later[k].calls, l, eager);
    }
    for (k = 1; k <= 3 && at < sizeof t; k++) {
        char key[64], name[64];
        const res_derived *d;
        pgf_rank_key(PGF_D_SLOWEST, "lazy", k, key, sizeof key);
        if (!(d = res_derived_find(r, PG, key))) break;
        dm_shorten(d->text[0] ? d->text : d->name, 60, name, sizeof name);
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %.2f ms", k == 1 ? "; the slowest "
                               "first uses under LAZY: " : ", ", name, d->value);
    }
    if (at < sizeof t) snprintf(t + at, sizeof t - at, ".");
    pga_store(r, PGF_D_LATER, NULL, (isnan(gl) ? 0 : gl) + (isnan(fl) ? 0 : fl), t);
}

/* The sentences of a comparison of the modes: where the loads went, what
 * each mode costs in memory, what LAZY pays later. */
static void pgk_loading_answer(results *r, const pgk_plan *plan)
{
    (void)plan;
    pgk_loading_loads(r);
    pgk_loading_memory(r);
    pgk_loading_later(r);
}

const pgk_kind pgk_env = {
    .name = "env",
    .asked = pgk_env_asked,
    .settings = pgk_env_settings,
    .side = pgk_env_side,
};

const pgk_kind pgk_loading = {
    .name = "loading",
    .asked = pgk_loading_asked,
    .settings = pgk_env_settings,
    .side = pgk_env_side,
    .sooner = ": EAGER loads every module up front",
    .answer = pgk_loading_answer,
};
