/* test_verdict.c: unit tests of src/core/verdict.c's repeated looks: the plan of
 * looks worked out by hand, a level of 0 that calls nothing, and the
 * family-wise false-call rate of the looks in a simulated A/A. */
#include "testhelp.h"
#include "core/stats.h"
#include "core/verdict.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The smallest two-sided p of the U test at n a side is 2 / C(2n, n):
 * n = 3: 0.1, 4: 0.0286, 5: 0.0079, 6: 0.00216, 7: 0.00058. A look at n
 * can call where that is under 0.01 / (looks from n to the last).
 *   rounds 5..10: n = 5 (0.0079 against 0.01/6), 6 (0.00216 against 0.002)
 *                 fail; 7: 0.00058 < 0.01/4 -> first 7, 4 looks, 0.0025
 *   rounds 5..8:  6: 0.00216 < 0.01/3 -> first 6, 3 looks, 0.00333
 *   rounds 5..5:  5: 0.0079 < 0.01 -> first 5, 1 look, 0.01
 *   rounds 3..6:  3, 4, 5 fail (0.1, 0.0286, 0.0079 against 0.0025, 0.0033,
 *                 0.005); 6: 0.00216 < 0.01 -> first 6, 1 look, 0.01
 *   rounds 3..4:  none -> first 5, 0 looks, 0
 */
static int plan_is(int lo, int hi, int first, int looks, double alpha)
{
    vd_looks l = vd_plan_looks(lo, hi);
    return l.first == first && l.looks == looks && fabs(l.alpha - alpha) < 1e-12;
}

/* A uniform double in [0, 1) from a 64-bit LCG (Knuth's MMIX constants). */
static double tv_uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* The share of trials of an A/A (both sides from one distribution) in
 * which a look from round lo to hi calls a difference: every look at a
 * level of alpha (fixed > 0), or at the plan's (fixed 0). */
static double tv_aa_rate(int lo, int hi, double fixed, int trials)
{
    vd_looks plan = vd_plan_looks(lo, hi);
    uint64_t seed = 12345;
    double a[64], b[64];
    int t, n, calls = 0;
    for (t = 0; t < trials; t++) {
        for (n = 0; n < hi; n++) {
            a[n] = tv_uniform(&seed);
            b[n] = tv_uniform(&seed);
        }
        for (n = lo; n <= hi; n++) {
            double alpha = fixed > 0 ? fixed : n >= plan.first ? plan.alpha : 0;
            if (alpha > 0 && st_mann_whitney(a, (size_t)n, b, (size_t)n, NULL) < alpha) {
                calls++;
                break;
            }
        }
    }
    return (double)calls / trials;
}

/* Rows of vd_order(n, r, .) as digits, rows r0 .. r0 + rows - 1, "0132 1203". */
static int order_is(size_t n, size_t r0, size_t rows, const char *want)
{
    char got[128];
    size_t r, k, at = 0;
    for (r = r0; r < r0 + rows && at + n + 2 < sizeof got; r++) {
        if (r > r0) got[at++] = ' ';
        for (k = 0; k < n; k++) got[at++] = (char)('0' + vd_order(n, r, k));
    }
    got[at] = '\0';
    if (strcmp(got, want) != 0) fprintf(stderr, "  vd_order(%zu): %s, want %s\n", n, got, want);
    return strcmp(got, want) == 0;
}

/* Over one period (n rounds, 2n for odd n) every row is an order of the n
 * sides and each ordered pair of two sides is next to each other equally
 * often (once for even n, twice for odd), for n = 1 to 9. */
static int order_balanced(void)
{
    size_t n, r, k, a, b;
    for (n = 1; n <= 9; n++) {
        size_t period = n % 2 ? 2 * n : n, pairs[9][9] = { { 0 } };
        for (r = 0; r < period; r++) {
            size_t seen = 0;
            for (k = 0; k < n; k++) {
                size_t s = vd_order(n, r, k);
                if (s >= n || (seen >> s & 1)) return 0;
                seen |= (size_t)1 << s;
                if (k > 0) pairs[vd_order(n, r, k - 1)][s]++;
            }
        }
        for (a = 0; a < n; a++)
            for (b = 0; b < n; b++)
                if (a != b && pairs[a][b] != (n % 2 ? 2u : 1u)) return 0;
    }
    return 1;
}

void test_verdict(void)
{
    static const double lo7[7] = { 1, 2, 3, 4, 5, 6, 7 }, hi7[7] = { 11, 12, 13, 14, 15, 16, 17 };
    vd_result v;
    double corrected, uncorrected;

    th_check("verdict: looks over rounds 5..10: from 7, 4 at 0.0025", plan_is(5, 10, 7, 4, 0.0025));
    th_check("verdict: run order, 2 sides: AB, BA, AB", order_is(2, 0, 3, "01 10 01"));
    th_check("verdict: run order, 4 sides: the Williams square 0132 1203 2310 3021, then again",
             order_is(4, 0, 5, "0132 1203 2310 3021 0132"));
    th_check("verdict: run order, 3 sides: 012 120 201 and the three backwards, 210 021 102",
             order_is(3, 0, 6, "012 120 201 210 021 102"));
    th_check("verdict: run order, 1 to 9 sides: each side follows every other equally often",
             order_balanced());
    th_check("verdict: looks over rounds 5..8: from 6, 3 at 0.01/3", plan_is(5, 8, 6, 3, 0.01 / 3));
    th_check("verdict: looks over rounds 5..5: one at 0.01", plan_is(5, 5, 5, 1, 0.01));
    th_check("verdict: looks over rounds 3..6: one, at 6, 0.01", plan_is(3, 6, 6, 1, 0.01));
    th_check("verdict: looks over rounds 3..4: none can call", plan_is(3, 4, 5, 0, 0.0));

    vd_judge_at(hi7, 7, lo7, 7, "B", "A", 20, 0, 0.0025, &v);
    th_check("verdict: 7 against 7 apart, at 0.0025: B higher",
              v.called && strcmp(v.text, "B higher") == 0 && v.alpha == 0.0025);
    vd_judge_at(hi7, 7, lo7, 7, "B", "A", 20, 0, 0.0, &v);
    th_check("verdict: the same at level 0: nothing called, out of reach",
              !v.called && strncmp(v.text, "out of reach", 12) == 0);

    /* A/A, 20,000 trials, rounds 5 to 10: looking at 0.01 every round calls
     * far more often than 1%; the plan's Bonferroni keeps it at or under 1%
     * (the binomial's sd at 1% is 0.07%: 1.2% is three of them above). */
    corrected = tv_aa_rate(5, 10, 0, 20000);
    uncorrected = tv_aa_rate(5, 10, 0.01, 20000);
    printf("verdict: A/A rounds 5..10, a difference called in %.3f%% of trials with the plan's "
           "looks, %.3f%% looking at 0.01 every round\n", 100 * corrected, 100 * uncorrected);
    th_check("verdict: A/A with the plan's looks: at most 1% of trials call (within 3 sd)",
              corrected <= 0.012);
    th_check("verdict: A/A looking at 0.01 every round calls more (the correction is needed)",
              uncorrected > 0.015 && uncorrected > 2 * corrected);
}
