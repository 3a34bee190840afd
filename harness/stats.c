/* stats.c: summary statistics of timing samples and a distribution-free CI of the median. */
#include "stats.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The binomial sums in st_median_ci_ranks are kept as mantissa * 2^scale;
 * once the running sum passes RESCALE_AT both are multiplied by 2^-RESCALE_BITS. */
#define RESCALE_BITS 600
#define RESCALE_AT 0x1p600

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted copy of x[0..n), or NULL when n == 0, x is NULL or malloc fails. */
static double *sorted_copy(const double *x, size_t n)
{
    double *s;

    if (n == 0 || x == NULL || n > SIZE_MAX / sizeof *s)
        return NULL;
    s = malloc(n * sizeof *s);
    if (s == NULL)
        return NULL;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

/* Median of sorted s[0..n), n >= 1. */
static double median_sorted(const double *s, size_t n)
{
    double a, b, m;

    if (n % 2 == 1)
        return s[n / 2];
    a = s[n / 2 - 1];
    b = s[n / 2];
    m = (a + b) / 2.0;           /* correctly rounded unless a + b overflows */
    if (isinf(m) && !isinf(a) && !isinf(b))
        m = a / 2.0 + b / 2.0;
    return m;
}

/* ldexp(m, scale - n) without int overflow of the exponent. */
static double scaled_to_prob(double m, long long scale, size_t n)
{
    long long e;

    if (n > (size_t)LLONG_MAX / 2)
        return 0.0;
    e = scale - (long long)n;
    if (e < INT_MIN)
        return 0.0;
    if (e > INT_MAX)
        e = INT_MAX;
    return ldexp(m, (int)e);
}

/*
 * With B ~ Binomial(n, 1/2) and sorted samples x_(1..n) (1-based), the
 * interval [x_(j), x_(n-j+1)] covers the population median with probability
 * 1 - 2 P(B <= j-1). The coverage falls as j grows, so walk j = 1, 2, ...
 * (j <= (n+1)/2 keeps the interval non-empty) and keep the last j whose
 * coverage is >= level.
 *
 * C(n, i) is built by the exact recurrence C(n, i+1) = C(n, i) (n-i) / (i+1)
 * and summed, both held as mantissa * 2^scale (power-of-two rescaling is
 * exact), so nothing underflows even for n = 10^6, where 2^-n alone would.
 * For C(n, i) < 2^53 every step is exact; beyond that the relative error is
 * about j ulps, i.e. ~1e-10 at n = 10^6.
 */
double st_median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi)
{
    size_t j, jmax, best_j = 0;
    double term = 1.0;   /* C(n, j-1) * 2^-scale */
    double cum = 1.0;    /* sum_{i < j} C(n, i) * 2^-scale */
    long long scale = 0;
    double cov, cov1 = 0.0, best_cov = 0.0;

    if (n == 0) {        /* outside the contract; answer something harmless */
        *lo = 0;
        *hi = 0;
        return NAN;
    }
    jmax = n / 2 + n % 2;        /* (n + 1) / 2 without overflow */
    for (j = 1; j <= jmax; j++) {
        cov = 1.0 - 2.0 * scaled_to_prob(cum, scale, n);
        if (cov < 0.0)           /* rounding at the centre (exactly 0 for odd n) */
            cov = 0.0;
        if (j == 1)
            cov1 = cov;
        if (!(cov >= level))     /* also stops on a NaN level */
            break;
        best_j = j;
        best_cov = cov;
        if (j == jmax)
            break;
        /* term: C(n, j-1) -> C(n, j); multiply first so small cases stay exact */
        term = term * (double)(n - (j - 1)) / (double)j;
        cum += term;
        if (cum > RESCALE_AT) {
            term = ldexp(term, -RESCALE_BITS);
            cum = ldexp(cum, -RESCALE_BITS);
            scale += RESCALE_BITS;
        }
    }
    if (best_j == 0) {           /* even [x_(1), x_(n)] falls short of level */
        *lo = 0;
        *hi = n - 1;
        return cov1;
    }
    *lo = best_j - 1;
    *hi = n - best_j;
    return best_cov;
}

