/* snapshot_child.c: section snapshot's child (--child=snapshot): an
 * ordinary cold start (the harness's kernels loaded under the run's
 * loading mode, buffers of a known size and content, warm launches), then
 * "ready" to its parent and a pause, timed on its own clock, while the
 * parent locks, checkpoints, restores and unlocks it; then every kernel
 * launched again, every buffer checked, and a pinned device-to-host copy
 * timed. It talks to its parent on descriptor 3 (snapshot.h), where its
 * stderr goes too. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/phase.h"
#include "run/section.h"
#include "run/section_child.h"
#include "sections/snapshot/snapshot.h"

#define SN_FD 3                 /* the socket to the parent */
#define SN_SCRATCH_N (1u << 20) /* floats in each of the kernels' own buffers */
#define SN_D2H_REPS 5           /* pinned copies timed after the restore */

/* The kernels' files, in sn_kernels' order. */
static const char *const sn_files[SN_NKERNELS] = {
    "vector.cu", "vector.cu", "empty.cu", "copy.cu", "launch.cu"
};

/* What the child holds. */
typedef struct sn_child {
    sec_ctx c;
    long mib;                   /* the size of its buffers, in MiB */
    CUmodule mod[SN_NKERNELS];
    CUfunction fn[SN_NKERNELS];
    CUdeviceptr a, b, out;      /* the kernels' own buffers, SN_SCRATCH_N floats */
    CUdeviceptr *buf;           /* the buffers of known content */
    size_t nbuf;
    int *hflag;                 /* blockUntil's flag (host memory mapped) */
    CUdeviceptr dflag;
    const char *busy;           /* the kernel left running at "ready", or NULL */
} sn_child;

/* Elements (floats) of buffer i of a child of mib MiB. */
static size_t sn_buf_n(long mib, size_t i)
{
    long left = mib - (long)i * SN_CHUNK_MIB;
    return (size_t)(left < SN_CHUNK_MIB ? left : SN_CHUNK_MIB) << 18;
}

/* Load every kernel's module (one per kernel: the mode decides when each
 * is loaded) and get its function. */
static int sn_load(sn_child *s)
{
    size_t i;
    for (i = 0; i < SN_NKERNELS; i++) {
        if (sec_module(&s->c, sn_files[i], &s->mod[i], NULL, NULL) != 0) return -1;
        CK(drv.cuModuleGetFunction(&s->fn[i], s->mod[i], sn_kernels[i]));
    }
    return 0;
fail:
    return -1;
}

