/* fusion.c: section "fusion": one elementwise chain of four stages (scale
 * and bias, GELU, add residual, clamp) at three fusion depths and six
 * widths, against the copy floor measured in the same process; which
 * prediction held, launches or bytes (lesson "CUDA kernel fusion and what a
 * launch really costs"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtc.h"
#include "section.h"
#include "timing.h"

#define FS "fusion"
#define FS_MAIN_N 16777216u
#define FS_CHECK_N 1049187u      /* odd, so every bounds check fires */
#define FS_NW 6

static const int fs_widths[FS_NW] = { 1, 2, 4, 8, 16, 32 };
static const size_t fs_sweep[] = { 1024, 16384, 262144, 4194304, 16777216, 67108864, 268435456 };

/* Versions, in the order the tables list them. */
enum {
    V_COPY, V_COPY4, V_DTOD,                 /* the copy floor candidates */
    V_S1, V_S2, V_S3, V_S4,                  /* the stages, one at a time */
    V_STAGED, V_PAIR, V_FUSED, V_GRAPH,
    V_WIDE,                                  /* + index into fs_widths */
    V_COUNT = V_WIDE + FS_NW
};

/* Each version's kernels, named in the registry, give its bytes and flops
 * per element (the copies: 8 bytes, no arithmetic; cuMemcpyDtoD likewise). */
static const struct { const char *key, *name; const char *k[4]; } fs_v[V_COUNT] = {
    { "copy", "copy kernel, one float per thread", { "copyFloat" } },
    { "copy4", "copy kernel, 16-byte loads", { "copyFloat4" } },
    { "dtod", "cuMemcpyDtoD", { "copyFloat" } },
    { "stage1", "stage 1, scale and bias", { "stageScaleBias" } },
    { "stage2", "stage 2, GELU", { "stageGelu" } },
    { "stage3", "stage 3, add residual", { "stageAddResidual" } },
    { "stage4", "stage 4, clamp", { "stageClamp" } },
    { "staged", "staged chain, timed as one", { "stageScaleBias", "stageGelu", "stageAddResidual", "stageClamp" } },
    { "pair", "pair-fused (1+2, 3+4)", { "pairScaleGelu", "pairResidualClamp" } },
    { "fused", "fused", { "chainFused" } },
    { "graph", "staged chain as a CUDA graph", { "stageScaleBias", "stageGelu", "stageAddResidual", "stageClamp" } },
    { "wide1", "fused-wide<1>", { "chainFused" } }, { "wide2", "fused-wide<2>", { "chainFused" } },
    { "wide4", "fused-wide<4>", { "chainFused" } }, { "wide8", "fused-wide<8>", { "chainFused" } },
    { "wide16", "fused-wide<16>", { "chainFused" } }, { "wide32", "fused-wide<32>", { "chainFused" } },
};

/* Bytes or flops per element of version v, from the registry. */
static double fs_model(int v, int flops)
{
    size_t n = 0;
    while (n < 4 && fs_v[v].k[n]) n++;
    return flops ? kn_flops_of(fs_v[v].k, n) : kn_bytes_of(fs_v[v].k, n);
}

typedef struct fs_ctx {
    sec_ctx *c;
    CUfunction f[V_COUNT];        /* kernels, where a version has one */
    CUfunction s[4];              /* the stages */
    CUfunction p[2];              /* the pair kernels */
    CUdeviceptr x, r, t1, t2, t3, y;
    size_t n;                     /* elements this run */
    size_t cap;                   /* elements each buffer holds */
    CUgraphExec graph;            /* the staged chain at n, captured */
} fs_ctx;

typedef struct fs_unit { fs_ctx *F; int v; } fs_unit;

static unsigned fs_blocks(size_t n, unsigned per)
{
    return (unsigned)((n + per - 1) / per);
}

/* Launch a kernel of signature (in..., out, size_t n), one element a thread. */
static int fs_go(CUfunction f, CUstream s, size_t n, void **params)
{
    CK(drv.cuLaunchKernel(f, fs_blocks(n, 256), 1, 1, 256, 1, 1, 0, s, params, NULL));
    return 0;
fail:
    return -1;
}

