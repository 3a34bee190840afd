/* test_probe.c: unit tests of the probe's bookkeeping (src/probe/probe.c),
 * driven with constructed CUPTI callback data on a fake clock, against
 * figures worked out by hand; the record read back with res_read_lines. */
#include "testhelp.h"
#include "core/results.h"
#include "probe/precord.h"
#include "probe/probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fatbinary_section.h>

#include "probe/live.h"

#define T0_NS 1000000000000LL   /* the fake spawn */

static long long fake_ns = T0_NS;

static long long fake_clock(void)
{
    return fake_ns;
}

/* Set the fake clock to ms after the spawn. */
static void clock_at(double ms)
{
    fake_ns = T0_NS + (long long)(ms * 1e6);
}

/* One driver call named fname that returns rv, as CUPTI reports it: ENTER
 * at t0 ms, EXIT at t1 ms. */
static void call_named(CUpti_CallbackId cbid, const char *fname, const void *params, const char *sym,
                       CUresult rv, double t0, double t1)
{
    uint64_t corr = 0;
    CUpti_CallbackData cd;

    memset(&cd, 0, sizeof cd);
    cd.functionName = fname;
    cd.functionParams = params;
    cd.symbolName = sym;
    cd.correlationData = &corr;
    cd.functionReturnValue = &rv;
    cd.callbackSite = CUPTI_API_ENTER;
    clock_at(t0);
    pb_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cd);
    cd.callbackSite = CUPTI_API_EXIT;
    clock_at(t1);
    pb_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cd);
}

/* One driver call that succeeds. */
static void call(CUpti_CallbackId cbid, const char *fname, const void *params, const char *sym,
                 double t0, double t1)
{
    call_named(cbid, fname, params, sym, CUDA_SUCCESS, t0, t1);
}

/* One driver call that returns rv. */
static void call_rv(CUpti_CallbackId cbid, const void *params, const char *sym, CUresult rv,
                    double t0, double t1)
{
    call_named(cbid, "a call", params, sym, rv, t0, t1);
}

/* A resource event at ms; module: cubinSize (0: a context created). */
static void resource(CUpti_CallbackId cbid, size_t cubin_size, double ms)
{
    CUpti_ModuleResourceData mod;
    CUpti_ResourceData rd;

    memset(&mod, 0, sizeof mod);
    memset(&rd, 0, sizeof rd);
    mod.cubinSize = cubin_size;
    rd.resourceDescriptor = cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED ? &mod : NULL;
    clock_at(ms);
    pb_callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

/* ------------------------------------------------------------ images --- */

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* A fatbin of n entries of the given kinds (1 PTX, 2 ELF), each a 64-byte
 * header and 16 bytes of payload, into b (8-byte aligned); its size, or
 * with `lie` an entry size past its end. */
static size_t fatbin(uint64_t *words, size_t nwords, const unsigned *kinds, size_t n, int lie)
{
    unsigned char *b = (unsigned char *)words;
    size_t i, size = n * (64 + 16);

    memset(words, 0, nwords * sizeof *words);
    put32(b, 0xBA55ED50u);
    put16(b + 4, 1);
    put16(b + 6, 16);
    put64(b + 8, size);
    for (i = 0; i < n; i++) {
        unsigned char *e = b + 16 + i * 80;
        put16(e, kinds[i]);
        put32(e + 4, 64);
        put64(e + 8, lie ? 4096 : 16);
        memcpy(e + 64, kinds[i] == 1 ? ".version 8.0\n" : "\177ELF", kinds[i] == 1 ? 13 : 4);
    }
    return 16 + size;
}

/* ----------------------------------------------------------- reading --- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    size_t n;

    if (!f) return NULL;
    buf = malloc(1 << 20);
    n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* The record of this process in dir, read into r; its text (free it), or NULL. */
static char *read_record(const char *dir, results *r)
{
    char path[512], why[256];
    char *text;

    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)getpid());
    res_init(r);
    if (!(text = slurp(path))) return NULL;
    if (res_read_lines(r, text, why, sizeof why) < 0) {
        printf("probe: res_read_lines: %s\n", why);
        free(text);
        return NULL;
    }
    {
        /* Every record the probe writes passes the parent's reader too. */
        prc_record rec;
        if (prc_read(text, strlen(text), (long)getpid(), &rec, why, sizeof why) != 0) {
            printf("probe: the parent's reader refuses the record: %s\n", why);
            free(text);
            res_free(r);
            res_init(r);
            return NULL;
        }
        prc_free(&rec);
    }
    return text;
}

/* Figure key's one sample, NaN when absent. */
static double fig(const results *r, const char *key)
{
    const res_meas *m = res_find(r, PRC_SECTION, key);
    return m && m->nsamples == 1 ? m->samples[0] : NAN;
}

static const char *env(const results *r, const char *key)
{
    const res_kv *kv = res_env_get(r, key);
    return kv && kv->kind == RES_STR && kv->str ? kv->str : "";
}

/* The end line is the last and counts the env, m and d lines. */
static int end_line_right(const char *text, const results *r)
{
    char want[64];
    const char *end = strstr(text, "\nend\t");
    snprintf(want, sizeof want, "\nend\t%ld\t%zu\n", (long)getpid(), r->nenv + r->nm + r->nd);
    return end && strcmp(end, want) == 0;
}

static size_t count_lines(const char *text, const char *prefix)
{
    size_t n = 0, len = strlen(prefix);
    const char *p = text;
    for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, prefix, len) == 0) n++;
    return n;
}

/* ------------------------------------------------------------- steps --- */

/* Loads: PTX text, a cubin, a PTX fatbin, a fatbin with SASS, the
 * runtime's wrapper of a PTX fatbin, two loads from files, a fatbin whose
 * entry runs past its end, and a call that is not enabled. */
