/* section_vec.h: the vectorAdd workload that stopwatches and crossover
 * both time (at kernels.h's KN_VECADD_N and at --sizes): its buffers, its
 * work units for timing.h, its check against the CPU. */
#ifndef SECTION_VEC_H
#define SECTION_VEC_H

#include <stddef.h>
#include <cuda.h>
#include "run/section_ctx.h"

/* Buffers for vectorAdd over n floats: device a, b, out; pageable and
 * pinned host copies of each. */
typedef struct sec_vec {
    size_t n;
    CUdeviceptr a, b, out;
    float *ha, *hb, *hout;      /* pageable (malloc) */
    float *pa, *pb, *pout;      /* pinned (cuMemAllocHost) */
    CUfunction add;
    CUstream s;
} sec_vec;

/* Allocate and fill (inputs non-zero, outputs NaN; device inputs copied).
 * First checks device memory: when 3n floats do not fit (or n is beyond the
 * kernel's int index), records a failed check "needs X GiB, Y GiB free",
 * marks the run incomplete (that size is not measured) and returns -1
 * without allocating.
 * Returns 0, or -1 after reporting; on failure everything is freed. */
int sec_vec_alloc(sec_ctx *c, const char *section, sec_vec *v, size_t n, CUfunction add);
void sec_vec_free(sec_vec *v);

/* Work units (tm_fn): the kernel alone; the round trip (copy a and b in,
 * kernel, copy out back) from pageable or from pinned memory. */
int sec_vec_kernel(void *v, CUstream s);
int sec_vec_round_pageable(void *v, CUstream s);
int sec_vec_round_pinned(void *v, CUstream s);
/* The CPU loop over the buffers' pageable copies (host work, s unused). */
int sec_vec_cpu(void *v, CUstream s);

/* Launch configuration the lesson uses: 256 threads per block. */
#define SEC_BLOCK 256

/* Poison the device output with NaN (on v->s, not synchronised). */
int sec_vec_poison(sec_vec *v);

/* Copy the device output back and check it against the CPU on every
 * element; record the check. Returns 1 when it passed, 0 when not, -1 on a
 * driver error. */
int sec_vec_verify(sec_ctx *c, const char *section, const char *what, sec_vec *v);

#endif
