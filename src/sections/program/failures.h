/* failures.h: the runs of the user's program that failed, reported rather
 * than dropped. Per side: how many, and how (an exit code, a signal, the
 * time limit, the default bound); the time to failure on the parent's
 * clock (spawn to the main process's end), as the samples of
 * "failed.<side>.wall" beside the figures those runs recorded
 * ("failed.<side>.<figure>"), apart from the runs that exited 0; and a
 * diagnosis of each, one sentence from the processes' live records
 * (src/probe/live.h) and records: a first use that waited beside another
 * stream's running kernel, a hang at the time limit (the call each thread
 * was inside, the kernels in flight), a failed CUDA call (its result, what
 * it loaded, who called it, the free memory), a crash by signal (each
 * thread's last call). When one setting fails where another runs, that is
 * the headline answer.
 *
 * The default bound: once a run has exited 0, a later run of any side is
 * killed after PGX_BOUND_FACTOR times the slowest run that exited 0, and
 * never before PGX_BOUND_FLOOR_S, unless --child-timeout was given (which
 * then bounds every run alone). */
#ifndef FAILURES_H
#define FAILURES_H

#include <stddef.h>
#include <stdio.h>

#include "core/schema.h"
#include "os/proc.h"
#include "probe/live.h"
#include "probe/precord.h"
#include "run/cli.h"
#include "sections/program/program.h"

#define PGX_BOUND_FACTOR 10.0
#define PGX_BOUND_FLOOR_S 30.0
#define PGX_KEEP 8              /* failed runs of a side whose diagnosis is kept */
#define PGX_WAIT_MIN_MS 100.0   /* a shorter wait beside running work is not a cause */
#define PGX_WHY 1400

/* What a diagnosis found first (the order of precedence). */
typedef enum pgx_kind {
    PGX_NONE, PGX_WAIT, PGX_CALL, PGX_HANG, PGX_SIGNAL, PGX_EXIT, PGX_NKINDS
} pgx_kind;

/* One failed run as the parent saw it. */
typedef struct pgx_seen {
    const pr_program *p;        /* its outcome and clock (t0_ns, ms) */
    double limit_s;             /* the time limit it ran under */
    int bounded;                /* that limit was the default bound, not --child-timeout */
    const lv_view *live;        /* its processes' live records (nlive) */
    size_t nlive;
    const prc_record *recs;     /* its records (nrec) */
    size_t nrec;
    const char *mode;           /* the loading mode of the side ("LAZY", "EAGER"), NULL unknown */
} pgx_seen;

typedef struct pgx_run {
    int number;                 /* the run's number */
    char how[200];              /* "exited with 5", "killed by signal 11 (SIGSEGV)", ... */
    char why[PGX_WHY];          /* the diagnosis, one sentence */
} pgx_run;

typedef struct pgx_side {
    int runs, failed;           /* measured runs made, and failed */
    int noted;                  /* failed runs diagnosed (a probed side's) */
    char first_how[200];        /* the first failed run's how */
    int same_how;               /* every failed run failed the same way */
    pgx_run kept[PGX_KEEP];
    int nkept;
} pgx_side;

typedef struct pgx_tally {
    pgx_side side[PG_MAX_SIDES];
    double ok_max_ms;           /* the slowest run that exited 0 (any side, any purpose); 0 none */
} pgx_tally;

/* The diagnosis of one failed run into buf (len bytes; "" for PGX_NONE),
 * and the longest wait of a first use beside running work into *wait_ms
 * (NaN: none). Pure: reads s alone. */
pgx_kind pgx_diagnose(const pgx_seen *s, char *buf, size_t len, double *wait_ms);

/* The time limit of the next run in seconds, and whether it is the default
 * bound (*bounded): --child-timeout where given, else the smaller of its
 * default and the bound (once a run has exited 0). */
double pgx_limit(const pgx_tally *t, const cli_opts *o, int *bounded);

/* A run of side si ended after ms: counted where measured; where it
 * exited 0 (ok), the bound's base. */
void pgx_ran(pgx_tally *t, size_t si, int measured, int ok, double ms);

/* The live records of the processes of a run in dir ("<pid>.live", at most
 * max, each pid one known(pid) accepts; NULL: any) into views; their count.
 * A record that cannot be read (torn header, forged, another layout) is
 * left out: the diagnosis then has less to go on. */
size_t pgx_read_live(const char *dir, int (*known)(long), lv_view *views, size_t max);

/* A measured run of side si (key: its key) that failed: counted, its time
 * to failure and its records' figures kept under "failed.<key>.", its
 * diagnosis stored as "diagnosis.<key>.<i>" and kept for the table. */
void pgx_note(pgx_tally *t, results *r, size_t si, const char *key, int number, const pgx_seen *s);

/* The answers: the headline where one setting fails where another runs,
 * and each side's failures with their first diagnosis ("answer.failed",
 * "answer.diagnosis.<side>"). labels and keys name the nsides probed
 * sides; the runs of all nall sides (the bare ones after them) counted. */
void pgx_answer(const pgx_tally *t, results *r, const char *const *keys, const char *const *labels,
                size_t nsides, size_t nall);

/* The table's block of failed runs, from r's "diagnosis.<side>.<i>"
 * entries, each side named by its label (keys[i] -> labels[i]); nothing
 * where there are none. */
void pgx_print(FILE *f, const results *r, const char *const *keys, const char *const *labels,
               size_t nsides);

/* Their declarations for --schema: the failed runs' figures (among the
 * measurements), the diagnoses (among the derived entries). */
void pgx_schema_figures(sch_out *o);
void pgx_schema_derived(sch_out *o);

#endif
