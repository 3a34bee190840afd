/* timing.c: event-pair timing with warm-up, batching, the stopping rule,
 * the L2-cold state and per-sample SM clock readings. */
#include "cuda/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "cuda/cudadrv.h"
#include "os/clock.h"

static tm_setup tm_cfg = { 10, { 10, 10, 0.01, 0.0 }, 0, 0, NULL, 0, 0.0, 0 };

void tm_configure(const tm_setup *t)
{
    tm_cfg = *t;
}

const tm_setup *tm_config(void)
{
    return &tm_cfg;
}

size_t tm_capacity(void)
{
    return tm_cfg.fixed ? tm_cfg.fixed : tm_cfg.rule.max_samples;
}

int tm_work_init(tm_work *w, tm_fn fn, void *arg, int cold)
{
    size_t cap = tm_capacity(), i;
    memset(w, 0, sizeof *w);
    w->fn = fn;
    w->arg = arg;
    w->cold = cold;
    w->samples = calloc(cap, sizeof *w->samples);
    if (tm_cfg.clock) {
        w->mhz = malloc(cap * sizeof *w->mhz);
        if (w->mhz) for (i = 0; i < cap; i++) w->mhz[i] = NAN;
    }
    if (!w->samples || (tm_cfg.clock && !w->mhz)) {
        tm_work_free(w);
        return -1;
    }
    return 0;
}

void tm_work_free(tm_work *w)
{
    free(w->samples);
    free(w->mhz);
    w->samples = NULL;
    w->mhz = NULL;
}

