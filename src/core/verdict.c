/* verdict.c: the comparison rule on two sets of samples (verdict.h). */
#include "core/verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/stats.h"

int vd_children(void)
{
    return (int)st_mw_min_n(VD_ALPHA);
}

/* Half the central 95% of x as a percentage of its median (0 for a median
 * of 0, or fewer than VD_MIN_NOISE samples); the band itself in *band. */
static double vd_noise_pct(const double *x, size_t n, double median, double *band)
{
    *band = n >= VD_MIN_NOISE ? st_half_band(x, n, 0.95) : 0.0;
    return median != 0 ? *band / fabs(median) * 100.0 : 0.0;
}

/* The verdict's words into v->text, from the figures vd_judge gathered. */
static void vd_words(vd_result *v, const char *la, const char *lb, double min_pct)
{
    double lo = fmin(v->a_median, v->b_median), hi = fmax(v->a_median, v->b_median);
    int reach = v->min_p < v->alpha, few = v->a_n < VD_MIN_NOISE || v->b_n < VD_MIN_NOISE;
    const char *word = NULL;

    if (hi == lo) word = "no difference";
    else if (few && reach) word = "unclear";
    else if (!few && (!(hi - lo > v->noise) || !(hi - lo >= min_pct / 100.0 * fabs(lo))))
        word = "no difference";
    else if (reach && !(v->p < v->alpha)) word = "unclear";
    if (word) {
        snprintf(v->text, sizeof v->text, "%s", word);
    } else if (reach) {
        snprintf(v->text, sizeof v->text, "%s higher", v->b_median > v->a_median ? lb : la);
        v->called = 1;
    } else if (v->a_n == v->b_n) {
        snprintf(v->text, sizeof v->text, "out of reach at %zu a side: the U test's smallest p is %.3f",
                 v->a_n, v->min_p);
    } else {
        snprintf(v->text, sizeof v->text, "out of reach at %zu %s and %zu %s: the U test's smallest "
                 "p is %.3f", v->a_n, la, v->b_n, lb, v->min_p);
    }
}

void vd_judge(const double *a, size_t an, const double *b, size_t bn, const char *la,
              const char *lb, double min_pct, double floor_frac, vd_result *v)
{
    vd_judge_at(a, an, b, bn, la, lb, min_pct, floor_frac, VD_ALPHA, v);
}

vd_looks vd_plan_looks(int min_n, int max_n)
{
    vd_looks l = { max_n + 1, 0, 0.0 };
    int n;
    if (min_n < 1) min_n = 1;
    for (n = min_n; n <= max_n; n++) {
        double a = VD_ALPHA / (double)(max_n - n + 1);
        if (st_mw_min_p((size_t)n, (size_t)n) < a) {
            l.first = n;
            l.looks = max_n - n + 1;
            l.alpha = a;
            break;
        }
    }
    return l;
}

void vd_judge_at(const double *a, size_t an, const double *b, size_t bn, const char *la,
                 const char *lb, double min_pct, double floor_frac, double alpha, vd_result *v)
{
    double ba, bb;

    memset(v, 0, sizeof *v);
    v->alpha = alpha;
    v->a_n = an;
    v->b_n = bn;
    v->a_median = an ? st_median(a, an) : NAN;
    v->b_median = bn ? st_median(b, bn) : NAN;
    v->diff = v->b_median - v->a_median;
    v->p = st_mann_whitney(a, an, b, bn, NULL);
    v->min_p = st_mw_min_p(an, bn);
    v->a_noise_pct = vd_noise_pct(a, an, v->a_median, &ba);
    v->b_noise_pct = vd_noise_pct(b, bn, v->b_median, &bb);
    v->noise = fmax(fmax(ba, bb), floor_frac * fabs(fmin(v->a_median, v->b_median)));
    vd_words(v, la, lb, min_pct);
}

/* label in lower case, then a suffix, as a field name, into buf. */
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
                      const vd_result *v, const char *la, const char *lb, double min_pct)
{
    char f[6][64];
    res_derived *d = res_derive(r, section, key, name, v->p, "", v->text);

    if (!d || res_derived_field(d, "p", v->p) != 0 ||
        res_derived_field(d, "threshold_pct", min_pct) != 0 ||
        res_derived_field(d, "alpha", v->alpha) != 0 ||
        res_derived_field(d, "min_p", v->min_p) != 0 ||
        res_derived_field(d, vd_field(f[0], sizeof f[0], la, "median"), v->a_median) != 0 ||
        res_derived_field(d, vd_field(f[1], sizeof f[1], lb, "median"), v->b_median) != 0 ||
        res_derived_field(d, "diff", v->diff) != 0 ||
        res_derived_field(d, "noise", v->noise) != 0 ||
        res_derived_field(d, vd_field(f[2], sizeof f[2], la, "noise_pct"), v->a_noise_pct) != 0 ||
        res_derived_field(d, vd_field(f[3], sizeof f[3], lb, "noise_pct"), v->b_noise_pct) != 0 ||
        res_derived_field(d, vd_field(f[4], sizeof f[4], la, "n"), (double)v->a_n) != 0 ||
        res_derived_field(d, vd_field(f[5], sizeof f[5], lb, "n"), (double)v->b_n) != 0)
        return NULL;
    return d;
}

double vd_threshold(const results *r)
{
    const res_kv *kv = res_env_get(r, "compare_threshold_pct");
    double pct = kv && kv->kind == RES_NUM ? kv->num : NAN;
    return pct >= 0 ? pct : 20.0;
}

void vd_key(char *buf, size_t len, const char *module, const char *fmt, const char *step)
{
    snprintf(buf, len, "compare.%s.%s.%s", module, fmt, step);
}

/* The smallest difference called: twice the environment's max_noise (the
 * precision the stopping rule was asked for, eager's and lazy's added, as
 * scripts/compare does), as a share of the lower median; 0 when absent. */
static double vd_floor(const results *r)
{
    const res_kv *kv = res_env_get(r, "max_noise");
    return kv && kv->kind == RES_NUM && kv->num >= 0 ? 2.0 * kv->num : 0.0;
}

int vd_compare_one(results *r, const char *section, const char *module, const char *fmt,
                   const char *step, double pct)
{
    char ke[96], kl[96], key[96], name[160];
    const res_meas *e, *l;
    vd_result v;

    snprintf(ke, sizeof ke, "eager.%s.%s.%s", module, fmt, step);
    snprintf(kl, sizeof kl, "lazy.%s.%s.%s", module, fmt, step);
    e = res_find(r, section, ke);
    l = res_find(r, section, kl);
    if (!e || !l) return 0;
    vd_judge(e->samples, e->nsamples, l->samples, l->nsamples, "EAGER", "LAZY", pct, vd_floor(r), &v);
    vd_key(key, sizeof key, module, fmt, step);
    snprintf(name, sizeof name, "eager against lazy, %s (%s, %s): the U test's p", step, module, fmt);
    return vd_store(r, section, key, name, &v, "EAGER", "LAZY", pct) ? 0 : -1;
}

/* The base row 0, 1, n-1, 2, n-2, ...; row r adds r (mod n); for odd n the
 * rows n to 2n-1 are the first n read backwards. */
size_t vd_order(size_t n, size_t r, size_t k)
{
    size_t j, w;
    if (n == 0) return 0;
    r %= n % 2 ? 2 * n : n;
    j = r >= n ? n - 1 - k : k;
    w = j % 2 ? (j + 1) / 2 : (n - j / 2) % n;
    return (w + r) % n;
}
