/* fusion.c: section "fusion": one elementwise chain of four stages (scale
 * and bias, GELU, add residual, clamp) at three fusion depths and several
 * widths, against the copy floor measured in the same process; which
 * prediction held, launches or bytes (lesson "CUDA kernel fusion and what a
 * launch really costs"). The version table below is the one place that
 * names the versions, their kernels, widths and roles; the conclusions are
 * computed here and stored (sections/fusion/fusion.h), the printer only formats. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sections/fusion/fusion.h"
#include "core/answer.h"
#include "cuda/rtc.h"
#include "cuda/timing.h"
#include "os/phase.h"
#include "run/section.h"
#include "sections/launch/launch.h"

#define FS "fusion"
#define FS_MAIN_N KN_CHAIN_MAIN_N
#define FS_CHECK_N KN_CHAIN_CHECK_N
#define FS_BLOCK_THREADS 256     /* threads per block, every kernel */
#define FS_BLOCK ((unsigned)FS_BLOCK_THREADS)
#define FS_WITHIN_PCT 10         /* sweep.within: staged/fused within this % of the byte ratio */

#define FS_STR_(x) #x
#define FS_STR(x) FS_STR_(x)     /* a constant's digits, in a name or description */

/* The section's measurement keys: a version's row (the <word>s filled in
 * from fs_v, after FS_MAIN_PRE or a size's FS_SWEEP_PRE), warm and
 * L2-cold, and the figures of one run. The descriptions are the regions. */
enum { FS_K_ROW, FS_K_ROW_COLD, FS_K_BITWISE_COUNT, FS_K_BITWISE_MAX, FS_K_REGS, FS_K_LOCAL,
       FS_K_BLOCKS, FS_K_OCCUPANCY, FS_NKEYS };
#define FS_WIDTH_REGION "cuFuncGetAttribute / cuOccupancyMaxActiveBlocksPerMultiprocessor, " \
    FS_STR(FS_BLOCK_THREADS) " threads per block"
static const sch_key fs_keys[FS_NKEYS] = {
    { "<word>", "ms", RES_WARM, "<version>",
      "events around one run (batched when short), every version interleaved with the others" },
    { "<word>" FS_COLD, "ms", RES_L2_COLD, "<version>" FS_COLD_NAME,
      "events around one run, the L2 written over before it, every version interleaved with "
      "the others" },
    { FS_BITWISE_COUNT, "elements", RES_WARM, "elements where staged and fused differ bitwise",
      "staged chain's y against the fused kernel's y at n = <n>" },
    { FS_BITWISE_MAX, "abs", RES_WARM, "largest difference between staged and fused",
      "the same elements" },
    { FS_WIDTH_REGS, "registers", RES_WARM, FS_WIDTH_REGS, FS_WIDTH_REGION },
    { FS_WIDTH_LOCAL, "bytes", RES_WARM, FS_WIDTH_LOCAL, FS_WIDTH_REGION },
    { FS_WIDTH_BLOCKS, "blocks", RES_WARM, FS_WIDTH_BLOCKS, FS_WIDTH_REGION },
    { FS_WIDTH_OCCUPANCY, "fraction", RES_WARM, FS_WIDTH_OCCUPANCY, FS_WIDTH_REGION },
};

/* The derived entries the section writes (fusion.h says what each holds):
 * key or pattern, unit, name; the description says what the text holds. */
enum { FS_DK_SIZES, FS_DK_VERSION, FS_DK_PREDICTIONS, FS_DK_FLOOR_MAIN, FS_DK_FLOOR_N,
       FS_DK_COPY_FLOOR, FS_DK_STAGES, FS_DK_SWEEP_N, FS_DK_SHARED_N, FS_DK_WITHIN, FS_DK_HELD,
       FS_DK_HELD_WIDE, FS_DK_ANSWER, FS_NDKEYS };
#define FS_ROOF_NAME "the best copy with buffers of at least 4x the L2"
#define FS_ROOF_FALLBACK_NAME \
    "the best copy at the main size (no n of the sweep has buffers of 4x the L2)"
#define FS_FLOOR_NAME "the copy floor at n = <n>: the best copy there, warm"
static const sch_key fs_derived[FS_NDKEYS] = {
    { FS_D_SIZES, "elements", RES_WARM, "the main n every version is timed at (the check n: "
      "the odd n every version is validated at)", "" },
    { FS_D_VERSION, "B/element", RES_WARM, "<the version's name>",
      "the kernels it launches, comma-separated" },
    { FS_D_PREDICTIONS, "", RES_WARM, "staged/fused as the byte model predicts it (bytes per "
      "element), before any time", "" },
    { FS_D_FLOOR_MAIN, "GB/s", RES_WARM, FS_FLOOR_NAME, "the version key of the best copy" },
    { FS_D_FLOOR_N, "GB/s", RES_WARM, FS_FLOOR_NAME, "the version key of the best copy" },
    { FS_D_COPY_FLOOR, "GB/s", RES_WARM, FS_ROOF_NAME "; else " FS_ROOF_FALLBACK_NAME,
      "the measurement key of the roof's copy" },
    { FS_D_STAGES, "ms", RES_WARM, "four stages, summed",
      "the key of the row it follows (" FS_MAIN_PRE "<the last stage>)" },
    { FS_D_SWEEP_N, "", RES_WARM, "staged/fused and what sets the time at n = <n>",
      "the reading" },
    { FS_D_SHARED_N, "elements", RES_WARM, "the sweep's rows at the main size are the main "
      "phase's (the same versions at the same n), not timed again", "main" },
    { FS_D_WITHIN, "elements", RES_WARM, "the n from which on staged/fused stays within "
      FS_STR(FS_WITHIN_PCT) "% of the byte ratio (NaN: not at the largest n)", "" },
    { FS_D_HELD, "", RES_WARM, "which prediction held: staged/fused at the main size",
      "\"exceeds the byte ratio\" or \"falls short of the byte ratio\"" },
    { FS_D_HELD_WIDE, "", RES_WARM, "the fastest fused-wide<K> at the main size, over the "
      "copy floor there", "its version key" },
    { AN_PREFIX FS_ANSWER, "x", RES_WARM, "fusing",
      "staged over fused at the main size, its range, the byte model's ratio, which prediction "
      "held, the time fusing saves" },
};

/* Store the derived entry of declaration k: its key (filled in with the n
 * parts), its name (filled in with the m name parts) and its unit from
 * k. NULL on out of memory. */
static res_derived *fs_derive(results *r, const sch_key *k, const char *const *parts, size_t n,
                              const char *const *nparts, size_t m, double value, const char *text)
{
    char key[96], name[192];
    if (sch_fill(key, sizeof key, NULL, k->key, parts, n) != 0 ||
        sch_fill(name, sizeof name, NULL, k->name, nparts, m) != 0)
        return NULL;
    return res_derive(r, FS, key, name, value, k->unit, text);
}

static const size_t fs_sweep[] = { 1024, 16384, 262144, 4194304, 16777216, 67108864, 268435456 };

/* How a version is enqueued. */
enum { FS_RUN_COPY, FS_RUN_DTOD, FS_RUN_STAGE, FS_RUN_STAGED, FS_RUN_PAIR, FS_RUN_FUSED,
       FS_RUN_GRAPH, FS_RUN_WIDE };

/* A version's roles. */
#define FS_FLOOR 1u       /* a copy floor candidate */
#define FS_SWEEP 2u       /* timed in the n sweep as well as at the main size */
#define FS_FUSED 4u       /* the whole chain in one kernel */
#define FS_CHECK 8u       /* validated against the CPU at FS_CHECK_N */

