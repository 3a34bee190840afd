/* sentences.h: the program entry's answers in words (derived
 * "answer.<what>", declared in figures.h), made from the results, the
 * tallies and the runs' counts alone: nothing is measured here, and what
 * they read they do not change. The kinds of setting word their own
 * (setting.h) with the helpers below. */
#ifndef SENTENCES_H
#define SENTENCES_H

#include <stddef.h>
#include "core/results.h"
#include "sections/program/figures.h"
#include "sections/program/runner.h"
#include "sections/program/setting.h"
#include "sections/program/tally.h"

/* What the sentences are made from. */
typedef struct pga_in {
    results *r;             /* read, and the answers stored into it */
    const cli_opts *o;
    const pgk_plan *plan;
    const pgt_tally *t;
    const pgr_counts *n;
} pga_in;

/* The headline in words: the first kernel on the clock inside the process,
 * then from the spawn ("answer.cold_start"); the whole process where that
 * is not measured or the kind says so ("answer.wall"). Nothing with one
 * setting, or where a search replaced the rounds. */
void pga_headline(const pga_in *in);

/* The hazards, per probed side: the first uses after ready
 * ("answer.ready"), the tightest load ("answer.headroom"), first launches
 * many times the later ones ("answer.autotune"), first uses beside busy
 * streams ("answer.concurrent"). */
void pga_hazards(const pga_in *in);

/* What the runs came to: the rounds the answer took ("answer.rounds"), the
 * loading mode in effect ("answer.mode.<side>"), the probe's own cost
 * ("answer.probe_cost"), whether CUDA was used ("answer.cuda") and CUPTI
 * answered ("answer.cupti"), the runs that failed ("answer.failed"). */
void pga_outcome(const pga_in *in);

/* Helpers. The median of "<side>.<fig>", NaN when absent. */
double pga_med(const results *r, const char *side, const char *fig);
/* The verdict text of "compare.<fig>", "" when none. */
const char *pga_verdict(const results *r, const char *fig);
/* Store answer id (key the pattern filled in, or NULL for the declared key). */
void pga_store(results *r, enum pgf_derived_id id, const char *key, double value, const char *text);
/* A figure's medians over the settings, "LAZY 360 ms, EAGER 3800 ms", into
 * t; the length written. */
size_t pga_medians(const results *r, const pgk_plan *plan, const char *fk, const char *unit, char *t,
                   size_t len);
/* The verdicts of figure fk, each later setting against the first or the
 * one it is compared with, into t ("EAGER: faster ...; EAGER snapshot
 * against EAGER: ..."; more than one against the first in the same words
 * said once: "each against LAZY: no difference"). */
void pga_verdicts(const results *r, const pgk_plan *plan, const char *fk, char *t, size_t len);

#endif
