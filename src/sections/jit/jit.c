/* jit.c: section "jit": what compiling at run time costs. NVRTC (no GPU
 * needed): each source to PTX and to cubin, the first compile in a process
 * apart from later ones, option sets, NVRTC's own phase times, growth with
 * source size. The driver's JIT of PTX (in child processes, since the driver
 * reads its cache settings at cuInit): cache disabled, empty and warm;
 * whether lazy loading defers it; CU_JIT_OPTIMIZATION_LEVEL 0..4 against the
 * resulting kernel's time; and which of cuInit and the first NVRTC compile
 * pays the costs they share. With --source, the files named instead of the
 * built-in sources: their NVRTC figures, then the driver's JIT of their PTX
 * in the cache states. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/answer.h"
#include "cuda/rtc.h"
#include "cuda/timing.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/proc.h"
#include "os/sig.h"
#include "run/section.h"
#include "run/section_child.h"
#include "run/section_vec.h"
#include "sections/jit/jit.h"

#define JT "jit"
#define JT_OPT_N 16777216u
/* The driver-JIT children's module: at most this many kernels (the 10-kernel
 * module JITs in about 25 ms on the H200, the 100-kernel one in 300). */
#define JT_DRIVER_K 10

/* The region of a compile jt_compile_jobs times: <how> "to PTX", "to
 * cubin" or "to cubin, <option>"; an option set without an option shares
 * vector.cu's own row, JT_SHARED after it. */
#define JT_COMPILE_REGION "host clock around nvrtcCompileProgram (<how>), interleaved with the " \
    "section's other compiles, after one untimed round"
#define JT_SHARED "; the samples of <key>: the same compile, not made again"

/* Child jit-first's figures (after JT_NVRTC_PRE in the parent). */
enum { JT_F_DLOPEN, JT_F_FIRST, JT_F_SECOND, JT_NFIRST };
static const sch_key jt_first_keys[JT_NFIRST] = {
    { JT_FIRST_DLOPEN, "ms", RES_PROCESS, "loading NVRTC (dlopen)", "host clock around dlopen of libnvrtc" },
    { JT_FIRST_FIRST, "ms", RES_PROCESS, "first compile in the process",
      "host clock around nvrtcCompileProgram, the source to PTX, the process's first" },
    { JT_FIRST_SECOND, "ms", RES_PROCESS, "second compile in the process",
      "host clock around nvrtcCompileProgram, the same source again" },
};

/* Child jit-load's figures (after a cache state's prefix): the built-in
 * module's are load, jit, get, launch and launch_sync; a --source's load,
 * jit, func_load and functions. */
enum { JT_L_LOAD, JT_L_JIT, JT_L_GET, JT_L_LAUNCH, JT_L_LAUNCH_SYNC, JT_L_FUNC_LOAD,
       JT_L_FUNCTIONS, JT_NLOAD };
static const sch_key jt_load_keys[JT_NLOAD] = {
    { JT_LOAD, "ms", RES_PROCESS, "module load (cuModuleLoadDataEx)", "host clock around it" },
    { JT_JIT, "ms", RES_PROCESS, "driver JIT inside the load", "CU_JIT_WALL_TIME" },
    { JT_GET, "ms", RES_PROCESS, "first cuModuleGetFunction", "host clock around it" },
    { JT_LAUNCH, "ms", RES_PROCESS, "first launch, enqueue", "host clock around the first cuLaunchKernel" },
    { JT_LAUNCH_SYNC, "ms", RES_PROCESS, "first launch, enqueue + sync",
      "host clock from before cuLaunchKernel to the sync returning" },
    { JT_FUNC_LOAD, "ms", RES_PROCESS, "cuFuncLoad of every function not loaded",
      "host clock summed over each cuFuncLoad" },
    { JT_FUNCTIONS, "functions", RES_PROCESS, "functions in the module", "cuModuleGetFunctionCount" },
};

/* Children order-init and order-compile's figures (after one of jt_orders). */
enum { JT_O_LIBCUDA, JT_O_INIT, JT_O_NVRTC, JT_O_COMPILE, JT_NORDER };
static const sch_key jt_order_keys[JT_NORDER] = {
    { JT_ORDER_LIBCUDA, "ms", RES_PROCESS, "loading libcuda", "host clock around dlopen + cuGetProcAddress" },
    { JT_ORDER_CUINIT, "ms", RES_PROCESS, "cuInit", "host clock around it" },
    { JT_ORDER_NVRTC, "ms", RES_PROCESS, "loading NVRTC", "host clock around dlopen" },
    { JT_ORDER_COMPILE_STEP, "ms", RES_PROCESS, "first NVRTC compile",
      "host clock around nvrtcCompileProgram, " JT_VECTOR " to cubin" },
};
static const char *const jt_orders[4] = { JT_ORDER_INIT, JT_ORDER_COMPILE, JT_ORDER_INIT_NOPRELOAD,
                                          JT_ORDER_COMPILE_NOPRELOAD };

/* Child jit-opt's figures (after JT_JITOPT_PRE in the parent). */
enum { JT_P_LOAD, JT_P_JIT, JT_P_WARM, JT_NOPT };
static const sch_key jt_opt_keys[JT_NOPT] = {
    { JT_OPT_LOAD, "ms", RES_PROCESS, "module load, CU_JIT_OPTIMIZATION_LEVEL <N>",
      "host clock around cuModuleLoadDataEx, JIT cache disabled" },
    { JT_OPT_JIT, "ms", RES_PROCESS, "driver JIT, level <N>", "CU_JIT_WALL_TIME" },
    { JT_OPT_WARM, "ms", RES_WARM, "vectorAdd over <n> floats, JIT level <N>",
      "events around one launch after warm-up" },
};

/* NVRTC in the parent: the built-in sources, the option sets (key and label
 * from jt_sets), the phases; each --source's (after JT_SRC_PRE). */
enum { JT_K_COMPILE_PTX, JT_K_COMPILE_CUBIN, JT_K_SYNTH_PTX, JT_K_SYNTH_CUBIN, JT_K_SET,
       JT_K_PHASES, JT_K_SRC_PTX, JT_K_SRC_CUBIN, JT_K_SRC_SET, JT_K_SRC_PHASES, JT_NKEYS };
#define JT_PHASES_REGION "NVRTC's own --time report for one compile, one sample per compile (--rounds)"
static const sch_key jt_keys[JT_NKEYS] = {
    { JT_COMPILE_PTX, "ms", RES_WARM, "NVRTC, <file> to PTX", JT_COMPILE_REGION },
    { JT_COMPILE_CUBIN, "ms", RES_WARM, "NVRTC, <file> to cubin", JT_COMPILE_REGION },
    { JT_SYNTH_PTX, "ms", RES_WARM, "NVRTC, <N> kernels to PTX", JT_COMPILE_REGION },
    { JT_SYNTH_CUBIN, "ms", RES_WARM, "NVRTC, <N> kernels to cubin", JT_COMPILE_REGION },
    { "<word>", "ms", RES_WARM, "NVRTC, " JT_VECTOR ", <set>", JT_COMPILE_REGION },
    { JT_PHASES_VECTOR "<word>", "ms", RES_WARM, "NVRTC phase: <word> (<file>)", JT_PHASES_REGION },
    { JT_SRC_PTX, "ms", RES_WARM, "NVRTC, --source <i>, to PTX", JT_COMPILE_REGION },
    { JT_SRC_CUBIN, "ms", RES_WARM, "NVRTC, --source <i>, to cubin", JT_COMPILE_REGION },
    { "<word>", "ms", RES_WARM, "NVRTC, --source <i>, <set>", JT_COMPILE_REGION },
    { JT_PHASES "<word>", "ms", RES_WARM, "NVRTC phase: <word> (<file>)", JT_PHASES_REGION },
};

