/* test_stats.c: unit tests of src/core/stats.c against independently computed values. */
#include "testhelp.h"
#include "core/stats.h"

#include <math.h>
#include <string.h>

/*
 * Expected values were computed with python3 (3.11) on the dev machine:
 *  - median / mean / stdev: the statistics module (exact rational arithmetic),
 *    e.g. statistics.stdev([2,4,4,4,5,5,7,9]) == 2.138089935299395;
 *  - CI ranks and coverage for n <= 1000: fractions.Fraction with math.comb,
 *    coverage(j) = 1 - 2 * sum(comb(n, i) for i < j) / 2**n, largest j with
 *    coverage >= 0.95, ranks [j-1, n-j];
 *  - n = 10**6: mpmath at 60 digits (pmf from mp.binomial, tail summed down).
 */

/* |a - b| <= tol * max(1, |b|): relative for large values, absolute near 0. */
static int near(double a, double b, double tol)
{
    double scale = fabs(b) > 1.0 ? fabs(b) : 1.0;
    return fabs(a - b) <= tol * scale;
}

/* st_median_ci_ranks(n, 0.95) gives ranks [lo, hi] and coverage cov. */
static int ranks_are(size_t n, size_t lo, size_t hi, double cov)
{
    size_t l = 99, h = 99;
    double c = st_median_ci_ranks(n, 0.95, &l, &h);
    return l == lo && h == hi && near(c, cov, 1e-12);
}

