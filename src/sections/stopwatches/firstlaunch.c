/* firstlaunch.c: the first launch taken apart (section stopwatches): the
 * child that runs every experiment once in one mode, the parent's rounds
 * of children in both modes, and the conclusions (firstlaunch.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sections/stopwatches/firstlaunch.h"
#include "cuda/rtc.h"
#include "cuda/timing.h"
#include "os/clock.h"
#include "os/phase.h"
#include "run/section_child.h"
#include "run/section_ctx.h"
#include "run/section_vec.h"
#include "sections/stopwatches/stopwatches.h"

#define FL_NMODS 5          /* module 1 and the four loaded after it */
#define FL_NAN_BITS 0x7fc00000u

const char *const fl_modes[FL_NMODES] = { "lazy", "eager" };
const char *const fl_mode_names[FL_NMODES] = { "LAZY", "EAGER" };
const char *const fl_parts[FL_NPARTS] = {
    "surplus", "alone", "context", "load", "module", "left", "load_in_launch", "get_in_launch",
    "fresh"
};

/* One launch's three figures (firstlaunch.h): events around call, the host
 * clock around it, the host clock from before `from` to the sync. */
#define FL_LAUNCH(key, name, call, from)                                                      \
    { key, "ms", RES_PROCESS, name, "event recorded before " call " to event after it" },     \
    { key FL_ENQUEUE, "ms", RES_PROCESS, name ", host clock around the call",                 \
      "host clock around " call " alone" },                                                   \
    { key FL_SYNC, "ms", RES_PROCESS, name ", host clock to the sync",                        \
      "host clock from before " from " to cuStreamSynchronize returning" }
#define FL_LAUNCH1(key, name) FL_LAUNCH(key, name, "cuLaunchKernel", "cuLaunchKernel")
/* A warm figure: launches queued back to back (tm_events, row 4's way). */
#define FL_WARM(key, name)                                                                    \
    { key, "ms", RES_PROCESS, name, "event before to event after one launch, after warm-up; "  \
      "launches queued back to back" }

/* A child's figures, as the parent keeps them: one sample a child, state
 * process (the child stores each in the state it ran in). */
const sch_key fl_keys[FL_NKEYS] = {
    { "load", "ms", RES_PROCESS, "module 1 load", "host clock around cuModuleLoadDataEx" },
    { "get", "ms", RES_PROCESS, "cuModuleGetFunction of vectorAdd", "host clock around it" },
    { "loaded_get", "functions", RES_PROCESS, "vectorAdd loaded after its get", "cuFuncIsLoaded" },
    FL_LAUNCH1("first", "vectorAdd, first launch in the process"),
    { "loaded_launch", "functions", RES_PROCESS, "vectorAdd loaded after its first launch",
      "cuFuncIsLoaded" },
    FL_WARM("warm", "vectorAdd, after warm-up"),
    FL_LAUNCH1("once", "vectorAdd, warm, one launch on an idle stream"),
    { "module2_get", "ms", RES_PROCESS, "cuModuleGetFunction of vectorAdd, module 2",
      "host clock around it" },
    FL_LAUNCH1("module2", "vectorAdd, first launch from a second module"),
    { "functions", "functions", RES_PROCESS, "functions in vector.cu's module",
      "cuModuleGetFunctionCount" },
    { "loaded_load", "functions", RES_PROCESS, "functions loaded after a module load (module 3)",
      "cuFuncIsLoaded of each handle cuModuleEnumerateFunctions gives, right after the load" },
    { "unloaded_loaded", "functions", RES_PROCESS,
      "vectorAdd (module 3, no get) loaded before its launch", "cuFuncIsLoaded" },
    FL_LAUNCH1("unloaded", "vectorAdd, first launch, handle from cuModuleEnumerateFunctions"),
    { "funcload_ms", "ms", RES_PROCESS, "cuFuncLoad of vectorAdd (module 4)",
      "host clock around it" },
    { "funcload_loaded", "functions", RES_PROCESS, "vectorAdd (module 4) loaded before cuFuncLoad",
      "cuFuncIsLoaded" },
    FL_LAUNCH1("funcload", "vectorAdd, first launch after cuFuncLoad"),
    FL_LAUNCH("runtime", "vectorAdd, cuModuleGetFunction + first launch",
              "cuModuleGetFunction and cuLaunchKernel", "cuModuleGetFunction"),
    { "runtime_get", "ms", RES_PROCESS, "cuModuleGetFunction inside the timed launch (module 5)",
      "host clock around it, inside the events" },
    FL_LAUNCH1("second", "vectorScale, first launch (module 1's second kernel)"),
    FL_WARM("second_warm", "vectorScale, after warm-up"),
    FL_LAUNCH1("second_once", "vectorScale, warm, one launch on an idle stream"),
    FL_LAUNCH1("fresh", "vectorAdd, warm, once, into a freshly allocated output"),
};

char *fl_key(char *buf, size_t len, int mode, const char *what)
{
    snprintf(buf, len, FL_FIRST "%s.%s", fl_modes[mode], what);
    return buf;
}

char *fl_part_key(char *buf, size_t len, int mode, int part)
{
    snprintf(buf, len, FL_FIRST "%s." FL_PART "%s", fl_modes[mode], fl_parts[part]);
    return buf;
}

char *fl_where_key(char *buf, size_t len, const char *what)
{
    snprintf(buf, len, FL_FIRST FL_WHERE ".%s", what);
    return buf;
}