/* The derived entries the section writes. */
enum { JT_DK_SRC, JT_DK_NVRTC, JT_DK_DRIVER, JT_NDKEYS };
static const sch_key jt_derived[JT_NDKEYS] = {
    { JT_D_SRC, "bytes", RES_WARM, "<file>", "its --nvrtc-option values, space-separated" },
    { AN_PREFIX JT_ANSWER_NVRTC, "ms", RES_WARM, "NVRTC",
      "vector.cu (or the first --source) to cubin, and NVRTC's first compile in a fresh process" },
    { AN_PREFIX JT_ANSWER_DRIVER, "ms", RES_WARM, "driver JIT",
      "the driver's JIT of the K-kernel PTX module (or the first --source's) with the cache "
      "disabled, and its load from a warm cache" },
};

void jt_src_key(char *buf, size_t len, size_t i, const char *suffix)
{
    char n[SCH_NUM];
    const char *part = sch_num(n, (long long)i);
    sch_fill(buf, len, JT_SRC_PRE, suffix, &part, 1);
}

/* ------------------------------------------------------------ children --- */

/* Store one single-valued figure of declaration k in a child's results. */
static int jt_put(results *r, const sch_key *k, double v)
{
    return res_add(r, JT, k->key, k->name, k->desc, k->state, k->unit, &v, 1) ? 0 : -1;
}

/* Compile a source and report failure with NVRTC's log. Each compile is a
 * safe point: a pending SIGINT or SIGTERM stops the run before it. */
static int jt_compile(const char *src, const char *name, const char *arch, rtc_target t,
                      const char *const *opts, int nopts, rtc_out *out)
{
    int rc;
    sg_check();
    rc = rtc_compile(src, name, arch, t, opts, nopts, out);
    if (rc == RTC_COMPILE_ERROR)
        fprintf(stderr, "harness: error: %s does not compile:\n%s", name, out->log);
    if (rc != RTC_OK) {
        rtc_out_free(out);
        return -1;
    }
    return 0;
}

/* The --source file at path, NUL-terminated (malloc'd), at most
 * KN_SYNTH_MAX_SOURCE bytes; NULL with the path and the reason in why. */
