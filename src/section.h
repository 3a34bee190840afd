/* section.h: what every section shares: the run's context (options, results,
 * the GPU opened on first need, NVRTC loaded on first need), compiling and
 * loading a kernel module, and the vectorAdd buffers and work units that
 * stopwatches and crossover both time. */
#ifndef SECTION_H
#define SECTION_H

#include <stddef.h>
#include <cuda.h>
#include "cli.h"
#include "cudadrv.h"
#include "kernels.h"
#include "proc.h"
#include "results.h"
#include "rtc.h"
#include "timing.h"

/* What a section returns. */
enum { SEC_OK = 0, SEC_FAILED = 1, SEC_USAGE = 2, SEC_NO_GPU = 3 };

typedef struct sec_ctx {
    const cli_opts *o;
    results *r;
    drv_gpu gpu;
    int gpu_state;          /* 0 not tried, 1 open, DRV_NO_GPU or DRV_BAD_DEVICE */
    char gpu_why[512];
    int rtc_state;          /* 0 not tried, 1 loaded, -1 not there, -2 failed,
                               -3 --arch is not one it compiles for, 2 put off
                               (sec_need_rtc_later) */
    char rtc_why[512];
    const char *arch;       /* --arch, else the device's */
    int timing_state;       /* 0 not set up, 1 flush buffer and clock kernel ready, -1 failed */
    CUdeviceptr flush;      /* the L2-cold buffer, 2x the L2 */
    CUdeviceptr clock_out;  /* the clock kernel's slots */
    CUmodule clock_mod;
    int child_usage;        /* 1 once a child exited 2: it found (and printed) a
                               usage error, such as --device=3 */
    int child_no_gpu;       /* 1 once a child exited 3: it found (and printed)
                               no usable GPU, or no NVRTC; main clears both
                               before each section and takes them as
                               SEC_USAGE, SEC_NO_GPU */
} sec_ctx;

/* The sampling plan from the options, for this process: --reps fixes the
 * count, else the stopping rule (--min-samples, --max-noise, --max-time,
 * capacity CLI_MAX_SAMPLES); --profile takes one sample. Call once, early. */
void sec_timing_plan(const cli_opts *o);

/* The L2-cold flush buffer (2x the L2) and the SM clock kernel, set up once
 * per process on the first call (sec_begin calls it for GPU sections; the
 * stopwatches call it after their first launches). A failure is reported
 * and leaves timing without them. */
void sec_timing_gpu(sec_ctx *c);

/* Release what sec_begin set up for timing (flush buffer, clock kernel). */
void sec_end(sec_ctx *c);

/* Store a timed work (samples, batch, clock readings, noisy flag) as a
 * measurement in ms; returns it (NULL on out of memory). */
res_meas *sec_store_work(sec_ctx *c, const char *section, const char *key,
                         const char *name, const char *region, res_state state,
                         const tm_work *w);

/* Which cache states --cache asks for: warm (1), cold (2) or both (3). */
int sec_cache_states(const sec_ctx *c);

/* Open the GPU on first need and record it in the environment. Returns
 * SEC_OK, SEC_NO_GPU (skip, reason in c->gpu_why), SEC_FAILED (a driver
 * call failed while opening it: reported, reason in c->gpu_why) or
 * SEC_USAGE (--device names no device). Later calls return the first
 * answer. */
int sec_need_gpu(sec_ctx *c);

/* Load NVRTC on first need and check --arch against what it compiles for.
 * Returns SEC_OK, SEC_NO_GPU (not there), SEC_USAGE (--arch is not one it
 * compiles for: printed) or SEC_FAILED (loaded, but a call failed:
 * reported), with c->rtc_why. Later calls return the first answer. */
int sec_need_rtc(sec_ctx *c);