/* The kernels' buffers and blockUntil's flag. */
static int sn_scratch(sn_child *s)
{
    size_t bytes = (size_t)SN_SCRATCH_N * sizeof(float);
    CK(drv.cuMemAlloc(&s->a, bytes));
    CK(drv.cuMemAlloc(&s->b, bytes));
    CK(drv.cuMemAlloc(&s->out, bytes));
    CK(drv.cuMemsetD32(s->a, 0x3f800000u, SN_SCRATCH_N));  /* 1.0f */
    CK(drv.cuMemsetD32(s->b, 0x40000000u, SN_SCRATCH_N));  /* 2.0f */
    CK(drv.cuMemHostAlloc((void **)&s->hflag, 2 * sizeof(int),
                          CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    s->hflag[0] = 1;
    s->hflag[1] = 0;
    CK(drv.cuMemHostGetDevicePointer(&s->dflag, s->hflag, 0));
    return 0;
fail:
    return -1;
}

/* The buffers of known content: mib MiB in buffers of SN_CHUNK_MIB, buffer
 * i filled with kn_fill's values for seed i + 1. */
static int sn_fill(sn_child *s)
{
    float *h = malloc((size_t)SN_CHUNK_MIB << 20);
    size_t i;

    s->nbuf = (size_t)((s->mib + SN_CHUNK_MIB - 1) / SN_CHUNK_MIB);
    s->buf = calloc(s->nbuf, sizeof *s->buf);
    if (!h || !s->buf) {
        fprintf(stderr, "harness: " SN ": out of memory for the buffers' contents\n");
        goto fail;
    }
    for (i = 0; i < s->nbuf; i++) {
        size_t n = sn_buf_n(s->mib, i);
        CK(drv.cuMemAlloc(&s->buf[i], n * sizeof(float)));
        kn_fill(h, n, (unsigned)i + 1);
        CK(drv.cuMemcpyHtoD(s->buf[i], h, n * sizeof(float)));
    }
    free(h);
    return 0;
fail:
    free(h);
    return -1;
}

/* Launch kernel k once on the child's stream (blockUntil with its flag as
 * it stands); no wait. */
static int sn_launch(sn_child *s, size_t k)
{
    CUstream st = s->c.gpu.stream;
    int n = (int)SN_SCRATCH_N;
    size_t nz = SN_SCRATCH_N;
    float scale = 3.0f;
    unsigned long long limit = (unsigned long long)(s->c.o->kernel_timeout * 1e9);
    CUdeviceptr timed = s->dflag + sizeof(int);
    void *add[] = { &s->a, &s->b, &s->out, &n };
    void *sc[] = { &s->a, &s->out, &scale, &n };
    void *cp[] = { &s->a, &s->out, &nz };
    void *bl[] = { &s->dflag, &limit, &timed };
    unsigned grid = SN_SCRATCH_N / 256;

    switch (k) {
    case 0: CK(drv.cuLaunchKernel(s->fn[k], grid, 1, 1, 256, 1, 1, 0, st, add, NULL)); break;
    case 1: CK(drv.cuLaunchKernel(s->fn[k], grid, 1, 1, 256, 1, 1, 0, st, sc, NULL)); break;
    case 2: CK(drv.cuLaunchKernel(s->fn[k], 1, 1, 1, 1, 1, 1, 0, st, NULL, NULL)); break;
    case 3: CK(drv.cuLaunchKernel(s->fn[k], 1024, 1, 1, 256, 1, 1, 0, st, cp, NULL)); break;
    default: CK(drv.cuLaunchKernel(s->fn[k], 1, 1, 1, 1, 1, 1, 0, st, bl, NULL)); break;
    }
    return 0;
fail:
    return -1;
}

/* Kernel k launched and waited for, on the host clock, into *ms. */
static int sn_launch_sync(sn_child *s, size_t k, double *ms)
{
    double t0 = clk_now_ms();
    if (sn_launch(s, k) != 0) return -1;
    CK(drv.cuStreamSynchronize(s->c.gpu.stream));
    *ms = clk_now_ms() - t0;
    return 0;
fail:
    return -1;
}

/* Store one figure of key k (kernel: its <word>, or NULL) from samples;
 * returns it, or NULL out of memory. */
static res_meas *sn_store_m(sn_child *s, int k, const char *kernel, const double *v, size_t n)
{
    char key[128], name[256];
    const char *parts[2];
    char num[SCH_NUM];
    parts[0] = sch_num(num, s->mib);
    parts[1] = kernel;
    sn_key(key, sizeof key, k, s->mib, kernel);
    sch_fill(name, sizeof name, NULL, sn_keys[k].name, parts, kernel ? 2 : 1);
    return res_add(s->c.r, SN, key, name, sn_keys[k].desc, sn_keys[k].state, sn_keys[k].unit,
                   v, n);
}

/* sn_store_m: 0, or -1 out of memory. */
static int sn_store(sn_child *s, int k, const char *kernel, const double *v, size_t n)
{
    return sn_store_m(s, k, kernel, v, n) ? 0 : -1;
}

/* Every kernel launched --warmup times, then --reps times timed: the warm
 * launch each is compared with after the restore. */
static int sn_warm(sn_child *s)
{
    const cli_opts *o = s->c.o;
    double *v = calloc((size_t)o->reps, sizeof *v), ms;
    size_t k;
    int i;

    if (!v) return -1;
    for (k = 0; k < SN_NKERNELS; k++) {
        for (i = 0; i < o->warmup + 1; i++)
            if (sn_launch_sync(s, k, &ms) != 0) goto fail;
        for (i = 0; i < o->reps; i++)
            if (sn_launch_sync(s, k, &v[i]) != 0) goto fail;
        if (sn_store(s, SN_K_WARM, sn_kernels[k], v, (size_t)o->reps) != 0) goto fail;
    }
    free(v);
    return 0;
fail:
    free(v);
    return -1;
}

/* HARNESS_SNAPSHOT_BUSY=1 (the GPU tests' way to a lock that times out):
 * leave blockUntil running, its flag clear, when the child says ready. */
static int sn_busy(sn_child *s)
{
    const char *e = getenv("HARNESS_SNAPSHOT_BUSY");
    if (!e || strcmp(e, "1") != 0) return 0;
    s->hflag[0] = 0;
    __sync_synchronize();
    drv_hold_flag(s->hflag, s->c.gpu.stream);
    if (sn_launch(s, SN_NKERNELS - 1) != 0) return -1;
    s->busy = sn_kernels[SN_NKERNELS - 1];
    return 0;
}

/* Say ready, and wait for the parent's go, on the child's own clock: from
 * before the ready line is written to the go line read. 0, or -1 when the
 * parent went away (nothing to go on with). */
static int sn_pause(sn_child *s)
{
    char line[64], msg[128];
    size_t at = 0;
    double t0, ms;
    int n = snprintf(msg, sizeof msg, SN_READY " %s\n", s->busy ? s->busy : "-");

    t0 = clk_now_ms();
    if (write(SN_FD, msg, (size_t)n) != n) return -1;
    while (at < sizeof line - 1) {
        ssize_t got = read(SN_FD, line + at, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        if (line[at++] == '\n') break;
    }
    ms = clk_now_ms() - t0;
    line[at] = '\0';
    if (strcmp(line, SN_GO) != 0) return -1;
    if (s->busy) {
        drv_release_held(s->c.o->kernel_timeout);
        s->hflag[0] = 1;
    }
    return sn_store(s, SN_K_PAUSE, NULL, &ms, 1);
}

/* After the restore: each kernel's first launch, then its second. */
static int sn_after(sn_child *s)
{
    double first[SN_NKERNELS], second[SN_NKERNELS];
    size_t k;
    for (k = 0; k < SN_NKERNELS; k++)
        if (sn_launch_sync(s, k, &first[k]) != 0) return -1;
    for (k = 0; k < SN_NKERNELS; k++)
        if (sn_launch_sync(s, k, &second[k]) != 0) return -1;
    for (k = 0; k < SN_NKERNELS; k++)
        if (sn_store(s, SN_K_FIRST, sn_kernels[k], &first[k], 1) != 0 ||
            sn_store(s, SN_K_SECOND, sn_kernels[k], &second[k], 1) != 0)
            return -1;
    return 0;
}

/* Every buffer read back and compared, bit for bit, with the values it was
 * filled with; one check for all of them, naming the first that differs. */
static int sn_check(sn_child *s)
{
    float *h = malloc((size_t)SN_CHUNK_MIB << 20), *want = malloc((size_t)SN_CHUNK_MIB << 20);
    char what[160], detail[400];
    size_t i, j, bad = 0, first = 0, at = 0;
    float got_v = 0, want_v = 0;

    if (!h || !want) goto fail;
    for (i = 0; i < s->nbuf; i++) {
        size_t n = sn_buf_n(s->mib, i);
        CK(drv.cuMemcpyDtoH(h, s->buf[i], n * sizeof(float)));
        kn_fill(want, n, (unsigned)i + 1);
        if (memcmp(h, want, n * sizeof(float)) == 0) continue;
        for (j = 0; j < n && memcmp(&h[j], &want[j], sizeof(float)) == 0; j++) {}
        if (bad++ == 0) {
            first = i;
            at = j;
            got_v = h[j];
            want_v = want[j];
        }
    }
    snprintf(what, sizeof what, "the %ld MiB of buffers, after the checkpoint and restore, bit for "
             "bit", s->mib);
    if (bad)
        snprintf(detail, sizeof detail, "%zu of %zu buffers changed across the checkpoint and "
                 "restore; the first, buffer %zu, at element %zu: %.9g, written %.9g", bad, s->nbuf,
                 first, at, (double)got_v, (double)want_v);
    else
        snprintf(detail, sizeof detail, "all %zu buffers as written", s->nbuf);
    res_check_add(s->c.r, SN, what, bad == 0, detail);
    free(h);
    free(want);
    return bad ? 1 : 0;
fail:
    free(h);
    free(want);
    return -1;
}

/* The pinned device-to-host copy of one buffer, timed with events after
 * the restore: the floor for moving device memory to the host. */
static int sn_d2h(sn_child *s)
{
    size_t bytes = sn_buf_n(s->mib, 0) * sizeof(float);
    double v[SN_D2H_REPS];
    CUevent e0 = NULL, e1 = NULL;
    void *h = NULL;
    res_meas *m;
    float ms;
    int i;

    CK(drv.cuMemAllocHost(&h, bytes));
    CK(drv.cuEventCreate(&e0, 0));
    CK(drv.cuEventCreate(&e1, 0));
    for (i = -1; i < SN_D2H_REPS; i++) {
        CK(drv.cuEventRecord(e0, s->c.gpu.stream));
        CK(drv.cuMemcpyDtoHAsync(h, s->buf[0], bytes, s->c.gpu.stream));
        CK(drv.cuEventRecord(e1, s->c.gpu.stream));
        CK(drv.cuEventSynchronize(e1));
        CK(drv.cuEventElapsedTime(&ms, e0, e1));
        if (i >= 0) v[i] = ms;
    }
    if (!(m = sn_store_m(s, SN_K_D2H, NULL, v, SN_D2H_REPS))) goto fail;
    m->bytes = (double)bytes;
    drv.cuEventDestroy(e0);
    drv.cuEventDestroy(e1);
    drv.cuMemFreeHost(h);
    return 0;
fail:
    if (e0) drv.cuEventDestroy(e0);
    if (e1) drv.cuEventDestroy(e1);
    if (h) drv.cuMemFreeHost(h);
    return -1;
}

/* The cold start, the pause and what follows, as named steps: 0, 1 when a
 * check failed, -1 when a step could not be done (said on stderr). */
static int sn_child_steps(sn_child *s)
{
    int rc;
    if (sec_need_gpu(&s->c) != SEC_OK || sec_need_rtc_later(&s->c) != SEC_OK) {
        fprintf(stderr, "harness: " SN ": %s%s\n", s->c.gpu_why, s->c.rtc_why);
        return -1;
    }
    if (sn_load(s) != 0 || sn_scratch(s) != 0 || sn_fill(s) != 0 || sn_warm(s) != 0 ||
        sn_busy(s) != 0)
        return -1;
    ph_set(SN ": child, paused");
    if (sn_pause(s) != 0) return -1;
    ph_set(SN ": child, after the restore");
    if (sn_after(s) != 0) return -1;
    rc = sn_check(s);
    if (rc < 0 || sn_d2h(s) != 0) return -1;
    return rc;
}

/* Release what the child holds. */
static void sn_child_free(sn_child *s)
{
    size_t i;
    for (i = 0; s->buf && i < s->nbuf; i++)
        if (s->buf[i]) drv.cuMemFree(s->buf[i]);
    free(s->buf);
    if (s->a) drv.cuMemFree(s->a);
    if (s->b) drv.cuMemFree(s->b);
    if (s->out) drv.cuMemFree(s->out);
    if (s->hflag) drv.cuMemFreeHost(s->hflag);
    for (i = 0; i < SN_NKERNELS; i++)
        if (s->mod[i]) drv.cuModuleUnload(s->mod[i]);
    if (s->c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&s->c.gpu);
}

int sec_snapshot_child(const cli_opts *o, long long t_main_ns)
{
    static sn_child s;
    struct stat st;
    results r;
    long mib[SN_MAX_SIZES];
    char why[200];
    FILE *f;
    int rc;

    (void)t_main_ns;
    if (fstat(SN_FD, &st) != 0 || !S_ISSOCK(st.st_mode) || dup2(SN_FD, STDERR_FILENO) < 0) {
        fprintf(stderr, "harness: --child=snapshot is the harness's own: it needs its parent's "
                "socket on descriptor 3\n");
        return SEC_USAGE;
    }
    if (sn_parse_sizes(o->snapshot_mib ? o->snapshot_mib : SN_DEFAULT_MIB, mib, why,
                       sizeof why) < 1) {
        fprintf(stderr, "harness: --snapshot-mib: %s\n", why);
        return SEC_USAGE;
    }
    memset(&s, 0, sizeof s);
    res_init(&r);
    s.c.o = o;
    s.c.r = &r;
    s.mib = mib[0];
    ph_set(SN ": child, cold start");
    rc = sn_child_steps(&s);
    sn_child_free(&s);
    /* The results on the socket, not on stdout (the parent reads them there). */
    f = fdopen(dup(SN_FD), "w");
    if (!f || res_write_lines(f, &r) != 0 || fclose(f) != 0) rc = -1;
    res_free(&r);
    return rc == 0 ? SEC_OK : SEC_FAILED;
}
