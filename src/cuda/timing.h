/* timing.h: timing work on the device with event pairs: warm-up of the work
 * it times, batching of short regions, the stopping rule, the L2-cold state,
 * and the SM clock beside every sample (the host clock is clock.h's). */
#ifndef TIMING_H
#define TIMING_H

#include <stddef.h>
#include <cuda.h>
#include "core/stats.h"

/* The shortest region the harness times as one sample: 20 ticks of the
 * event clock, whose resolution the CUDA documentation gives as about
 * 0.5 us. Shorter work is batched until one region spans this much. */
#define TM_MIN_REGION_MS 0.010

/* The calibration of a work's batch: up to TM_CALIBRATE regions of one
 * unit each, fewer once they add up to TM_CALIBRATE_MS (a long unit is far
 * from any batch's edge); the batch is chosen at their median, so one slow
 * region (a glitch, a first touch) does not double the batch or halve it. */
#define TM_CALIBRATE 9
#define TM_CALIBRATE_MS 1.0

/* The units per timed region for a work whose one-unit regions took
 * unit_ms[0..n) (1 <= n <= TM_CALIBRATE): ceil(TM_MIN_REGION_MS / their
 * median (st_median)), 1 to 100000; 1000 when the median is not above 0
 * (a clock too coarse to see one unit) or is NaN (st_median out of memory),
 * 1 when n is outside 1..TM_CALIBRATE. */
long tm_batch(const double *unit_ms, size_t n);

/* How many samples a measurement takes, and what runs beside them. Set once
 * per process with tm_configure (the defaults: a fixed 10 samples, no flush
 * buffer, no clock kernel). */
typedef struct tm_setup {
    size_t fixed;              /* > 0: exactly this many samples per measurement */
    st_rule rule;              /* fixed == 0: the stopping rule; rule.max_samples,
                                  which must be > 0, is the capacity */
    CUdeviceptr flush;         /* L2-cold: written over before each cold sample */
    size_t flush_bytes;        /* a multiple of 4; 0: no cold state possible */
    CUfunction clock;          /* smClockMHz, or NULL: no clock readings */
    CUdeviceptr clock_out;     /* TM_CLOCK_SLOTS floats for it */
    double max_mhz;            /* the device's SM clock, for the low-clock flag */
    int profile;               /* --profile: each work runs once between its
                                  events; no warm-up, calibration or extras */
} tm_setup;

#define TM_CLOCK_SLOTS 65536
#define TM_CLOCK_WINDOW_NS 4000ull
/* A sample taken with the SM clock below this fraction of max_mhz is flagged. */
#define TM_LOW_CLOCK 0.75

void tm_configure(const tm_setup *t);
const tm_setup *tm_config(void);

/* Samples the caller must have room for in each tm_work: fixed, or the
 * stopping rule's max_samples. */
size_t tm_capacity(void);

/* One unit of work: enqueue it on stream s (device timing) or do it to the
 * end (host timing). Returns 0, or -1 after reporting the error. */
typedef int (*tm_fn)(void *arg, CUstream s);

typedef struct tm_work {
    tm_fn fn;
    void *arg;
    int cold;          /* in: write over the flush buffer before each region
                          (then every region is one unit: batch 1) */
    double *samples;   /* tm_capacity() slots; out: n per-unit times in ms */
    float *mhz;        /* tm_capacity() slots or NULL; out: the SM clock just
                          before each sample (NaN where none was read) */
    size_t n;          /* out: samples taken */
    long batch;        /* out: units per timed region */
    int noisy;         /* out: 1 when the stopping rule ended on a limit with
                          the median's interval wider than max_noise */
    size_t low_clock;  /* out: samples whose clock was below TM_LOW_CLOCK */
} tm_work;

/* Allocate w's buffers (samples, and mhz when a clock kernel is set) and
 * set fn, arg and cold. Returns 0, or -1 when out of memory (w freed).
 * tm_work_free releases them (safe on a zeroed or freed work). */
int tm_work_init(tm_work *w, tm_fn fn, void *arg, int cold);
void tm_work_free(tm_work *w);

/* Time k pieces of work with event pairs on stream s, interleaved A B A B:
 * each work gets `warmup` untimed runs (then a sync), a calibration that sets
 * its batch from the median of up to TM_CALIBRATE one-unit regions, each
 * behind one untimed unit (tm_batch; cold works: 1, uncalibrated),
 * then timed regions in rounds of all k works. Rounds are queued in chunks
 * behind one untimed unit, so the device never waits on the host inside a
 * chunk (unless the work itself blocks the host, as pageable copies do);
 * before each region, the flush (cold works) and the clock kernel run
 * outside the events. With a fixed count, one chunk of that many rounds;
 * otherwise chunks until the stopping rule stops every work (converged, the
 * time limit, or the capacity), the time counted from the first timed chunk:
 * after each chunk, a work the rule stops leaves the rounds and keeps its n
 * samples, the others go on interleaved (a work already inside its interval
 * is not timed on while a noisier one converges). samples[i] = region /
 * batch. Returns 0, or -1 after reporting. */
int tm_events(CUstream s, tm_work *w, size_t k, int warmup);

/* The same on the host clock, for work that finishes before fn returns (the
 * CPU loop); one work at a time, no clock readings. */
int tm_host(tm_work *w, int warmup);

/* One event pair around one unit of work, nothing before it: for the first
 * launch, whose cost must not be warmed away. Also reports the host clock
 * around the enqueue alone (*host_enqueue_ms) and around enqueue plus
 * synchronisation (*host_sync_ms). Returns 0 or -1. */
int tm_once(CUstream s, tm_fn fn, void *arg, double *event_ms,
            double *host_enqueue_ms, double *host_sync_ms);

/* The stopping rule over one sample at a time, for loops that take their
 * own samples (host-timed API calls): call with the samples so far; returns
 * 1 to take another, 0 to stop, and sets *noisy as tm_work.noisy. t0_ms is
 * clk_now_ms() before the first sample. n never exceeds tm_capacity(). */
int tm_more(const double *x, size_t n, double t0_ms, int *noisy);

#endif
