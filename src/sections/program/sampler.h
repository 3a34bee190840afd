/* sampler.h: what a thread watches while one run of the user's program
 * runs: every PGF_SAMPLE_MS (figures.h), the device memory NVML shows for
 * the processes of the run's tree (ptree.h), per process and in all, and
 * with --ready the new lines of the run's stdout and stderr, matched. */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stddef.h>

#include "sections/program/program.h"

/* The sampler of one run. Read its results once pgm_stop returned. */
typedef struct pgm_sampler {
    pthread_t th;
    atomic_int pgid, stop;
    long pid[PG_MAX_PROCS * 4];     /* the processes NVML showed on a device */
    double peak[PG_MAX_PROCS * 4];  /* each one's most device memory, MiB */
    size_t npid;
    double peak_sum;        /* the most of them together, MiB; -1: no process of the run seen */
    int nvml;               /* 1: sample the device memory (NVML answers) */
    regex_t *ready;         /* --ready's expression, or NULL */
    const char *path[2];    /* the run's stdout and stderr files */
    long off[2];            /* how far each was read (whole lines) */
    atomic_llong ready_ns;  /* CLOCK_MONOTONIC when a line first matched, 0: none yet */
} pgm_sampler;

/* Start sampling a run whose output goes to files out and err: the device
 * memory where nvml is 1, the lines matched against ready (NULL: none).
 * Returns 1 when a thread was started, 0 when none was needed or it could
 * not start (the run goes on unwatched). */
int pgm_start(pgm_sampler *m, int nvml, regex_t *ready, const char *out, const char *err);

/* Told the spawned program's process group (pr_run_program's on_spawn;
 * arg the sampler). */
void pgm_spawned(int pid, void *arg);

/* Stop the sampler (started: what pgm_start returned) and, with --ready,
 * read the lines written since its last look (a line just before the exit). */
void pgm_stop(pgm_sampler *m, int started);

#endif