static void drive_loads(void)
{
    static uint64_t ptx_fb[64], mixed_fb[64], bad_fb[64];
    static const unsigned ptx_only[] = { 1 }, mixed[] = { 1, 2 };
    static const char ptx_text[] = "  \n// Generated by NVIDIA NVVM Compiler\n.version 8.0\n";
    static const char cubin[] = "\177ELF\2\1\1";
    static __fatBinC_Wrapper_t wrapper;
    CUmodule mod;
    CUlibrary lib;
    cuModuleLoadData_params md = { &mod, ptx_text }, mc = { &mod, cubin }, mb = { &mod, bad_fb };
    cuModuleLoadFatBinary_params mf = { &mod, mixed_fb };
    cuLibraryLoadData_params lp, lw;
    cuModuleLoad_params ml = { &mod, "k.cubin" };
    cuLibraryLoadFromFile_params lf;
    cuMemAlloc_v2_params ma;

    fatbin(ptx_fb, 64, ptx_only, 1, 0);
    fatbin(mixed_fb, 64, mixed, 2, 0);
    fatbin(bad_fb, 64, ptx_only, 1, 1);
    wrapper.magic = FATBINC_MAGIC;
    wrapper.version = 1;
    wrapper.data = (const unsigned long long *)ptx_fb;
    memset(&lp, 0, sizeof lp);
    memset(&lf, 0, sizeof lf);
    memset(&ma, 0, sizeof ma);
    lp.library = &lib;
    lp.code = ptx_fb;
    lw = lp;
    lw.code = &wrapper;
    lf.library = &lib;
    lf.fileName = "k.fatbin";
    call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, "cuModuleLoadData", &md, NULL, 6, 8);
    call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, "cuModuleLoadData", &mc, NULL, 8, 9);
    call(CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData, "cuLibraryLoadData", &lp, NULL, 10, 14);
    call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary, "cuModuleLoadFatBinary", &mf, NULL, 14, 15);
    call(CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData, "cuLibraryLoadData", &lw, NULL, 15, 16);
    call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, "cuModuleLoad", &ml, NULL, 16, 16.5);
    call(CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile, "cuLibraryLoadFromFile", &lf, NULL, 16.5, 17);
    call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, "cuModuleLoadData", &mb, NULL, 17, 18);
    call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &ma, NULL, 18, 19);
    resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, 3u << 20, 19);
    resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, 1u << 20, 19.5);
}

/* Kernel A (F1) got by cuModuleGetFunction (1 ms), kernel B (F2) by
 * cuKernelGetFunction (3 ms); A launched first (5 ms), then B
 * (cuLaunchKernelEx, 2 ms), then A twice more (0.5 and 0.25 ms); then a
 * get of A after its launch (1 ms), which its first use does not count. */
static void drive_kernels(CUfunction f1, CUfunction f2, const char *dir, results *first)
{
    CUfunction got1 = f1, got2 = f2;
    CUkernel kern = (CUkernel)(uintptr_t)0x5000;
    cuModuleGetFunction_params gf = { &got1, NULL, "kA" };
    cuKernelGetFunction_params kf = { &got2, kern }, kf1 = { &got1, kern };
    cuLaunchKernel_params la;
    cuLaunchKernel_ptsz_params lz;
    cuLaunchKernelEx_params lx;
    char *text;

    memset(&la, 0, sizeof la);
    memset(&lz, 0, sizeof lz);
    memset(&lx, 0, sizeof lx);
    la.f = lz.f = f1;
    lx.f = f2;
    call(CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction, "cuModuleGetFunction", &gf, NULL, 20, 21);
    call(CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction, "cuKernelGetFunction", &kf, NULL, 21, 24);
    call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &la, "kA", 30, 35);
    text = read_record(dir, first);
    th_check("probe: the first launch wrote the record \"first kernel\", with at.first_kernel 30 "
             "and one first launch of 5 ms, no at.exit",
             text && strcmp(env(first, "written"), "first kernel") == 0 &&
             fig(first, "at.first_kernel") == 30 && fig(first, "launch_first.n") == 1 &&
             fig(first, "launch_first.ms") == 5 && isnan(fig(first, "at.exit")) &&
             end_line_right(text, first));
    free(text);
    call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx", &lx, "kB", 40, 42);
    call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &la, "kA", 50, 50.5);
    call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, "cuLaunchKernel_ptsz", &lz, "kA", 51, 51.25);
    call(CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction, "cuKernelGetFunction", &kf1, NULL, 60, 61);
}

/* A forked child runs the exit path: it writes nothing, under its
 * parent's pid or its own. */
static void check_fork(const char *dir)
{
    char path[512], child_path[512];
    int status = -1;
    pid_t kid;

    snprintf(path, sizeof path, "%s/%ld.rec", dir, (long)getpid());
    unlink(path);
    fflush(stdout);
    kid = fork();
    if (kid == 0) {
        pb_exit();
        _exit(pb_write_record("exit") == 1 ? 0 : 1);
    }
    waitpid(kid, &status, 0);
    snprintf(child_path, sizeof child_path, "%s/%ld.rec", dir, (long)kid);
    th_check("probe: a forked child's exit path writes no record (not under its parent's pid, "
             "not under its own), and pb_write_record says it is not set up there",
             kid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
             access(path, F_OK) != 0 && access(child_path, F_OK) != 0);
}

