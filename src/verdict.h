/* verdict.h: the comparison rule of the harness, on two sets of samples of
 * one figure (a side's runs against the other's): the U test, the noise
 * band, the threshold, and the words of the verdict. Pure: no I/O. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>
#include "results.h"

typedef struct vd_result {
    char text[96];      /* "no difference", "<A> higher", "<B> higher", "unclear",
                           or "out of reach at N a side (the U test's least p is P)" */
    int called;         /* 1: a difference was called (text "<X> higher") */
    double p;           /* two-sided Mann-Whitney U test, a against b */
    double least_p;     /* the smallest p these counts can give (both sides apart) */
    double a_median, b_median;
    double diff;        /* b_median - a_median */
    double noise;       /* what |diff| is judged against (the figure's unit) */
    size_t a_n, b_n;
} vd_result;

/* The verdict on a against b (labels la, lb name them in the text):
 *   equal medians                               -> "no difference"
 *   fewer than 2 samples on a side              -> "unclear" (no noise known)
 *   |diff| within the noise (the larger side's st_half_band at 0.95, at
 *   least floor_frac of the lower median) or under min_pct percent of the
 *   lower median                                -> "no difference"
 *   beyond both, least_p >= alpha               -> "out of reach at ..."
 *   beyond both, p < alpha                      -> "<la> higher" / "<lb> higher"
 *   beyond both, p >= alpha                     -> "unclear"
 * The sides' runs alternate, so a drift of the host falls on both. */
void vd_judge(const double *a, size_t an, const double *b, size_t bn, const char *la,
              const char *lb, double min_pct, double floor_frac, double alpha, vd_result *v);

/* Store v as the derived entry (section, key) named name: value p, text
 * the verdict, fields p, least_p, alpha, threshold_pct, <a>_median,
 * <b>_median, diff, noise, <a>_n, <b>_n (a, b: la and lb in lower case).
 * Returns the entry, or NULL on out of memory. */
res_derived *vd_store(results *r, const char *section, const char *key, const char *name,
                      const vd_result *v, const char *la, const char *lb, double min_pct,
                      double alpha);

#endif
