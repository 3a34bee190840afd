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

#define JT "jit"
#define JT_OPT_N 16777216u
/* The driver-JIT children's module: at most this many kernels (the 10-kernel
 * module JITs in about 25 ms on the H200, the 100-kernel one in 300). */
#define JT_DRIVER_K 10

/* ------------------------------------------------------------ children --- */

/* Store one single-valued figure in a child's results. */
static int jt_one(results *r, const char *key, const char *name, const char *region,
                  res_state state, double v)
{
    return res_add(r, JT, key, name, region, state, "ms", &v, 1) ? 0 : -1;
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
    const char *name = o->nsources ? o->sources[0] : "vector.cu";
    char *src = o->nsources ? jt_read_source(o->sources[0], why, sizeof why)
                            : kn_source("vector.cu", o->kernels_dir, why, sizeof why);
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
    if (jt_one(r, "dlopen", "loading NVRTC (dlopen)", "host clock around dlopen of libnvrtc",
               RES_PROCESS, load) ||
        jt_one(r, "first", "first compile in the process", "host clock around "
               "nvrtcCompileProgram, the source to PTX, the process's first", RES_PROCESS, a.ms) ||
        jt_one(r, "second", "second compile in the process", "host clock around "
               "nvrtcCompileProgram, the same source again", RES_PROCESS, b.ms))
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
        fprintf(stderr, "harness: %s\n", c->gpu_why);
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
    if (jt_one(r, "load", "module load (cuModuleLoadDataEx)", "host clock around it",
               RES_PROCESS, load) ||
        jt_one(r, "jit", "driver JIT inside the load", "CU_JIT_WALL_TIME", RES_PROCESS, jit) ||
        jt_one(r, "func_load", "cuFuncLoad of every function not loaded", "host clock summed "
               "over each cuFuncLoad", RES_PROCESS, fload) ||
        !res_add(r, JT, "functions", "functions in the module", "cuModuleGetFunctionCount",
                 RES_PROCESS, "functions", &nf, 1))
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
    if (jt_one(r, "load", "module load (cuModuleLoadDataEx)", "host clock around it",
               RES_PROCESS, load) ||
        jt_one(r, "jit", "driver JIT inside the load", "CU_JIT_WALL_TIME", RES_PROCESS, jit) ||
        jt_one(r, "get", "first cuModuleGetFunction", "host clock around it", RES_PROCESS, get) ||
        jt_one(r, "launch", "first launch, enqueue", "host clock around the first cuLaunchKernel",
               RES_PROCESS, enq) ||
        jt_one(r, "launch_sync", "first launch, enqueue + sync",
               "host clock from before cuLaunchKernel to the sync returning", RES_PROCESS, sync))
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
    char key[32], name[96];
    snprintf(key, sizeof key, "O%d.load", level);
    snprintf(name, sizeof name, "module load, CU_JIT_OPTIMIZATION_LEVEL %d", level);
    if (!res_append(r, JT, key, name, "host clock around cuModuleLoadDataEx, JIT cache disabled",
                    RES_PROCESS, "ms", load))
        return -1;
    snprintf(key, sizeof key, "O%d.jit", level);
    snprintf(name, sizeof name, "driver JIT, level %d", level);
    return res_append(r, JT, key, name, "CU_JIT_WALL_TIME", RES_PROCESS, "ms", jit) ? 0 : -1;
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
    src = kn_source("vector.cu", o->kernels_dir, why, sizeof why);
    if ((rc = jt_child_ptx(&c, src, "vector.cu", why, NULL, 0, &code)) != 0) goto out;
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
        char key[32], name[96], what[96], n[32];
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
        snprintf(key, sizeof key, "O%d.warm", level);
        snprintf(name, sizeof name, "vectorAdd over %s floats, JIT level %d",
                 sec_commas(n, sizeof n, JT_OPT_N), level);
        m = res_add(r, JT, key, name, "events around one launch after warm-up", RES_WARM, "ms",
                    w.samples, w.n);
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
    char *src = kn_source("vector.cu", o->kernels_dir, why, sizeof why);
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
                fprintf(stderr, "harness: %s\n", why);
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
            if (jt_compile(src, "vector.cu", jt_child_arch(o), RTC_CUBIN, NULL, 0, &out) != 0) goto out;
            t_comp = out.ms;
        }
    }
    if (jt_one(r, "libcuda", "loading libcuda", "host clock around dlopen + cuGetProcAddress",
               RES_PROCESS, t_lib) ||
        jt_one(r, "init", "cuInit", "host clock around it", RES_PROCESS, t_init) ||
        jt_one(r, "nvrtc", "loading NVRTC", "host clock around dlopen", RES_PROCESS, t_rtc) ||
        jt_one(r, "compile", "first NVRTC compile", "host clock around nvrtcCompileProgram, "
               "vector.cu to cubin", RES_PROCESS, t_comp))
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
        char region[200];
        res_meas *m;
        snprintf(region, sizeof region, "host clock around nvrtcCompileProgram (%s%s%s), "
                 "interleaved with the section's other compiles, after one untimed round",
                 jobs[j].target == RTC_PTX ? "to PTX" : "to cubin", jobs[j].opt ? ", " : "",
                 jobs[j].opt ? jobs[j].opt : "");
        m = res_add(c->r, JT, jobs[j].key, jobs[j].name, region, RES_WARM, "ms", jobs[j].s,
                    (size_t)jobs[j].reps);
        if (!m) return -1;
        m->n = (long)strlen(jobs[j].src);
        m->bytes = jobs[j].code_bytes;
    }
    return 0;
}

