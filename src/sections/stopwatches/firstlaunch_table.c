/* firstlaunch_table.c: the first launch taken apart, as a table: each step
 * in both modes, the surplus's parts per mode, and where the cost went.
 * Formats the measurements and the conclusions firstlaunch.c stored;
 * computes none of them. */
#include <math.h>
#include <string.h>

#include "run/section_ctx.h"
#include "run/table.h"
#include "sections/stopwatches/firstlaunch.h"

#define SW "stopwatches"

/* The steps, in the order the child runs them, with their rows' labels. */
static const struct {
    const char *key, *label;
} fl_steps[] = {
    { "first", "first launch in the process (got before: row 3's way)" },
    { "warm", "the same, warm, queued back to back (row 4's way)" },
    { "once", "the same, warm, one launch on an idle stream" },
    { "module2", "first launch from a second module" },
    { "unloaded", "first launch, handle from cuModuleEnumerateFunctions" },
    { "funcload", "first launch after cuFuncLoad (fourth module)" },
    { "runtime", "cuModuleGetFunction + first launch, timed together" },
    { "second", "vectorScale's first launch (module 1, never launched)" },
    { "second_warm", "vectorScale, warm, queued back to back" },
    { "second_once", "vectorScale, warm, one launch on an idle stream" },
    { "fresh", "vectorAdd, warm, once, into a fresh output" },
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

static const res_meas *fl_m(const results *r, int mi, const char *key)
{
    char k[96];
    snprintf(k, sizeof k, "first.%s.%s", fl_modes[mi], key);
    return res_find(r, SW, k);
}

static const res_derived *fl_d(const results *r, const char *mode, const char *what)
{
    char k[96];
    snprintf(k, sizeof k, "first.%s%s%s", mode, mode[0] ? "." : "", what);
    return res_derived_find(r, SW, k);
}

/* A median and its interval, or dashes. */
static void fl_interval(FILE *f, double med, double lo, double hi)
{
    if (isnan(med)) {
        fprintf(f, " %8s %17s", "-", "");
        return;
    }
    fprintf(f, " %8.4f [%7.4f,%7.4f]", med, lo, hi);
}

/* Which modes have conclusions; their count. */
static int fl_present(const results *r, int *has)
{
    int k, n = 0;
    for (k = 0; k < FL_NMODES; k++) {
        has[k] = fl_d(r, fl_modes[k], "part.surplus") != NULL;
        n += has[k];
    }
    return n;
}

static void fl_print_steps(FILE *f, const results *r, const int *has)
{
    size_t i;
    int k;

    fprintf(f, "  %-56s", "step (vectorAdd unless named)");
    for (k = 0; k < FL_NMODES; k++) {
        char head[32];
        if (!has[k]) continue;
        snprintf(head, sizeof head, "%s events", fl_mode_names[k]);
        fprintf(f, " %13s %-17s%10s", head, "[interval]", "enqueue");
    }
    fprintf(f, "\n");
    for (i = 0; i < sizeof fl_steps / sizeof fl_steps[0]; i++) {
        char enq[64];
        fprintf(f, "  %-56s", fl_steps[i].label);
        for (k = 0; k < FL_NMODES; k++) {
            const res_meas *m, *e;
            if (!has[k]) continue;
            m = fl_m(r, k, fl_steps[i].key);
            snprintf(enq, sizeof enq, "%s.enqueue", fl_steps[i].key);
            e = fl_m(r, k, enq);
            fprintf(f, "     ");
            if (m) fl_interval(f, m->stats.median, m->stats.ci_low, m->stats.ci_high);
            else fl_interval(f, NAN, NAN, NAN);
            tb_num(f, 9, 4, e ? e->stats.median : NAN);
        }
        fprintf(f, "\n");
    }
}

/* What a part's verdict says, in the words of its place in the table. */
static const char *fl_reading(const res_derived *d, int in_surplus)
{
    if (strcmp(d->text, "above zero") == 0) return in_surplus ? "explains a part" : "adds";
    if (strcmp(d->text, "below zero") == 0) return in_surplus ? "below zero" : "takes less";
    if (strcmp(d->text, "spans zero") == 0) return "none seen";
    return d->text;
}

static void fl_print_part(FILE *f, const res_derived *d, int p)
{
    int in = p >= 1 && p <= FL_NSURPLUS;
    double share = res_derived_num(d, "share");

    fprintf(f, "  %s%-*s", p >= 1 ? "  " : "", p >= 1 ? 48 : 50, fl_labels[p]);
    fl_interval(f, d->value, res_derived_num(d, "ci_low"), res_derived_num(d, "ci_high"));
    if (in && isfinite(share)) fprintf(f, " %5.0f%%", 100.0 * share);
    else fprintf(f, " %6s", "");
    tb_num(f, 9, 4, res_derived_num(d, "enqueue"));
    fprintf(f, "  %s\n", p == 0 ? "" : fl_reading(d, in));
}

/* One mode's surplus and its parts. */
static void fl_print_parts(FILE *f, const results *r, int k)
{
    const res_derived *s = fl_d(r, fl_modes[k], "part.surplus");
    char head[64];
    int p;

    snprintf(head, sizeof head, "%s, %.0f child%s", fl_mode_names[k], res_derived_num(s, "n"),
             res_derived_num(s, "n") == 1 ? "" : "ren");
    fprintf(f, "\n  %-50s %8s %-17s%7s%10s\n", head, "events", "[interval]", "share", "enqueue");
    for (p = 0; p < FL_NPARTS; p++) {
        const res_derived *d;
        char what[64];
        snprintf(what, sizeof what, "part.%s", fl_parts[p]);
        d = fl_d(r, fl_modes[k], what);
        if (p == FL_NSURPLUS + 1)
            fprintf(f, "    not in the surplus: what a first launch made another way adds\n");
        if (d) fl_print_part(f, d, p);
    }
}

/* Where the cost went (the lesson's EAGER exercise), from both modes. */
static void fl_print_where(FILE *f, const results *r)
{
    const res_derived *le = fl_d(r, "eager", "loading"), *ll = fl_d(r, "lazy", "loading");
    const res_derived *wl = fl_d(r, "", "where.load"), *wg = fl_d(r, "", "where.get");
    const res_derived *ws = fl_d(r, "", "where.surplus");

    if (!le || !ll || !wl || !wg || !ws) return;
    fprintf(f, "\n");
    tb_wrap(f, "  ", "  ", 100, "Where the cost went (the lesson's EAGER exercise, with the driver "
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
    for (k = 0; k < FL_NMODES && !m; k++) m = fl_m(r, k, "first");
    if (m && m->n > 0) snprintf(n, sizeof n, "over %s floats ", sec_commas(c, sizeof c, (double)m->n));
    else n[0] = '\0';
    fprintf(f, "\nThe first launch taken apart: vectorAdd %sin fresh child processes, the modes\n"
            "interleaved; medians in ms, [95%% interval of the median; min and max under 6 "
            "children]\n", n);
    fl_print_steps(f, r, has);
    for (k = 0; k < FL_NMODES; k++)
        if (has[k]) fl_print_parts(f, r, k);
    fprintf(f, "  Each part is the median of the children's differences, which need not add up to "
            "the surplus's\n  median (child by child they do). The module's first launch is "
            "(funcload - once) - (second\n  - second_once): a module's first launch beyond what a "
            "second kernel's first launch pays.\n  enqueue: the same difference on the host clock "
            "around cuLaunchKernel.\n");
    fl_print_where(f, r);
}
