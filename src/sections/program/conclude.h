/* conclude.h: the program entry's conclusions in numbers, from the results
 * and the tallies alone: the verdicts of every figure (each later setting
 * against the first, probed and bare, each process), the probe's own cost,
 * the ranked first uses per side, and --preload-list. The sentences are
 * sentences.h's. */
#ifndef CONCLUDE_H
#define CONCLUDE_H

#include <stddef.h>
#include "core/results.h"
#include "sections/program/setting.h"
#include "sections/program/tally.h"

/* The first uses after ready ranked per side ("ready.<side>.<rank>"). */
#define PGC_READY_LIST 20

/* The key of figure fk's verdict, side against the first of its group:
 * with two settings "compare.<bare.>fk", with more "compare.<key of side>.fk". */
void pgc_compare_key(const pgk_plan *plan, size_t side, const char *fk, char *buf, size_t len);

/* The samples of "<prefix><side>.<fk>", NULL when absent (prefix, side and
 * fk shorter than 32, 64 and 61 bytes: "proc<i>.", a side's key, a figure's). */
const res_meas *pgc_meas(const results *r, const char *prefix, const char *side, const char *fk);

/* Every later setting against the first (EAGER against LAZY, warm against
 * cold, B against A), figure by figure, probed and bare (the bare sides at
 * VD_ALPHA: their count was fixed in advance), at level alpha; with two
 * settings, each process too. Derived "compare.*" (vd_store). */
void pgc_compare(results *r, const pgk_plan *plan, double alpha, double threshold);

/* The probe's own cost per probed side: bare against probed on pgf_cost's
 * figures, derived "probe_cost.<side>.<fig>" (value the difference, field
 * pct_of_bare: its share of the bare median). */
void pgc_probe_cost(results *r, const pgk_plan *plan);

/* Each side's slowest first uses (PRC_SLOWEST, "slowest.<side>.<rank>",
 * fields get_ms, launch_ms) and first uses after ready (PGC_READY_LIST,
 * "ready.<side>.<rank>", field after_ms): each kernel's median over the
 * runs it came in, slowest first, with fields runs and times. */
void pgc_slowest(results *r, const pgk_plan *plan, const pgt_tally *t);
void pgc_ready_list(results *r, const pgk_plan *plan, const pgt_tally *t);

/* --preload-list=path: every kernel first used after ready on a probed
 * side, from the ranked lists, written whole (env program_preload_list).
 * Returns 0 (nothing to do without path), or -1 when it could not be
 * written (said on stderr). */
int pgc_write_preload(results *r, const pgk_plan *plan, const char *path);

#endif
