/* visible_table.c: the visible section's table: the cold start's parts by
 * visible-device count, each a median over the rounds with its interval,
 * what restricting to one device saves, and what each region is. Formats
 * the measurements and the conclusions visible.c stored; computes none of
 * them. */
#include <math.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/visible/visible.h"

#define VI "visible"
#define VI_NCOLS 6
#define VI_COL 12               /* the widest interval in a figure's column */

/* The columns: each figure (vi_keys) and its heading. */
static const struct {
    int key;
    const char *head;
} vi_cols[VI_NCOLS] = {
    { VI_K_LOAD, "libcuda" }, { VI_K_INIT, "cuInit" }, { VI_K_COUNT, "GetCount" },
    { VI_K_CTX0, "context 0" }, { VI_K_CTX_OTHERS, "1..k-1" }, { VI_K_TOTAL, "total" },
};

/* Count k's figure (vi_keys), or NULL. */
static const res_meas *vi_m(const results *r, int k, int figure)
{
    char key[64];
    return res_find(r, VI, vi_key(key, sizeof key, k, vi_keys[figure].key));
}

/* The section's entry i (vi_derived), or NULL. */
static const res_derived *vi_d(const results *r, int i)
{
    return res_derived_find(r, VI, vi_derived[i].key);
}

static void vi_print_header(FILE *f, const res_derived *dev)
{
    int rounds = (int)res_derived_num(dev, "rounds");

    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "visible: the cold start against the number of visible devices; "
            "this process sees %.0f (%s)", dev->value, dev->text);
    ly_para(f, 2, 2, tb_width(), "one fresh child per count and round, %d round%s, the order "
            "balanced; the child's host clock; medians in ms, state process%s", rounds,
            rounds == 1 ? "" : "s", rounds > 1 ? ", the 95% interval of each median below it"
            : " (1 run each)");
}

/* The table's columns: k, the figures, per extra, runs. */
static ly_table *vi_table(void)
{
    ly_table *t = ly_new(2, VI_NCOLS + 3);
    int i;

    ly_column(t, 0, "k", LY_RIGHT, 0);
    for (i = 0; i < VI_NCOLS; i++) ly_column(t, (size_t)i + 1, vi_cols[i].head, LY_RIGHT, 0);
    ly_column(t, VI_NCOLS + 1, "per extra", LY_RIGHT, 0);
    ly_column(t, VI_NCOLS + 2, "runs", LY_RIGHT, 0);
    ly_keys(t, 1);
    return t;
}

/* An interval in a column: "[lo, hi]" at the precision that fits. */
static void vi_interval(char *buf, size_t len, const res_meas *m)
{
    int prec;

    buf[0] = '\0';
    if (!m || m->stats.n < 2) return;
    for (prec = 3; prec > 0; prec--) {
        snprintf(buf, len, "[%.*f, %.*f]", prec, m->stats.ci_low, prec, m->stats.ci_high);
        if (strlen(buf) <= VI_COL) break;
    }
    if (prec == 0) snprintf(buf, len, "[%.0f, %.0f]", m->stats.ci_low, m->stats.ci_high);
}

/* A figure of a cell: "-" where it is missing. */
static void vi_num(char *buf, size_t len, double v)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.3f", v);
}

/* Count k's row: the medians, the contexts per extra device, the runs; the
 * intervals on a row below it. */
static void vi_print_row(ly_table *t, const results *r, int k)
{
    char key[64], cell[VI_NCOLS + 3][48];
    const char *c[VI_NCOLS + 3];
    const res_meas *total = vi_m(r, k, VI_K_TOTAL);
    const res_derived *per;
    int i, intervals = 0;

    per = res_derived_find(r, VI, vi_key(key, sizeof key, k, vi_derived[VI_D_PER_DEVICE].key));
    snprintf(cell[0], sizeof cell[0], "%d", k);
    for (i = 0; i < VI_NCOLS; i++) {
        const res_meas *m = vi_m(r, k, vi_cols[i].key);
        vi_num(cell[i + 1], sizeof cell[i + 1], m ? m->stats.median : NAN);
        if (m && m->stats.n > 1) intervals = 1;
    }
    vi_num(cell[VI_NCOLS + 1], sizeof cell[0], per ? per->value : NAN);
    snprintf(cell[VI_NCOLS + 2], sizeof cell[0], "%zu", total ? total->stats.n : 0);
    for (i = 0; i < VI_NCOLS + 3; i++) c[i] = cell[i];
    ly_row(t, c, VI_NCOLS + 3);
    if (!total) ly_note(t, "(no figures: see the failed checks)");
    if (!intervals) return;
    cell[0][0] = '\0';
    for (i = 0; i < VI_NCOLS; i++) vi_interval(cell[i + 1], sizeof cell[i + 1], vi_m(r, k, vi_cols[i].key));
    ly_row(t, c, VI_NCOLS + 1);
}

