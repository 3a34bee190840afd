/* verdict.h: eager against lazy: the rule by which two modes' children are
 * compared (scripts/compare's noise rule on one run a side), its level, and
 * the verdicts it stores as derived entries. Sections loading and its
 * --module part both use it; it knows nothing of either. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>
#include "results.h"

/* The U test's significance level a verdict needs, and the children a mode
 * needs for its noise to be known. */
#define VD_ALPHA 0.01
#define VD_MIN_NOISE 3

/* The fewest children a mode at which the U test can reach VD_ALPHA
 * (st_mw_min_n: 5 for 0.01; 3 a side cannot go below p = 0.1): the
 * default of --compare-loading's children per mode. */
int vd_children(void);

/* The smallest change in percent a verdict calls (--threshold), from the
 * environment field "compare_threshold_pct"; 20 when it is absent. */
double vd_threshold(const results *r);

/* The key of one verdict: "compare.<module>.<fmt>.<step>". */
void vd_key(char *buf, size_t len, const char *module, const char *fmt, const char *step);

/* The verdict on one module, format and step, from the measurements
 * "eager.<module>.<fmt>.<step>" and "lazy.<module>.<fmt>.<step>" of section
 * (one sample per child): one derived entry in section under vd_key, with
 *   text   "no difference", "LAZY higher", "EAGER higher", "unclear" (past
 *          the noise and the threshold, p not below VD_ALPHA where the
 *          counts could reach it), or "out of reach at 3 a side: the U
 *          test's smallest p is 0.100" ("at 3 EAGER and 2 LAZY": where the
 *          counts differ) where the counts cannot reach VD_ALPHA and the
 *          noise does not settle it
 *   value  p, the two-sided Mann-Whitney U test of the two sample sets
 *   fields p, threshold_pct (pct), alpha, min_p (the smallest p these
 *          counts can give, st_mw_min_p), eager_median, lazy_median,
 *          diff (lazy_median - eager_median),
 *          noise (what |diff| is judged against, in the figure's unit: the
 *          larger of the two modes' st_half_band at 0.95, at least twice the
 *          environment's max_noise of the lower median),
 *          eager_noise_pct, lazy_noise_pct (each mode's half band, percent
 *          of its median; 0 with fewer than VD_MIN_NOISE children),
 *          eager_n, lazy_n
 * Nothing when either mode lacks the measurement. An earlier verdict of the
 * same key is replaced. Returns 0, or -1 on out of memory. */
int vd_compare_one(results *r, const char *section, const char *module, const char *fmt,
                   const char *step, double pct);

#endif