/* One version: its key (main.<key>, n=N.<key>), its name, how it runs,
 * its roles, its argument (copies: floats per load, the n % arg trailing
 * floats copied by the scalar copy's kernel; a stage: which, 0 to 3;
 * fused-wide: K), the kernels it launches in order (names, or name
 * expressions of a template), and `like`: the registry kernel whose byte
 * and flop model it has when its own kernels are not in the registry
 * (NULL: the sum over its kernels). */
typedef struct fs_version {
    const char *key, *name;
    int run;
    unsigned roles;
    int arg;
    const char *like;
    const char *k[4];
} fs_version;

#define FS_STAGES { "stageScaleBias", "stageGelu", "stageAddResidual", "stageClamp" }
/* fused-wide<K>: K elements per thread, a grid apart; K is written once. */
#define FS_WIDE(K, roles) { "wide" #K, "fused-wide<" #K ">", FS_RUN_WIDE, \
    FS_FUSED | FS_CHECK | (roles), K, "chainFused", { "chainFusedWide<" #K ">" } }

/* The versions, in the order the tables list them. */
static const fs_version fs_v[] = {
    { "copy", "copy kernel, one float per thread", FS_RUN_COPY, FS_FLOOR | FS_SWEEP, 1, NULL, { "copyFloat" } },
    { "copy2", "copy kernel, 8-byte loads", FS_RUN_COPY, FS_FLOOR | FS_SWEEP, 2, NULL, { "copyFloat2" } },
    { "copy4", "copy kernel, 16-byte loads", FS_RUN_COPY, FS_FLOOR | FS_SWEEP, 4, NULL, { "copyFloat4" } },
    { "dtod", "cuMemcpyDtoD", FS_RUN_DTOD, FS_FLOOR | FS_SWEEP, 0, "copyFloat", { NULL } },
    { "stage1", "stage 1, scale and bias", FS_RUN_STAGE, 0, 0, NULL, { "stageScaleBias" } },
    { "stage2", "stage 2, GELU", FS_RUN_STAGE, 0, 1, NULL, { "stageGelu" } },
    { "stage3", "stage 3, add residual", FS_RUN_STAGE, 0, 2, NULL, { "stageAddResidual" } },
    { "stage4", "stage 4, clamp", FS_RUN_STAGE, 0, 3, NULL, { "stageClamp" } },
    { "staged", "staged chain, timed as one", FS_RUN_STAGED, FS_SWEEP | FS_CHECK, 0, NULL, FS_STAGES },
    { "pair", "pair-fused (1+2, 3+4)", FS_RUN_PAIR, FS_CHECK, 0, NULL, { "pairScaleGelu", "pairResidualClamp" } },
    { "fused", "fused", FS_RUN_FUSED, FS_FUSED | FS_SWEEP | FS_CHECK, 0, NULL, { "chainFused" } },
    { "graph", "staged chain as a CUDA graph", FS_RUN_GRAPH, FS_CHECK, 0, NULL, FS_STAGES },
    FS_WIDE(1, 0), FS_WIDE(2, 0), FS_WIDE(4, FS_SWEEP), FS_WIDE(8, FS_SWEEP),
    FS_WIDE(16, 0), FS_WIDE(32, 0),
};
#define V_COUNT (sizeof fs_v / sizeof fs_v[0])

/* The index of the version with this key (one of the table's), or -1. */
static int fs_find(const char *key)
{
    size_t v;
    for (v = 0; v < V_COUNT; v++)
        if (strcmp(fs_v[v].key, key) == 0) return (int)v;
    return -1;
}

/* Kernels version v launches. */
static size_t fs_nk(size_t v)
{
    size_t n = 0;
    while (n < 4 && fs_v[v].k[n]) n++;
    return n;
}

/* Bytes or flops per element of version v, from the registry. */
static double fs_model(size_t v, int flops)
{
    const char *const *names = fs_v[v].like ? &fs_v[v].like : fs_v[v].k;
    size_t n = fs_v[v].like ? 1 : fs_nk(v);
    return flops ? kn_flops_of(names, n) : kn_bytes_of(names, n);
}

typedef struct fs_ctx {
    sec_ctx *c;
    CUmodule mod, mcopy;          /* fusion.cu (with the name expressions), copy.cu */
    CUfunction f[V_COUNT][4];     /* each version's kernels, as fs_v[v].k */
    CUdeviceptr x, r, t1, t2, t3, y;
    size_t n;                     /* elements this run */
    size_t cap;                   /* elements each buffer holds */
    CUgraphExec graph;            /* the staged chain at n, captured */
} fs_ctx;

typedef struct fs_unit { fs_ctx *F; size_t v; } fs_unit;

static unsigned fs_blocks(size_t n, unsigned per)
{
    return (unsigned)((n + per - 1) / per);
}

/* Launch f, of signature (in..., out, size_t n), over `units` threads (at
 * least one block). */
static int fs_go(CUfunction f, CUstream s, size_t units, void **params)
{
    CK(drv.cuLaunchKernel(f, fs_blocks(units ? units : 1, FS_BLOCK), 1, 1, FS_BLOCK, 1, 1, 0, s,
                          params, NULL));
    return 0;
fail:
    return -1;
}

/* Stage k (0..3) of the chain with kernel f, wired x -> t1 -> t2 (+ r) -> t3 -> y. */
static int fs_stage(fs_ctx *F, CUfunction f, int k, CUstream s)
{
    void *p1[] = { &F->x, &F->t1, &F->n };
    void *p2[] = { &F->t1, &F->t2, &F->n };
    void *p3[] = { &F->t2, &F->r, &F->t3, &F->n };
    void *p4[] = { &F->t3, &F->y, &F->n };
    void **p[4] = { p1, p2, p3, p4 };
    return fs_go(f, s, F->n, p[k]);
}

/* A copy of F->n floats with arg floats per thread, the n % arg trailing
 * floats with the scalar copy's kernel. */
static int fs_copy(fs_ctx *F, size_t v, CUstream s)
{
    size_t per = (size_t)fs_v[v].arg, nv = F->n / per, nt = F->n % per;
    CUdeviceptr xt = F->x + per * nv * sizeof(float), yt = F->y + per * nv * sizeof(float);
    void *p[] = { &F->x, &F->y, &nv };
    void *pt[] = { &xt, &yt, &nt };
    int scalar = fs_find("copy");
    if (fs_go(F->f[v][0], s, nv, p) != 0) return -1;
    return nt && scalar >= 0 ? fs_go(F->f[scalar][0], s, nt, pt) : 0;
}

/* Enqueue one run of version u->v at F->n. */
static int fs_run(void *arg, CUstream s)
{
    fs_unit *u = arg;
    fs_ctx *F = u->F;
    size_t n = F->n, v = u->v;
    int k;

    switch (fs_v[v].run) {
    case FS_RUN_COPY:
        return fs_copy(F, v, s);
    case FS_RUN_DTOD:
        CK(drv.cuMemcpyDtoDAsync(F->y, F->x, n * sizeof(float), s));
        return 0;
    case FS_RUN_STAGE:
        return fs_stage(F, F->f[v][0], fs_v[v].arg, s);
    case FS_RUN_STAGED:
        for (k = 0; k < 4; k++)
            if (fs_stage(F, F->f[v][k], k, s) != 0) return -1;
        return 0;
    case FS_RUN_PAIR: {
        void *pa[] = { &F->x, &F->t1, &n };
        void *pb[] = { &F->t1, &F->r, &F->y, &n };
        if (fs_go(F->f[v][0], s, n, pa) != 0) return -1;
        return fs_go(F->f[v][1], s, n, pb);
    }
    case FS_RUN_FUSED: {
        void *p[] = { &F->x, &F->r, &F->y, &n };
        return fs_go(F->f[v][0], s, n, p);
    }
    case FS_RUN_GRAPH:
        CK(drv.cuGraphLaunch(F->graph, s));
        return 0;
    default: {
        void *p[] = { &F->x, &F->r, &F->y, &n };
        size_t K = (size_t)fs_v[v].arg;
        return fs_go(F->f[v][0], s, (n + K - 1) / K, p);
    }
    }
fail:
    return -1;
}

/* Capture the staged chain at F->n as a graph (replacing the last one). */
static int fs_capture(fs_ctx *F)
{
    CUstream s = F->c->gpu.stream;
    CUgraph g = NULL;
    fs_unit u = { F, 0 };
    int rc = -1, capturing = 0, staged = fs_find("staged");
    if (F->graph) {
        drv.cuGraphExecDestroy(F->graph);
        F->graph = NULL;
    }
    if (staged < 0) return -1;
    u.v = (size_t)staged;
    CK(drv.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    capturing = 1;
    if (fs_run(&u, s) != 0) goto fail;
    CK(drv.cuStreamEndCapture(s, &g));
    capturing = 0;
    CK(drv.cuGraphInstantiateWithFlags(&F->graph, g, 0));
    rc = 0;
fail:
    /* A capture left open would make the stream refuse all later work. */
    if (capturing) drv.cuStreamEndCapture(s, &g);
    if (g) drv.cuGraphDestroy(g);
    return rc;
}

/* Poison every buffer a version writes with NaN. */
static int fs_poison(fs_ctx *F)
{
    CUstream s = F->c->gpu.stream;
    CK(drv.cuMemsetD32Async(F->t1, 0x7fc00000u, F->n, s));
    CK(drv.cuMemsetD32Async(F->t2, 0x7fc00000u, F->n, s));
    CK(drv.cuMemsetD32Async(F->t3, 0x7fc00000u, F->n, s));
    CK(drv.cuMemsetD32Async(F->y, 0x7fc00000u, F->n, s));
    return 0;
fail:
    return -1;
}

/* Store how the outputs ys and yf of staged and fused differ bit for bit
 * (bitwise.count, bitwise.max). Returns 0, or -1 on out of memory. */
static int fs_bitwise(results *r, const float *ys, const float *yf, size_t n, const char *at)
{
    const sch_key *kc = &fs_keys[FS_K_BITWISE_COUNT], *km = &fs_keys[FS_K_BITWISE_MAX];
    size_t i, diff = 0;
    double maxd = 0, dv;
    char region[128];
    for (i = 0; i < n; i++) {
        if (memcmp(&ys[i], &yf[i], sizeof(float)) != 0) {
            double d = fabs((double)ys[i] - (double)yf[i]);
            diff++;
            if (d > maxd) maxd = d;
        }
    }
    dv = (double)diff;
    sch_fill(region, sizeof region, NULL, kc->desc, &at, 1);
    if (!res_add(r, FS, kc->key, kc->name, region, kc->state, kc->unit, &dv, 1) ||
        !res_add(r, FS, km->key, km->name, km->desc, km->state, km->unit, &maxd, 1))
        return -1;
    return 0;
}

/* Run version v at F->n (inputs x and r on the device) into y, copied
 * back, and check it on every element; record the check. Returns 1 when
 * it passed, 0 when not, -1 on a driver error. */
static int fs_check_one(fs_ctx *F, size_t v, const double *want, float *y, const char *at)
{
    CUstream s = F->c->gpu.stream;
    fs_unit u = { F, v };
    kn_bad bad;
    char what[160];
    if (fs_poison(F) != 0 || fs_run(&u, s) != 0) return -1;
    CK(drv.cuStreamSynchronize(s));
    kn_poison(y, F->n);
    CK(drv.cuMemcpyDtoH(y, F->y, F->n * sizeof *y));
    kn_check_chain_wants(want, y, F->n, &bad);
    snprintf(what, sizeof what, "%s at n = %s, every element vs the CPU in double", fs_v[v].name, at);
    return sec_check_elems(F->c, FS, what, F->n, &bad);
fail:
    return -1;
}

/* Every version with FS_CHECK at FS_CHECK_N against the CPU in double
 * precision, then how staged and fused differ bit for bit. Returns 0, 1
 * (a check failed) or -1. */
static int fs_validate(fs_ctx *F)
{
    size_t n = FS_CHECK_N, i, v;
    float *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
    float *y = malloc(n * sizeof *y), *ys = malloc(n * sizeof *ys), *yf = malloc(n * sizeof *yf);
    double *want = malloc(n * sizeof *want);
    int failed = 0, rc = -1, ok, staged = fs_find("staged"), fused = fs_find("fused");
    char at[32];

    sec_commas(at, sizeof at, (double)n);
    if (!x || !r || !y || !ys || !yf || !want) goto out;
    kn_fill(x, n, 31);
    kn_fill(r, n, 32);
    for (i = 0; i < n; i++) x[i] *= 3.0f;    /* reach both clamp bounds */
    kn_chain_wants(x, r, want, n);          /* the CPU's answer, once for every version */
    F->n = n;
    CK(drv.cuMemcpyHtoD(F->x, x, n * sizeof *x));
    CK(drv.cuMemcpyHtoD(F->r, r, n * sizeof *r));
    if (fs_capture(F) != 0) goto out;
    for (v = 0; v < V_COUNT; v++) {
        if (!(fs_v[v].roles & FS_CHECK)) continue;
        if ((ok = fs_check_one(F, v, want, y, at)) < 0) goto out;
        if (!ok) failed = 1;
        if ((int)v == staged) memcpy(ys, y, n * sizeof *y);
        if ((int)v == fused) memcpy(yf, y, n * sizeof *y);
    }
    if (fs_bitwise(F->c->r, ys, yf, n, at) != 0) goto out;
    rc = failed;
out:
    free(x);
    free(r);
    free(y);
    free(ys);
    free(yf);
    free(want);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* Fill d[0..F->cap) by tiling h[0..block): one copy from the host, the
 * other tiles copied on the device from the first (a 1 GiB input is 16
 * tiles; from pageable memory each took about 10 ms). */
static int fs_tile(fs_ctx *F, CUdeviceptr d, const float *h, size_t block)
{
    CUstream s = F->c->gpu.stream;
    size_t off;
    CK(drv.cuMemcpyHtoD(d, h, block * sizeof(float)));
    for (off = block; off < F->cap; off += block) {
        size_t len = F->cap - off < block ? F->cap - off : block;
        CK(drv.cuMemcpyDtoDAsync(d + off * sizeof(float), d, len * sizeof(float), s));
    }
    CK(drv.cuStreamSynchronize(s));
    return 0;
fail:
    return -1;
}

/* Fill the inputs at F->cap by tiling one host block of random floats. */
static int fs_fill(fs_ctx *F)
{
    size_t block = F->cap < FS_MAIN_N ? F->cap : FS_MAIN_N;
    float *h = malloc(block * sizeof *h);
    int rc = -1;
    if (!h) return -1;
    kn_fill(h, block, 41);
    if (fs_tile(F, F->x, h, block) == 0) {
        kn_fill(h, block, 42);
        rc = fs_tile(F, F->r, h, block);
    }
    free(h);
    return rc;
}

/* The declaration of a version's row, warm or L2-cold. */
static const sch_key *fs_row(int cold)
{
    return &fs_keys[cold ? FS_K_ROW_COLD : FS_K_ROW];
}

/* Where the timer of a version's run starts and stops, warm or L2-cold. */
static const char *fs_region(int cold)
{
    return fs_row(cold)->desc;
}

/* The key and the name of version v's row "<prefix><key>" (warm) or
 * "<prefix><key>.cold" into key and name (64 and 160 bytes), from the row's
 * declaration; prefix is taken as it is. */
static void fs_row_names(size_t v, int cold, const char *prefix, char *key, char *name)
{
    char row[64];
    sch_fill(row, sizeof row, NULL, fs_row(cold)->key, &fs_v[v].key, 1);
    snprintf(key, 64, "%s%s", prefix, row);
    sch_fill(name, 160, NULL, fs_row(cold)->name, &fs_v[v].name, 1);
}

/* The row prefix of sweep size n, FS_SWEEP_PRE filled in, into buf (48 bytes). */
static void fs_sweep_pre(char *buf, double n)
{
    char digits[32];
    const char *part = digits;
    snprintf(digits, sizeof digits, "%.0f", n);
    sch_fill(buf, 48, NULL, FS_SWEEP_PRE, &part, 1);
}

/* Store the timed work w of version v at n as "<prefix><key>" (warm) or
 * "<prefix><key>.cold", with its byte and flop model. NULL on out of memory. */
static res_meas *fs_store(fs_ctx *F, const tm_work *w, size_t v, size_t n, const char *prefix)
{
    char key[64], name[160];
    res_meas *m;
    fs_row_names(v, w->cold, prefix, key, name);
    m = sec_store_work(F->c, FS, key, name, fs_region(w->cold), fs_row(w->cold)->state, w);
    if (!m) return NULL;
    m->n = (long)n;
    m->bytes = fs_model(v, 0) * (double)n;
    m->flops = fs_model(v, 1) * (double)n;
    return m;
}

/* Time the versions whose roles include `roles` (0: every version) at n,
 * interleaved, in the cache states --cache asks for; store each under
 * "<prefix><key>" (warm) and "<prefix><key>.cold". */
static int fs_time(fs_ctx *F, size_t n, unsigned roles, const char *prefix)
{
    tm_work w[2 * V_COUNT];
    fs_unit u[V_COUNT];
    size_t i, v, k = 0;
    int states = sec_cache_states(F->c), rc = -1;
    memset(w, 0, sizeof w);
    F->n = n;
    if (fs_capture(F) != 0) return -1;
    for (v = 0; v < V_COUNT; v++) {
        if (roles && !(fs_v[v].roles & roles)) continue;
        u[v] = (fs_unit){ F, v };
        if ((states & 1) && tm_work_init(&w[k++], fs_run, &u[v], 0) != 0) goto out;
        if ((states & 2) && tm_work_init(&w[k++], fs_run, &u[v], 1) != 0) goto out;
    }
    if (tm_events(F->c->gpu.stream, w, k, F->c->o->warmup) != 0) goto out;
    for (i = 0; i < k; i++)
        if (!fs_store(F, &w[i], ((const fs_unit *)w[i].arg)->v, n, prefix)) goto out;
    rc = 0;
out:
    for (i = 0; i < 2 * V_COUNT; i++) tm_work_free(&w[i]);
    return rc;
}

/* Is sweep size i left out of this run? --profile: the main size only;
 * --quick (without --sizes): the smallest size and the main one only. */
static int fs_left_out(const sec_ctx *c, const size_t *sweep, size_t i)
{
    return c->o->profile || (c->o->quick && !c->o->sizes_given && i != 0 && sweep[i] != FS_MAIN_N);
}

/* Buffers: F->cap, the largest size that fits six buffers; each size
 * beyond device memory is a failed check, and leaves the run incomplete.
 * Returns 0, 1 (a size did not fit) or -1. */
static int fs_plan(fs_ctx *F, const size_t *sweep, size_t nsweep)
{
    size_t free_b, total_b, i, need;
    int failed = 0;
    F->cap = FS_MAIN_N > FS_CHECK_N ? FS_MAIN_N : FS_CHECK_N;
    if (drv_mem_info(&free_b, &total_b) != 0) return -1;
    for (i = 0; i < nsweep; i++) {
        if (fs_left_out(F->c, sweep, i)) continue;
        need = 6 * sweep[i] * sizeof(float);
        if (need + (256u << 20) > free_b) {
            char what[96], detail[200];
            snprintf(what, sizeof what, "n = %zu fits in device memory", sweep[i]);
            snprintf(detail, sizeof detail, "needs %.2f GiB for 6 buffers, %.2f GiB free",
                     (double)need / 1073741824.0, (double)free_b / 1073741824.0);
            res_check_add(F->c->r, FS, what, 0, detail);
            fprintf(stderr, "harness: " FS ": n = %zu: %s\n", sweep[i], detail);
            F->c->r->incomplete = 1;        /* a size asked for is not measured */
            failed = 1;
        } else if (sweep[i] > F->cap) {
            F->cap = sweep[i];
        }
    }
    return failed;
}

/* The module that holds kernel k of version v (by its registry file). */
static CUmodule fs_module_of(const fs_ctx *F, size_t v, size_t k)
{
    const kn_kernel *kn = kn_find(fs_v[v].like ? fs_v[v].like : fs_v[v].k[k]);
    if (!kn) return NULL;
    return strcmp(kn->file, "copy.cu") == 0 ? F->mcopy : strcmp(kn->file, "fusion.cu") == 0 ? F->mod : NULL;
}

/* Get every version's kernels from the two modules; lowered holds the
 * wide versions' lowered names, in table order. Returns 0 or -1. */
static int fs_functions(fs_ctx *F, char *const *lowered)
{
    size_t v, k, e = 0;
    for (v = 0; v < V_COUNT; v++) {
        for (k = 0; k < fs_nk(v); k++) {
            CUmodule m = fs_module_of(F, v, k);
            const char *name = fs_v[v].run == FS_RUN_WIDE ? lowered[e++] : fs_v[v].k[k];
            if (!m) {
                fprintf(stderr, "harness: error: " FS ": %s: no module holds it\n", fs_v[v].k[k]);
                return -1;
            }
            CK(drv.cuModuleGetFunction(&F->f[v][k], m, name));
        }
    }
    return 0;
fail:
    return -1;
}

/* Compile fusion.cu with the name expressions of the wide versions, load
 * it and copy.cu, and get every version's kernels. Returns 0 or -1. */
static int fs_load(fs_ctx *F)
{
    sec_ctx *c = F->c;
    const char *exprs[V_COUNT];
    char *lowered[V_COUNT] = { NULL }, why[512];
    char *src = NULL;
    size_t nexpr = 0, v;
    rtc_out code;
    double load_ms, jit_ms;
    int rc = -1;

    memset(&code, 0, sizeof code);
    for (v = 0; v < V_COUNT; v++)
        if (fs_v[v].run == FS_RUN_WIDE) exprs[nexpr++] = fs_v[v].k[0];
    src = kn_source("fusion.cu", c->o->kernels_dir, why, sizeof why);
    if (!src) {
        fprintf(stderr, "harness: error: kernel source: %s\n", why);
        goto out;
    }
    if (rtc_compile_named(src, "fusion.cu", c->arch, c->o->format == CLI_FMT_PTX ? RTC_PTX : RTC_CUBIN,
                          NULL, 0, exprs, (int)nexpr, lowered, &code) != RTC_OK) {
        fprintf(stderr, "harness: error: fusion.cu does not compile:\n%s", code.log ? code.log : "");
        goto out;
    }
    if (drv_load_image(code.code, -1, &F->mod, &load_ms, &jit_ms) != 0) goto out;
    if (sec_module(c, "copy.cu", &F->mcopy, NULL, NULL) != 0 || fs_functions(F, lowered) != 0) goto out;
    rc = 0;
out:
    for (v = 0; v < nexpr; v++) free(lowered[v]);
    rtc_out_free(&code);
    free(src);
    return rc;
}

/* The six buffers of F->cap floats. */
static int fs_alloc(fs_ctx *F)
{
    CK(drv.cuMemAlloc(&F->x, F->cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F->r, F->cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F->t1, F->cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F->t2, F->cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F->t3, F->cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F->y, F->cap * sizeof(float)));
    return 0;
fail:
    return -1;
}

static void fs_free(fs_ctx *F)
{
    if (F->graph) drv.cuGraphExecDestroy(F->graph);
    if (F->x) drv.cuMemFree(F->x);
    if (F->r) drv.cuMemFree(F->r);
    if (F->t1) drv.cuMemFree(F->t1);
    if (F->t2) drv.cuMemFree(F->t2);
    if (F->t3) drv.cuMemFree(F->t3);
    if (F->y) drv.cuMemFree(F->y);
    if (F->mod) drv.cuModuleUnload(F->mod);
    if (F->mcopy) drv.cuModuleUnload(F->mcopy);
}

/* Version v's row at the main size in the cold (1) or warm (0) state:
 * with copy 0, 1 when the main phase stored it, else 0; with copy 1, its
 * samples stored as the sweep's row "<prefix><key>" at the main size
 * (1, or -1 on out of memory). */
static int fs_main_row(fs_ctx *F, size_t v, int cold, const char *prefix, int copy)
{
    char from[64], key[64], name[160], region[320];
    const res_meas *m;
    fs_row_names(v, cold, FS_MAIN_PRE, from, name);
    m = res_find(F->c->r, FS, from);
    if (!m || m->state != fs_row(cold)->state) return 0;
    if (!copy) return 1;
    fs_row_names(v, cold, prefix, key, name);
    snprintf(region, sizeof region, "%s; the samples of %s: the same work at the same n, timed "
             "in the main phase, not timed again", fs_region(cold), from);
    return res_add_copy(F->c->r, m, FS, key, name, region) ? 1 : -1;
}

/* The sweep at the main size: every version it times (FS_SWEEP) the main
 * phase timed too, at that n, interleaved, in the same cache states. When
 * every such row is stored, each is copied as the sweep's row with a region
 * that says so, and "shared.n=<n>" is stored (sections/fusion/fusion.h): 1. 0 when
 * a row is missing (the sweep times the size itself), -1 on out of memory. */
static int fs_share_main(fs_ctx *F, const char *prefix)
{
    int states = sec_cache_states(F->c), copy, cold, rc, rows = 0;
    res_derived *d;
    char n[32];
    const char *part = n;
    size_t v;

    /* First whether every row is there, then the copies. */
    for (copy = 0; copy < 2; copy++) {
        for (v = 0; v < V_COUNT; v++) {
            if (!(fs_v[v].roles & FS_SWEEP)) continue;
            for (cold = 0; cold < 2; cold++) {
                if (!(states & (1 << cold))) continue;
                if ((rc = fs_main_row(F, v, cold, prefix, copy)) <= 0) return rc;
                rows += copy;
            }
        }
    }
    snprintf(n, sizeof n, "%u", FS_MAIN_N);
    d = fs_derive(F->c->r, &fs_derived[FS_DK_SHARED_N], &part, 1, NULL, 0, FS_MAIN_N,
                  fs_derived[FS_DK_SHARED_N].desc);
    if (!d || res_derived_field(d, "n", FS_MAIN_N) != 0 || res_derived_field(d, "rows", rows) != 0)
        return -1;
    return 1;
}

/* The n sweep: the versions with FS_SWEEP at each size that fits; at the
 * main size the main phase's rows. */
static int fs_sweep_all(fs_ctx *F, const size_t *sweep, size_t nsweep)
{
    size_t i;
    int rc;
    for (i = 0; i < nsweep; i++) {
        char prefix[48];
        if (sweep[i] > F->cap || fs_left_out(F->c, sweep, i)) continue;
        fs_sweep_pre(prefix, (double)sweep[i]);
        rc = sweep[i] == FS_MAIN_N ? fs_share_main(F, prefix) : 0;
        if (rc < 0) {
            fprintf(stderr, "harness: error: " FS ": out of memory storing the sweep's rows at "
                    "n = %zu\n", sweep[i]);
            return -1;
        }
        if (rc == 0 && fs_time(F, sweep[i], FS_SWEEP, prefix) != 0) return -1;
    }
    return 0;
}

/* The width sweep: what the compiler gave each fused-wide<K>. */
static int fs_width_attrs(fs_ctx *F)
{
    sec_ctx *c = F->c;
    int maxthreads = 0, regs = 0, local = 0, blocks = 0, q;
    size_t v;
    char key[64], k[SCH_NUM];
    const char *part = k;
    double vals[4];

    CK(drv.cuDeviceGetAttribute(&maxthreads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, c->gpu.dev));
    for (v = 0; v < V_COUNT; v++) {
        if (fs_v[v].run != FS_RUN_WIDE) continue;
        CK(drv.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, F->f[v][0]));
        CK(drv.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, F->f[v][0]));
        CK(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, F->f[v][0], (int)FS_BLOCK, 0));
        vals[0] = regs;
        vals[1] = local;
        vals[2] = blocks;
        vals[3] = maxthreads > 0 ? (double)blocks * FS_BLOCK / maxthreads : NAN;
        sch_num(k, fs_v[v].arg);
        for (q = 0; q < 4; q++) {
            const sch_key *d = &fs_keys[FS_K_REGS + q];
            sch_fill(key, sizeof key, NULL, d->key, &part, 1);
            if (!res_add(c->r, FS, key, key, d->desc, d->state, d->unit, &vals[q], 1)) return -1;
        }
    }
    return 0;
fail:
    return -1;
}

