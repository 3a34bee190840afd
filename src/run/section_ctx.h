/* section_ctx.h: the run's context every section shares: its options and
 * results, the GPU opened on first need, NVRTC loaded on first need,
 * compiling and loading a kernel module, timing's L2-cold buffer and clock
 * kernel, skips, checks and stored measurements. */
#ifndef SECTION_CTX_H
#define SECTION_CTX_H

#include <stddef.h>
#include <cuda.h>
#include "core/results.h"
#include "cuda/cudadrv.h"
#include "cuda/kernels.h"
#include "cuda/rtc.h"
#include "cuda/timing.h"
#include "run/cli.h"

/* What a section, a step of one or a child's run returns: SEC_ERROR, it
 * could not go on (said on stderr; start nothing more); SEC_OK; SEC_FAILED,
 * a check or a child failed (recorded); SEC_USAGE and SEC_NO_GPU, the exit
 * codes 2 and 3. */
typedef enum sec_status {
    SEC_ERROR = -1, SEC_OK = 0, SEC_FAILED = 1, SEC_USAGE = 2, SEC_NO_GPU = 3
} sec_status;

/* Where the GPU stands (sec_need_gpu). */
typedef enum sec_gpu_state {
    SEC_GPU_UNTRIED = 0,        /* not tried yet */
    SEC_GPU_OPEN,               /* open: c->gpu */
    SEC_GPU_NONE,               /* no driver, or no usable device (c->gpu_why) */
    SEC_GPU_BAD_DEVICE,         /* --device names no device: a usage error (printed) */
    SEC_GPU_FAILED              /* a driver call failed while opening it (reported) */
} sec_gpu_state;

/* Where NVRTC stands (sec_need_rtc); the values are those the tests knew. */
typedef enum sec_rtc_state {
    SEC_RTC_BAD_ARCH = -3,      /* --arch is not one it compiles for (a usage error,
                                   printed) */
    SEC_RTC_FAILED = -2,        /* loaded, but a call failed (reported) */
    SEC_RTC_NONE = -1,          /* not there */
    SEC_RTC_UNTRIED = 0,        /* not tried yet */
    SEC_RTC_LOADED = 1,         /* loaded, and --arch is one it compiles for */
    SEC_RTC_LATER = 2           /* put off until a compile the run's cache cannot
                                   answer (sec_need_rtc_later) */
} sec_rtc_state;

/* Where timing's L2-cold buffer and clock kernel stand (sec_timing_gpu). */
typedef enum sec_timing_state {
    SEC_TIMING_FAILED = -1,     /* set up failed (reported): timing goes without */
    SEC_TIMING_UNSET = 0,       /* not set up */
    SEC_TIMING_READY = 1        /* the flush buffer and the clock kernel ready */
} sec_timing_state;

typedef struct sec_ctx {
    const cli_opts *o;
    results *r;
    drv_gpu gpu;
    sec_gpu_state gpu_state;
    char gpu_why[512];
    sec_rtc_state rtc_state;
    char rtc_why[512];
    const char *arch;       /* --arch, else the device's */
    sec_timing_state timing_state;
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

/* Record that section `name` was skipped, with reason, in the results, and
 * say it on stderr ("harness: NAME: skipped: REASON"; not where the report
 * will say it on the same terminal): a reason for want of a driver or a GPU
 * whole the first time, and where it was said already (sec_said), its
 * first clause and "(as above)". */
void sec_skip(sec_ctx *c, const char *name, const char *reason);

/* Note that reason was said on this process's stderr (by a child that
 * shares it: sec_run_child): where it is the want of a driver or a GPU
 * ("no CUDA driver: <why>", "no usable GPU: <why>"), a later sec_skip with
 * the same words says "(as above)" in place of them. */
void sec_said(const char *reason);

/* The variable that carries a reason said (sec_said) to the copies of
 * this program it starts, whose stderr is this one's. */
#define SEC_SAID_ENV "HARNESS_SAID"

/* At the start of a process: a child (child 1) takes the reason its parent
 * said as said by it; the variable is removed from the environment either
 * way (the user's program never gets it). */
void sec_said_inherit(int child);

/* A child's own line for the want of a driver or a GPU (why: "no usable
 * GPU: <why>"), "harness: <why>" on stderr, unless it was said whole
 * already, by this process or its parent; noted as said (sec_said). */
void sec_say(const char *why);

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

/* Store reps samples as a measurement; returns it (NULL on out of memory). */
res_meas *sec_store(sec_ctx *c, const char *section, const char *key,
                    const char *name, const char *region, res_state state,
                    const double *samples, size_t n, long batch);

#endif
