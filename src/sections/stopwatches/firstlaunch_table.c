/* firstlaunch_table.c: the first launch taken apart, as a table: each step
 * in both modes, the surplus's parts per mode, and where the cost went.
 * Formats the measurements and the conclusions firstlaunch.c stored;
 * computes none of them. */
#include <math.h>
#include <string.h>

#include "run/section_ctx.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/stopwatches/firstlaunch.h"
#include "sections/stopwatches/stopwatches.h"

/* The steps, in the order the child runs them: the figures (fl_keys) of
 * the events and of the host clock around the call (-1: none), with their
 * rows' labels. */
static const struct {
    int key, enqueue;
    const char *label;
} fl_steps[] = {
    { FL_K_FIRST, FL_K_FIRST_ENQ, "first launch in the process (got before: row 3's way)" },
    { FL_K_WARM, -1, "the same, warm, queued back to back (row 4's way)" },
    { FL_K_ONCE, FL_K_ONCE_ENQ, "the same, warm, one launch on an idle stream" },
    { FL_K_MODULE2, FL_K_MODULE2_ENQ, "first launch from a second module" },
    { FL_K_UNLOADED, FL_K_UNLOADED_ENQ, "first launch, handle from cuModuleEnumerateFunctions" },
    { FL_K_FUNCLOAD, FL_K_FUNCLOAD_ENQ, "first launch after cuFuncLoad (fourth module)" },
    { FL_K_RUNTIME, FL_K_RUNTIME_ENQ, "cuModuleGetFunction + first launch, timed together" },
    { FL_K_SECOND, FL_K_SECOND_ENQ, "vectorScale's first launch (module 1, never launched)" },
    { FL_K_SECOND_WARM, -1, "vectorScale, warm, queued back to back" },
    { FL_K_SECOND_ONCE, FL_K_SECOND_ONCE_ENQ, "vectorScale, warm, one launch on an idle stream" },
    { FL_K_FRESH, FL_K_FRESH_ENQ, "vectorAdd, warm, once, into a fresh output" },
};

/* The parts' labels, in fl_parts order: what the experiment that removes
 * (or adds) each one compares. */
static const char *const fl_labels[FL_NPARTS] = {
    "surplus: the first launch over warm",
    "a launch on its own (once - warm)",
    "the process's first launch (first - module2)",
    "the function's load (module2 - funcload)",
    "the module's first launch (see below)",
    "left unexplained (second - second_once)",
    "the load inside the launch (unloaded - funcload)",
    "the get inside the launch (runtime - module2)",
    "a fresh output (fresh - once)",
};

const char *fl_part_label(const char *part)
{
    int p;
    for (p = 0; p < FL_NPARTS; p++)
        if (strcmp(part, fl_parts[p]) == 0) return fl_labels[p];
    return part;
}

/* Mode mi's figure key (fl_keys; -1: none), or NULL. */
static const res_meas *fl_m(const results *r, int mi, int key)
{
    char k[96];
    return key < 0 ? NULL : res_find(r, SW, fl_key(k, sizeof k, mi, fl_keys[key].key));
}

/* Mode mi's conclusion first.<mode>.part.<p> (fl_parts), or NULL. */
static const res_derived *fl_dpart(const results *r, int mi, int p)
{
    char k[96];
    return res_derived_find(r, SW, fl_part_key(k, sizeof k, mi, p));
}

/* A median and its interval into two cells, or a dash. */
static void fl_interval(char *med_s, char *ci_s, size_t len, double med, double lo, double hi)
{
    if (isnan(med)) {
        snprintf(med_s, len, "-");
        ci_s[0] = '\0';
        return;
    }
    snprintf(med_s, len, "%.4f", med);
    snprintf(ci_s, len, "[%7.4f,%7.4f]", lo, hi);
}

/* A figure in a cell, "-" where it is missing. */
static const char *fl_num(char *buf, size_t len, double v)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.4f", v);
    return buf;
}

