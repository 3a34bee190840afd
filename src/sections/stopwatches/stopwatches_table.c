/* stopwatches_table.c: the stopwatches section's tables: the five ways to
 * time one vector add, the second kernel, the first launch taken apart,
 * where row 1 went, and what each row holds. Formats the measurements and
 * the conclusions the section stored (stopwatches.h, firstlaunch.h);
 * computes none of them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/stopwatches/firstlaunch.h"
#include "sections/stopwatches/stopwatches.h"

/* The section's figure i (sw_keys), or NULL. */
static const res_meas *sw_m(const results *r, int i)
{
    return res_find(r, SW, sw_keys[i].key);
}

/* The section's entry i (sw_derived), or NULL. */
static const res_derived *sw_d(const results *r, int i)
{
    return res_derived_find(r, SW, sw_derived[i].key);
}

static void sw_print_header(FILE *f, const results *r)
{
    const res_derived *s = sw_d(r, SW_D_SETUP);
    char n[32], blocks[32];

    if (s)
        fprintf(f, "\nstopwatches: one vectorAdd over %s floats (%.1f MiB per buffer, %.0f threads "
                "per block, %s blocks)\n\n", sec_commas(n, sizeof n, s->value),
                res_derived_num(s, "buffer_bytes") / 1048576.0, res_derived_num(s, "threads"),
                sec_commas(blocks, sizeof blocks, res_derived_num(s, "blocks")));
    else
        fprintf(f, "\nstopwatches: one vectorAdd, timed five ways\n\n");
}

static void sw_print_rows(FILE *f, const results *r)
{
    const res_meas *m1 = sw_m(r, SW_K_ROW1), *m4 = sw_m(r, SW_K_ROW4);
    const res_meas *m5 = sw_m(r, SW_K_ROW5), *cpu = sw_m(r, SW_K_CPU);

    ly_table *t = tb_rows_new();

    fprintf(f, "Five ways to time one vector add\n");
    tb_rows_add(t, "1", m1, "wall clock, whole process");
    tb_rows_add(t, "2", sw_m(r, SW_K_ROW2), "wall clock, around the launch");
    tb_rows_add(t, "", sw_m(r, SW_K_ROW2SYNC), "the same clock, plus a sync");
    tb_rows_add(t, "", sw_m(r, SW_K_ROW2_FIRST), "around the launch, first launch");
    tb_rows_add(t, "", sw_m(r, SW_K_ROW2SYNC_FIRST), "plus a sync, first launch");
    tb_rows_add(t, "3", sw_m(r, SW_K_ROW3), "events, kernel, first launch");
    tb_rows_add(t, "4", m4, "events, kernel, after warm-up");
    tb_rows_add(t, "", sw_m(r, SW_K_ROW4_COLD), "the same, L2 written over before each");
    tb_rows_add(t, "5", m5, "events, copies + kernel + copy back");
    tb_rows_add(t, "", sw_m(r, SW_K_ROW5PINNED), "the same, pinned host memory");
    tb_rows_add(t, "", cpu, "CPU, same n, one thread");
    tb_rows_end(f, t);
    if (m1 && m4 && m4->stats.median > 0) {
        fputc('\n', f);
        ly_para(f, 0, 2, tb_width(), "Row 1 / row 4 = %.0f: what `time ./a.out` reports over "
                "what the kernel takes.", m1->stats.median / m4->stats.median);
    }
    if (cpu && m4 && m5 && m4->stats.median > 0 && cpu->stats.median > 0)
        ly_para(f, 0, 2, tb_width(), "The kernel is %.1fx the CPU's speed; the whole round trip "
                "is %.2fx.",
                cpu->stats.median / m4->stats.median, cpu->stats.median / m5->stats.median);
    fprintf(f, "\nA second kernel is cold too\n");
    t = tb_rows_new();
    tb_rows_add(t, "", sw_m(r, SW_K_SCALE_FIRST), "vectorScale, first launch");
    tb_rows_add(t, "", sw_m(r, SW_K_SCALE_WARM), "vectorScale, after warm-up");
    tb_rows_end(f, t);
}

static void sw_print_waterfall(FILE *f, const results *r, const res_meas *m1)
{
    double sum = 0;
    size_t i;
    char head[96], ms[32], pct[32];
    ly_table *t = ly_new(2, 3);

    if (m1->nsamples > 1)
        snprintf(head, sizeof head, "Where row 1 went: the child's waterfall, median of %zu children",
                 m1->nsamples);
    else
        snprintf(head, sizeof head, "Where row 1 went: the child's waterfall");
    fprintf(f, "\n%s\n", head);
    ly_column(t, 0, NULL, LY_LEFT, 20);
    ly_column(t, 1, "ms", LY_RIGHT, 0);
    ly_column(t, 2, "% of row 1", LY_RIGHT, 0);
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, SW) != 0 || strncmp(m->key, SW_WATERFALL, strlen(SW_WATERFALL)) != 0)
            continue;
        snprintf(ms, sizeof ms, "%.3f", m->stats.median);
        snprintf(pct, sizeof pct, "%.1f%%", 100.0 * m->stats.median / m1->stats.median);
        ly_rowv(t, m->name, ms, pct, NULL);
        sum += m->stats.median;
    }
    snprintf(ms, sizeof ms, "%.3f", sum);
    snprintf(pct, sizeof pct, "%.1f%%", 100.0 * sum / m1->stats.median);
    ly_rowv(t, m1->nsamples > 1 ? "total (the parts' medians)" : "total (row 1)", ms, pct, NULL);
    ly_print(f, t, tb_width());
    ly_free(t);
    ly_para(f, 2, 2, tb_width(), "The child times its own parts; the parent times the last two, "
            "from the child's last mark to its last file closing, and from there to waitpid.");
}

