/* readiness.h: the moment a run of the user's program is ready, watched on
 * a thread of its own while the run runs, for the kinds of setting that act
 * there (a pgk_kind's ready hook: --snapshot). Ready is, with --ready, the
 * first of: a line of its output that matched (the sampler's ready_ns,
 * sampler.h), an NVTX mark that matched (the stamp the probe keeps in each
 * process's live record, live.h); without --ready, the first kernel a live
 * record stamped, plus --ready-after. Once seen, the kinds' hooks are
 * called on this thread (not the sampler's, not the one waiting for the
 * program), and the thread ends. */
#ifndef READINESS_H
#define READINESS_H

#include <pthread.h>
#include <stdatomic.h>

#include "sections/program/sampler.h"
#include "sections/program/setting.h"

/* How often the live records' stamps are looked at, in ms (the sampler
 * looks at the output every PGF_READY_MS). */
#define PGY_LIVE_MS 2

/* One run's watch. */
typedef struct pgy_watch {
    pthread_t th;
    int started;            /* 1: a thread runs (pgy_stop joins it) */
    atomic_int stop;
    pgk_plan *plan;
    sec_ctx *c;
    const pgk_run *run;     /* its recdir: the live records ("" none: the line alone) */
    const pgm_sampler *smp; /* its ready_ns: --ready's line */
    int by_ready;           /* 1: --ready is given: a line or a mark; 0: the first kernel */
    double after_s;         /* --ready-after */
    atomic_int called;      /* 1 once the hooks were called */
} pgy_watch;

/* Watch run (its sampler smp) for its ready point, where a kind asked has
 * a ready hook (else nothing is started). Returns 1 when a thread was
 * started, 0 when none was needed or it could not start (said on stderr:
 * the run goes on, its kinds never told). Call before the program is
 * spawned. */
int pgy_start(pgy_watch *w, pgk_plan *plan, sec_ctx *c, const pgk_run *run, const pgm_sampler *smp);

/* The run ended: the watch stopped, a hook still running waited for.
 * Returns 1 when the hooks were called. */
int pgy_stop(pgy_watch *w);

#endif