/* sec_need_rtc for a child whose parent loaded NVRTC and checked --arch
 * before starting it: where the run has a compile cache (kcache.h), NVRTC
 * is put off until a sec_compile that the cache cannot answer (so a child
 * whose every compile is in the cache never loads it) and SEC_OK is
 * returned; without one, sec_need_rtc. */
int sec_need_rtc_later(sec_ctx *c);

/* rtc_compile_shared, for a compile whose time is not measured: loads NVRTC
 * first (sec_need_rtc) when sec_need_rtc_later put it off and the cache does
 * not hold the compile; when it cannot be loaded then, prints why and
 * returns RTC_API_ERROR. Returns as rtc_compile. */
int sec_compile(sec_ctx *c, const char *src, const char *name, const char *arch,
                rtc_target target, const char *const *opts, int nopts, rtc_out *out);

/* What a GPU section needs before it starts: NVRTC loaded (when need_rtc)
 * and the GPU opened (when need_gpu). Sets the error lines' phase to name
 * (a string that stays alive). Returns SEC_OK, or the SEC_ code to return
 * after recording the section as skipped with the reason (a usage error
 * found only now, such as --device=3 on a machine of one, included). */
int sec_begin(sec_ctx *c, const char *name, int need_gpu, int need_rtc);

/* Load the driver library (no cuInit) for a part of section `section`
 * that runs children which need it. Returns 0 when it loaded; -1 after
 * recording the skip "PART: no CUDA driver: <why>" (part NULL: "no CUDA
 * driver: <why>"), the section to return SEC_NO_GPU. */
int sec_need_driver(sec_ctx *c, const char *section, const char *part);

/* Record that section `name` was skipped, with reason, in the results. */
void sec_skip(sec_ctx *c, const char *name, const char *reason);

/* Record a validation: `count` bad elements of n (bad->first etc.); returns
 * 1 when it passed. */
int sec_check_elems(sec_ctx *c, const char *section, const char *what,
                    size_t n, const kn_bad *bad);

/* Compile file for arch into the run's compile cache as sec_module would
 * compile it (no compile time asked), for children that will load it; a
 * failure is left to whoever loads it. */
void sec_module_fill(sec_ctx *c, const char *file, const char *arch);

/* Compile kernels/file to cubin or PTX (--module-format) for c->arch
 * (NVRTC's log printed on a compile error, which names file:line) and load
 * it with cuModuleLoadDataEx (the driver's JIT log printed on a failure).
 * Returns 0, or -1 after reporting. Times are optional outputs (NULL);
 * without compile_ms the image may come from the run's compile cache
 * (sec_compile), with it it is always compiled here. */
int sec_module(sec_ctx *c, const char *file, CUmodule *mod,
               double *compile_ms, double *load_ms);

/* Buffers for vectorAdd over n floats: device a, b, out; pageable and
 * pinned host copies of each. */
typedef struct sec_vec {
    size_t n;
    CUdeviceptr a, b, out;
    float *ha, *hb, *hout;      /* pageable (malloc) */
    float *pa, *pb, *pout;      /* pinned (cuMemAllocHost) */
    CUfunction add;
    CUstream s;
} sec_vec;

/* Allocate and fill (inputs non-zero, outputs NaN; device inputs copied).
 * First checks device memory: when 3n floats do not fit (or n is beyond the
 * kernel's int index), records a failed check "needs X GiB, Y GiB free",
 * marks the run incomplete (that size is not measured) and returns -1
 * without allocating.
 * Returns 0, or -1 after reporting; on failure everything is freed. */
int sec_vec_alloc(sec_ctx *c, const char *section, sec_vec *v, size_t n, CUfunction add);
void sec_vec_free(sec_vec *v);

/* Work units (tm_fn): the kernel alone; the round trip (copy a and b in,
 * kernel, copy out back) from pageable or from pinned memory. */