/* -------------------------------------------------------------- child --- */

/* The child's state: every handle it holds, released by fl_release. */
typedef struct fl_state {
    sec_ctx c;
    results r;
    const char *mode;          /* "LAZY", "EAGER": the mode in effect */
    rtc_out code;              /* vector.cu, compiled once, loaded as every module */
    CUmodule mod[FL_NMODS];
    CUfunction add, scale;     /* module 1's, by cuModuleGetFunction */
    CUdeviceptr a, b, out, fresh;
    float *ha, *hb;            /* the inputs (pageable) */
    float *pout;               /* pinned: each output copied back here */
    float *ref[2];             /* vectorAdd's, vectorScale's output that matched the CPU */
} fl_state;

/* One launch to time. get_from: cuModuleGetFunction of vectorAdd from it
 * inside the timed region (its host time in get_ms), else f. */
typedef struct fl_launch {
    fl_state *S;
    CUfunction f;
    CUmodule get_from;
    int scale;                 /* vectorScale(a, out, SW_SCALE, n), else vectorAdd(a, b, out, n) */
    CUdeviceptr out;
    double get_ms;
} fl_launch;

static int fl_launch_fn(void *arg, CUstream s)
{
    fl_launch *L = arg;
    fl_state *S = L->S;
    int n = (int)SW_N;
    float k = SW_SCALE;
    unsigned blocks = (unsigned)((SW_N + SEC_BLOCK - 1) / SEC_BLOCK);
    void *add[] = { &S->a, &S->b, &L->out, &n };
    void *scale[] = { &S->a, &L->out, &k, &n };

    if (L->get_from) {
        double t0 = clk_now_ms();
        CK(drv.cuModuleGetFunction(&L->f, L->get_from, "vectorAdd"));
        L->get_ms = clk_now_ms() - t0;
    }
    CK(drv.cuLaunchKernel(L->f, blocks, 1, 1, SEC_BLOCK, 1, 1, 0, s, L->scale ? scale : add, NULL));
    return 0;
fail:
    return -1;
}

/* Store one single-valued figure i (fl_keys) in the state the child took
 * it in. Returns 0, or -1 on out of memory. */
static int fl_one(fl_state *S, int i, res_state state, double v)
{
    const sch_key *k = &fl_keys[i];
    return res_add(&S->r, SW, k->key, k->name, k->desc, state, k->unit, &v, 1) ? 0 : -1;
}

/* 1 in *loaded when f is loaded (cuFuncIsLoaded), else 0. */
static int fl_loaded(CUfunction f, double *loaded)
{
    CUfunctionLoadingState st;
    CK(drv.cuFuncIsLoaded(&st, f));
    *loaded = st == CU_FUNCTION_LOADING_STATE_LOADED;
    return 0;
fail:
    return -1;
}

/* Copy L's output back and check it on every element: bitwise against
 * the kernel's output that matched the CPU reference before, else against
 * the CPU (a match becomes the reference). The check is recorded. */
static int fl_verify(fl_state *S, const fl_launch *L, const char *name)
{
    size_t bytes = SW_N * sizeof(float);
    float **ref = &S->ref[L->scale];
    char what[192];
    kn_bad bad;

    kn_poison(S->pout, SW_N);
    CK(drv.cuMemcpyDtoHAsync(S->pout, L->out, bytes, S->c.gpu.stream));
    CK(drv.cuStreamSynchronize(S->c.gpu.stream));
    snprintf(what, sizeof what, "first launch taken apart (%s): %s, all elements vs CPU", S->mode, name);
    if (*ref && kn_same(*ref, S->pout, SW_N))
        return res_check_add(&S->r, SW, what, 1, "bitwise equal to the output that matched the "
                             "CPU reference on every element");
    if (L->scale) kn_check_scale(S->ha, SW_SCALE, S->pout, SW_N, &bad);
    else kn_check_add(S->ha, S->hb, S->pout, SW_N, &bad);
    if (sec_check_elems(&S->c, SW, what, SW_N, &bad) && !*ref && (*ref = malloc(bytes)) != NULL)
        kn_copy(*ref, S->pout, SW_N);
    return 0;
fail:
    return -1;
}

/* One launch of L between an event pair, on the host clock too (tm_once),
 * its output first written by cuMemsetD32 unless it is fresh: stores
 * figure i (events), i + 1 (FL_ENQUEUE) and i + 2 (FL_SYNC), then checks
 * the output. */
static int fl_time(fl_state *S, fl_launch *L, int i, res_state state, int poison)
{
    CUstream s = S->c.gpu.stream;
    double ev, enq, sync;

    if (poison) CK(drv.cuMemsetD32Async(L->out, FL_NAN_BITS, SW_N, s));
    if (tm_once(s, fl_launch_fn, L, &ev, &enq, &sync) != 0) return -1;
    if (fl_one(S, i, state, ev) != 0) return -1;
    S->r.m[S->r.nm - 1].n = SW_N;
    if (fl_one(S, i + 1, state, enq) != 0 || fl_one(S, i + 2, state, sync) != 0) return -1;
    return fl_verify(S, L, fl_keys[i].name);
fail:
    return -1;
}

/* L warm: launches queued back to back after warm-up (tm_events, row 4's
 * way), stored as figure i; then the output checked. */
