/* setting_squeeze.h: the kinds of setting --squeeze=MiB and
 * --squeeze=auto (rows pgk_squeeze and pgk_squeeze_auto of setting.h):
 * which margin each run is held to, the memory holder (squeeze_holder.h)
 * started before a run and released after it, the search of
 * --squeeze=auto (a bisection per side) in place of the measured rounds,
 * the calls that failed inside the runs (the probe's "fail.<i>"), and
 * their sentences. The runner runs the program; this module decides the
 * margins, holds them, keeps what the runs came to, and words it. */
#ifndef SETTING_SQUEEZE_H
#define SETTING_SQUEEZE_H

#include <stdio.h>
#include "core/results.h"
#include "probe/precord.h"
#include "sections/program/program.h"
#include "sections/program/squeeze_holder.h"

/* The search: the first margin tried; doubled while the program fails, up
 * to the free memory; then halved between the largest margin it failed at
 * and the smallest it ran at, until they are PGS_STEP_MIB or less apart,
 * or CLI_SQUEEZE_TRIES runs a side are taken. */
#define PGS_FIRST_MIB 256.0
#define PGS_STEP_MIB 16.0
/* A side's runs: its search's, and one at each other side's largest
 * failing margin where it was not tried there. */
#define PGS_MAX_TRIES (CLI_SQUEEZE_TRIES + CLI_MAX_SETTINGS)
/* Distinct failed calls kept over the runs (side, margin, call, what,
 * error); the sentences name the first PGS_SAID of them. */
#define PGS_MAX_FAILS 32
#define PGS_SAID 4

/* One run at a margin. */
typedef struct pgs_try {
    double margin, held, left;  /* MiB: asked, held by the holder, free for the program */
    int ran;                    /* 1: the program exited 0 */
    int cross;                  /* 1: a run at another side's failing margin */
    char outcome[160];          /* "ran", "exited with 1", ... */
} pgs_try;

typedef struct pgs_side {
    char key[40], label[48];
    int runs, ran;              /* --squeeze=MiB: its runs, those that exited 0 */
    int lost;                   /* runs whose holder ended during them (not counted) */
    double held_min, held_max, left_min, left_max;
    char failed_how[160];       /* the first failed run's outcome */
    double lo, hi;              /* auto: the largest margin it failed at, the smallest
                                   it ran at (-1: none yet) */
    int done;                   /* auto: its search ended */
    char broken[300];           /* auto: why its search stopped short ("" when it did not) */
    pgs_try tries[PGS_MAX_TRIES];
    size_t ntries;
} pgs_side;

/* A failed call, over the runs of one side at one margin. */
typedef struct pgs_fail {
    size_t side;
    double margin, error, free_mib; /* free_mib: the least over its runs (NaN: unread) */
    char name[512], call[48], err[64]; /* the probe keeps 511 bytes of a name */
    int runs;                   /* runs it failed in */
    int runs_ok;                /* of them, those that still exited 0 */
    int last_run;               /* the run that counted it last */
} pgs_fail;

typedef struct pgs_state {
    int on, automatic;
    int probed;                 /* 1: the settings' sides ran under the probe */
    int nruns;                  /* runs noted */
    double margin;              /* --squeeze=MiB */
    double free_mib, total_mib; /* device 0 when the run began (the first holder's) */
    size_t nsides, nsettings;   /* sides as program.c's; the first nsettings searched */
    pgs_side side[PG_MAX_SIDES];
    pgs_fail fail[PGS_MAX_FAILS];
    size_t nfail, nfail_lost;   /* kept; not kept (the table was full) */
} pgs_state;

/* Begin: --squeeze's margin or auto, the sides' keys and labels
 * (key[i], label[i] for i < nsides; the first nsettings are the settings
 * searched, under the probe where probed is 1), and device 0's memory as
 * a holder that held nothing found it. Returns 0, or -1 with why when
 * --squeeze=MiB is above its free memory (a usage error). */
int pgs_begin(pgs_state *q, const cli_opts *o, const char *const *key, const char *const *label,
              size_t nsides, size_t nsettings, int probed, const sq_held *first, char *why,
              size_t whylen);

/* auto: the next margin side si's search tries, or -1 once it has ended
 * (marked done): the answer is bracketed within PGS_STEP_MIB, the program
 * failed with nothing held, or CLI_SQUEEZE_TRIES runs are taken. */
double pgs_next(pgs_state *q, size_t si);

/* auto, after every search: the next run at another side's largest
 * failing margin, where that side was not tried at it: 1 with the side
 * and margin, 0 when none is left. */
int pgs_next_cross(const pgs_state *q, size_t *si, double *margin);

/* A run of side si at margin: held (NULL where the holder did not hold
 * through it: the run is no answer; an auto search stops there, with why
 * in outcome; a run at another side's margin is kept as failed), ran
 * (exited 0), outcome in words, and its records' failed calls gathered. */
void pgs_note_run(pgs_state *q, size_t si, double margin, const sq_held *held, int ran,
                  const char *outcome, const prc_record *recs, size_t nrec);

/* The conclusions into r (section PG): env program_squeeze*, derived
 * "squeeze.<side>" (and "squeeze.<side>.try<n>" with auto),
 * "squeeze_fail.<k>", and the answers "answer.squeeze" and
 * "answer.squeeze_fail.<k>". The count of sides whose search stopped
 * short (0 for --squeeze=MiB). */
int pgs_conclude(const pgs_state *q, results *r);

/* The squeeze's lines of the report, from r alone: the margin and what
 * was held, or each side's tries. Nothing when --squeeze was not given. */
void pgs_print(FILE *f, const results *r);

/* --squeeze's derived entries (squeeze.<side>, squeeze_fail.<i> and its
 * answers), declared for --schema. */
void pgs_schema(sch_out *o);

#endif
