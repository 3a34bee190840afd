/* crossover.c: section "crossover": at each n, the CPU loop, the kernel, and
 * the round trip from pageable and from pinned memory; which wins the
 * one-shot task. At the stopwatches' n the rows are that section's, where
 * it ran in this process: the same works at the same n, not timed again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/timing.h"
#include "os/phase.h"
#include "run/section.h"
#include "run/section_vec.h"
#include "sections/crossover/crossover.h"
#include "sections/stopwatches/stopwatches.h"

#define XO "crossover"

/* The rows of one size (crossover.h; sec_store_work's unit, "ms"). */
const sch_key xo_keys[XO_NROWS] = {
    { "cpu", "ms", RES_WARM, "CPU, one thread", "host clock around the C loop" },
    { "kernel", "ms", RES_WARM, "kernel", "events around the launch (batched when short)" },
    { "kernel.cold", "ms", RES_L2_COLD, "kernel, L2 cold",
      "events around one launch, the L2 written over before it" },
    { "rt_pageable", "ms", RES_WARM, "round trip, pageable",
      "events around two copies in, the kernel, and the copy back; pageable" },
    { "rt_pinned", "ms", RES_WARM, "round trip, pinned",
      "events around two copies in, the kernel, and the copy back; pinned" },
};

/* Each row's cache state --cache must ask for (1 warm, 2 cold, 0 any), and
 * the row of section stopwatches (sw_keys) that times the same work at
 * SW_N. */
static const struct {
    int cache, sw;
} xo_rows[XO_NROWS] = {
    { 0, SW_K_CPU }, { 1, SW_K_ROW4 }, { 2, SW_K_ROW4_COLD }, { 0, SW_K_ROW5 }, { 0, SW_K_ROW5PINNED },
};

/* The entry that says a size's rows are section stopwatches': the key's
 * pattern (XO_SHARED XO_NP "<N>"), unit, name; its text is SW. */
static const sch_key xo_shared = {
    XO_SHARED XO_NP "<N>", "elements", RES_PROCESS, "the rows at this n are section " SW "' (the "
    "same work at the same n, checked there), not timed again", SW
};

char *xo_key(char *buf, size_t len, long n, int row)
{
    snprintf(buf, len, XO_NP "%ld.%s", n, xo_keys[row].key);
    return buf;
}

/* Store row `row` of this size from the timed work w; NULL on out of
 * memory. */
static res_meas *xo_store(sec_ctx *c, size_t n, int row, const tm_work *w)
{
    const sch_key *x = &xo_keys[row];
    char key[64];
    res_meas *m;
    m = sec_store_work(c, XO, xo_key(key, sizeof key, (long)n, row), x->name, x->desc, x->state, w);
    if (m) m->n = (long)n;
    return m;
}

/* Is row `row` among those --cache asks for? */
static int xo_wanted(const sec_ctx *c, int row)
{
    return !xo_rows[row].cache || (sec_cache_states(c) & xo_rows[row].cache);
}

/* At the stopwatches' n, with the default sizes: when section stopwatches
 * stored every row this size needs in this run (the same works at the same
 * n, timed with the same options), each is copied under crossover's key
 * with a region that says whose samples they are, and "shared.n=<n>" is
 * stored. They are not checked again: their outputs were checked where they
 * were made, in section stopwatches. Returns 1 when stored, 0 when crossover
 * times this size itself (a row missing or in another state), -1 on out of
 * memory. */
static int xo_share(sec_ctx *c, size_t n)
{
    char key[64], region[320];
    res_derived *d;
    const res_meas *m;
    int i, rows = 0;

    if (c->o->sizes_given || n != SW_N) return 0;
    for (i = 0; i < XO_NROWS; i++) {
        if (!xo_wanted(c, i)) continue;
        m = res_find(c->r, SW, sw_keys[xo_rows[i].sw].key);
        if (!m || m->state != xo_keys[i].state || m->nsamples == 0) return 0;
    }
    for (i = 0; i < XO_NROWS; i++) {
        res_meas *x;
        if (!xo_wanted(c, i)) continue;
        snprintf(region, sizeof region, "%s; the samples of section " SW "' %s: the same work "
                 "at the same n, not timed again", xo_keys[i].desc, sw_keys[xo_rows[i].sw].key);
        /* Found again: the last copy may have moved the measurements. */
        m = res_find(c->r, SW, sw_keys[xo_rows[i].sw].key);
        if (!(x = res_add_copy(c->r, m, XO, xo_key(key, sizeof key, (long)n, i), xo_keys[i].name,
                               region)))
            goto oom;
        x->n = (long)n;
        rows++;
    }
    snprintf(key, sizeof key, XO_SHARED XO_NP "%zu", n);
    d = res_derive(c->r, XO, key, xo_shared.name, (double)n, xo_shared.unit, xo_shared.desc);
    if (!d || res_derived_field(d, "n", (double)n) != 0 ||
        res_derived_field(d, "rows", rows) != 0)
        goto oom;
    return 1;
oom:
    fprintf(stderr, "harness: error: " XO ": out of memory storing the rows of n = %zu\n", n);
    return -1;
}