static int fl_warm_of(fl_state *S, fl_launch *L, int i)
{
    const sch_key *k = &fl_keys[i];
    tm_work w;
    res_meas *m;

    memset(&w, 0, sizeof w);
    CK(drv.cuMemsetD32Async(L->out, FL_NAN_BITS, SW_N, S->c.gpu.stream));
    if (tm_work_init(&w, fl_launch_fn, L, 0) != 0 ||
        tm_events(S->c.gpu.stream, &w, 1, S->c.o->warmup) != 0)
        goto fail;
    m = sec_store_work(&S->c, SW, k->key, k->name, k->desc, RES_WARM, &w);
    tm_work_free(&w);
    if (!m) return -1;
    m->n = SW_N;
    return fl_verify(S, L, k->name);
fail:
    tm_work_free(&w);
    return -1;
}

/* Load vector.cu's image as module i, on the host clock. */
static int fl_load(fl_state *S, int i, double *ms)
{
    double jit;
    return drv_load_image(S->code.code, -1, &S->mod[i], ms, &jit);
}

/* Module i's functions by cuModuleEnumerateFunctions (no get): how many,
 * how many are loaded, and vectorAdd's handle (NULL when none is named
 * so). Each state is read before any name is asked for. */
static int fl_enumerate(fl_state *S, int i, double *count, double *loaded, CUfunction *add)
{
    CUfunction *fn = NULL;
    unsigned n = 0, j;
    double st;

    *add = NULL;
    *loaded = 0;
    CK(drv.cuModuleGetFunctionCount(&n, S->mod[i]));
    if ((fn = calloc(n ? n : 1, sizeof *fn)) == NULL) {
        fprintf(stderr, "harness: " SW ": out of memory\n");
        return -1;
    }
    CK(drv.cuModuleEnumerateFunctions(fn, n, S->mod[i]));
    for (j = 0; j < n; j++) {
        if (fl_loaded(fn[j], &st) != 0) goto fail;
        *loaded += st;
    }
    for (j = 0; j < n; j++) {
        const char *name = NULL;
        CK(drv.cuFuncGetName(&name, fn[j]));
        if (name && strcmp(name, "vectorAdd") == 0) *add = fn[j];
    }
    *count = n;
    free(fn);
    if (!*add) {
        fprintf(stderr, "harness: " SW ": cuModuleEnumerateFunctions named no vectorAdd\n");
        return -1;
    }
    return 0;
fail:
    free(fn);
    return -1;
}

/* The steps, in order. Each times and stores its figures and checks its
 * outputs; returns 0, or -1 on an error (reported) that ends the child. */

/* vector.cu compiled once; module 1 loaded and both functions got, as the
 * parent's row 3 has them; the buffers (inputs copied in, the output
 * written by cuMemsetD32). */
static int fl_setup(fl_state *S)
{
    const cli_opts *o = S->c.o;
    size_t bytes = SW_N * sizeof(float);
    char why[512], path[4096];
    char *src = kn_source("vector.cu", o->kernels_dir, why, sizeof why);
    double load_ms, t0, get_ms, st;
    int rc;

    if (!src) {
        fprintf(stderr, "harness: error: kernel source: %s\n", why);
        return -1;
    }
    snprintf(path, sizeof path, "%s/vector.cu", o->kernels_dir ? o->kernels_dir : "kernels");
    /* Not measured, but compiled in every child, never read from the run's
     * compile cache: the first child runs before the parent opens the GPU
     * (so before it knows the arch to fill the cache), and a child that
     * loaded NVRTC and compiled must not sit beside ones that did not
     * among one mode's samples. */
    rc = rtc_compile(src, path, S->c.arch, o->format == CLI_FMT_PTX ? RTC_PTX : RTC_CUBIN, NULL, 0,
                     &S->code);
    free(src);
    ph_mark(SW ": first-launch child: - compiled");
    if (rc != RTC_OK) {
        if (rc == RTC_COMPILE_ERROR)
            fprintf(stderr, "harness: error: %s does not compile for %s:\n%s", path, S->c.arch,
                    S->code.log ? S->code.log : "");
        return -1;
    }
    if (fl_load(S, 0, &load_ms) != 0) return -1;
    t0 = clk_now_ms();
    CK(drv.cuModuleGetFunction(&S->add, S->mod[0], "vectorAdd"));
    get_ms = clk_now_ms() - t0;
    if (fl_loaded(S->add, &st) != 0) return -1;
    if (fl_one(S, FL_K_LOAD, RES_FIRST_LAUNCH, load_ms) != 0 ||
        fl_one(S, FL_K_GET, RES_FIRST_LAUNCH, get_ms) != 0 ||
        fl_one(S, FL_K_LOADED_GET, RES_FIRST_LAUNCH, st) != 0)
        return -1;
    CK(drv.cuModuleGetFunction(&S->scale, S->mod[0], "vectorScale"));
    CK(drv.cuMemAlloc(&S->a, bytes));
    CK(drv.cuMemAlloc(&S->b, bytes));
    CK(drv.cuMemAlloc(&S->out, bytes));
    CK(drv.cuMemAllocHost((void **)&S->pout, bytes));
    ph_mark(SW ": first-launch child: - loaded, allocated");
    S->ha = malloc(bytes);
    S->hb = malloc(bytes);
    if (!S->ha || !S->hb) {
        fprintf(stderr, "harness: " SW ": out of host memory\n");
        return -1;
    }
    kn_fill(S->ha, SW_N, 1);
    kn_fill(S->hb, SW_N, 2);
    ph_mark(SW ": first-launch child: - filled");
    CK(drv.cuMemcpyHtoDAsync(S->a, S->ha, bytes, S->c.gpu.stream));
    CK(drv.cuMemcpyHtoDAsync(S->b, S->hb, bytes, S->c.gpu.stream));
    CK(drv.cuMemsetD32Async(S->out, FL_NAN_BITS, SW_N, S->c.gpu.stream));
    CK(drv.cuStreamSynchronize(S->c.gpu.stream));
    return 0;
fail:
    return -1;
}

