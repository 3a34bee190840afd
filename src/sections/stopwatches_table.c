/* stopwatches_table.c: the stopwatches section's tables: the five ways to
 * time one vector add, the second kernel, and where row 1 went. Reads the
 * results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"
#include "table.h"

#define SW "stopwatches"

void sw_print(FILE *f, const results *r)
{
    const res_meas *m1 = res_find(r, SW, "row1"), *m4 = res_find(r, SW, "row4");
    const res_meas *m5 = res_find(r, SW, "row5"), *cpu = res_find(r, SW, "cpu");
    size_t i;

    if (!m1 && !m4) return;
    fprintf(f, "\nstopwatches: one vectorAdd over 16,777,827 floats (64.0 MiB per buffer, "
            "256 threads per block, 65,539 blocks)\n\n");
    fprintf(f, "Five ways to time one vector add                     median (ms)  state        "
            "95%% CI of the median\n");
    tb_row(f, "1", m1, "wall clock, whole process");
    tb_row(f, "2", res_find(r, SW, "row2"), "wall clock, around the launch");
    tb_row(f, "", res_find(r, SW, "row2sync"), "the same clock, plus a sync");
    tb_row(f, "", res_find(r, SW, "row2.first"), "around the launch, first launch");
    tb_row(f, "", res_find(r, SW, "row2sync.first"), "plus a sync, first launch");
    tb_row(f, "3", res_find(r, SW, "row3"), "events, kernel, first launch");
    tb_row(f, "4", m4, "events, kernel, after warm-up");
    tb_row(f, "", res_find(r, SW, "row4.cold"), "the same, L2 written over before each");
    tb_row(f, "5", m5, "events, copies + kernel + copy back");
    tb_row(f, "", res_find(r, SW, "row5pinned"), "the same, pinned host memory");
    tb_row(f, "", cpu, "CPU, same n, one thread");
    if (m1 && m4 && m4->stats.median > 0)
        fprintf(f, "\nRow 1 / row 4 = %.0f: what `time ./a.out` reports over what the kernel takes.\n",
                m1->stats.median / m4->stats.median);
    if (cpu && m4 && m5 && m4->stats.median > 0 && cpu->stats.median > 0)
        fprintf(f, "The kernel is %.1fx the CPU's speed; the whole round trip is %.2fx.\n",
                cpu->stats.median / m4->stats.median, cpu->stats.median / m5->stats.median);

    fprintf(f, "\nA second kernel is cold too\n");
    tb_row(f, "", res_find(r, SW, "scale.first"), "vectorScale, first launch");
    tb_row(f, "", res_find(r, SW, "scale.warm"), "vectorScale, after warm-up");

    if (m1) {
        double sum = 0;
        if (m1->nsamples > 1)
            fprintf(f, "\nWhere row 1 went: the child's waterfall, median of %zu children  ms   %% of row 1\n",
                    m1->nsamples);
        else
            fprintf(f, "\nWhere row 1 went: the child's waterfall                     ms   %% of row 1\n");
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            if (strcmp(m->section, SW) != 0 || strncmp(m->key, "waterfall.", 10) != 0) continue;
            fprintf(f, "  %-52s %10.3f %8.1f%%\n", m->name, m->stats.median,
                    100.0 * m->stats.median / m1->stats.median);
            sum += m->stats.median;
        }
        fprintf(f, "  %-52s %10.3f %8.1f%%\n", m1->nsamples > 1 ? "total (the parts' medians)" : "total (row 1)",
                sum, 100.0 * sum / m1->stats.median);
        fprintf(f, "  The child times its own parts; the parent times the last two, from the\n"
                "  child's last mark to its last file closing, and from there to waitpid.\n");
    }
    fprintf(f, "\nWhat each row holds that the row below does not:\n"
            "  1  process start, loading the driver and NVRTC, cuInit, the context, compiling,\n"
            "     module load, allocations, host setup, the copies and teardown\n"
            "  2  with the sync: the kernel's run and the wait for it; without: only the enqueue\n"
            "  3  the first launch's one-time cost: loading the function (lazy loading)\n"
            "  4  the kernel alone, warm\n"
            "  5  the two copies in and the copy back over PCIe around the kernel\n");
}
