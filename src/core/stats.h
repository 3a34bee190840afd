/* stats.h: samples -> summary statistics (min, median, mean, max, stdev, CV,
 * and a distribution-free confidence interval of the median). */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

typedef struct st_summary {
    size_t n;          /* number of samples summarised */
    double min, max;
    double median;     /* headline figure; mean of the two middle values for even n */
    double mean;
    double stdev;      /* sample standard deviation (n - 1); 0 when n < 2 */
    double cv;         /* stdev / mean; 0 when mean == 0 or n < 2 */
    double ci_low;     /* confidence interval of the median from order statistics */
    double ci_high;
    double ci_level;   /* exact coverage of [ci_low, ci_high] (e.g. 0.979 for n = 10);
                          below 0.95 only when n is too small to reach it (n < 6),
                          in which case the interval is [min, max] */
} st_summary;

/* Summarise n samples (the array is not modified). n == 0 gives a summary of
 * NaNs with n = 0. Samples must not be NaN (callers never store NaN). */
st_summary st_summarize(const double *x, size_t n);

/* Order-statistic ranks (0-based, inclusive) [*lo, *hi] of the shortest
 * interval symmetric around the median whose coverage of the population
 * median is at least `level`; returns that exact coverage. When no such
 * interval exists for this n, returns the coverage of [0, n-1]. n >= 1. */
double st_median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi);

/* Median of n samples (n >= 1). */
double st_median(const double *x, size_t n);

/*
 * The stopping rule for one measurement. After each new sample the caller
 * asks whether to go on, passing all n samples so far and the time spent:
 *
 *  - ST_STOP_CONVERGED once n >= min_samples and st_noise() of the samples is
 *    <= max_noise (a fraction, 0.01 = 1%), i.e. the 95% interval of the median
 *    lies within max_noise of the median on both sides. For n <= 5 the
 *    interval cannot reach 95% and is [min, max] (see st_summary.ci_level);
 *    convergence is still declared when that interval is tight enough, so a
 *    min_samples below 6 accepts a weaker interval (min_samples 0 acts as 1).
 *  - otherwise ST_STOP_TIME once n >= 1 and elapsed_s >= max_time_s, even
 *    when n < min_samples;
 *  - otherwise ST_STOP_COUNT once n >= max_samples, even when n < min_samples
 *    (the count is a hard cap, so a caller may size its buffer by it);
 *  - otherwise ST_STOP_OUT_OF_REACH once n >= min_samples, a share of at
 *    least ST_REACH_SHARE of a limit is spent (elapsed_s / max_time_s or
 *    n / max_samples), and the noise, narrowed as 1 / sqrt(n) to the sample
 *    count of the nearer limit (max_samples, or n * max_time_s / elapsed_s
 *    at the rate so far), would still be above max_noise: the limit would
 *    end it noisy anyway, so the rest of its time buys nothing the rule
 *    promised. A median of 0 (infinite noise) is out of reach too;
 *  - otherwise ST_GO_ON. With n < min_samples this is the only answer, short
 *    of the two limits above; n == 0 always gives ST_GO_ON.
 *
 * The checks run in that order, so a sample that both converges and hits a
 * limit reports ST_STOP_CONVERGED. max_samples 0 means no count limit;
 * max_time_s <= 0 (or NaN) means no time limit; with neither, nothing is out
 * of reach. A NaN or negative max_noise never converges.
 *
 * *noisy is always written: 1 when the measurement stopped on a limit
 * (ST_STOP_TIME or ST_STOP_COUNT) with n < min_samples or its noise above
 * max_noise, or out of reach, else 0 (always 0 with ST_GO_ON and
 * ST_STOP_CONVERGED). Given the order above, a limit is only reached
 * unconverged, so today noisy is 1 exactly when the verdict is ST_STOP_TIME,
 * ST_STOP_COUNT or ST_STOP_OUT_OF_REACH.
 *
 * rule and noisy must not be NULL; x may be NULL only when n == 0. The samples
 * are not modified. Each call summarises all n samples (O(n log n), one
 * allocation); calls with n < min_samples and no limit reached do not.
 * If the allocation fails the noise counts as infinite (never converges).
 */
typedef enum st_verdict {
    ST_GO_ON,
    ST_STOP_CONVERGED,
    ST_STOP_TIME,
    ST_STOP_COUNT,
    ST_STOP_OUT_OF_REACH
} st_verdict;

/* The share of a limit spent before a measurement may be judged out of reach. */
#define ST_REACH_SHARE 0.25

typedef struct st_rule {
    size_t min_samples, max_samples;   /* max_samples 0: no count limit */
    double max_noise;                  /* fraction of the median, 0.01 = 1% */
    double max_time_s;                 /* <= 0: no time limit */
} st_rule;

st_verdict st_stop(const st_rule *rule, const double *x, size_t n,
                   double elapsed_s, int *noisy);

/* The relative half-width of the median's interval:
 * max(median - ci_low, ci_high - median) / |median|. Infinity when s is NULL,
 * s->n is 0, the median is 0, or the result is otherwise NaN (e.g. the
 * order-statistic fields are NaN after an allocation failure). */
double st_noise(const st_summary *s);

/* Half the width of the range that holds the central share `cover`
 * (0 < cover <= 1) of x[0..n): (q(1 - (1 - cover) / 2) - q((1 - cover) / 2)) / 2,
 * where q(f) interpolates linearly between the order statistics around
 * position f (n - 1) (0-based), as scripts/compare does. With cover 0.95 it
 * is how far one more sample typically lands from the median: the noise a
 * difference of medians is judged against. 0 for n == 1; NaN when n is 0,
 * x is NULL, cover is outside (0, 1] or an allocation fails. The array is
 * not modified. */
double st_half_band(const double *x, size_t n, double cover);

/*
 * Two-sided Mann-Whitney U test of samples a[0..m) against b[0..n): the
 * probability, under "both come from one distribution", of a rank sum at
 * least as far from its mean as the one seen. Exact (the distribution of U
 * counted by dynamic programming) when m < 8 or n < 8 and no value is tied;
 * otherwise the normal approximation with tie-corrected variance and a
 * continuity correction. Returns 1 when every value is tied, NaN when m or n
 * is 0 or an allocation fails. *u_a (optional) receives U for a. The
 * arrays are not modified. Matches scripts/compare's test.
 */
double st_mann_whitney(const double *a, size_t m, const double *b, size_t n, double *u_a);

/* The smallest two-sided p st_mann_whitney can give m samples against n:
 * that of two sets wholly apart, 2 / C(m+n, m) while the test is exact
 * (0.1 at 3 against 3, 2/252 at 5 against 5). NaN when m or n is 0 or an
 * allocation fails. */
double st_mw_min_p(size_t m, size_t n);

/* The fewest samples a side, n against n, at which st_mann_whitney can give
 * p < alpha (strictly: a verdict needs p below its level): 5 for 0.01
 * (2/252 = 0.0079; 4 a side give 2/70 = 0.029), 4 for 0.05 and for 0.1
 * (3 a side give exactly 0.1), 3 for 0.2, 2 for 0.5. 0 when no n up to
 * 1000 reaches it (alpha <= 0, or NaN). */
size_t st_mw_min_n(double alpha);

#endif