/* The process's first launch (row 3's), then warm (row 4's way), then one
 * warm launch on an idle stream. */
static int fl_first(fl_state *S)
{
    fl_launch L = { S, S->add, NULL, 0, S->out, 0 };
    double st;

    if (fl_time(S, &L, FL_K_FIRST, RES_FIRST_LAUNCH, 0) != 0 || fl_loaded(S->add, &st) != 0 ||
        fl_one(S, FL_K_LOADED_LAUNCH, RES_FIRST_LAUNCH, st) != 0 || fl_warm_of(S, &L, FL_K_WARM) != 0)
        return -1;
    return fl_time(S, &L, FL_K_ONCE, RES_WARM, 1);
}

/* vectorAdd's first launch from a second module, got before. */
static int fl_module2(fl_state *S)
{
    fl_launch L = { S, NULL, NULL, 0, S->out, 0 };
    double load_ms, t0;

    if (fl_load(S, 1, &load_ms) != 0) return -1;
    t0 = clk_now_ms();
    CK(drv.cuModuleGetFunction(&L.f, S->mod[1], "vectorAdd"));
    if (fl_one(S, FL_K_MODULE2_GET, RES_FIRST_LAUNCH, clk_now_ms() - t0) != 0) return -1;
    return fl_time(S, &L, FL_K_MODULE2, RES_FIRST_LAUNCH, 1);
fail:
    return -1;
}

/* From a third module, the handle cuModuleEnumerateFunctions gives (no
 * get), launched as it is: the module's loading state after its load. */
static int fl_unloaded(fl_state *S)
{
    fl_launch L = { S, NULL, NULL, 0, S->out, 0 };
    double load_ms, count, loaded, st;

    if (fl_load(S, 2, &load_ms) != 0 || fl_enumerate(S, 2, &count, &loaded, &L.f) != 0 ||
        fl_loaded(L.f, &st) != 0)
        return -1;
    if (fl_one(S, FL_K_FUNCTIONS, RES_FIRST_LAUNCH, count) != 0 ||
        fl_one(S, FL_K_LOADED_LOAD, RES_FIRST_LAUNCH, loaded) != 0 ||
        fl_one(S, FL_K_UNLOADED_LOADED, RES_FIRST_LAUNCH, st) != 0)
        return -1;
    return fl_time(S, &L, FL_K_UNLOADED, RES_FIRST_LAUNCH, 1);
}

/* From a fourth module, the same handle after cuFuncLoad. */
static int fl_funcload(fl_state *S)
{
    fl_launch L = { S, NULL, NULL, 0, S->out, 0 };
    double load_ms, count, loaded, st, t0;

    if (fl_load(S, 3, &load_ms) != 0 || fl_enumerate(S, 3, &count, &loaded, &L.f) != 0 ||
        fl_loaded(L.f, &st) != 0)
        return -1;
    t0 = clk_now_ms();
    CK(drv.cuFuncLoad(L.f));
    if (fl_one(S, FL_K_FUNCLOAD_MS, RES_FIRST_LAUNCH, clk_now_ms() - t0) != 0 ||
        fl_one(S, FL_K_FUNCLOAD_LOADED, RES_FIRST_LAUNCH, st) != 0)
        return -1;
    return fl_time(S, &L, FL_K_FUNCLOAD, RES_FIRST_LAUNCH, 1);
fail:
    return -1;
}

/* From a fifth module, the get and the launch timed together. */
static int fl_runtime(fl_state *S)
{
    fl_launch L = { S, NULL, NULL, 0, S->out, 0 };
    double load_ms;

    if (fl_load(S, 4, &load_ms) != 0) return -1;
    L.get_from = S->mod[4];
    if (fl_time(S, &L, FL_K_RUNTIME, RES_FIRST_LAUNCH, 1) != 0) return -1;
    return fl_one(S, FL_K_RUNTIME_GET, RES_FIRST_LAUNCH, L.get_ms);
}

/* vectorScale, module 1's second kernel, never launched: its first
 * launch, then warm, then one warm launch on an idle stream. */
static int fl_second(fl_state *S)
{
    fl_launch L = { S, S->scale, NULL, 1, S->out, 0 };

    if (fl_time(S, &L, FL_K_SECOND, RES_FIRST_LAUNCH, 1) != 0 ||
        fl_warm_of(S, &L, FL_K_SECOND_WARM) != 0)
        return -1;
    return fl_time(S, &L, FL_K_SECOND_ONCE, RES_WARM, 1);
}

/* vectorAdd warm, once, into an output allocated just now and never
 * written before (so not poisoned: its check reads what the launch left). */
static int fl_fresh(fl_state *S)
{
    fl_launch L = { S, S->add, NULL, 0, 0, 0 };

    CK(drv.cuMemAlloc(&S->fresh, SW_N * sizeof(float)));
    L.out = S->fresh;
    return fl_time(S, &L, FL_K_FRESH, RES_WARM, 0);
fail:
    return -1;
}

