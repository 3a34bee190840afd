/* launch.c: section "launch": what a launch costs, and which cost a figure
 * is. For an empty kernel on 1 block of 1 thread and on the fusion chain's
 * own grid: the host's submit cost per cuLaunchKernel, the stream's
 * throughput, the device-side cost per launch with the queue filled behind a
 * blocking kernel, launch + synchronize under each context scheduling mode
 * (child processes), a CUDA graph of N empty kernels, and cuLaunchKernelEx. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sections/launch/launch.h"
#include "core/answer.h"
#include "cuda/timing.h"
#include "os/clock.h"
#include "os/phase.h"
#include "run/section.h"
#include "run/section_child.h"

#define LA_SUBMIT 256          /* launches per host-timed submit sample */
#define LA_STREAM 1000         /* launches per stream-throughput sample */
#define LA_BEHIND 256          /* launches queued behind the blocking kernel */
#define LA_GRAPH 1000          /* empty kernels in the graph */
#define LA_CHAIN_N KN_CHAIN_MAIN_N   /* the fusion chain's n: its grid is n / 256 blocks */

#define LA_STR_(x) #x
#define LA_STR(x) LA_STR_(x)       /* a constant's digits, in a description */

/* The descriptions are the measurements' regions. */
const sch_key la_keys[LA_NKEYS] = {
    { "host.ref", "us", RES_WARM, "host speed yardstick: 100,000 steps of an integer recurrence",
      "host clock around the loop, taken before each submit sample" },
    { "submit.<word>", "us", RES_WARM, "host cost of one cuLaunchKernel, <shape>",
      "host clock around " LA_STR(LA_SUBMIT) " back-to-back cuLaunchKernel calls, divided by "
      LA_STR(LA_SUBMIT) "; the queue drained before each sample" },
    { "stream.<word>", "us", RES_WARM, "stream throughput per launch, <shape>",
      "events around " LA_STR(LA_STREAM) " back-to-back launches, divided by " LA_STR(LA_STREAM) },
    { "device.<word>", "us", RES_WARM, "device-side cost per launch, queue full, <shape>",
      "events from the end of a blocking kernel to the last of " LA_STR(LA_BEHIND) " launches "
      "queued behind it, divided by " LA_STR(LA_BEHIND) },
    { "submit_ex.1x1", "us", RES_WARM, "host cost of one cuLaunchKernelEx, 1 block of 1 thread",
      "host clock around " LA_STR(LA_SUBMIT) " back-to-back calls, divided by " LA_STR(LA_SUBMIT) },
    { "graph.instantiate", "ms", RES_FIRST_LAUNCH, "cuGraphInstantiate, " LA_STR(LA_GRAPH)
      " empty kernels", "host clock around it; one sample per instantiation (--rounds), each a "
      "new executable graph" },
    { "graph.launch_host", "us", RES_WARM, "host cost of cuGraphLaunch, " LA_STR(LA_GRAPH) " nodes",
      "host clock around cuGraphLaunch" },
    { "graph.node", "us", RES_WARM, "device time per graph node",
      "events around one graph launch, divided by its " LA_STR(LA_GRAPH) " nodes" },
    { "sync.<word>.launch_sync", "us", RES_PROCESS, "empty launch + cuStreamSynchronize",
      "host clock from before cuLaunchKernel to cuStreamSynchronize returning, 1 block of 1 "
      "thread" },
};

/* The shapes, in LA_SHAPE_ order: the <word> of their keys, the <shape> of
 * their names, their grid. */
static const struct la_shape {
    const char *key, *name;
    unsigned grid, threads;
} la_shapes[LA_NSHAPES] = {
    { "1x1", "1 block of 1 thread", 1, 1 },
    { "grid", "the chain's grid, 65,536 blocks of 256", LA_CHAIN_N / 256, 256 },
};

const char *la_shape_key(char *buf, size_t len, int k, int shape)
{
    sch_fill(buf, len, NULL, la_keys[k].key, &la_shapes[shape].key, 1);
    return buf;
}

