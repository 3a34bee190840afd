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

#endif
