/* setting.h: what the sides of a -- CMD run differ in, as one table of kinds
 * of setting. A kind is a row (pgk_kind): whether the command line asks for
 * it, the sides it makes, its headline figures, its sentences, and what it
 * does around the runs (a cache, a memory holder, a search), with state of
 * its own. The kinds (PGK_KINDS): --squeeze=MiB and --squeeze=auto
 * (setting_squeeze.c), which act around the runs, and the kinds that make
 * the sides, one of which a run has: one side without a comparison,
 * --compare-loading and --compare-env (setting_env.c), --jit-cache
 * (setting_jit.c), --compare A --vs B (setting_commands.c), --snapshot
 * (setting_snapshot.c: each mode with and without the driver's checkpoint
 * at the ready point, which acts at the run's ready point). A new kind is
 * one line in PGK_KINDS and one file that defines its row. */
#ifndef SETTING_H
#define SETTING_H

#include <stddef.h>
#include <stdio.h>
#include "core/results.h"
#include "core/schema.h"
#include "os/proc.h"
#include "probe/precord.h"
#include "run/section_ctx.h"
#include "sections/program/program.h"

/* A side: a setting (a variable's value, a cache state, a command), run
 * under the probe or bare. */
typedef struct pgk_side {
    char key[40];           /* "lazy", "eager", "cold", "a", a value; "bare.<key>" */
    char label[48];         /* "LAZY", "cold", "A", the value as given; "<label> bare" */
    char setting[48];       /* the label without " bare": the verdicts' words */
    char set[CLI_PATH_MAX + 160]; /* "NAME=VALUE" this side sets, "" when none */
    const char *mode;       /* CUDA_MODULE_LOADING's value, NULL: not set by the side */
    const char *const *cmd; /* its command's words */
    const char *path;       /* its command, found */
    size_t which;           /* the setting of the comparison it runs (0, 1, ...) */
    size_t against;         /* the setting its verdicts compare it with: the first (0),
                               where its kind's side hook names no other (--snapshot:
                               a mode's snapshot side against that mode) */
    int probed;
} pgk_side;

/* What a run is for: unmeasured (a warm-up), measured (a round), or one of
 * a search's (--squeeze=auto: its figures not kept; that it exited
 * non-zero is the search's answer, not a failure). */
typedef enum pgk_purpose { PGK_WARMUP, PGK_MEASURED, PGK_TRY } pgk_purpose;

/* The variables the kinds may add to one run's environment. */
#define PGK_MAX_ENV 8
#define PGK_ENV_LEN 4200

/* One run of a side, as the kinds' hooks see it (the runner fills it). */
typedef struct pgk_run {
    const pgk_side *side;
    size_t si;              /* the side's index */
    pgk_purpose purpose;
    double margin;          /* MiB of device memory left free for it, -1: none: a
                               search's run's is the margin it tries (the runner's),
                               the others' --squeeze's before hook sets */
    const char *name;       /* in words: "run 3 (LAZY, round 2)" */
    char env[PGK_MAX_ENV][PGK_ENV_LEN]; /* "NAME=VALUE" the kinds add to its environment */
    size_t nenv;
    char under[200];        /* what it ran under, said after its outcome ("" none) */
    const pr_program *p;    /* what became of it; NULL until it ended */
    int ok;                 /* once ended: 1 it exited 0 (a kind's hook may fail it) */
    int lost;               /* once ended: 1 a kind says it is no answer (failed, whatever
                               its purpose) */
    char how[400];          /* once ended: what became of it, in words */
    const prc_record *recs; /* once its records were read: nrec of them */
    size_t nrec;
    const char *recdir;     /* its record directory (the probe's records and live
                               records), "" on a bare side */
    long long resumed_ns;   /* CLOCK_MONOTONIC when a kind gave the program back after
                               ready (--snapshot: the last unlock), 0: none; a kind's
                               ended sets it; its first uses after ready are counted
                               from here */
} pgk_run;

/* The moment a run was ready, as the runner's ready thread saw it while it
 * ran (readiness.h). */
typedef struct pgk_ready_at {
    long long at_ns;        /* CLOCK_MONOTONIC */
    const char *how;        /* "a line of its output matched --ready", "an NVTX mark
                               matched --ready", "its first kernel, plus --ready-after" */
} pgk_ready_at;

