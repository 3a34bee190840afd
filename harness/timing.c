/* timing.c: host clock and event-pair timing with warm-up and batching. */
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cudadrv.h"

double tm_now_ms(void)
{
    return (double)tm_now_ns() / 1e6;
}

long long tm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Units needed for one region to span TM_MIN_REGION_MS, given one unit's time. */
static long tm_batch_for(double unit_ms)
{
    double b;
    if (!(unit_ms > 0)) return 1000;
    b = ceil(TM_MIN_REGION_MS / unit_ms);
    if (b < 1) b = 1;
    if (b > 100000) b = 100000;
    return (long)b;
}

/* Run fn `count` times on s. */
static int tm_run(tm_fn fn, void *arg, CUstream s, long count)
{
    long i;
    for (i = 0; i < count; i++)
        if (fn(arg, s) != 0) return -1;
    return 0;
}

int tm_events(CUstream s, tm_work *w, size_t k, int warmup, int reps)
{
    CUevent *ev = NULL;
    size_t nev = 2 * (size_t)reps * k, created = 0, j;
    int i, rc = -1;

    ev = calloc(nev, sizeof *ev);
    if (!ev) return -1;
    for (created = 0; created < nev; created++)
        CK(drv.cuEventCreate(&ev[created], CU_EVENT_DEFAULT));
    /* Warm up every work, not just the first: lazy loading is per function. */
    for (j = 0; j < k; j++)
        if (tm_run(w[j].fn, w[j].arg, s, warmup) != 0) goto fail;
    CK(drv.cuStreamSynchronize(s));
    /* Calibrate: one unit each, behind one untimed unit. */
    for (j = 0; j < k; j++) {
        float ms = 0;
        if (tm_run(w[j].fn, w[j].arg, s, 1) != 0) goto fail;
        CK(drv.cuEventRecord(ev[0], s));
        if (tm_run(w[j].fn, w[j].arg, s, 1) != 0) goto fail;
        CK(drv.cuEventRecord(ev[1], s));
        CK(drv.cuEventSynchronize(ev[1]));
        CK(drv.cuEventElapsedTime(&ms, ev[0], ev[1]));
        w[j].batch = tm_batch_for(ms);
    }
    /* The timed regions, interleaved, queued behind one untimed unit. */
    if (tm_run(w[0].fn, w[0].arg, s, 1) != 0) goto fail;
    for (i = 0; i < reps; i++) {
        for (j = 0; j < k; j++) {
            size_t e = 2 * ((size_t)i * k + j);
            CK(drv.cuEventRecord(ev[e], s));
            if (tm_run(w[j].fn, w[j].arg, s, w[j].batch) != 0) goto fail;
            CK(drv.cuEventRecord(ev[e + 1], s));
        }
    }
    CK(drv.cuStreamSynchronize(s));
    for (i = 0; i < reps; i++) {
        for (j = 0; j < k; j++) {
            size_t e = 2 * ((size_t)i * k + j);
            float ms = 0;
            CK(drv.cuEventElapsedTime(&ms, ev[e], ev[e + 1]));
            w[j].samples[i] = (double)ms / (double)w[j].batch;
        }
    }
    rc = 0;
fail:
    if (rc != 0 && s) drv.cuStreamSynchronize(s);
    for (j = 0; j < created; j++) drv.cuEventDestroy(ev[j]);
    free(ev);
    return rc;
}

int tm_host(tm_work *w, int warmup, int reps)
{
    double t0, unit;
    int i;

    if (tm_run(w->fn, w->arg, NULL, warmup) != 0) return -1;
    t0 = tm_now_ms();
    if (tm_run(w->fn, w->arg, NULL, 1) != 0) return -1;
    unit = tm_now_ms() - t0;
    w->batch = tm_batch_for(unit);
    for (i = 0; i < reps; i++) {
        t0 = tm_now_ms();
        if (tm_run(w->fn, w->arg, NULL, w->batch) != 0) return -1;
        w->samples[i] = (tm_now_ms() - t0) / (double)w->batch;
    }
    return 0;
}

int tm_once(CUstream s, tm_fn fn, void *arg, double *event_ms,
            double *host_enqueue_ms, double *host_sync_ms)
{
    CUevent a = NULL, b = NULL;
    double t0, t1, t2;
    float ms = 0;
    int rc = -1;

    CK(drv.cuEventCreate(&a, CU_EVENT_DEFAULT));
    CK(drv.cuEventCreate(&b, CU_EVENT_DEFAULT));
    CK(drv.cuStreamSynchronize(s));
    CK(drv.cuEventRecord(a, s));
    t0 = tm_now_ms();
    if (fn(arg, s) != 0) goto fail;
    t1 = tm_now_ms();
    CK(drv.cuEventRecord(b, s));
    CK(drv.cuStreamSynchronize(s));
    t2 = tm_now_ms();
    CK(drv.cuEventElapsedTime(&ms, a, b));
    *event_ms = ms;
    *host_enqueue_ms = t1 - t0;
    *host_sync_ms = t2 - t0;
    rc = 0;
fail:
    if (a) drv.cuEventDestroy(a);
    if (b) drv.cuEventDestroy(b);
    return rc;
}