/* The exit record against the figures worked out by hand. */
static void check_record(const char *dir)
{
    const res_derived *s1, *s2;
    results r;
    char *text = read_record(dir, &r);

    th_check("probe: the exit record is there, reads back, env written exit, its end line right",
             text && strcmp(env(&r, "written"), "exit") == 0 && end_line_right(text, &r) &&
             strcmp(env(&r, "record"), PRC_FORMAT) == 0);
    th_check("probe: at.probe 2, at.context 5, at.first_kernel 30, at.exit 100; contexts.n 1",
             fig(&r, "at.probe") == 2 && fig(&r, "at.context") == 5 &&
             fig(&r, "at.first_kernel") == 30 && fig(&r, "at.exit") == 100 &&
             fig(&r, "contexts.n") == 1);
    th_check("probe: module loads 5 (2 + 1 + 1 + 0.5 + 1 ms), library loads 3 (4 + 1 + 0.5 ms)",
             fig(&r, "module_load.n") == 5 && fig(&r, "module_load.ms") == 5.5 &&
             fig(&r, "library_load.n") == 3 && fig(&r, "library_load.ms") == 5.5);
    th_check("probe: ptx.n 3: PTX text, a PTX fatbin and its wrapper; not a cubin, a fatbin "
             "with SASS, a file or a fatbin whose entry runs past its end",
             fig(&r, "ptx.n") == 3);
    th_check("probe: loaded.n 2, loaded.mib 4 (cubinSize 3 MiB + 1 MiB)",
             fig(&r, "loaded.n") == 2 && fig(&r, "loaded.mib") == 4);
    th_check("probe: two kernels, one launched 3 times: launch_first.n 2 (7 ms), "
             "launch_later.n 2 (0.75 ms)",
             fig(&r, "launch_first.n") == 2 && fig(&r, "launch_first.ms") == 7 &&
             fig(&r, "launch_later.n") == 2 && fig(&r, "launch_later.ms") == 0.75);
    th_check("probe: gets: get_function 1 (1 ms), kernel_function 2 (4 ms); calls never made "
             "are 0 with no .ms",
             fig(&r, "get_function.n") == 1 && fig(&r, "get_function.ms") == 1 &&
             fig(&r, "kernel_function.n") == 2 && fig(&r, "kernel_function.ms") == 4 &&
             fig(&r, "get_kernel.n") == 0 && isnan(fig(&r, "get_kernel.ms")) &&
             fig(&r, "func_load.n") == 0 && isnan(fig(&r, "func_load.ms")));
    s1 = res_derived_find(&r, PRC_SECTION, "slowest.1");
    s2 = res_derived_find(&r, PRC_SECTION, "slowest.2");
    th_check("probe: slowest.1 is kA, 6 ms (get 1 + launch 5); slowest.2 kB, 5 ms (get 3 + "
             "launch 2); no third",
             s1 && s2 && strcmp(s1->name, "kA") == 0 && s1->value == 6 &&
             res_derived_num(s1, "get_ms") == 1 && res_derived_num(s1, "launch_ms") == 5 &&
             strcmp(s2->name, "kB") == 0 && s2->value == 5 && res_derived_num(s2, "get_ms") == 3 &&
             res_derived_num(s2, "launch_ms") == 2 && !res_derived_find(&r, PRC_SECTION, "slowest.3"));
    th_check("probe: rss.peak read at exit; mem_source says none exactly when no mem.first_kernel",
             fig(&r, "rss.peak") > 0 &&
             (strcmp(env(&r, "mem_source"), "none") == 0) == isnan(fig(&r, "mem.first_kernel")));
    th_check("probe: spans capped at the 5 asked for, the first cuModuleLoadData at 6 ms for 2 ms",
             text && count_lines(text, "span\t") == 5 &&
             strstr(text, "\tcuModuleLoadData\t6\t2\n") && strstr(text, "\tcuLibraryLoadData\t15\t1\n"));
    free(text);
    res_free(&r);
}

/* More functions than the table holds: the launches of those beyond count
 * as later launches. */
static void check_full_table(const char *dir)
{
    cuLaunchKernel_params la;
    results r;
    char *text;
    uintptr_t i;

    clock_at(0.5);   /* the probe's load, before the launches (the record's order) */
    pb_init_for_test(dir, T0_NS, 0);
    memset(&la, 0, sizeof la);
    for (i = 0; i < PB_MAX_KERNELS + 2; i++) {
        la.f = (CUfunction)(0x10000 + 16 * i);
        call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &la, "k", 1, 1);
    }
    clock_at(2);
    pb_exit();
    text = read_record(dir, &r);
    th_check("probe: beyond PB_MAX_KERNELS functions, launches count as later ones",
             text && fig(&r, "launch_first.n") == PB_MAX_KERNELS && fig(&r, "launch_later.n") == 2 &&
             res_derived_find(&r, PRC_SECTION, "slowest.10") && count_lines(text, "span\t") == 0);
    free(text);
    res_free(&r);
}

/* The runtime launches by the CUkernel that cuLibraryGetKernel returned
 * (a CUkernel passes as a CUfunction): the gets of that handle, by
 * cuLibraryGetKernel and cuKernelGetFunction, are its first use's. */
static void check_kernel_handle(const char *dir)
{
    CUkernel k = NULL, want = (CUkernel)(uintptr_t)0x7000;
    CUfunction f = (CUfunction)(uintptr_t)0x7100;
    cuLibraryGetKernel_params gk = { &k, NULL, "kC" };
    cuKernelGetFunction_params kf = { &f, want };
    cuLaunchKernel_params la;
    const res_derived *d;
    results r;
    char *text;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    k = want;   /* what the get returns, as the driver would write it */
    call(CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel, "cuLibraryGetKernel", &gk, NULL, 10, 11);
    call(CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction, "cuKernelGetFunction", &kf, NULL, 12, 14);
    memset(&la, 0, sizeof la);
    la.f = (CUfunction)(uintptr_t)want;
    call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &la, "kC", 20, 25);
    clock_at(30);
    pb_exit();
    text = read_record(dir, &r);
    d = res_derived_find(&r, PRC_SECTION, "slowest.1");
    th_check("probe: a launch by the CUkernel handle: its first use 8 ms = gets 1 + 2, launch 5",
             text && d && d->value == 8 && res_derived_num(d, "get_ms") == 3 &&
             res_derived_num(d, "launch_ms") == 5 && strcmp(d->name, "kC") == 0 &&
             fig(&r, "get_kernel.ms") == 1 && fig(&r, "kernel_function.ms") == 2);
    free(text);
    res_free(&r);
}

/* Threads launching at once (the probe's own clock): every launch counted
 * once, each function's first told apart, the spans capped. */
#define TH_THREADS 4
#define TH_LAUNCHES 1000
#define TH_FUNCS 4      /* each thread's own */

