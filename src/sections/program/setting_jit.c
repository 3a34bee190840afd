/* setting_jit.c: the kind --jit-cache=cold,warm: a side per cache state,
 * each run with the driver's compute cache and the JIT layers' own caches
 * (PyTorch's Triton and Inductor, CuPy) in directories of the side's:
 * fresh each run (cold) or kept over the side's runs, filled by its
 * warm-ups (warm). The time making code ready is a headline figure; each
 * cache's size after a run is a figure; the sentence says what was
 * compiled and written. A row of setting.h. */
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "os/proc.h"
#include "sections/program/figures.h"
#include "sections/program/sentences.h"
#include "sections/program/setting.h"
#include "sections/program/tally.h"

/* The caches a side sets: the variable, its folder under the side's
 * directory, its size's figure. */
#define PGK_NCACHES 4
static const struct { const char *var, *folder; pgf_id fig; } pgk_caches[PGK_NCACHES] = {
    { "CUDA_CACHE_PATH", "cuda", PGF_CACHE_CUDA }, { "TRITON_CACHE_DIR", "triton", PGF_CACHE_TRITON },
    { "TORCHINDUCTOR_CACHE_DIR", "inductor", PGF_CACHE_INDUCTOR },
    { "CUPY_CACHE_DIR", "cupy", PGF_CACHE_CUPY },
};

/* What the kind keeps over the runs. */
typedef struct pgk_jit {
    int cold[PG_MAX_SIDES];         /* 1: the side's caches are fresh each run */
    char warm[PG_MAX_SIDES][512];   /* a warm side's caches, kept over its runs */
    char fresh[512];                /* the run's fresh caches, "" when none */
    const char *root;               /* the run's caches: fresh or its side's warm ones */
} pgk_jit;

static int pgk_jit_asked(const cli_opts *o)
{
    return o->compare == CLI_CMP_JIT_CACHE;
}

static size_t pgk_jit_settings(const cli_opts *o)
{
    return o->nsettings;
}

static void pgk_jit_side(const cli_opts *o, const pgk_plan *plan, size_t i, pgk_side *d)
{
    (void)plan;
    snprintf(d->key, sizeof d->key, "%s", o->setting[i]);
    snprintf(d->label, sizeof d->label, "%s", o->setting[i]);
}

/* Which sides are cold; the warm sides' caches made, kept until stop. */
static int pgk_jit_start(sec_ctx *c, const pgk_plan *plan, const char *no_driver, void **state)
{
    pgk_jit *j = calloc(1, sizeof *j);
    char why[512];
    size_t i;

    (void)no_driver;
    if (!(*state = j)) {
        fprintf(stderr, "harness: " PG ": out of memory\n");
        return SEC_ERROR;
    }
    for (i = 0; i < plan->nsides; i++) {
        j->cold[i] = strcmp(c->o->setting[plan->side[i].which], "cold") == 0;
        if (!j->cold[i] && pr_mkdtemp("jit-warm", j->warm[i], sizeof j->warm[i], why, sizeof why) != 0) {
            fprintf(stderr, "harness: " PG ": %s\n", why);
            return SEC_ERROR;
        }
    }
    return SEC_OK;
}

/* The run's caches (fresh on a cold side), named in its environment. */
static int pgk_jit_before(sec_ctx *c, void *state, pgk_run *run)
{
    pgk_jit *j = state;
    char why[512];
    size_t i;

    (void)c;
    j->root = j->warm[run->si];
    if (j->cold[run->si]) {
        if (pr_mkdtemp("jit-cold", j->fresh, sizeof j->fresh, why, sizeof why) != 0) {
            fprintf(stderr, "harness: " PG ": %s\n", why);
            return -1;
        }
        j->root = j->fresh;
    }
    for (i = 0; i < PGK_NCACHES && run->nenv < PGK_MAX_ENV; i++)
        snprintf(run->env[run->nenv++], PGK_ENV_LEN, "%s=%s/%s", pgk_caches[i].var, j->root,
                 pgk_caches[i].folder);
    return 0;
}

/* Bytes of the regular files under a tree, for pgk_jit_mib (nftw). */
static _Thread_local double pgk_jit_bytes;
static int pgk_jit_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (flag == FTW_F && S_ISREG(st->st_mode)) pgk_jit_bytes += (double)st->st_size;
    return 0;
}

/* MiB of the regular files under path (no link followed); -1 when it is
 * not there. */
static double pgk_jit_mib(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return -1;
    pgk_jit_bytes = 0;
    if (nftw(path, pgk_jit_add, 16, FTW_PHYS) != 0) return -1;
    return pgk_jit_bytes / 1048576.0;
}

/* Each cache's size after a measured run ("cache.<folder>", MiB). */
static void pgk_jit_keep(sec_ctx *c, void *state, const pgk_run *run)
{
    const pgk_jit *j = state;
    char prefix[64], dir[4300];
    size_t i;
    snprintf(prefix, sizeof prefix, "%s.", run->side->key);
    for (i = 0; i < PGK_NCACHES; i++) {
        double mib;
        snprintf(dir, sizeof dir, "%s/%s", j->root, pgk_caches[i].folder);
        mib = pgk_jit_mib(dir);
        pgt_put_run(c->r, prefix, pgk_caches[i].fig, mib < 0 ? 0 : mib);
    }
}