typedef struct pgk_plan pgk_plan;

/* A search's run of setting si at margin (the runner's): 0, or -1 when it
 * could not be started. */
typedef int (*pgk_try_fn)(void *arg, size_t si, double margin);

/* One kind of setting. Every hook may be NULL (nothing to do). */
typedef struct pgk_kind {
    const char *name;       /* a kind that makes sides: env program_compare's value */
    int (*asked)(const cli_opts *o);
    /* The sides: how many settings it compares, and setting i into d (its
     * key, label, what it sets, its command; d comes with the command and
     * the mode of --module-loading, and plan with the sides made before
     * it). NULL for a kind that acts around runs only. */
    size_t (*settings)(const cli_opts *o);
    void (*side)(const cli_opts *o, const pgk_plan *plan, size_t i, pgk_side *d);
    /* The command as one line of words (NULL: the words of -- CMD). */
    void (*command_line)(const cli_opts *o, char *buf, size_t len);
    int names_commands;     /* 1: env program_side<i>_command names each side's command */
    /* The headline figures: in.first_kernel and in.context where the probe
     * gave them, else the whole process; code.ms too with headline_code
     * (on the clock inside), the whole process too with headline_wall. */
    int headline_code, headline_wall;
    const char *sooner;     /* said after "<first setting> reached its first kernel
                               sooner" (NULL: nothing) */
    /* Around the runs. start: before the first (state what it keeps, freed
     * by stop), SEC_OK; SEC_ERROR when no run can be made (said on stderr;
     * the runs are not made, the section fails); SEC_FAILED, SEC_USAGE or
     * SEC_NO_GPU end the section before any run (said). before: a run's
     * set-up (its environment, what it runs under): 0, 1 when the run is
     * not to be started (a failed check said), -1 when it cannot be (no run
     * after it). ended: the program ended (run->p, ok, how). keep: a
     * measured run that exited 0, its figures (after the parent's, before
     * the records'). done: once its records were read, or where before
     * succeeded and the run did not start; always after before. */
    int (*start)(sec_ctx *c, const pgk_plan *plan, const char *no_driver, void **state);
    int (*before)(sec_ctx *c, void *state, pgk_run *run);
    void (*ended)(sec_ctx *c, void *state, pgk_run *run);
    void (*keep)(sec_ctx *c, void *state, const pgk_run *run);
    void (*done)(sec_ctx *c, void *state, const pgk_run *run);
    /* The run reached its ready point (pgk_ready_at: when, and by what). A
     * kind with this hook makes the runner watch each run of a probed side
     * for it (readiness.h): called at most once a run, while the program
     * runs, on the runner's ready thread: neither the thread that waits
     * for the program nor the sampler's, so it may take seconds (the
     * program runs on meanwhile, or waits where the hook holds it). It may
     * read run->side, si, name and recdir, and its own state; it writes
     * its state only: no results (the waiting thread stores them from
     * ended, keep or done, after this hook returned: the runner joins its
     * thread before ended). It returns before the run's end is handled:
     * a hook still running when the program exits is waited for. */
    void (*ready)(sec_ctx *c, void *state, const pgk_run *run, const pgk_ready_at *at);
    /* In place of the measured rounds: a search, one try_run a run (the
     * warm-ups are of its settings only). Returns 0, or -1 when a run
     * could not be started; why it stopped into stop. search_run names its
     * runs ("--squeeze=auto run"), search_tag their output files. */
    int (*search)(sec_ctx *c, void *state, pgk_try_fn try_run, void *arg, char *stop,
                  size_t stoplen);
    const char *search_run, *search_tag;
    /* The conclusions: conclude before every other (its derived entries and
     * answers; returns the failures it found), answer after the headline's
     * sentence (from the results alone). */
    int (*conclude)(sec_ctx *c, void *state, const pgk_plan *plan);
    void (*answer)(results *r, const pgk_plan *plan);
    void (*stop)(void *state);
    /* What it adds to the report and to --schema: its lines of the
     * program's table, from the results alone (nothing where the results
     * are not of a run that asked for it), and the declarations of the
     * derived entries it stores. Two kinds that share them name them once. */
    void (*print)(FILE *f, const results *r);
    void (*schema)(sch_out *o);
    /* The declarations of the measurements it stores itself (res_append),
     * printed before sch_derived(o), where schema's are after. */
    void (*schema_figures)(sch_out *o);
} pgk_kind;