/* Release what the child holds, on every path. */
static void fl_release(fl_state *S)
{
    int i;
    if (S->c.gpu_state == SEC_GPU_OPEN && S->c.gpu.stream) drv.cuStreamSynchronize(S->c.gpu.stream);
    if (S->a) drv.cuMemFree(S->a);
    if (S->b) drv.cuMemFree(S->b);
    if (S->out) drv.cuMemFree(S->out);
    if (S->fresh) drv.cuMemFree(S->fresh);
    if (S->pout) drv.cuMemFreeHost(S->pout);
    for (i = 0; i < FL_NMODS; i++)
        if (S->mod[i]) drv.cuModuleUnload(S->mod[i]);
    free(S->ha);
    free(S->hb);
    free(S->ref[0]);
    free(S->ref[1]);
    rtc_out_free(&S->code);
    if (S->c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&S->c.gpu);
}

int fl_child(const cli_opts *o)
{
    static int (*const steps[])(fl_state *) = {
        fl_setup, fl_first, fl_module2, fl_unloaded, fl_funcload, fl_runtime, fl_second, fl_fresh
    };
    static const char *const phase[] = {   /* each step's, for error lines and the phase log */
        SW ": first-launch child: setup", SW ": first-launch child: first",
        SW ": first-launch child: module2", SW ": first-launch child: unloaded",
        SW ": first-launch child: funcload", SW ": first-launch child: runtime",
        SW ": first-launch child: second", SW ": first-launch child: fresh"
    };
    _Static_assert(sizeof phase / sizeof phase[0] == sizeof steps / sizeof steps[0],
                   "a phase name for each step");
    size_t i, n = sizeof steps / sizeof steps[0];
    fl_state S;
    int rc;

    memset(&S, 0, sizeof S);
    res_init(&S.r);
    S.c.o = o;
    S.c.r = &S.r;
    ph_set(SW ": first-launch child");
    rc = sec_need_gpu(&S.c);
    if (rc == SEC_OK) rc = sec_need_rtc(&S.c);
    if (rc != SEC_OK) {
        fprintf(stderr, "harness: %s%s\n", S.c.gpu_why, S.c.rtc_why);
    } else {
        S.mode = drv_loading_name(S.c.gpu.loading);
        for (i = 0; i < n && (ph_set(phase[i]), steps[i](&S) == 0); i++) {}
        ph_set(SW ": first-launch child: release");
        rc = i == n ? 0 : 1;
    }
    fl_release(&S);
    rc = sec_child_end(&S.r, rc);
    res_free(&S.r);
    ph_set(NULL);
    return rc;
}

/* ------------------------------------------------------------- parent --- */

/* One child in mode mi (fl_modes), its figures kept as one more sample of
 * "first.<mode>.<key>" and its failed checks copied. Returns 0, 1 when it
 * did not run, ran in another mode or failed a check (recorded), -1 when
 * it could not be started or memory ran out. */
static int fl_child_run(sec_ctx *c, int mi, int round)
{
    char arg[8][4200], detail[512], what[128], prefix[32];
    const char *args[8];
    size_t nargs = 0, i;
    const res_kv *eff;
    results child;
    int ok, failed = 0;

    snprintf(arg[nargs++], sizeof arg[0], "--child=%s", cli_child_name(CLI_CHILD_FIRST));
    snprintf(arg[nargs++], sizeof arg[0], "--module-loading=%s", fl_modes[mi]);
    snprintf(arg[nargs++], sizeof arg[0], "--device=%d", c->o->device);
    snprintf(arg[nargs++], sizeof arg[0], "--reps=%d", c->o->reps);
    snprintf(arg[nargs++], sizeof arg[0], "--warmup=%d", c->o->warmup);
    if (c->o->arch) snprintf(arg[nargs++], sizeof arg[0], "--arch=%s", c->o->arch);
    if (c->o->kernels_dir) snprintf(arg[nargs++], sizeof arg[0], "--kernels-dir=%s", c->o->kernels_dir);
    if (c->o->format == CLI_FMT_PTX) snprintf(arg[nargs++], sizeof arg[0], "--module-format=ptx");
    for (i = 0; i < nargs; i++) args[i] = arg[i];
    sec_status cs = sec_run_child(c, args, nargs, NULL, 0, &child, detail, sizeof detail);
    if (cs == SEC_ERROR) return -1;
    ok = cs == SEC_OK;
    eff = res_env_get(&child, "module_loading_effective");
    if (ok && (!eff || eff->kind != RES_STR || !eff->str || strcmp(eff->str, fl_mode_names[mi]) != 0)) {
        ok = 0;
        snprintf(detail, sizeof detail, "asked for %s, the child ran %s", fl_mode_names[mi],
                 eff && eff->str ? eff->str : "in an unknown mode");
    }
    snprintf(what, sizeof what, "first-launch child, round %d: a %s child ran in that mode",
             round + 1, fl_mode_names[mi]);
    res_check_add(c->r, SW, what, ok, ok ? eff->str : detail);
    if (!ok) {
        fprintf(stderr, "harness: " SW ": %s: %s\n", what, detail);
        failed = 1;
    }
    fl_key(prefix, sizeof prefix, mi, "");
    if (ok && sec_accumulate(c->r, SW, prefix, &child) != 0) {
        res_free(&child);
        return -1;
    }
    for (i = 0; ok && i < child.ncheck; i++)
        if (!child.check[i].passed) {
            res_check_add(c->r, SW, child.check[i].what, 0, child.check[i].detail);
            failed = 1;
        }
    res_free(&child);
    return failed;
}

