/* snapshot_table.c: section snapshot's tables: each step at each size
 * against the child's pause and cold start, the device memory released,
 * the rates against the pinned copy, and the first launches after the
 * restore against warm ones. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
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

/* One row a size: the steps, their sum, the child's pause, the cold start. */
static void sn_print_steps(FILE *f, const results *r, const long *mib, size_t n)
{
    size_t i;
    int k;
    fprintf(f, "  %-9s %8s %11s %9s %8s %9s %9s %11s\n", "buffers", "lock", "checkpoint", "restore",
            "unlock", "sum", "its pause", "cold start");
    for (i = 0; i < n; i++) {
        double sum = 0;
        char label[32];
        snprintf(label, sizeof label, "%ld MiB", mib[i]);
        fprintf(f, "  %-9s", label);
        for (k = 0; k < SN_NSTEPS; k++) {
            double v = sn_tmed(r, SN_K_LOCK + k, mib[i], NULL);
            sum += v;
            tb_num(f, k == 1 ? 12 : k == 2 ? 10 : 9, 1, v);
        }
        tb_num(f, 10, 1, sum);
        tb_num(f, 10, 1, sn_tmed(r, SN_K_PAUSE, mib[i], NULL));
        tb_num(f, 12, 1, sn_tmed(r, SN_K_COLD, mib[i], NULL));
        fprintf(f, "\n");
    }
}

/* NVML's figures for the child around the steps. */
static void sn_print_memory(FILE *f, const results *r, const long *mib, size_t n)
{
    size_t i;
    fprintf(f, "  the child's device memory (NVML, MiB):  before the lock  checkpointed  after "
            "the unlock\n");
    for (i = 0; i < n; i++)
        fprintf(f, "  %8ld MiB of buffers %25.0f %13.0f %18.0f\n", mib[i],
                sn_tmed(r, SN_K_MEM_BEFORE, mib[i], NULL), sn_tmed(r, SN_K_MEM_CKPT, mib[i], NULL),
                sn_tmed(r, SN_K_MEM_AFTER, mib[i], NULL));
    if (res_env_get(r, "snapshot_nvml"))
        fprintf(f, "  NVML could not say: %s\n", tb_env_str(r, "snapshot_nvml", ""));
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

    if (cp) fprintf(f, "  pinned device-to-host copy in the child: %.1f GB/s\n", floor_gbs);
    if (ck && fc)
        fprintf(f, "  checkpoint: %.2f GB/s at the margin (%.0f%% of the pinned copy), %.1f ms "
                "fixed\n", ck->value, 100.0 * ck->value / floor_gbs, fc->value);
    if (rs && fr)
        fprintf(f, "  restore:    %.2f GB/s at the margin (%.0f%% of the pinned copy), %.1f ms "
                "fixed\n", rs->value, 100.0 * rs->value / floor_gbs, fr->value);
    if (!ck) fprintf(f, "  no marginal rate: one size only, or the times did not grow with "
                     "the bytes\n");
}

/* Each kernel's first launch after the restore against its warm launch,
 * at the largest size. */
static void sn_print_first(FILE *f, const results *r, long mib)
{
    size_t k;
    fprintf(f, "\n  after the restore of %ld MiB, launch + sync (ms)   warm before   first after"
            "   second after\n", mib);
    for (k = 0; k < SN_NKERNELS; k++) {
        fprintf(f, "  %-48s", sn_kernels[k]);
        tb_num(f, 12, 4, sn_tmed(r, SN_K_WARM, mib, sn_kernels[k]));
        tb_num(f, 14, 4, sn_tmed(r, SN_K_FIRST, mib, sn_kernels[k]));
        tb_num(f, 15, 4, sn_tmed(r, SN_K_SECOND, mib, sn_kernels[k]));
        fprintf(f, "\n");
    }
}

void sn_print(FILE *f, const results *r)
{
    long mib[SN_MAX_SIZES], hi;
    size_t n = sn_seen(r, mib, SN_MAX_SIZES), i;
    const res_meas *lock;
    char key[128];

    if (n == 0) return;
    lock = res_find(r, SN, sn_key(key, sizeof key, SN_K_LOCK, mib[0], NULL));
    fprintf(f, "\nsnapshot: a child checkpointed and restored by the driver; medians (ms) of %zu "
            "child%s a size, %s\n", lock ? lock->nsamples : 0, lock && lock->nsamples == 1 ? "" : "ren",
            tb_env_str(r, "module_loading_effective", "?"));
    sn_print_steps(f, r, mib, n);
    sn_print_memory(f, r, mib, n);
    sn_print_rates(f, r);
    for (hi = mib[0], i = 1; i < n; i++)
        if (mib[i] > hi) hi = mib[i];
    sn_print_first(f, r, hi);
}