static void *launcher(void *arg)
{
    uintptr_t base = (uintptr_t)arg, i;
    cuLaunchKernel_params la;
    uint64_t corr;
    CUpti_CallbackData cd;

    memset(&la, 0, sizeof la);
    memset(&cd, 0, sizeof cd);
    cd.functionName = "cuLaunchKernel";
    cd.functionParams = &la;
    cd.symbolName = "k";
    cd.correlationData = &corr;
    for (i = 0; i < TH_LAUNCHES; i++) {
        la.f = (CUfunction)(base + 16 * (i % TH_FUNCS));
        cd.callbackSite = CUPTI_API_ENTER;
        pb_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cd);
        cd.callbackSite = CUPTI_API_EXIT;
        pb_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cd);
    }
    return NULL;
}

static void check_threads(const char *dir)
{
    pthread_t t[TH_THREADS];
    size_t i, started = 0;
    results r;
    char *text;

    pb_set_clock_for_test(NULL);
    pb_init_for_test(dir, 0, 100);
    for (i = 0; i < TH_THREADS; i++)
        if (pthread_create(&t[i], NULL, launcher, (void *)(uintptr_t)(0x100000 * (i + 1))) == 0) started++;
    for (i = 0; i < started; i++) pthread_join(t[i], NULL);
    pb_exit();
    text = read_record(dir, &r);
    th_check("probe: 4 threads of 1000 launches of 4 functions each: 16 first launches, 3984 "
             "later, one at.first_kernel, 100 spans (the cap)",
             started == TH_THREADS && text && fig(&r, "launch_first.n") == TH_THREADS * TH_FUNCS &&
             fig(&r, "launch_later.n") == TH_THREADS * (TH_LAUNCHES - TH_FUNCS) &&
             fig(&r, "at.first_kernel") >= fig(&r, "at.probe") && count_lines(text, "span\t") == 100 &&
             res_derived_find(&r, PRC_SECTION, "slowest.10") && end_line_right(text, &r));
    free(text);
    res_free(&r);
    pb_set_clock_for_test(fake_clock);
}

/* A record that cannot be written, twice: one line on stderr, the first. */
static void check_said_once(void)
{
    char path[] = "/tmp/harness-probe-err.XXXXXX", want[128], got[512];
    int fd = mkstemp(path), saved = dup(2), r1, r2;
    ssize_t n = -1;

    if (fd < 0 || saved < 0) {
        th_check("probe: a file for stderr", 0);
        return;
    }
    fflush(stderr);
    dup2(fd, 2);
    pb_init_for_test("/nonexistent-dir", T0_NS, 0);
    r1 = pb_write_record("first kernel");
    r2 = pb_write_record("exit");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    if (lseek(fd, 0, SEEK_SET) == 0) n = read(fd, got, sizeof got - 1);
    got[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    snprintf(want, sizeof want, "harness-probe: cannot write /nonexistent-dir/%ld.rec: No such file "
             "or directory\n", (long)getpid());
    th_check("probe: two writes that fail: both -1, one line on stderr naming the path and the reason",
             r1 == -1 && r2 == -1 && strcmp(got, want) == 0);
}

/* The driver a failed call's entry reads: 300 MiB free; names for the
 * errors used below, a name that is not one for 999, none for others. */
static CUresult fake_mem_info(size_t *free_b, size_t *total_b)
{
    *free_b = (size_t)300 << 20;
    *total_b = (size_t)1000 << 20;
    return CUDA_SUCCESS;
}

static CUresult fake_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
       : r == CUDA_ERROR_INVALID_IMAGE ? "CUDA_ERROR_INVALID_IMAGE"
       : r == CUDA_ERROR_UNKNOWN ? "not a name; with spaces" : NULL;
    return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A driver that answers nothing (as where none is loaded: a GPU machine's
 * test process may have loaded the real one). */
static CUresult none_mem_info(size_t *free_b, size_t *total_b)
{
    (void)free_b;
    (void)total_b;
    return CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult none_error_name(CUresult r, const char **s)
{
    (void)r;
    *s = NULL;
    return CUDA_ERROR_NOT_INITIALIZED;
}

/* The fail.<i> entry i of r: 1 when it is named name, at ms, with text and
 * error, free_mib free (NaN: none). */
static int fail_is(const results *r, int i, const char *name, double ms, const char *text, int error,
                   double free_mib)
{
    char key[32];
    const res_derived *d;
    snprintf(key, sizeof key, "fail.%d", i);
    d = res_derived_find(r, PRC_SECTION, key);
    if (!d) return 0;
    if (strcmp(d->name, name) != 0 || d->value != ms || strcmp(d->text, text) != 0 ||
        res_derived_num(d, "error") != error) {
        printf("probe: %s is %s at %g, '%s', error %g\n", key, d->name, d->value, d->text,
               res_derived_num(d, "error"));
        return 0;
    }
    return isnan(free_mib) ? isnan(res_derived_num(d, "free_mib")) : res_derived_num(d, "free_mib") == free_mib;
}

/* Failed calls: a library load of an image in this program (named by the
 * file that holds it), a load from a file, a get, a first launch (kept),
 * a later launch (not: it loads nothing), an error the driver names badly;
 * the record is written at the first failure; at most PRC_MAX_FAILS. */
static void check_failures(const char *dir)
{
    static const unsigned char image[64] = { 1, 2, 3 };
    CUmodule mod;
    CUlibrary lib;
    CUfunction got = NULL;
    cuLibraryLoadData_params lp;
    cuModuleLoad_params ml = { &mod, "/some/dir/k.cubin" };
    cuModuleGetFunction_params gf = { &got, NULL, "kMissing" };
    cuLaunchKernel_params la;
    results r;
    char *text;
    int i, ok;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    pb_set_failure_driver_for_test(fake_mem_info, fake_error_name);
    memset(&lp, 0, sizeof lp);
    lp.library = &lib;
    lp.code = image;
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData, &lp, NULL, CUDA_ERROR_OUT_OF_MEMORY, 10, 12);
    text = read_record(dir, &r);
    th_check("probe: a failed library load writes the record at once (written \"failure\"): "
             "fail.1 the image's file (this test's program), at 10 ms, its call and error, 300 MiB free",
             text && strcmp(env(&r, "written"), "failure") == 0 &&
             fail_is(&r, 1, "unit", 10, "cuLibraryLoadData CUDA_ERROR_OUT_OF_MEMORY", 2, 300));
    free(text);
    res_free(&r);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &ml, NULL, CUDA_ERROR_INVALID_IMAGE, 13, 14);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction, &gf, NULL, CUDA_ERROR_UNKNOWN, 15, 16);
    memset(&la, 0, sizeof la);
    la.f = (CUfunction)(uintptr_t)0x9000;
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &la, "kOOM", CUDA_ERROR_OUT_OF_MEMORY, 20, 21);
    la.f = (CUfunction)(uintptr_t)0x9100;
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &la, "kFine", CUDA_SUCCESS, 22, 23);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &la, "kFine", CUDA_ERROR_LAUNCH_FAILED, 24, 25);
    pb_set_failure_driver_for_test(none_mem_info, none_error_name);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &ml, NULL, CUDA_ERROR_FILE_NOT_FOUND, 26, 27);
    clock_at(30);
    pb_exit();
    text = read_record(dir, &r);
    th_check("probe: fail.2 a load from a file, by its name; fail.3 a get, by the name asked for, "
             "the driver's bad name as ?; fail.4 a first launch by its symbol; fail.5 read without "
             "a driver (no free memory, error ?); a later launch's failure not kept",
             text && fail_is(&r, 2, "k.cubin", 13, "cuModuleLoad CUDA_ERROR_INVALID_IMAGE", 200, 300) &&
             fail_is(&r, 3, "kMissing", 15, "cuModuleGetFunction ?", 999, 300) &&
             fail_is(&r, 4, "kOOM", 20, "cuLaunchKernel CUDA_ERROR_OUT_OF_MEMORY", 2, 300) &&
             fail_is(&r, 5, "k.cubin", 26, "cuModuleLoad ?", 301, NAN) &&
             !res_derived_find(&r, PRC_SECTION, "fail.6"));
    free(text);
    res_free(&r);
    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    for (i = 0; i < PRC_MAX_FAILS + 3; i++)
        call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &ml, NULL, CUDA_ERROR_OUT_OF_MEMORY, 2 + i, 2 + i);
    clock_at(50);
    pb_exit();
    text = read_record(dir, &r);
    ok = text != NULL;
    for (i = 1; i <= PRC_MAX_FAILS && ok; i++) ok = fail_is(&r, i, "k.cubin", 1 + i, "cuModuleLoad ?", 2, NAN);
    th_check("probe: 19 failed loads: the first 16 kept, in order", ok &&
             !res_derived_find(&r, PRC_SECTION, "fail.17") && fig(&r, "module_load.n") == PRC_MAX_FAILS + 3);
    free(text);
    res_free(&r);
    pb_set_failure_driver_for_test(NULL, NULL);
}