/* Which modes have conclusions; their count. */
static int fl_present(const results *r, int *has)
{
    int k, n = 0;
    for (k = 0; k < FL_NMODES; k++) {
        has[k] = fl_dpart(r, k, FL_P_SURPLUS) != NULL;
        n += has[k];
    }
    return n;
}

static void fl_print_steps(FILE *f, const results *r, const int *has)
{
    char cell[1 + 3 * FL_NMODES][48];
    const char *c[1 + 3 * FL_NMODES];
    size_t i, nc = 1;
    int k;
    ly_table *t;

    for (k = 0; k < FL_NMODES; k++) nc += has[k] ? 3 : 0;
    t = ly_new(2, nc);
    ly_column(t, 0, "step (vectorAdd unless named)", LY_LEFT, 20);
    for (nc = 1, k = 0; k < FL_NMODES; k++) {
        char head[32];
        if (!has[k]) continue;
        snprintf(head, sizeof head, "%s events", fl_mode_names[k]);
        ly_group(t, nc);
        ly_column(t, nc++, head, LY_RIGHT, 0);
        ly_column(t, nc++, "[interval]", LY_LEFT, 0);
        ly_column(t, nc++, "enqueue", LY_RIGHT, 0);
    }
    ly_keys(t, 1);
    for (i = 0; i < 1 + 3 * FL_NMODES; i++) c[i] = cell[i];
    for (i = 0; i < sizeof fl_steps / sizeof fl_steps[0]; i++) {
        snprintf(cell[0], sizeof cell[0], "%s", fl_steps[i].label);
        c[0] = fl_steps[i].label;
        for (nc = 1, k = 0; k < FL_NMODES; k++) {
            const res_meas *m, *e;
            if (!has[k]) continue;
            m = fl_m(r, k, fl_steps[i].key);
            e = fl_m(r, k, fl_steps[i].enqueue);
            if (m) fl_interval(cell[nc], cell[nc + 1], sizeof cell[0], m->stats.median,
                               m->stats.ci_low, m->stats.ci_high);
            else fl_interval(cell[nc], cell[nc + 1], sizeof cell[0], NAN, NAN, NAN);
            fl_num(cell[nc + 2], sizeof cell[0], e ? e->stats.median : NAN);
            nc += 3;
        }
        ly_row(t, c, nc);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* What a part's verdict says, in the words of its place in the table. */
static const char *fl_reading(const res_derived *d, int in_surplus)
{
    if (strcmp(d->text, "above zero") == 0) return in_surplus ? "explains a part" : "adds";
    if (strcmp(d->text, "below zero") == 0) return in_surplus ? "below zero" : "takes less";
    if (strcmp(d->text, "spans zero") == 0) return "none seen";
    return d->text;
}

static void fl_print_part(ly_table *t, const res_derived *d, int p)
{
    int in = p >= 1 && p <= FL_NSURPLUS;
    double share = res_derived_num(d, "share");
    char label[96], med[48], ci[48], sh[16] = "", enq[32];   /* med and ci: one size (fl_interval) */

    snprintf(label, sizeof label, "%s%s", p >= 1 ? "  " : "", fl_labels[p]);
    fl_interval(med, ci, sizeof ci, d->value, res_derived_num(d, "ci_low"), res_derived_num(d, "ci_high"));
    if (in && isfinite(share)) snprintf(sh, sizeof sh, "%.0f%%", 100.0 * share);
    ly_rowv(t, label, med, ci, sh, fl_num(enq, sizeof enq, res_derived_num(d, "enqueue")),
            p == 0 ? "" : fl_reading(d, in), NULL);
}

/* One mode's surplus and its parts. */
static void fl_print_parts(FILE *f, const results *r, int k)
{
    static const char *const head[] = { NULL, "events", "[interval]", "share", "enqueue", NULL };
    const res_derived *s = fl_dpart(r, k, FL_P_SURPLUS);
    char h0[64];
    int p;
    size_t i;
    ly_table *t = ly_new(2, 6);

    snprintf(h0, sizeof h0, "%s, %.0f child%s", fl_mode_names[k], res_derived_num(s, "n"),
             res_derived_num(s, "n") == 1 ? "" : "ren");
    for (i = 0; i < 6; i++)
        ly_column(t, i, i ? head[i] : h0, i == 1 || i == 3 || i == 4 ? LY_RIGHT : LY_LEFT,
                  i == 0 ? 20 : i == 5 ? 8 : 0);
    for (p = 0; p < FL_NPARTS; p++) {
        const res_derived *d = fl_dpart(r, k, p);
        if (p == FL_NSURPLUS + 1)
            ly_note(t, "not in the surplus: what a first launch made another way adds");
        if (d) fl_print_part(t, d, p);
    }
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* Where the cost went (the lesson's EAGER exercise), from both modes. */
static void fl_print_where(FILE *f, const results *r)
{
    char k[5][96];
    const res_derived *le = res_derived_find(r, SW, fl_key(k[0], sizeof k[0], FL_EAGER, FL_LOADING));
    const res_derived *ll = res_derived_find(r, SW, fl_key(k[1], sizeof k[1], FL_LAZY, FL_LOADING));
    const res_derived *wl = res_derived_find(r, SW, fl_where_key(k[2], sizeof k[2],
                                                                 fl_keys[FL_K_LOAD].key));
    const res_derived *wg = res_derived_find(r, SW, fl_where_key(k[3], sizeof k[3],
                                                                 fl_keys[FL_K_GET].key));
    const res_derived *ws = res_derived_find(r, SW, fl_where_key(k[4], sizeof k[4],
                                                                 fl_parts[FL_P_SURPLUS]));

    if (!le || !ll || !wl || !wg || !ws) return;
    fprintf(f, "\n");
    tb_wrap(f, "  ", "  ", tb_width(), "Where the cost went (the lesson's EAGER exercise, with the driver "
            "API): after a module load EAGER had %.0f of %.0f functions loaded, LAZY %.0f of %.0f; "
            "vectorAdd was loaded by %s under EAGER and by %s under LAZY. The module load took "
            "%.4f ms under EAGER against %.4f (%s), cuModuleGetFunction %.4f against %.4f ms (%s), "
            "and the first launch's surplus %.4f against %.4f ms (%s).",
            res_derived_num(le, "loaded_load"), res_derived_num(le, "functions"),
            res_derived_num(ll, "loaded_load"), res_derived_num(ll, "functions"), le->text, ll->text,
            res_derived_num(wl, "eager"), res_derived_num(wl, "lazy"), wl->text,
            res_derived_num(wg, "eager"), res_derived_num(wg, "lazy"), wg->text,
            res_derived_num(ws, "eager"), res_derived_num(ws, "lazy"), ws->text);
}

void fl_print(FILE *f, const results *r)
{
    int has[FL_NMODES], k;
    const res_meas *m = NULL;
    char n[64], c[32];

    if (fl_present(r, has) == 0) return;
    for (k = 0; k < FL_NMODES && !m; k++) m = fl_m(r, k, FL_K_FIRST);
    if (m && m->n > 0) snprintf(n, sizeof n, "over %s floats ", sec_commas(c, sizeof c, (double)m->n));
    else n[0] = '\0';
    fprintf(f, "\n");
    ly_para(f, 0, 0, tb_width(), "The first launch taken apart: vectorAdd %sin fresh child "
            "processes, the modes interleaved; medians in ms, [95%% interval of the median; min and "
            "max under 6 children]", n);
    fl_print_steps(f, r, has);
    for (k = 0; k < FL_NMODES; k++)
        if (has[k]) fl_print_parts(f, r, k);
    ly_para(f, 2, 2, tb_width(), "Each part is the median of the children's differences, which "
            "need not add up to the surplus's median (child by child they do). The module's first "
            "launch is (funcload - once) - (second - second_once): a module's first launch beyond "
            "what a second kernel's first launch pays.");
    ly_para(f, 2, 2, tb_width(), "enqueue: the same difference on the host clock around "
            "cuLaunchKernel.");
    fl_print_where(f, r);
}