/* Returns NaN when n == 0 or when the scratch copy cannot be allocated. */
double st_median(const double *x, size_t n)
{
    double *s = sorted_copy(x, n);
    double m;

    if (s == NULL)
        return NAN;
    m = median_sorted(s, n);
    free(s);
    return m;
}

/*
 * If the sorted scratch copy cannot be allocated, the fields that need order
 * statistics (median, ci_low, ci_high, ci_level) are NaN; n, min, max, mean,
 * stdev and cv are still filled in from the unsorted input.
 */
st_summary st_summarize(const double *x, size_t n)
{
    st_summary r;
    const double *v;     /* the sorted copy when there is one, else x */
    double *s;
    double sum = 0.0, dsum = 0.0, sq = 0.0, var;
    size_t i, lo, hi;

    r.n = 0;
    r.min = r.max = r.median = r.mean = NAN;
    r.stdev = r.cv = NAN;
    r.ci_low = r.ci_high = r.ci_level = NAN;
    if (n == 0 || x == NULL)
        return r;
    r.n = n;

    s = sorted_copy(x, n);
    v = s != NULL ? s : x;

    if (s != NULL) {
        r.min = s[0];
        r.max = s[n - 1];
    } else {
        r.min = r.max = x[0];
        for (i = 1; i < n; i++) {
            if (x[i] < r.min)
                r.min = x[i];
            if (x[i] > r.max)
                r.max = x[i];
        }
    }

    /* Two passes: a provisional mean, then deviations from it. The mean is
     * corrected by the mean deviation, and the variance uses the corrected
     * two-pass formula (Chan, Golub & LeVeque 1983):
     *   sum d^2 - (sum d)^2 / n,  d = x - provisional mean. */
    for (i = 0; i < n; i++)
        sum += v[i];
    r.mean = sum / (double)n;
    for (i = 0; i < n; i++) {
        double d = v[i] - r.mean;
        dsum += d;
        sq += d * d;
    }
    var = n > 1 ? (sq - dsum * dsum / (double)n) / (double)(n - 1) : 0.0;
    r.mean += dsum / (double)n;
    if (r.mean < r.min)          /* rounding must not leave [min, max] */
        r.mean = r.min;
    if (r.mean > r.max)
        r.mean = r.max;
    r.stdev = var > 0.0 ? sqrt(var) : 0.0;
    r.cv = (n < 2 || r.mean == 0.0) ? 0.0 : r.stdev / r.mean;

    if (s != NULL) {
        r.median = median_sorted(s, n);
        r.ci_level = st_median_ci_ranks(n, 0.95, &lo, &hi);
        r.ci_low = s[lo];
        r.ci_high = s[hi];
        free(s);
    }
    return r;
}

double st_noise(const st_summary *s)
{
    double below, above, d;

    if (s == NULL || s->n == 0 || s->median == 0.0)
        return INFINITY;
    below = s->median - s->ci_low;
    above = s->ci_high - s->median;
    d = (below > above ? below : above) / fabs(s->median);
    return isnan(d) ? INFINITY : d;
}

st_verdict st_stop(const st_rule *rule, const double *x, size_t n,
                   double elapsed_s, int *noisy)
{
    int enough = n >= rule->min_samples;
    int time_up = rule->max_time_s > 0.0 && elapsed_s >= rule->max_time_s;
    int count_up = rule->max_samples > 0 && n >= rule->max_samples;
    int tight;
    st_summary s;

    *noisy = 0;
    if (n == 0 || x == NULL)
        return ST_GO_ON;
    if (!enough && !time_up && !count_up)
        return ST_GO_ON;         /* spare the summary while it cannot matter */
    s = st_summarize(x, n);
    tight = st_noise(&s) <= rule->max_noise;   /* false for NaN max_noise */
    if (enough && tight)
        return ST_STOP_CONVERGED;
    if (time_up || count_up) {
        *noisy = !enough || !tight;
        return time_up ? ST_STOP_TIME : ST_STOP_COUNT;
    }
    return ST_GO_ON;
}
