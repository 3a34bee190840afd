/* sampler.h: what a thread watches while one run of the user's program
 * runs: every PGF_SAMPLE_MS (figures.h), the device memory NVML shows for
 * the processes of the run's tree (ptree.h), per process and in all, and
 * with --ready, every PGF_READY_MS (figures.h), all that the run's stdout and stderr
 * gained, matched line by line (src/core/rx.h: a line may arrive in any
 * number of pieces, hold NUL bytes, or end without a newline at the run's
 * end). */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "core/rx.h"
#include "sections/program/program.h"

/* The most sizes of a file kept with the clock that first saw each: a
 * match is dated by the first look that saw the file hold its bytes, not
 * by when the matching reached them. */
#define PGM_SEEN 256

/* The sampler of one run. Read its results once pgm_stop returned. */
typedef struct pgm_sampler {
    pthread_t th;
    atomic_int pgid, stop;
    long pid[PG_MAX_PROCS * 4];     /* the processes NVML showed on a device */
    double peak[PG_MAX_PROCS * 4];  /* each one's most device memory, MiB */
    size_t npid;
    double peak_sum;        /* the most of them together, MiB; -1: no process of the run seen */
    int nvml;               /* 1: sample the device memory (NVML answers) */
    const rx_prog *ready;   /* --ready's expression, or NULL */
    rx_stream *scan[2];     /* the lines of each file, as far as read */
    char *buf;              /* PGM_READ bytes, the reads' buffer */
    const char *path[2];    /* the run's stdout and stderr files */
    long long off[2];       /* how far each was read and matched */
    long long seen_ns[2][PGM_SEEN], seen_size[2][PGM_SEEN];    /* each file's sizes as first seen */
    int nseen[2];
    void *halt_arg;         /* the look after the run: its deadline (rx's stop's argument) */
    atomic_llong ready_ns;  /* CLOCK_MONOTONIC when a line first matched, 0: none yet */
} pgm_sampler;

/* Start sampling a run whose output goes to files out and err: the device
 * memory where nvml is 1, the lines matched against ready (NULL: none).
 * Returns 1 when a thread was started, 0 when none was needed or it could
 * not start, or memory for the matching was short (the run goes on
 * unwatched). */
int pgm_start(pgm_sampler *m, int nvml, const rx_prog *ready, const char *out, const char *err);

/* Told the spawned program's process group (pr_run_program's on_spawn;
 * arg the sampler). */
void pgm_spawned(int pid, void *arg);

/* Stop the sampler (started: what pgm_start returned): its thread answers
 * within microseconds, whatever the pattern; with --ready, read what was
 * written since its last look (a line just before the exit; a last line
 * without a newline), unless a signal is pending (sig.h), for at most 2 s
 * (a cut said on stderr). Frees what pgm_start took. */
void pgm_stop(pgm_sampler *m, int started);

#endif
