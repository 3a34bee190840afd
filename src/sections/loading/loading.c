/* loading.c: section "loading": where module loading costs sit, step by
 * step, in the mode this process runs in (lazy or eager), for the harness's
 * own kernel module and generated modules of K kernels, as cubin and as PTX;
 * the context-independent library path. The parent runs it in --rounds
 * child processes (each figure one sample per fresh process); with
 * --compare-loading, both modes in alternating children, side by side, and
 * a verdict on each step, stored (ld_compare_verdicts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sections/loading/loading.h"
#include "core/answer.h"
#include "core/verdict.h"
#include "cuda/kcache.h"
#include "cuda/rtc.h"
#include "cuda/timing.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/progress.h"
#include "run/section.h"
#include "run/section_child.h"
#include "run/section_vec.h"

#define LD "loading"
#define LD_N 65536          /* elements each first launch works on */
#define MIB (1024.0 * 1024.0)

/* The derived entries the section writes (--module's: lm_schema_derived):
 * where each module's functions were loaded, the verdicts of
 * --compare-loading (vd_compare_one, verdict.h, builds their keys), the
 * answer. */
enum { LD_DK_LOADED_BY, LD_DK_COMPARE, LD_DK_ANSWER, LD_NDKEYS };
#define LD_ANSWER "load"                    /* answer.load (an_store) */
#define LD_ANSWER_NAME "module load"
#define LD_ANSWER_COMPARE_NAME "EAGER vs LAZY"
static const sch_key ld_derived[LD_NDKEYS] = {
    { "loaded_by.<pre><module>.<word>", "functions", RES_PROCESS,
      "where the functions of <pre><module> (<word>) were loaded: loaded after the module load",
      "\"the module load\", \"partly the module load\", \"cuModuleGetFunction\", \"the first "
      "launch\", \"not the first launch\" or \"differs between children\"" },
    { "compare.<module>.<word>.<word>", "", RES_PROCESS,
      "eager against lazy, <step> (<module>, <word>): the U test's p", "the verdict" },
    { AN_PREFIX LD_ANSWER, "ms", RES_PROCESS,
      LD_ANSWER_NAME "; with --compare-loading, " LD_ANSWER_COMPARE_NAME,
      "the largest module's load and total (cubin), or the verdict on its total, EAGER against LAZY" },
};

/* One module under test: its source, label and function names. */
typedef struct ld_mod {
    char label[32];         /* "harness", "synth100" */
    char *src;
    long k;                 /* functions in it */
    int synthetic;
} ld_mod;

/* Buffers for the first launch of a module's first function. */
typedef struct ld_bufs {
    CUdeviceptr a, b, out;
    float *ha, *hb, *hout;
    CUfunction fn;
    int synthetic;
} ld_bufs;

static void ld_fname(const ld_mod *m, long i, char *buf, size_t len)
{
    if (m->synthetic) kn_synth_name(i, buf, len);
    else snprintf(buf, len, "%s", kn_all[i].name);
}

/* Launch the first function: vectorAdd(a, b, out, n) or synth0(a, out, n). */
static int ld_launch(void *arg, CUstream s)
{
    ld_bufs *B = arg;
    int n = LD_N;
    void *add[] = { &B->a, &B->b, &B->out, &n };
    void *syn[] = { &B->a, &B->out, &n };
    CK(drv.cuLaunchKernel(B->fn, (LD_N + SEC_BLOCK - 1) / SEC_BLOCK, 1, 1, SEC_BLOCK, 1, 1, 0, s,
                          B->synthetic ? syn : add, NULL));
    return 0;
fail:
    return -1;
}

/* Copy the output back and check it on every element. */
static int ld_verify(sec_ctx *c, ld_bufs *B, const char *what)
{
    kn_bad bad;
    CK(drv.cuMemcpyDtoH(B->hout, B->out, LD_N * sizeof(float)));
    if (B->synthetic) kn_check_synth(0, B->ha, B->hout, LD_N, &bad);
    else kn_check_add(B->ha, B->hb, B->hout, LD_N, &bad);
    return sec_check_elems(c, LD, what, LD_N, &bad);
fail:
    return -1;
}

/* Is k one of the library path's figures? */
static int ld_is_lib(int k)
{
    return k >= LD_K_LIB_LOAD && k <= LD_K_LIB_LAUNCH_EVENTS;
}

void ld_key(char *buf, size_t len, const char *pre, int k, const char *label, const char *fmt)
{
    const char *parts[3];
    parts[0] = pre ? pre : "";
    parts[1] = label;
    parts[2] = fmt;
    if (ld_is_lib(k)) {
        parts[1] = fmt;
        sch_fill(buf, len, NULL, ld_keys[k].key, parts, 2);
    } else {
        sch_fill(buf, len, NULL, ld_keys[k].key, parts, 3);
    }
}

const char *ld_step(int k)
{
    return ld_keys[k].key + strlen(ld_is_lib(k) ? LD_LIB_PRE : LD_MOD_PRE);
}

/* The name of figure k for label and fmt, into buf. */
static void ld_name(char *buf, size_t len, int k, const char *label, const char *fmt)
{
    const char *parts[2];
    parts[0] = label;
    parts[1] = fmt;
    if (ld_is_lib(k)) sch_fill(buf, len, NULL, ld_keys[k].name, &parts[1], 1);
    else sch_fill(buf, len, NULL, ld_keys[k].name, parts, 2);
}