/* A context's creation is kept when it fails (under EAGER it loads every
 * library loaded before it), named "the context"; one that succeeds is
 * not counted anywhere. */
static void check_context_failure(const char *dir)
{
    CUcontext ctx = NULL;
    cuDevicePrimaryCtxRetain_params pr = { &ctx, 0 };
    results r;
    char *text;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    pb_set_failure_driver_for_test(none_mem_info, fake_error_name);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRetain, &pr, NULL, CUDA_SUCCESS, 3, 4);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRetain, &pr, NULL, CUDA_ERROR_OUT_OF_MEMORY, 5, 9);
    text = read_record(dir, &r);
    th_check("probe: a failed cuDevicePrimaryCtxRetain writes the record at once: fail.1 the context, "
             "at 5 ms, its call and error, no free memory read; the one that succeeded not kept",
             text && strcmp(env(&r, "written"), "failure") == 0 &&
             fail_is(&r, 1, "the context", 5, "cuDevicePrimaryCtxRetain CUDA_ERROR_OUT_OF_MEMORY", 2, NAN) &&
             !res_derived_find(&r, PRC_SECTION, "fail.2"));
    free(text);
    res_free(&r);
    pb_set_failure_driver_for_test(NULL, NULL);
}

/* A device allocation is kept when it fails, named by its size (worked
 * out by hand: 64 MiB; 3 x 0.5 MiB = 1.5 MiB by pitch; 4096 bytes, an
 * async one; 2 GiB = 2048 MiB by cuMemCreate); one that succeeds is not
 * counted anywhere. */
static void check_alloc_failure(const char *dir)
{
    CUdeviceptr p = 0;
    size_t pitch = 0;
    CUmemGenericAllocationHandle h = 0;
    cuMemAlloc_v2_params a = { &p, (size_t)64 << 20 };
    cuMemAllocPitch_v2_params ap = { &p, &pitch, (size_t)512 << 10, 3, 4 };
    cuMemAllocAsync_params aa = { &p, 4096, NULL };
    cuMemCreate_params mc = { &h, (size_t)2 << 30, NULL, 0 };
    results r;
    char *text;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    pb_set_failure_driver_for_test(fake_mem_info, fake_error_name);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &a, NULL, CUDA_SUCCESS, 3, 4);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &a, NULL, CUDA_ERROR_OUT_OF_MEMORY, 5, 6);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, &ap, NULL, CUDA_ERROR_OUT_OF_MEMORY, 7, 8);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, &aa, NULL, CUDA_ERROR_OUT_OF_MEMORY, 9, 10);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &mc, NULL, CUDA_ERROR_OUT_OF_MEMORY, 11, 12);
    text = read_record(dir, &r);
    th_check("probe: failed device allocations written at once, each named by its size: 64 MiB, "
             "1.5 MiB (pitch 512 KiB x 3), 4096 bytes, 2048 MiB (cuMemCreate), 300 MiB free; "
             "the one that succeeded not kept nor counted",
             text && strcmp(env(&r, "written"), "failure") == 0 &&
             fail_is(&r, 1, "64 MiB", 5, "cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY", 2, 300) &&
             fail_is(&r, 2, "1.5 MiB", 7, "cuMemAllocPitch_v2 CUDA_ERROR_OUT_OF_MEMORY", 2, 300) &&
             fail_is(&r, 3, "4096 bytes", 9, "cuMemAllocAsync CUDA_ERROR_OUT_OF_MEMORY", 2, 300) &&
             fail_is(&r, 4, "2048 MiB", 11, "cuMemCreate CUDA_ERROR_OUT_OF_MEMORY", 2, 300) &&
             !res_derived_find(&r, PRC_SECTION, "fail.5") && fig(&r, "module_load.n") == 0);
    free(text);
    res_free(&r);
    pb_set_failure_driver_for_test(NULL, NULL);
}