/* Row 3's sentence: its surplus, and what the first-launch experiment
 * found in this process's mode, or that it did not run. */
static void sw_print_row3(FILE *f, const results *r, const res_derived *d)
{
    const char *mode = d->text[0] ? d->text : "an unknown mode";
    const res_derived *s = NULL, *ld = NULL;
    char key[64], found[1024];
    int k;

    for (k = 0; k < FL_NMODES && res_derived_num(d, "experiment") == 1; k++)
        if (strcmp(d->text, fl_mode_names[k]) == 0) {
            s = res_derived_find(r, SW, fl_part_key(key, sizeof key, k, FL_P_SURPLUS));
            ld = res_derived_find(r, SW, fl_key(key, sizeof key, k, FL_LOADING));
        }
    if (s && ld) {
        int p = (int)res_derived_num(s, "largest");
        int before = strcmp(ld->text, "the module load") == 0 ||
                     strcmp(ld->text, "cuModuleGetFunction") == 0;
        snprintf(found, sizeof found, "In %s's children (the first launch taken apart, above) "
                 "vectorAdd was %s%s%s; of their %.4f ms surplus the largest part, %.4f ms, is %s.",
                 mode, before ? "loaded by " : strcmp(ld->text, "the first launch") == 0
                 ? "loaded inside " : "loaded: ", ld->text, before ? ", before the launch" : "",
                 s->value, res_derived_num(s, "largest_ms"),
                 p >= 1 && p < FL_NPARTS ? fl_part_label(fl_parts[p]) : "?");
    } else {
        const res_kv *why = res_env_get(r, "first_launch");
        snprintf(found, sizeof found, "What it holds is not taken apart in this run: the "
                 "first-launch experiment %s.", why && why->kind == RES_STR && why->str ? why->str
                 : "did not run in this mode");
    }
    tb_wrap(f, "  3  ", "     ", tb_width(), "the first launch's surplus over row 4: %.4f ms in this "
            "process (%s); on the host its cuLaunchKernel took %.4f ms against %.4f warm (row 2). %s",
            d->value, mode, res_derived_num(d, "enqueue_first"), res_derived_num(d, "enqueue_warm"),
            found);
}

/* What each row holds that the row below does not, from the run. */
static void sw_print_holds(FILE *f, const results *r)
{
    const res_derived *d1 = sw_d(r, SW_D_ROW1), *d2 = sw_d(r, SW_D_ROW2), *d3 = sw_d(r, SW_D_ROW3);
    const res_derived *d4 = sw_d(r, SW_D_ROW4), *d5 = sw_d(r, SW_D_ROW5);

    if (!d1 && !d2 && !d3 && !d4 && !d5) return;
    fprintf(f, "\nWhat each row holds that the row below does not, in this run:\n");
    if (d1)
        tb_wrap(f, "  1  ", "     ", tb_width(), "every part of the waterfall above (%.0f parts); the "
                "largest: %s (%.1f%%, %.1f%% and %.1f%% of row 1)", res_derived_num(d1, "parts"),
                d1->text, res_derived_num(d1, "top1_pct"), res_derived_num(d1, "top2_pct"),
                res_derived_num(d1, "top3_pct"));
    if (d2)
        tb_wrap(f, "  2  ", "     ", tb_width(), "with the sync (%.4f ms): the kernel (row 4, %.4f) and "
                "%.4f ms of launching and waiting; without it only the enqueue (%.4f ms)",
                res_derived_num(d2, "sync"), res_derived_num(d2, "kernel"), d2->value,
                res_derived_num(d2, "enqueue"));
    if (d3) sw_print_row3(f, r, d3);
    if (d4)
        tb_wrap(f, "  4  ", "     ", tb_width(), "the kernel alone, warm: %.1f MB read and written at "
                "%.0f GB/s", res_derived_num(d4, "bytes") / 1e6, d4->value);
    if (d5)
        tb_wrap(f, "  5  ", "     ", tb_width(), "the two copies in and the copy back around the kernel: "
                "%.3f ms more from pageable memory, %.3f ms more from pinned", d5->value,
                res_derived_num(d5, "pinned"));
}

void sw_print(FILE *f, const results *r)
{
    const res_meas *m1 = sw_m(r, SW_K_ROW1), *m4 = sw_m(r, SW_K_ROW4);

    if (!m1 && !m4) return;
    sw_print_header(f, r);
    sw_print_rows(f, r);
    fl_print(f, r);
    if (m1) sw_print_waterfall(f, r, m1);
    sw_print_holds(f, r);
}
