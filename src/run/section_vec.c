/* section_vec.c: the vectorAdd buffers, work units and check. */
#include "run/section_vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sec_vec_free(sec_vec *v)
{
    if (v->a) drv.cuMemFree(v->a);
    if (v->b) drv.cuMemFree(v->b);
    if (v->out) drv.cuMemFree(v->out);
    if (v->pa) drv.cuMemFreeHost(v->pa);
    if (v->pb) drv.cuMemFreeHost(v->pb);
    if (v->pout) drv.cuMemFreeHost(v->pout);
    free(v->ha);
    free(v->hb);
    free(v->hout);
    memset(v, 0, sizeof *v);
}

int sec_vec_alloc(sec_ctx *c, const char *section, sec_vec *v, size_t n, CUfunction add)
{
    size_t bytes = n * sizeof(float), free_b = 0, total_b = 0;
    char what[128], detail[256];

    memset(v, 0, sizeof *v);
    v->n = n;
    v->add = add;
    v->s = c->gpu.stream;
    snprintf(what, sizeof what, "n = %zu fits in device memory and the kernel's int index", n);
    if (drv_mem_info(&free_b, &total_b) != 0) return -1;
    if (3 * bytes > free_b) {
        snprintf(detail, sizeof detail, "needs %.2f GiB of device memory for 3 buffers, "
                 "%.2f GiB free of %.2f GiB", 3.0 * (double)bytes / 1073741824.0,
                 (double)free_b / 1073741824.0, (double)total_b / 1073741824.0);
        res_check_add(c->r, section, what, 0, detail);
        fprintf(stderr, "harness: %s: n = %zu: %s\n", section, n, detail);
        c->r->incomplete = 1;           /* a size asked for is not measured */
        return -1;
    }
    if (n > 0x7fffffffu) {
        snprintf(detail, sizeof detail, "n = %zu is beyond the kernel's int index (2^31 - 1)", n);
        res_check_add(c->r, section, what, 0, detail);
        fprintf(stderr, "harness: %s: %s\n", section, detail);
        c->r->incomplete = 1;
        return -1;
    }
    CK(drv.cuMemAlloc(&v->a, bytes));
    CK(drv.cuMemAlloc(&v->b, bytes));
    CK(drv.cuMemAlloc(&v->out, bytes));
    CK(drv.cuMemAllocHost((void **)&v->pa, bytes));
    CK(drv.cuMemAllocHost((void **)&v->pb, bytes));
    CK(drv.cuMemAllocHost((void **)&v->pout, bytes));
    v->ha = malloc(bytes);
    v->hb = malloc(bytes);
    v->hout = malloc(bytes);
    if (!v->ha || !v->hb || !v->hout) {
        fprintf(stderr, "harness: %s: out of host memory for n = %zu\n", section, n);
        goto fail;
    }
    kn_fill(v->ha, n, 1);
    kn_fill(v->hb, n, 2);
    memcpy(v->pa, v->ha, bytes);
    memcpy(v->pb, v->hb, bytes);
    kn_poison(v->hout, n);
    kn_poison(v->pout, n);
    CK(drv.cuMemcpyHtoDAsync(v->a, v->pa, bytes, v->s));
    CK(drv.cuMemcpyHtoDAsync(v->b, v->pb, bytes, v->s));
    if (sec_vec_poison(v) != 0) goto fail;
    CK(drv.cuStreamSynchronize(v->s));
    return 0;
fail:
    sec_vec_free(v);
    return -1;
}

int sec_vec_poison(sec_vec *v)
{
    CK(drv.cuMemsetD32Async(v->out, 0x7fc00000u, v->n, v->s));
    return 0;
fail:
    return -1;
}

/* Launch vectorAdd over the buffers' n with 256 threads per block. */
int sec_vec_kernel(void *arg, CUstream s)
{
    sec_vec *v = arg;
    int n = (int)v->n;
    void *params[] = { &v->a, &v->b, &v->out, &n };
    unsigned blocks = (unsigned)((v->n + SEC_BLOCK - 1) / SEC_BLOCK);
    CK(drv.cuLaunchKernel(v->add, blocks, 1, 1, SEC_BLOCK, 1, 1, 0, s, params, NULL));
    return 0;
fail:
    return -1;
}

static int sec_vec_round(sec_vec *v, CUstream s, const float *a, const float *b, float *out)
{
    size_t bytes = v->n * sizeof(float);
    CK(drv.cuMemcpyHtoDAsync(v->a, a, bytes, s));
    CK(drv.cuMemcpyHtoDAsync(v->b, b, bytes, s));
    if (sec_vec_kernel(v, s) != 0) return -1;
    CK(drv.cuMemcpyDtoHAsync(out, v->out, bytes, s));
    return 0;
fail:
    return -1;
}

int sec_vec_round_pageable(void *arg, CUstream s)
{
    sec_vec *v = arg;
    return sec_vec_round(v, s, v->ha, v->hb, v->hout);
}

int sec_vec_round_pinned(void *arg, CUstream s)
{
    sec_vec *v = arg;
    return sec_vec_round(v, s, v->pa, v->pb, v->pout);
}

int sec_vec_cpu(void *arg, CUstream s)
{
    sec_vec *v = arg;
    (void)s;
    kn_cpu_add(v->ha, v->hb, v->hout, v->n);
    return 0;
}

int sec_vec_verify(sec_ctx *c, const char *section, const char *what, sec_vec *v)
{
    kn_bad bad;
    kn_poison(v->pout, v->n);
    CK(drv.cuMemcpyDtoHAsync(v->pout, v->out, v->n * sizeof(float), v->s));
    CK(drv.cuStreamSynchronize(v->s));
    kn_check_add(v->ha, v->hb, v->pout, v->n, &bad);
    return sec_check_elems(c, section, what, v->n, &bad);
fail:
    return -1;
}
