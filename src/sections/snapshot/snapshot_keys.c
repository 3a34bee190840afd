/* snapshot_keys.c: section snapshot's shared facts, defined once: the
 * kernels its child launches, the keys and derived entries it writes (the
 * measuring code, the tables and --schema read them), and the reading of
 * --snapshot-mib. */
#include <stdio.h>

#include "core/answer.h"
#include "core/schema.h"
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