static char *jt_read_source(const char *path, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    if (!f) {
        snprintf(why, whylen, "--source=%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (n + 65536 + 1 > cap) {
            char *nb;
            cap = cap ? cap * 2 : 65536 + 1;
            if (cap > (size_t)KN_SYNTH_MAX_SOURCE + 65536 + 1 || !(nb = realloc(buf, cap))) {
                snprintf(why, whylen, "--source=%s: over %u MiB, or out of memory", path,
                         KN_SYNTH_MAX_SOURCE >> 20);
                goto fail;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got < 65536) break;
    }
    if (ferror(f)) {
        snprintf(why, whylen, "--source=%s: cannot read: %s", path, strerror(errno));
        goto fail;
    }
    if (n == 0 || memchr(buf, 0, n)) {
        snprintf(why, whylen, "--source=%s: %s", path, n == 0 ? "an empty file"
                 : "a NUL byte: not a CUDA C++ source");
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

/* The arch a child compiles for: --arch (the parent always passes it). */
static const char *jt_child_arch(const cli_opts *o)
{
    return o->arch ? o->arch : "sm_90";
}

/* NVRTC's first and second compile in a fresh process. */
static int jt_child_first(const cli_opts *o, results *r)
{
    char why[512];
    const char *name = o->nsources ? o->sources[0] : JT_VECTOR;
    char *src = o->nsources ? jt_read_source(o->sources[0], why, sizeof why)
                            : kn_source(JT_VECTOR, o->kernels_dir, why, sizeof why);
    rtc_out a, b;
    double t0 = clk_now_ms(), load;
    int rc = -1;

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (!src) {
        fprintf(stderr, "harness: error: kernel source: %s\n", why);
        return -1;
    }
    if (rtc_load(why, sizeof why) != 0) {
        fprintf(stderr, "harness: no NVRTC: %s\n", why);
        goto out;
    }
    load = clk_now_ms() - t0;
    if (jt_compile(src, name, jt_child_arch(o), RTC_PTX, o->nvrtc_opts, (int)o->nnvrtc_opts, &a) != 0 ||
        jt_compile(src, name, jt_child_arch(o), RTC_PTX, o->nvrtc_opts, (int)o->nnvrtc_opts, &b) != 0)
        goto out;
    if (jt_put(r, &jt_first_keys[JT_F_DLOPEN], load) || jt_put(r, &jt_first_keys[JT_F_FIRST], a.ms) ||
        jt_put(r, &jt_first_keys[JT_F_SECOND], b.ms))
        goto out;
    rc = 0;
out:
    rtc_out_free(&a);
    rtc_out_free(&b);
    free(src);
    return rc;
}

/* Launch synth0 over a small buffer: for the JIT children's first launch. */
typedef struct jt_small {
    CUdeviceptr in, out;
    CUfunction fn;
    int n;
} jt_small;

static int jt_small_launch(void *arg, CUstream s)
{
    jt_small *b = arg;
    void *params[] = { &b->in, &b->out, &b->n };
    CK(drv.cuLaunchKernel(b->fn, (unsigned)(b->n + SEC_BLOCK - 1) / SEC_BLOCK, 1, 1, SEC_BLOCK, 1, 1,
                          0, s, params, NULL));
    return 0;
fail:
    return -1;
}

/* A JIT child's start: src (NULL when it could not be read, with the reason
 * in why) compiled to PTX for the child's architecture, then the GPU opened.
 * The compile is not what the child measures: the PTX comes from the run's
 * compile cache where it holds it (the parent's untimed round stored it),
 * and NVRTC is loaded only when it does not. Returns 0; SEC_USAGE (--device
 * names no device) or SEC_NO_GPU, the child's exit code, with the reason
 * printed; or -1 with the reason printed. */
static int jt_child_ptx(sec_ctx *c, const char *src, const char *name, const char *why,
                        const char *const *opts, int nopts, rtc_out *code)
{
    const char *arch = jt_child_arch(c->o);
    char rwhy[512];
    int rc;

    if (!src) {
        fprintf(stderr, "harness: %s\n", why);
        return -1;
    }
    sg_check();
    if (!rtc_cache_lookup(src, name, arch, RTC_PTX, opts, nopts, code)) {
        if (rtc_load(rwhy, sizeof rwhy) != 0) {
            fprintf(stderr, "harness: %s\n", rwhy);
            return -1;
        }
        rc = rtc_compile_shared(src, name, arch, RTC_PTX, opts, nopts, code);
        if (rc == RTC_COMPILE_ERROR)
            fprintf(stderr, "harness: error: %s does not compile:\n%s", name, code->log);
        if (rc != RTC_OK) {
            rtc_out_free(code);
            return -1;
        }
    }
    switch (sec_need_gpu(c)) {
    case SEC_OK: return 0;
    case SEC_USAGE: return SEC_USAGE;                   /* printed already */
    case SEC_NO_GPU:
        sec_say(c->gpu_why);
        return SEC_NO_GPU;
    default:
        fprintf(stderr, "harness: %s\n", c->gpu_why);
        return -1;
    }
}

/* The driver's JIT of a --source's PTX (its kernels' arguments are
 * unknown, so nothing is launched): load, every function enumerated and
 * cuFuncLoad-ed. The parent sets the cache variables and the mode. */
static int jt_child_source_load(const cli_opts *o, results *r)
{
    sec_ctx c;
    char why[512];
    char *src = jt_read_source(o->sources[0], why, sizeof why);
    rtc_out code;
    CUmodule mod = NULL;
    CUfunction *fn = NULL;
    unsigned n = 0;
    double load, jit, fload = 0, nf;
    int rc = -1;

    memset(&c, 0, sizeof c);
    memset(&code, 0, sizeof code);
    c.o = o;
    c.r = r;
    if (jt_child_ptx(&c, src, o->sources[0], why, o->nvrtc_opts, (int)o->nnvrtc_opts, &code) != 0)
        goto out;
    if (drv_load_image(code.code, -1, &mod, &load, &jit) != 0) goto out;
    CK(drv.cuModuleGetFunctionCount(&n, mod));
    if (!(fn = calloc(n ? n : 1, sizeof *fn))) goto out;
    CK(drv.cuModuleEnumerateFunctions(fn, n, mod));
    if (sec_load_rest(fn, n, &fload) != 0) goto out;
    nf = n;
    if (jt_put(r, &jt_load_keys[JT_L_LOAD], load) || jt_put(r, &jt_load_keys[JT_L_JIT], jit) ||
        jt_put(r, &jt_load_keys[JT_L_FUNC_LOAD], fload) ||
        jt_put(r, &jt_load_keys[JT_L_FUNCTIONS], nf))
        goto out;
    rc = 0;
out:
    if (mod) drv.cuModuleUnload(mod);
    if (c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&c.gpu);
    rtc_out_free(&code);
    free(fn);
    free(src);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* The driver's JIT of the synthetic module's PTX: load, get, first launch.
 * The parent sets the cache variables and the loading mode. */
static int jt_child_load(const cli_opts *o, results *r)
{
    sec_ctx c;
    char why[512], name[32];
    char *src = NULL;
    rtc_out code;
    CUmodule mod = NULL;
    jt_small b;
    float *h = NULL, *hout = NULL;
    double load, jit, t0, get, ev, enq, sync;
    long k = o->synth[0];
    kn_bad bad;
    int rc = -1;

    memset(&c, 0, sizeof c);
    memset(&code, 0, sizeof code);
    memset(&b, 0, sizeof b);
    c.o = o;
    c.r = r;
    b.n = 65536;
    src = kn_synth_source(k, why, sizeof why);
    snprintf(name, sizeof name, "synth%ld", k);       /* as the parent's rows name it */
    if ((rc = jt_child_ptx(&c, src, name, why, NULL, 0, &code)) != 0) goto out;
    rc = -1;
    if (drv_load_image(code.code, -1, &mod, &load, &jit) != 0) goto out;
    t0 = clk_now_ms();
    CK(drv.cuModuleGetFunction(&b.fn, mod, "synth0"));
    get = clk_now_ms() - t0;
    h = malloc((size_t)b.n * sizeof *h);
    hout = malloc((size_t)b.n * sizeof *hout);
    if (!h || !hout) goto out;
    kn_fill(h, (size_t)b.n, 21);
    CK(drv.cuMemAlloc(&b.in, (size_t)b.n * sizeof *h));
    CK(drv.cuMemAlloc(&b.out, (size_t)b.n * sizeof *h));
    CK(drv.cuMemcpyHtoD(b.in, h, (size_t)b.n * sizeof *h));
    CK(drv.cuMemsetD32Async(b.out, 0x7fc00000u, (size_t)b.n, c.gpu.stream));
    if (tm_once(c.gpu.stream, jt_small_launch, &b, &ev, &enq, &sync) != 0) goto out;
    CK(drv.cuMemcpyDtoH(hout, b.out, (size_t)b.n * sizeof *h));
    kn_check_synth(0, h, hout, (size_t)b.n, &bad);
    sec_check_elems(&c, JT, "driver JIT child: synth0 vs CPU, all elements", (size_t)b.n, &bad);
    if (jt_put(r, &jt_load_keys[JT_L_LOAD], load) || jt_put(r, &jt_load_keys[JT_L_JIT], jit) ||
        jt_put(r, &jt_load_keys[JT_L_GET], get) || jt_put(r, &jt_load_keys[JT_L_LAUNCH], enq) ||
        jt_put(r, &jt_load_keys[JT_L_LAUNCH_SYNC], sync))
        goto out;
    rc = bad.count ? -1 : 0;
out:
    if (b.in) drv.cuMemFree(b.in);
    if (b.out) drv.cuMemFree(b.out);
    if (mod) drv.cuModuleUnload(mod);
    if (c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&c.gpu);
    rtc_out_free(&code);
    free(src);
    free(h);
    free(hout);
    return rc;
fail:
    rc = -1;
    goto out;
}

/* One JIT at a level: its load and JIT times, one more sample of each. */
static int jt_opt_store(results *r, int level, double load, double jit)
{
    const double v[2] = { load, jit };
    char key[32], name[96], n[32];
    const char *part = sch_num(n, level);
    int i;
    for (i = JT_P_LOAD; i <= JT_P_JIT; i++) {
        const sch_key *k = &jt_opt_keys[i];
        sch_fill(key, sizeof key, NULL, k->key, &part, 1);
        sch_fill(name, sizeof name, NULL, k->name, &part, 1);
        if (!res_append(r, JT, key, name, k->desc, k->state, k->unit, v[i - JT_P_LOAD])) return -1;
    }
    return 0;
}

/* CU_JIT_OPTIMIZATION_LEVEL 0..4: JIT time against vectorAdd's warm time,
 * and --rounds JITs of each level, interleaved. The parent disables the JIT
 * cache, so every level really compiles. */
static int jt_child_opt(const cli_opts *o, results *r)
{
    sec_ctx c;
    char why[512];
    char *src = NULL;
    rtc_out code;
    sec_vec v;
    double *s = NULL;
    int level, round, rc = -1;
    CUresult cr;

    memset(&c, 0, sizeof c);
    memset(&code, 0, sizeof code);
    memset(&v, 0, sizeof v);
    c.o = o;
    c.r = r;
    src = kn_source(JT_VECTOR, o->kernels_dir, why, sizeof why);
    if ((rc = jt_child_ptx(&c, src, JT_VECTOR, why, NULL, 0, &code)) != 0) goto out;
    rc = -1;
    if (sec_vec_alloc(&c, JT, &v, JT_OPT_N, NULL) != 0) goto out;
    /* One untimed JIT first: the process's first pays a start-up of its own. */
    {
        CUmodule mod = NULL;
        double load, jit;
        if (drv_load_image(code.code, -1, &mod, &load, &jit) != 0) goto out;
        drv.cuModuleUnload(mod);
    }
    for (level = 0; level <= 4; level++) {
        CUmodule mod = NULL;
        double load, jit;
        char key[32], name[96], what[96], n[SCH_NUM], lv[SCH_NUM];
        const sch_key *k = &jt_opt_keys[JT_P_WARM];
        const char *parts[2];
        tm_work w;
        res_meas *m;
        if (drv_load_image(code.code, level, &mod, &load, &jit) != 0) goto out;
        DRV_CALL(cr, drv.cuModuleGetFunction(&v.add, mod, "vectorAdd"));
        if (cr != CUDA_SUCCESS) {
            drv_report(cr, "drv.cuModuleGetFunction(&v.add, mod, \"vectorAdd\")", __FILE__, __LINE__);
            drv.cuModuleUnload(mod);
            goto out;
        }
        if (tm_work_init(&w, sec_vec_kernel, &v, 0) != 0) {
            drv.cuModuleUnload(mod);
            goto out;
        }
        if (sec_vec_poison(&v) != 0 || tm_events(v.s, &w, 1, o->warmup) != 0) {
            tm_work_free(&w);
            drv.cuModuleUnload(mod);
            goto out;
        }
        snprintf(what, sizeof what, "vectorAdd JIT at -O%d, all elements vs CPU", level);
        sec_vec_verify(&c, JT, what, &v);
        drv.cuModuleUnload(mod);
        if (jt_opt_store(r, level, load, jit) != 0) {
            tm_work_free(&w);
            goto out;
        }
        parts[0] = sec_commas(n, sizeof n, JT_OPT_N);
        parts[1] = sch_num(lv, level);
        sch_fill(key, sizeof key, NULL, k->key, &parts[1], 1);
        sch_fill(name, sizeof name, NULL, k->name, parts, 2);
        m = res_add(r, JT, key, name, k->desc, k->state, k->unit, w.samples, w.n);
        tm_work_free(&w);
        if (!m) goto out;
        m->batch = w.batch;
        m->n = (long)JT_OPT_N;
        m->bytes = kn_find("vectorAdd")->bytes_per_elem * JT_OPT_N;
    }
    /* More JITs of each level, the levels interleaved round by round, so the
     * load and JIT figures have --rounds samples each. */
    for (round = 1; round < o->rounds; round++)
        for (level = 0; level <= 4; level++) {
            CUmodule mod = NULL;
            double load, jit;
            if (drv_load_image(code.code, level, &mod, &load, &jit) != 0) goto out;
            drv.cuModuleUnload(mod);
            if (jt_opt_store(r, level, load, jit) != 0) goto out;
        }
    rc = res_failed(r) ? -1 : 0;
out:
    sec_vec_free(&v);
    if (c.gpu_state == SEC_GPU_OPEN) drv_gpu_close(&c.gpu);
    rtc_out_free(&code);
    free(src);
    free(s);
    return rc;
}

/* cuInit and NVRTC's first compile, in either order. Returns 0, SEC_NO_GPU
 * (no usable GPU: printed) or -1 (reported). */
static int jt_child_order(const cli_opts *o, results *r, int init_first)
{
    char why[512];
    char *src = kn_source(JT_VECTOR, o->kernels_dir, why, sizeof why);
    double t0, t_lib = 0, t_init = 0, t_rtc = 0, t_comp = 0;
    rtc_out out;
    int step, rc = -1, dr;

    memset(&out, 0, sizeof out);
    if (!src) {
        fprintf(stderr, "harness: %s\n", why);
        return -1;
    }
    for (step = 0; step < 2; step++) {
        if ((step == 0) == (init_first != 0)) {
            t0 = clk_now_ms();
            if (drv_load(why, sizeof why) != 0) {
                fprintf(stderr, "harness: no CUDA driver: %s\n", why);
                goto out;
            }
            t_lib = clk_now_ms() - t0;
            t0 = clk_now_ms();
            dr = drv_init(why, sizeof why);
            t_init = clk_now_ms() - t0;
            if (dr == DRV_NO_GPU) {
                sec_say(why);
                rc = SEC_NO_GPU;
            }
            if (dr != DRV_OK) goto out;
        } else {
            t0 = clk_now_ms();
            if (rtc_load(why, sizeof why) != 0) {
                fprintf(stderr, "harness: no NVRTC: %s\n", why);
                goto out;
            }
            t_rtc = clk_now_ms() - t0;
            if (jt_compile(src, JT_VECTOR, jt_child_arch(o), RTC_CUBIN, NULL, 0, &out) != 0) goto out;
            t_comp = out.ms;
        }
    }
    if (jt_put(r, &jt_order_keys[JT_O_LIBCUDA], t_lib) || jt_put(r, &jt_order_keys[JT_O_INIT], t_init) ||
        jt_put(r, &jt_order_keys[JT_O_NVRTC], t_rtc) || jt_put(r, &jt_order_keys[JT_O_COMPILE], t_comp))
        goto out;
    rc = 0;
out:
    rtc_out_free(&out);
    free(src);
    return rc;
}

int sec_jit_child(const cli_opts *o, long long t_main_ns)
{
    results r;
    int rc = -1;
    (void)t_main_ns;
    res_init(&r);
    ph_set(o->child == CLI_CHILD_JIT_FIRST ? JT ": child jit-first"
                  : o->child == CLI_CHILD_JIT_LOAD ? JT ": child jit-load"
                  : o->child == CLI_CHILD_JIT_OPT ? JT ": child jit-opt" : JT ": child order");
    switch (o->child) {
    case CLI_CHILD_JIT_FIRST: rc = jt_child_first(o, &r); break;
    case CLI_CHILD_JIT_LOAD:
        rc = o->nsources ? jt_child_source_load(o, &r) : jt_child_load(o, &r);
        break;
    case CLI_CHILD_JIT_OPT: rc = jt_child_opt(o, &r); break;
    case CLI_CHILD_ORDER_INIT: rc = jt_child_order(o, &r, 1); break;
    case CLI_CHILD_ORDER_COMPILE: rc = jt_child_order(o, &r, 0); break;
    default: break;     /* the kinds of other sections: not started here */
    }
    /* A usage error (--device=3) or no GPU keeps its exit code. */
    rc = sec_child_end(&r, rc);
    res_free(&r);
    return rc;
}

/* -------------------------------------------------------------- parent --- */

/* One compile to time: a source, a target and at most one extra option. */
typedef struct jt_job {
    char key[64];
    char name[128];
    char label[4096];       /* NVRTC's name of the program: file(line) in its log */
    char *src;              /* owned */
    rtc_target target;
    const char *opt;        /* NULL for none */
    const char *const *xopts; /* --nvrtc-option values before opt (--source only) */
    int nxopts;
    int reps;
    double *s;              /* reps samples */
    double code_bytes;
} jt_job;

/* The region of a compile to target, with option opt (NULL: none). */
static void jt_compile_region(char *buf, size_t len, rtc_target t, const char *opt)
{
    char how[160];
    const char *part = how;
    snprintf(how, sizeof how, "%s%s%s", t == RTC_PTX ? "to PTX" : "to cubin", opt ? ", " : "",
             opt ? opt : "");
    sch_fill(buf, len, NULL, JT_COMPILE_REGION, &part, 1);
}

/* Time every job's compiles interleaved, A B C A B C: the host's speed
 * drifts over seconds (seen on the H200's virtual machine: the same compile
 * from 35 ms to 10 ms within two seconds), and a comparison measured all A
 * then all B would read that drift as a difference. One untimed round first.
 * Returns 0 or -1. */
static int jt_compile_jobs(sec_ctx *c, jt_job *jobs, size_t njobs)
{
    int rep, maxreps = 0;
    size_t j;
    for (j = 0; j < njobs; j++)
        if (jobs[j].reps > maxreps) maxreps = jobs[j].reps;
    for (rep = -1; rep < maxreps; rep++) {
        for (j = 0; j < njobs; j++) {
            jt_job *jb = &jobs[j];
            const char *opts[CLI_MAX_NVRTC_OPTS + 1];
            int no = 0, q;
            rtc_out out;
            if (rep >= jb->reps) continue;
            for (q = 0; q < jb->nxopts; q++) opts[no++] = jb->xopts[q];
            if (jb->opt) opts[no++] = jb->opt;
            if (jt_compile(jb->src, jb->label, c->arch, jb->target, opts, no, &out) != 0)
                return -1;
            /* The untimed round's image, for the children that load it
             * (jit-load, jit-opt): they need the module, not the compile. */
            if (rep < 0) rtc_cache_store(jb->src, jb->label, c->arch, jb->target, opts, no, &out);
            if (rep >= 0) jb->s[rep] = out.ms;
            jb->code_bytes = (double)out.size;
            rtc_out_free(&out);
        }
    }
    for (j = 0; j < njobs; j++) {
        const sch_key *k = &jt_keys[JT_K_COMPILE_PTX];      /* every compile's unit and state */
        char region[200];
        res_meas *m;
        jt_compile_region(region, sizeof region, jobs[j].target, jobs[j].opt);
        m = res_add(c->r, JT, jobs[j].key, jobs[j].name, region, k->state, k->unit, jobs[j].s,
                    (size_t)jobs[j].reps);
        if (!m) return -1;
        m->n = (long)strlen(jobs[j].src);
        m->bytes = jobs[j].code_bytes;
    }
    return 0;
}

/* NVRTC's own phase times for one compile, from --time=FILE: each phase's
 * figure of declaration k (its <word> the phase, its name's <file> label),
 * after prefix. */
static int jt_phases(sec_ctx *c, const char *prefix, const sch_key *k, const char *label,
                     const char *src, rtc_target t, const char *const *xopts, int nxopts)
{
    char dir[512], path[600], why[512], opt[640], names[16][RTC_PHASE_NAME];
    const char *opts[CLI_MAX_NVRTC_OPTS + 1];
    int no = 0;
    double ms[16];
    rtc_out out;
    int n, i, round, rc = -1;

    if (pr_mkdtemp("nvrtc-time", dir, sizeof dir, why, sizeof why) != 0) {
        fprintf(stderr, "harness: " JT ": %s\n", why);
        return -1;
    }
    snprintf(path, sizeof path, "%s/time.csv", dir);
    snprintf(opt, sizeof opt, "--time=%s", path);
    for (i = 0; i < nxopts; i++) opts[no++] = xopts[i];
    opts[no++] = opt;
    for (round = 0; round < c->o->rounds; round++) {
        if (jt_compile(src, label, c->arch, t, opts, no, &out) != 0) goto out;
        rtc_out_free(&out);
        n = rtc_phase_times(path, names, ms, 16, why, sizeof why);
        if (n < 0) {
            fprintf(stderr, "harness: " JT ": NVRTC --time: %s\n", why);
            goto out;
        }
        remove(path);                      /* NVRTC appends; each compile reads its own */
        for (i = 0; i < n; i++) {
            char key[160], name[160];
            const char *parts[2];
            parts[0] = names[i];
            parts[1] = label;
            sch_fill(key, sizeof key, prefix, k->key, parts, 1);
            sch_fill(name, sizeof name, NULL, k->name, parts, 2);
            if (!res_append(c->r, JT, key, name, k->desc, k->state, k->unit, ms[i])) goto out;
        }
    }
    rc = 0;
out:
    pr_rmtree(dir);
    return rc;
}

/* The option sets every source is compiled with (one extra option each). */
static const struct { const char *key, *label, *opt; rtc_target t; } jt_sets[] = {
    { JT_SET_COMPUTE, "-arch=compute_XY (PTX)", NULL, RTC_PTX },
    { JT_SET_BASE, "-arch=sm_XY (cubin)", NULL, RTC_CUBIN },
    { JT_SET_FAST_MATH, "--use_fast_math", "--use_fast_math", RTC_CUBIN },
    { JT_SET_LINEINFO, "-lineinfo", "-lineinfo", RTC_CUBIN },
    { JT_SET_G, "-G (device debug)", "-G", RTC_CUBIN },
    { JT_SET_EDV, "--extra-device-vectorization", "--extra-device-vectorization", RTC_CUBIN },
    { JT_SET_DOPT, "-dopt=on", "-dopt=on", RTC_CUBIN },
};
#define JT_NSETS (sizeof jt_sets / sizeof jt_sets[0])

/* The key of vector.cu's own row compiled to t, into buf. */
static void jt_vector_key(char *buf, size_t len, rtc_target t)
{
    const char *part = JT_VECTOR;
    sch_fill(buf, len, NULL, jt_keys[t == RTC_PTX ? JT_K_COMPILE_PTX : JT_K_COMPILE_CUBIN].key, &part, 1);
}

/* The region of option set i: its compile's, and for a set without an
 * option, JT_SHARED after it (shared: 1). */
static void jt_set_region(char *buf, size_t len, size_t i, int shared)
{
    char from[64];
    const char *part = from;
    size_t at;
    jt_compile_region(buf, len, jt_sets[i].t, jt_sets[i].opt);
    if (!shared || jt_sets[i].opt) return;
    at = strlen(buf);
    jt_vector_key(from, sizeof from, jt_sets[i].t);
    sch_fill(buf + at, len - at, NULL, JT_SHARED, &part, 1);
}

/* The option sets without an option (-arch=compute_XY to PTX, sm_XY to
 * cubin) are vector.cu's rows compile.vector.cu.ptx and .cubin: the same
 * compile, interleaved with the same others; stored under the sets' keys
 * from those samples. Returns 0, or -1 on out of memory. */
static int jt_opt_shared(sec_ctx *c)
{
    size_t i;
    for (i = 0; i < JT_NSETS; i++) {
        char from[64], name[160], region[320];
        const res_meas *m;
        jt_vector_key(from, sizeof from, jt_sets[i].t);
        m = res_find(c->r, JT, from);
        if (jt_sets[i].opt || !m) continue;
        sch_fill(name, sizeof name, NULL, jt_keys[JT_K_SET].name, &jt_sets[i].label, 1);
        jt_set_region(region, sizeof region, i, 1);
        if (!res_add_copy(c->r, m, JT, jt_sets[i].key, name, region)) return -1;
    }
    return 0;
}

/* The NVRTC part: needs no GPU. */
static int jt_nvrtc(sec_ctx *c)
{
    enum { MAXJOBS = 2 * 8 + 8 + 2 * CLI_MAX_SYNTH };
    jt_job jobs[MAXJOBS];
    size_t nj = 0, i;
    int reps = c->o->reps, rc = -1, t;
    char why[512];
    char *src = NULL;

    memset(jobs, 0, sizeof jobs);
    for (i = 0; i < kn_nfiles; i++) {
        for (t = 0; t < 2; t++, nj++) {
            jt_job *jb = &jobs[nj];
            const sch_key *k = &jt_keys[t ? JT_K_COMPILE_CUBIN : JT_K_COMPILE_PTX];
            jb->src = kn_source(kn_files[i], c->o->kernels_dir, why, sizeof why);
            if (!jb->src) goto nosrc;
            jb->target = t ? RTC_CUBIN : RTC_PTX;
            sch_fill(jb->key, sizeof jb->key, NULL, k->key, &kn_files[i], 1);
            sch_fill(jb->name, sizeof jb->name, NULL, k->name, &kn_files[i], 1);
            snprintf(jb->label, sizeof jb->label, "%s", kn_files[i]);
            jb->reps = reps;
        }
    }
    /* The options (not in --quick: five more rows of about 12 ms a compile;
     * the two sets without an option are vector.cu's own rows above, their
     * samples copied below, not compiled again). */
    for (i = 0; !c->o->quick && i < JT_NSETS; i++) {
        jt_job *jb = &jobs[nj];
        if (!jt_sets[i].opt) continue;
        nj++;
        jb->src = kn_source(JT_VECTOR, c->o->kernels_dir, why, sizeof why);
        if (!jb->src) goto nosrc;
        jb->target = jt_sets[i].t;
        jb->opt = jt_sets[i].opt;
        snprintf(jb->key, sizeof jb->key, "%s", jt_sets[i].key);
        sch_fill(jb->name, sizeof jb->name, NULL, jt_keys[JT_K_SET].name, &jt_sets[i].label, 1);
        snprintf(jb->label, sizeof jb->label, JT_VECTOR);
        jb->reps = reps;
    }
    for (i = 0; i < c->o->nsynth; i++) {
        long k = c->o->synth[i];
        for (t = 0; t < 2; t++, nj++) {
            jt_job *jb = &jobs[nj];
            const sch_key *d = &jt_keys[t ? JT_K_SYNTH_CUBIN : JT_K_SYNTH_PTX];
            char n[SCH_NUM];
            const char *part = sch_num(n, k);
            jb->src = kn_synth_source(k, why, sizeof why);
            if (!jb->src) goto nosrc;
            jb->target = t ? RTC_CUBIN : RTC_PTX;
            sch_fill(jb->key, sizeof jb->key, NULL, d->key, &part, 1);
            sch_fill(jb->name, sizeof jb->name, NULL, d->name, &part, 1);
            snprintf(jb->label, sizeof jb->label, "synth%ld", k);
            /* A thousand kernels compile for seconds: three samples. */
            jb->reps = k >= 1000 && reps > 3 ? 3 : reps;
        }
    }
    for (i = 0; i < nj; i++) {
        jobs[i].s = calloc((size_t)jobs[i].reps, sizeof *jobs[i].s);
        if (!jobs[i].s) goto out;
    }
    if (jt_compile_jobs(c, jobs, nj) != 0) goto out;
    if (!c->o->quick && jt_opt_shared(c) != 0) goto out;
    src = kn_source(JT_VECTOR, c->o->kernels_dir, why, sizeof why);
    if (!src || jt_phases(c, NULL, &jt_keys[JT_K_PHASES], JT_VECTOR, src, RTC_CUBIN, NULL, 0) != 0)
        goto out;
    rc = 0;
    goto out;
nosrc:
    fprintf(stderr, "harness: " JT ": %s\n", why);
out:
    for (i = 0; i < MAXJOBS; i++) {
        free(jobs[i].src);
        free(jobs[i].s);
    }
    free(src);
    return rc;
}

static int jt_children_of(sec_ctx *c, cli_child kind, const char *prefix,
                          const char *const *env, size_t nenv, const char *loading, long k,
                          int rounds, const char *source);

/* Run one child kind `rounds` times with the given environment, and gather
 * its medians under "<prefix><key>". Returns 0, 1 (a child failed; the rest
 * went on) or -1. */
static int jt_children(sec_ctx *c, cli_child kind, const char *prefix,
                       const char *const *env, size_t nenv, const char *loading, long k,
                       int rounds)
{
    return jt_children_of(c, kind, prefix, env, nenv, loading, k, rounds, NULL);
}

/* jt_children, the child compiling source (a --source path, passed on with
 * every --nvrtc-option) instead of its own when source is not NULL. */
static int jt_children_of(sec_ctx *c, cli_child kind, const char *prefix,
                          const char *const *env, size_t nenv, const char *loading, long k,
                          int rounds, const char *source)
{
    char a[6][128], srcarg[4200], optarg_[CLI_MAX_NVRTC_OPTS][600];
    const char *args[7 + CLI_MAX_NVRTC_OPTS];
    size_t nargs = 0, i;
    int round, failed = 0;

    snprintf(a[nargs], sizeof a[0], "--child=%s", cli_child_name(kind));
    nargs++;
    snprintf(a[nargs], sizeof a[0], "--arch=%s", c->arch);
    nargs++;
    snprintf(a[nargs], sizeof a[0], "--device=%d", c->o->device);
    nargs++;
    snprintf(a[nargs], sizeof a[0], "--reps=%d", c->o->reps);
    nargs++;
    if (loading) {
        snprintf(a[nargs], sizeof a[0], "--module-loading=%s", loading);
        nargs++;
    }
    if (k > 0) {
        snprintf(a[nargs], sizeof a[0], "--synthetic-kernels=%ld", k);
        nargs++;
    }
    for (i = 0; i < nargs; i++) args[i] = a[i];
    if (source) {
        snprintf(srcarg, sizeof srcarg, "--source=%s", source);
        args[nargs++] = srcarg;
        for (i = 0; i < c->o->nnvrtc_opts; i++) {
            snprintf(optarg_[i], sizeof optarg_[i], "--nvrtc-option=%s", c->o->nvrtc_opts[i]);
            args[nargs++] = optarg_[i];
        }
    }
    for (round = 0; round < rounds; round++) {
        results child;
        char detail[512], what[160];
        sec_status cs = sec_run_child(c, args, nargs, env, nenv, &child, detail, sizeof detail);
        int ok = cs == SEC_OK;
        if (cs == SEC_ERROR) return -1;
        if (!ok) {
            snprintf(what, sizeof what, "child %s (%s) ran to the end", cli_child_name(kind), prefix);
            res_check_add(c->r, JT, what, 0, detail);
            fprintf(stderr, "harness: " JT ": %s: %s\n", what, detail);
            failed = 1;
        } else if (sec_accumulate(c->r, JT, prefix, &child) != 0) {
            res_free(&child);
            return -1;
        }
        for (i = 0; ok && i < child.ncheck; i++) {
            res_check_add(c->r, JT, child.check[i].what, child.check[i].passed, child.check[i].detail);
            if (!child.check[i].passed) failed = 1;
        }
        res_free(&child);
    }
    return failed;
}

/* The driver's part, in children. */
static int jt_driver(sec_ctx *c)
{
    char dir[512], pathvar[600];
    const char *env[3];
    long k = 0;
    size_t i;
    int round, r, failed = 0;

    /* The module: the largest K of --synthetic-kernels up to JT_DRIVER_K,
     * else the first. Every child below pays one whole JIT of it (twelve at
     * three rounds); section loading shows the JIT growing with K. */
    for (i = 0; i < c->o->nsynth; i++)
        if (c->o->synth[i] <= JT_DRIVER_K && c->o->synth[i] > k) k = c->o->synth[i];
    if (k == 0) k = c->o->synth[0];
    res_env_num(c->r, "jit_cache_k", (double)k);

    /* Cache states: disabled; an empty private cache, then the same warm. */
    for (round = 0; round < c->o->rounds; round++) {
        env[0] = "CUDA_CACHE_DISABLE=1";
        if ((r = jt_children(c, CLI_CHILD_JIT_LOAD, JT_CACHE_DISABLED, env, 1, "eager", k, 1)) < 0)
            return -1;
        failed |= r;
        if (sec_private_cache(JT, "jit-cache", dir, sizeof dir, pathvar, sizeof pathvar, env) != 0)
            return -1;
        r = jt_children(c, CLI_CHILD_JIT_LOAD, JT_CACHE_EMPTY, env, 2, "eager", k, 1);
        if (r >= 0) {
            failed |= r;
            r = jt_children(c, CLI_CHILD_JIT_LOAD, JT_CACHE_WARM, env, 2, "eager", k, 1);
        }
        if (pr_rmtree(dir) != 0)
            fprintf(stderr, "harness: " JT ": could not remove %s\n", dir);
        if (r < 0) return -1;
        failed |= r;
        /* Does lazy loading defer the JIT? The same PTX, cache disabled, lazy. */
        env[0] = "CUDA_CACHE_DISABLE=1";
        if ((r = jt_children(c, CLI_CHILD_JIT_LOAD, JT_LAZY_DISABLED, env, 1, "lazy", k, 1)) < 0)
            return -1;
        failed |= r;
        /* Which of cuInit and the first compile pays what they share (not in
         * --quick: four more children for a question of its own). */
        if (c->o->quick) continue;
        env[0] = "CUDA_FORCE_PRELOAD_LIBRARIES";
        if ((r = jt_children(c, CLI_CHILD_ORDER_INIT, jt_orders[0], env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
        if ((r = jt_children(c, CLI_CHILD_ORDER_COMPILE, jt_orders[1], env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
        env[0] = "CUDA_FORCE_PRELOAD_LIBRARIES=0";
        if ((r = jt_children(c, CLI_CHILD_ORDER_INIT, jt_orders[2], env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
        if ((r = jt_children(c, CLI_CHILD_ORDER_COMPILE, jt_orders[3], env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
    }
    /* Optimisation levels: one child, cache disabled; its samples kept whole
     * (not in --quick: a question of its own, and a child of about 1 s). */
    if (!c->o->quick) {
        results child;
        char detail[512], a[6][64];
        const char *args[6];
        const char *e[1] = { "CUDA_CACHE_DISABLE=1" };
        int ok;
        snprintf(a[0], sizeof a[0], "--child=jit-opt");
        snprintf(a[1], sizeof a[1], "--arch=%s", c->arch);
        snprintf(a[2], sizeof a[2], "--device=%d", c->o->device);
        snprintf(a[3], sizeof a[3], "--reps=%d", c->o->reps);
        snprintf(a[4], sizeof a[4], "--rounds=%d", c->o->rounds);
        snprintf(a[5], sizeof a[5], "--warmup=%d", c->o->warmup);
        for (i = 0; i < 6; i++) args[i] = a[i];
        sec_status cs = sec_run_child(c, args, 6, e, 1, &child, detail, sizeof detail);
        if (cs == SEC_ERROR) return -1;
        ok = cs == SEC_OK;
        res_check_add(c->r, JT, "child jit-opt ran to the end", ok, detail);
        if (!ok) failed = 1;
        for (i = 0; ok && i < child.nm; i++) {
            const res_meas *m = &child.m[i];
            char key[96];
            res_meas *d;
            snprintf(key, sizeof key, JT_JITOPT_PRE "%s", m->key);
            d = res_add(c->r, JT, key, m->name, m->region, m->state, m->unit, m->samples, m->nsamples);
            if (!d) {
                res_free(&child);
                return -1;
            }
            d->batch = m->batch;
            d->n = m->n;
            d->bytes = m->bytes;
        }
        for (i = 0; ok && i < child.ncheck; i++) {
            res_check_add(c->r, JT, child.check[i].what, child.check[i].passed, child.check[i].detail);
            if (!child.check[i].passed) failed = 1;
        }
        res_free(&child);
    }
    return failed;
}

/* --source: each file's NVRTC figures as the built-in sources have them
 * ("src.<i>.ptx", "src.<i>.cubin", "src.<i>.opt.<set>" with --nvrtc-option
 * before each set's option, "src.<i>.phases.<phase>"), its first compile in
 * a process ("src.<i>.nvrtc.*", children) and a derived entry "src.<i>"
 * (name: the path; value: its bytes; text: the options). Returns SEC_OK,
 * SEC_USAGE (a file that cannot be read: printed) or SEC_FAILED (a compile
 * error: NVRTC's log printed, naming file and line). */
static int jt_sources_nvrtc(sec_ctx *c)
{
    jt_job jobs[2 + JT_NSETS];
    size_t i, j, nj;
    int r;
    char why[600], *src = NULL;

    memset(jobs, 0, sizeof jobs);
    for (i = 0; i < c->o->nsources; i++) {
        char opts[2048], key[64];
        size_t at = 0, q;
        res_derived *d;
        if (!(src = jt_read_source(c->o->sources[i], why, sizeof why))) {
            fprintf(stderr, "harness: error: %s\n", why);
            res_skip_section(c->r, JT, why);
            return SEC_USAGE;
        }
        memset(jobs, 0, sizeof jobs);
        for (nj = 0; nj < 2 + (c->o->quick ? 0 : JT_NSETS); nj++) {
            jt_job *jb = &jobs[nj];
            if (!(jb->src = strdup(src))) goto out;
            jb->target = nj == 0 ? RTC_PTX : nj == 1 ? RTC_CUBIN : jt_sets[nj - 2].t;
            jb->opt = nj < 2 ? NULL : jt_sets[nj - 2].opt;
            const sch_key *k = &jt_keys[nj == 0 ? JT_K_SRC_PTX : nj == 1 ? JT_K_SRC_CUBIN : JT_K_SRC_SET];
            const char *parts[2];
            char n[SCH_NUM];
            parts[0] = sch_num(n, (long long)i);
            parts[1] = nj < 2 ? NULL : jt_sets[nj - 2].label;
            jb->xopts = c->o->nvrtc_opts;
            jb->nxopts = (int)c->o->nnvrtc_opts;
            jt_src_key(jb->key, sizeof jb->key, i, nj < 2 ? k->key : jt_sets[nj - 2].key);
            sch_fill(jb->name, sizeof jb->name, NULL, k->name, parts, nj < 2 ? 1 : 2);
            snprintf(jb->label, sizeof jb->label, "%s", c->o->sources[i]);
            jb->reps = c->o->reps;
            if (!(jb->s = calloc((size_t)jb->reps, sizeof *jb->s))) goto out;
        }
        r = jt_compile_jobs(c, jobs, nj);
        jt_src_key(key, sizeof key, i, "");
        if (r == 0) r = jt_phases(c, key, &jt_keys[JT_K_SRC_PHASES], c->o->sources[i], src, RTC_CUBIN,
                                  c->o->nvrtc_opts, (int)c->o->nnvrtc_opts);
        opts[0] = '\0';
        for (q = 0; q < c->o->nnvrtc_opts && at < sizeof opts; q++)
            at += (size_t)snprintf(opts + at, sizeof opts - at, "%s%s", q ? " " : "", c->o->nvrtc_opts[q]);
        {
            char n[SCH_NUM];
            const char *part = sch_num(n, (long long)i);
            sch_fill(key, sizeof key, NULL, jt_derived[JT_DK_SRC].key, &part, 1);
        }
        d = r == 0 ? res_derive(c->r, JT, key, c->o->sources[i], (double)strlen(src),
                                jt_derived[JT_DK_SRC].unit, opts) : NULL;
        free(src);
        src = NULL;
        for (j = 0; j < nj; j++) {
            free(jobs[j].src);
            free(jobs[j].s);
        }
        memset(jobs, 0, sizeof jobs);
        if (r != 0 || !d) return SEC_FAILED;
        jt_src_key(key, sizeof key, i, JT_NVRTC_PRE);
        r = jt_children_of(c, CLI_CHILD_JIT_FIRST, key, NULL, 0, NULL, 0, c->o->rounds, c->o->sources[i]);
        if (r != 0) return SEC_FAILED;
    }
    return SEC_OK;
out:
    fprintf(stderr, "harness: error: " JT ": out of memory for --source\n");
    free(src);
    for (j = 0; j < 2 + JT_NSETS; j++) {
        free(jobs[j].src);
        free(jobs[j].s);
    }
    return SEC_FAILED;
}

/* --source, the driver's part: each file's PTX loaded in children, cache
 * disabled, an empty private cache, the same warm (EAGER), and disabled
 * under LAZY: "src.<i>.<state>.load|jit|func_load|functions". Returns 0, 1
 * (a child failed) or -1. */
static int jt_sources_driver(sec_ctx *c)
{
    char dir[512], pathvar[600], pre[96];
    const char *env[2];
    size_t i;
    int round, r, failed = 0;

    for (i = 0; i < c->o->nsources; i++)
        for (round = 0; round < c->o->rounds; round++) {
            const char *src = c->o->sources[i];
            env[0] = "CUDA_CACHE_DISABLE=1";
            jt_src_key(pre, sizeof pre, i, JT_CACHE_DISABLED);
            if ((r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 1, "eager", 0, 1, src)) < 0) return -1;
            failed |= r;
            if (sec_private_cache(JT, "jit-cache", dir, sizeof dir, pathvar, sizeof pathvar, env) != 0)
                return -1;
            jt_src_key(pre, sizeof pre, i, JT_CACHE_EMPTY);
            r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 2, "eager", 0, 1, src);
            if (r >= 0) {
                failed |= r;
                jt_src_key(pre, sizeof pre, i, JT_CACHE_WARM);
                r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 2, "eager", 0, 1, src);
            }
            if (pr_rmtree(dir) != 0) fprintf(stderr, "harness: " JT ": could not remove %s\n", dir);
            if (r < 0) return -1;
            failed |= r;
            env[0] = "CUDA_CACHE_DISABLE=1";
            jt_src_key(pre, sizeof pre, i, JT_LAZY_DISABLED);
            if ((r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 1, "lazy", 0, 1, src)) < 0) return -1;
            failed |= r;
        }
    return failed;
}

sec_status sec_jit(sec_ctx *c)
{
    int rc, failed = 0;

    if ((rc = sec_begin(c, JT, 0, 1)) != SEC_OK) return rc;
    /* The architecture: --arch, else the device's when a GPU was opened,
     * else sm_90 (NVRTC needs no GPU to compile for one). */
    if (!c->arch)
        c->arch = c->o->arch ? c->o->arch : (c->gpu_state == SEC_GPU_OPEN ? c->gpu.arch : "sm_90");
    res_env_str(c->r, "jit_arch", c->arch);
    ph_set(JT ": NVRTC");
    if (c->o->nsources) {
        /* --source: the files named, instead of the built-in sources. */
        if ((rc = jt_sources_nvrtc(c)) != SEC_OK) {
            ph_set(NULL);
            return rc;
        }
        if (sec_need_driver(c, JT, "the driver JIT part of --source") != 0) {
            ph_set(NULL);
            return SEC_NO_GPU;
        }
        ph_set(JT ": driver JIT of --source");
        rc = jt_sources_driver(c);
        ph_set(NULL);
        return rc < 0 || rc > 0 ? SEC_FAILED : SEC_OK;
    }
    if (jt_nvrtc(c) != 0) {
        ph_set(NULL);
        return SEC_FAILED;
    }
    /* NVRTC's first compile in a process, in children (no GPU needed). */
    {
        int r = jt_children(c, CLI_CHILD_JIT_FIRST, JT_NVRTC_PRE, NULL, 0, NULL, 0, c->o->rounds);
        if (r < 0) return SEC_FAILED;
        if (r > 0) failed = 1;
    }
    /* The driver's JIT needs a driver; the children find the GPU themselves. */
    if (sec_need_driver(c, JT, "the driver JIT part") != 0) {
        ph_set(NULL);
        return failed ? SEC_FAILED : SEC_NO_GPU;
    }
    ph_set(JT ": driver JIT");
    rc = jt_driver(c);
    ph_set(NULL);
    if (rc < 0) return SEC_FAILED;
    if (rc > 0) failed = 1;
    return failed ? SEC_FAILED : SEC_OK;
}

/* ------------------------------------------------------------ answers --- */

/* "answer.nvrtc": vector.cu (or the first --source) to cubin, and NVRTC's
 * first compile in a fresh process; "answer.driver_jit": the driver's JIT
 * of the K-kernel PTX module with the cache disabled, and its load from a
 * warm cache. */
void jt_answers(results *r)
{
    const sch_key *kn = &jt_derived[JT_DK_NVRTC], *kd = &jt_derived[JT_DK_DRIVER];
    const res_meas *c, *first, *dis, *warm;
    const char *what = JT_VECTOR, *zero = "0";
    const res_derived *src;
    char a[32], b[32], d[32], e[32], pre[32] = "", key[128];

    sch_fill(key, sizeof key, NULL, jt_derived[JT_DK_SRC].key, &zero, 1);
    src = res_derived_find(r, JT, key);
    jt_vector_key(key, sizeof key, RTC_CUBIN);
    c = res_find(r, JT, key);
    if (src) jt_src_key(pre, sizeof pre, 0, "");
    if (!c && src) {
        snprintf(key, sizeof key, "%s%s", pre, jt_keys[JT_K_SRC_CUBIN].key);
        if ((c = res_find(r, JT, key))) what = src->name;
    }
    snprintf(key, sizeof key, "%s" JT_NVRTC_PRE "%s", pre, jt_first_keys[JT_F_FIRST].key);
    first = res_find(r, JT, key);
    if (c)
        an_store(r, JT, JT_ANSWER_NVRTC, kn->name, c->stats.median, kn->unit,
                 "%s to cubin %s ms [%s, %s], %s ms the first in a process", what,
                 an_num(a, sizeof a, c->stats.median), an_num(b, sizeof b, c->stats.ci_low),
                 an_num(d, sizeof d, c->stats.ci_high),
                 an_num(e, sizeof e, first ? first->stats.median : NAN));
    snprintf(key, sizeof key, "%s" JT_CACHE_DISABLED "%s", pre, jt_load_keys[JT_L_LOAD].key);
    dis = res_find(r, JT, key);
    snprintf(key, sizeof key, "%s" JT_CACHE_WARM "%s", pre, jt_load_keys[JT_L_LOAD].key);
    warm = res_find(r, JT, key);
    if (dis) {
        const res_kv *k = res_env_get(r, "jit_cache_k");
        char mod[64];
        if (src) snprintf(mod, sizeof mod, "%s", what);
        else snprintf(mod, sizeof mod, "%.0f kernels", k && k->kind == RES_NUM ? k->num : NAN);
        an_store(r, JT, JT_ANSWER_DRIVER, kd->name, dis->stats.median, kd->unit,
                 "PTX of %s loaded in %s ms [%s, %s], %s ms from a warm cache", mod,
                 an_num(a, sizeof a, dis->stats.median),
                 an_num(b, sizeof b, dis->stats.ci_low), an_num(d, sizeof d, dis->stats.ci_high),
                 an_num(e, sizeof e, warm ? warm->stats.median : NAN));
    }
}

/* ------------------------------------------------------------ schema --- */

/* Write k after prefix, with key, name and desc in its place where not NULL. */
static void jt_put_as(sch_out *o, const char *prefix, const sch_key *k, const char *key,
                      const char *name, const char *desc)
{
    sch_key d = *k;
    if (key) d.key = key;
    if (name) d.name = name;
    sch_put(o, prefix, &d, desc);
}

/* The option sets after prefix ("" or JT_SRC_PRE), as k names them: a
 * built-in set without an option shares vector.cu's row (shared 1). */
static void jt_put_sets(sch_out *o, const char *prefix, const sch_key *k, int shared)
{
    char name[160], desc[320];
    const char *parts[2];
    size_t i;
    for (i = 0; i < JT_NSETS; i++) {
        parts[0] = shared ? jt_sets[i].label : "<i>";
        parts[1] = jt_sets[i].label;
        sch_fill(name, sizeof name, NULL, k->name, parts, shared ? 1 : 2);
        jt_set_region(desc, sizeof desc, i, shared);
        jt_put_as(o, prefix, k, jt_sets[i].key, name, desc);
    }
}

/* The child figures of jit-load after prefix + each cache state's: load[n] of jt_load_keys. */
static void jt_put_states(sch_out *o, const char *prefix, const int *load, size_t n)
{
    static const char *const states[2] = { JT_CACHE_PRE, JT_LAZY_DISABLED };
    char pre[64];
    size_t s, i;
    for (s = 0; s < 2; s++) {
        snprintf(pre, sizeof pre, "%s%s", prefix, states[s]);
        for (i = 0; i < n; i++) sch_put(o, pre, &jt_load_keys[load[i]], NULL);
    }
}

/* The built-in keys, then each --source's (after JT_SRC_PRE), then the
 * derived entries. */
void jt_schema(sch_out *o)
{
    static const int builtin[] = { JT_L_LOAD, JT_L_JIT, JT_L_GET, JT_L_LAUNCH, JT_L_LAUNCH_SYNC };
    static const int source[] = { JT_L_LOAD, JT_L_JIT, JT_L_FUNC_LOAD, JT_L_FUNCTIONS };
    char desc[320], name[160], n[32];
    const char *parts[2];
    size_t i;
    int k;

    for (k = JT_K_COMPILE_PTX; k <= JT_K_SYNTH_CUBIN; k++) {
        jt_compile_region(desc, sizeof desc, k == JT_K_COMPILE_PTX || k == JT_K_SYNTH_PTX ? RTC_PTX
                          : RTC_CUBIN, NULL);
        sch_put(o, NULL, &jt_keys[k], desc);
    }
    jt_put_sets(o, NULL, &jt_keys[JT_K_SET], 1);
    sch_put(o, NULL, &jt_keys[JT_K_PHASES], NULL);
    sch_put_table(o, JT_NVRTC_PRE, jt_first_keys, JT_NFIRST);
    jt_put_states(o, "", builtin, sizeof builtin / sizeof builtin[0]);
    for (i = 0; i < sizeof jt_orders / sizeof jt_orders[0]; i++)
        sch_put_table(o, jt_orders[i], jt_order_keys, JT_NORDER);
    sch_put_table(o, JT_JITOPT_PRE, jt_opt_keys, JT_P_WARM);
    parts[0] = sec_commas(n, sizeof n, JT_OPT_N);
    parts[1] = "<N>";
    sch_fill(name, sizeof name, NULL, jt_opt_keys[JT_P_WARM].name, parts, 2);
    jt_put_as(o, JT_JITOPT_PRE, &jt_opt_keys[JT_P_WARM], NULL, name, NULL);

    for (k = JT_K_SRC_PTX; k <= JT_K_SRC_CUBIN; k++) {
        jt_compile_region(desc, sizeof desc, k == JT_K_SRC_PTX ? RTC_PTX : RTC_CUBIN, NULL);
        sch_put(o, JT_SRC_PRE, &jt_keys[k], desc);
    }
    jt_put_sets(o, JT_SRC_PRE, &jt_keys[JT_K_SRC_SET], 0);
    sch_put(o, JT_SRC_PRE, &jt_keys[JT_K_SRC_PHASES], NULL);
    sch_put_table(o, JT_SRC_PRE JT_NVRTC_PRE, jt_first_keys, JT_NFIRST);
    jt_put_states(o, JT_SRC_PRE, source, sizeof source / sizeof source[0]);

    sch_derived(o);
    sch_put_table(o, NULL, jt_derived, JT_NDKEYS);
}
