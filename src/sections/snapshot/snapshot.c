/* snapshot.c: section snapshot: a child's cold start against the driver's
 * checkpoint and restore of it. For each size of --snapshot-mib, --rounds
 * children (snapshot_child.c), each locked, checkpointed, restored and
 * unlocked by this process (snapshot_steps.c); then the rates, fixed parts
 * and the answer, derived once here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/answer.h"
#include "run/section.h"
#include "sections/snapshot/snapshot.h"

/* The sizes asked for, into mib; their count, or -1 after saying what is
 * wrong. */
static int sn_sizes(const sec_ctx *c, long *mib)
{
    char why[160];
    const char *s = c->o->snapshot_mib ? c->o->snapshot_mib : SN_DEFAULT_MIB;
    int n = sn_parse_sizes(s, mib, why, sizeof why);
    if (n < 0)
        fprintf(stderr, "harness: --snapshot-mib=%s: %s; expected a comma list of sizes in MiB\n",
                s, why);
    return n;
}

sec_status sn_plan(sec_ctx *c)
{
    long mib[SN_MAX_SIZES];
    return sn_sizes(c, mib) < 0 ? SEC_USAGE : SEC_OK;
}

/* The median of key k at size mib (kernel NULL), NaN when absent. */
static double sn_med(const results *r, int k, long mib, const char *kernel)
{
    char key[128];
    const res_meas *m = res_find(r, SN, sn_key(key, sizeof key, k, mib, kernel));
    return m ? m->stats.median : NAN;
}

/* The bytes a checkpoint of size mib moves: the child's device memory
 * (NVML), or its buffers where NVML could not say. */
static double sn_bytes(const results *r, long mib)
{
    double m = sn_med(r, SN_K_MEM_BEFORE, mib, NULL);
    return (isnan(m) || m <= 0 ? (double)mib : m) * 1048576.0;
}

/* The marginal rate and fixed part of step k between the smallest and the
 * largest size. */
static void sn_rate(sec_ctx *c, long lo, long hi, int k, int d_rate, int d_fixed)
{
    double b0 = sn_bytes(c->r, lo), b1 = sn_bytes(c->r, hi);
    double t0 = sn_med(c->r, k, lo, NULL), t1 = sn_med(c->r, k, hi, NULL);
    double gbs = (b1 - b0) / ((t1 - t0) * 1e6);
    res_derived *d;

    if (isnan(gbs) || !(t1 > t0) || !(b1 > b0)) return;
    if ((d = sch_derive(c->r, SN, &sn_derived[d_rate], NULL, NULL, gbs, NULL))) {
        res_derived_field(d, "mib_lo", (double)lo);
        res_derived_field(d, "mib_hi", (double)hi);
        res_derived_field(d, "bytes_lo", b0);
        res_derived_field(d, "bytes_hi", b1);
    }
    sch_derive(c->r, SN, &sn_derived[d_fixed], NULL, NULL, t0 - b0 / (gbs * 1e6), NULL);
}

/* The pinned copy rate over every child's copies, and each size's steps
 * against the child's pause. */
static void sn_rest(sec_ctx *c, const long *mib, int n)
{
    char key[128], num[SCH_NUM];
    const char *part;
    int i, k;

    for (i = 0; i < n; i++) {
        const res_meas *m = res_find(c->r, SN, sn_key(key, sizeof key, SN_K_D2H, mib[i], NULL));
        double sum = 0, pause = sn_med(c->r, SN_K_PAUSE, mib[i], NULL);
        if (m && m->bytes > 0 && !res_derived_find(c->r, SN, sn_derived[SN_D_D2H].key))
            sch_derive(c->r, SN, &sn_derived[SN_D_D2H], NULL, NULL,
                       m->bytes / (m->stats.median * 1e6), NULL);
        for (k = 0; k < SN_NSTEPS; k++) sum += sn_med(c->r, SN_K_LOCK + k, mib[i], NULL);
        part = sch_num(num, mib[i]);
        sch_fill(key, sizeof key, NULL, sn_derived[SN_D_PAUSE].key, &part, 1);
        if (!isnan(sum) && pause > 0)
            sch_derive(c->r, SN, &sn_derived[SN_D_PAUSE], key, NULL, sum / pause, NULL);
    }
}

