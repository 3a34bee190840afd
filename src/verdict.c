/* verdict.c: the comparison rule on two sets of samples (verdict.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "stats.h"
#include "verdict.h"

/* 2 / C(m + n, m): the exact two-sided p of two samples wholly apart. */
static double vd_least_p(size_t m, size_t n)
{
    double c = 1.0;
    size_t i;
    for (i = 1; i <= m; i++) c = c * (double)(n + i) / (double)i;
    return c > 2.0 ? 2.0 / c : 1.0;
}

void vd_judge(const double *a, size_t an, const double *b, size_t bn, const char *la,
              const char *lb, double min_pct, double floor_frac, double alpha, vd_result *v)
{
    double lo, hi, ba, bb;

    memset(v, 0, sizeof *v);
    v->a_n = an;
    v->b_n = bn;
    v->a_median = an ? st_median(a, an) : NAN;
    v->b_median = bn ? st_median(b, bn) : NAN;
    v->diff = v->b_median - v->a_median;
    v->p = an && bn ? st_mann_whitney(a, an, b, bn, NULL) : NAN;
    v->least_p = vd_least_p(an, bn);
    lo = fmin(v->a_median, v->b_median);
    hi = fmax(v->a_median, v->b_median);
    ba = an >= 2 ? st_half_band(a, an, 0.95) : 0.0;
    bb = bn >= 2 ? st_half_band(b, bn, 0.95) : 0.0;
    v->noise = fmax(fmax(ba, bb), floor_frac * fabs(lo));
    if (hi == lo) snprintf(v->text, sizeof v->text, "no difference");
    else if (an < 2 || bn < 2) snprintf(v->text, sizeof v->text, "unclear");
    else if (!(hi - lo > v->noise) || !(hi - lo >= min_pct / 100.0 * fabs(lo)))
        snprintf(v->text, sizeof v->text, "no difference");
    else if (!(v->least_p < alpha))
        snprintf(v->text, sizeof v->text, "out of reach at %zu a side (the U test's least p is %.3f)",
                 an < bn ? an : bn, v->least_p);
    else if (!(v->p < alpha)) snprintf(v->text, sizeof v->text, "unclear");
    else {
        snprintf(v->text, sizeof v->text, "%s higher", v->b_median > v->a_median ? lb : la);
        v->called = 1;
    }
}

/* label in lower case with a suffix, as a field name, into buf. */
static const char *vd_field(char *buf, size_t len, const char *label, const char *suffix)
{
    size_t i;
    snprintf(buf, len, "%s_%s", label, suffix);
    for (i = 0; buf[i]; i++) {
        buf[i] = (char)tolower((unsigned char)buf[i]);
        if (!islower((unsigned char)buf[i]) && !isdigit((unsigned char)buf[i]) && buf[i] != '.')
            buf[i] = '_';
    }
    return buf;
}

res_derived *vd_store(results *r, const char *section, const char *key, const char *name,
                      const vd_result *v, const char *la, const char *lb, double min_pct,
                      double alpha)
{
    char f1[64], f2[64], f3[64], f4[64];
    res_derived *d = res_derive(r, section, key, name, v->p, "", v->text);

    if (!d || res_derived_field(d, "p", v->p) != 0 ||
        res_derived_field(d, "least_p", v->least_p) != 0 ||
        res_derived_field(d, "alpha", alpha) != 0 ||
        res_derived_field(d, "threshold_pct", min_pct) != 0 ||
        res_derived_field(d, vd_field(f1, sizeof f1, la, "median"), v->a_median) != 0 ||
        res_derived_field(d, vd_field(f2, sizeof f2, lb, "median"), v->b_median) != 0 ||
        res_derived_field(d, "diff", v->diff) != 0 ||
        res_derived_field(d, "noise", v->noise) != 0 ||
        res_derived_field(d, vd_field(f3, sizeof f3, la, "n"), (double)v->a_n) != 0 ||
        res_derived_field(d, vd_field(f4, sizeof f4, lb, "n"), (double)v->b_n) != 0)
        return NULL;
    return d;
}
