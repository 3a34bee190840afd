/* fusion_table.c: the fusion section's tables: predictions, the main size,
 * the n-sweep, the widths and the correctness line. Formats the
 * measurements and the conclusions the section stored (sections/fusion/fusion.h);
 * computes none of them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/fusion/fusion.h"

#define FS "fusion"

/* The roofline's roof is the copy floor; of the rows, those of the main
 * size are points (the sweep's are the same kernels again). */
const sec_roof fs_roof = { FS_D_COPY_FLOOR, FS_MAIN_PRE };

/* The conclusion `key`; its value or a field of it (NaN when absent). */
static const res_derived *fs_d(const results *r, const char *key)
{
    return res_derived_find(r, FS, key);
}

static double fs_val(const results *r, const char *key)
{
    const res_derived *d = fs_d(r, key);
    return d ? d->value : NAN;
}

static double fs_num(const results *r, const char *key, const char *field)
{
    return res_derived_num(fs_d(r, key), field);
}

/* The measurement "<prefix><key><suffix>" of section fusion, or NULL. */
static const res_meas *fs_m(const results *r, const char *prefix, const char *key, const char *suffix)
{
    char k[128];
    snprintf(k, sizeof k, "%s%s%s", prefix, key, suffix);
    return res_find(r, FS, k);
}

/* Is d one of the section's conclusions of the pattern (by its head, the
 * part before the first <word>)? */
static int fs_is(const res_derived *d, const char *pattern)
{
    return strcmp(d->section, FS) == 0 && strncmp(d->key, pattern, FS_HEAD(pattern)) == 0;
}

/* The row prefix of sweep size n: FS_SWEEP_PRE filled in (48 bytes). */
static void fs_sweep_pre(char *buf, double n)
{
    char digits[32];
    const char *part = digits;
    snprintf(digits, sizeof digits, "%.0f", n);
    sch_fill(buf, 48, NULL, FS_SWEEP_PRE, &part, 1);
}

static void fs_print_predictions(FILE *f, const res_derived *p)
{
    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "fusion: one chain of four elementwise stages (scale and bias, GELU, "
            "add residual, clamp)");
    ly_para(f, 0, 2, tb_width(), "Predictions, from the byte model, before any time: staged %.0f B "
            "per element, pair-fused %.0f, fused %.0f; staged/fused: byte ratio %.2f, launch ratio "
            "%.0f; staged/pair %.2f, pair/fused %.2f", res_derived_num(p, "staged_bytes"), res_derived_num(p, "pair_bytes"),
            res_derived_num(p, "fused_bytes"), p->value, res_derived_num(p, "launch_ratio"),
            res_derived_num(p, "staged_pair"), res_derived_num(p, "pair_fused"));
}

/* One row of the main table: ms, bytes per element, GB/s, x floor, and
 * the L2-cold ms (NaN: "-"; a row of none: ""). */
static void fs_main_row(ly_table *t, const char *name, double ms, double bytes, double n,
                        double floor_gbs, double cold, int has_cold)
{
    double gbs = bytes / ms / 1e6;
    char c[5][32];
    snprintf(c[0], sizeof c[0], "%.4f", ms);
    snprintf(c[1], sizeof c[1], "%.0f", bytes / n);
    snprintf(c[2], sizeof c[2], "%.1f", gbs);
    snprintf(c[3], sizeof c[3], "%.2f", gbs / floor_gbs);
    if (!has_cold) c[4][0] = '\0';
    else if (isnan(cold)) snprintf(c[4], sizeof c[4], "-");
    else snprintf(c[4], sizeof c[4], "%.4f", cold);
    ly_rowv(t, name, c[0], c[1], c[2], c[3], c[4], NULL);
}

/* Every version at the main size, in the order of the version table, the
 * stages' sum below the last stage. */