int sec_vec_kernel(void *v, CUstream s);
int sec_vec_round_pageable(void *v, CUstream s);
int sec_vec_round_pinned(void *v, CUstream s);
/* The CPU loop over the buffers' pageable copies (host work, s unused). */
int sec_vec_cpu(void *v, CUstream s);

/* Launch configuration the lesson uses: 256 threads per block. */
#define SEC_BLOCK 256

/* Poison the device output with NaN (on v->s, not synchronised). */
int sec_vec_poison(sec_vec *v);

/* Copy the device output back and check it against the CPU on every
 * element; record the check. Returns 1 when it passed, 0 when not, -1 on a
 * driver error. */
int sec_vec_verify(sec_ctx *c, const char *section, const char *what, sec_vec *v);

/* v (a count: rounded to an integer) with thousands separators
 * ("16,777,216") into buf of len bytes; returns buf. */
char *sec_commas(char *buf, size_t len, double v);

/* GB/s (1e9 bytes per second) of a measurement in ms with a byte model
 * (m->bytes per unit over its median); NaN when m is NULL or has none. */
double sec_gbs(const res_meas *m);

/* How many of fn[0..n-1] cuFuncIsLoaded reports loaded, into *count.
 * Returns 0, or -1 after reporting a failed call. */
int sec_count_loaded(const CUfunction *fn, size_t n, size_t *count);

/* cuFuncLoad each of fn[0..n-1] that cuFuncIsLoaded does not report
 * loaded, adding the host clock around each cuFuncLoad to *ms. Returns 0,
 * or -1 after reporting a failed call. */
int sec_load_rest(const CUfunction *fn, size_t n, double *ms);

/* A private, empty JIT cache for children: a new temporary directory
 * (pr_mkdtemp "what") into dir, and env[0..1] set to "CUDA_CACHE_DISABLE=0"
 * and "CUDA_CACHE_PATH=<dir>" (pathvar holds the second). Remove dir with
 * pr_rmtree. Returns 0, or -1 after printing "harness: SECTION: <why>". */
int sec_private_cache(const char *section, const char *what, char *dir, size_t dirlen,
                      char *pathvar, size_t pvlen, const char **env);

/* Store reps samples as a measurement; returns it (NULL on out of memory). */
res_meas *sec_store(sec_ctx *c, const char *section, const char *key,
                    const char *name, const char *region, res_state state,
                    const double *samples, size_t n, long batch);

/* What became of a child run by pr_run_self (name: its --child=KIND word),
 * into detail: "the child NAME ran past --child-timeout=S s and was killed",
 * "... died of signal N (description)", "... exited with N", or "... ran to
 * the end". Returns 1 when it exited 0, else 0. */
int sec_child_outcome(const sec_ctx *c, const pr_result *pr, const char *name,
                      char *detail, size_t detaillen);

/* Run this binary as a child with args (after argv[0]) and set_env
 * ("NAME=VALUE", or "NAME" to remove NAME), within --child-timeout, and read
 * the results it prints as lines (res_write_lines) into *out (initialised
 * here). Returns 1 when it exited 0 and its lines read back; 0 when not, with
 * what happened in detail (exit code, signal or timeout), and the run marked
 * incomplete (a child that exited 1 leaves in *out what of its lines read
 * back, such as the check that failed); -1 when it could not be started
 * (reported), or when it exited 2 or 3, a usage error or no usable GPU,
 * which it printed itself (c->child_usage or c->child_no_gpu set, the run
 * marked incomplete): the section starts no more children and stops.
 * Where this process has opened no device, the child's (its name, ordinal,
 * PCI bus id, UUID, arch, compute capability, SMs, memory, driver version)
 * goes into c->r's environment, device_opened "child processes" (not for a
 * child with a CUDA_VISIBLE_DEVICES of its own, nor in a node run's parent);
 * sec_need_gpu's own, device_opened "this process", replaces it. */
int sec_run_child(sec_ctx *c, const char *const *args, size_t nargs,
                  const char *const *set_env, size_t nset, results *out,
                  char *detail, size_t detaillen);