/* The run's fresh caches removed. */
static void pgk_jit_done(sec_ctx *c, void *state, const pgk_run *run)
{
    pgk_jit *j = state;
    (void)c;
    (void)run;
    if (j->fresh[0]) pr_rmtree(j->fresh);
    j->fresh[0] = '\0';
}

static void pgk_jit_stop(void *state)
{
    pgk_jit *j = state;
    size_t i;
    for (i = 0; i < PG_MAX_SIDES; i++)
        if (j->warm[i][0]) pr_rmtree(j->warm[i]);
    free(j);
}

/* Whether a run left files in cache i: a sample above 0 of its figure, on
 * any side. */
static int pgk_jit_written(const results *r, const pgk_plan *plan, size_t i)
{
    size_t s, k;
    for (s = 0; s < plan->nsides; s++) {
        char key[96];
        const res_meas *m;
        snprintf(key, sizeof key, "%s.%s", plan->side[s].key, pgf_figs[pgk_caches[i].fig].key);
        if (!(m = res_find(r, PG, key))) continue;
        for (k = 0; k < m->nsamples; k++)
            if (m->samples[k] > 0) return 1;
    }
    return 0;
}

/* Each cache: written or not, and its size (the largest median after a
 * run of the first and last settings), from "Caches written: " on into t. */
static size_t pgk_jit_caches(const results *r, const pgk_plan *plan, char *t, size_t at, size_t len)
{
    size_t i;
    for (i = 0; i < PGK_NCACHES && at < len; i++) {
        const char *k = pgf_figs[pgk_caches[i].fig].key;
        int written = pgk_jit_written(r, plan, i);
        at += (size_t)snprintf(t + at, len - at, "%s%s %s", i ? ", " : "", pgk_caches[i].var,
                               written ? "" : "none");
        if (written && at < len)
            at += (size_t)snprintf(t + at, len - at, "%.3g MiB",
                                   fmax(pga_med(r, plan->side[0].key, k),
                                        pga_med(r, plan->side[plan->nsettings - 1].key, k)));
    }
    return at;
}

/* The PTX compiled, the time making code ready, and each cache: written
 * or not, its size. */
static void pgk_jit_answer(results *r, const pgk_plan *plan)
{
    char t[2400], med[400], v[400];
    size_t i, at;
    double ptx = 0;
    int any = 0;
    for (i = 0; i < plan->nsettings; i++) {
        double x = pga_med(r, plan->side[i].key, PRC_KEY(PTX_N));
        if (!isnan(x)) ptx = fmax(ptx, x);
    }
    for (i = 0; i < PGK_NCACHES; i++) any |= pgk_jit_written(r, plan, i);
    if (ptx == 0 && !any) {
        pga_store(r, PGF_D_JIT, NULL, 0, "No PTX was compiled and no "
                  "cache was written: the cache cannot matter for this program.");
        return;
    }
    pga_medians(r, plan, PGF_KEY(CODE_MS), "ms", med, sizeof med);
    pga_verdicts(r, plan, PGF_KEY(CODE_MS), v, sizeof v);
    at = (size_t)snprintf(t, sizeof t, "JIT: %.0f image%s of PTX handed to the driver a run (median, "
                          "the most of the sides)%s; ", ptx, ptx == 1 ? "" : "s",
                          ptx == 0 ? " (no PTX was compiled by the driver: its cache cannot matter)" : "");
    if (ptx > 0 && at < sizeof t) {
        char pm[400], pv[400];
        pga_medians(r, plan, PRC_KEY(PTX_MS), "ms", pm, sizeof pm);
        pga_verdicts(r, plan, PRC_KEY(PTX_MS), pv, sizeof pv);
        at += (size_t)snprintf(t + at, sizeof t - at, "their loads took %s (%s); ", pm, pv);
    }
    if (at < sizeof t)
        at += (size_t)snprintf(t + at, sizeof t - at, "all loads, gets and first launches took %s "
                               "(medians; %s). Caches written: ", med, v);
    at = pgk_jit_caches(r, plan, t, at, sizeof t);
    if (at < sizeof t) snprintf(t + at, sizeof t - at, " (the largest median after a run).");
    pga_store(r, PGF_D_JIT, NULL, ptx, t);
}

const pgk_kind pgk_jit_cache = {
    .name = "jit-cache",
    .asked = pgk_jit_asked,
    .settings = pgk_jit_settings,
    .side = pgk_jit_side,
    .headline_code = 1,
    .start = pgk_jit_start,
    .before = pgk_jit_before,
    .keep = pgk_jit_keep,
    .done = pgk_jit_done,
    .answer = pgk_jit_answer,
    .stop = pgk_jit_stop,
};
