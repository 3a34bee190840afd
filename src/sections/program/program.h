/* program.h: the user's own program (-- CMD): the entry points the list
 * calls (program.c, program_table.c), and what the folder's modules share.
 * The modules, each with its own state (docs/architecture.md says how they
 * fit): figures.h (what is stored, declared once), setting.h (the kinds of
 * setting and their sides), runner.h (the runs), sampler.h (what is
 * watched during one), tally.h (records to figures and tallies),
 * conclude.h and sentences.h (the conclusions, in numbers and in words),
 * recdir.h (a run's records read), setting_squeeze.h and
 * squeeze_holder.h (--squeeze), program_device.h (the device named). */
#ifndef PROGRAM_H
#define PROGRAM_H

#include <stdio.h>
#include "core/results.h"
#include "core/schema.h"
#include "run/section.h"

#define PG "program"

/* The sides a run can be on (setting.h): each setting compared
 * (CLI_MAX_SETTINGS: a value of --compare-env, a mode of --compare-loading,
 * a cache state of --jit-cache, a command of --compare) under the probe
 * and, for the probe's own cost, the same settings without it
 * ("bare.<side>"). */
#define PG_MAX_SIDES (2 * CLI_MAX_SETTINGS)

/* The most CUDA processes of one run kept apart (per process figures
 * "proc<i>.<side>.<figure>", i from 1 by the order the probe was loaded). */
#define PG_MAX_PROCS 16

/* Claim the directory the program's output goes to, before anything is
 * written: --program-output=DIR, else "<FILE>.program" beside --json=FILE
 * where FILE is a regular file or not there yet (not beside "-", /dev/null,
 * /dev/full, a FIFO: then the output goes to a temporary directory, removed
 * at the end). It is made where it is not there, and locked (flock,
 * held until this process ends). Returns 0, or -1 after saying on stderr
 * why (it cannot be made; another harness run holds it): a usage error. */
int pg_claim_output(const cli_opts *o);

/* Run the program --rounds times a side and store (section PG):
 *   measurements "<side>.<figure>" (one sample per run that exited 0;
 *     side "lazy", "eager", "default", "bare.lazy", ...; figure one of
 *     pgf_figs (figures.h) or, on probed sides, prc_figs: at.* the earliest of the
 *     run's CUDA processes, the others summed over them), and
 *     "proc<i>.<side>.<figure>" where a run had several CUDA processes;
 *   derived "compare.<figure>" (EAGER against LAZY, verdict.h),
 *     "probe_cost.<side>.<wall|mem.peak>" (bare against probed),
 *     "slowest.<side>.<rank>" (the slowest first uses, median over runs),
 *     "answer.<what>" (the sentences);
 *   checks: each run exited 0, each record read;
 *   env: program_* (the command, sides, rounds, probe, CUPTI, outputs).
 * Returns SEC_OK; SEC_FAILED when a run failed or a record was refused;
 * SEC_NO_GPU when no CUDA driver is there (the program still ran). */
sec_status pg_run(sec_ctx *c);

/* The tables: each figure per side with its interval, the verdicts, the
 * probe's cost, per process, the slowest first uses, the sentences. */
void pg_print(FILE *f, const results *r);

/* Print the first run's stdout and stderr as --show-output kept them (env
 * program_first_stdout_text, program_first_stderr_text); nothing without.
 * pg_print ends with it. */
void pg_print_output(FILE *f, const results *r);

#endif