/* The compute roof: FP32 lanes x 2 (an FMA is two operations) x clock. */
static void fs_peak(sec_ctx *c)
{
    double lanes = c->gpu.cc_major >= 8 && !(c->gpu.cc_major == 8 && c->gpu.cc_minor == 0) ? 128 : 64;
    double peak = c->gpu.sms * lanes * 2.0 * (double)c->gpu.sm_clock_khz * 1e3 / 1e9;
    res_env_num(c->r, "fp32_peak_gflops", peak);
    res_env_str(c->r, "fp32_peak_source", "SMs x FP32 lanes per SM x 2 x the device's clock rate");
}

sec_status sec_fusion(sec_ctx *c)
{
    const size_t *sweep = c->o->sizes_given ? c->o->sizes : fs_sweep;
    size_t nsweep = c->o->sizes_given ? c->o->nsizes : sizeof fs_sweep / sizeof fs_sweep[0];
    fs_ctx F;
    int rc, failed = 0;

    memset(&F, 0, sizeof F);
    F.c = c;
    if ((rc = sec_begin(c, FS, 1, 1)) != SEC_OK) return rc;
    ph_set(FS);
    if (fs_store_models(c->r) != 0 || (rc = fs_plan(&F, sweep, nsweep)) < 0) goto fail;
    failed = rc;
    if (fs_load(&F) != 0 || fs_alloc(&F) != 0) goto fail;

    /* Correctness first, at an odd size. */
    ph_set(FS ": validation");
    if ((rc = fs_validate(&F)) < 0 || fs_fill(&F) != 0) goto fail;
    if (rc > 0) failed = 1;
    /* Every version at the main size, interleaved; then the n sweep. */
    ph_set(FS ": main size");
    if (fs_time(&F, FS_MAIN_N, 0, FS_MAIN_PRE) != 0) goto fail;
    ph_set(FS ": n sweep");
    if (fs_sweep_all(&F, sweep, nsweep) != 0 || fs_width_attrs(&F) != 0) goto fail;
    fs_peak(c);
    if (fs_conclude(c->r, (double)c->gpu.l2_bytes) != 0) {
        fprintf(stderr, "harness: error: " FS ": no copy floor could be stored (no copy was timed, or out of memory)\n");
        goto fail;
    }
    rc = 0;
    goto out;
fail:
    rc = -1;
out:
    fs_free(&F);
    ph_set(NULL);
    if (rc < 0) return SEC_FAILED;
    return failed ? SEC_FAILED : SEC_OK;
}