typedef struct la_ctx {
    sec_ctx *c;
    CUfunction empty, block;
    unsigned grid;             /* blocks of the shape being measured */
    unsigned threads;
    int use_ex;                /* launch with cuLaunchKernelEx */
} la_ctx;

/* One empty launch of the current shape. */
static int la_one(void *arg, CUstream s)
{
    la_ctx *L = arg;
    if (L->use_ex) {
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDimX = L->grid;
        cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = L->threads;
        cfg.blockDimY = cfg.blockDimZ = 1;
        cfg.hStream = s;
        CK(drv.cuLaunchKernelEx(&cfg, L->empty, NULL, NULL));
    } else {
        CK(drv.cuLaunchKernel(L->empty, L->grid, 1, 1, L->threads, 1, 1, 0, s, NULL, NULL));
    }
    return 0;
fail:
    return -1;
}

/* Samples of one launch figure: the stopping rule decides how many. */
typedef struct la_samples {
    double *us;        /* tm_capacity() slots */
    size_t n;
    int noisy;
} la_samples;

/* Store n samples in microseconds. */
static res_meas *la_store(sec_ctx *c, const char *key, const char *name, const char *region,
                          const double *us, size_t n, long batch)
{
    res_meas *m = res_add(c->r, LA, key, name, region, RES_WARM, "us", us, n);
    if (m) m->batch = batch;
    return m;
}

/* The same for a la_samples, with its noisy flag. */
static res_meas *la_store_s(sec_ctx *c, const char *key, const char *name, const char *region,
                            const la_samples *x, long batch)
{
    res_meas *m = la_store(c, key, name, region, x->us, x->n, batch);
    if (m) m->noisy = x->noisy;
    return m;
}

/* Store x as key k of la_keys for shape (la_shape_key), under k's name for
 * that shape and k's region. */
static res_meas *la_store_shape(sec_ctx *c, int k, int shape, const la_samples *x, long batch)
{
    char key[64], name[160];
    sch_fill(name, sizeof name, NULL, la_keys[k].name, &la_shapes[shape].name, 1);
    return la_store_s(c, la_shape_key(key, sizeof key, k, shape), name, la_keys[k].desc, x, batch);
}

/* The host's own speed, as a yardstick for the host-side figures: the host
 * clock around LA_REF_STEPS steps of a dependent integer recurrence, in us.
 * When two runs' launch costs differ, this says whether the CPU did too. */
#define LA_REF_STEPS 100000u
static double la_host_ref(void)
{
    volatile unsigned sink;
    unsigned x = 12345u, k;
    double t0 = clk_now_ms();
    for (k = 0; k < LA_REF_STEPS; k++) x = x * 1664525u + 1013904223u;
    sink = x;
    (void)sink;
    return (clk_now_ms() - t0) * 1000.0;
}

/* Host cost of one cuLaunchKernel: the host clock around LA_SUBMIT
 * back-to-back calls, the queue drained before each sample, until the
 * stopping rule ends it. When ref is not NULL, ref->us[i] is la_host_ref()
 * taken just before sample i. */
static int la_submit(la_ctx *L, la_samples *x, la_samples *ref)
{
    int j;
    CUstream s = L->c->gpu.stream;
    double start = clk_now_ms();
    x->n = 0;
    do {
        double t0;
        if (ref) ref->us[x->n] = la_host_ref();
        CK(drv.cuStreamSynchronize(s));
        t0 = clk_now_ms();
        for (j = 0; j < LA_SUBMIT; j++)
            if (la_one(L, s) != 0) return -1;
        x->us[x->n++] = (clk_now_ms() - t0) * 1000.0 / LA_SUBMIT;
    } while (tm_more(x->us, x->n, start, &x->noisy));
    if (ref) {
        ref->n = x->n;
        ref->noisy = 0;
    }
    CK(drv.cuStreamSynchronize(s));
    return 0;
fail:
    return -1;
}

