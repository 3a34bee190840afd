/* visible_table.c: the visible section's table: the cold start's parts by
 * visible-device count, each a median over the rounds with its interval,
 * what restricting to one device saves, and what each region is. Formats
 * the measurements and the conclusions visible.c stored; computes none of
 * them. */
#include <math.h>
#include <string.h>

#include "section.h"
#include "table.h"
#include "visible.h"

#define VI "visible"
#define VI_NCOLS 6
#define VI_COL 14               /* a figure's column */
#define VI_WIDTH 100            /* the sentences' lines */

/* The columns: each figure's key and heading. */
static const struct {
    const char *key, *head;
} vi_cols[VI_NCOLS] = {
    { "load", "libcuda" }, { "init", "cuInit" }, { "count", "GetCount" },
    { "ctx0", "context 0" }, { "ctx_others", "others 1..k-1" }, { "total", "total" },
};

static const res_meas *vi_m(const results *r, int k, const char *figure)
{
    char key[64];
    snprintf(key, sizeof key, "k%d.%s", k, figure);
    return res_find(r, VI, key);
}

static const res_derived *vi_d(const results *r, const char *key)
{
    return res_derived_find(r, VI, key);
}

static void vi_print_header(FILE *f, const res_derived *dev)
{
    int i, rounds = (int)res_derived_num(dev, "rounds");

    fprintf(f, "\nvisible: the cold start against the number of visible devices; this process "
            "sees %.0f (%s)\n", dev->value, dev->text);
    fprintf(f, "  one fresh child per count and round, %d round%s, the counts rotated; the "
            "child's host clock;\n  medians in ms, state process%s\n", rounds, rounds == 1 ? "" : "s",
            rounds > 1 ? ", the 95% interval of each median below it" : " (1 run each)");
    fprintf(f, "  %5s", "k");
    for (i = 0; i < VI_NCOLS; i++) fprintf(f, " %*s", VI_COL, vi_cols[i].head);
    fprintf(f, " %10s %4s\n", "per extra", "runs");
}

/* An interval in a column: "[lo, hi]" at the precision that fits. */
static void vi_interval(FILE *f, const res_meas *m)
{
    char buf[64];
    int prec;

    if (!m || m->stats.n < 2) {
        fprintf(f, " %*s", VI_COL, "");
        return;
    }
    for (prec = 3; prec > 0; prec--) {
        snprintf(buf, sizeof buf, "[%.*f, %.*f]", prec, m->stats.ci_low, prec, m->stats.ci_high);
        if (strlen(buf) <= VI_COL) break;
    }
    if (prec == 0) snprintf(buf, sizeof buf, "[%.0f, %.0f]", m->stats.ci_low, m->stats.ci_high);
    fprintf(f, " %*s", VI_COL, buf);
}

/* Count k's row: the medians, the contexts per extra device, the runs; the
 * intervals on a line below it. */
static void vi_print_row(FILE *f, const results *r, int k)
{
    char key[64];
    const res_meas *total = vi_m(r, k, "total");
    const res_derived *per;
    int i, intervals = 0;

    snprintf(key, sizeof key, "k%d.per_device", k);
    per = vi_d(r, key);
    fprintf(f, "  %5d", k);
    for (i = 0; i < VI_NCOLS; i++) {
        const res_meas *m = vi_m(r, k, vi_cols[i].key);
        tb_num(f, VI_COL, 3, m ? m->stats.median : NAN);
        if (m && m->stats.n > 1) intervals = 1;
    }
    tb_num(f, 10, 3, per ? per->value : NAN);
    if (total) fprintf(f, " %4zu\n", total->stats.n);
    else fprintf(f, " %4s  (no child of this count ran)\n", "0");
    if (!intervals) return;
    fprintf(f, "  %5s", "");
    for (i = 0; i < VI_NCOLS; i++) vi_interval(f, vi_m(r, k, vi_cols[i].key));
    fprintf(f, "\n");
}

/* The first child's line: this process's own visibility. */
static void vi_print_own(FILE *f, const results *r, const res_derived *dev)
{
    const res_meas *t = res_find(r, VI, "own.total");

    if (!t) return;
    tb_wrap(f, "  ", "  ", VI_WIDTH, "The first child, with this process's own visibility (%s), "
            "counted %.0f device%s: total %.3f ms (1 run, before the rounds; not in the rows).",
            dev->text, dev->value, dev->value == 1 ? "" : "s", t->stats.median);
}

/* The saving, in words, from its entry. */
static void vi_print_saving(FILE *f, const res_derived *s)
{
    double n = res_derived_num(s, "n");

    if (isnan(s->value)) {
        tb_wrap(f, "  ", "  ", VI_WIDTH, "%s", s->text);
        return;
    }
    tb_wrap(f, "  ", "  ", VI_WIDTH, "Restricting a process that uses one GPU to it (one entry "
            "in CUDA_VISIBLE_DEVICES) %s %.3f ms of its %.3f ms cold start (%.0f%%): the total "
            "with %.0f visible devices against 1 visible, %.3f ms (medians; %s).",
            s->value >= 0 ? "saves" : "saves nothing: it adds", fabs(s->value),
            res_derived_num(s, "total_n"), fabs(res_derived_num(s, "pct")), n,
            res_derived_num(s, "total_1"), s->text);
}

/* What each column's region is, from the first count that has it. */
static void vi_print_regions(FILE *f, const results *r, const int *k, size_t nk)
{
    size_t i, j;

    fprintf(f, "  regions (one fresh process each; parts follow one another on one clock):\n");
    for (i = 0; i < VI_NCOLS; i++)
        for (j = 0; j < nk; j++) {
            const res_meas *m = vi_m(r, k[j], vi_cols[i].key);
            if (!m) continue;
            tb_wrap(f, "    ", "                     ", VI_WIDTH, "%-16s %s", vi_cols[i].head,
                    m->region);
            break;
        }
    if (nk > 1)
        fprintf(f, "    %-16s the contexts on devices 1..k-1 over k-1 (their median's)\n",
                "per extra");
}

void vi_print(FILE *f, const results *r)
{
    const res_derived *dev = vi_d(r, "devices"), *s = vi_d(r, "saving");
    int k[VI_MAX_COUNTS];
    size_t nk, i;

    if (!dev) return;
    nk = vi_counts((int)dev->value, k, VI_MAX_COUNTS);
    vi_print_header(f, dev);
    for (i = 0; i < nk; i++) vi_print_row(f, r, k[i]);
    vi_print_own(f, r, dev);
    if (s) vi_print_saving(f, s);
    vi_print_regions(f, r, k, nk);
}