/* Time and check one size. Returns SEC_OK, SEC_FAILED (a check failed or
 * the size does not fit; the other sizes still run) or -1 (driver error,
 * out of memory). */
static int xo_size(sec_ctx *c, CUfunction add, size_t n)
{
    int failed = 0, rc = -1;
    char what[128];
    res_meas *m;
    sec_vec v;
    tm_work w[2];
    kn_bad bad;
    size_t k = 0, j;

    memset(w, 0, sizeof w);
    if (sec_vec_alloc(c, XO, &v, n, add) != 0) return SEC_FAILED;

    /* CPU, one thread. */
    if (tm_work_init(&w[0], sec_vec_cpu, &v, 0) != 0 || tm_host(&w[0], c->o->warmup) != 0)
        goto out;
    if ((m = xo_store(c, n, XO_CPU, &w[0])) == NULL) goto out;
    m->host_only = 1;
    tm_work_free(&w[0]);
    kn_check_add(v.ha, v.hb, v.hout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, CPU loop vs double reference", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;

    /* The kernel alone: warm, L2-cold, or both interleaved. */
    if (xo_wanted(c, XO_KERNEL) && tm_work_init(&w[k++], sec_vec_kernel, &v, 0) != 0) goto out;
    if (xo_wanted(c, XO_COLD) && tm_work_init(&w[k++], sec_vec_kernel, &v, 1) != 0) goto out;
    if (tm_events(v.s, w, k, c->o->warmup) != 0) goto out;
    for (j = 0; j < k; j++) {
        if (!(m = xo_store(c, n, w[j].cold ? XO_COLD : XO_KERNEL, &w[j]))) goto out;
        m->bytes = kn_find("vectorAdd")->bytes_per_elem * (double)n;
        m->flops = kn_find("vectorAdd")->flops_per_elem * (double)n;
        tm_work_free(&w[j]);
    }
    snprintf(what, sizeof what, "n = %zu, kernel vs CPU, all elements", n);
    if (sec_vec_verify(c, XO, what, &v) != 1) failed = 1;

    /* The round trips, A B A B. */
    if (sec_vec_poison(&v) != 0) goto out;
    kn_poison(v.hout, n);
    kn_poison(v.pout, n);
    if (tm_work_init(&w[0], sec_vec_round_pageable, &v, 0) != 0 ||
        tm_work_init(&w[1], sec_vec_round_pinned, &v, 0) != 0) goto out;
    if (tm_events(v.s, w, 2, c->o->warmup) != 0) goto out;
    if (!xo_store(c, n, XO_PAGEABLE, &w[0]) || !xo_store(c, n, XO_PINNED, &w[1])) goto out;
    kn_check_add(v.ha, v.hb, v.hout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, round trip pageable vs CPU", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;
    kn_check_add(v.ha, v.hb, v.pout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, round trip pinned vs CPU", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;
    rc = failed ? SEC_FAILED : SEC_OK;
out:
    if (rc < 0) drv.cuStreamSynchronize(v.s);
    tm_work_free(&w[0]);
    tm_work_free(&w[1]);
    sec_vec_free(&v);
    return rc;
}

sec_status sec_crossover(sec_ctx *c)
{
    CUmodule mod = NULL;
    CUfunction add;
    int rc, failed = 0;
    /* --quick: the smallest and the largest size only. */
    int quick = c->o->quick && !c->o->sizes_given && c->o->nsizes > 2;
    size_t i, nsizes = c->o->nsizes;

    if ((rc = sec_begin(c, XO, 1, 1)) != SEC_OK) return rc;
    ph_set(XO);
    if (sec_module(c, "vector.cu", &mod, NULL, NULL) != 0) goto fail;
    CK(drv.cuModuleGetFunction(&add, mod, "vectorAdd"));
    for (i = 0; i < nsizes; i++) {
        if (quick && i != 0 && i != nsizes - 1) continue;
        rc = xo_share(c, c->o->sizes[i]);
        if (rc == 0) rc = xo_size(c, add, c->o->sizes[i]);
        else if (rc > 0) rc = SEC_OK;
        if (rc < 0) goto fail;
        if (rc != SEC_OK) failed = 1;
    }
    drv.cuModuleUnload(mod);
    ph_set(NULL);
    return failed ? SEC_FAILED : SEC_OK;
fail:
    if (mod) drv.cuModuleUnload(mod);
    ph_set(NULL);
    return SEC_FAILED;
}

void xo_schema(sch_out *o)
{
    sch_put_table(o, XO_NP "<N>.", xo_keys, XO_NROWS);
    sch_derived(o);
    sch_put(o, NULL, &xo_shared, NULL);
}