static int fs_stage(fs_ctx *F, int k, CUstream s)
{
    void *p1[] = { &F->x, &F->t1, &F->n };
    void *p2[] = { &F->t1, &F->t2, &F->n };
    void *p3[] = { &F->t2, &F->r, &F->t3, &F->n };
    void *p4[] = { &F->t3, &F->y, &F->n };
    void **p[4] = { p1, p2, p3, p4 };
    return fs_go(F->s[k], s, F->n, p[k]);
}

/* Enqueue one run of version v at F->n. */
static int fs_run(void *arg, CUstream s)
{
    fs_unit *u = arg;
    fs_ctx *F = u->F;
    size_t n = F->n, n4 = F->n / 4;
    int v = u->v, k;

    switch (v) {
    case V_COPY: {
        void *p[] = { &F->x, &F->y, &n };
        unsigned b = fs_blocks(n, 256);
        CK(drv.cuLaunchKernel(F->f[V_COPY], b, 1, 1, 256, 1, 1, 0, s, p, NULL));
        return 0;
    }
    case V_COPY4: {
        void *p[] = { &F->x, &F->y, &n4 };
        unsigned b = fs_blocks(n4 ? n4 : 1, 256);
        CK(drv.cuLaunchKernel(F->f[V_COPY4], b, 1, 1, 256, 1, 1, 0, s, p, NULL));
        if (n % 4) {
            /* The tail: the last n % 4 floats with the scalar kernel. */
            CUdeviceptr xt = F->x + 4 * n4 * sizeof(float), yt = F->y + 4 * n4 * sizeof(float);
            size_t nt = n % 4;
            void *pt[] = { &xt, &yt, &nt };
            CK(drv.cuLaunchKernel(F->f[V_COPY], 1, 1, 1, 256, 1, 1, 0, s, pt, NULL));
        }
        return 0;
    }
    case V_DTOD:
        CK(drv.cuMemcpyDtoDAsync(F->y, F->x, n * sizeof(float), s));
        return 0;
    case V_S1: case V_S2: case V_S3: case V_S4:
        return fs_stage(F, v - V_S1, s);
    case V_STAGED:
        for (k = 0; k < 4; k++)
            if (fs_stage(F, k, s) != 0) return -1;
        return 0;
    case V_PAIR: {
        void *pa[] = { &F->x, &F->t1, &n };
        void *pb[] = { &F->t1, &F->r, &F->y, &n };
        if (fs_go(F->p[0], s, n, pa) != 0) return -1;
        return fs_go(F->p[1], s, n, pb);
    }
    case V_FUSED: {
        void *p[] = { &F->x, &F->r, &F->y, &n };
        return fs_go(F->f[V_FUSED], s, n, p);
    }
    case V_GRAPH:
        CK(drv.cuGraphLaunch(F->graph, s));
        return 0;
    default: {
        int K = fs_widths[v - V_WIDE];
        void *p[] = { &F->x, &F->r, &F->y, &n };
        CK(drv.cuLaunchKernel(F->f[v], fs_blocks(n, 256u * (unsigned)K), 1, 1, 256, 1, 1, 0, s, p, NULL));
        return 0;
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
    fs_unit u = { F, V_STAGED };
    int rc = -1, capturing = 0;
    if (F->graph) {
        drv.cuGraphExecDestroy(F->graph);
        F->graph = NULL;
    }
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

/* Every chain version at FS_CHECK_N against the CPU in double precision,
 * then how staged and fused differ bit for bit. Returns 0, 1 or -1. */
static int fs_validate(fs_ctx *F)
{
    size_t n = FS_CHECK_N, i, diff = 0;
    float *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
    float *y = malloc(n * sizeof *y), *ys = malloc(n * sizeof *ys), *yf = malloc(n * sizeof *yf);
    CUstream s = F->c->gpu.stream;
    double maxd = 0;
    int v, failed = 0, rc = -1;

    if (!x || !r || !y || !ys || !yf) goto out;
    kn_fill(x, n, 31);
    kn_fill(r, n, 32);
    for (i = 0; i < n; i++) x[i] *= 3.0f;    /* reach both clamp bounds */
    F->n = n;
    CK(drv.cuMemcpyHtoD(F->x, x, n * sizeof *x));
    CK(drv.cuMemcpyHtoD(F->r, r, n * sizeof *r));
    if (fs_capture(F) != 0) goto out;
    for (v = V_STAGED; v < V_COUNT; v++) {
        fs_unit u = { F, v };
        kn_bad bad;
        char what[128];
        if (fs_poison(F) != 0 || fs_run(&u, s) != 0) goto out;
        CK(drv.cuStreamSynchronize(s));
        kn_poison(y, n);
        CK(drv.cuMemcpyDtoH(y, F->y, n * sizeof *y));
        kn_check_chain(x, r, y, n, &bad);
        snprintf(what, sizeof what, "%s at n = 1,049,187, every element vs the CPU in double", fs_v[v].name);
        if (!sec_check_elems(F->c, FS, what, n, &bad)) failed = 1;
        if (v == V_STAGED) memcpy(ys, y, n * sizeof *y);
        if (v == V_FUSED) memcpy(yf, y, n * sizeof *y);
    }
    for (i = 0; i < n; i++) {
        if (memcmp(&ys[i], &yf[i], sizeof(float)) != 0) {
            double d = fabs((double)ys[i] - (double)yf[i]);
            diff++;
            if (d > maxd) maxd = d;
        }
    }
    {
        double dv = (double)diff, md = maxd;
        if (!res_add(F->c->r, FS, "bitwise.count", "elements where staged and fused differ bitwise",
                     "staged chain's y against the fused kernel's y at n = 1,049,187", RES_WARM,
                     "elements", &dv, 1) ||
            !res_add(F->c->r, FS, "bitwise.max", "largest difference between staged and fused",
                     "the same elements", RES_WARM, "abs", &md, 1))
            goto out;
    }
    rc = failed;
out:
    free(x);
    free(r);
    free(y);
    free(ys);
    free(yf);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* Fill the inputs at F->cap by tiling one host block of random floats. */
static int fs_fill(fs_ctx *F)
{
    size_t block = F->cap < FS_MAIN_N ? F->cap : FS_MAIN_N, off;
    float *h = malloc(block * sizeof *h);
    int rc = -1;
    if (!h) return -1;
    kn_fill(h, block, 41);
    for (off = 0; off < F->cap; off += block) {
        size_t len = F->cap - off < block ? F->cap - off : block;
        CK(drv.cuMemcpyHtoD(F->x + off * sizeof(float), h, len * sizeof(float)));
    }
    kn_fill(h, block, 42);
    for (off = 0; off < F->cap; off += block) {
        size_t len = F->cap - off < block ? F->cap - off : block;
        CK(drv.cuMemcpyHtoD(F->r + off * sizeof(float), h, len * sizeof(float)));
    }
    rc = 0;
fail:
    free(h);
    return rc;
}

/* Time versions vs[0..nv-1] at n, interleaved, in the cache states --cache
 * asks for; store "<prefix><key>" (warm) and "<prefix><key>.cold". */
static int fs_time(fs_ctx *F, size_t n, const int *vs, size_t nv, const char *prefix)
{
    tm_work w[2 * V_COUNT];
    fs_unit u[V_COUNT];
    size_t i, k = 0;
    int states = sec_cache_states(F->c), rc = -1;
    memset(w, 0, sizeof w);
    F->n = n;
    if (fs_capture(F) != 0) return -1;
    for (i = 0; i < nv; i++) {
        u[i] = (fs_unit){ F, vs[i] };
        if ((states & 1) && tm_work_init(&w[k++], fs_run, &u[i], 0) != 0) goto out;
        if ((states & 2) && tm_work_init(&w[k++], fs_run, &u[i], 1) != 0) goto out;
    }
    if (tm_events(F->c->gpu.stream, w, k, F->c->o->warmup) != 0) goto out;
    for (i = 0; i < k; i++) {
        const fs_unit *un = w[i].arg;
        char key[64], name[160];
        res_meas *m;
        snprintf(key, sizeof key, "%s%s%s", prefix, fs_v[un->v].key, w[i].cold ? ".cold" : "");
        snprintf(name, sizeof name, "%s%s", fs_v[un->v].name, w[i].cold ? ", L2 cold" : "");
        m = sec_store_work(F->c, FS, key, name, w[i].cold
                           ? "events around one run, the L2 written over before it, every "
                             "version interleaved with the others"
                           : "events around one run (batched when short), every "
                             "version interleaved with the others",
                           w[i].cold ? RES_L2_COLD : RES_WARM, &w[i]);
        if (!m) goto out;
        m->n = (long)n;
        m->bytes = fs_model(un->v, 0) * (double)n;
        m->flops = fs_model(un->v, 1) * (double)n;
    }
    rc = 0;
out:
    for (i = 0; i < 2 * V_COUNT; i++) tm_work_free(&w[i]);
    return rc;
}

/* The copy floor, a conclusion stored once (derived "fusion/copy_floor"):
 * the best copy rate (GB/s) at any n whose buffers are at least 4x the L2
 * (smaller ones are copied partly within the L2; the main size's buffers
 * are about the L2's size), with that n and cuMemcpyDtoD's rate there. When
 * no n qualifies it falls back to the best copy at the main size (field
 * fallback = 1). Returns 0, or -1 on out of memory or no copy figure. */
static int fs_copy_floor(results *r, double l2_bytes)
{
    double roof = 0, dtod = NAN;
    long roof_n = 0;
    const char *roof_key = "";
    int fallback = 0, pass;
    size_t i;
    res_derived *d;

    for (pass = 0; pass < 2 && roof_n == 0; pass++) {
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            double gbs;
            if (strcmp(m->section, FS) != 0 || m->bytes <= 0 || m->state != RES_WARM) continue;
            if (!strstr(m->key, ".copy") && !strstr(m->key, ".dtod")) continue;
            if (strstr(m->key, ".cold")) continue;
            if (pass == 0 ? (double)m->n < l2_bytes : strncmp(m->key, "main.", 5) != 0) continue;
            gbs = m->bytes / m->stats.median / 1e6;
            if (gbs > roof) {
                roof = gbs;
                roof_n = m->n;
                roof_key = m->key;
            }
        }
        fallback = pass;
    }
    if (roof_n == 0) return -1;
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, FS) == 0 && m->n == roof_n && m->state == RES_WARM &&
            strstr(m->key, ".dtod") && !strstr(m->key, ".cold"))
            dtod = m->bytes / m->stats.median / 1e6;
    }
    {
        char text[96];
        snprintf(text, sizeof text, "%s", roof_key);
        d = res_derive(r, FS, "copy_floor", fallback
                       ? "the best copy at the main size (no n of the sweep has buffers of 4x the L2)"
                       : "the best copy with buffers of at least 4x the L2",
                       roof, "GB/s", text);
    }
    if (!d || res_derived_field(d, "n", (double)roof_n) != 0 ||
        res_derived_field(d, "dtod_gbs", dtod) != 0 ||
        res_derived_field(d, "fallback", fallback) != 0 ||
        res_derived_field(d, "l2_bytes", l2_bytes) != 0)
        return -1;
    return 0;
}