/* For each measurement of `child`, append its median as one more sample of
 * the measurement "<prefix><key>" in section `section` of dst (created, state
 * process, on first sight). Returns 0 or -1 (out of memory). */
int sec_accumulate(results *dst, const char *section, const char *prefix,
                   const results *child);

/* The sections' measurements. Each returns a SEC_ code. */
int sec_visible(sec_ctx *c);
int sec_stopwatches(sec_ctx *c);
int sec_crossover(sec_ctx *c);
int sec_loading(sec_ctx *c);
int sec_jit(sec_ctx *c);
int sec_launch(sec_ctx *c);
int sec_fusion(sec_ctx *c);

/* The sections' printers (src/sections/X_table.c): each prints its tables
 * from the results alone, nothing when the section stored nothing. */
void vi_print(FILE *f, const results *r);
void sw_print(FILE *f, const results *r);
void xo_print(FILE *f, const results *r);
void ld_print(FILE *f, const results *r);
void jt_print(FILE *f, const results *r);
void la_print(FILE *f, const results *r);
void fs_print(FILE *f, const results *r);

/* The sections' answers (answer.h): each stores its "answer.<key>"
 * entries from its results alone; main calls it once, after the section
 * ran (whatever it returned: what was measured is answered). */
void sw_answers(results *r);
void ld_answers(results *r);
void jt_answers(results *r);
void la_answers(results *r);
void fs_answers(results *r);

/* The launch section's scheduling-mode children (--child=sched-*): launch +
 * synchronize under one mode, results as lines. Returns the exit code. */
int sec_launch_child(const cli_opts *o, long long t_main_ns);

/* The jit section's children (--child=jit-*, order-*): each does its one
 * job and prints its results as lines. Returns the process exit code. */
int sec_jit_child(const cli_opts *o, long long t_main_ns);

/* The visible section's child (--child=visible, sections/visible.h): in a
 * fresh process whose CUDA_VISIBLE_DEVICES the parent set, libcuda,
 * cuInit, cuDeviceGetCount and the primary context on every visible
 * device, each timed on the host clock, results as lines. Returns the
 * process exit code: 0, 1 when a call failed (reported; the lines hold
 * what was timed before it), 3 without a driver or a usable device. */
int sec_visible_child(const cli_opts *o, long long t_main_ns);

/* The stopwatches section's children: --child=waterfall (row 1: the
 * lesson's whole program once, printing its waterfall on stdout) and
 * --child=first-launch (the first launch taken apart in one mode, results
 * as lines: sections/firstlaunch.h). Returns the process exit code. */
int sec_stopwatches_child(const cli_opts *o, long long t_main_ns);

/* The one table of sections, in the order they run (indexed by
 * cli_section): the name --section takes, the measurement, the printer, and
 * the child kinds the section starts with the entry point that runs one of
 * them (CLI_CHILD_NONE-terminated; child NULL when it starts none of its
 * own), and whether it measures the node rather than one device. */
#define SEC_MAX_CHILDREN 6
typedef struct sec_def {
    const char *name;
    int (*run)(sec_ctx *c);
    void (*print)(FILE *f, const results *r);
    cli_child children[SEC_MAX_CHILDREN];
    int (*child)(const cli_opts *o, long long t_main_ns);
    int node_level;     /* 1: measures the node, not one device: a node run
                           (--device=all|LIST) runs it once, in the parent */
    void (*answer)(results *r);     /* its answers, NULL when it stores none */
} sec_def;

extern const sec_def sec_table[CLI_NSECTIONS];

/* The CLI_NSECTIONS names of the table's entries, in order, as one array
 * (for cli_parse); the same array on every call. */
const char *const *sec_names(void);

/* The section that owns child kind k, or NULL (CLI_CHILD_NONE, results). */
const sec_def *sec_of_child(cli_child k);

#endif