/* NVRTC's own phase times for one compile, from --time=FILE. */
static int jt_phases(sec_ctx *c, const char *keyp, const char *label, const char *src,
                     rtc_target t, const char *const *xopts, int nxopts)
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
            snprintf(key, sizeof key, "%.60s.%.60s", keyp, names[i]);
            snprintf(name, sizeof name, "NVRTC phase: %.60s (%.80s)", names[i], label);
            if (!res_append(c->r, JT, key, name, "NVRTC's own --time report for one compile, "
                            "one sample per compile (--rounds)", RES_WARM, "ms", ms[i]))
                goto out;
        }
    }
    rc = 0;
out:
    pr_rmtree(dir);
    return rc;
}

/* The option sets every source is compiled with (one extra option each). */
static const struct { const char *key, *label, *opt; rtc_target t; } jt_sets[] = {
    { "opt.compute", "-arch=compute_XY (PTX)", NULL, RTC_PTX },
    { "opt.base", "-arch=sm_XY (cubin)", NULL, RTC_CUBIN },
    { "opt.fast_math", "--use_fast_math", "--use_fast_math", RTC_CUBIN },
    { "opt.lineinfo", "-lineinfo", "-lineinfo", RTC_CUBIN },
    { "opt.G", "-G (device debug)", "-G", RTC_CUBIN },
    { "opt.edv", "--extra-device-vectorization", "--extra-device-vectorization", RTC_CUBIN },
    { "opt.dopt", "-dopt=on", "-dopt=on", RTC_CUBIN },
};
#define JT_NSETS (sizeof jt_sets / sizeof jt_sets[0])

/* The option sets without an option (-arch=compute_XY to PTX, sm_XY to
 * cubin) are vector.cu's rows compile.vector.cu.ptx and .cubin: the same
 * compile, interleaved with the same others; stored under the sets' keys
 * from those samples. Returns 0, or -1 on out of memory. */