int sec_fusion(sec_ctx *c)
{
    static const char *const exprs[FS_NW] = {
        "chainFusedWide<1>", "chainFusedWide<2>", "chainFusedWide<4>",
        "chainFusedWide<8>", "chainFusedWide<16>", "chainFusedWide<32>"
    };
    static const char *const stages[4] = { "stageScaleBias", "stageGelu", "stageAddResidual", "stageClamp" };
    const size_t *sweep = c->o->sizes_given ? c->o->sizes : fs_sweep;
    size_t nsweep = c->o->sizes_given ? c->o->nsizes : sizeof fs_sweep / sizeof fs_sweep[0];
    char *lowered[FS_NW] = { NULL }, why[512];
    char *src = NULL;
    size_t free_b, total_b, i, need;
    CUmodule mod = NULL, mcopy = NULL;
    rtc_out code;
    fs_ctx F;
    int rc, failed = 0, v, k, maxthreads = 0;
    double load_ms, jit_ms;

    memset(&F, 0, sizeof F);
    memset(&code, 0, sizeof code);
    F.c = c;
    if ((rc = sec_begin(c, FS, 1, 1)) != SEC_OK) return rc;
    drv_set_phase(FS);
    /* Buffers: six of the largest size that fits; sizes beyond are reported. */
    F.cap = FS_MAIN_N > FS_CHECK_N ? FS_MAIN_N : FS_CHECK_N;
    if (drv_mem_info(&free_b, &total_b) != 0) goto fail;
    for (i = 0; i < nsweep; i++) {
        if (c->o->profile || (c->o->quick && !c->o->sizes_given && i != 0 && sweep[i] != FS_MAIN_N))
            continue;
        need = 6 * sweep[i] * sizeof(float);
        if (need + (256u << 20) > free_b) {
            char what[96], detail[200];
            snprintf(what, sizeof what, "n = %zu fits in device memory", sweep[i]);
            snprintf(detail, sizeof detail, "needs %.2f GiB for 6 buffers, %.2f GiB free",
                     (double)need / 1073741824.0, (double)free_b / 1073741824.0);
            res_check_add(c->r, FS, what, 0, detail);
            fprintf(stderr, "harness: " FS ": n = %zu: %s\n", sweep[i], detail);
            failed = 1;
        } else if (sweep[i] > F.cap) {
            F.cap = sweep[i];
        }
    }
    /* The kernels: fusion.cu with its six template instantiations. */
    src = kn_source("fusion.cu", c->o->kernels_dir, why, sizeof why);
    if (!src) {
        fprintf(stderr, "harness: error: kernel source: %s\n", why);
        goto fail;
    }
    if (rtc_compile_named(src, "fusion.cu", c->arch, c->o->format == CLI_FMT_PTX ? RTC_PTX : RTC_CUBIN,
                          NULL, 0, exprs, FS_NW, lowered, &code) != RTC_OK) {
        fprintf(stderr, "harness: error: fusion.cu does not compile:\n%s", code.log ? code.log : "");
        goto fail;
    }
    if (drv_load_image(code.code, -1, &mod, &load_ms, &jit_ms) != 0) goto fail;
    for (k = 0; k < 4; k++) CK(drv.cuModuleGetFunction(&F.s[k], mod, stages[k]));
    CK(drv.cuModuleGetFunction(&F.p[0], mod, "pairScaleGelu"));
    CK(drv.cuModuleGetFunction(&F.p[1], mod, "pairResidualClamp"));
    CK(drv.cuModuleGetFunction(&F.f[V_FUSED], mod, "chainFused"));
    for (k = 0; k < FS_NW; k++) CK(drv.cuModuleGetFunction(&F.f[V_WIDE + k], mod, lowered[k]));
    if (sec_module(c, "copy.cu", &mcopy, NULL, NULL) != 0) goto fail;
    CK(drv.cuModuleGetFunction(&F.f[V_COPY], mcopy, "copyFloat"));
    CK(drv.cuModuleGetFunction(&F.f[V_COPY4], mcopy, "copyFloat4"));
    CK(drv.cuMemAlloc(&F.x, F.cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F.r, F.cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F.t1, F.cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F.t2, F.cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F.t3, F.cap * sizeof(float)));
    CK(drv.cuMemAlloc(&F.y, F.cap * sizeof(float)));

    /* Correctness first, at an odd size. */
    drv_set_phase(FS ": validation");
    rc = fs_validate(&F);
    if (rc < 0) goto fail;
    if (rc > 0) failed = 1;
    if (fs_fill(&F) != 0) goto fail;

    /* Every version at the main size, interleaved. */
    drv_set_phase(FS ": main size");
    {
        int vs[V_COUNT];
        for (v = 0; v < V_COUNT; v++) vs[v] = v;
        if (fs_time(&F, FS_MAIN_N, vs, V_COUNT, "main.") != 0) goto fail;
    }
    /* The n sweep: staged, fused, the widest fused, and the floor. */
    drv_set_phase(FS ": n sweep");
    for (i = 0; i < nsweep; i++) {
        static const int vs[] = { V_COPY, V_COPY4, V_DTOD, V_STAGED, V_FUSED, V_WIDE + 2, V_WIDE + 3 };
        char prefix[48];
        if (sweep[i] > F.cap || c->o->profile) continue;     /* --profile: the main size only */
        /* --quick: the smallest size and the main one only. */
        if (c->o->quick && !c->o->sizes_given && i != 0 && sweep[i] != FS_MAIN_N) continue;
        snprintf(prefix, sizeof prefix, "n=%zu.", sweep[i]);
        if (fs_time(&F, sweep[i], vs, sizeof vs / sizeof vs[0], prefix) != 0) goto fail;
    }
    /* The width sweep: what the compiler gave each width. */
    CK(drv.cuDeviceGetAttribute(&maxthreads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, c->gpu.dev));
    for (k = 0; k < FS_NW; k++) {
        int regs = 0, local = 0, blocks = 0;
        double occ, vals[4];
        char key[64];
        static const char *const what[4] = { "regs", "local", "blocks", "occupancy" };
        static const char *const unit[4] = { "registers", "bytes", "blocks", "fraction" };
        int q;
        CK(drv.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, F.f[V_WIDE + k]));
        CK(drv.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, F.f[V_WIDE + k]));
        CK(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, F.f[V_WIDE + k], 256, 0));
        occ = maxthreads > 0 ? (double)blocks * 256.0 / maxthreads : NAN;
        vals[0] = regs;
        vals[1] = local;
        vals[2] = blocks;
        vals[3] = occ;
        for (q = 0; q < 4; q++) {
            snprintf(key, sizeof key, "width.%d.%s", fs_widths[k], what[q]);
            if (!res_add(c->r, FS, key, key, "cuFuncGetAttribute / "
                         "cuOccupancyMaxActiveBlocksPerMultiprocessor, 256 threads per block",
                         RES_WARM, unit[q], &vals[q], 1))
                goto fail;
        }
    }
    /* The roof: FP32 lanes x 2 (an FMA is two operations) x clock. */
    {
        double lanes = c->gpu.cc_major >= 8 && !(c->gpu.cc_major == 8 && c->gpu.cc_minor == 0) ? 128 : 64;
        double peak = c->gpu.sms * lanes * 2.0 * (double)c->gpu.sm_clock_khz * 1e3 / 1e9;
        res_env_num(c->r, "fp32_peak_gflops", peak);
        res_env_str(c->r, "fp32_peak_source", "SMs x FP32 lanes per SM x 2 x the device's clock rate");
    }
    if (fs_copy_floor(c->r, (double)c->gpu.l2_bytes) != 0) {
        fprintf(stderr, "harness: error: " FS ": no copy floor could be stored (no copy was timed, or out of memory)\n");
        goto fail;
    }
    rc = 0;
    goto out;
fail:
    rc = -1;
out:
    if (F.graph) drv.cuGraphExecDestroy(F.graph);
    if (F.x) drv.cuMemFree(F.x);
    if (F.r) drv.cuMemFree(F.r);
    if (F.t1) drv.cuMemFree(F.t1);
    if (F.t2) drv.cuMemFree(F.t2);
    if (F.t3) drv.cuMemFree(F.t3);
    if (F.y) drv.cuMemFree(F.y);
    if (mod) drv.cuModuleUnload(mod);
    if (mcopy) drv.cuModuleUnload(mcopy);
    for (k = 0; k < FS_NW; k++) free(lowered[k]);
    rtc_out_free(&code);
    free(src);
    drv_set_phase(NULL);
    if (rc < 0) return SEC_FAILED;
    return failed ? SEC_FAILED : SEC_OK;
}