/* Stream throughput: events around LA_STREAM back-to-back launches. */
static int la_stream(la_ctx *L, la_samples *x)
{
    CUstream s = L->c->gpu.stream;
    CUevent a = NULL, b = NULL;
    double start = clk_now_ms();
    int j, rc = -1;
    CK(drv.cuEventCreate(&a, CU_EVENT_DEFAULT));
    CK(drv.cuEventCreate(&b, CU_EVENT_DEFAULT));
    x->n = 0;
    do {
        float ms = 0;
        CK(drv.cuStreamSynchronize(s));
        CK(drv.cuEventRecord(a, s));
        for (j = 0; j < LA_STREAM; j++)
            if (la_one(L, s) != 0) goto fail;
        CK(drv.cuEventRecord(b, s));
        CK(drv.cuEventSynchronize(b));
        CK(drv.cuEventElapsedTime(&ms, a, b));
        x->us[x->n++] = (double)ms * 1000.0 / LA_STREAM;
    } while (tm_more(x->us, x->n, start, &x->noisy));
    rc = 0;
fail:
    if (a) drv.cuEventDestroy(a);
    if (b) drv.cuEventDestroy(b);
    return rc;
}

/* Device-side cost per launch: LA_BEHIND launches queued behind a kernel
 * that spins on a host-mapped flag, timed by events from the end of the
 * blocking kernel to the last launch. Every kernel here was launched before
 * (a first launch queued behind the blocker could wait on lazy loading). */
