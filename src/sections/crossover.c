/* crossover.c: section "crossover": at each n, the CPU loop, the kernel, and
 * the round trip from pageable and from pinned memory; which wins the
 * one-shot task. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"
#include "timing.h"

#define XO "crossover"

/* Store a measurement of this size; NULL on out of memory. */
static res_meas *xo_store(sec_ctx *c, size_t n, const char *what, const char *name,
                          const char *region, res_state state, const tm_work *w)
{
    char key[64];
    res_meas *m;
    snprintf(key, sizeof key, "n=%zu.%s", n, what);
    m = sec_store_work(c, XO, key, name, region, state, w);
    if (m) m->n = (long)n;
    return m;
}

/* Time and check one size. Returns SEC_OK, SEC_FAILED (a check failed or
 * the size does not fit; the other sizes still run) or -1 (driver error). */
static int xo_size(sec_ctx *c, CUfunction add, size_t n)
{
    int failed = 0, states = sec_cache_states(c), rc = -1;
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
    if ((m = xo_store(c, n, "cpu", "CPU, one thread", "host clock around the C loop", RES_WARM,
                      &w[0])) == NULL)
        goto out;
    m->host_only = 1;
    tm_work_free(&w[0]);
    kn_check_add(v.ha, v.hb, v.hout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, CPU loop vs double reference", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;

    /* The kernel alone: warm, L2-cold, or both interleaved. */
    if ((states & 1) && tm_work_init(&w[k++], sec_vec_kernel, &v, 0) != 0) goto out;
    if ((states & 2) && tm_work_init(&w[k++], sec_vec_kernel, &v, 1) != 0) goto out;
    if (tm_events(v.s, w, k, c->o->warmup) != 0) goto out;
    for (j = 0; j < k; j++) {
        int cold = w[j].cold;
        if (!(m = xo_store(c, n, cold ? "kernel.cold" : "kernel", cold ? "kernel, L2 cold" : "kernel",
                           cold ? "events around one launch, the L2 written over before it"
                                : "events around the launch (batched when short)",
                           cold ? RES_L2_COLD : RES_WARM, &w[j]))) goto out;
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
    if (!xo_store(c, n, "rt_pageable", "round trip, pageable",
                  "events around two copies in, the kernel, and the copy back; pageable",
                  RES_WARM, &w[0]) ||
        !xo_store(c, n, "rt_pinned", "round trip, pinned",
                  "events around two copies in, the kernel, and the copy back; pinned",
                  RES_WARM, &w[1])) goto out;
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

int sec_crossover(sec_ctx *c)
{
    CUmodule mod = NULL;
    CUfunction add;
    int rc, failed = 0;
    /* --quick: the smallest and the largest size only. */
    int quick = c->o->quick && !c->o->sizes_given && c->o->nsizes > 2;
    size_t i, nsizes = c->o->nsizes;

    if ((rc = sec_begin(c, XO, 1, 1)) != SEC_OK) return rc;
    drv_set_phase(XO);
    if (sec_module(c, "vector.cu", &mod, NULL, NULL) != 0) goto fail;
    CK(drv.cuModuleGetFunction(&add, mod, "vectorAdd"));
    for (i = 0; i < nsizes; i++) {
        if (quick && i != 0 && i != nsizes - 1) continue;
        rc = xo_size(c, add, c->o->sizes[i]);
        if (rc < 0) goto fail;
        if (rc != SEC_OK) failed = 1;
    }
    drv.cuModuleUnload(mod);
    drv_set_phase(NULL);
    return failed ? SEC_FAILED : SEC_OK;
fail:
    if (mod) drv.cuModuleUnload(mod);
    drv_set_phase(NULL);
    return SEC_FAILED;
}
