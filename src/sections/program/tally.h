/* tally.h: a measured run of the user's program turned into the section's
 * figures (section PG: "<side>.<figure>", "proc<i>.<side>.<figure>"), and
 * what the runs leave besides figures, kept per side over the runs: the
 * kernels' first uses (the slowest, after ready, beside busy streams, the
 * first launches many times the later ones, each run's worst), the
 * loading mode each process read, the tightest load; and over all sides:
 * the records read, CUPTI's answers, the device, --ready's matches. The
 * measuring code adds to it, the conclusions and sentences only read it. */
#ifndef TALLY_H
#define TALLY_H

#include <stddef.h>
#include "core/results.h"
#include "os/proc.h"
#include "probe/precord.h"
#include "sections/program/figures.h"
#include "sections/program/sampler.h"

/* The most kernels a side's list keeps (past them, a new name is dropped). */
#define PGT_MAX_KERNELS 256

/* One kernel's samples over the runs of a side: (ms, get, launch), whose
 * meaning each list says. */
typedef struct pgt_kernel {
    char name[512];         /* the probe keeps 511 bytes of a name */
    double *ms, *get, *launch;
    size_t n, cap;
    size_t runs;            /* the runs it came in (a name can come several
                               times a run: bursts of loads, two processes) */
    int last_run;
} pgt_kernel;

/* A list of kernels, in the order first seen; grown as needed. */
typedef struct pgt_list {
    pgt_kernel *k;
    size_t n, cap;
} pgt_list;

/* What the measured runs of one side left besides figures. */
typedef struct pgt_side {
    pgt_list slowest;       /* the slowest first uses: first use, get, first launch (ms) */
    pgt_list ready;         /* first uses after ready: stall, ms after ready, 0 */
    pgt_list tune;          /* first launch, a later one's mean, 0 */
    pgt_list conc;          /* first uses beside busy streams: the busy streams, ms
                               after the spawn, 0 */
    pgt_list worst;         /* what each run's worst stall after ready was: its
                               stall, 0, 0 (a name once a run) */
    int mode_seen[3];       /* records that read LAZY, EAGER, unread */
    int tight_seen;         /* a load after the first kernel read the free memory: */
    double tight_free, tight_took; /* the tightest over the runs, what it took */
    char tight_name[128];   /* and what it was */
} pgt_side;

typedef struct pgt_tally {
    pgt_side *side;         /* one per side, in the sides' order */
    size_t nsides;
    int records, no_cupti;  /* records read; those whose CUPTI was not "ok" */
    char cupti_why[256];    /* the first such record's reason */
    char bus[32];           /* the first record's device (env "device"), "" none */
    int ready_runs, ready_matched; /* probed runs measured; those whose line matched */
    int mark_matched, mark_runs;   /* those where an NVTX mark matched; where marks were seen */
    int with_record;        /* probed runs measured that left a record */
} pgt_tally;

/* Empty tallies for nsides sides. Returns 0, or -1 out of memory. */
int pgt_init(pgt_tally *t, size_t nsides);

/* Everything the tallies hold freed. */
void pgt_free(pgt_tally *t);

/* One more sample v of the run-level figure f as "<prefix><key>" (NaN:
 * none); out of memory is said on stderr. */
void pgt_put_run(results *r, const char *prefix, pgf_id f, double v);

/* A failed run's figures apart from the others: its whole process, CPU
 * time and host memory, and its records' figures (summed and earliest, no
 * process's own), each under "<prefix_side>.<figure>" ("failed.lazy"). */
void pgt_put_failed(results *r, const char *prefix_side, const pr_program *p, const prc_record *recs,
                    size_t n);

/* A measured run's figures from the parent: its clock, CPU time and host
 * memory (p), the device memory the sampler m saw, in all and, where the
 * run had several CUDA processes (its records recs[0..n)), per process;
 * side key side. */
void pgt_put_parent(results *r, const char *side, const pr_program *p, const pgm_sampler *m,
                    const prc_record *recs, size_t n);

/* What a measured probed run's records say. */
typedef struct pgt_run {
    size_t si;              /* its side's index */
    const char *side;       /* its side's key */
    int number;             /* its number among the measured runs (1, 2, ...) */
    const prc_record *recs; /* its records, n of them */
    size_t n;
    long long t0_ns;        /* its spawn (CLOCK_MONOTONIC) */
    long long ready_ns;     /* when --ready's line matched, 0: not */
    double ready_after;     /* --ready-after, seconds */
    long long resumed_ns;   /* a kind gave the program back after ready then (--snapshot's
                               last unlock), 0: none: its first uses are counted from here */
} pgt_run;

/* The records' figures ("at." the earliest, the others summed; each
 * process's own where there were several), the figures on the clock
 * inside the process, the first uses after ready, the tightest load, and
 * into the tallies: the kernels, the modes read, CUPTI's answers. */
void pgt_put_records(pgt_tally *t, results *r, const pgt_run *run);

#endif
