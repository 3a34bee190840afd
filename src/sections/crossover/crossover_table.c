/* crossover_table.c: the crossover section's table: CPU against kernel and
 * the one-shot round trip, per n. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/crossover/crossover.h"

#define XO "crossover"

/* The table's columns. */
static ly_table *xo_table(void)
{
    static const char *const head[] = { "n", "CPU", "kernel", "L2-cold", "pageable", "pinned",
                                        "one-shot winner", "kernel vs CPU" };
    ly_table *t = ly_new(2, 8);
    size_t i;
    for (i = 0; i < 8; i++) ly_column(t, i, head[i], i < 6 ? LY_RIGHT : LY_LEFT, i < 6 ? 0 : 8);
    ly_keys(t, 1);
    return t;
}

/* A median in a cell, "-" where it is missing. */
static const char *xo_cell(char *buf, size_t len, double v)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.4f", v);
    return buf;
}

void xo_print(FILE *f, const results *r)
{
    size_t i;
    int any = 0;
    ly_table *t = NULL;

    for (i = 0; i < r->nm; i++) {
        const res_meas *cpu = &r->m[i], *k, *pg, *pn;
        char key[80], c[6][32], vs[64];
        const char *win;
        double best;
        if (strcmp(cpu->section, XO) != 0 ||
            strcmp(cpu->key, xo_key(key, sizeof key, cpu->n, XO_CPU)) != 0)
            continue;
        k = res_find(r, XO, xo_key(key, sizeof key, cpu->n, XO_KERNEL));
        pg = res_find(r, XO, xo_key(key, sizeof key, cpu->n, XO_PAGEABLE));
        pn = res_find(r, XO, xo_key(key, sizeof key, cpu->n, XO_PINNED));
        if (!k || !pg || !pn) continue;
        xo_key(key, sizeof key, cpu->n, XO_COLD);
        if (!any) {
            fprintf(f, "\n");
            ly_para(f, 0, 2, tb_width(), "crossover: where the CPU wins (medians, ms; the one-shot "
                    "task is copy in, compute, copy back)");
            t = xo_table();
            any = 1;
        }
        best = fmin(pg->stats.median, pn->stats.median);
        win = cpu->stats.median <= best ? "CPU"
              : pn->stats.median <= pg->stats.median ? "GPU (pinned)" : "GPU (pageable)";
        snprintf(c[0], sizeof c[0], "%ld", cpu->n);
        snprintf(vs, sizeof vs, "%s %.1fx", k->stats.median < cpu->stats.median ? "kernel faster"
                 : "CPU faster", k->stats.median < cpu->stats.median
                 ? cpu->stats.median / k->stats.median : k->stats.median / cpu->stats.median);
        ly_rowv(t, c[0], xo_cell(c[1], sizeof c[1], cpu->stats.median),
                xo_cell(c[2], sizeof c[2], k->stats.median),
                xo_cell(c[3], sizeof c[3], tb_med(r, XO, key)),
                xo_cell(c[4], sizeof c[4], pg->stats.median),
                xo_cell(c[5], sizeof c[5], pn->stats.median), win, vs, NULL);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
    if (!any) return;
    tb_wrap(f, "", "", tb_width(), "kernel: warm (inputs as the last run left them in the L2); L2-cold: "
            "the L2 written over before each launch. Kernel vs CPU flatters the GPU by hiding the "
            "copies; round trip vs CPU is the honest comparison for a one-shot job and pessimistic "
            "for data that stays on the device.");
    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        if (strcmp(d->section, XO) == 0 &&
            strncmp(d->key, XO_SHARED XO_NP, strlen(XO_SHARED XO_NP)) == 0)
            tb_wrap(f, "", "", tb_width(), "At n = %.0f the rows are the samples section %s took (the same "
                    "work at the same n, checked there), not timed again.", d->value, d->text);
    }
}
