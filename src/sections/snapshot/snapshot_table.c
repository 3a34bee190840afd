/* snapshot_table.c: section snapshot's tables: each step at each size
 * against the child's pause and cold start, the device memory released,
 * the rates against the pinned copy, and the first launches after the
 * restore against warm ones. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/snapshot/snapshot.h"

/* The sizes the run measured, from the lock's keys, in the order first
 * seen; their count (at most max). */
static size_t sn_seen(const results *r, long *mib, size_t max)
{
    size_t i, j, n = 0;
    for (i = 0; i < r->nm && n < max; i++) {
        const res_meas *m = &r->m[i];
        long v;
        char tail[32];
        if (strcmp(m->section, SN) != 0 || sscanf(m->key, "mib=%ld.%31s", &v, tail) != 2 ||
            strcmp(tail, "cold_start") != 0)
            continue;
        for (j = 0; j < n && mib[j] != v; j++) {}
        if (j == n) mib[n++] = v;
    }
    return n;
}

static double sn_tmed(const results *r, int k, long mib, const char *kernel)
{
    char key[128];
    return tb_med(r, SN, sn_key(key, sizeof key, k, mib, kernel));
}

/* A median in a cell at prec decimals, "-" where it is missing. */
static const char *sn_cell(char *buf, size_t len, double v, int prec)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.*f", prec, v);
    return buf;
}

/* One row a size: the steps, their sum, the child's pause, the cold start. */
static void sn_print_steps(FILE *f, const results *r, const long *mib, size_t n)
{
    static const char *const head[8] = { "buffers", "lock", "checkpoint", "restore", "unlock", "sum",
                                         "its pause", "cold start" };
    size_t i;
    int k;
    ly_table *t = ly_new(2, 8);

    for (k = 0; k < 8; k++) ly_column(t, (size_t)k, head[k], k ? LY_RIGHT : LY_LEFT, 0);
    ly_keys(t, 1);
    for (i = 0; i < n; i++) {
        double sum = 0;
        char c[8][32];
        const char *cell[8];
        snprintf(c[0], sizeof c[0], "%ld MiB", mib[i]);
        for (k = 0; k < SN_NSTEPS; k++) {
            double v = sn_tmed(r, SN_K_LOCK + k, mib[i], NULL);
            sum += v;
            sn_cell(c[k + 1], sizeof c[0], v, 1);
        }
        sn_cell(c[5], sizeof c[0], sum, 1);
        sn_cell(c[6], sizeof c[0], sn_tmed(r, SN_K_PAUSE, mib[i], NULL), 1);
        sn_cell(c[7], sizeof c[0], sn_tmed(r, SN_K_COLD, mib[i], NULL), 1);
        for (k = 0; k < 8; k++) cell[k] = c[k];
        ly_row(t, cell, 8);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* NVML's figures for the child around the steps. */
static void sn_print_memory(FILE *f, const results *r, const long *mib, size_t n)
{
    size_t i;
    ly_table *t = ly_new(2, 4);

    ly_column(t, 0, "the child's device memory (NVML, MiB)", LY_LEFT, 16);
    ly_column(t, 1, "before the lock", LY_RIGHT, 0);
    ly_column(t, 2, "checkpointed", LY_RIGHT, 0);
    ly_column(t, 3, "after the unlock", LY_RIGHT, 0);
    for (i = 0; i < n; i++) {
        char label[64], a[32], b[32], c[32];
        snprintf(label, sizeof label, "%ld MiB of buffers", mib[i]);
        ly_rowv(t, label, sn_cell(a, sizeof a, sn_tmed(r, SN_K_MEM_BEFORE, mib[i], NULL), 0),
                sn_cell(b, sizeof b, sn_tmed(r, SN_K_MEM_CKPT, mib[i], NULL), 0),
                sn_cell(c, sizeof c, sn_tmed(r, SN_K_MEM_AFTER, mib[i], NULL), 0), NULL);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
    if (res_env_get(r, "snapshot_nvml"))
        ly_para(f, 2, 4, tb_width(), "NVML could not say: %s", tb_env_str(r, "snapshot_nvml", ""));
}

/* The rates against the pinned copy. */
static void sn_print_rates(FILE *f, const results *r)
{
    const res_derived *ck = res_derived_find(r, SN, "rate.checkpoint");
    const res_derived *rs = res_derived_find(r, SN, "rate.restore");
    const res_derived *fc = res_derived_find(r, SN, "fixed.checkpoint");
    const res_derived *fr = res_derived_find(r, SN, "fixed.restore");
    const res_derived *cp = res_derived_find(r, SN, "d2h_pinned");
    double floor_gbs = cp ? cp->value : NAN;

    if (cp) ly_para(f, 2, 4, tb_width(), "pinned device-to-host copy in the child: %.1f GB/s", floor_gbs);
    if (ck && fc)
        ly_label(f, 2, 14, tb_width(), "checkpoint:", "%.2f GB/s at the margin (%.0f%% of the pinned "
                 "copy), %.1f ms fixed", ck->value, 100.0 * ck->value / floor_gbs, fc->value);
    if (rs && fr)
        ly_label(f, 2, 14, tb_width(), "restore:", "%.2f GB/s at the margin (%.0f%% of the pinned "
                 "copy), %.1f ms fixed", rs->value, 100.0 * rs->value / floor_gbs, fr->value);
    if (!ck) ly_para(f, 2, 4, tb_width(), "no marginal rate: one size only, or the times did not "
                     "grow with the bytes");
}

/* Each kernel's first launch after the restore against its warm launch,
 * at the largest size. */
static void sn_print_first(FILE *f, const results *r, long mib)
{
    size_t k;
    char head[96];
    ly_table *t = ly_new(2, 4);

    snprintf(head, sizeof head, "after the restore of %ld MiB, launch + sync (ms)", mib);
    ly_column(t, 0, head, LY_LEFT, 16);
    ly_column(t, 1, "warm before", LY_RIGHT, 0);
    ly_column(t, 2, "first after", LY_RIGHT, 0);
    ly_column(t, 3, "second after", LY_RIGHT, 0);
    for (k = 0; k < SN_NKERNELS; k++) {
        char a[32], b[32], c[32];
        ly_rowv(t, sn_kernels[k], sn_cell(a, sizeof a, sn_tmed(r, SN_K_WARM, mib, sn_kernels[k]), 4),
                sn_cell(b, sizeof b, sn_tmed(r, SN_K_FIRST, mib, sn_kernels[k]), 4),
                sn_cell(c, sizeof c, sn_tmed(r, SN_K_SECOND, mib, sn_kernels[k]), 4), NULL);
    }
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
}

void sn_print(FILE *f, const results *r)
{
    long mib[SN_MAX_SIZES], hi;
    size_t n = sn_seen(r, mib, SN_MAX_SIZES), i;
    const res_meas *lock;
    char key[128];

    if (n == 0) return;
    lock = res_find(r, SN, sn_key(key, sizeof key, SN_K_LOCK, mib[0], NULL));
    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "snapshot: a child's GPU state checkpointed and restored by the "
            "driver, on its pid; medians (ms) of %zu child%s a size, module loading %s",
            lock ? lock->nsamples : 0, lock && lock->nsamples == 1 ? "" : "ren",
            tb_env_str(r, "module_loading_effective", "?"));
    sn_print_steps(f, r, mib, n);
    sn_print_memory(f, r, mib, n);
    sn_print_rates(f, r);
    for (hi = mib[0], i = 1; i < n; i++)
        if (mib[i] > hi) hi = mib[i];
    sn_print_first(f, r, hi);
}