/* The caller of a failed call, picked from stacks' objects worked out by
 * hand: past the driver's frames, cudart skipped, the first other. */
static void check_caller_pick(void)
{
    static const char *const torch[] = {
        "/x/harness-probe.so", "/y/libcupti.so.13", "/usr/lib/libcuda.so.1", "/usr/lib/libcuda.so.1",
        "/t/libcudart.so.13", "/t/libcufft.so.12", "/t/libtorch_cuda.so", "python3"
    };
    static const char *const unknown[] = {
        "/x/harness-probe.so", "/usr/lib/libcuda.so.1", NULL, "", "/t/libcublas.so.13", "python3"
    };
    static const char *const runtime[] = { "/usr/lib/libcuda.so.1", "/t/libcudart.so.13", NULL };
    static const char *const none[] = { "/x/harness-probe.so", "/t/libcufft.so.12" };
    static const char *const only[] = { "/x/harness-probe.so", "/usr/lib/libcuda.so.1" };
    const char *drv = "/usr/lib/libcuda.so.1";
    char a[64], b[64], c[64], d[64], e[64], f[64], g[8];

    pb_caller_pick(torch, 8, drv, a, sizeof a);
    pb_caller_pick(unknown, 6, drv, b, sizeof b);
    pb_caller_pick(runtime, 3, drv, c, sizeof c);
    pb_caller_pick(none, 2, drv, d, sizeof d);
    pb_caller_pick(only, 2, drv, e, sizeof e);
    pb_caller_pick(torch, 8, NULL, f, sizeof f);
    pb_caller_pick(torch, 8, drv, g, sizeof g);
    th_check("probe: a failed call's caller, past the driver and cudart: libcufft.so.12; unknown "
             "frames skipped: libcublas.so.13; only cudart after the driver: it; no driver frame, "
             "nothing after it, no driver: none; truncated to the buffer",
             strcmp(a, "libcufft.so.12") == 0 && strcmp(b, "libcublas.so.13") == 0 &&
             strcmp(c, "libcudart.so.13") == 0 && !d[0] && !e[0] && !f[0] &&
             strcmp(g, "libcuff") == 0);
}

/* The stand-in driver's fake_call_inside runs the callback, as the
 * driver runs CUPTI's: a failed allocation made from this program through
 * it is named "called by" this program (the name glibc's dladdr gives the
 * main program: its argv[0], as program_invocation_short_name is). */
typedef struct alloc_call {
    cuMemAlloc_v2_params *a;
} alloc_call;

static int alloc_inside(void *arg)
{
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, ((alloc_call *)arg)->a, NULL,
            CUDA_ERROR_OUT_OF_MEMORY, 5, 6);
    return 0;
}

static void check_alloc_caller(const char *dir)
{
    CUdeviceptr p = 0;
    cuMemAlloc_v2_params a = { &p, (size_t)3 << 20 };
    alloc_call ac = { &a };
    char exe[4096], lib[4200], want[300];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    void *h;
    int (*inside)(int (*)(void *), void *) = NULL;
    results r;
    char *text;

    if (n <= 0) {
        th_check("probe: /proc/self/exe read, for the stand-in driver beside it", 0);
        return;
    }
    exe[n] = '\0';
    snprintf(lib, sizeof lib, "%s/libfakecuda.so", dirname(exe));
    h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        void *sym = dlsym(h, "fake_call_inside");
        memcpy(&inside, &sym, sizeof sym);
    }
    if (!h || !inside) {
        th_check("probe: the stand-in driver libfakecuda.so beside the unit test, with fake_call_inside",
                 0);
        if (h) dlclose(h);
        return;
    }
    snprintf(want, sizeof want, "3 MiB (called by %s)", program_invocation_short_name);
    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    pb_set_failure_driver_for_test(fake_mem_info, fake_error_name);
    pb_set_driver_object_for_test((const void *)inside);
    inside(alloc_inside, &ac);
    /* Called from this program directly: no driver frame, no caller. */
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &a, NULL, CUDA_ERROR_OUT_OF_MEMORY, 7, 8);
    text = read_record(dir, &r);
    th_check("probe: a failed allocation made through the driver named by its caller (this "
             "program); one made beside it by its size alone",
             text && fail_is(&r, 1, want, 5, "cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY", 2, 300) &&
             fail_is(&r, 2, "3 MiB", 7, "cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY", 2, 300));
    free(text);
    res_free(&r);
    pb_set_driver_object_for_test(NULL);
    pb_set_failure_driver_for_test(NULL, NULL);
    dlclose(h);
}

/* Loads after the first kernel, in bursts: a burst is the loads with no
 * launch between them; its span runs from its first load's entry to its
 * last one's exit, less the gets made in between (worked out by hand:
 * loads at 100-110 and 120-130 with a get at 112-115: n 2, ms 20, span
 * 30 - 3 = 27; after a launch, a load at 150-152 starts a second). */