static int jt_opt_shared(sec_ctx *c)
{
    size_t i;
    for (i = 0; i < JT_NSETS; i++) {
        const char *from = jt_sets[i].t == RTC_PTX ? "compile.vector.cu.ptx" : "compile.vector.cu.cubin";
        const res_meas *m = res_find(c->r, JT, from);
        char name[160], region[256];
        if (jt_sets[i].opt || !m) continue;
        snprintf(name, sizeof name, "NVRTC, vector.cu, %s", jt_sets[i].label);
        snprintf(region, sizeof region, "%s; the samples of %s: the same compile, not made again",
                 m->region, from);
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
            jb->src = kn_source(kn_files[i], c->o->kernels_dir, why, sizeof why);
            if (!jb->src) goto nosrc;
            jb->target = t ? RTC_CUBIN : RTC_PTX;
            snprintf(jb->key, sizeof jb->key, "compile.%s.%s", kn_files[i], t ? "cubin" : "ptx");
            snprintf(jb->name, sizeof jb->name, "NVRTC, %s to %s", kn_files[i], t ? "cubin" : "PTX");
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
        jb->src = kn_source("vector.cu", c->o->kernels_dir, why, sizeof why);
        if (!jb->src) goto nosrc;
        jb->target = jt_sets[i].t;
        jb->opt = jt_sets[i].opt;
        snprintf(jb->key, sizeof jb->key, "%s", jt_sets[i].key);
        snprintf(jb->name, sizeof jb->name, "NVRTC, vector.cu, %s", jt_sets[i].label);
        snprintf(jb->label, sizeof jb->label, "vector.cu");
        jb->reps = reps;
    }
    for (i = 0; i < c->o->nsynth; i++) {
        long k = c->o->synth[i];
        for (t = 0; t < 2; t++, nj++) {
            jt_job *jb = &jobs[nj];
            jb->src = kn_synth_source(k, why, sizeof why);
            if (!jb->src) goto nosrc;
            jb->target = t ? RTC_CUBIN : RTC_PTX;
            snprintf(jb->key, sizeof jb->key, "synth.%ld.%s", k, t ? "cubin" : "ptx");
            snprintf(jb->name, sizeof jb->name, "NVRTC, %ld kernels to %s", k, t ? "cubin" : "PTX");
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
    src = kn_source("vector.cu", c->o->kernels_dir, why, sizeof why);
    if (!src || jt_phases(c, "phases.vector.cubin", "vector.cu", src, RTC_CUBIN, NULL, 0) != 0) goto out;
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
        int ok = sec_run_child(c, args, nargs, env, nenv, &child, detail, sizeof detail);
        if (ok < 0) return -1;
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
        if ((r = jt_children(c, CLI_CHILD_JIT_LOAD, "cache.disabled.", env, 1, "eager", k, 1)) < 0)
            return -1;
        failed |= r;
        if (sec_private_cache(JT, "jit-cache", dir, sizeof dir, pathvar, sizeof pathvar, env) != 0)
            return -1;
        r = jt_children(c, CLI_CHILD_JIT_LOAD, "cache.empty.", env, 2, "eager", k, 1);
        if (r >= 0) {
            failed |= r;
            r = jt_children(c, CLI_CHILD_JIT_LOAD, "cache.warm.", env, 2, "eager", k, 1);
        }
        if (pr_rmtree(dir) != 0)
            fprintf(stderr, "harness: " JT ": could not remove %s\n", dir);
        if (r < 0) return -1;
        failed |= r;
        /* Does lazy loading defer the JIT? The same PTX, cache disabled, lazy. */
        env[0] = "CUDA_CACHE_DISABLE=1";
        if ((r = jt_children(c, CLI_CHILD_JIT_LOAD, "lazy.disabled.", env, 1, "lazy", k, 1)) < 0)
            return -1;
        failed |= r;
        /* Which of cuInit and the first compile pays what they share (not in
         * --quick: four more children for a question of its own). */
        if (c->o->quick) continue;
        env[0] = "CUDA_FORCE_PRELOAD_LIBRARIES";
        if ((r = jt_children(c, CLI_CHILD_ORDER_INIT, "order.init_first.", env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
        if ((r = jt_children(c, CLI_CHILD_ORDER_COMPILE, "order.compile_first.", env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
        env[0] = "CUDA_FORCE_PRELOAD_LIBRARIES=0";
        if ((r = jt_children(c, CLI_CHILD_ORDER_INIT, "order.init_first.nopreload.", env, 1, NULL, 0, 1)) < 0)
            return -1;
        failed |= r;
        if ((r = jt_children(c, CLI_CHILD_ORDER_COMPILE, "order.compile_first.nopreload.", env, 1, NULL, 0, 1)) < 0)
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
        ok = sec_run_child(c, args, 6, e, 1, &child, detail, sizeof detail);
        if (ok < 0) return -1;
        res_check_add(c->r, JT, "child jit-opt ran to the end", ok, detail);
        if (!ok) failed = 1;
        for (i = 0; ok && i < child.nm; i++) {
            const res_meas *m = &child.m[i];
            char key[96];
            res_meas *d;
            snprintf(key, sizeof key, "jitopt.%s", m->key);
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
            jb->xopts = c->o->nvrtc_opts;
            jb->nxopts = (int)c->o->nnvrtc_opts;
            if (nj < 2) snprintf(jb->key, sizeof jb->key, "src.%zu.%s", i, nj ? "cubin" : "ptx");
            else snprintf(jb->key, sizeof jb->key, "src.%zu.%s", i, jt_sets[nj - 2].key);
            snprintf(jb->name, sizeof jb->name, "NVRTC, --source %zu, %s", i,
                     nj == 0 ? "to PTX" : nj == 1 ? "to cubin" : jt_sets[nj - 2].label);
            snprintf(jb->label, sizeof jb->label, "%s", c->o->sources[i]);
            jb->reps = c->o->reps;
            if (!(jb->s = calloc((size_t)jb->reps, sizeof *jb->s))) goto out;
        }
        r = jt_compile_jobs(c, jobs, nj);
        snprintf(key, sizeof key, "src.%zu.phases", i);
        if (r == 0) r = jt_phases(c, key, c->o->sources[i], src, RTC_CUBIN, c->o->nvrtc_opts,
                                  (int)c->o->nnvrtc_opts);
        opts[0] = '\0';
        for (q = 0; q < c->o->nnvrtc_opts && at < sizeof opts; q++)
            at += (size_t)snprintf(opts + at, sizeof opts - at, "%s%s", q ? " " : "", c->o->nvrtc_opts[q]);
        snprintf(key, sizeof key, "src.%zu", i);
        d = r == 0 ? res_derive(c->r, JT, key, c->o->sources[i], (double)strlen(src), "bytes", opts) : NULL;
        free(src);
        src = NULL;
        for (j = 0; j < nj; j++) {
            free(jobs[j].src);
            free(jobs[j].s);
        }
        memset(jobs, 0, sizeof jobs);
        if (r != 0 || !d) return SEC_FAILED;
        snprintf(key, sizeof key, "src.%zu.nvrtc.", i);
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
            snprintf(pre, sizeof pre, "src.%zu.cache.disabled.", i);
            if ((r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 1, "eager", 0, 1, src)) < 0) return -1;
            failed |= r;
            if (sec_private_cache(JT, "jit-cache", dir, sizeof dir, pathvar, sizeof pathvar, env) != 0)
                return -1;
            snprintf(pre, sizeof pre, "src.%zu.cache.empty.", i);
            r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 2, "eager", 0, 1, src);
            if (r >= 0) {
                failed |= r;
                snprintf(pre, sizeof pre, "src.%zu.cache.warm.", i);
                r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 2, "eager", 0, 1, src);
            }
            if (pr_rmtree(dir) != 0) fprintf(stderr, "harness: " JT ": could not remove %s\n", dir);
            if (r < 0) return -1;
            failed |= r;
            env[0] = "CUDA_CACHE_DISABLE=1";
            snprintf(pre, sizeof pre, "src.%zu.lazy.disabled.", i);
            if ((r = jt_children_of(c, CLI_CHILD_JIT_LOAD, pre, env, 1, "lazy", 0, 1, src)) < 0) return -1;
            failed |= r;
        }
    return failed;
}

int sec_jit(sec_ctx *c)
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
        int r = jt_children(c, CLI_CHILD_JIT_FIRST, "nvrtc.", NULL, 0, NULL, 0, c->o->rounds);
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
    const res_meas *c = res_find(r, JT, "compile.vector.cu.cubin"), *first, *dis, *warm;
    const char *what = "vector.cu";
    const res_derived *src = res_derived_find(r, JT, "src.0");
    char a[32], b[32], d[32], e[32];

    if (!c && src && (c = res_find(r, JT, "src.0.cubin"))) what = src->name;
    first = res_find(r, JT, src ? "src.0.nvrtc.first" : "nvrtc.first");
    if (c)
        an_store(r, JT, "nvrtc", "NVRTC", c->stats.median, "ms",
                 "%s to cubin %s ms [%s, %s], %s ms the first in a process", what,
                 an_num(a, sizeof a, c->stats.median), an_num(b, sizeof b, c->stats.ci_low),
                 an_num(d, sizeof d, c->stats.ci_high),
                 an_num(e, sizeof e, first ? first->stats.median : NAN));
    dis = res_find(r, JT, src ? "src.0.cache.disabled.load" : "cache.disabled.load");
    warm = res_find(r, JT, src ? "src.0.cache.warm.load" : "cache.warm.load");
    if (dis) {
        const res_kv *k = res_env_get(r, "jit_cache_k");
        char mod[64];
        if (src) snprintf(mod, sizeof mod, "%s", what);
        else snprintf(mod, sizeof mod, "%.0f kernels", k && k->kind == RES_NUM ? k->num : NAN);
        an_store(r, JT, "driver_jit", "driver JIT", dis->stats.median, "ms",
                 "PTX of %s loaded in %s ms [%s, %s], %s ms from a warm cache", mod,
                 an_num(a, sizeof a, dis->stats.median),
                 an_num(b, sizeof b, dis->stats.ci_low), an_num(d, sizeof d, dis->stats.ci_high),
                 an_num(e, sizeof e, warm ? warm->stats.median : NAN));
    }
}

/* ------------------------------------------------------------ schema --- */

/* The keys the section writes: unit, state, name and region. */
static const sch_key jt_keys[] = {
    { "compile.<file>.ptx", "ms", RES_WARM,
      "NVRTC, <file> to PTX",
      "host clock around nvrtcCompileProgram (to PTX), interleaved with the section's "
      "other compiles, after one untimed round" },
    { "compile.<file>.cubin", "ms", RES_WARM,
      "NVRTC, <file> to cubin",
      "host clock around nvrtcCompileProgram (to cubin), interleaved with the "
      "section's other compiles, after one untimed round" },
    { "opt.fast_math", "ms", RES_WARM,
      "NVRTC, vector.cu, --use_fast_math",
      "host clock around nvrtcCompileProgram (to cubin, --use_fast_math), interleaved "
      "with the section's other compiles, after one untimed round" },
    { "opt.lineinfo", "ms", RES_WARM,
      "NVRTC, vector.cu, -lineinfo",
      "host clock around nvrtcCompileProgram (to cubin, -lineinfo), interleaved with "
      "the section's other compiles, after one untimed round" },
    { "opt.G", "ms", RES_WARM,
      "NVRTC, vector.cu, -G (device debug)",
      "host clock around nvrtcCompileProgram (to cubin, -G), interleaved with the "
      "section's other compiles, after one untimed round" },
    { "opt.edv", "ms", RES_WARM,
      "NVRTC, vector.cu, --extra-device-vectorization",
      "host clock around nvrtcCompileProgram (to cubin, --extra-device-vectorization), "
      "interleaved with the section's other compiles, after one untimed round" },
    { "opt.dopt", "ms", RES_WARM,
      "NVRTC, vector.cu, -dopt=on",
      "host clock around nvrtcCompileProgram (to cubin, -dopt=on), interleaved with "
      "the section's other compiles, after one untimed round" },
    { "synth.1.ptx", "ms", RES_WARM,
      "NVRTC, 1 kernels to PTX",
      "host clock around nvrtcCompileProgram (to PTX), interleaved with the section's "
      "other compiles, after one untimed round" },
    { "synth.1.cubin", "ms", RES_WARM,
      "NVRTC, 1 kernels to cubin",
      "host clock around nvrtcCompileProgram (to cubin), interleaved with the "
      "section's other compiles, after one untimed round" },
    { "synth.10.ptx", "ms", RES_WARM,
      "NVRTC, 10 kernels to PTX",
      "host clock around nvrtcCompileProgram (to PTX), interleaved with the section's "
      "other compiles, after one untimed round" },
    { "synth.10.cubin", "ms", RES_WARM,
      "NVRTC, 10 kernels to cubin",
      "host clock around nvrtcCompileProgram (to cubin), interleaved with the "
      "section's other compiles, after one untimed round" },
    { "synth.100.ptx", "ms", RES_WARM,
      "NVRTC, 100 kernels to PTX",
      "host clock around nvrtcCompileProgram (to PTX), interleaved with the section's "
      "other compiles, after one untimed round" },
    { "synth.100.cubin", "ms", RES_WARM,
      "NVRTC, 100 kernels to cubin",
      "host clock around nvrtcCompileProgram (to cubin), interleaved with the "
      "section's other compiles, after one untimed round" },
    { "opt.compute", "ms", RES_WARM,
      "NVRTC, vector.cu, -arch=compute_XY (PTX)",
      "host clock around nvrtcCompileProgram (to PTX), interleaved with the section's "
      "other compiles, after one untimed round; the samples of compile.vector.cu.ptx: "
      "the same compile, not made again" },
    { "opt.base", "ms", RES_WARM,
      "NVRTC, vector.cu, -arch=sm_XY (cubin)",
      "host clock around nvrtcCompileProgram (to cubin), interleaved with the "
      "section's other compiles, after one untimed round; the samples of "
      "compile.vector.cu.cubin: the same compile, not made again" },
    { "phases.<word>.<word>.<word>", "ms", RES_WARM,
      "NVRTC phase: <word> (<word>.cu)",
      "NVRTC's own --time report for one compile, one sample per compile (--rounds)" },
    { "nvrtc.dlopen", "ms", RES_PROCESS,
      "loading NVRTC (dlopen)",
      "host clock around dlopen of libnvrtc" },
    { "nvrtc.first", "ms", RES_PROCESS,
      "first compile in the process",
      "host clock around nvrtcCompileProgram, the source to PTX, the process's first" },
    { "nvrtc.second", "ms", RES_PROCESS,
      "second compile in the process",
      "host clock around nvrtcCompileProgram, the same source again" },
    { "cache.disabled.load", "ms", RES_PROCESS,
      "module load (cuModuleLoadDataEx)",
      "host clock around it" },
    { "cache.disabled.jit", "ms", RES_PROCESS,
      "driver JIT inside the load",
      "CU_JIT_WALL_TIME" },
    { "cache.disabled.get", "ms", RES_PROCESS,
      "first cuModuleGetFunction",
      "host clock around it" },
    { "cache.disabled.launch", "ms", RES_PROCESS,
      "first launch, enqueue",
      "host clock around the first cuLaunchKernel" },
    { "cache.disabled.launch_sync", "ms", RES_PROCESS,
      "first launch, enqueue + sync",
      "host clock from before cuLaunchKernel to the sync returning" },
    { "cache.empty.load", "ms", RES_PROCESS,
      "module load (cuModuleLoadDataEx)",
      "host clock around it" },
    { "cache.empty.jit", "ms", RES_PROCESS,
      "driver JIT inside the load",
      "CU_JIT_WALL_TIME" },
    { "cache.empty.get", "ms", RES_PROCESS,
      "first cuModuleGetFunction",
      "host clock around it" },
    { "cache.empty.launch", "ms", RES_PROCESS,
      "first launch, enqueue",
      "host clock around the first cuLaunchKernel" },
    { "cache.empty.launch_sync", "ms", RES_PROCESS,
      "first launch, enqueue + sync",
      "host clock from before cuLaunchKernel to the sync returning" },
    { "cache.warm.load", "ms", RES_PROCESS,
      "module load (cuModuleLoadDataEx)",
      "host clock around it" },
    { "cache.warm.jit", "ms", RES_PROCESS,
      "driver JIT inside the load",
      "CU_JIT_WALL_TIME" },
    { "cache.warm.get", "ms", RES_PROCESS,
      "first cuModuleGetFunction",
      "host clock around it" },
    { "cache.warm.launch", "ms", RES_PROCESS,
      "first launch, enqueue",
      "host clock around the first cuLaunchKernel" },
    { "cache.warm.launch_sync", "ms", RES_PROCESS,
      "first launch, enqueue + sync",
      "host clock from before cuLaunchKernel to the sync returning" },
    { "lazy.disabled.load", "ms", RES_PROCESS,
      "module load (cuModuleLoadDataEx)",
      "host clock around it" },
    { "lazy.disabled.jit", "ms", RES_PROCESS,
      "driver JIT inside the load",
      "CU_JIT_WALL_TIME" },
    { "lazy.disabled.get", "ms", RES_PROCESS,
      "first cuModuleGetFunction",
      "host clock around it" },
    { "lazy.disabled.launch", "ms", RES_PROCESS,
      "first launch, enqueue",
      "host clock around the first cuLaunchKernel" },
    { "lazy.disabled.launch_sync", "ms", RES_PROCESS,
      "first launch, enqueue + sync",
      "host clock from before cuLaunchKernel to the sync returning" },
    { "order.init_first.libcuda", "ms", RES_PROCESS,
      "loading libcuda",
      "host clock around dlopen + cuGetProcAddress" },
    { "order.init_first.init", "ms", RES_PROCESS,
      "cuInit",
      "host clock around it" },
    { "order.init_first.nvrtc", "ms", RES_PROCESS,
      "loading NVRTC",
      "host clock around dlopen" },
    { "order.init_first.compile", "ms", RES_PROCESS,
      "first NVRTC compile",
      "host clock around nvrtcCompileProgram, vector.cu to cubin" },
    { "order.compile_first.libcuda", "ms", RES_PROCESS,
      "loading libcuda",
      "host clock around dlopen + cuGetProcAddress" },
    { "order.compile_first.init", "ms", RES_PROCESS,
      "cuInit",
      "host clock around it" },
    { "order.compile_first.nvrtc", "ms", RES_PROCESS,
      "loading NVRTC",
      "host clock around dlopen" },
    { "order.compile_first.compile", "ms", RES_PROCESS,
      "first NVRTC compile",
      "host clock around nvrtcCompileProgram, vector.cu to cubin" },
    { "order.init_first.nopreload.libcuda", "ms", RES_PROCESS,
      "loading libcuda",
      "host clock around dlopen + cuGetProcAddress" },
    { "order.init_first.nopreload.init", "ms", RES_PROCESS,
      "cuInit",
      "host clock around it" },
    { "order.init_first.nopreload.nvrtc", "ms", RES_PROCESS,
      "loading NVRTC",
      "host clock around dlopen" },
    { "order.init_first.nopreload.compile", "ms", RES_PROCESS,
      "first NVRTC compile",
      "host clock around nvrtcCompileProgram, vector.cu to cubin" },
    { "order.compile_first.nopreload.libcuda", "ms", RES_PROCESS,
      "loading libcuda",
      "host clock around dlopen + cuGetProcAddress" },
    { "order.compile_first.nopreload.init", "ms", RES_PROCESS,
      "cuInit",
      "host clock around it" },
    { "order.compile_first.nopreload.nvrtc", "ms", RES_PROCESS,
      "loading NVRTC",
      "host clock around dlopen" },
    { "order.compile_first.nopreload.compile", "ms", RES_PROCESS,
      "first NVRTC compile",
      "host clock around nvrtcCompileProgram, vector.cu to cubin" },
    { "jitopt.O<N>.load", "ms", RES_PROCESS,
      "module load, CU_JIT_OPTIMIZATION_LEVEL <N>",
      "host clock around cuModuleLoadDataEx, JIT cache disabled" },
    { "jitopt.O<N>.jit", "ms", RES_PROCESS,
      "driver JIT, level <N>",
      "CU_JIT_WALL_TIME" },
    { "jitopt.O<N>.warm", "ms", RES_WARM,
      "vectorAdd over <n> floats, JIT level <N>",
      "events around one launch after warm-up" },
};

/* The keys of each --source, after "src.<i>.": unit, state, name and region. */
static const sch_key jt_src_keys[] = {
    { "ptx", "ms", RES_WARM,
      "NVRTC, --source <i>, to PTX",
      "host clock around nvrtcCompileProgram (to PTX), interleaved with the section's "
      "other compiles, after one untimed round" },
    { "cubin", "ms", RES_WARM,
      "NVRTC, --source <i>, to cubin",
      "host clock around nvrtcCompileProgram (to cubin), interleaved with the "
      "section's other compiles, after one untimed round" },
    { "opt.<word>", "ms", RES_WARM,
      "NVRTC, --source <i>, <the set's options>",
      "host clock around nvrtcCompileProgram (to cubin, <the set's options>), interleaved "
      "with the section's other compiles, after one untimed round" },
    { "phases.<word>", "ms", RES_WARM,
      "NVRTC phase: <word> (<file>)",
      "NVRTC's own --time report for one compile, one sample per compile (--rounds)" },
    { "nvrtc.dlopen", "ms", RES_PROCESS,
      "loading NVRTC (dlopen)",
      "host clock around dlopen of libnvrtc" },
    { "nvrtc.first", "ms", RES_PROCESS,
      "first compile in the process",
      "host clock around nvrtcCompileProgram, the source to PTX, the process's first" },
    { "nvrtc.second", "ms", RES_PROCESS,
      "second compile in the process",
      "host clock around nvrtcCompileProgram, the same source again" },
    { "cache.<word>.load", "ms", RES_PROCESS,
      "module load (cuModuleLoadDataEx)",
      "host clock around it" },
    { "cache.<word>.jit", "ms", RES_PROCESS,
      "driver JIT inside the load",
      "CU_JIT_WALL_TIME" },
    { "cache.<word>.func_load", "ms", RES_PROCESS,
      "cuFuncLoad of every function not loaded",
      "host clock summed over each cuFuncLoad" },
    { "cache.<word>.functions", "functions", RES_PROCESS,
      "functions in the module",
      "cuModuleGetFunctionCount" },
    { "lazy.disabled.load", "ms", RES_PROCESS,
      "module load (cuModuleLoadDataEx)",
      "host clock around it" },
    { "lazy.disabled.jit", "ms", RES_PROCESS,
      "driver JIT inside the load",
      "CU_JIT_WALL_TIME" },
    { "lazy.disabled.func_load", "ms", RES_PROCESS,
      "cuFuncLoad of every function not loaded",
      "host clock summed over each cuFuncLoad" },
    { "lazy.disabled.functions", "functions", RES_PROCESS,
      "functions in the module",
      "cuModuleGetFunctionCount" },
};


void jt_schema(sch_out *o)
{
    sch_put_table(o, NULL, jt_keys, sizeof jt_keys / sizeof jt_keys[0]);
    sch_put_table(o, "src.<i>.", jt_src_keys, sizeof jt_src_keys / sizeof jt_src_keys[0]);
}
