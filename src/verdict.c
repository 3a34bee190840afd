/* verdict.c: eager against lazy: the noise rule on two modes' children,
 * the U test, and the verdicts stored as derived entries. */
#include "verdict.h"

#include <math.h>
#include <stdio.h>

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

/* The verdict of eager (e) against lazy (l), scripts/compare's noise rule
 * on one run a side: the children's values of each mode are its samples;
 * min_p is the smallest p their counts can give (st_mw_min_p).
 *   equal medians                                  -> "no difference"
 *   fewer than VD_MIN_NOISE children in a mode     -> out of reach (below),
 *                                                     else "unclear" (no noise)
 *   |difference| <= noise, or under min_pct of the
 *   lower median (--threshold)                     -> "no difference"
 *   beyond both, min_p >= VD_ALPHA                 -> "out of reach at 3 a side:
 *                                                     the U test's smallest p
 *                                                     is 0.100"
 *   beyond both, p < VD_ALPHA                      -> "LAZY higher", "EAGER higher"
 *   beyond both, p >= VD_ALPHA                     -> "unclear"
 * into buf (len bytes). noise is the larger mode's st_half_band (the central
 * 95% of its children) and at least floor of the lower median. A change
 * within the noise is what the next child could show, whatever p says; the
 * threshold stays because on the H200's VM the same eager load moved 20-40%
 * between and within runs. The modes alternate child by child, so a drift
 * of the host falls on both: there is no host term here. */
static void vd_verdict(const st_summary *e, const st_summary *l, double p, double min_p,
                       double noise, double min_pct, char *buf, size_t len)
{
    double lo = e->median < l->median ? e->median : l->median;
    double hi = e->median < l->median ? l->median : e->median;
    int reach = min_p < VD_ALPHA;
    const char *word = NULL;

    if (hi == lo) word = "no difference";
    else if ((e->n < VD_MIN_NOISE || l->n < VD_MIN_NOISE) && reach) word = "unclear";
    else if (e->n >= VD_MIN_NOISE && l->n >= VD_MIN_NOISE &&
             (!(hi - lo > noise) || !(hi - lo >= min_pct / 100.0 * fabs(lo))))
        word = "no difference";
    else if (reach) word = !(p < VD_ALPHA) ? "unclear"
                         : l->median > e->median ? "LAZY higher" : "EAGER higher";
    if (word) {
        snprintf(buf, len, "%s", word);
    } else if (e->n == l->n) {
        snprintf(buf, len, "out of reach at %zu a side: the U test's smallest p is %.3f", e->n, min_p);
    } else {
        snprintf(buf, len, "out of reach at %zu EAGER and %zu LAZY: the U test's smallest p is %.3f",
                 e->n, l->n, min_p);
    }
}

int vd_children(void)
{
    return (int)st_mw_min_n(VD_ALPHA);
}

/* Half the central 95% of m's samples as a percentage of its median (0 for
 * a median of 0); the band itself in *band. */
static double vd_noise_pct(const res_meas *m, double *band)
{
    *band = m->nsamples >= VD_MIN_NOISE ? st_half_band(m->samples, m->nsamples, 0.95) : 0.0;
    return m->stats.median != 0 ? *band / fabs(m->stats.median) * 100.0 : 0.0;
}

int vd_compare_one(results *r, const char *section, const char *module, const char *fmt,
                   const char *step, double pct)
{
    double min_noise = vd_floor(r);
    char ke[96], kl[96], key[96], name[160], text[128];
    const res_meas *e, *l;
    res_derived *d;
    double p, min_p, be, bl, pe, pl, lo, noise;

    snprintf(ke, sizeof ke, "eager.%s.%s.%s", module, fmt, step);
    snprintf(kl, sizeof kl, "lazy.%s.%s.%s", module, fmt, step);
    e = res_find(r, section, ke);
    l = res_find(r, section, kl);
    if (!e || !l) return 0;
    p = st_mann_whitney(e->samples, e->nsamples, l->samples, l->nsamples, NULL);
    min_p = st_mw_min_p(e->nsamples, l->nsamples);
    pe = vd_noise_pct(e, &be);
    pl = vd_noise_pct(l, &bl);
    lo = fabs(e->stats.median < l->stats.median ? e->stats.median : l->stats.median);
    noise = be > bl ? be : bl;
    if (min_noise * lo > noise) noise = min_noise * lo;
    vd_key(key, sizeof key, module, fmt, step);
    snprintf(name, sizeof name, "eager against lazy, %s (%s, %s): the U test's p", step, module, fmt);
    vd_verdict(&e->stats, &l->stats, p, min_p, noise, pct, text, sizeof text);
    d = res_derive(r, section, key, name, p, "", text);
    /* e and l stay valid: res_derive grows r->d, not r->m. */
    if (!d || res_derived_field(d, "p", p) != 0 ||
        res_derived_field(d, "threshold_pct", pct) != 0 ||
        res_derived_field(d, "alpha", VD_ALPHA) != 0 ||
        res_derived_field(d, "min_p", min_p) != 0 ||
        res_derived_field(d, "eager_median", e->stats.median) != 0 ||
        res_derived_field(d, "lazy_median", l->stats.median) != 0 ||
        res_derived_field(d, "diff", l->stats.median - e->stats.median) != 0 ||
        res_derived_field(d, "noise", noise) != 0 ||
        res_derived_field(d, "eager_noise_pct", pe) != 0 ||
        res_derived_field(d, "lazy_noise_pct", pl) != 0 ||
        res_derived_field(d, "eager_n", (double)e->nsamples) != 0 ||
        res_derived_field(d, "lazy_n", (double)l->nsamples) != 0)
        return -1;
    return 0;
}