/* ---- The facts and conclusions, from the results alone (sections/fusion/fusion.h). */

/* Add n named figures to d. Returns 0, or -1 when d is NULL (out of memory)
 * or a field could not be added. */
static int fs_fields(res_derived *d, const char *const *names, const double *vals, size_t n)
{
    size_t i;
    if (!d) return -1;
    for (i = 0; i < n; i++)
        if (res_derived_field(d, names[i], vals[i]) != 0) return -1;
    return 0;
}

#define FS_NF(a) (sizeof(a) / sizeof((a)[0]))

/* The measurement "<prefix><key>" of section fusion, or NULL. */
static const res_meas *fs_meas(const results *r, const char *prefix, const char *key)
{
    char k[96];
    snprintf(k, sizeof k, "%s%s", prefix, key);
    return res_find(r, FS, k);
}

static double fs_med(const res_meas *m)
{
    return m ? m->stats.median : NAN;
}

/* The figure `field` of the conclusion `key` of section fusion, or NaN. */
static double fs_dnum(const results *r, const char *key, const char *field)
{
    return res_derived_num(res_derived_find(r, FS, key), field);
}

/* The value of the conclusion `key` of section fusion, or NaN. */
static double fs_dval(const results *r, const char *key)
{
    const res_derived *d = res_derived_find(r, FS, key);
    return d ? d->value : NAN;
}

