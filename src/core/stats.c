/* stats.c: summary statistics of timing samples and a distribution-free CI of the median. */
#include "core/stats.h"

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

/* The f-quantile (0 <= f <= 1) of sorted s[0..n), n >= 1, interpolated
 * linearly between the order statistics around position f (n - 1). */
static double quantile_sorted(const double *s, size_t n, double f)
{
    double pos = f * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : n - 1;
    return s[lo] + (s[hi] - s[lo]) * (pos - (double)lo);
}

double st_half_band(const double *x, size_t n, double cover)
{
    double *s, tail, h;

    if (!(cover > 0.0 && cover <= 1.0))
        return NAN;
    if ((s = sorted_copy(x, n)) == NULL)
        return NAN;
    tail = (1.0 - cover) / 2.0;
    h = (quantile_sorted(s, n, 1.0 - tail) - quantile_sorted(s, n, tail)) / 2.0;
    free(s);
    return h;
}

/* 1 when the noise of n samples, narrowed as 1 / sqrt(n) to the sample count
 * of the nearer limit, would still be above the rule's max_noise, once a
 * share of ST_REACH_SHARE of a limit is spent (st_stop's contract); else 0. */
static int st_out_of_reach(const st_rule *rule, size_t n, double elapsed_s, double noise)
{
    double at_limit = INFINITY, spent = 0.0;

    if (rule->max_time_s > 0.0 && elapsed_s > 0.0) {
        at_limit = (double)n * rule->max_time_s / elapsed_s;
        spent = elapsed_s / rule->max_time_s;
    }
    if (rule->max_samples > 0) {
        at_limit = fmin(at_limit, (double)rule->max_samples);
        spent = fmax(spent, (double)n / (double)rule->max_samples);
    }
    /* A share spent means a limit is set, so at_limit is finite here. */
    if (!(spent >= ST_REACH_SHARE) || !(rule->max_noise >= 0.0))
        return 0;
    return noise * sqrt((double)n / at_limit) > rule->max_noise;
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
    if (enough && st_out_of_reach(rule, n, elapsed_s, st_noise(&s))) {
        *noisy = 1;
        return ST_STOP_OUT_OF_REACH;
    }
    return ST_GO_ON;
}

/* One value and the sample it came from, for ranking two samples together. */
typedef struct mw_val {
    double v;
    int from_a;
} mw_val;

static int cmp_mw(const void *a, const void *b)
{
    double x = ((const mw_val *)a)->v, y = ((const mw_val *)b)->v;
    return (x > y) - (x < y);
}

/* The two-sided p of U = u for m and n untied values, from the exact
 * distribution: counts[v] of the orderings with U = v are the coefficients of
 * the Gaussian binomial [m+n choose m]_q, built by multiplying by
 * (1 - q^(n+i)) / (1 - q^i) for i = 1..m. Doubles hold the counts exactly
 * while C(m+n, m) < 2^53 (m, n < 8: at most C(14, 7) = 3432) and to within
 * rounding beyond. Returns NaN when allocation fails. */
static double mw_exact(size_t m, size_t n, double u)
{
    size_t top = m * n, i, k = (size_t)(u + 0.5), v;
    double *c = calloc(top + 1, sizeof *c), lo = 0, hi = 0, all = 0, p;

    if (!c) return NAN;
    c[0] = 1;
    for (i = 1; i <= m; i++) {
        for (v = top; v >= n + i && v <= top; v--) c[v] -= c[v - n - i];
        for (v = i; v <= top; v++) c[v] += c[v - i];
    }
    for (v = 0; v <= top; v++) {
        all += c[v];
        if (v <= k) lo += c[v];
        if (v >= k) hi += c[v];
    }
    free(c);
    p = 2.0 * (lo < hi ? lo : hi) / all;
    return p < 1.0 ? p : 1.0;
}

double st_mann_whitney(const double *a, size_t m, const double *b, size_t n, double *u_a)
{
    size_t big = m + n, i, j;
    mw_val *x;
    double ra = 0, tie_term = 0, u, mu, var, z;
    int tied = 0;

    if (u_a) *u_a = NAN;
    if (m == 0 || n == 0 || !a || !b || big > SIZE_MAX / sizeof *x) return NAN;
    x = malloc(big * sizeof *x);
    if (!x) return NAN;
    for (i = 0; i < m; i++) { x[i].v = a[i]; x[i].from_a = 1; }
    for (i = 0; i < n; i++) { x[m + i].v = b[i]; x[m + i].from_a = 0; }
    qsort(x, big, sizeof *x, cmp_mw);
    for (i = 0; i < big; i = j) {
        double rank, t;
        size_t k;
        for (j = i + 1; j < big && x[j].v == x[i].v; j++) {}
        rank = (double)(i + j - 1) / 2.0 + 1.0;       /* mean rank of the tie */
        for (k = i; k < j; k++)
            if (x[k].from_a) ra += rank;
        t = (double)(j - i);
        if (j - i > 1) { tied = 1; tie_term += t * t * t - t; }
    }
    free(x);
    u = ra - (double)m * ((double)m + 1) / 2.0;
    if (u_a) *u_a = u;
    if ((m < 8 || n < 8) && !tied) return mw_exact(m, n, u);
    mu = (double)m * (double)n / 2.0;
    var = (double)m * (double)n / 12.0 *
          (((double)big + 1) - tie_term / ((double)big * ((double)big - 1)));
    if (!(var > 0)) return 1.0;
    z = fabs(u - mu) - 0.5;
    if (z < 0) z = 0;
    z /= sqrt(var);
    z = erfc(z / sqrt(2.0));
    return z < 1.0 ? z : 1.0;
}

double st_mw_min_p(size_t m, size_t n)
{
    double *x, p;
    size_t i;

    if (m == 0 || n == 0 || m > SIZE_MAX / sizeof *x - n) return NAN;
    if (!(x = malloc((m + n) * sizeof *x))) return NAN;
    for (i = 0; i < m + n; i++) x[i] = (double)i;     /* a below b, no ties */
    p = st_mann_whitney(x, m, x + m, n, NULL);
    free(x);
    return p;
}

size_t st_mw_min_n(double alpha)
{
    size_t n;
    if (!(alpha > 0)) return 0;
    for (n = 1; n <= 1000; n++)
        if (st_mw_min_p(n, n) < alpha) return n;
    return 0;
}
