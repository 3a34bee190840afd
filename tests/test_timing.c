/* test_timing.c: unit tests of tm_batch (src/cuda/timing.c), the batch a work's
 * calibration regions give, against values worked out by hand. */
#include "testhelp.h"
#include "cuda/cudadrv.h"
#include "cuda/timing.h"

#include <math.h>
#include <string.h>

void test_timing(void)
{
    /* One unit of 4.4 us (H200: a launch-bound kernel of a few us, behind
     * one untimed unit): 10 / 4.4 = 2.27, so 3 units a region. */
    static const double steady[] = { 0.0044, 0.0043, 0.0045, 0.0044, 0.0044,
                                     0.0043, 0.0044, 0.0046, 0.0044 };
    /* The same with two slow regions (a glitch, 12 us and 5.2 us): one
     * sample would give 1 or 2, the median of nine still 3. */
    static const double glitch[] = { 0.0120, 0.0043, 0.0045, 0.0052, 0.0044,
                                     0.0043, 0.0044, 0.0046, 0.0044 };
    /* And fast ones: one region of 3.2 us alone would give 4. */
    static const double fast[] = { 0.0032, 0.0044, 0.0045, 0.0044, 0.0031 };
    static const double even[] = { 0.004, 0.006 };      /* median 5 us: exactly 2 */
    static const double one_ms[] = { 1.2 };             /* a long unit: 1 */
    static const double zero[] = { 0.0, 0.0, 0.0 };     /* a clock too coarse */
    static const double tiny[] = { 1e-9 };              /* 0.010 / 1e-9 = 1e7: clamped */
    static const double bad[] = { NAN, NAN, NAN };

    th_check("timing: tm_batch of nine regions near 4.4 us is 3",
             tm_batch(steady, 9) == 3);
    th_check("timing: tm_batch is the median's: two slow regions of nine leave it 3",
             tm_batch(glitch, 9) == 3);
    th_check("timing: tm_batch of the first glitch alone would be 1 (what the median guards against)",
             tm_batch(glitch, 1) == 1);
    th_check("timing: tm_batch: two fast regions of five leave it 3",
             tm_batch(fast, 5) == 3 && tm_batch(fast, 1) == 4);
    th_check("timing: tm_batch of an even count uses the middle two's mean (5 us: 2)",
             tm_batch(even, 2) == 2);
    th_check("timing: tm_batch of a unit of 1.2 ms is 1", tm_batch(one_ms, 1) == 1);
    th_check("timing: tm_batch of regions of 0 is 1000, of NaN 1000",
             tm_batch(zero, 3) == 1000 && tm_batch(bad, 3) == 1000);
    th_check("timing: tm_batch is clamped to 100000", tm_batch(tiny, 1) == 100000);
    th_check("timing: tm_batch of 0 regions or more than TM_CALIBRATE is 1",
             tm_batch(steady, 0) == 1 && tm_batch(steady, TM_CALIBRATE + 1) == 1);
    th_check("timing: tm_batch leaves its input as it was",
             glitch[0] == 0.0120 && glitch[3] == 0.0052 && fast[4] == 0.0031);
}

/* tm_events on a stub driver: events read a clock that only the works
 * advance, so every region's time is what its work says. */
static double tt_clock_ms;
typedef struct tt_ev { double at; } tt_ev;
static tt_ev tt_evs[8192];
static size_t tt_nev;

static CUresult CUDAAPI tt_create(CUevent *e, unsigned flags)
{
    (void)flags;
    if (tt_nev >= sizeof tt_evs / sizeof tt_evs[0]) tt_nev = 0;   /* reused in turn */
    *e = (CUevent)(void *)&tt_evs[tt_nev++];
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI tt_destroy(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult CUDAAPI tt_record(CUevent e, CUstream s)
{
    (void)s;
    ((tt_ev *)(void *)e)->at = tt_clock_ms;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI tt_sync_ev(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult CUDAAPI tt_sync(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult CUDAAPI tt_elapsed(float *ms, CUevent a, CUevent b)
{
    *ms = (float)(((tt_ev *)(void *)b)->at - ((tt_ev *)(void *)a)->at);
    return CUDA_SUCCESS;
}

/* A steady work: 1 ms a unit. A noisy one: 1, 2, 3, 4 ms in turn, whose
 * median's interval never comes within 1% of the median. */
static size_t tt_steady_runs, tt_noisy_runs;
static int tt_steady(void *arg, CUstream s)
{
    (void)arg; (void)s;
    tt_steady_runs++;
    tt_clock_ms += 1.0;
    return 0;
}
static int tt_noisy(void *arg, CUstream s)
{
    (void)arg; (void)s;
    tt_clock_ms += 1.0 + (double)(tt_noisy_runs++ % 4);
    return 0;
}

void test_timing_rounds(void)
{
    struct drv_api saved = drv;
    const tm_setup *was = tm_config();
    tm_setup saved_cfg = *was, cfg;
    tm_work w[2];
    int ok;

    memset(&cfg, 0, sizeof cfg);
    cfg.rule.min_samples = 10;
    cfg.rule.max_samples = 400;
    cfg.rule.max_noise = 0.01;
    cfg.rule.max_time_s = 0;            /* no time limit: the count ends the noisy one */
    tm_configure(&cfg);
    drv.cuEventCreate = tt_create;
    drv.cuEventDestroy = tt_destroy;
    drv.cuEventRecord = tt_record;
    drv.cuEventSynchronize = tt_sync_ev;
    drv.cuStreamSynchronize = tt_sync;
    drv.cuEventElapsedTime = tt_elapsed;
    ok = tm_work_init(&w[0], tt_steady, NULL, 0) == 0 && tm_work_init(&w[1], tt_noisy, NULL, 0) == 0;
    ok = ok && tm_events(NULL, w, 2, 1) == 0;
    /* The steady work converges at the rule's minimum, 10 samples of 1 ms,
     * and leaves the rounds; the noisy one goes on alone until a quarter of
     * the count limit, where its interval (about 20% of the median) is out
     * of reach of 1% by 400 samples (st_stop), and stops noisy. */
    th_check("timing: tm_events: a work inside its interval stops at the minimum (10 samples)",
             ok && w[0].n == 10 && !w[0].noisy && w[0].samples[9] == 1.0);
    th_check("timing: tm_events: the noisy work it was interleaved with goes on alone to a "
             "quarter of the limit, out of reach, noisy",
             ok && w[1].n >= 100 && w[1].n < 200 && w[1].noisy);
    /* 1 warm-up + 1 calibration pair's 2 + 10 timed + 1 untimed unit in
     * front of each chunk it was in: far fewer than the noisy one's 400. */
    th_check("timing: tm_events: the steady work ran 10 timed units, not 400",
             ok && tt_steady_runs < 40);
    tm_work_free(&w[0]);
    tm_work_free(&w[1]);
    drv = saved;
    tm_configure(&saved_cfg);
}