/* Store one single-valued figure k (LD_K_) of module label in format fmt:
 * in the child, a first launch's (the parent gathers it as a process's). */
static int ld_one(sec_ctx *c, int k, const char *label, const char *fmt, double v)
{
    char key[96], name[160];
    ld_key(key, sizeof key, NULL, k, label, fmt);
    ld_name(name, sizeof name, k, label, fmt);
    return res_add(c->r, LD, key, name, ld_keys[k].desc, RES_FIRST_LAUNCH, ld_keys[k].unit, &v, 1)
           ? 0 : -1;
}

/* Count the loaded functions among fn[0..n-1] (sec_count_loaded, as a long). */
static int ld_count_loaded(CUfunction *fn, long n, long *count)
{
    size_t k = 0;
    int rc = sec_count_loaded(fn, (size_t)n, &k);
    *count = (long)k;
    return rc;
}

/* Count the loaded functions of mod among the handles
 * cuModuleEnumerateFunctions gives (no get: what the load itself loaded). */
static int ld_count_enumerated(CUmodule mod, long *count)
{
    CUfunction *fn = NULL;
    unsigned n = 0;
    int rc = -1;

    CK(drv.cuModuleGetFunctionCount(&n, mod));
    if ((fn = calloc(n ? n : 1, sizeof *fn)) == NULL) return -1;
    CK(drv.cuModuleEnumerateFunctions(fn, n, mod));
    rc = ld_count_loaded(fn, (long)n, count);
fail:
    free(fn);
    return rc;
}

/* Every step for one module in one format. Returns 0, 1 (a check failed)
 * or -1 (a driver or compile error). */