/* "version.<key>": the version's model, kernels and roles. */
static int fs_store_version(results *r, size_t v)
{
    static const char *const names[] = { "bytes_per_elem", "flops_per_elem", "kernels", "floor",
                                         "sweep", "fused", "checked", "width" };
    char kernels[256] = "";
    size_t k, len = 0;
    unsigned roles = fs_v[v].roles;
    double vals[FS_NF(names)];

    for (k = 0; k < fs_nk(v) && len < sizeof kernels; k++)
        len += (size_t)snprintf(kernels + len, sizeof kernels - len, "%s%s", k ? "," : "", fs_v[v].k[k]);
    vals[0] = fs_model(v, 0);
    vals[1] = fs_model(v, 1);
    vals[2] = (double)fs_nk(v);
    vals[3] = (roles & FS_FLOOR) != 0;
    vals[4] = (roles & FS_SWEEP) != 0;
    vals[5] = (roles & FS_FUSED) != 0;
    vals[6] = (roles & FS_CHECK) != 0;
    vals[7] = fs_v[v].run == FS_RUN_WIDE ? fs_v[v].arg : 0;
    return fs_fields(fs_derive(r, &fs_derived[FS_DK_VERSION], &fs_v[v].key, 1, &fs_v[v].name, 1,
                               vals[0], kernels), names, vals, FS_NF(names));
}