long tm_batch(const double *unit_ms, size_t n)
{
    double med, b;

    if (n < 1 || n > TM_CALIBRATE) return 1;
    med = st_median(unit_ms, n);
    if (!(med > 0)) return 1000;
    b = ceil(TM_MIN_REGION_MS / med);
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

/* The stopping rule's answer for samples x[0..n) after elapsed_s; sets *noisy. */
static st_verdict tm_verdict(const double *x, size_t n, double elapsed_s, int *noisy)
{
    return st_stop(&tm_cfg.rule, x, n, elapsed_s, noisy);
}

int tm_more(const double *x, size_t n, double t0_ms, int *noisy)
{
    *noisy = 0;
    if (tm_cfg.fixed) return n < tm_cfg.fixed;
    return tm_verdict(x, n, (clk_now_ms() - t0_ms) / 1000.0, noisy) == ST_GO_ON;
}

/* The flush before a cold region, the clock kernel into slot; then nothing. */
static int tm_before(const tm_work *w, CUstream s, unsigned slot)
{
    if (w->cold) {
        if (!tm_cfg.flush_bytes) return 0;
        CK(drv.cuMemsetD32Async(tm_cfg.flush, slot, tm_cfg.flush_bytes / 4, s));
    }
    if (tm_cfg.clock && w->mhz) {
        CUdeviceptr out = tm_cfg.clock_out;
        unsigned long long window = TM_CLOCK_WINDOW_NS;
        void *params[] = { &out, &slot, &window };
        CK(drv.cuLaunchKernel(tm_cfg.clock, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    }
    return 0;
fail:
    return -1;
}

/* One chunk of c rounds of the works w[act[0..k)], each work's samples
 * from its own w->n on (not advanced here). */
static int tm_chunk(CUstream s, tm_work *w, const size_t *act, size_t k, size_t c, float *clk)
{
    CUevent *ev = NULL, anchor = NULL;
    size_t nev = 2 * c * k, created = 0, i, j;
    double anchor_ms = 0;
    int rc = -1;

    ev = calloc(nev, sizeof *ev);
    if (!ev) return -1;
    for (created = 0; created < nev; created++)
        CK(drv.cuEventCreate(&ev[created], CU_EVENT_DEFAULT));
    if (tr_recording()) {
        /* The trace's anchor: an event on the idle stream runs at once. */
        CK(drv.cuEventCreate(&anchor, CU_EVENT_DEFAULT));
        anchor_ms = tr_now();
        CK(drv.cuEventRecord(anchor, s));
    }
    if (tm_run(w[act[0]].fn, w[act[0]].arg, s, 1) != 0) goto fail;   /* the untimed unit in front */
    for (i = 0; i < c; i++) {
        for (j = 0; j < k; j++) {
            tm_work *x = &w[act[j]];
            size_t e = 2 * (i * k + j);
            if (tm_before(x, s, (unsigned)(i * k + j)) != 0) goto fail;
            CK(drv.cuEventRecord(ev[e], s));
            if (tm_run(x->fn, x->arg, s, x->batch) != 0) goto fail;
            CK(drv.cuEventRecord(ev[e + 1], s));
        }
    }
    CK(drv.cuStreamSynchronize(s));
    if (tm_cfg.clock && clk) CK(drv.cuMemcpyDtoH(clk, tm_cfg.clock_out, c * k * sizeof *clk));
    for (i = 0; i < c; i++) {
        for (j = 0; j < k; j++) {
            tm_work *x = &w[act[j]];
            size_t e = 2 * (i * k + j);
            float ms = 0;
            CK(drv.cuEventElapsedTime(&ms, ev[e], ev[e + 1]));
            x->samples[x->n + i] = (double)ms / (double)x->batch;
            if (x->mhz && clk) x->mhz[x->n + i] = clk[i * k + j];
            if (anchor) {
                float at = 0;
                CK(drv.cuEventElapsedTime(&at, anchor, ev[e]));
                tr_device(NULL, anchor_ms + (double)at, (double)ms);
            }
        }
    }
    rc = 0;
fail:
    if (rc != 0 && s) drv.cuStreamSynchronize(s);
    for (j = 0; j < created; j++) drv.cuEventDestroy(ev[j]);
    if (anchor) drv.cuEventDestroy(anchor);
    free(ev);
    return rc;
}

/* w's batch (1 for a cold work): tm_batch over one-unit regions timed with
 * events a and b on s, each behind one untimed unit, until TM_CALIBRATE of
 * them or TM_CALIBRATE_MS in all. Returns 0, or -1 after reporting. */
static int tm_calibrate(tm_work *w, CUstream s, CUevent a, CUevent b)
{
    double unit[TM_CALIBRATE], sum = 0;
    size_t n = 0;

    w->batch = 1;
    if (w->cold) return 0;
    while (n < TM_CALIBRATE && sum < TM_CALIBRATE_MS) {
        float ms = 0;
        if (tm_run(w->fn, w->arg, s, 1) != 0) return -1;
        CK(drv.cuEventRecord(a, s));
        if (tm_run(w->fn, w->arg, s, 1) != 0) return -1;
        CK(drv.cuEventRecord(b, s));
        CK(drv.cuEventSynchronize(b));
        CK(drv.cuEventElapsedTime(&ms, a, b));
        unit[n++] = ms;
        sum += ms;
    }
    w->batch = tm_batch(unit, n);
    return 0;
fail:
    return -1;
}

/* After a chunk: each active work the stopping rule stops leaves the
 * rounds (act[] and *k shrink, order kept). Returns 1 while any is left. */
static int tm_retire(tm_work *w, size_t *act, size_t *k, double elapsed_s)
{
    size_t j, kept = 0;
    for (j = 0; j < *k; j++) {
        tm_work *x = &w[act[j]];
        if (tm_verdict(x->samples, x->n, elapsed_s, &x->noisy) == ST_GO_ON) act[kept++] = act[j];
    }
    *k = kept;
    return kept > 0;
}

/* Noisy: a work's final samples' interval is still wider than asked (or
 * fewer than the rule's minimum); and its samples below the low clock. */
static void tm_flag(tm_work *x)
{
    size_t i;
    x->noisy = 0;
    if (!tm_cfg.fixed) {
        st_summary sm = st_summarize(x->samples, x->n);
        x->noisy = x->n < tm_cfg.rule.min_samples || st_noise(&sm) > tm_cfg.rule.max_noise;
    }
    for (i = 0; x->mhz && i < x->n; i++)
        if (tm_cfg.max_mhz > 0 && x->mhz[i] < TM_LOW_CLOCK * tm_cfg.max_mhz) x->low_clock++;
}

int tm_events(CUstream s, tm_work *w, size_t k, int warmup)
{
    CUevent a = NULL, b = NULL;
    size_t cap = tm_capacity(), n = 0, c, j, ka = k, *act = NULL;
    float *clk = NULL;
    double t0 = 0;
    int rc = -1;

    if (k == 0 || cap == 0) return -1;
    if (tm_cfg.clock && !(clk = malloc(TM_CLOCK_SLOTS * sizeof *clk))) return -1;
    if (!(act = malloc(k * sizeof *act))) goto fail;
    for (j = 0; j < k; j++) {
        w[j].n = 0;
        w[j].noisy = 0;
        w[j].low_clock = 0;
        act[j] = j;
    }
    CK(drv.cuEventCreate(&a, CU_EVENT_DEFAULT));
    CK(drv.cuEventCreate(&b, CU_EVENT_DEFAULT));
    if (tm_cfg.profile) {
        /* One run of each work between its own events, nothing else. */
        for (j = 0; j < k; j++) {
            float ms = 0;
            CK(drv.cuEventRecord(a, s));
            if (tm_run(w[j].fn, w[j].arg, s, 1) != 0) goto fail;
            CK(drv.cuEventRecord(b, s));
            CK(drv.cuEventSynchronize(b));
            CK(drv.cuEventElapsedTime(&ms, a, b));
            w[j].samples[0] = ms;
            w[j].batch = 1;
            w[j].n = 1;
        }
        rc = 0;
        goto fail;
    }
    /* Warm up every work, not just the first: lazy loading is per function. */
    for (j = 0; j < k; j++)
        if (tm_run(w[j].fn, w[j].arg, s, warmup) != 0) goto fail;
    CK(drv.cuStreamSynchronize(s));
    for (j = 0; j < k; j++)
        if (tm_calibrate(&w[j], s, a, b) != 0) goto fail;
    c = tm_cfg.fixed ? tm_cfg.fixed : (tm_cfg.rule.min_samples ? tm_cfg.rule.min_samples : 1);
    t0 = clk_now_ms();
    /* The works still in the rounds all have n samples: a work only leaves. */
    for (;;) {
        double elapsed;
        if (c > cap - n) c = cap - n;
        if (c > TM_CLOCK_SLOTS / ka) c = TM_CLOCK_SLOTS / ka;
        if (tm_chunk(s, w, act, ka, c, clk) != 0) goto fail;
        n += c;
        for (j = 0; j < ka; j++) w[act[j]].n = n;
        if (n >= cap) break;
        elapsed = (clk_now_ms() - t0) / 1000.0;
        if (tm_cfg.fixed) {
            c = tm_cfg.fixed - n;
            continue;
        }
        if (!tm_retire(w, act, &ka, elapsed)) break;
        /* Grow by half of what there is, but not past the time left. */
        c = n / 2 ? n / 2 : 1;
        if (tm_cfg.rule.max_time_s > 0 && elapsed > 0) {
            double left = tm_cfg.rule.max_time_s - elapsed, per = elapsed / (double)n;
            if (left / per < (double)c) c = left > per ? (size_t)(left / per) : 1;
        }
    }
    for (j = 0; j < k; j++) tm_flag(&w[j]);
    rc = 0;
fail:
    if (a) drv.cuEventDestroy(a);
    if (b) drv.cuEventDestroy(b);
    free(act);
    free(clk);
    return rc;
}

int tm_host(tm_work *w, int warmup)
{
    double t0, unit[TM_CALIBRATE], sum = 0, start;
    size_t cap = tm_capacity(), n = 0;

    w->n = 0;
    w->noisy = 0;
    w->low_clock = 0;
    if (tm_run(w->fn, w->arg, NULL, warmup) != 0) return -1;
    while (n < TM_CALIBRATE && sum < TM_CALIBRATE_MS) {
        t0 = clk_now_ms();
        if (tm_run(w->fn, w->arg, NULL, 1) != 0) return -1;
        unit[n] = clk_now_ms() - t0;
        sum += unit[n++];
    }
    w->batch = tm_batch(unit, n);
    start = clk_now_ms();
    do {
        t0 = clk_now_ms();
        if (tm_run(w->fn, w->arg, NULL, w->batch) != 0) return -1;
        w->samples[w->n++] = (clk_now_ms() - t0) / (double)w->batch;
    } while (w->n < cap && tm_more(w->samples, w->n, start, &w->noisy));
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
    t0 = clk_now_ms();
    if (fn(arg, s) != 0) goto fail;
    t1 = clk_now_ms();
    CK(drv.cuEventRecord(b, s));
    CK(drv.cuStreamSynchronize(s));
    t2 = clk_now_ms();
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