static int ld_module(sec_ctx *c, const ld_mod *m, rtc_target target, ld_bufs *B)
{
    const char *fmt = target == RTC_PTX ? "ptx" : "cubin";
    CUfunction *fn = NULL;
    CUmodule mod = NULL;
    size_t f0, f1, f2, total;
    double load_ms, jit_ms, t0, get_first, host_enq, ev_ms, sync_ms, get_others, fload = 0;
    long i, after_modload, after_get, after_launch, after_others, after_load;
    char name[32], what[128];
    int rc = -1, failed = 0;
    tm_work w;
    rtc_out code;

    memset(&code, 0, sizeof code);
    memset(&w, 0, sizeof w);
    /* The compile is not what is measured: the run's cache may hold it. */
    if (sec_compile(c, m->src, m->label, c->arch, target, NULL, 0, &code) != RTC_OK) {
        fprintf(stderr, "harness: " LD ": %s does not compile:\n%s", m->label, code.log ? code.log : "");
        goto out;
    }
    ph_mark(LD ": - compiled");
    fn = calloc((size_t)m->k, sizeof *fn);
    if (!fn) goto out;
    if (drv_mem_info(&f0, &total) != 0) goto out;
    if (drv_load_image(code.code, -1, &mod, &load_ms, &jit_ms) != 0) goto out;
    if (drv_mem_info(&f1, &total) != 0) goto out;
    if (ld_count_enumerated(mod, &after_modload) != 0) goto out;
    ld_fname(m, 0, name, sizeof name);
    t0 = clk_now_ms();
    CK(drv.cuModuleGetFunction(&fn[0], mod, name));
    get_first = clk_now_ms() - t0;
    if (ld_count_loaded(fn, 1, &after_get) != 0) goto out;
    B->fn = fn[0];
    CK(drv.cuMemsetD32Async(B->out, 0x7fc00000u, LD_N, c->gpu.stream));
    if (tm_once(c->gpu.stream, ld_launch, B, &ev_ms, &host_enq, &sync_ms) != 0) goto out;
    if (ld_count_loaded(fn, 1, &after_launch) != 0) goto out;
    snprintf(what, sizeof what, "%.31s (%s): first launch of %.31s, all elements vs CPU", m->label, fmt, name);
    if (ld_verify(c, B, what) != 1) failed = 1;
    ph_mark(LD ": - loaded, first launch checked");
    if (tm_work_init(&w, ld_launch, B, 0) != 0 || tm_events(c->gpu.stream, &w, 1, c->o->warmup) != 0)
        goto out;
    ph_mark(LD ": - warm timed");
    t0 = clk_now_ms();
    for (i = 1; i < m->k; i++) {
        ld_fname(m, i, name, sizeof name);
        CK(drv.cuModuleGetFunction(&fn[i], mod, name));
    }
    get_others = clk_now_ms() - t0;
    if (ld_count_loaded(fn, m->k, &after_others) != 0) goto out;
    if (sec_load_rest(fn, (size_t)m->k, &fload) != 0) goto out;
    if (ld_count_loaded(fn, m->k, &after_load) != 0) goto out;
    if (drv_mem_info(&f2, &total) != 0) goto out;
    ph_mark(LD ": - every function loaded");

    {
        char key[96];
        res_meas *wm;
        const char *l = m->label;
        if (ld_one(c, LD_K_LOAD, l, fmt, load_ms) ||
            (target == RTC_PTX && ld_one(c, LD_K_JIT, l, fmt, jit_ms)) ||
            ld_one(c, LD_K_GET_FIRST, l, fmt, get_first) ||
            ld_one(c, LD_K_LAUNCH_HOST, l, fmt, host_enq) ||
            ld_one(c, LD_K_LAUNCH_EVENTS, l, fmt, ev_ms) ||
            ld_one(c, LD_K_GET_OTHERS, l, fmt, get_others) ||
            ld_one(c, LD_K_FUNC_LOAD, l, fmt, fload) ||
            ld_one(c, LD_K_TOTAL, l, fmt, load_ms + get_first + host_enq + get_others + fload) ||
            ld_one(c, LD_K_MEM_LOAD, l, fmt, ((double)f0 - (double)f1) / MIB) ||
            ld_one(c, LD_K_MEM_ALL, l, fmt, ((double)f0 - (double)f2) / MIB) ||
            ld_one(c, LD_K_K, l, fmt, (double)m->k) ||
            ld_one(c, LD_K_LOADED_LOAD, l, fmt, (double)after_modload) ||
            ld_one(c, LD_K_LOADED_GET, l, fmt, (double)after_get) ||
            ld_one(c, LD_K_LOADED_LAUNCH, l, fmt, (double)after_launch) ||
            ld_one(c, LD_K_LOADED_OTHERS, l, fmt, (double)after_others) ||
            ld_one(c, LD_K_LOADED_ALL, l, fmt, (double)after_load))
            goto out;
        ld_key(key, sizeof key, NULL, LD_K_WARM, l, fmt);
        ld_name(what, sizeof what, LD_K_WARM, l, fmt);
        wm = sec_store_work(c, LD, key, what, ld_keys[LD_K_WARM].desc, RES_WARM, &w);
        if (!wm) goto out;
    }
    snprintf(what, sizeof what, "%.31s (%s): every function loaded after cuFuncLoad", m->label, fmt);
    {
        char detail[96];
        snprintf(detail, sizeof detail, "%ld of %ld loaded", after_load, m->k);
        res_check_add(c->r, LD, what, after_load == m->k, detail);
        if (after_load != m->k) failed = 1;
    }
    rc = failed;
out:
    tm_work_free(&w);
    ph_mark(LD ": - unloading");
    if (mod) drv.cuModuleUnload(mod);
    ph_mark(LD ": - unloaded");
    free(fn);
    rtc_out_free(&code);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* The context-independent path: library, kernel, function, first launch. */
static int ld_library(sec_ctx *c, const ld_mod *m, rtc_target target, ld_bufs *B)
{
    const char *fmt = target == RTC_PTX ? "ptx" : "cubin";
    CUlibrary lib = NULL;
    CUkernel kern;
    double t0, lib_ms, getk, getf, ev_ms, enq, sync_ms;
    char what[128];
    int rc = -1;
    rtc_out code;

    memset(&code, 0, sizeof code);
    if (sec_compile(c, m->src, m->label, c->arch, target, NULL, 0, &code) != RTC_OK) goto out;
    t0 = clk_now_ms();
    CK(drv.cuLibraryLoadData(&lib, code.code, NULL, NULL, 0, NULL, NULL, 0));
    lib_ms = clk_now_ms() - t0;
    t0 = clk_now_ms();
    CK(drv.cuLibraryGetKernel(&kern, lib, "vectorAdd"));
    getk = clk_now_ms() - t0;
    t0 = clk_now_ms();
    CK(drv.cuKernelGetFunction(&B->fn, kern));
    getf = clk_now_ms() - t0;
    CK(drv.cuMemsetD32Async(B->out, 0x7fc00000u, LD_N, c->gpu.stream));
    if (tm_once(c->gpu.stream, ld_launch, B, &ev_ms, &enq, &sync_ms) != 0) goto out;
    snprintf(what, sizeof what, "library path (%s): first launch of vectorAdd, all elements vs CPU", fmt);
    if (ld_verify(c, B, what) != 1) rc = 1;
    else rc = 0;
    if (ld_one(c, LD_K_LIB_LOAD, NULL, fmt, lib_ms) || ld_one(c, LD_K_LIB_GET_KERNEL, NULL, fmt, getk) ||
        ld_one(c, LD_K_LIB_GET_FUNCTION, NULL, fmt, getf) ||
        ld_one(c, LD_K_LIB_LAUNCH_HOST, NULL, fmt, enq) ||
        ld_one(c, LD_K_LIB_LAUNCH_EVENTS, NULL, fmt, ev_ms))
        rc = -1;
out:
    if (lib) drv.cuLibraryUnload(lib);
    rtc_out_free(&code);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* The harness's own module: every embedded source in one. */
static char *ld_harness_source(void)
{
    size_t i, len = 0;
    char *s;
    for (i = 0; i < kn_nfiles; i++) len += strlen(kn_embedded(kn_files[i])) + 1;
    s = malloc(len + 1);
    if (!s) return NULL;
    s[0] = '\0';
    for (i = 0; i < kn_nfiles; i++) {
        strcat(s, kn_embedded(kn_files[i]));
        strcat(s, "\n");
    }
    return s;
}

static void ld_bufs_free(ld_bufs *B)
{
    if (B->a) drv.cuMemFree(B->a);
    if (B->b) drv.cuMemFree(B->b);
    if (B->out) drv.cuMemFree(B->out);
    free(B->ha);
    free(B->hb);
    free(B->hout);
    memset(B, 0, sizeof *B);
}

static int ld_bufs_alloc(ld_bufs *B)
{
    size_t bytes = LD_N * sizeof(float);
    memset(B, 0, sizeof *B);
    B->ha = malloc(bytes);
    B->hb = malloc(bytes);
    B->hout = malloc(bytes);
    if (!B->ha || !B->hb || !B->hout) goto fail;
    kn_fill(B->ha, LD_N, 11);
    kn_fill(B->hb, LD_N, 12);
    CK(drv.cuMemAlloc(&B->a, bytes));
    CK(drv.cuMemAlloc(&B->b, bytes));
    CK(drv.cuMemAlloc(&B->out, bytes));
    CK(drv.cuMemcpyHtoD(B->a, B->ha, bytes));
    CK(drv.cuMemcpyHtoD(B->b, B->hb, bytes));
    return 0;
fail:
    ld_bufs_free(B);
    return -1;
}

/* The modules under test: the harness's own, then each --synthetic-kernels
 * K, into mods (1 + CLI_MAX_SYNTH of them), their count into *nmods.
 * Returns 0, or -1 after reporting (what was made is in mods: ld_mods_free). */
static int ld_mods_make(const sec_ctx *c, ld_mod *mods, size_t *nmods)
{
    char why[256];
    size_t i;

    memset(mods, 0, (1 + CLI_MAX_SYNTH) * sizeof *mods);
    *nmods = 0;
    snprintf(mods[0].label, sizeof mods[0].label, "harness");
    mods[0].src = ld_harness_source();
    mods[0].k = (long)kn_count;
    if (!mods[0].src) {
        fprintf(stderr, "harness: " LD ": out of memory for the harness's module\n");
        return -1;
    }
    *nmods = 1;
    for (i = 0; i < c->o->nsynth; i++, (*nmods)++) {
        ld_mod *m = &mods[*nmods];
        snprintf(m->label, sizeof m->label, "synth%ld", c->o->synth[i]);
        m->k = c->o->synth[i];
        m->synthetic = 1;
        m->src = kn_synth_source(m->k, why, sizeof why);
        if (!m->src) {
            fprintf(stderr, "harness: " LD ": %s\n", why);
            return -1;
        }
    }
    return 0;
}

static void ld_mods_free(ld_mod *mods, size_t nmods)
{
    size_t i;
    for (i = 0; i < nmods; i++) free(mods[i].src);
}

/* The section in this process's mode. */
static int ld_here(sec_ctx *c)
{
    ld_mod mods[1 + CLI_MAX_SYNTH];
    size_t nmods = 0, i;
    int failed = 0, t, rc = SEC_FAILED;
    ld_bufs B;

    memset(&B, 0, sizeof B);
    if (ld_mods_make(c, mods, &nmods) != 0) goto out;
    ph_set(LD ": buffers");
    if (ld_bufs_alloc(&B) != 0) goto out;
    for (t = 0; t < 2; t++) {
        rtc_target target = t == 0 ? RTC_CUBIN : RTC_PTX;
        for (i = 0; i < nmods; i++) {
            static char phase[96];          /* alive while it is the phase */
            int r;
            snprintf(phase, sizeof phase, LD ": %.31s (%s)", mods[i].label,
                     target == RTC_PTX ? "ptx" : "cubin");
            ph_set(phase);
            B.synthetic = mods[i].synthetic;
            r = ld_module(c, &mods[i], target, &B);
            if (r < 0) goto out;
            if (r > 0) failed = 1;
        }
        B.synthetic = 0;
        ph_set(target == RTC_PTX ? LD ": library path (ptx)" : LD ": library path (cubin)");
        {
            int r = ld_library(c, &mods[0], target, &B);
            if (r < 0) goto out;
            if (r > 0) failed = 1;
        }
    }
    rc = failed ? SEC_FAILED : SEC_OK;
out:
    ld_bufs_free(&B);
    ld_mods_free(mods, nmods);
    return rc;
}

/* The children's compiles, once, into the run's compile cache before the
 * first child, so that every child reads its images and none is the one
 * that compiled them (the rounds stay alike). Only where this process knows
 * the arch the children compile for (--arch, else the device an earlier
 * section opened, the one --device names to the children) and has NVRTC
 * (loaded here if no earlier section did); otherwise no child reads the cache and
 * every one compiles its own (ld_cache_env: again all alike). A failed
 * compile is left to the children to report. Returns 1 when it filled it. */
static int ld_fill_cache(sec_ctx *c)
{
    ld_mod mods[1 + CLI_MAX_SYNTH];
    const char *arch = c->o->arch ? c->o->arch : c->gpu_state == SEC_GPU_OPEN ? c->gpu.arch : NULL;
    size_t nmods = 0, i;
    int t;

    if (!arch || !kc_dir() || (c->rtc_state != SEC_RTC_LOADED && sec_need_rtc(c) != SEC_OK)) return 0;
    sec_module_fill(c, "launch.cu", arch);        /* the children's clock kernel */
    if (ld_mods_make(c, mods, &nmods) == 0)
        for (t = 0; t < 2; t++)
            for (i = 0; i < nmods; i++) {
                rtc_out code;
                sec_compile(c, mods[i].src, mods[i].label, arch, t == 0 ? RTC_CUBIN : RTC_PTX,
                            NULL, 0, &code);
                rtc_out_free(&code);
            }
    ld_mods_free(mods, nmods);
    return 1;
}

/* The children's compile cache: KC_ENV (removed from theirs) when the parent
 * could not fill it, so that no child is the one that compiled for the
 * others; NULL (the run's, inherited) when it did. */
static const char *ld_cache_env;

/* One child running this section in this process's way (--child=results),
 * with the JIT cache disabled so a PTX load always pays its JIT (section jit
 * measures the cache states). mode: "eager" or "lazy" (--module-loading of
 * the child), or NULL for the mode this process passes on in its
 * environment. The child's medians become one sample each of
 * "<prefix><key>"; its effective mode must be `expect` (NULL: any, then
 * recorded). Returns 0 when it ran and passed its checks, 1 when not
 * (reported, recorded), -1 when it could not be started. */
static int ld_child(sec_ctx *c, const char *mode, const char *expect, const char *prefix,
                    int round)
{
    const char *env[2] = { "CUDA_CACHE_DISABLE=1", ld_cache_env };
    char arg[8][256], detail[512], what[128], d2[600];
    const char *args[8];
    size_t nargs = 0, s, len, i;
    results child;
    const res_kv *eff;
    int ok, failed = 0;

    snprintf(arg[nargs++], sizeof arg[0], "--child=results");
    snprintf(arg[nargs++], sizeof arg[0], "--section=loading");
    if (mode) snprintf(arg[nargs++], sizeof arg[0], "--module-loading=%s", mode);
    snprintf(arg[nargs++], sizeof arg[0], "--device=%d", c->o->device);
    snprintf(arg[nargs++], sizeof arg[0], "--reps=%d", c->o->reps);
    snprintf(arg[nargs++], sizeof arg[0], "--warmup=%d", c->o->warmup);
    len = (size_t)snprintf(arg[nargs], sizeof arg[0], "--synthetic-kernels=");
    for (s = 0; s < c->o->nsynth && len < sizeof arg[0]; s++)
        len += (size_t)snprintf(arg[nargs] + len, sizeof arg[0] - len, "%s%ld",
                                s ? "," : "", c->o->synth[s]);
    nargs++;
    if (c->o->arch) snprintf(arg[nargs++], sizeof arg[0], "--arch=%s", c->o->arch);
    for (i = 0; i < nargs; i++) args[i] = arg[i];
    sec_status cs = sec_run_child(c, args, nargs, env, ld_cache_env ? 2 : 1, &child, detail,
                                  sizeof detail);
    if (cs == SEC_ERROR) return -1;
    ok = cs == SEC_OK;
    eff = res_env_get(&child, "module_loading_effective");
    if (ok && expect &&
        (!eff || eff->kind != RES_STR || !eff->str || strcmp(eff->str, expect) != 0)) {
        ok = 0;
        snprintf(detail, sizeof detail, "asked for %s, the child ran %s", expect,
                 eff && eff->str ? eff->str : "in an unknown mode");
    }
    if (ok && !expect && eff && eff->kind == RES_STR && eff->str &&
        !res_env_get(c->r, "module_loading_effective"))
        res_env_str(c->r, "module_loading_effective", eff->str);
    if (mode)
        snprintf(what, sizeof what, "compare, round %d: a %s child ran in that mode", round + 1, mode);
    else
        snprintf(what, sizeof what, "child %d of %d ran the section to the end", round + 1,
                 c->o->rounds);
    snprintf(d2, sizeof d2, "%s", ok ? (eff && eff->str ? eff->str : "ran") : detail);
    res_check_add(c->r, LD, what, ok, d2);
    if (!ok) {
        fprintf(stderr, "harness: " LD ": %s: %s\n", what, detail);
        failed = 1;
    }
    if (ok && sec_accumulate(c->r, LD, prefix, &child) != 0) {
        res_free(&child);
        return -1;
    }
    for (i = 0; ok && i < child.ncheck; i++)
        if (!child.check[i].passed) {
            res_check_add(c->r, LD, child.check[i].what, 0, child.check[i].detail);
            failed = 1;
        }
    res_free(&child);
    return failed;
}

/* ------------------------------------------------ where it was loaded --- */

int ld_loaded_by(results *r)
{
    static const char *const fmts[2] = { "cubin", "ptx" };
    static const int steps[] = { LD_K_K, LD_K_LOADED_LOAD, LD_K_LOADED_GET, LD_K_LOADED_LAUNCH,
                                 LD_K_LOADED_OTHERS, LD_K_LOADED_ALL };
    char labels[LD_MAX_LABELS][LD_LABEL_LEN];
    size_t n = ld_labels(r, "", labels, LD_MAX_LABELS), i, j;
    int t;

    for (t = 0; t < 2; t++)
        for (i = 0; i < n; i++) {
            double v[6];
            const char *by;
            char key[96], name[160];
            const char *parts[3];
            res_derived *d;
            for (j = 0; j < 6; j++) {
                const res_meas *m;
                ld_key(key, sizeof key, NULL, steps[j], labels[i], fmts[t]);
                m = res_find(r, LD, key);
                v[j] = m && m->stats.min == m->stats.max ? m->stats.median : NAN;
                if (!m) v[j] = INFINITY;            /* not measured */
            }
            if (isinf(v[1]) || isinf(v[0])) continue;
            by = isnan(v[0]) || isnan(v[1]) || isnan(v[2]) || isnan(v[3]) ? "differs between children"
               : v[1] >= v[0] ? "the module load"
               : v[1] > 0 ? "partly the module load"
               : v[2] >= 1 ? "cuModuleGetFunction"
               : v[3] >= 1 ? "the first launch" : "not the first launch";
            parts[0] = "";                  /* the label holds the mode's prefix, if any */
            parts[1] = labels[i];
            parts[2] = fmts[t];
            ld_loaded_by_key(key, sizeof key, labels[i], fmts[t]);
            sch_fill(name, sizeof name, NULL, ld_derived[LD_DK_LOADED_BY].name, parts, 3);
            d = res_derive(r, LD, key, name, v[1], ld_derived[LD_DK_LOADED_BY].unit, by);
            if (!d || res_derived_field(d, "k", v[0]) != 0 ||
                res_derived_field(d, "loaded_get", v[2]) != 0 ||
                res_derived_field(d, "loaded_launch", v[3]) != 0 ||
                res_derived_field(d, "loaded_others", isinf(v[4]) ? NAN : v[4]) != 0 ||
                res_derived_field(d, "loaded_all", isinf(v[5]) ? NAN : v[5]) != 0)
                return -1;
        }
    return 0;
}

void ld_loaded_by_key(char *buf, size_t len, const char *label, const char *fmt)
{
    const char *parts[3];
    parts[0] = "";                          /* the label holds the mode's prefix, if any */
    parts[1] = label;
    parts[2] = fmt;
    sch_fill(buf, len, NULL, ld_derived[LD_DK_LOADED_BY].key, parts, 3);
}

/* The default run: the section in --rounds children, one after the other,
 * so every cold figure (a module's first load, first launch) has one sample
 * per fresh process rather than one in all. */
static int ld_rounds(sec_ctx *c)
{
    int round, r, failed = 0;
    for (round = 0; round < c->o->rounds; round++) {
        if ((r = ld_child(c, NULL, NULL, "", round)) < 0) return SEC_FAILED;
        failed |= r;
        if (r && c->r->incomplete) break;
    }
    res_env_num(c->r, "loading_rounds", c->o->rounds);
    if (ld_loaded_by(c->r) != 0) {
        fprintf(stderr, "harness: error: " LD ": out of memory storing where the functions were loaded\n");
        return SEC_FAILED;
    }
    return failed ? SEC_FAILED : SEC_OK;
}

/* ---------------------------------------------- eager against lazy --- */

size_t ld_labels(const results *r, const char *pre, char labels[][LD_LABEL_LEN], size_t max)
{
    size_t i, j, n = 0, plen = strlen(pre);
    for (i = 0; i < r->nm && n < max; i++) {
        const char *k = r->m[i].key, *dot;
        int seen = 0;
        if (strcmp(r->m[i].section, LD) != 0 || strncmp(k, pre, plen) != 0) continue;
        k += plen;
        dot = strstr(k, ".cubin.load");
        if (!dot || strcmp(dot, ".cubin.load") != 0 || (size_t)(dot - k) >= LD_LABEL_LEN) continue;
        if (strncmp(k, "library", 7) == 0 || strncmp(k, "eager.library", 13) == 0 ||
            strncmp(k, "lazy.library", 12) == 0)
            continue;                              /* the library path has a line of its own */
        for (j = 0; j < n; j++)
            if (strncmp(labels[j], k, (size_t)(dot - k)) == 0 && labels[j][dot - k] == '\0') seen = 1;
        if (seen) continue;
        memcpy(labels[n], k, (size_t)(dot - k));
        labels[n][dot - k] = '\0';
        n++;
    }
    return n;
}

const int ld_compare_steps[LD_COMPARE_NSTEPS] = {
    LD_K_LOAD, LD_K_JIT, LD_K_GET_FIRST, LD_K_LAUNCH_HOST, LD_K_GET_OTHERS, LD_K_FUNC_LOAD,
    LD_K_TOTAL, LD_K_MEM_ALL
};

int ld_compare_verdicts(results *r)
{
    static const char *const fmts[2] = { "cubin", "ptx" };
    char labels[LD_MAX_LABELS][LD_LABEL_LEN];
    size_t n = ld_labels(r, "eager.", labels, LD_MAX_LABELS), i, j;
    double pct = vd_threshold(r);
    int t;

    for (t = 0; t < 2; t++)
        for (i = 0; i < n; i++)
            for (j = 0; j < LD_COMPARE_NSTEPS; j++)
                if (vd_compare_one(r, LD, labels[i], fmts[t], ld_step(ld_compare_steps[j]), pct) != 0)
                    return -1;
    return 0;
}

/* --compare-loading's rounds: the section in children, eager and lazy
 * alternating, each child checked for its effective mode; each child's
 * medians become one sample per round of "eager.<key>" and "lazy.<key>".
 * Returns 0, 1 (a child failed) or -1 (one could not be started). */
static int ld_compare_rounds(sec_ctx *c)
{
    static const char *const modes[2] = { "eager", "lazy" };
    static const char *const effective[2] = { "EAGER", "LAZY" };
    static const char *const prefix[2] = { LD_EAGER, LD_LAZY };
    int round, mi, r, failed = 0;

    pl_begin(LD, c->o->compare_rounds, 2 * c->o->compare_rounds);
    for (round = 0; round < c->o->compare_rounds; round++)
        for (mi = 0; mi < 2; mi++) {
            pl_run(round, effective[mi]);
            r = ld_child(c, modes[mi], effective[mi], prefix[mi], round);
            pl_run_done();
            if (r < 0) {
                pl_end();
                return -1;
            }
            failed |= r;
        }
    pl_end();
    return failed;
}

/* --compare-loading: the rounds, then the verdicts on what they gathered
 * (also when a child could not be started: the table shows what there is). */
static int ld_compare(sec_ctx *c)
{
    int r = ld_compare_rounds(c);

    if (r >= 0) {
        res_env_num(c->r, "compare_loading_rounds", c->o->compare_rounds);
        res_env_num(c->r, "compare_threshold_pct", c->o->threshold);
    }
    if (ld_compare_verdicts(c->r) != 0 || ld_loaded_by(c->r) != 0) {
        fprintf(stderr, "harness: error: " LD ": out of memory storing the verdicts\n");
        return SEC_FAILED;
    }
    return r != 0 ? SEC_FAILED : SEC_OK;
}

sec_status sec_loading(sec_ctx *c)
{
    int rc;
    if (c->o->child != CLI_CHILD_RESULTS) {
        /* The parent: the section runs in children (a child is one round). */
        if (c->o->nmodules) {
            /* --module: the files' inventory, then children for them alone. */
            rc = lm_run(c);
            ph_set(NULL);
            return rc;
        }
        if (sec_need_driver(c, LD, NULL) != 0) return SEC_NO_GPU;
        ph_set(LD ": compiling for the children");
        ld_cache_env = ld_fill_cache(c) ? NULL : KC_ENV;
        ph_set(c->o->compare_loading ? LD ": compare" : LD ": children");
        rc = c->o->compare_loading ? ld_compare(c) : ld_rounds(c);
        ph_set(NULL);
        return rc;
    }
    if (c->o->nmodules) return lm_measure(c);
    if ((rc = sec_begin(c, LD, 1, 1)) != SEC_OK) return rc;
    ph_set(LD);
    rc = ld_here(c);
    ph_set(NULL);
    return rc;
}

/* ------------------------------------------------------------ answers --- */

/* The module of the most functions, as cubin: its label into label
 * (prefix pre: "" or "eager."), NULL when none was measured. */
static const char *ld_largest(const results *r, const char *pre, char *label, size_t len)
{
    char labels[LD_MAX_LABELS][LD_LABEL_LEN], key[96];
    size_t n = ld_labels(r, pre, labels, LD_MAX_LABELS), i;
    double best = -1;
    const res_meas *m;

    for (i = 0; i < n; i++) {
        ld_key(key, sizeof key, pre, LD_K_K, labels[i], "cubin");
        if ((m = res_find(r, LD, key)) && m->stats.median > best) {
            best = m->stats.median;
            snprintf(label, len, "%s", labels[i]);
        }
    }
    return best >= 0 ? label : NULL;
}

/* "answer.load": with --compare-loading, the verdict on the largest
 * module's whole load (cubin, to every function loaded), EAGER against
 * LAZY; else that module's load and total in the mode in effect. */
void ld_answers(results *r)
{
    const sch_key *ka = &ld_derived[LD_DK_ANSWER];
    char label[LD_LABEL_LEN], key[128], a[64], b[32], c[32], e[32];
    const res_kv *mode = res_env_get(r, "module_loading_effective");
    const char *mname = mode && mode->kind == RES_STR && mode->str ? mode->str : "?";
    const res_derived *d;
    const res_meas *k, *load, *total;

    if (ld_largest(r, LD_EAGER, label, sizeof label)) {
        vd_key(key, sizeof key, label, "cubin", ld_step(LD_K_TOTAL));
        ld_key(a, sizeof a, LD_EAGER, LD_K_K, label, "cubin");
        if (!(d = res_derived_find(r, LD, key)) || !(k = res_find(r, LD, a))) return;
        an_store(r, LD, LD_ANSWER, LD_ANSWER_COMPARE_NAME, res_derived_num(d, "diff"), ka->unit,
                 "%s (%.0f kernels) all loaded: EAGER %s ms, LAZY %s ms: %s", label,
                 k->stats.median, an_num(a, sizeof a, res_derived_num(d, "eager_median")),
                 an_num(b, sizeof b, res_derived_num(d, "lazy_median")), d->text);
        return;
    }
    if (!ld_largest(r, "", label, sizeof label)) return;
    ld_key(key, sizeof key, NULL, LD_K_K, label, "cubin");
    k = res_find(r, LD, key);
    ld_key(key, sizeof key, NULL, LD_K_LOAD, label, "cubin");
    load = res_find(r, LD, key);
    ld_key(key, sizeof key, NULL, LD_K_TOTAL, label, "cubin");
    total = res_find(r, LD, key);
    if (!k || !load || !total) return;
    an_store(r, LD, LD_ANSWER, LD_ANSWER_NAME, total->stats.median, ka->unit,
             "%s (%.0f kernels, %s): load %s ms, all loaded %s [%s, %s]", label,
             k->stats.median, mname, an_num(a, sizeof a, load->stats.median),
             an_num(b, sizeof b, total->stats.median), an_num(c, sizeof c, total->stats.ci_low),
             an_num(e, sizeof e, total->stats.ci_high));
}

/* ------------------------------------------------------------ schema --- */

/* The keys the section writes: unit, state (the parent's, which gathers
 * each child's figures as one sample of a process), name and region, in
 * the order of the LD_K_ enum (loading.h). */
const sch_key ld_keys[LD_NKEYS] = {
    { LD_MOD_PRE "load", "ms", RES_PROCESS,
      "module load (<module>, <word>)",
      "host clock around cuModuleLoadDataEx" },
    { LD_MOD_PRE "get_first", "ms", RES_PROCESS,
      "first cuModuleGetFunction (<module>, <word>)",
      "host clock around it" },
    { LD_MOD_PRE "launch_host", "ms", RES_PROCESS,
      "first launch, host (<module>, <word>)",
      "host clock around the first cuLaunchKernel of the first function" },
    { LD_MOD_PRE "launch_events", "ms", RES_PROCESS,
      "first launch, events (<module>, <word>)",
      "event before to event after the first launch" },
    { LD_MOD_PRE "get_others", "ms", RES_PROCESS,
      "cuModuleGetFunction of the others (<module>, <word>)",
      "host clock around getting functions 2..K" },
    { LD_MOD_PRE "func_load", "ms", RES_PROCESS,
      "cuFuncLoad of the unloaded (<module>, <word>)",
      "host clock summed over cuFuncLoad of every function not yet loaded" },
    { LD_MOD_PRE "total", "ms", RES_PROCESS,
      "load to all loaded, host (<module>, <word>)",
      "sum of load, first get, first launch (host), the other gets, cuFuncLoad" },
    { LD_MOD_PRE "mem_load", "MiB", RES_PROCESS,
      "device memory used after load (<module>, <word>)",
      "cuMemGetInfo free before the load minus free after it" },
    { LD_MOD_PRE "mem_all", "MiB", RES_PROCESS,
      "device memory used, all functions loaded (<module>, <word>)",
      "cuMemGetInfo free before the load minus free after every function is loaded" },
    { LD_MOD_PRE "k", "functions", RES_PROCESS,
      "functions in the module (<module>, <word>)",
      "count" },
    { LD_MOD_PRE "loaded_load", "functions", RES_PROCESS,
      "loaded after the module load (<module>, <word>)",
      "cuFuncIsLoaded of every handle cuModuleEnumerateFunctions gives, before any get" },
    { LD_MOD_PRE "loaded_get", "functions", RES_PROCESS,
      "loaded after the first get (<module>, <word>)",
      "cuFuncIsLoaded of the first function" },
    { LD_MOD_PRE "loaded_launch", "functions", RES_PROCESS,
      "loaded after the first launch (<module>, <word>)",
      "cuFuncIsLoaded of the first function" },
    { LD_MOD_PRE "loaded_others", "functions", RES_PROCESS,
      "loaded after getting all (<module>, <word>)",
      "cuFuncIsLoaded over all K functions" },
    { LD_MOD_PRE "loaded_all", "functions", RES_PROCESS,
      "loaded after cuFuncLoad (<module>, <word>)",
      "cuFuncIsLoaded over all K functions" },
    { LD_MOD_PRE "warm", "ms", RES_PROCESS,
      "warm launch (<module>, <word>)",
      "events around one launch of the first function, after warm-up" },
    { LD_LIB_PRE "load", "ms", RES_PROCESS,
      "cuLibraryLoadData (library, <word>)",
      "host clock around it" },
    { LD_LIB_PRE "get_kernel", "ms", RES_PROCESS,
      "cuLibraryGetKernel (library, <word>)",
      "host clock around it" },
    { LD_LIB_PRE "get_function", "ms", RES_PROCESS,
      "cuKernelGetFunction (library, <word>)",
      "host clock around it" },
    { LD_LIB_PRE "launch_host", "ms", RES_PROCESS,
      "first launch, host (library, <word>)",
      "host clock around the first cuLaunchKernel" },
    { LD_LIB_PRE "launch_events", "ms", RES_PROCESS,
      "first launch, events (library, <word>)",
      "event before to event after the first launch" },
    { LD_MOD_PRE "jit", "ms", RES_PROCESS,
      "driver JIT inside the load (<module>, <word>)",
      "CU_JIT_WALL_TIME reported by cuModuleLoadDataEx" },
};

void ld_schema(sch_out *o)
{
    sch_put_table(o, NULL, ld_keys, LD_NKEYS);
    lm_schema(o);
    sch_derived(o);
    sch_put_table(o, NULL, ld_derived, LD_NDKEYS);
    lm_schema_derived(o);
}