/* "predictions": the byte ratios and the launch ratio, before any time. */
static int fs_store_predictions(results *r)
{
    static const char *const names[] = { "staged_bytes", "pair_bytes", "fused_bytes", "extra_bytes",
                                         "launch_ratio", "staged_pair", "pair_fused",
                                         "staged_kernels", "pair_kernels", "fused_kernels" };
    int s = fs_find("staged"), p = fs_find("pair"), f = fs_find("fused");
    double bs, bp, bf, ks, kp, kf;
    if (s < 0 || p < 0 || f < 0) return -1;
    bs = fs_model((size_t)s, 0);
    bp = fs_model((size_t)p, 0);
    bf = fs_model((size_t)f, 0);
    ks = (double)fs_nk((size_t)s);
    kp = (double)fs_nk((size_t)p);
    kf = (double)fs_nk((size_t)f);
    {
        double vals[] = { bs, bp, bf, bs - bf, ks / kf, bs / bp, bp / bf, ks, kp, kf };
        return fs_fields(fs_derive(r, &fs_derived[FS_DK_PREDICTIONS], NULL, 0, NULL, 0, bs / bf,
                                   ""), names, vals, FS_NF(names));
    }
}

int fs_store_models(results *r)
{
    static const char *const names[] = { "main_n", "check_n" };
    static const double vals[] = { FS_MAIN_N, FS_CHECK_N };
    size_t v;
    if (fs_fields(fs_derive(r, &fs_derived[FS_DK_SIZES], NULL, 0, NULL, 0, FS_MAIN_N, ""),
                  names, vals, FS_NF(names)) != 0)
        return -1;
    for (v = 0; v < V_COUNT; v++)
        if (fs_store_version(r, v) != 0) return -1;
    return fs_store_predictions(r);
}

/* Is m the warm staged chain of the n sweep ("n=<m->n>.staged")? */
static int fs_is_sweep(const res_meas *m)
{
    char want[64];
    if (strcmp(m->section, FS) != 0 || m->state != fs_row(0)->state ||
        strncmp(m->key, FS_SWEEP_PRE, FS_HEAD(FS_SWEEP_PRE)) != 0)
        return 0;
    fs_sweep_pre(want, (double)m->n);
    return strncmp(m->key, want, strlen(want)) == 0 && strcmp(m->key + strlen(want), "staged") == 0;
}

/* "floor.main" (n NULL) or "floor.n=<n>": the best warm copy floor
 * candidate among the measurements "<prefix><key>"; nothing when none was
 * timed. */
static int fs_floor_at(results *r, const char *prefix, const char *n)
{
    const char *names[2 + V_COUNT] = { "n", "ms" };
    char fnames[V_COUNT][40], at[32];
    const char *part = at;
    double vals[2 + V_COUNT], best = 0;
    const res_meas *bm = NULL;
    size_t v, nf = 2;
    int bv = -1;

    for (v = 0; v < V_COUNT; v++) {
        const res_meas *m = fs_meas(r, prefix, fs_v[v].key);
        double g = sec_gbs(m);
        if (!(fs_v[v].roles & FS_FLOOR) || !m || m->state != fs_row(0)->state) continue;
        snprintf(fnames[v], sizeof fnames[v], "%s_gbs", fs_v[v].key);
        names[nf] = fnames[v];
        vals[nf++] = g;
        if (g > best) {
            best = g;
            bm = m;
            bv = (int)v;
        }
    }
    if (!bm) return 0;
    vals[0] = (double)bm->n;
    vals[1] = bm->stats.median;
    sec_commas(at, sizeof at, (double)bm->n);
    return fs_fields(fs_derive(r, &fs_derived[n ? FS_DK_FLOOR_N : FS_DK_FLOOR_MAIN], &n, n ? 1 : 0,
                               &part, 1, best, fs_v[bv].key), names, vals, nf);
}

/* floor.main, then floor.n=N for each n of the sweep. */
static int fs_floors(results *r)
{
    size_t i;
    if (fs_floor_at(r, FS_MAIN_PRE, NULL) != 0) return -1;
    for (i = 0; i < r->nm; i++) {
        char prefix[48], n[32];
        if (!fs_is_sweep(&r->m[i])) continue;
        fs_sweep_pre(prefix, (double)r->m[i].n);
        snprintf(n, sizeof n, "%ld", r->m[i].n);
        if (fs_floor_at(r, prefix, n) != 0) return -1;
    }
    return 0;
}