/* The sizes' indexes of the smallest and the largest. */
static void sn_ends(const long *mib, int n, long *lo, long *hi)
{
    int i;
    *lo = *hi = mib[0];
    for (i = 1; i < n; i++) {
        if (mib[i] < *lo) *lo = mib[i];
        if (mib[i] > *hi) *hi = mib[i];
    }
}

sec_status sec_snapshot(sec_ctx *c)
{
    static const char *const files[] = { "vector.cu", "empty.cu", "copy.cu", "launch.cu" };
    long mib[SN_MAX_SIZES], lo, hi;
    char why[200];
    int n, i, round, failed = 0, rc;
    size_t f;

    /* The GPU (cuInit, which the checkpoint API needs first) and NVRTC,
     * apart: this process times nothing on the device (no L2-cold buffer). */
    if ((rc = sec_begin(c, SN, 1, 0)) != SEC_OK || (rc = sec_begin(c, SN, 0, 1)) != SEC_OK)
        return rc;
    if (drv_ckpt_missing(why, sizeof why)) {
        sec_skip(c, SN, why);
        return SEC_NO_GPU;
    }
    if ((n = sn_sizes(c, mib)) < 0) return SEC_USAGE;
    res_env_num(c->r, "snapshot_lock_timeout_ms", c->o->snapshot_lock_ms);
    for (f = 0; f < sizeof files / sizeof files[0]; f++) sec_module_fill(c, files[f], c->arch);
    for (round = 0; round < c->o->rounds; round++) {
        for (i = 0; i < n; i++) {
            rc = sn_one(c, mib[i]);
            if (rc < 0) return SEC_ERROR;
            if (rc > 0) failed = 1;
        }
    }
    sn_ends(mib, n, &lo, &hi);
    if (lo != hi) {
        sn_rate(c, lo, hi, SN_K_CHECKPOINT, SN_D_RATE_CKPT, SN_D_FIXED_CKPT);
        sn_rate(c, lo, hi, SN_K_RESTORE, SN_D_RATE_RESTORE, SN_D_FIXED_RESTORE);
    }
    sn_rest(c, mib, n);
    res_env_num(c->r, "snapshot_mib_largest", (double)hi);
    if (failed) c->r->incomplete = 1;     /* a child's figures are missing */
    return failed ? SEC_FAILED : SEC_OK;
}

/* "answer.snapshot": the largest size's restore against its cold start,
 * and the first launches after it over warm ones. */
void sn_answers(results *r)
{
    const res_kv *kv = res_env_get(r, "snapshot_mib_largest");
    char a[32], b[32], z[32], g[32];
    double restore, cold, extra = 0;
    long hi;
    int k;

    if (!kv || kv->kind != RES_NUM) return;
    hi = (long)kv->num;
    restore = sn_med(r, SN_K_RESTORE, hi, NULL);
    cold = sn_med(r, SN_K_COLD, hi, NULL);
    if (isnan(restore) || isnan(cold)) return;
    for (k = 0; k < SN_NKERNELS; k++)
        extra += sn_med(r, SN_K_FIRST, hi, sn_kernels[k]) - sn_med(r, SN_K_WARM, hi, sn_kernels[k]);
    an_store(r, SN, SN, sn_derived[SN_D_ANSWER].name, restore, "ms",
             "A restore of %s GiB took %s ms against a cold start of %s ms; after it, the first "
             "launches cost %s ms more than warm.", an_num(g, sizeof g, (double)hi / 1024.0),
             an_num(a, sizeof a, restore), an_num(b, sizeof b, cold), an_num(z, sizeof z, extra));
}

void sn_schema(sch_out *o)
{
    sch_put_table(o, NULL, sn_keys, SN_NKEYS);
    sch_derived(o);
    sch_put_table(o, NULL, sn_derived, SN_ND);
}
