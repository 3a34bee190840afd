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

const char *const sn_kernels[SN_NKERNELS] = {
    "vectorAdd", "vectorScale", "doNothing", "copyFloat", "blockUntil"
};

#define SN_STEP_DESC "this process's host clock around the call on the child's pid; one sample " \
    "per child"

const sch_key sn_keys[SN_NKEYS] = {
    { "mib=<i>.lock", "ms", RES_PROCESS, "cuCheckpointProcessLock, <i> MiB of buffers",
      SN_STEP_DESC " (the child idle, its work done)" },
    { "mib=<i>.checkpoint", "ms", RES_PROCESS, "cuCheckpointProcessCheckpoint, <i> MiB of buffers",
      SN_STEP_DESC ": device memory copied to the host and released" },
    { "mib=<i>.restore", "ms", RES_PROCESS, "cuCheckpointProcessRestore, <i> MiB of buffers",
      SN_STEP_DESC ": device memory taken again and copied back" },
    { "mib=<i>.unlock", "ms", RES_PROCESS, "cuCheckpointProcessUnlock, <i> MiB of buffers",
      SN_STEP_DESC },
    { "mib=<i>.pause", "ms", RES_PROCESS, "the child's own pause, <i> MiB of buffers",
      "the child's host clock from before it writes its ready line to having read the go line; "
      "the four steps lie inside it" },
    { "mib=<i>.held", "ms", RES_PROCESS, "ready to go, this process's clock, <i> MiB of buffers",
      "this process's host clock from reading the ready line to writing the go line: the four "
      "steps and three NVML queries" },
    { "mib=<i>.cold_start", "ms", RES_PROCESS, "the child's cold start, <i> MiB of buffers",
      "this process's host clock from before the child's spawn to reading its ready line: exec, "
      "cuInit, context, modules, buffers filled, every kernel warm" },
    { "mib=<i>.mem_before", "MiB", RES_PROCESS, "the child's device memory before the lock",
      "NVML's usedGpuMemory for the child's pid, read just before the lock" },
    { "mib=<i>.mem_checkpointed", "MiB", RES_PROCESS, "the child's device memory, checkpointed",
      "NVML's usedGpuMemory for the child's pid after the checkpoint (0: not among the compute "
      "processes)" },
    { "mib=<i>.mem_after", "MiB", RES_PROCESS, "the child's device memory after the unlock",
      "NVML's usedGpuMemory for the child's pid just after the unlock" },
    { "mib=<i>.warm.<word>", "ms", RES_WARM, "<word>: launch + sync, warm, before the checkpoint",
      "the child's host clock from before cuLaunchKernel to cuStreamSynchronize returning, after "
      "--warmup launches; --reps samples per child" },
    { "mib=<i>.first.<word>", "ms", RES_FIRST_LAUNCH, "<word>: first launch + sync after the restore",
      "the same clock, on the kernel's first launch once the child goes on" },
    { "mib=<i>.second.<word>", "ms", RES_WARM, "<word>: second launch + sync after the restore",
      "the same clock, on its next launch, after every kernel's first" },
    { "mib=<i>.d2h_pinned", "ms", RES_WARM, "pinned device-to-host copy of one buffer",
      "events around cuMemcpyDtoHAsync of one buffer (up to 64 MiB) into pinned host memory, in "
      "the child after the restore; 5 samples per child after one untimed" },
};

const sch_key sn_derived[SN_ND] = {
    { "rate.checkpoint", "GB/s", RES_PROCESS, "checkpoint, marginal rate",
      "the device memory the child held (NVML; its buffers where NVML cannot say) of the "
      "largest size less the smallest's, over the difference of their median checkpoints" },
    { "rate.restore", "GB/s", RES_PROCESS, "restore, marginal rate",
      "the same, over the difference of their median restores" },
    { "fixed.checkpoint", "ms", RES_PROCESS, "checkpoint, fixed part",
      "the smallest size's median checkpoint less its bytes at the marginal rate" },
    { "fixed.restore", "ms", RES_PROCESS, "restore, fixed part",
      "the smallest size's median restore less its bytes at the marginal rate" },
    { "d2h_pinned", "GB/s", RES_PROCESS, "pinned device-to-host copy rate",
      "one buffer's bytes over the median of every pinned copy the children timed" },
    { "pause.<i>", "", RES_PROCESS, "lock + checkpoint + restore + unlock over the child's pause",
      "the sum of the four steps' medians at <i> MiB over the median of the child's own pause" },
    { AN_PREFIX SN, "ms", RES_PROCESS, "snapshot",
      "the median restore of the largest size; text: against the median cold start, and what "
      "the first launches after it cost over warm ones" },
};

const char *sn_key(char *buf, size_t len, int k, long mib, const char *kernel)
{
    char num[SCH_NUM];
    const char *parts[2];
    parts[0] = sch_num(num, mib);
    parts[1] = kernel;
    sch_fill(buf, len, NULL, sn_keys[k].key, parts, kernel ? 2 : 1);
    return buf;
}

int sn_parse_sizes(const char *s, long *mib, char *why, size_t whylen)
{
    int n = 0;
    const char *p = s;

    for (;;) {
        long v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= SN_MAX_MIB) v = v * 10 + (*p++ - '0');
        if (p == start || (*p != ',' && *p != '\0') || v < 1 || v > SN_MAX_MIB) {
            snprintf(why, whylen, "'%.40s' is not a size in MiB, 1 to %ld", start, SN_MAX_MIB);
            return -1;
        }
        if (n == SN_MAX_SIZES) {
            snprintf(why, whylen, "more than %d sizes", SN_MAX_SIZES);
            return -1;
        }
        mib[n++] = v;
        if (*p == '\0') return n;
        p++;
    }
}

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