/* The copy floor, a conclusion stored once ("copy_floor"): the best floor.*
 * at an n whose buffers are at least 4x the L2 (n floats >= the L2's
 * bytes; smaller ones are copied partly within the L2; the main size's
 * buffers are about the L2's size), with that n and cuMemcpyDtoD's rate
 * there. When no n qualifies it falls back to floor.main (fallback = 1). */
static int fs_copy_floor(results *r, double l2_bytes)
{
    static const char *const names[] = { "n", "dtod_gbs", "fallback", "l2_bytes", "datasheet_gbs",
                                         "datasheet_pct" };
    const res_kv *sheet = res_env_get(r, "datasheet_memory_gbs");
    double sheet_gbs = sheet && sheet->kind == RES_NUM ? sheet->num : NAN;
    const res_derived *best = NULL;
    char text[96];
    size_t i;
    int fallback = 0;

    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        if (strcmp(d->section, FS) != 0 || strncmp(d->key, FS_D_FLOOR, strlen(FS_D_FLOOR)) != 0) continue;
        if (res_derived_num(d, "n") >= l2_bytes && (!best || d->value > best->value)) best = d;
    }
    if (!best) {
        best = res_derived_find(r, FS, FS_D_FLOOR_MAIN);
        fallback = 1;
    }
    if (!best) return -1;
    if (strcmp(best->key, FS_D_FLOOR_MAIN) == 0) snprintf(text, sizeof text, FS_MAIN_PRE "%s", best->text);
    else snprintf(text, sizeof text, "%s.%s", best->key + strlen(FS_D_FLOOR), best->text);
    {
        /* best points into r->d, which res_derive may move: copy it first. */
        double roof = best->value;
        double vals[] = { res_derived_num(best, "n"), res_derived_num(best, "dtod_gbs"), fallback, l2_bytes,
                          sheet_gbs, 100.0 * roof / sheet_gbs };
        const sch_key *k = &fs_derived[FS_DK_COPY_FLOOR];
        return fs_fields(res_derive(r, FS, k->key, fallback ? FS_ROOF_FALLBACK_NAME : FS_ROOF_NAME,
                                    roof, k->unit, text), names, vals, FS_NF(names));
    }
}

/* "main.stages": the stages timed one at a time, their medians summed. */
static int fs_stages_summed(results *r)
{
    static const char *const names[] = { "n", "bytes" };
    double sum = 0, bytes = 0, n = NAN;
    const char *last = NULL;
    char after[64];
    size_t v;
    for (v = 0; v < V_COUNT; v++) {
        const res_meas *m;
        if (fs_v[v].run != FS_RUN_STAGE) continue;
        if (!(m = fs_meas(r, FS_MAIN_PRE, fs_v[v].key))) return 0;
        sum += m->stats.median;
        bytes += m->bytes;
        n = (double)m->n;
        last = fs_v[v].key;
    }
    if (!last) return 0;
    snprintf(after, sizeof after, FS_MAIN_PRE "%s", last);
    {
        double vals[] = { n, bytes };
        return fs_fields(fs_derive(r, &fs_derived[FS_DK_STAGES], NULL, 0, NULL, 0, sum, after),
                         names, vals, FS_NF(names));
    }
}

/* The fastest warm version with FS_FUSED and FS_SWEEP at "<prefix>", or NULL. */
static const res_meas *fs_best_fused(const results *r, const char *prefix)
{
    const res_meas *best = NULL;
    size_t v;
    for (v = 0; v < V_COUNT; v++) {
        const res_meas *m;
        if ((fs_v[v].roles & (FS_FUSED | FS_SWEEP)) != (FS_FUSED | FS_SWEEP)) continue;
        m = fs_meas(r, prefix, fs_v[v].key);
        if (m && (!best || m->stats.median < best->stats.median)) best = m;
    }
    return best;
}

/* What sets the time at one n of the sweep: the launch while the best
 * fused version takes less than twice its time at the first n; below 90%
 * of the floor with under 64 MB moved, too few bytes in flight; below it
 * with more, the tail and the arithmetic; else the floor. */
static const char *fs_reading(double best_ms, double first_ms, double gbs, double floor_gbs, double bytes)
{
    if (best_ms < 2.0 * first_ms) return "launch: the time is a launch's fixed cost";
    if (gbs < 0.9 * floor_gbs && bytes < 64e6) return "too few bytes in flight to reach the floor";
    if (gbs < 0.9 * floor_gbs) return "below the floor: the tail and the arithmetic";
    return "at the floor";
}

/* "sweep.n=N" for the sweep's staged measurement st; *first_ms is the best
 * fused time at the first n (set on the first call, NaN before). */
static int fs_sweep_at(results *r, const res_meas *st, double *first_ms)
{
    static const char *const names[] = { "n", "staged_ms", "fused_ms", "us_per_launch",
                                         "best_fused_gbs", "floor_gbs", "best_over_floor" };
    char prefix[48], key[48], n[32], at[32];
    const char *part = n, *npart = at;
    const res_meas *fu, *best;
    double floor_gbs, gbs, kernels = fs_dnum(r, FS_D_PREDICTIONS, "staged_kernels");
    fs_sweep_pre(prefix, (double)st->n);
    snprintf(n, sizeof n, "%ld", st->n);
    sch_fill(key, sizeof key, NULL, FS_D_FLOOR_N, &part, 1);
    fu = fs_meas(r, prefix, "fused");
    best = fs_best_fused(r, prefix);
    if (!fu || !best) return 0;
    if (isnan(*first_ms)) *first_ms = best->stats.median;
    floor_gbs = fs_dval(r, key);
    gbs = sec_gbs(best);
    {
        double vals[] = { (double)st->n, st->stats.median, fu->stats.median,
                          st->stats.median * 1000.0 / kernels, gbs, floor_gbs, gbs / floor_gbs };
        sec_commas(at, sizeof at, (double)st->n);
        return fs_fields(fs_derive(r, &fs_derived[FS_DK_SWEEP_N], &part, 1, &npart, 1,
                                   st->stats.median / fu->stats.median,
                                   fs_reading(best->stats.median, *first_ms, gbs, floor_gbs, best->bytes)),
                         names, vals, FS_NF(names));
    }
}

static int fs_sweep_readings(results *r)
{
    double first_ms = NAN;
    size_t i;
    for (i = 0; i < r->nm; i++)
        if (fs_is_sweep(&r->m[i]) && fs_sweep_at(r, &r->m[i], &first_ms) != 0) return -1;
    return 0;
}

/* "sweep.within": from which n on staged/fused stays within FS_WITHIN_PCT % of the
 * byte ratio (NaN: it does not at the largest n), with the first and the
 * last n's figures. Nothing without a sweep. */