int fl_rounds(sec_ctx *c)
{
    int round, k, r, failed = 0;

    ph_set(SW ": first-launch children");
    for (round = 0; round < c->o->rounds; round++)
        for (k = 0; k < FL_NMODES; k++) {
            /* LAZY first in even rounds, EAGER first in odd ones. */
            int mi = round % 2 ? FL_NMODES - 1 - k : k;
            if ((r = fl_child_run(c, mi, round)) < 0) return -1;
            failed |= r;
        }
    if (res_env_num(c->r, "first_launch_rounds", c->o->rounds) != 0 || fl_conclude(c->r) != 0) {
        fprintf(stderr, "harness: error: " SW ": out of memory storing the first-launch conclusions\n");
        return -1;
    }
    return failed;
}

/* -------------------------------------------------------- conclusions --- */

/* The conclusions' names: a part's (its fl_defs name, the mode), where
 * vectorAdd was loaded (the mode), a first.where entry's (what). */
#define FL_PART_NAME "%s (%s): median of the children's differences"
#define FL_LOADING_NAME "where vectorAdd was loaded (%s): functions loaded after a module load"
#define FL_WHERE_NAME "%s, EAGER against LAZY: the medians' difference"

/* The conclusions (firstlaunch.h), their keys' last part and their units;
 * fl_schema declares them with their names, which the run fills in. */
enum { FL_D_PART, FL_D_LOADING, FL_D_WHERE, FL_ND };
static const sch_key fl_derived[FL_ND] = {
    { FL_PART, "ms", RES_PROCESS, FL_PART_NAME,
      "\"above zero\", \"below zero\" or \"spans zero\" (its interval), \"one child\" (no "
      "interval)" },
    { FL_LOADING, "functions", RES_PROCESS, FL_LOADING_NAME,
      "\"the module load\", \"cuModuleGetFunction\", \"the first launch\", \"not loaded\" or "
      "\"differs between children\"" },
    { FL_WHERE ".", "ms", RES_PROCESS, FL_WHERE_NAME,
      "\"EAGER higher\", \"LAZY higher\" (the two intervals apart), \"intervals overlap\" or "
      "\"one child a mode\"" },
};

/* The steps first.where compares besides the surplus (fl_keys). */
#define FL_NWHERE_STEPS 2
static const int fl_where_steps[FL_NWHERE_STEPS] = { FL_K_LOAD, FL_K_GET };

/* A part: the signed sum of the mode's step figures (fl_keys), child by
 * child; a term of sign 0 ends the list. */
typedef struct fl_term {
    int key;
    int sign;
} fl_term;

#define FL_MAX_TERMS 4
static const struct {
    const char *name;
    fl_term t[FL_MAX_TERMS];
} fl_defs[FL_NPARTS] = {
    { "the first launch over a warm one",
      { { FL_K_FIRST, 1 }, { FL_K_WARM, -1 } } },
    { "a launch on its own: its events hold its enqueue",
      { { FL_K_ONCE, 1 }, { FL_K_WARM, -1 } } },
    { "the process's first launch, against a second module's",
      { { FL_K_FIRST, 1 }, { FL_K_MODULE2, -1 } } },
    { "loading the function before the launch (cuFuncLoad) against the get's loading",
      { { FL_K_MODULE2, 1 }, { FL_K_FUNCLOAD, -1 } } },
    { "the module's first launch, beyond a second kernel's",
      { { FL_K_FUNCLOAD, 1 }, { FL_K_ONCE, -1 }, { FL_K_SECOND, -1 }, { FL_K_SECOND_ONCE, 1 } } },
    { "left unexplained: a loaded, never-launched kernel's first launch over its lone warm launch",
      { { FL_K_SECOND, 1 }, { FL_K_SECOND_ONCE, -1 } } },
    { "the function's load inside the launch (a handle not loaded before)",
      { { FL_K_UNLOADED, 1 }, { FL_K_FUNCLOAD, -1 } } },
    { "cuModuleGetFunction inside the timed launch",
      { { FL_K_RUNTIME, 1 }, { FL_K_MODULE2, -1 } } },
    { "an output never written before, against one cuMemsetD32 wrote",
      { { FL_K_FRESH, 1 }, { FL_K_ONCE, -1 } } },
};

/* The measurement "first.<mode>.<key><suffix>" of figure key (fl_keys),
 * or NULL. */
static const res_meas *fl_m(const results *r, int mode, int key, const char *suffix)
{
    char k[96], w[64];
    snprintf(w, sizeof w, "%s%s", fl_keys[key].key, suffix);
    return res_find(r, SW, fl_key(k, sizeof k, mode, w));
}

/* The per-child values of part p in mode (suffix "" events, FL_ENQUEUE,
 * FL_SYNC) into v (room for cap); returns how many (0 when a term is
 * missing). */