static void check_bursts(const char *dir)
{
    CUmodule mod;
    CUfunction got = NULL;
    cuModuleLoad_params ml = { &mod, "/some/dir/k.cubin" };
    cuModuleGetFunction_params gf = { &got, NULL, "kGot" };
    cuLaunchKernel_params la;
    const res_derived *a, *b;
    results r;
    char *text;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    memset(&la, 0, sizeof la);
    la.f = (CUfunction)(uintptr_t)0x7000;
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &la, "kFirst", CUDA_SUCCESS, 10, 11);
    pb_set_mem_info_for_test(fake_mem_info);     /* as the first kernel takes a driver's */
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &ml, NULL, CUDA_SUCCESS, 100, 110);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction, &gf, NULL, CUDA_SUCCESS, 112, 115);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &ml, NULL, CUDA_SUCCESS, 120, 130);
    la.f = (CUfunction)(uintptr_t)0x7100;
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &la, "kNext", CUDA_SUCCESS, 140, 141);
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &ml, NULL, CUDA_SUCCESS, 150, 152);
    clock_at(160);
    pb_exit();
    text = read_record(dir, &r);
    a = text ? res_derived_find(&r, PRC_SECTION, "load.1") : NULL;
    b = text ? res_derived_find(&r, PRC_SECTION, "load.2") : NULL;
    th_check("probe: a burst of two loads with a get between: at 100, n 2, ms 20, span 27 (30 less the get's 3)",
             a && strcmp(a->name, "module") == 0 && a->value == 100 && res_derived_num(a, "n") == 2 &&
             res_derived_num(a, "ms") == 20 && res_derived_num(a, "span_ms") == 27);
    th_check("probe: a load after a launch starts a burst of its own: at 150, n 1, ms 2, span 2",
             b && b->value == 150 && res_derived_num(b, "n") == 1 && res_derived_num(b, "ms") == 2 &&
             res_derived_num(b, "span_ms") == 2 && !res_derived_find(&r, PRC_SECTION, "load.3"));
    free(text);
    res_free(&r);
    pb_set_mem_info_for_test(NULL);
}

/* The stream 0xB0 has work in flight; every other is idle. */
static CUresult fake_query(CUstream st)
{
    return st == (CUstream)(uintptr_t)0xB0 ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

/* The use.<i> entry named name in r, or NULL. */
static const res_derived *use_named(const results *r, const char *name)
{
    size_t i;
    for (i = 0; i < r->nd; i++)
        if (strncmp(r->d[i].key, "use.", 4) == 0 && strcmp(r->d[i].name, name) == 0) return &r->d[i];
    return NULL;
}

/* One launch of f on stream st, ENTER at t0 ms, EXIT at t1. */
static void launch_on(uintptr_t f, uintptr_t st, const char *sym, double t0, double t1)
{
    cuLaunchKernel_params la;
    memset(&la, 0, sizeof la);
    la.f = (CUfunction)f;
    la.hStream = (CUstream)st;
    call_rv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &la, sym, CUDA_SUCCESS, t0, t1);
}

/* First uses beside busy streams: each first use after the first kernel
 * asks the other streams launched on (0xB0 busy, 0xA0 idle), a destroyed
 * stream is never asked again. */
static void check_streams(const char *dir)
{
    cuStreamDestroy_v2_params sd = { (CUstream)(uintptr_t)0xB0 };
    const res_derived *u[4];
    results r;
    char *text;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    launch_on(0x8000, 0xA0, "kWarm", 5, 6);             /* the first kernel */
    pb_set_mem_info_for_test(fake_mem_info);
    pb_set_stream_query_for_test(fake_query);
    launch_on(0x8100, 0xB0, "kProducer", 10, 11);       /* no other stream noted yet: 0 */
    launch_on(0x8200, 0xA0, "kConsumer", 20, 21);       /* 0xB0 busy: 1 */
    launch_on(0x8300, 0xB0, "kSame", 30, 31);           /* its own 0xB0 left out, 0xA0 idle: 0 */
    call(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, "cuStreamDestroy_v2", &sd, NULL, 35, 36);
    launch_on(0x8400, 0xA0, "kAfter", 40, 41);          /* 0xB0 forgotten: 0 */
    clock_at(50);
    pb_exit();
    text = read_record(dir, &r);
    u[0] = text ? use_named(&r, "kProducer") : NULL;
    u[1] = text ? use_named(&r, "kConsumer") : NULL;
    u[2] = text ? use_named(&r, "kSame") : NULL;
    u[3] = text ? use_named(&r, "kAfter") : NULL;
    th_check("probe: a first use while another stream is busy: busy 1 (kConsumer); its own stream, "
             "an idle one and a destroyed one not counted: 0",
             u[0] && u[1] && u[2] && u[3] && res_derived_num(u[0], "busy") == 0 &&
             res_derived_num(u[1], "busy") == 1 && res_derived_num(u[2], "busy") == 0 &&
             res_derived_num(u[3], "busy") == 0);
    th_check("probe: the first kernel's use, before any stream is asked: no busy field",
             text && use_named(&r, "kWarm") && isnan(res_derived_num(use_named(&r, "kWarm"), "busy")));
    free(text);
    res_free(&r);
    pb_set_stream_query_for_test(NULL);
    pb_set_mem_info_for_test(NULL);
}

/* The live record (pblive.h) of the spin/flag pair: the spinner on 0xB0
 * (busy), the setter's first launch on 0xA0 beside it, then the context's
 * synchronize that ends 15 s later: the setter's first use names the
 * spinner, its wait is 15 s by the fake clock; the thread's last call is
 * the synchronize, returned; a synchronize still inside reads as inside. */