/* The first child's line: this process's own visibility. */
static void vi_print_own(FILE *f, const results *r, const res_derived *dev)
{
    const res_derived *t = vi_d(r, VI_D_FIRST_CHILD);

    if (!t || isnan(t->value)) return;
    tb_wrap(f, "  ", "  ", tb_width(), "The first child, with this process's own visibility (%s), "
            "counted %.0f device%s: total %.3f ms (1 run, before the rounds; not in the rows).",
            dev->text, dev->value, dev->value == 1 ? "" : "s", t->value);
}

/* What saving d of figure fig ("ready", "total") comes to, in words: what
 * it saves of what, or that it saves nothing. */
static const char *vi_saves(char *buf, size_t len, const res_derived *d, const char *fig,
                            const char *what)
{
    char k1[32], kn[32];

    snprintf(k1, sizeof k1, "%s_1", fig);
    snprintf(kn, sizeof kn, "%s_n", fig);
    if (d->value >= 0)
        snprintf(buf, len, "%.3f ms of its %.3f ms %s (%.0f%%; %.3f ms with 1 visible; %s)",
                 d->value, res_derived_num(d, kn), what, res_derived_num(d, "pct"),
                 res_derived_num(d, k1), d->text);
    else
        snprintf(buf, len, "nothing: its %.3f ms %s is %.3f ms less than with 1 visible (%s)",
                 res_derived_num(d, kn), what, -d->value, d->text);
    return buf;
}

/* The savings, in words, from their entries. */
static void vi_print_saving(FILE *f, const results *r)
{
    const res_derived *one = vi_d(r, VI_D_SAVING_ONE_GPU), *all = vi_d(r, VI_D_SAVING);
    char a[256], b[256];

    if (!all) return;
    if (isnan(all->value) || !one || isnan(one->value)) {
        tb_wrap(f, "  ", "  ", tb_width(), "%s", all->text);
        return;
    }
    tb_wrap(f, "  ", "  ", tb_width(), "Restricting CUDA_VISIBLE_DEVICES from %.0f devices to the "
            "one a process uses saves a process that uses only that device %s, and one that makes "
            "a context on every device it sees %s. Medians.", res_derived_num(all, "n"),
            vi_saves(a, sizeof a, one, vi_keys[VI_K_READY].key, "to that device's context"),
            vi_saves(b, sizeof b, all, vi_keys[VI_K_TOTAL].key, "total"));
}

/* Figure key's region, from the first count that has it, as head's line. */
static void vi_print_region(FILE *f, const results *r, const int *k, size_t nk, int key,
                            const char *head)
{
    size_t j;

    for (j = 0; j < nk; j++) {
        const res_meas *m = vi_m(r, k[j], key);
        if (!m) continue;
        ly_label(f, 4, 21, tb_width(), head, "%s", m->region);
        return;
    }
}

/* What each column's region is, and the cold start to context 0 that the
 * first saving rests on. */
static void vi_print_regions(FILE *f, const results *r, const int *k, size_t nk)
{
    size_t i;

    fprintf(f, "  regions (one fresh process each; parts follow one another on one clock):\n");
    for (i = 0; i < VI_NCOLS; i++) vi_print_region(f, r, k, nk, vi_cols[i].key, vi_cols[i].head);
    vi_print_region(f, r, k, nk, VI_K_READY, "to context 0");
    if (nk > 1)
        ly_label(f, 4, 21, tb_width(), "per extra", "the contexts on devices 1..k-1 over k-1 "
                 "(their median's)");
}

void vi_print(FILE *f, const results *r)
{
    const res_derived *dev = vi_d(r, VI_D_DEVICES);
    int k[VI_MAX_COUNTS];
    size_t nk, i;
    ly_table *t;

    if (!dev) return;
    nk = vi_counts((int)dev->value, k, VI_MAX_COUNTS);
    vi_print_header(f, dev);
    t = vi_table();
    for (i = 0; i < nk; i++) vi_print_row(t, r, k[i]);
    ly_print(f, t, tb_width());
    ly_free(t);
    vi_print_own(f, r, dev);
    vi_print_saving(f, r);
    vi_print_regions(f, r, k, nk);
}