static size_t fl_values(const results *r, int mode, int p, const char *suffix, double *v,
                        size_t cap)
{
    const res_meas *m[FL_MAX_TERMS];
    size_t n = cap, i;
    int t, nt = 0;

    for (t = 0; t < FL_MAX_TERMS && fl_defs[p].t[t].sign; t++, nt++) {
        m[t] = fl_m(r, mode, fl_defs[p].t[t].key, suffix);
        if (!m[t]) return 0;
        if (m[t]->nsamples < n) n = m[t]->nsamples;
    }
    for (i = 0; i < n; i++) {
        v[i] = 0;
        for (t = 0; t < nt; t++) v[i] += fl_defs[p].t[t].sign * m[t]->samples[i];
    }
    return n;
}

/* The verdict on an interval of n values. */
static const char *fl_sign(const st_summary *s)
{
    if (s->n < 2) return "one child";
    if (s->ci_low > 0) return "above zero";
    if (s->ci_high < 0) return "below zero";
    return "spans zero";
}

/* The median of the mode's per-child host figures of part p; NaN where a
 * term has none. */
static double fl_host(const results *r, int mode, int p, const char *suffix, double *v,
                      size_t cap)
{
    size_t n = fl_values(r, mode, p, suffix, v, cap);
    return n ? st_median(v, n) : NAN;
}

/* first.<mode>.part.<p>; surplus: the surplus's median (for the share),
 * NaN for the surplus itself. Nothing when the mode lacks a figure. */
static int fl_part(results *r, int mode, int p, double surplus, double *median)
{
    char key[96], name[192];
    double *v;
    size_t n, cap = 0, i;
    st_summary s;
    res_derived *d;
    double enq, sync;

    for (i = 0; i < r->nm; i++) if (r->m[i].nsamples > cap) cap = r->m[i].nsamples;
    if (cap == 0 || (v = malloc(cap * sizeof *v)) == NULL) return cap == 0 ? 0 : -1;
    n = fl_values(r, mode, p, "", v, cap);
    if (n == 0) {
        free(v);
        return 0;
    }
    s = st_summarize(v, n);
    enq = fl_host(r, mode, p, FL_ENQUEUE, v, cap);
    sync = fl_host(r, mode, p, FL_SYNC, v, cap);
    free(v);
    *median = s.median;
    snprintf(name, sizeof name, FL_PART_NAME, fl_defs[p].name, fl_modes[mode]);
    d = res_derive(r, SW, fl_part_key(key, sizeof key, mode, p), name, s.median,
                   fl_derived[FL_D_PART].unit, fl_sign(&s));
    if (!d || res_derived_field(d, "ci_low", s.ci_low) != 0 ||
        res_derived_field(d, "ci_high", s.ci_high) != 0 ||
        res_derived_field(d, "ci_level", s.ci_level) != 0 ||
        res_derived_field(d, "n", (double)s.n) != 0 ||
        res_derived_field(d, "share", p >= 1 && p <= FL_NSURPLUS ? s.median / surplus : NAN) != 0 ||
        res_derived_field(d, "enqueue", enq) != 0 || res_derived_field(d, "sync", sync) != 0)
        return -1;
    return 0;
}

/* The median of "first.<mode>.<key>", NaN when absent. */
static double fl_med(const results *r, int mode, int key)
{
    const res_meas *m = fl_m(r, mode, key, "");
    return m ? m->stats.median : NAN;
}

/* Are all of the measurement's samples the same value? */
static int fl_same(const res_meas *m)
{
    return m && m->nsamples > 0 && m->stats.min == m->stats.max;
}

/* first.<mode>.loading: where module 1's vectorAdd was loaded. */
static int fl_loading(results *r, int mode)
{
    static const int keys[] = { FL_K_FUNCTIONS, FL_K_LOADED_LOAD, FL_K_LOADED_GET,
                                FL_K_LOADED_LAUNCH, FL_K_UNLOADED_LOADED, FL_K_FUNCLOAD_LOADED };
    const res_meas *fn = fl_m(r, mode, FL_K_FUNCTIONS, ""), *ll = fl_m(r, mode, FL_K_LOADED_LOAD, "");
    const res_meas *lg = fl_m(r, mode, FL_K_LOADED_GET, ""), *lf = fl_m(r, mode, FL_K_LOADED_LAUNCH, "");
    const char *where;
    char key[64], name[128];
    res_derived *d;
    size_t i;

    if (!fn || !ll || !lg || !lf) return 0;
    if (!fl_same(fn) || !fl_same(ll) || !fl_same(lg) || !fl_same(lf))
        where = "differs between children";
    else if (ll->stats.median == fn->stats.median)
        where = "the module load";
    else if (lg->stats.median == 1)
        where = "cuModuleGetFunction";
    else if (lf->stats.median == 1)
        where = "the first launch";
    else
        where = "not loaded";
    snprintf(name, sizeof name, FL_LOADING_NAME, fl_modes[mode]);
    d = res_derive(r, SW, fl_key(key, sizeof key, mode, FL_LOADING), name, ll->stats.median,
                   fl_derived[FL_D_LOADING].unit, where);
    if (!d) return -1;
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (res_derived_field(d, fl_keys[keys[i]].key, fl_med(r, mode, keys[i])) != 0) return -1;
    if (res_derived_field(d, "load_ms", fl_med(r, mode, FL_K_LOAD)) != 0 ||
        res_derived_field(d, "get_ms", fl_med(r, mode, FL_K_GET)) != 0 ||
        res_derived_field(d, "n", (double)ll->nsamples) != 0)
        return -1;
    return 0;
}

