/* timing.h: the host monotonic clock, and timing work on the device with
 * event pairs (warm-up of the work it times, batching of short regions). */
#ifndef TIMING_H
#define TIMING_H

#include <stddef.h>
#include <cuda.h>

/* CLOCK_MONOTONIC, in milliseconds and in nanoseconds. */
double tm_now_ms(void);
long long tm_now_ns(void);

/* The shortest region the harness times as one sample: 20 ticks of the
 * event clock, whose resolution the CUDA documentation gives as about
 * 0.5 us. Shorter work is batched until one region spans this much. */
#define TM_MIN_REGION_MS 0.010

/* One unit of work: enqueue it on stream s (device timing) or do it to the
 * end (host timing). Returns 0, or -1 after reporting the error. */
typedef int (*tm_fn)(void *arg, CUstream s);

typedef struct tm_work {
    tm_fn fn;
    void *arg;
    double *samples;   /* out: reps per-unit times in ms */
    long batch;        /* out: units per timed region */
} tm_work;

/* Time k pieces of work with event pairs on stream s, interleaved A B A B:
 * each work gets `warmup` untimed runs (then a sync), a calibration that sets
 * its batch so one region spans at least TM_MIN_REGION_MS, then reps timed
 * regions. All regions are queued before one sync, behind one untimed unit,
 * so the device never waits on the host between them (unless the work itself
 * blocks the host, as pageable copies do). samples[i] = region / batch.
 * Returns 0, or -1 after reporting the failed call. */
int tm_events(CUstream s, tm_work *w, size_t k, int warmup, int reps);

/* The same on the host clock, for work that finishes before fn returns (the
 * CPU loop); no interleaving needed, one work at a time. */
int tm_host(tm_work *w, int warmup, int reps);

/* One event pair around one unit of work, nothing before it: for the first
 * launch, whose cost must not be warmed away. Also reports the host clock
 * around the enqueue alone (*host_enqueue_ms) and around enqueue plus
 * synchronisation (*host_sync_ms). Returns 0 or -1. */
int tm_once(CUstream s, tm_fn fn, void *arg, double *event_ms,
            double *host_enqueue_ms, double *host_sync_ms);

#endif
