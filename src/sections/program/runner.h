/* runner.h: the runs of the user's program: one run of a side (its
 * --prepare, its environment, the kinds' hooks around it, the spawn and
 * the wait with the sampler beside it, its outcome as a check, its records
 * read and, measured, kept as figures and tallies), the warm-ups, the
 * measured rounds in a balanced order with the stopping rule (a look at
 * the headline verdicts after each round from --rounds on), or a kind's
 * search in their place; and --cleanup. */
#ifndef RUNNER_H
#define RUNNER_H

#include <stddef.h>
#include "core/rx.h"
#include "core/verdict.h"
#include "run/section_ctx.h"
#include "sections/program/failures.h"
#include "sections/program/sampler.h"
#include "sections/program/setting.h"
#include "sections/program/tally.h"

/* What the runs came to, counted. */
typedef struct pgr_counts {
    int runs, warmups, tries;   /* runs made, by purpose (numbered from 1) */
    int failed;                 /* measured runs that failed, runs that could not be
                                   made or held (and failures the conclusions add) */
    int refused;                /* records refused, or past the cap */
    int nvml_runs;              /* probed runs whose processes NVML saw on a device */
    int round;                  /* the rounds taken */
    vd_looks looks;             /* the plan of looks at the headline verdicts */
    double alpha;               /* the level every verdict is judged at */
    char stop[200];             /* why the rounds stopped */
    int nlooks, nlooks_calling; /* looks taken at the headline verdicts; those of them
                                   that could call a difference (alpha > 0) */
    int look_pairs, look_calls; /* headline verdicts judged over the looks, and those
                                   that called a difference */
} pgr_counts;

/* The runner: what every run uses, found before the first, and what the
 * runs came to. */
typedef struct pgr_runner {
    sec_ctx *c;
    pgk_plan *plan;             /* the sides and the kinds in effect */
    pgt_tally *tally;           /* the measured runs' tallies */
    const char *probe;          /* the probe, "" when not found */
    const char *cupti;          /* the libcupti for the probe, "" when not found */
    const char *outdir;         /* where each run's output goes */
    int outdir_tmp;             /* 1: outdir is not kept: a run's output goes once read */
    const rx_prog *ready;       /* --ready, compiled; NULL without */
    int nvml;                   /* 1 when NVML answers */
    pgm_sampler smp;
    int traced[PG_MAX_SIDES];   /* a side's spans were drawn once */
    pgx_tally fail;             /* the measured runs that failed, and the default bound */
    pgr_counts n;
} pgr_runner;

/* 1 when the user's environment names an NVTX tool of its own
 * (NVTX_INJECTION64_PATH): the probe does not take its place. */
int pgr_user_nvtx(void);

/* The runs: --warmup a side (the sides alternating; a search's settings
 * only), then the measured rounds, or the search of the kind that has one.
 * Returns 0, or -1 when a run could not be started (said on stderr). */
int pgr_runs(pgr_runner *g);

/* --cleanup after each side's last run, in its setting; a failure is a
 * failed check, named, and counted as failed. */
void pgr_clean_up(pgr_runner *g);

#endif