static int fs_sweep_within(results *r)
{
    static const char *const names[] = { "tolerance", "first_n", "first_ratio", "last_n",
                                         "last_ratio", "last_staged_gbs", "last_fused_gbs" };
    const double tol = FS_WITHIN_PCT / 100.0, byte_ratio = fs_dval(r, FS_D_PREDICTIONS);
    double within = NAN, first_n = NAN, first_ratio = NAN, last_n = NAN, last_ratio = NAN;
    char prefix[48];
    size_t i;
    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        if (strcmp(d->section, FS) != 0 || strncmp(d->key, FS_D_SWEEP_N, FS_HEAD(FS_D_SWEEP_N)) != 0)
            continue;
        last_n = res_derived_num(d, "n");
        last_ratio = d->value;
        if (isnan(first_n)) {
            first_n = last_n;
            first_ratio = last_ratio;
        }
        if (fabs(last_ratio - byte_ratio) / byte_ratio <= tol) {
            if (isnan(within)) within = last_n;
        } else {
            within = NAN;
        }
    }
    if (isnan(last_n)) return 0;
    fs_sweep_pre(prefix, last_n);
    {
        double vals[] = { tol, first_n, first_ratio, last_n, last_ratio,
                          sec_gbs(fs_meas(r, prefix, "staged")), sec_gbs(fs_meas(r, prefix, "fused")) };
        return fs_fields(fs_derive(r, &fs_derived[FS_DK_WITHIN], NULL, 0, NULL, 0, within, ""),
                         names, vals, FS_NF(names));
    }
}

/* Section launch's device-side cost of an empty kernel on shape
 * (launch.h), its median in us; NaN where launch did not run. */
static double fs_launch_us(const results *r, int shape)
{
    char key[64];
    return fs_med(res_find(r, LA, la_shape_key(key, sizeof key, LA_K_DEVICE, shape)));
}

/* "held": which prediction held at the main size, with section launch's
 * empty kernel on the chain's grid where launch ran (NaN where not). */
static int fs_held(results *r)
{
    static const char *const names[] = { "staged_pair", "pair_fused", "extra_us", "bytes_us",
                                         "staged_gbs", "fused_gbs", "grid_us", "one_us",
                                         "grid_blocks", "extra_grids", "extra_grids_us" };
    const res_meas *ms = fs_meas(r, FS_MAIN_PRE, "staged"), *mf = fs_meas(r, FS_MAIN_PRE, "fused");
    const res_meas *mp = fs_meas(r, FS_MAIN_PRE, "pair");
    double roof = fs_dval(r, FS_D_COPY_FLOOR), t_s, t_f, t_p, grid_us, extra_grids;
    if (!ms || !mf) return 0;
    t_s = ms->stats.median;
    t_f = mf->stats.median;
    t_p = fs_med(mp);
    grid_us = fs_launch_us(r, LA_SHAPE_GRID);
    extra_grids = fs_dnum(r, FS_D_PREDICTIONS, "staged_kernels") - fs_dnum(r, FS_D_PREDICTIONS, "fused_kernels");
    {
        double vals[] = { t_s / t_p, t_p / t_f, (t_s - t_f) * 1000.0,
                          fs_dnum(r, FS_D_PREDICTIONS, "extra_bytes") * (double)ms->n / roof / 1e3,
                          sec_gbs(ms), sec_gbs(mf), grid_us, fs_launch_us(r, LA_SHAPE_1X1),
                          fs_blocks((size_t)ms->n, FS_BLOCK), extra_grids, extra_grids * grid_us };
        double byte_ratio = fs_dval(r, FS_D_PREDICTIONS);
        return fs_fields(fs_derive(r, &fs_derived[FS_DK_HELD], NULL, 0, NULL, 0, t_s / t_f,
                                   t_s / t_f > byte_ratio ? "exceeds the byte ratio"
                                   : "falls short of the byte ratio"), names, vals, FS_NF(names));
    }
}

/* "held.wide": the fastest fused-wide<K> at the main size against the
 * copy floor there. Nothing when no fused-wide version was timed. */
static int fs_held_wide(results *r)
{
    static const char *const names[] = { "width", "gbs", "floor_gbs", "ms" };
    const res_meas *best = NULL;
    int best_v = -1;
    size_t v;
    for (v = 0; v < V_COUNT; v++) {
        const res_meas *m;
        if (fs_v[v].run != FS_RUN_WIDE || !(m = fs_meas(r, FS_MAIN_PRE, fs_v[v].key))) continue;
        if (!best || m->stats.median < best->stats.median) {
            best = m;
            best_v = (int)v;
        }
    }
    if (!best) return 0;
    {
        double floor_gbs = fs_dval(r, FS_D_FLOOR_MAIN), gbs = sec_gbs(best);
        double vals[] = { fs_v[best_v].arg, gbs, floor_gbs, best->stats.median };
        const sch_key *k = &fs_derived[FS_DK_HELD_WIDE];     /* its name holds <K>: as it is */
        return fs_fields(res_derive(r, FS, k->key, k->name, gbs / floor_gbs, k->unit,
                                    fs_v[best_v].key), names, vals, FS_NF(names));
    }
}

int fs_conclude(results *r, double l2_bytes)
{
    if (fs_floors(r) != 0 || fs_copy_floor(r, l2_bytes) != 0 || fs_stages_summed(r) != 0 ||
        fs_sweep_readings(r) != 0 || fs_sweep_within(r) != 0 || fs_held(r) != 0 ||
        fs_held_wide(r) != 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------ answers --- */

/* "answer.fusion": staged over fused at the main size, with the ratio's
 * range from the two intervals, against the byte model's prediction, which
 * prediction held, and the time fusing saves there. */
void fs_answers(results *r)
{
    const sch_key *k = &fs_derived[FS_DK_ANSWER];
    const res_derived *held = res_derived_find(r, FS, FS_D_HELD);
    const res_derived *pred = res_derived_find(r, FS, FS_D_PREDICTIONS);
    const res_meas *st = fs_meas(r, FS_MAIN_PRE, "staged"), *fu = fs_meas(r, FS_MAIN_PRE, "fused");
    char a[32], b[32], c[32], e[32], g[32];

    if (!held || !st || !fu || fu->stats.ci_low <= 0) return;
    an_store(r, FS, FS_ANSWER, k->name, held->value, k->unit,
             "%sx [%s, %s] (bytes: %s), %s; saves %s ms",
             an_num(a, sizeof a, held->value),
             an_num(b, sizeof b, st->stats.ci_low / fu->stats.ci_high),
             an_num(c, sizeof c, st->stats.ci_high / fu->stats.ci_low),
             an_num(e, sizeof e, pred ? pred->value : NAN), held->text,
             an_num(g, sizeof g, st->stats.median - fu->stats.median));
}

/* ------------------------------------------------------------ schema --- */

/* The rows of every version (main.<key> and, where the sweep times it,
 * n=<N>.<key>, each warm and L2-cold), the run's figures with the check n
 * filled in, and the derived entries. */
void fs_schema(sch_out *o)
{
    char key[64], name[160], desc[160], at[32];
    const char *part = at;
    size_t v;
    int sweep, cold;

    sec_commas(at, sizeof at, (double)FS_CHECK_N);
    sch_fill(desc, sizeof desc, NULL, fs_keys[FS_K_BITWISE_COUNT].desc, &part, 1);
    sch_put(o, NULL, &fs_keys[FS_K_BITWISE_COUNT], desc);
    sch_put(o, NULL, &fs_keys[FS_K_BITWISE_MAX], NULL);
    for (sweep = 0; sweep < 2; sweep++)
        for (v = 0; v < V_COUNT; v++) {
            if (sweep && !(fs_v[v].roles & FS_SWEEP)) continue;
            for (cold = 0; cold < 2; cold++) {
                sch_key k = *fs_row(cold);
                fs_row_names(v, cold, sweep ? FS_SWEEP_PRE : FS_MAIN_PRE, key, name);
                k.key = key;
                k.name = name;
                sch_put(o, NULL, &k, NULL);
            }
        }
    sch_put_table(o, NULL, &fs_keys[FS_K_REGS], FS_NKEYS - FS_K_REGS);
    sch_derived(o);
    sch_put_table(o, NULL, fs_derived, FS_NDKEYS);
}