void test_stats(void)
{
    static const double odd[] = { 3.0, 1.0, 2.0 };
    static const double even[] = { 4.0, 1.0, 3.0, 2.0 };
    /* {2,4,4,4,5,5,7,9} shuffled, so that sorting in place would show */
    static const double w[] = { 9.0, 2.0, 5.0, 4.0, 7.0, 4.0, 5.0, 4.0 };
    static const double ten[] = { 3.5, 1.25, 7.0, 2.0, 9.75,
                                  4.5, 6.0, 8.25, 5.5, 10.0 };
    static const double five[] = { 5.0, 3.0, 1.0, 4.0, 2.0 };
    static const double sym[] = { -1.0, 1.0 };
    double wcopy[8], big[8], same[7], one = 42.0;
    size_t i, lo = 99, hi = 99;
    double c;
    st_summary s;

    th_check("stats: median of odd n (3 samples)",
             st_median(odd, 3) == 2.0);
    th_check("stats: median of even n is mean of the two middle values",
             st_median(even, 4) == 2.5);

    memcpy(wcopy, w, sizeof w);
    s = st_summarize(w, 8);
    th_check("stats: summarize does not modify its input",
             memcmp(wcopy, w, sizeof w) == 0);
    th_check("stats: n", s.n == 8);
    th_check("stats: min and max", s.min == 2.0 && s.max == 9.0);
    th_check("stats: mean {2,4,4,4,5,5,7,9} = 5", near(s.mean, 5.0, 1e-15));
    th_check("stats: median {2,4,4,4,5,5,7,9} = 4.5", s.median == 4.5);
    th_check("stats: sample stdev = 2.138089935299395",
             near(s.stdev, 2.138089935299395, 1e-14));
    th_check("stats: cv = stdev / mean = 0.427617987059879",
             near(s.cv, 0.427617987059879, 1e-14));
    (void)st_median(w, 8);
    th_check("stats: st_median does not modify its input",
             memcmp(wcopy, w, sizeof w) == 0);

    /* the same data shifted by 1e9: a one-pass sum of squares loses it */
    for (i = 0; i < 8; i++)
        big[i] = 1e9 + w[i];
    s = st_summarize(big, 8);
    th_check("stats: stdev is stable under a 1e9 offset",
             fabs(s.stdev - 2.138089935299395) <= 1e-6);

    for (i = 0; i < 7; i++)
        same[i] = 0.1;
    s = st_summarize(same, 7);
    th_check("stats: identical samples give stdev 0 and cv 0",
             s.stdev <= 1e-16 && s.cv <= 1e-15 && near(s.mean, 0.1, 1e-15));

    s = st_summarize(sym, 2);
    th_check("stats: cv is 0 when the mean is 0",
             s.mean == 0.0 && s.cv == 0.0 && near(s.stdev, sqrt(2.0), 1e-15));

    s = st_summarize(NULL, 0);
    th_check("stats: n = 0 gives n = 0 and NaN fields",
             s.n == 0 && isnan(s.median) && isnan(s.mean) && isnan(s.ci_low));

    s = st_summarize(&one, 1);
    th_check("stats: n = 1 gives stdev 0, cv 0 and ci [x, x]",
             s.n == 1 && s.median == 42.0 && s.mean == 42.0 &&
             s.stdev == 0.0 && s.cv == 0.0 &&
             s.ci_low == 42.0 && s.ci_high == 42.0);

    th_check("stats: ci ranks n=1 -> [0,0], coverage 0",
             ranks_are(1, 0, 0, 0.0));
    th_check("stats: ci ranks n=5 -> [0,4], coverage 0.9375 (< 0.95)",
             ranks_are(5, 0, 4, 0.9375));
    th_check("stats: ci ranks n=6 -> [0,5], coverage 0.96875",
             ranks_are(6, 0, 5, 0.96875));
    th_check("stats: ci ranks n=10 -> [1,8], coverage 0.978515625",
             ranks_are(10, 1, 8, 0.978515625));
    th_check("stats: ci ranks n=20 -> [5,14], coverage 0.9586105346679688",
             ranks_are(20, 5, 14, 0.9586105346679688));
    th_check("stats: ci ranks n=100 -> [39,60], coverage 0.9647997997822951",
             ranks_are(100, 39, 60, 0.9647997997822951));
    th_check("stats: ci ranks n=1000 -> [468,531], coverage 0.9537088026395019",
             ranks_are(1000, 468, 531, 0.9537088026395019));
    c = st_median_ci_ranks(1000000, 0.95, &lo, &hi);
    th_check("stats: ci ranks n=1e6 -> [499019,500980], coverage 0.95012103134763",
             lo == 499019 && hi == 500980 && near(c, 0.9501210313476319, 1e-9));
    c = st_median_ci_ranks(10, 1.5, &lo, &hi);
    th_check("stats: unreachable level gives [0,n-1] and its coverage",
             lo == 0 && hi == 9 && near(c, 1.0 - 2.0 / 1024.0, 1e-15));

    s = st_summarize(ten, 10);
    th_check("stats: summarize n=10 ci is [x_(2), x_(9)] at 0.978515625",
             s.ci_low == 2.0 && s.ci_high == 9.75 &&
             near(s.ci_level, 0.978515625, 1e-15) && s.median == 5.75);
    th_check("stats: summarize n=10 mean 5.775, stdev 3.03555321701553",
             near(s.mean, 5.775, 1e-15) && near(s.stdev, 3.03555321701553, 1e-14));

    s = st_summarize(five, 5);
    th_check("stats: summarize n=5 ci is [min, max] at 0.9375",
             s.ci_low == 1.0 && s.ci_high == 5.0 &&
             near(s.ci_level, 0.9375, 1e-15) && s.median == 3.0);

    /* st_half_band by hand: 100, 101, ..., 109 (given out of order) at 0.95:
     * positions 0.025 * 9 = 0.225 and 0.975 * 9 = 8.775, so 100.225 and
     * 108.775, half their distance 4.275; {1.0, 1.01, 1.02}: positions 0.05
     * and 1.95, (1.0195 - 1.0005) / 2 = 0.0095; cover 1 is half the range. */
    {
        double band[10] = { 104, 100, 109, 101, 108, 102, 107, 103, 106, 105 };
        double copy[10], three[3] = { 1.02, 1.0, 1.01 }, single = 7.0;
        memcpy(copy, band, sizeof band);
        th_check("stats: st_half_band of 100..109 at 0.95 is 4.275",
                 near(st_half_band(band, 10, 0.95), 4.275, 1e-12));
        th_check("stats: st_half_band does not modify its input",
                 memcmp(copy, band, sizeof band) == 0);
        th_check("stats: st_half_band of {1.0, 1.01, 1.02} at 0.95 is 0.0095",
                 near(st_half_band(three, 3, 0.95), 0.0095, 1e-12));
        th_check("stats: st_half_band at cover 1 is half the range (4.5)",
                 near(st_half_band(band, 10, 1.0), 4.5, 1e-12));
        th_check("stats: st_half_band of one sample is 0", st_half_band(&single, 1, 0.95) == 0.0);
        th_check("stats: st_half_band of no sample, or cover 0 or 1.5, is NaN",
                 isnan(st_half_band(band, 0, 0.95)) && isnan(st_half_band(band, 10, 0.0)) &&
                 isnan(st_half_band(band, 10, 1.5)));
    }

    /*
     * The stopping rule. st_noise expectations: exact fractions computed with
     * python3 fractions.Fraction (median of the sorted values; CI ranks as in
     * the header above, [1,8] for n = 10 and [0,n-1] for n <= 5; then
     * max(median - lo, hi - median) / |median|), printed with float():
     *   ten              -> median 23/4, ci [2, 39/4], noise 16/23 = 0.6956521739130435
     *   five             -> median 3, ci [1, 5], noise 2/3 = 0.6666666666666666
     *   {-1,-3,-2}       -> median -2, ci [-3, -1], noise 1/2
     *   {6,1,6,8,6,4,6,7,6,6} -> median 6, ci [4, 7], noise 1/3 (the low side)
     */
    {
        static const double neg[] = { -1.0, -3.0, -2.0 };
        static const double lowside[] = { 6.0, 1.0, 6.0, 8.0, 6.0,
                                          4.0, 6.0, 7.0, 6.0, 6.0 };
        static const double zmid[] = { -1.0, 0.0, 1.0 };
        double tight[40], spread[200], zeros[40];
        st_rule r;
        st_verdict v;
        size_t k, first;
        int nz, ok;

        for (k = 0; k < 40; k++) {
            tight[k] = k % 2 ? 0.999 : 1.001;       /* 1.0 +- 0.1% */
            zeros[k] = 0.0;
        }
        for (k = 0; k < 200; k++)                    /* 0.8 .. 1.2, +-20% */
            spread[k] = 0.8 + 0.04 * (double)(k * 7 % 11);

        s = st_summarize(ten, 10);
        th_check("stop: st_noise n=10 = 16/23 (upper side)",
                 near(st_noise(&s), 0.6956521739130435, 1e-15));
        s = st_summarize(five, 5);
        th_check("stop: st_noise n=5 uses [min, max]: 2/3",
                 near(st_noise(&s), 0.6666666666666666, 1e-15));
        s = st_summarize(neg, 3);
        th_check("stop: st_noise divides by |median|: 1/2",
                 near(st_noise(&s), 0.5, 1e-15));
        s = st_summarize(lowside, 10);
        th_check("stop: st_noise takes the wider (lower) side: 1/3",
                 near(st_noise(&s), 1.0 / 3.0, 1e-15));
        s = st_summarize(tight, 10);
        th_check("stop: st_noise of 1 +- 0.001 alternating is 0.001",
                 near(st_noise(&s), 0.001, 1e-12));
        s = st_summarize(zmid, 3);
        th_check("stop: st_noise is infinite when the median is 0",
                 isinf(st_noise(&s)) && st_noise(&s) > 0.0);
        s = st_summarize(zeros, 10);
        th_check("stop: st_noise is infinite for all-zero samples",
                 isinf(st_noise(&s)));
        s = st_summarize(NULL, 0);
        th_check("stop: st_noise is infinite for n = 0 and NULL",
                 isinf(st_noise(&s)) && isinf(st_noise(NULL)));

        /* tight series, min 10, no limits: first stop at n = 10, converged */
        r.min_samples = 10; r.max_samples = 0; r.max_noise = 0.01; r.max_time_s = 0.0;
        first = 0; v = ST_GO_ON; nz = 7;
        for (k = 1; k <= 40 && first == 0; k++) {
            v = st_stop(&r, tight, k, 0.0, &nz);
            if (v != ST_GO_ON)
                first = k;
        }
        th_check("stop: tight series converges exactly at n = min = 10",
                 first == 10 && v == ST_STOP_CONVERGED && nz == 0);

        /* tight from n = 1 on, yet no stop before min_samples = 25 */
        r.min_samples = 25;
        ok = 1;
        for (k = 0; k < 25; k++) {
            nz = 7;
            ok = ok && st_stop(&r, tight, k, 0.0, &nz) == ST_GO_ON && nz == 0;
        }
        th_check("stop: no stop before min_samples even when tight (n = 0..24)", ok);
        nz = 7;
        th_check("stop: ... and converged at n = 25",
                 st_stop(&r, tight, 25, 0.0, &nz) == ST_STOP_CONVERGED && nz == 0);

        /* n <= 5: the interval is [min, max] (coverage < 95%), still accepted */
        r.min_samples = 3;
        nz = 7;
        th_check("stop: min 3 converges on a tight [min, max] interval",
                 st_stop(&r, tight, 3, 0.0, &nz) == ST_STOP_CONVERGED && nz == 0);

        /* +-20% series, 1% asked, 1 s limit: goes on before a quarter of it */
        r.min_samples = 10; r.max_samples = 0; r.max_noise = 0.01; r.max_time_s = 1.0;
        ok = 1;
        for (k = 0; k <= 200; k++) {
            nz = 7;
            ok = ok && st_stop(&r, spread, k, 0.2499, &nz) == ST_GO_ON && nz == 0;
        }
        th_check("stop: +-20% series goes on for n = 0..200 before a quarter of the time limit", ok);
        nz = 0;
        th_check("stop: +-20% series at a quarter of the time limit is out of reach, noisy",
                 st_stop(&r, spread, 10, 0.25, &nz) == ST_STOP_OUT_OF_REACH && nz == 1);
        nz = 7;
        th_check("stop: ... but not below min_samples (n = 9)",
                 st_stop(&r, spread, 9, 0.5, &nz) == ST_GO_ON && nz == 0);
        nz = 0;
        th_check("stop: +-20% series stops on time (elapsed == limit), noisy",
                 st_stop(&r, spread, 50, 1.0, &nz) == ST_STOP_TIME && nz == 1);
        nz = 0;
        th_check("stop: time limit below min_samples stops, noisy even when tight",
                 st_stop(&r, tight, 3, 2.0, &nz) == ST_STOP_TIME && nz == 1);
        nz = 7;
        th_check("stop: time limit with n = 0 goes on, noisy 0",
                 st_stop(&r, spread, 0, 2.0, &nz) == ST_GO_ON && nz == 0);
        nz = 7;
        th_check("stop: converged wins over a time limit reached at the same sample",
                 st_stop(&r, tight, 10, 5.0, &nz) == ST_STOP_CONVERGED && nz == 0);
        r.max_time_s = 0.0;
        nz = 7;
        th_check("stop: max_time_s 0 is no time limit",
                 st_stop(&r, spread, 200, 1e9, &nz) == ST_GO_ON && nz == 0);

        /* count limit 30 on the +-20% series (min 30: never out of reach first) */
        r.max_samples = 30;
        r.min_samples = 30;
        first = 0; v = ST_GO_ON; nz = 0;
        for (k = 1; k <= 200 && first == 0; k++) {
            v = st_stop(&r, spread, k, 0.0, &nz);
            if (v != ST_GO_ON)
                first = k;
        }
        th_check("stop: +-20% series stops on count at n = 30, noisy",
                 first == 30 && v == ST_STOP_COUNT && nz == 1);
        r.min_samples = 10;
        first = 0; v = ST_GO_ON; nz = 0;
        for (k = 1; k <= 200 && first == 0; k++) {
            v = st_stop(&r, spread, k, 0.0, &nz);
            if (v != ST_GO_ON)
                first = k;
        }
        th_check("stop: ... with min 10 out of reach at n = 10 (a third of the count), noisy",
                 first == 10 && v == ST_STOP_OUT_OF_REACH && nz == 1);
        r.max_samples = 5;
        nz = 0;
        th_check("stop: count limit below min_samples is a hard cap, noisy",
                 st_stop(&r, tight, 4, 0.0, &nz) == ST_GO_ON &&
                 st_stop(&r, tight, 5, 0.0, &nz) == ST_STOP_COUNT && nz == 1);
        r.max_samples = 10;
        nz = 7;
        th_check("stop: converged wins over the count limit at the same sample",
                 st_stop(&r, tight, 10, 0.0, &nz) == ST_STOP_CONVERGED && nz == 0);

        /* the bound is inclusive: noise == max_noise converges, just below not */
        r.min_samples = 10; r.max_samples = 0; r.max_time_s = 0.0;
        r.max_noise = 0.6956521739130435;            /* 16/23, st_noise(ten) */
        nz = 7;
        ok = st_stop(&r, ten, 10, 0.0, &nz) == ST_STOP_CONVERGED && nz == 0;
        r.max_noise = nextafter(0.6956521739130435, 0.0);
        nz = 7;
        ok = ok && st_stop(&r, ten, 10, 0.0, &nz) == ST_GO_ON && nz == 0;
        th_check("stop: noise exactly at max_noise converges, one ulp under does not", ok);

        /* median 0 never converges, however loose the bound */
        r.min_samples = 1; r.max_samples = 0; r.max_noise = 1e300; r.max_time_s = 1.0;
        ok = 1;
        for (k = 1; k <= 40; k++) {
            nz = 7;
            ok = ok && st_stop(&r, zeros, k, 0.2, &nz) == ST_GO_ON && nz == 0;
        }
        nz = 7;
        ok = ok && st_stop(&r, zmid, 3, 0.2, &nz) == ST_GO_ON && nz == 0;
        th_check("stop: median 0 never converges (max_noise 1e300)", ok);
        nz = 0;
        th_check("stop: median 0 is out of reach at a quarter of the time limit, noisy",
                 st_stop(&r, zeros, 40, 0.25, &nz) == ST_STOP_OUT_OF_REACH && nz == 1);
        nz = 0;
        th_check("stop: median 0 stops on time, noisy",
                 st_stop(&r, zeros, 40, 1.0, &nz) == ST_STOP_TIME && nz == 1);

        /* Out of reach, worked out by hand: 50 samples after a quarter of a
         * 1 s limit (or of a 200-sample cap) reach 200 by the limit, so the
         * noise narrows by sqrt(50 / 200) = 1/2 exactly: max_noise at half
         * the noise goes on (the bound is inclusive), one ulp under stops. */
        {
            st_summary s50 = st_summarize(spread, 50);
            double half = st_noise(&s50) * 0.5;
            r.min_samples = 10; r.max_samples = 0; r.max_time_s = 1.0;
            r.max_noise = half;
            nz = 7;
            ok = st_stop(&r, spread, 50, 0.25, &nz) == ST_GO_ON && nz == 0;
            r.max_noise = nextafter(half, 0.0);
            ok = ok && st_stop(&r, spread, 50, 0.25, &nz) == ST_STOP_OUT_OF_REACH && nz == 1;
            th_check("stop: out of reach by time: noise / 2 at 50 of a projected 200 goes on, "
                     "one ulp under stops", ok);
            r.max_time_s = 0.0; r.max_samples = 200;
            r.max_noise = half;
            nz = 7;
            ok = st_stop(&r, spread, 50, 0.0, &nz) == ST_GO_ON && nz == 0;
            r.max_noise = nextafter(half, 0.0);
            ok = ok && st_stop(&r, spread, 50, 0.0, &nz) == ST_STOP_OUT_OF_REACH && nz == 1;
            ok = ok && st_stop(&r, spread, 49, 0.0, &nz) == ST_GO_ON && nz == 0;
            th_check("stop: out of reach by count: the same at 50 of 200, not at 49 (under a quarter)",
                     ok);
            r.max_samples = 0;
            r.max_noise = 1e-9;
            nz = 7;
            th_check("stop: with no limit nothing is out of reach",
                     st_stop(&r, spread, 200, 1e9, &nz) == ST_GO_ON && nz == 0);
        }
    }

    /* Mann-Whitney U. By hand: a = {1,2,3} below all of b = {4..7} gives
     * U_A = 0; of the C(7,3) = 35 orderings one has U <= 0, so p = 2/35.
     * The rest from scripts/compare's mann_whitney_u (python3). */
    {
        static const double a3[] = { 1, 2, 3 }, b4[] = { 4, 5, 6, 7 };
        static const double m5a[] = { 1.1, 3.3, 5.5, 7.7, 9.9 }, m5b[] = { 2.2, 4.4, 6.6, 8.8, 10.1 };
        static const double ta[] = { 1, 1, 2, 2, 3 }, tb[] = { 2, 3, 3, 4, 4 };
        static const double tied4[] = { 5, 5, 5, 5 };
        double a10[10], b10[10], u = 0;
        int q;
        for (q = 0; q < 10; q++) { a10[q] = q; b10[q] = q + 3.5; }
        th_check("mann-whitney: exact, disjoint 3 vs 4: U 0, p 2/35",
                 near(st_mann_whitney(a3, 3, b4, 4, &u), 2.0 / 35.0, 1e-12) && u == 0);
        th_check("mann-whitney: symmetric in a and b",
                 near(st_mann_whitney(b4, 4, a3, 3, &u), 2.0 / 35.0, 1e-12) && u == 12);
        th_check("mann-whitney: exact, interleaved 5 vs 5: p 0.6904761904761905",
                 near(st_mann_whitney(m5a, 5, m5b, 5, &u), 0.6904761904761905, 1e-12) && u == 10);
        th_check("mann-whitney: normal, 10 vs 10 shifted by 3.5: p 0.031209012771740242",
                 near(st_mann_whitney(a10, 10, b10, 10, &u), 0.031209012771740242, 1e-12) && u == 21);
        th_check("mann-whitney: ties use the normal approximation: p 0.05241162867102868",
                 near(st_mann_whitney(ta, 5, tb, 5, &u), 0.05241162867102868, 1e-12) && u == 3);
        th_check("mann-whitney: every value tied gives p 1",
                 st_mann_whitney(tied4, 3, tied4, 4, NULL) == 1.0);
        th_check("mann-whitney: an empty sample gives NaN",
                 isnan(st_mann_whitney(tied4, 0, tied4, 4, &u)) && isnan(u));
    }

    /* The smallest p at n a side, 2 / C(2n, n) by hand: n = 1: 2/2 = 1;
     * 2: 2/6; 3: 2/20 = 0.1; 4: 2/70 = 0.0286; 5: 2/252 = 0.0079;
     * 6: 2/924 = 0.00216; 7: 2/3432 = 0.000583; 3 against 2: 2/10. So
     * p < 0.01 needs 5 a side, p < 0.05 4, p < 0.1 4 (3 give 0.1 itself),
     * p < 0.2 3, p < 0.5 2, p < 0.001 7. */
    th_check("mann-whitney: smallest p 1, 2/6, 2/20, 2/70, 2/252 at 1 to 5 a side; 2/10 at 3 and 2",
             st_mw_min_p(1, 1) == 1.0 && near(st_mw_min_p(2, 2), 2.0 / 6, 1e-12) &&
             near(st_mw_min_p(3, 3), 0.1, 1e-12) && near(st_mw_min_p(4, 4), 2.0 / 70, 1e-12) &&
             near(st_mw_min_p(5, 5), 2.0 / 252, 1e-12) && near(st_mw_min_p(3, 2), 0.2, 1e-12) &&
             isnan(st_mw_min_p(0, 3)));
    th_check("mann-whitney: fewest a side for p < 0.01: 5; 0.05: 4; 0.1: 4; 0.2: 3; 0.5: 2; 0.001: 7",
             st_mw_min_n(0.01) == 5 && st_mw_min_n(0.05) == 4 && st_mw_min_n(0.1) == 4 &&
             st_mw_min_n(0.2) == 3 && st_mw_min_n(0.5) == 2 && st_mw_min_n(0.001) == 7);
    th_check("mann-whitney: fewest a side for p < 1.5: 1; for 0 or NaN: none (0)",
             st_mw_min_n(1.5) == 1 && st_mw_min_n(0) == 0 && st_mw_min_n(NAN) == 0);
}