/* first.where.<what>: EAGER against LAZY, from two medians with their
 * intervals (n per side). */
static int fl_where(results *r, const char *what, const double *e, const double *l, size_t ne,
                    size_t nl)
{
    char key[64], name[128];
    const char *text = ne < 2 || nl < 2 ? "one child a mode"
                     : e[1] > l[2] ? "EAGER higher" : l[1] > e[2] ? "LAZY higher"
                     : "intervals overlap";
    res_derived *d;

    snprintf(name, sizeof name, FL_WHERE_NAME, what);
    d = res_derive(r, SW, fl_where_key(key, sizeof key, what), name, e[0] - l[0],
                   fl_derived[FL_D_WHERE].unit, text);
    return d && res_derived_field(d, "eager", e[0]) == 0 && res_derived_field(d, "lazy", l[0]) == 0 &&
           res_derived_field(d, "eager_low", e[1]) == 0 && res_derived_field(d, "eager_high", e[2]) == 0 &&
           res_derived_field(d, "lazy_low", l[1]) == 0 && res_derived_field(d, "lazy_high", l[2]) == 0
           ? 0 : -1;
}

/* The three first.where entries, when both modes ran. */
static int fl_where_all(results *r)
{
    double x[FL_NMODES][3];
    size_t n[FL_NMODES];
    int i, k;

    for (i = 0; i < FL_NWHERE_STEPS; i++) {
        for (k = 0; k < FL_NMODES; k++) {
            const res_meas *m = fl_m(r, k, fl_where_steps[i], "");
            if (!m) return 0;
            x[k][0] = m->stats.median;
            x[k][1] = m->stats.ci_low;
            x[k][2] = m->stats.ci_high;
            n[k] = m->nsamples;
        }
        if (fl_where(r, fl_keys[fl_where_steps[i]].key, x[FL_EAGER], x[FL_LAZY], n[FL_EAGER],
                     n[FL_LAZY]) != 0)
            return -1;
    }
    for (k = 0; k < FL_NMODES; k++) {
        char key[64];
        const res_derived *d;
        if (!(d = res_derived_find(r, SW, fl_part_key(key, sizeof key, k, FL_P_SURPLUS)))) return 0;
        x[k][0] = d->value;
        x[k][1] = res_derived_num(d, "ci_low");
        x[k][2] = res_derived_num(d, "ci_high");
        n[k] = (size_t)res_derived_num(d, "n");
    }
    return fl_where(r, fl_parts[FL_P_SURPLUS], x[FL_EAGER], x[FL_LAZY], n[FL_EAGER], n[FL_LAZY]);
}

/* The surplus entry's fields largest (the index in fl_parts of the part
 * of the surplus with the largest median) and largest_ms. */
static int fl_largest(results *r, int mode, const double *med)
{
    char key[64];
    size_t i;
    int p, best = 1;

    for (p = 2; p <= FL_NSURPLUS; p++)
        if (med[p] > med[best]) best = p;
    fl_part_key(key, sizeof key, mode, FL_P_SURPLUS);
    for (i = 0; i < r->nd; i++)
        if (strcmp(r->d[i].section, SW) == 0 && strcmp(r->d[i].key, key) == 0)
            return res_derived_field(&r->d[i], "largest", best) != 0 ||
                   res_derived_field(&r->d[i], "largest_ms", med[best]) != 0 ? -1 : 0;
    return 0;
}

int fl_conclude(results *r)
{
    double med[FL_NPARTS];
    int k, p;

    for (k = 0; k < FL_NMODES; k++) {
        for (p = 0; p < FL_NPARTS; p++) {
            med[p] = NAN;
            if (fl_part(r, k, p, med[0], &med[p]) != 0) return -1;
        }
        if (!isnan(med[0]) && fl_largest(r, k, med) != 0) return -1;
        if (fl_loading(r, k) != 0) return -1;
    }
    return fl_where_all(r);
}

/* ------------------------------------------------------------- schema --- */

/* Conclusion i of fl_derived, its key prefix + its last part + what, its
 * name as the run fills it in with a placeholder's words. */
static void fl_put(sch_out *o, const char *prefix, int i, const char *what, const char *name)
{
    sch_key k = fl_derived[i];
    char key[96];

    snprintf(key, sizeof key, "%s%s", k.key, what);
    k.key = key;
    k.name = name;
    sch_put(o, prefix, &k, NULL);
}

void fl_schema(sch_out *o)
{
    char name[256];
    int p;

    if (!o->derived) {
        sch_put_table(o, FL_FIRST "<mode>.", fl_keys, FL_NKEYS);
        return;
    }
    for (p = 0; p < FL_NPARTS; p++) {
        snprintf(name, sizeof name, FL_PART_NAME, fl_defs[p].name, "<mode>");
        fl_put(o, FL_FIRST "<mode>.", FL_D_PART, fl_parts[p], name);
    }
    snprintf(name, sizeof name, FL_LOADING_NAME, "<mode>");
    fl_put(o, FL_FIRST "<mode>.", FL_D_LOADING, "", name);
    for (p = 0; p <= FL_NWHERE_STEPS; p++) {
        const char *what = p < FL_NWHERE_STEPS ? fl_keys[fl_where_steps[p]].key
                                               : fl_parts[FL_P_SURPLUS];
        snprintf(name, sizeof name, FL_WHERE_NAME, what);
        fl_put(o, FL_FIRST, FL_D_WHERE, what, name);
    }
}