static void fs_print_main(FILE *f, const results *r)
{
    static const char *const head[] = { NULL, "ms", "B/elem", "GB/s", "x floor", "L2-cold ms" };
    const res_derived *sum = fs_d(r, FS_D_STAGES);
    double main_n = fs_val(r, FS_D_SIZES), floor_gbs = fs_val(r, FS_D_FLOOR_MAIN);
    char n[32], h0[96];
    size_t i;
    ly_table *t = ly_new(2, 6);

    snprintf(h0, sizeof h0, "n = %s (%.0f MiB per buffer)", sec_commas(n, sizeof n, main_n),
             main_n * sizeof(float) / 1048576.0);
    for (i = 0; i < 6; i++) ly_column(t, i, i ? head[i] : h0, i ? LY_RIGHT : LY_LEFT, i ? 0 : 16);
    for (i = 0; i < r->nd; i++) {
        const char *key = r->d[i].key + FS_HEAD(FS_D_VERSION);
        const res_meas *m, *cold;
        if (!fs_is(&r->d[i], FS_D_VERSION) || !(m = fs_m(r, FS_MAIN_PRE, key, ""))) continue;
        cold = fs_m(r, FS_MAIN_PRE, key, FS_COLD);
        fs_main_row(t, m->name, m->stats.median, m->bytes, (double)m->n, floor_gbs,
                    cold ? cold->stats.median : NAN, 1);
        if (sum && strcmp(sum->text, m->key) == 0)
            fs_main_row(t, sum->name, sum->value, res_derived_num(sum, "bytes"),
                        res_derived_num(sum, "n"), floor_gbs, NAN, 0);
    }
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* The copy floor at the main size and the roof the section stored. */
static void fs_print_floor(FILE *f, const results *r)
{
    const res_derived *cf = fs_d(r, FS_D_COPY_FLOOR);
    double roof = cf ? cf->value : NAN, roof_dtod = res_derived_num(cf, "dtod_gbs");
    double buffer_mib = fs_val(r, FS_D_SIZES) * sizeof(float) / 1048576.0;

    char text[1024];
    size_t at;

    if (res_derived_num(cf, "fallback") == 1)
        ly_para(f, 2, 2, tb_width(), "No n of the sweep has buffers of 4x the L2: the roof falls "
                "back to this size's floor.");
    at = (size_t)snprintf(text, sizeof text, "x floor is GB/s over the best copy at this n (%.1f "
                          "GB/s). With buffers of at least 4x the L2, the copy floor is highest at "
                          "n = %.0f: %.1f GB/s, %.1f%% of cuMemcpyDtoD's %.1f GB/s there",
                          fs_val(r, FS_D_FLOOR_MAIN), res_derived_num(cf, "n"), roof,
                          100.0 * roof / roof_dtod, roof_dtod);
    if (isfinite(res_derived_num(cf, "datasheet_pct")) && at < sizeof text)
        snprintf(text + at, sizeof text - at, ", %.1f%% of the %.0f GB/s its datasheet gives (%s)",
                 res_derived_num(cf, "datasheet_pct"), res_derived_num(cf, "datasheet_gbs"),
                 tb_env_str(r, "datasheet_source", "?"));
    ly_para(f, 2, 2, tb_width(), "%s.", text);
    ly_para(f, 2, 2, tb_width(), "GB/s counts the bytes each version names, 1e9 bytes per second; "
            "the state is warm: at %.0f MiB per buffer part of the inputs stays in the %.0f MiB L2, "
            "which is how a version can pass 1.00.", buffer_mib, tb_env_num(r, "l2_bytes") / 1048576.0);
}

/* Which prediction held, as the section concluded it. */
static void fs_print_held(FILE *f, const results *r, const res_derived *p)
{
    const res_derived *h = fs_d(r, FS_D_HELD), *w = fs_d(r, FS_D_HELD_WIDE);
    double grid_us = res_derived_num(h, "grid_us");
    char blocks[32];
    char text[1024];
    if (!h) return;
    ly_para(f, 0, 2, tb_width(), "Which prediction held: staged/fused = %.2f against the byte "
            "ratio %.2f and the launch ratio %.0f; staged/pair = %.2f (%.2f), pair/fused = %.2f "
            "(%.2f). The staged chain takes %.1f us longer.", h->value, p->value,
            res_derived_num(p, "launch_ratio"), res_derived_num(h, "staged_pair"),
            res_derived_num(p, "staged_pair"), res_derived_num(h, "pair_fused"),
            res_derived_num(p, "pair_fused"), res_derived_num(h, "extra_us"));
    if (!isnan(grid_us))
        snprintf(text, sizeof text, "; an empty kernel on the same grid of %s blocks takes %.1f us "
                 "(on one block %.1f us), so its %.0f extra grids can take up to %.1f us.",
                 sec_commas(blocks, sizeof blocks, res_derived_num(h, "grid_blocks")), grid_us,
                 res_derived_num(h, "one_us"), res_derived_num(h, "extra_grids"),
                 res_derived_num(h, "extra_grids_us"));
    else
        snprintf(text, sizeof text, "; section launch did not run in this run, so what its %.0f "
                 "extra grids take is not measured here (launch times an empty kernel on the grid).",
                 res_derived_num(h, "extra_grids"));
    ly_para(f, 2, 2, tb_width(), "At the roof's %.0f GB/s its %.0f extra bytes per element take "
            "%.1f us%s", fs_val(r, FS_D_COPY_FLOOR), res_derived_num(p, "extra_bytes"),
            res_derived_num(h, "bytes_us"), text);
    ly_para(f, 2, 2, tb_width(), "The staged chain moves %.0f GB/s, the fused kernel %.0f GB/s, "
            "and the ratio %s.", res_derived_num(h, "staged_gbs"), res_derived_num(h, "fused_gbs"),
            h->text);
    if (w)
        ly_para(f, 2, 2, tb_width(), "The fastest of the fewer, fuller blocks, fused-wide<%.0f>, "
                "moves %.0f GB/s: %.2fx the copy floor at this n.", res_derived_num(w, "width"),
                res_derived_num(w, "gbs"), w->value);
}

/* Does the sweep hold L2-cold figures (n=N.staged.cold at some n)? */
static int fs_sweep_has_cold(const results *r)
{
    size_t i;
    char prefix[48];
    for (i = 0; i < r->nd; i++) {
        if (!fs_is(&r->d[i], FS_D_SWEEP_N)) continue;
        fs_sweep_pre(prefix, res_derived_num(&r->d[i], "n"));
        if (fs_m(r, prefix, "staged", FS_COLD) || fs_m(r, prefix, "fused", FS_COLD)) return 1;
    }
    return 0;
}

/* The sweep's table: its columns, the L2-cold ones where it has them. */
static ly_table *fs_sweep_table(int cold)
{
    static const char *const head[] = { "n", "staged ms warm", "fused ms warm", "ratio",
                                        "us/launch (staged)", "best fused GB/s", "floor GB/s",
                                        "best/ floor", "staged ms L2-cold", "fused ms L2-cold",
                                        "reading" };
    size_t nc = cold ? 11 : 9, i;
    ly_table *t = ly_new(2, nc);
    for (i = 0; i < nc; i++) {
        size_t h = i + 1 == nc ? 10 : i;
        ly_column(t, i, head[h], h == 10 ? LY_LEFT : LY_RIGHT, h == 10 ? 12 : 0);
    }
    ly_keys(t, 1);
    return t;
}

/* One row of the n sweep from its stored reading d. */
static void fs_sweep_row(ly_table *t, const results *r, const res_derived *d, int cold)
{
    double n = res_derived_num(d, "n");
    char prefix[48], c[10][32];
    const char *cell[11];
    size_t i, nc = 0;

    snprintf(c[0], sizeof c[0], "%.0f", n);
    snprintf(c[1], sizeof c[1], "%.4f", res_derived_num(d, "staged_ms"));
    snprintf(c[2], sizeof c[2], "%.4f", res_derived_num(d, "fused_ms"));
    snprintf(c[3], sizeof c[3], "%.2f", d->value);
    snprintf(c[4], sizeof c[4], "%.3f", res_derived_num(d, "us_per_launch"));
    snprintf(c[5], sizeof c[5], "%.1f", res_derived_num(d, "best_fused_gbs"));
    snprintf(c[6], sizeof c[6], "%.1f", res_derived_num(d, "floor_gbs"));
    snprintf(c[7], sizeof c[7], "%.2f", res_derived_num(d, "best_over_floor"));
    for (i = 0; i < 8; i++) cell[nc++] = c[i];
    if (cold) {
        const res_meas *sc, *fc;
        fs_sweep_pre(prefix, n);
        sc = fs_m(r, prefix, "staged", FS_COLD);
        fc = fs_m(r, prefix, "fused", FS_COLD);
        if (sc) snprintf(c[8], sizeof c[8], "%.4f", sc->stats.median);
        else snprintf(c[8], sizeof c[8], "-");
        if (fc) snprintf(c[9], sizeof c[9], "%.4f", fc->stats.median);
        else snprintf(c[9], sizeof c[9], "-");
        cell[nc++] = c[8];
        cell[nc++] = c[9];
    }
    cell[nc++] = d->text;
    ly_row(t, cell, nc);
}

/* Where the ratio settles, from the stored sweep.within. */
static void fs_print_within(FILE *f, const results *r, const res_derived *p)
{
    const res_derived *w = fs_d(r, FS_D_WITHIN);
    double tol = 100.0 * res_derived_num(w, "tolerance");
    if (!w) return;
    if (!isnan(w->value))
        ly_para(f, 2, 2, tb_width(), "From n = %.0f on, staged/fused stays within %.0f%% of the byte "
                "ratio %.2f.", w->value, tol, p->value);
    else
        ly_para(f, 2, 2, tb_width(), "staged/fused is not within %.0f%% of the byte ratio %.2f at "
                "the largest n: it settles at %.2f, where the staged chain moves %.0f GB/s and the "
                "fused kernel %.0f GB/s (its %.0f grids of one float per thread: see above).", tol, p->value,
                res_derived_num(w, "last_ratio"), res_derived_num(w, "last_staged_gbs"),
                res_derived_num(w, "last_fused_gbs"), res_derived_num(p, "staged_kernels"));
    {
        char key[48], n[32];
        const char *part = n;
        const res_derived *first;
        snprintf(n, sizeof n, "%.0f", res_derived_num(w, "first_n"));
        sch_fill(key, sizeof key, NULL, FS_D_SWEEP_N, &part, 1);
        first = fs_d(r, key);
        ly_para(f, 2, 2, tb_width(), "At n = %.0f the ratio is %.2f against the launch ratio %.0f; "
                "the reading there: %s.", res_derived_num(w, "first_n"), res_derived_num(w, "first_ratio"),
                res_derived_num(p, "launch_ratio"), first ? first->text : "none stored");
    }
}

/* The n sweep: one row per n, L2-cold columns when the sweep has them. */
static void fs_print_sweep(FILE *f, const results *r, const res_derived *p)
{
    int cold = fs_sweep_has_cold(r);
    size_t i;
    ly_table *t = fs_sweep_table(cold);
    for (i = 0; i < r->nd; i++)
        if (fs_is(&r->d[i], FS_D_SWEEP_N)) fs_sweep_row(t, r, &r->d[i], cold);
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
    for (i = 0; i < r->nd; i++) {
        char n[32];
        if (fs_is(&r->d[i], FS_D_SHARED_N))
            ly_para(f, 2, 2, tb_width(), "At n = %s the rows are the main size's samples (the same "
                    "versions at the same n), not timed again.", sec_commas(n, sizeof n, r->d[i].value));
    }
    fs_print_within(f, r, p);
}

/* Each fused-wide<K>: what the compiler gave it and how fast it ran. */
static void fs_print_widths(FILE *f, const results *r)
{
    static const char *const what[4] = { FS_WIDTH_REGS, FS_WIDTH_LOCAL, FS_WIDTH_BLOCKS,
                                          FS_WIDTH_OCCUPANCY };
    static const int width[4] = { 5, 8, 10, 10 }, prec[4] = { 0, 0, 0, 2 };
    size_t i;
    int q;
    fprintf(f, "\n  %-16s %5s %8s %10s %10s %9s %9s\n", "width K", "regs", "local B", "blocks/SM",
            "occupancy", "ms", "GB/s");
    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        double K = res_derived_num(d, "width");
        const res_meas *m;
        char key[64], k[32];
        const char *part = k;
        if (!fs_is(d, FS_D_VERSION) || !(K > 0)) continue;
        snprintf(k, sizeof k, "%.0f", K);
        fprintf(f, "  %-16s", d->name);
        for (q = 0; q < 4; q++) {
            sch_fill(key, sizeof key, NULL, what[q], &part, 1);
            tb_num(f, width[q], prec[q], tb_med(r, FS, key));
        }
        m = fs_m(r, FS_MAIN_PRE, d->key + FS_HEAD(FS_D_VERSION), "");
        tb_num(f, 9, 4, m ? m->stats.median : NAN);
        tb_num(f, 9, 1, sec_gbs(m));
        fprintf(f, "\n");
    }
}

static void fs_print_bitwise(FILE *f, const results *r)
{
    char n[32];
    fprintf(f, "\n");
    ly_para(f, 2, 2, tb_width(), "correctness at n = %s: see the checks; staged and fused differ "
            "bitwise in %.0f elements, by at most %.3g (counted, not asserted: the same arithmetic in "
            "the same order, so differences come from how the compiler contracted it)",
            sec_commas(n, sizeof n, fs_num(r, FS_D_SIZES, "check_n")), tb_med(r, FS, FS_BITWISE_COUNT),
            tb_med(r, FS, FS_BITWISE_MAX));
}

void fs_print(FILE *f, const results *r)
{
    const res_derived *p = fs_d(r, FS_D_PREDICTIONS);
    if (!p || !fs_m(r, FS_MAIN_PRE, "fused", "")) return;
    fs_print_predictions(f, p);
    fs_print_main(f, r);
    fs_print_floor(f, r);
    fs_print_held(f, r, p);
    fs_print_sweep(f, r, p);
    fs_print_widths(f, r);
    fs_print_bitwise(f, r);
}
