/* verdict.h: the comparison rule of the harness on two sets of samples of
 * one figure (one side's children or runs against the other's): the U
 * test, the noise band, the threshold, the words of the verdict, and the
 * verdicts stored as derived entries. Section loading (eager against lazy,
 * --module too) and the user's program (-- CMD) use it; it knows neither. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>
#include "core/results.h"

/* The U test's significance level a verdict needs, and the samples a side
 * needs for its noise to be known. */
#define VD_ALPHA 0.01
#define VD_MIN_NOISE 3

/* The fewest children (runs) a side at which the U test can reach VD_ALPHA
 * (st_mw_min_n): the default count of every comparison. */
int vd_children(void);

/* One verdict, a against b. */
typedef struct vd_result {
    char text[128];     /* "no difference", "<A> higher", "<B> higher", "unclear", or
                           "out of reach at N a side: the U test's smallest p is P" */
    int called;         /* 1: a difference was called ("<X> higher") */
    double p;           /* two-sided Mann-Whitney U test */
    double alpha;       /* the level p had to be under (VD_ALPHA, or a look's share) */
    double min_p;       /* the smallest p these counts can give (st_mw_min_p) */
    double a_median, b_median;
    double diff;        /* b_median - a_median */
    double noise;       /* what |diff| is judged against, in the figure's unit */
    double a_noise_pct, b_noise_pct;   /* each side's half band, percent of its median
                                          (0 with fewer than VD_MIN_NOISE samples) */
    size_t a_n, b_n;
} vd_result;

/* The verdict on a[0..an) against b[0..bn), named la and lb in the text:
 *   equal medians                                  -> "no difference"
 *   fewer than VD_MIN_NOISE samples on a side      -> out of reach (below),
 *                                                     else "unclear" (no noise)
 *   |diff| <= noise, or under min_pct percent of
 *   the lower median (--threshold)                 -> "no difference"
 *   beyond both, min_p >= VD_ALPHA                 -> "out of reach at 3 a side:
 *                                                     the U test's smallest p is 0.100"
 *   beyond both, p < VD_ALPHA                      -> "<la> higher", "<lb> higher"
 *   beyond both, p >= VD_ALPHA                     -> "unclear"
 * noise is the larger side's st_half_band (the central 95% of its
 * samples), at least floor_frac of the lower median. A change within the
 * noise is what the next sample could show, whatever p says; the threshold
 * stays because on the H200's VM the same eager load moved 20-40% between
 * and within runs. The sides alternate sample by sample, so a drift of the
 * host falls on both: there is no host term here. */
void vd_judge(const double *a, size_t an, const double *b, size_t bn, const char *la,
              const char *lb, double min_pct, double floor_frac, vd_result *v);

/* vd_judge at another level than VD_ALPHA: a look's share of it when a
 * comparison is looked at several times (vd_plan_looks); alpha 0 lets no
 * difference be called (a look that spends nothing). */
void vd_judge_at(const double *a, size_t an, const double *b, size_t bn, const char *la,
                 const char *lb, double min_pct, double floor_frac, double alpha, vd_result *v);

/* Repeated looks at a U test (runs added until the verdicts are decided):
 * Bonferroni over the looks that can call a difference. Runs go from
 * min_n to max_n a side, one look after each; a look at n a side can call
 * only where st_mw_min_p(n, n) < its level. first is the smallest n in
 * [min_n, max_n] at which n's smallest p is under VD_ALPHA / (max_n - n +
 * 1): the looks from first to max_n share VD_ALPHA equally (alpha each),
 * the looks before first call nothing (vd_judge_at with 0). When no n
 * qualifies, first is max_n + 1, looks 0 and alpha 0. */
typedef struct vd_looks {
    int first, looks;
    double alpha;
} vd_looks;
vd_looks vd_plan_looks(int min_n, int max_n);

/* The k-th of n sides (0 <= k < n) to run in round r, in a Williams
 * design: every round runs each side once, and over n rounds (2n for odd
 * n) each side comes right after every other side equally often, so that
 * what a run leaves behind (a heavy process's teardown, a warm cache)
 * falls on every side alike. Round 0 runs side 0 first; with n = 2 it is
 * AB, BA, AB, ... Returns 0 for n == 0. */
size_t vd_order(size_t n, size_t r, size_t k);

/* Store v as the derived entry (section, key) named name: value p, text the
 * verdict, fields p, threshold_pct (min_pct), alpha (v->alpha), min_p, <a>_median,
 * <b>_median, diff, noise, <a>_noise_pct, <b>_noise_pct, <a>_n, <b>_n (<a>,
 * <b>: la and lb in lower case). An earlier entry of the key is replaced.
 * Returns the entry, or NULL on out of memory. */
res_derived *vd_store(results *r, const char *section, const char *key, const char *name,
                      const vd_result *v, const char *la, const char *lb, double min_pct);

/* The smallest change in percent a verdict calls (--threshold), from the
 * environment field "compare_threshold_pct"; 20 when it is absent. */
double vd_threshold(const results *r);

/* The key of one verdict: "compare.<module>.<fmt>.<step>". */
void vd_key(char *buf, size_t len, const char *module, const char *fmt, const char *step);

/* The verdict on one module, format and step, from the measurements
 * "eager.<module>.<fmt>.<step>" and "lazy.<module>.<fmt>.<step>" of section
 * (one sample per child), EAGER against LAZY by vd_judge with a floor of
 * twice the environment's max_noise, stored by vd_store under vd_key
 * (fields eager_median, lazy_median, diff = lazy - eager, ...). Nothing
 * when either mode lacks the measurement. Returns 0, or -1 on out of
 * memory. */
int vd_compare_one(results *r, const char *section, const char *module, const char *fmt,
                   const char *step, double pct);

#endif
