/* crossover_table.c: the crossover section's table: CPU against kernel and
 * the one-shot round trip, per n. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/table.h"
#include "sections/crossover/crossover.h"

#define XO "crossover"

void xo_print(FILE *f, const results *r)
{
    size_t i;
    int any = 0;

    for (i = 0; i < r->nm; i++) {
        const res_meas *cpu = &r->m[i], *k, *pg, *pn;
        char key[80];
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
            fprintf(f, "\ncrossover: where the CPU wins (medians, ms; the one-shot task is copy "
                    "in, compute, copy back)\n");
            fprintf(f, "%12s %11s %11s %11s %14s %12s   %-18s %s\n", "n", "CPU", "kernel",
                    "L2-cold", "pageable", "pinned", "one-shot winner", "kernel vs CPU");
            any = 1;
        }
        best = fmin(pg->stats.median, pn->stats.median);
        win = cpu->stats.median <= best ? "CPU"
              : pn->stats.median <= pg->stats.median ? "GPU (pinned)" : "GPU (pageable)";
        fprintf(f, "%12ld %11.4f %11.4f", cpu->n, cpu->stats.median, k->stats.median);
        tb_num(f, 12, 4, tb_med(r, XO, key));
        fprintf(f, " %14.4f %12.4f   %-18s %s %.1fx\n", pg->stats.median, pn->stats.median, win,
                k->stats.median < cpu->stats.median ? "kernel faster" : "CPU faster",
                k->stats.median < cpu->stats.median ? cpu->stats.median / k->stats.median
                                                     : k->stats.median / cpu->stats.median);
    }
    if (!any) return;
    tb_wrap(f, "", "", 100, "kernel: warm (inputs as the last run left them in the L2); L2-cold: "
            "the L2 written over before each launch. Kernel vs CPU flatters the GPU by hiding the "
            "copies; round trip vs CPU is the honest comparison for a one-shot job and pessimistic "
            "for data that stays on the device.");
    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        if (strcmp(d->section, XO) == 0 &&
            strncmp(d->key, XO_SHARED XO_NP, strlen(XO_SHARED XO_NP)) == 0)
            tb_wrap(f, "", "", 100, "At n = %.0f the rows are the samples section %s took (the same "
                    "work at the same n, checked there), not timed again.", d->value, d->text);
    }
}
