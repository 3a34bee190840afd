/* readiness.c: the moment a run is ready, watched on a thread of its own,
 * and the kinds told (readiness.h). */
#include "sections/program/readiness.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/ptree.h"
#include "probe/live.h"
#include "sections/program/recdir.h"

/* The earliest stamp of the live records in dir: NVTX marks (ready 1) or
 * first kernels (ready 0); 0 where none is stamped yet. */
static long long pgy_earliest_stamp(const char *dir, int ready)
{
    long pids[PG_MAX_PROCS * 4];
    size_t n = rd_live_pids(dir, pt_known, pids, sizeof pids / sizeof pids[0]), i;
    long long best = 0;
    char path[4600], why[300];

    for (i = 0; i < n; i++) {
        int64_t r, f;
        snprintf(path, sizeof path, "%s/%ld.live", dir, pids[i]);
        if (lv_read_stamps(path, (int)pids[i], &r, &f, why, sizeof why) != 0) continue;
        if ((ready ? r : f) > 0 && (!best || (ready ? r : f) < best)) best = ready ? r : f;
    }
    return best;
}

/* The ready point seen by now into *at (CLOCK_MONOTONIC) and *how, with
 * look_live 1: the live records looked at too. Returns 1 once it is
 * reached. */
static int pgy_seen(const pgy_watch *w, int look_live, long long *at, const char **how)
{
    long long line = atomic_load(&w->smp->ready_ns), mark = 0, first;
    const char *dir = w->run->recdir;

    if (w->by_ready) {
        if (look_live && dir && dir[0]) mark = pgy_earliest_stamp(dir, 1);
        if (!line && !mark) return 0;
        *at = line && (!mark || line <= mark) ? line : mark;
        *how = *at == line ? "a line of its output matched --ready" : "an NVTX mark matched --ready";
        return 1;
    }
    if (!look_live || !dir || !dir[0] || !(first = pgy_earliest_stamp(dir, 0))) return 0;
    *at = first + (long long)(w->after_s * 1e9);
    *how = "its first kernel, plus --ready-after";
    return clk_now_ns() >= *at;
}

/* The thread: every 1 ms the line, every PGY_LIVE_MS the live records,
 * until ready (the kinds told) or stopped. */
static void *pgy_loop(void *arg)
{
    pgy_watch *w = arg;
    long long next_live = 0;

    while (!atomic_load(&w->stop)) {
        long long now = clk_now_ns(), at = 0;
        const char *how = NULL;
        int live = now >= next_live;
        if (live) next_live = now + PGY_LIVE_MS * 1000000LL;
        if (pgy_seen(w, live, &at, &how)) {
            const pgk_ready_at r = { at, how };
            atomic_store(&w->called, 1);
            pgk_ready(w->plan, w->c, w->run, &r);
            break;
        }
        usleep(1000);
    }
    return NULL;
}

int pgy_start(pgy_watch *w, pgk_plan *plan, sec_ctx *c, const pgk_run *run, const pgm_sampler *smp)
{
    int rc;
    memset(w, 0, sizeof *w);
    if (!pgk_wants_ready(plan)) return 0;
    w->plan = plan;
    w->c = c;
    w->run = run;
    w->smp = smp;
    w->by_ready = c->o->ready != NULL;
    w->after_s = c->o->ready_after;
    atomic_store(&w->stop, 0);
    atomic_store(&w->called, 0);
    if ((rc = pthread_create(&w->th, NULL, pgy_loop, w)) != 0) {
        fprintf(stderr, "harness: " PG ": %s: its ready point cannot be watched: %s\n", run->name,
                strerror(rc));
        return 0;
    }
    w->started = 1;
    return 1;
}

int pgy_stop(pgy_watch *w)
{
    if (!w->started) return 0;
    atomic_store(&w->stop, 1);
    pthread_join(w->th, NULL);
    w->started = 0;
    return atomic_load(&w->called);
}