static void check_live(const char *dir)
{
    char path[512], why[256] = "";
    lv_view *v = calloc(1, sizeof *v);
    const lv_event *use = NULL, *wait = NULL;
    cuStreamSynchronize_params ss = { (CUstream)(uintptr_t)0xA0 };
    uint64_t corr = 0;
    CUpti_CallbackData cd;
    size_t i;

    if (!v) return;
    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    launch_on(0x9000, 0xB0, "spinner", 5, 6);           /* the first kernel */
    pb_set_mem_info_for_test(fake_mem_info);
    pb_set_stream_query_for_test(fake_query);
    launch_on(0x9000, 0xB0, "spinner", 7, 8);           /* its own stream's: no wait */
    launch_on(0x9100, 0xA0, "setter", 10, 10.025);      /* 0xB0 busy: waits */
    call(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", NULL, NULL, 11, 15010);
    snprintf(path, sizeof path, "%s/%ld.live", dir, (long)getpid());
    th_check("probe: its live record reads", lv_read_file(path, (int)getpid(), v, why, sizeof why) == 0);
    for (i = 0; i < v->ne; i++) {
        if (v->e[i].kind == LV_EV_FIRST_USE && strcmp(v->e[i].name, "setter") == 0) use = &v->e[i];
        if (v->e[i].kind == LV_EV_WAIT) wait = &v->e[i];
    }
    th_check("probe: live: the setter's first use began beside spinner on stream 0xB0",
             use && strcmp(use->other, "spinner") == 0 && use->stream == 0xB0 &&
             use->at_ns == T0_NS + 10000000LL);
    th_check("probe: live: its wait ended at the synchronize, 15,000 ms after it began",
             wait && strcmp(wait->name, "setter") == 0 && strcmp(wait->other, "spinner") == 0 &&
             fabs(wait->ms - 15000.0) < 1e-6);
    th_check("probe: live: the thread's last call, cuCtxSynchronize, returned 0 at 15,010 ms",
             v->nt == 1 && v->t[0].state == LV_RETURNED && strcmp(v->t[0].call, "cuCtxSynchronize") == 0 &&
             v->t[0].end_ns == T0_NS + 15010000000LL);
    memset(&cd, 0, sizeof cd);
    cd.functionName = "cuStreamSynchronize";
    cd.functionParams = &ss;
    cd.correlationData = &corr;
    cd.callbackSite = CUPTI_API_ENTER;
    clock_at(16000);
    pb_callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, &cd);
    lv_read_file(path, (int)getpid(), v, why, sizeof why);
    th_check("probe: live: a thread inside cuStreamSynchronize since 16,000 ms reads as inside",
             v->nt == 1 && v->t[0].state == LV_INSIDE && strcmp(v->t[0].call, "cuStreamSynchronize") == 0 &&
             v->t[0].since_ns == T0_NS + 16000000000LL);
    pb_set_stream_query_for_test(NULL);
    pb_set_mem_info_for_test(NULL);
    pb_reset_for_test();
    pb_set_clock_for_test(fake_clock);
    free(v);
}

/* Counting stand-ins: how often the probe read the free memory and asked
 * a stream. */
static int n_mem_info, n_query;
static CUresult counting_mem_info(size_t *free_b, size_t *total_b)
{
    n_mem_info++;
    return fake_mem_info(free_b, total_b);
}

static CUresult counting_query(CUstream st)
{
    n_query++;
    return fake_query(st);
}

/* After the first kernel, cuLibraryGetKernel (a handle; it loads nothing
 * into a context) is not watched: no free memory read, no stream asked;
 * cuKernelGetFunction (where LAZY loads) is: the memory read at its entry
 * and exit, the other stream asked. */
static void check_watch(const char *dir)
{
    CUkernel k = (CUkernel)(uintptr_t)0x9100;
    CUfunction f = NULL;
    cuLibraryGetKernel_params gk = { &k, NULL, "kLib" };
    cuKernelGetFunction_params kf = { &f, k };
    int m0, q0, m1, q1;

    clock_at(1);
    pb_init_for_test(dir, T0_NS, 0);
    launch_on(0x9000, 0xA0, "kWarm", 5, 6);             /* the first kernel */
    pb_set_mem_info_for_test(counting_mem_info);
    pb_set_stream_query_for_test(counting_query);
    launch_on(0x9010, 0xB0, "kOther", 8, 9);            /* a second stream noted */
    n_mem_info = n_query = 0;
    call(CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel, "cuLibraryGetKernel", &gk, NULL, 10, 11);
    m0 = n_mem_info, q0 = n_query;
    f = (CUfunction)(uintptr_t)0x9200;
    call(CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction, "cuKernelGetFunction", &kf, NULL, 12, 13);
    m1 = n_mem_info - m0, q1 = n_query - q0;
    clock_at(20);
    pb_exit();
    th_check("probe: cuLibraryGetKernel after the first kernel: no free memory read, no stream asked",
             m0 == 0 && q0 == 0);
    th_check("probe: cuKernelGetFunction after the first kernel: the free memory read at entry and "
             "exit, the other streams asked", m1 == 2 && q1 >= 1);
    pb_set_stream_query_for_test(NULL);
    pb_set_mem_info_for_test(NULL);
}

void test_probe(void)
{
    char dir[] = "/tmp/harness-probe-test.XXXXXX";
    char cmd[64];
    results first;

    if (!mkdtemp(dir)) {
        th_check("probe: a temporary directory", 0);
        return;
    }
    pb_set_clock_for_test(fake_clock);
    clock_at(2);
    th_check("probe: set up for the test", pb_init_for_test(dir, T0_NS, 5) == 0);
    resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, 0, 5);
    drive_loads();
    drive_kernels((CUfunction)(uintptr_t)0x1000, (CUfunction)(uintptr_t)0x2000, dir, &first);
    res_free(&first);
    check_fork(dir);
    clock_at(100);
    pb_exit();
    check_record(dir);
    check_full_table(dir);
    check_kernel_handle(dir);
    check_threads(dir);
    check_failures(dir);
    check_context_failure(dir);
    check_alloc_failure(dir);
    check_caller_pick();
    check_alloc_caller(dir);
    check_bursts(dir);
    check_streams(dir);
    check_watch(dir);
    check_live(dir);
    check_said_once();
    pb_reset_for_test();
    th_check("probe: after the reset, nothing is written", pb_write_record("exit") == 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("probe: could not remove %s\n", dir);
}
