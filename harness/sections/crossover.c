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
                          const char *region, const double *samples, long batch)
{
    char key[64];
    res_meas *m;
    snprintf(key, sizeof key, "n=%zu.%s", n, what);
    m = sec_store(c, XO, key, name, region, RES_WARM, samples, (size_t)c->o->reps, batch);
    if (m) m->n = (long)n;
    return m;
}

/* Time and check one size. Returns SEC_OK, SEC_FAILED (a check failed or
 * the size does not fit; the other sizes still run) or -1 (driver error). */
static int xo_size(sec_ctx *c, CUfunction add, size_t n, double *s1, double *s2)
{
    int reps = c->o->reps, failed = 0;
    char what[128];
    res_meas *m;
    sec_vec v;
    tm_work w[2];
    kn_bad bad;

    if (sec_vec_alloc(c, XO, &v, n, add) != 0) return SEC_FAILED;

    /* CPU, one thread. */
    w[0] = (tm_work){ sec_vec_cpu, &v, s1, 1 };
    if (tm_host(&w[0], c->o->warmup, reps) != 0) goto fail;
    if (!xo_store(c, n, "cpu", "CPU, one thread", "host clock around the C loop",
                  s1, w[0].batch)) goto fail;
    kn_check_add(v.ha, v.hb, v.hout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, CPU loop vs double reference", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;

    /* The kernel alone, warm. */
    w[0] = (tm_work){ sec_vec_kernel, &v, s1, 1 };
    if (tm_events(v.s, w, 1, c->o->warmup, reps) != 0) goto fail;
    if (!(m = xo_store(c, n, "kernel", "kernel", "events around the launch (batched when short)",
                       s1, w[0].batch))) goto fail;
    m->bytes = kn_find("vectorAdd")->bytes_per_elem * (double)n;
    m->flops = kn_find("vectorAdd")->flops_per_elem * (double)n;
    snprintf(what, sizeof what, "n = %zu, kernel vs CPU, all elements", n);
    if (sec_vec_verify(c, XO, what, &v) != 1) failed = 1;

    /* The round trips, A B A B. */
    if (sec_vec_poison(&v) != 0) goto fail;
    kn_poison(v.hout, n);
    kn_poison(v.pout, n);
    w[0] = (tm_work){ sec_vec_round_pageable, &v, s1, 1 };
    w[1] = (tm_work){ sec_vec_round_pinned, &v, s2, 1 };
    if (tm_events(v.s, w, 2, c->o->warmup, reps) != 0) goto fail;
    if (!xo_store(c, n, "rt_pageable", "round trip, pageable",
                  "events around two copies in, the kernel, and the copy back; pageable",
                  s1, w[0].batch) ||
        !xo_store(c, n, "rt_pinned", "round trip, pinned",
                  "events around two copies in, the kernel, and the copy back; pinned",
                  s2, w[1].batch)) goto fail;
    kn_check_add(v.ha, v.hb, v.hout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, round trip pageable vs CPU", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;
    kn_check_add(v.ha, v.hb, v.pout, n, &bad);
    snprintf(what, sizeof what, "n = %zu, round trip pinned vs CPU", n);
    if (!sec_check_elems(c, XO, what, n, &bad)) failed = 1;

    sec_vec_free(&v);
    return failed ? SEC_FAILED : SEC_OK;
fail:
    drv.cuStreamSynchronize(v.s);
    sec_vec_free(&v);
    return -1;
}

int sec_crossover(sec_ctx *c)
{
    double *s1 = NULL, *s2 = NULL;
    CUmodule mod = NULL;
    CUfunction add;
    int rc, failed = 0;
    size_t i;

    if ((rc = sec_begin(c, XO, 1, 1)) != SEC_OK) return rc;
    drv_set_phase(XO);
    s1 = calloc((size_t)c->o->reps, sizeof *s1);
    s2 = calloc((size_t)c->o->reps, sizeof *s2);
    if (!s1 || !s2) goto fail;
    if (sec_module(c, "vector.cu", &mod, NULL, NULL) != 0) goto fail;
    CK(drv.cuModuleGetFunction(&add, mod, "vectorAdd"));
    for (i = 0; i < c->o->nsizes; i++) {
        rc = xo_size(c, add, c->o->sizes[i], s1, s2);
        if (rc < 0) goto fail;
        if (rc != SEC_OK) failed = 1;
    }
    drv.cuModuleUnload(mod);
    free(s1);
    free(s2);
    drv_set_phase(NULL);
    return failed ? SEC_FAILED : SEC_OK;
fail:
    if (mod) drv.cuModuleUnload(mod);
    free(s1);
    free(s2);
    drv_set_phase(NULL);
    return SEC_FAILED;
}