/* The kinds, in the order their hooks are called: X(name) declares the row
 * pgk_<name> (defined in its own file). */
#define PGK_KINDS(X) X(squeeze) X(squeeze_auto) X(none) X(loading) X(env) X(jit_cache) X(commands) \
    X(snapshot)
#define PGK_DECLARE(name) extern const pgk_kind pgk_##name;
PGK_KINDS(PGK_DECLARE)
#undef PGK_DECLARE
#define PGK_COUNT(name) +1
#define PGK_NKINDS (0 PGK_KINDS(PGK_COUNT))

/* The sides of a run and the kinds in effect. */
struct pgk_plan {
    pgk_side side[PG_MAX_SIDES];
    size_t nsides;
    size_t nsettings;       /* the first nsettings sides are probed (or, without a
                               probe, bare); then the same settings bare */
    int probe;              /* 1: the probe is there */
    const pgk_kind *maker;  /* the kind that made the sides */
    const pgk_kind *on[PGK_NKINDS]; /* the kinds asked, in PGK_KINDS's order */
    void *state[PGK_NKINDS];        /* what each one's start made */
    size_t non;
    int searching;          /* 1: a kind searches in place of the measured rounds */
};

/* The kinds the options ask for, and their sides: each setting probed
 * (where the probe is, probe 1), then each bare. */
void pgk_plan_make(pgk_plan *plan, const cli_opts *o, int probe);

/* The command as one line of words (with --compare, each command, the
 * separator between them), into buf; one that fills buf ends with
 * " [cut here: command_line holds the whole]" (the environment's
 * command_line is never cut). */
void pgk_command_line(const pgk_plan *plan, const cli_opts *o, char *buf, size_t len);

/* The environment fields of the sides (the printer and scripts read
 * them): program_compare, program_setting, program_settings,
 * program_side<i>_key, _label, _command and, for a side compared with
 * another than its group's first, _against (that side's label). */
void pgk_env_fields(results *r, const pgk_plan *plan, const cli_opts *o);

/* The headline figures' keys into key[] (at most 4), the count: as the
 * maker says, on the clock inside where r holds the first side's
 * in.first_kernel. */
size_t pgk_headline(const pgk_plan *plan, const results *r, const char **key);

/* The kinds' hooks, in order (those without one passed over). pgk_start:
 * the worst status of the starts (a kind whose start ended the section
 * stops the rest). pgk_before: stops at the first that does not return 0
 * and returns that, *begun the kinds whose before ran and succeeded, to
 * pass to pgk_done. pgk_conclude: the failures found. */
int pgk_start(pgk_plan *plan, sec_ctx *c, const char *no_driver);
int pgk_before(pgk_plan *plan, sec_ctx *c, pgk_run *run, size_t *begun);
void pgk_ended(pgk_plan *plan, sec_ctx *c, pgk_run *run);
void pgk_keep(pgk_plan *plan, sec_ctx *c, const pgk_run *run);
void pgk_done(pgk_plan *plan, sec_ctx *c, const pgk_run *run, size_t begun);
/* pgk_wants_ready: 1 when a kind asked has a ready hook. pgk_ready: the
 * kinds' ready hooks, in order (the ready thread's). */
int pgk_wants_ready(const pgk_plan *plan);
void pgk_ready(pgk_plan *plan, sec_ctx *c, const pgk_run *run, const pgk_ready_at *at);
int pgk_search(pgk_plan *plan, sec_ctx *c, pgk_try_fn try_run, void *arg, char *stop,
               size_t stoplen);
int pgk_conclude(pgk_plan *plan, sec_ctx *c);
void pgk_answer(const pgk_plan *plan, results *r);
void pgk_stop(pgk_plan *plan);

/* Every kind's lines of the report (from r alone) and declarations for
 * --schema, in PGK_KINDS's order. */
void pgk_print(FILE *f, const results *r);
void pgk_schema(sch_out *o);
void pgk_schema_figures(sch_out *o);

#endif