static int la_behind(la_ctx *L, volatile int *flag, CUdeviceptr dflag, CUdeviceptr dtimed,
                     la_samples *x, int *timed_out)
{
    double start = clk_now_ms();
    CUstream s = L->c->gpu.stream;
    unsigned long long limit = 2000000000ull;   /* 2 s: a mistake cannot hang the run */
    void *params[] = { &dflag, &limit, &dtimed };
    CUevent a = NULL, b = NULL;
    int j, rc = -1;
    /* Test hook: a kernel that never ends unless released, and no release,
     * so --kernel-timeout must stop the run (and release it). */
    int hang = getenv("HARNESS_TEST_KERNEL_HANG") != NULL;

    if (hang) limit = ~0ull;

    CK(drv.cuEventCreate(&a, CU_EVENT_DEFAULT));
    CK(drv.cuEventCreate(&b, CU_EVENT_DEFAULT));
    x->n = 0;
    do {
        float ms = 0;
        CK(drv.cuStreamSynchronize(s));
        flag[0] = 0;
        flag[1] = 0;
        __sync_synchronize();
        CK(drv.cuLaunchKernel(L->block, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
        CK(drv.cuEventRecord(a, s));
        for (j = 0; j < LA_BEHIND; j++)
            if (la_one(L, s) != 0) goto fail;
        CK(drv.cuEventRecord(b, s));
        __sync_synchronize();
        /* Test hook: never release, so the kernel's own time limit must. */
        if (!getenv("HARNESS_TEST_NO_RELEASE") && !hang) flag[0] = 1;
        __sync_synchronize();
        CK(drv.cuEventSynchronize(b));
        CK(drv.cuEventElapsedTime(&ms, a, b));
        if (flag[1]) *timed_out = 1;
        x->us[x->n++] = (double)ms * 1000.0 / LA_BEHIND;
    } while (tm_more(x->us, x->n, start, &x->noisy));
    rc = 0;
fail:
    flag[0] = 1;    /* the blocking kernel is always released */
    __sync_synchronize();
    drv.cuStreamSynchronize(s);
    if (a) drv.cuEventDestroy(a);
    if (b) drv.cuEventDestroy(b);
    return rc;
}

/* A graph of LA_GRAPH empty kernels, captured from the stream. */
static int la_graph(la_ctx *L, double *inst_ms, la_samples *host, la_samples *node)
{
    CUstream s = L->c->gpu.stream;
    CUgraph g = NULL;
    CUgraphExec ge = NULL;
    CUevent a = NULL, b = NULL;
    double t0, start;
    int i, j, more, rc = -1, capturing = 0;

    CK(drv.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    capturing = 1;
    for (j = 0; j < LA_GRAPH; j++)
        if (la_one(L, s) != 0) goto fail;
    CK(drv.cuStreamEndCapture(s, &g));
    capturing = 0;
    /* Instantiate --rounds times (each a new executable graph, destroyed
     * but for the last): one sample each. */
    for (i = 0; i < L->c->o->rounds; i++) {
        if (ge) {
            CK(drv.cuGraphExecDestroy(ge));
            ge = NULL;
        }
        t0 = clk_now_ms();
        CK(drv.cuGraphInstantiateWithFlags(&ge, g, 0));
        inst_ms[i] = clk_now_ms() - t0;
    }
    CK(drv.cuEventCreate(&a, CU_EVENT_DEFAULT));
    CK(drv.cuEventCreate(&b, CU_EVENT_DEFAULT));
    for (i = 0; i < 3; i++) CK(drv.cuGraphLaunch(ge, s));    /* warm-up */
    CK(drv.cuStreamSynchronize(s));
    host->n = node->n = 0;
    start = clk_now_ms();
    do {
        float ms = 0;
        int nz = 0;
        CK(drv.cuStreamSynchronize(s));
        CK(drv.cuEventRecord(a, s));
        t0 = clk_now_ms();
        CK(drv.cuGraphLaunch(ge, s));
        host->us[host->n++] = (clk_now_ms() - t0) * 1000.0;
        CK(drv.cuEventRecord(b, s));
        CK(drv.cuEventSynchronize(b));
        CK(drv.cuEventElapsedTime(&ms, a, b));
        node->us[node->n++] = (double)ms * 1000.0 / LA_GRAPH;
        /* Both figures must settle: go on while either wants more. */
        more = tm_more(host->us, host->n, start, &host->noisy);
        more = tm_more(node->us, node->n, start, &nz) || more;
        node->noisy = nz;
    } while (more);
    rc = 0;
fail:
    /* A capture left open would make the stream refuse all later work. */
    if (capturing) drv.cuStreamEndCapture(s, &g);
    if (s) drv.cuStreamSynchronize(s);
    if (a) drv.cuEventDestroy(a);
    if (b) drv.cuEventDestroy(b);
    if (ge) drv.cuGraphExecDestroy(ge);
    if (g) drv.cuGraphDestroy(g);
    return rc;
}

/* Launch + synchronize under each scheduling mode, each in its own child
 * (the primary context's flags are set before it becomes active). */
static int la_sched(sec_ctx *c)
{
    static const struct { cli_child kind; const char *prefix; } modes[] = {
        { CLI_CHILD_SCHED_SPIN, "sync.spin." },
        { CLI_CHILD_SCHED_YIELD, "sync.yield." },
        { CLI_CHILD_SCHED_BLOCKING, "sync.blocking." },
    };
    char a[4][64];
    const char *args[4];
    size_t i, k;
    int round, failed = 0;

    for (round = 0; round < c->o->rounds; round++) {
        for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            results child;
            char detail[512];
            int ok;
            snprintf(a[0], sizeof a[0], "--child=%s", cli_child_name(modes[i].kind));
            snprintf(a[1], sizeof a[1], "--device=%d", c->o->device);
            snprintf(a[2], sizeof a[2], "--reps=%d", c->o->reps);
            snprintf(a[3], sizeof a[3], "--arch=%s", c->arch);
            for (k = 0; k < 4; k++) args[k] = a[k];
            sec_status cs = sec_run_child(c, args, 4, NULL, 0, &child, detail, sizeof detail);
            if (cs == SEC_ERROR) return -1;
            ok = cs == SEC_OK;
            if (!ok) {
                res_check_add(c->r, LA, "scheduling-mode child ran to the end", 0, detail);
                failed = 1;
            } else if (sec_accumulate(c->r, LA, modes[i].prefix, &child) != 0) {
                res_free(&child);
                return -1;
            }
            res_free(&child);
        }
    }
    return failed;
}

int sec_launch_child(const cli_opts *o, long long t_main_ns)
{
    (void)t_main_ns;
    sec_ctx c;
    results r;
    CUmodule mod = NULL;
    la_ctx L;
    double *us = NULL;
    unsigned want;
    int i, rc = 1;

    memset(&c, 0, sizeof c);
    memset(&L, 0, sizeof L);
    res_init(&r);
    c.o = o;
    c.r = &r;
    want = o->child == CLI_CHILD_SCHED_SPIN ? CU_CTX_SCHED_SPIN
         : o->child == CLI_CHILD_SCHED_YIELD ? CU_CTX_SCHED_YIELD : CU_CTX_SCHED_BLOCKING_SYNC;
    drv_set_sched(want);
    ph_set(LA ": scheduling-mode child");
    /* The wait is what this child measures: the driver's own blocking call,
     * under the mode asked for. The parent's --child-timeout bounds it. */
    drv_set_kernel_timeout(0);
    /* NVRTC only if empty.cu is not in the run's compile cache (the parent
     * checked NVRTC and compiled it). */
    if (sec_need_gpu(&c) != SEC_OK || sec_need_rtc_later(&c) != SEC_OK) {
        fprintf(stderr, "harness: %s%s\n", c.gpu_why, c.rtc_why);
        goto out;
    }
    if ((c.gpu.ctx_flags & CU_CTX_SCHED_MASK) != want) {
        fprintf(stderr, "harness: " LA ": asked for scheduling flags %u, the context has %u\n",
                want, c.gpu.ctx_flags & CU_CTX_SCHED_MASK);
        goto out;
    }
    if (sec_module(&c, "empty.cu", &mod, NULL, NULL) != 0) goto out;
    CK(drv.cuModuleGetFunction(&L.empty, mod, "doNothing"));
    L.c = &c;
    L.grid = L.threads = 1;
    us = calloc((size_t)o->reps, sizeof *us);
    if (!us) goto out;
    for (i = 0; i < o->warmup + 1; i++)
        if (la_one(&L, c.gpu.stream) != 0) goto out;
    CK(drv.cuStreamSynchronize(c.gpu.stream));
    for (i = 0; i < o->reps; i++) {
        double t0 = clk_now_ms();
        if (la_one(&L, c.gpu.stream) != 0) goto out;
        CK(drv.cuStreamSynchronize(c.gpu.stream));
        us[i] = (clk_now_ms() - t0) * 1000.0;
    }
    if (!la_store(&c, "launch_sync", la_keys[LA_K_SYNC].name, la_keys[LA_K_SYNC].desc, us,
                  (size_t)o->reps, 1))
        goto out;
    rc = 0;
out:
    if (mod) drv.cuModuleUnload(mod);
    if (c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&c.gpu);
    rc = sec_child_end(&r, rc);
    res_free(&r);
    free(us);
    return rc;
fail:
    rc = 1;
    goto out;
}

/* Every launch shape: its host submit cost, its stream throughput and its
 * device cost behind the blocking kernel (flag, dflag: the blocker's flag),
 * stored; the reference submit beside the first. *timed_out set where the
 * blocker released itself. Returns 0, or -1 on failure (said). */
static int la_shapes_run(sec_ctx *c, la_ctx *L, volatile int *flag, CUdeviceptr dflag, la_samples *s1,
                         la_samples *s2, int *timed_out)
{
    size_t i;
    int j;

    for (i = 0; i < LA_NSHAPES; i++) {
        L->grid = la_shapes[i].grid;
        L->threads = la_shapes[i].threads;
        L->use_ex = 0;
        for (j = 0; j < c->o->warmup + 1; j++)
            if (la_one(L, c->gpu.stream) != 0) return -1;
        if (la_submit(L, s1, i == 0 ? s2 : NULL) != 0) return -1;
        if (i == 0) {
            res_meas *ref = la_store_s(c, la_keys[LA_K_REF].key, la_keys[LA_K_REF].name,
                                       la_keys[LA_K_REF].desc, s2, 1);
            if (!ref) return -1;
            ref->host_only = 1;
        }
        if (!la_store_shape(c, LA_K_SUBMIT, (int)i, s1, LA_SUBMIT)) return -1;
        /* Stream throughput: events around LA_STREAM launches. */
        if (la_stream(L, s2) != 0) return -1;
        if (!la_store_shape(c, LA_K_STREAM, (int)i, s2, LA_STREAM)) return -1;
        if (la_behind(L, flag, dflag, dflag + sizeof(int), s1, timed_out) != 0) return -1;
        if (!la_store_shape(c, LA_K_DEVICE, (int)i, s1, LA_BEHIND)) return -1;
    }
    return 0;
}

/* The blocker released itself: a failed check, said on stderr. */
static void la_timed_out(sec_ctx *c)
{
    res_check_add(c->r, LA, "the blocking kernel was released by the host", 0,
                  "it reached its 2 s time limit and let the queue run; the device figures "
                  "above include that wait");
    fprintf(stderr, "harness: " LA ": the blocking kernel timed out after 2 s and released "
            "itself; its figures are not per-launch costs\n");
}

/* cuLaunchKernelEx of 1 block of 1 thread, then a graph of LA_GRAPH empty
 * kernels (its instantiation a round), stored. Returns 0, or -1 on failure
 * (said). */
static int la_ex_and_graph(sec_ctx *c, la_ctx *L, la_samples *s1, la_samples *s2)
{
    double *inst = NULL;
    int rc = -1;

    L->grid = L->threads = 1;
    L->use_ex = 1;
    if (la_submit(L, s1, NULL) != 0) return -1;
    if (!la_store_s(c, la_keys[LA_K_SUBMIT_EX].key, la_keys[LA_K_SUBMIT_EX].name,
                    la_keys[LA_K_SUBMIT_EX].desc, s1, LA_SUBMIT))
        return -1;
    L->use_ex = 0;
    if (!(inst = calloc((size_t)c->o->rounds, sizeof *inst))) return -1;
    if (la_graph(L, inst, s1, s2) == 0 &&
        res_add(c->r, LA, la_keys[LA_K_INSTANTIATE].key, la_keys[LA_K_INSTANTIATE].name,
                la_keys[LA_K_INSTANTIATE].desc, la_keys[LA_K_INSTANTIATE].state,
                la_keys[LA_K_INSTANTIATE].unit, inst, (size_t)c->o->rounds) &&
        la_store_s(c, la_keys[LA_K_GRAPH_HOST].key, la_keys[LA_K_GRAPH_HOST].name,
                   la_keys[LA_K_GRAPH_HOST].desc, s1, 1) &&
        la_store_s(c, la_keys[LA_K_GRAPH_NODE].key, la_keys[LA_K_GRAPH_NODE].name,
                   la_keys[LA_K_GRAPH_NODE].desc, s2, LA_GRAPH))
        rc = 0;
    free(inst);
    return rc;
}

sec_status sec_launch(sec_ctx *c)
{
    CUmodule me = NULL, ml = NULL;
    CUdeviceptr dflag = 0;
    int *hflag = NULL;             /* the allocation */
    volatile int *flag = NULL;     /* the same memory, read by the device */
    la_samples s1 = { NULL, 0, 0 }, s2 = { NULL, 0, 0 };
    int failed = 0, timed_out = 0, rc;
    la_ctx L;

    if ((rc = sec_begin(c, LA, 1, 1)) != SEC_OK) return rc;
    ph_set(LA);
    memset(&L, 0, sizeof L);
    L.c = c;
    s1.us = calloc(tm_capacity(), sizeof *s1.us);
    s2.us = calloc(tm_capacity(), sizeof *s2.us);
    if (!s1.us || !s2.us) goto fail;
    if (sec_module(c, "empty.cu", &me, NULL, NULL) != 0 || sec_module(c, "launch.cu", &ml, NULL, NULL) != 0)
        goto fail;
    CK(drv.cuModuleGetFunction(&L.empty, me, "doNothing"));
    CK(drv.cuModuleGetFunction(&L.block, ml, "blockUntil"));
    CK(drv.cuMemHostAlloc((void **)&hflag, 2 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    flag = hflag;
    drv_hold_flag(flag, c->gpu.stream);    /* released whatever stops the run */
    CK(drv.cuMemHostGetDevicePointer(&dflag, hflag, 0));
    /* Warm every kernel that will be queued behind the blocker, and the
     * blocker itself (with the flag already set, it returns at once). */
    flag[0] = 1;
    flag[1] = 0;
    {
        unsigned long long limit = 1000000ull;
        CUdeviceptr dtimed = dflag + sizeof(int);
        void *params[] = { &dflag, &limit, &dtimed };
        CK(drv.cuLaunchKernel(L.block, 1, 1, 1, 1, 1, 1, 0, c->gpu.stream, params, NULL));
    }
    if (la_shapes_run(c, &L, flag, dflag, &s1, &s2, &timed_out) != 0) goto fail;
    if (timed_out) {
        la_timed_out(c);
        failed = 1;
    }
    if (la_ex_and_graph(c, &L, &s1, &s2) != 0) goto fail;
    rc = la_sched(c);
    if (rc < 0) goto fail;
    if (rc > 0) failed = 1;

    drv_hold_flag(NULL, NULL);
    drv.cuMemFreeHost(hflag);
    drv.cuModuleUnload(me);
    drv.cuModuleUnload(ml);
    free(s1.us);
    free(s2.us);
    ph_set(NULL);
    return failed ? SEC_FAILED : SEC_OK;
fail:
    if (flag) {
        flag[0] = 1;
        __sync_synchronize();
        drv.cuStreamSynchronize(c->gpu.stream);
        drv_hold_flag(NULL, NULL);
        drv.cuMemFreeHost(hflag);
    }
    if (me) drv.cuModuleUnload(me);
    if (ml) drv.cuModuleUnload(ml);
    free(s1.us);
    free(s2.us);
    ph_set(NULL);
    return SEC_FAILED;
}

/* ------------------------------------------------------------ answers --- */

/* "answer.launch": an empty launch of 1 block of 1 thread: the submit on
 * the host (with its interval), back to back on a stream, on the device. */
/* The section's answer, declared (an_store puts AN_PREFIX before its word). */
#define LA_ANSWER "launch"
static const sch_key la_answer = {
    AN_PREFIX LA_ANSWER, "us", RES_WARM, "empty launch",
    "the median host cost of one cuLaunchKernel, 1 block of 1 thread (submit.1x1); text: its "
    "interval, back to back (stream.1x1) and on the device (device.1x1)"
};

void la_answers(results *r)
{
    char a[32], b[32], c[32], e[32], g[32];
    const res_meas *s = res_find(r, LA, la_shape_key(a, sizeof a, LA_K_SUBMIT, LA_SHAPE_1X1));
    const res_meas *q = res_find(r, LA, la_shape_key(a, sizeof a, LA_K_STREAM, LA_SHAPE_1X1));
    const res_meas *d = res_find(r, LA, la_shape_key(a, sizeof a, LA_K_DEVICE, LA_SHAPE_1X1));

    if (!s) return;
    an_store(r, LA, LA_ANSWER, la_answer.name, s->stats.median, la_answer.unit,
             "submit %s us [%s, %s], back to back %s us, device %s us",
             an_num(a, sizeof a, s->stats.median), an_num(b, sizeof b, s->stats.ci_low),
             an_num(c, sizeof c, s->stats.ci_high), an_num(e, sizeof e, q ? q->stats.median : NAN),
             an_num(g, sizeof g, d ? d->stats.median : NAN));
}

void la_schema(sch_out *o)
{
    sch_put_table(o, NULL, la_keys, LA_NKEYS);
    sch_derived(o);
    sch_put(o, NULL, &la_answer, NULL);
}
