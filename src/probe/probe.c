/* probe.c: the probe: inside a user's CUDA process, CUPTI's callbacks of
 * the driver calls that carry its cold start, counted and timed on the host
 * clock, and the process's record (precord.h) written at its first kernel
 * and at its exit. Silent unless a record cannot be written. */
#include "probe/probe.h"
#include "probe/marks.h"
#include "probe/pbcupti.h"
#include "probe/pbimage.h"
#include "probe/pbrecord.h"
#include "probe/pbstate.h"
#include "probe/pblive.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cupti.h includes generated_cuda_meta.h (the call parameter structs; unguarded) */

#include "core/results.h"
#include "cuda/nvml.h"
#include "os/clock.h"
#include "probe/precord.h"

#define PB_SLOTS   (1u << 16)    /* hash slots for functions (a power of two) */
#define PB_KERNELS PB_MAX_KERNELS /* functions tracked: half the slots (short probes) */
#define PB_FRAMES       64       /* stack frames a failed call's caller is looked for in */

/* ------------------------------------------------------------- state --- */


/* The driver calls enabled, and what each one counts as (cupti_driver_cbid.h
 * has no _v2 of these; the per-thread-stream launches are _ptsz). */
typedef struct pb_cb {
    CUpti_CallbackId cbid;
    pb_kind kind;
} pb_cb;

static const pb_cb pb_cbs[] = {
    { CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, PB_MODULE_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, PB_MODULE_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx, PB_MODULE_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary, PB_MODULE_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData, PB_LIBRARY_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile, PB_LIBRARY_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction, PB_GET_FUNCTION },
    { CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel, PB_GET_KERNEL },
    { CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction, PB_KERNEL_FUNCTION },
    { CUPTI_DRIVER_TRACE_CBID_cuFuncLoad, PB_FUNC_LOAD },
    { CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, PB_LAUNCH },
    { CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, PB_LAUNCH },
    { CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, PB_LAUNCH },
    { CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, PB_LAUNCH },
    { CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, PB_LAUNCH },
    { CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, PB_LAUNCH },
    { CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRetain, PB_CONTEXT },
    { CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v2, PB_CONTEXT },
    { CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v3, PB_CONTEXT },
    { CUPTI_DRIVER_TRACE_CBID_cuCtxCreate_v4, PB_CONTEXT },
    { CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, PB_ALLOC },
    { CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, PB_ALLOC },
    { CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, PB_ALLOC },
    { CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, PB_ALLOC },
    { CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, PB_ALLOC },
    { CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, PB_ALLOC },
    { CUPTI_DRIVER_TRACE_CBID_cuMemCreate, PB_ALLOC },
};
#define PB_NCBS (sizeof pb_cbs / sizeof pb_cbs[0])
/* A failed call is named by its place here: prc_fail_calls (precord.h)
 * lists the same calls in the same order. */
_Static_assert(PB_NCBS == PRC_NFAIL_CALLS, "pb_cbs and prc_fail_calls list the same calls");

static pthread_mutex_t pb_write_lock = PTHREAD_MUTEX_INITIALIZER;  /* one record write at a time */
static atomic_int pb_on;        /* 1 once set up in this process; 0 before and in a forked child */
static atomic_int pb_first;     /* 1 once the first launch has entered */
static pthread_once_t pb_fork_once = PTHREAD_ONCE_INIT;
static long long (*pb_now)(void) = clk_now_ns;
static _Thread_local int pb_busy;        /* the probe runs on this thread */
static _Thread_local int pb_first_here;  /* this thread's launch is the process's first */
static _Thread_local int pb_ptx_here;    /* this thread's load was handed a PTX image */
static _Thread_local double pb_free_in;  /* MiB free at this thread's call's entry, NaN unread */

/* The streams the program launched on (up to PB_STREAMS, the first seen),
 * so that a first use can ask which of the others still have work in
 * flight (cuStreamQuery: it waits for nothing). A stream is forgotten at
 * its cuStreamDestroy's entry, all of them at a cuCtxDestroy's, before
 * the driver frees them: the probe never asks about a stream that is
 * gone. pb_stream_lock guards them, and is held while they are asked: a
 * destruction waits for the asking to end. This rests on the driver calling
 * the API's ENTER callbacks before it takes locks of its own (a callback
 * that waited for this lock while the driver held one cuStreamQuery needs
 * would deadlock). */
#define PB_STREAMS 32
typedef CUresult (*pb_stream_query_fn)(CUstream);
static pthread_mutex_t pb_stream_lock = PTHREAD_MUTEX_INITIALIZER;
static CUstream pb_streams[PB_STREAMS];
static size_t pb_nstreams;
static _Atomic(pb_stream_query_fn) pb_stream_query;   /* cuStreamQuery, set at the first kernel */
static _Thread_local CUstream pb_last_stream;          /* this thread's last stream noted */
static _Thread_local int pb_noted;                     /* pb_last_stream is set */
static _Thread_local double pb_busy_in;  /* other streams busy at this thread's first use's entry,
                                            NaN: not asked */
typedef CUresult (*pb_mem_info_fn)(size_t *, size_t *);
static _Atomic(pb_mem_info_fn) pb_mem_info; /* cuMemGetInfo_v2, set at the first kernel */
static _Thread_local long pb_tid;


/* Copy src (NULL: "") into dst of len bytes, truncated, control characters
 * as '?' (a span line is tab-separated). */
static void pb_copy_name(char *dst, size_t len, const char *src)
{
    size_t i;
    if (!src) src = "";
    for (i = 0; i + 1 < len && src[i]; i++)
        dst[i] = (unsigned char)src[i] < 0x20 ? '?' : src[i];
    dst[i] = '\0';
}

/* ------------------------------------------------------ the functions --- */

static uint32_t pb_hash(const void *fn)
{
    uint64_t x = (uint64_t)(uintptr_t)fn;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)(x & (PB_SLOTS - 1));
}

/* The entry of function fn, added when new; NULL for a NULL fn or when
 * PB_KERNELS are tracked already. Under pb.lock. */
static pb_kernel *pb_kernel_of(const void *fn)
{
    uint32_t h, s;
    if (!fn || !pb.slots) return NULL;
    for (h = pb_hash(fn); (s = pb.slots[h]) != 0; h = (h + 1) & (PB_SLOTS - 1))
        if (pb.kernels[s - 1].fn == fn) return &pb.kernels[s - 1];
    if (pb.nkernels == PB_KERNELS) return NULL;
    pb.kernels[pb.nkernels].fn = fn;
    pb.slots[h] = (uint32_t)++pb.nkernels;
    return &pb.kernels[pb.nkernels - 1];
}

/* ------------------------------------------------------------ images --- */

/* The image a load is handed, or NULL (a load from a file). */
static const void *pb_image_of(CUpti_CallbackId cbid, const void *params)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
        return ((const cuModuleLoadData_params *)params)->image;
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx:
        return ((const cuModuleLoadDataEx_params *)params)->image;
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary:
        return ((const cuModuleLoadFatBinary_params *)params)->fatCubin;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData:
        return ((const cuLibraryLoadData_params *)params)->code;
    default:
        return NULL;
    }
}

/* --------------------------------------------------------- the calls --- */

/* What cbid counts as, or -1 when it is not one of the calls enabled. */
static int pb_kind_of(CUpti_CallbackId cbid)
{
    size_t i;
    for (i = 0; i < PB_NCBS; i++)
        if (pb_cbs[i].cbid == cbid) return (int)pb_cbs[i].kind;
    return -1;
}

/* The function a launch is handed (NULL when its parameters are not there). */
static const void *pb_launch_fn(CUpti_CallbackId cbid, const void *params)
{
    if (!params) return NULL;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        return ((const cuLaunchKernel_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return ((const cuLaunchKernel_ptsz_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        return ((const cuLaunchKernelEx_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return ((const cuLaunchKernelEx_ptsz_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        return ((const cuLaunchCooperativeKernel_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return ((const cuLaunchCooperativeKernel_ptsz_params *)params)->f;
    default:
        return NULL;
    }
}

/* The function (or, for cuLibraryGetKernel, the kernel handle) a get
 * returned at its exit (NULL when it failed or is not a get), and for
 * cuModuleGetFunction and cuLibraryGetKernel the name asked for into *name. */
static const void *pb_got_fn(pb_kind kind, const CUpti_CallbackData *cd, const char **name)
{
    const CUresult *rv = cd->functionReturnValue;
    const void *p = cd->functionParams;

    *name = NULL;
    if (!p || (rv && *rv != CUDA_SUCCESS)) return NULL;
    if (kind == PB_GET_FUNCTION) {
        const cuModuleGetFunction_params *g = p;
        *name = g->name;
        return g->hfunc ? *g->hfunc : NULL;
    }
    if (kind == PB_KERNEL_FUNCTION) {
        const cuKernelGetFunction_params *g = p;
        return g->pFunc ? *g->pFunc : NULL;
    }
    if (kind == PB_GET_KERNEL) {
        const cuLibraryGetKernel_params *g = p;
        *name = g->name;
        return g->pKernel ? (const void *)*g->pKernel : NULL;
    }
    return NULL;
}

/* The CUkernel of a cuKernelGetFunction, or NULL: the runtime may launch
 * the kernel by that handle (a CUkernel passes as a CUfunction) rather
 * than by the function the get returned. */
static const void *pb_got_kernel(pb_kind kind, const CUpti_CallbackData *cd)
{
    const CUresult *rv = cd->functionReturnValue;
    if (kind != PB_KERNEL_FUNCTION || !cd->functionParams || (rv && *rv != CUDA_SUCCESS)) return NULL;
    return ((const cuKernelGetFunction_params *)cd->functionParams)->kernel;
}

/* A get's time kept for the first use of fn (a function or a kernel
 * handle) while fn has not been launched. Under pb.lock. */
static void pb_count_get(const void *fn, double ms, const char *name)
{
    pb_kernel *k = fn ? pb_kernel_of(fn) : NULL;
    if (!k || k->launched) return;
    k->get_ms += ms;
    if (!k->name[0]) pb_copy_name(k->name, sizeof k->name, name);
}

/* Where a first use of k began and the memory it found and took, from a
 * call of k's first use that began at start (ns) with free_in MiB free
 * and left free_out (NaN: unread). Under pb.lock. */
static void pb_use_mark(pb_kernel *k, long long start, double free_in, double free_out, double busy)
{
    if (!k || k->launched) return;
    if (!k->used) {
        k->used = 1;
        k->at_ms = pb_ms(start);
        k->busy = NAN;
    }
    if (!isnan(busy)) k->busy = isnan(k->busy) ? busy : fmax(k->busy, busy);
    if (!isnan(free_in) && !k->has_free) {
        k->has_free = 1;
        k->free_mib = free_in;
    }
    if (!isnan(free_in) && !isnan(free_out)) k->took_mib += free_in - free_out;
}

/* A get of fn that took ms: counted, and its time kept for fn's first use
 * while fn has not been launched. Under pb.lock. */
static void pb_count_call(pb_kind kind, const void *fn, double ms, const char *name)
{
    pb.n[kind] += 1;
    pb.ms[kind] += ms;
    pb_count_get(fn, ms, name);
}

/* A launch of fn (named sym) that took ms: fn's first, or a later one (also
 * every launch of a function beyond the table). Under pb.lock. */
static void pb_count_launch(const void *fn, double ms, const char *sym)
{
    pb_kernel *k = pb_kernel_of(fn);
    pb_kind kind = PB_LAUNCH_LATER;
    pb.launched_since_load = 1;
    if (k && k->launched) {
        k->later_n += 1;
        k->later_ms += ms;
    }
    if (k && !k->launched) {
        k->launched = 1;
        k->launch_ms = ms;
        if (sym && *sym) pb_copy_name(k->name, sizeof k->name, sym);
        kind = PB_LAUNCH_FIRST;
    }
    pb.n[kind] += 1;
    pb.ms[kind] += ms;
}

/* One driver call as a span, while there is room. Under pb.lock. */
static void pb_add_span(const char *name, long long start, double ms)
{
    prc_span *s;
    if (pb.nspans >= pb.maxspans) return;
    s = &pb.spans[pb.nspans];
    if (!pb_tid) pb_tid = (long)syscall(SYS_gettid);
    s->tid = pb_tid;
    pb_copy_name(s->name, sizeof s->name, name);
    s->start_ms = pb_ms(start);
    s->ms = ms;
    pb.nspans++;
}

/* The stream a launch is handed into *s; 0 where it is not known, or is a
 * per-thread default stream (a _ptsz launch's 0: another thread's is
 * another stream). */
static int pb_launch_stream(CUpti_CallbackId cbid, const void *params, CUstream *s)
{
    if (!params) return 0;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        *s = ((const cuLaunchKernel_params *)params)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        *s = ((const cuLaunchKernel_ptsz_params *)params)->hStream;
        return *s != NULL;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const CUlaunchConfig *c = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx
            ? ((const cuLaunchKernelEx_params *)params)->config
            : ((const cuLaunchKernelEx_ptsz_params *)params)->config;
        if (!c) return 0;
        *s = c->hStream;
        return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || *s != NULL;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        *s = ((const cuLaunchCooperativeKernel_params *)params)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        *s = ((const cuLaunchCooperativeKernel_ptsz_params *)params)->hStream;
        return *s != NULL;
    default:
        return 0;
    }
}

/* A launch's stream noted (once: a thread that launches on the same
 * stream again takes no lock). */
static void pb_stream_note(CUstream s)
{
    size_t i;
    if (pb_noted && pb_last_stream == s) return;
    pthread_mutex_lock(&pb_stream_lock);
    for (i = 0; i < pb_nstreams && pb_streams[i] != s; i++)
        ;
    if (i == pb_nstreams && pb_nstreams < PB_STREAMS) pb_streams[pb_nstreams++] = s;
    pthread_mutex_unlock(&pb_stream_lock);
    pb_last_stream = s;
    pb_noted = 1;
}

/* A stream about to be destroyed forgotten; all = 1: every stream (a
 * context about to be destroyed). Every thread's cache is let go too. */
static void pb_stream_forget(CUstream s, int all)
{
    size_t i;
    pthread_mutex_lock(&pb_stream_lock);
    for (i = 0; i < pb_nstreams;)
        if (all || pb_streams[i] == s) pb_streams[i] = pb_streams[--pb_nstreams];
        else i++;
    pthread_mutex_unlock(&pb_stream_lock);
    pb_noted = 0;
}

/* The noted streams other than own (has_own 0: every one) whose work is
 * still in flight (cuStreamQuery answers CUDA_ERROR_NOT_READY), the first
 * of them into *which; NaN before the first kernel or without the
 * driver's cuStreamQuery. */
static double pb_busy_streams(int has_own, CUstream own, CUstream *which)
{
    pb_stream_query_fn query = atomic_load(&pb_stream_query);
    size_t i;
    double busy = 0;
    if (!query) return NAN;
    pthread_mutex_lock(&pb_stream_lock);
    for (i = 0; i < pb_nstreams; i++)
        if (!(has_own && pb_streams[i] == own) && query(pb_streams[i]) == CUDA_ERROR_NOT_READY) {
            if (busy == 0) *which = pb_streams[i];
            busy++;
        }
    pthread_mutex_unlock(&pb_stream_lock);
    return busy;
}

/* A launch entered: the process's first (of any thread) stamps at.first_kernel. */
static void pb_launch_enter(long long now)
{
    int none = 0;
    if (atomic_load_explicit(&pb_first, memory_order_relaxed) != 0 ||
        !atomic_compare_exchange_strong(&pb_first, &none, 1))
        return;
    pb_first_here = 1;
    pthread_mutex_lock(&pb.lock);
    pb.at_first_kernel = pb_ms(now);
    pthread_mutex_unlock(&pb.lock);
    pbl_first_kernel(now);
}

/* A load entered: its image looked at (before the clock starts). */
static void pb_load_enter(CUpti_CallbackId cbid, const void *params)
{
    const void *image = params ? pb_image_of(cbid, params) : NULL;
    pb_ptx_here = 0;
    if (!image || !pbi_image_ptx(image)) return;
    pb_ptx_here = 1;
    pthread_mutex_lock(&pb.lock);
    pb.ptx += 1;
    pthread_mutex_unlock(&pb.lock);
}

static void pb_first_kernel_done(void);
static int pb_fail_begin(CUpti_CallbackId cbid, const CUpti_CallbackData *cd, long long start,
                         double free_out, pb_fail *f);
static int pb_fail_keep(pb_kind kind, const CUpti_CallbackData *cd, const void *fn, pb_fail *f);

/* MiB of device memory free (cuMemGetInfo), NaN before the first kernel
 * or where it does not answer. */
static double pb_free_now(void)
{
    size_t free_b, total_b;
    pb_mem_info_fn info = atomic_load(&pb_mem_info);
    if (!info || info(&free_b, &total_b) != CUDA_SUCCESS) return NAN;
    return (double)free_b / 1048576.0;
}

/* 1 when a call of kind may load into the context after the first kernel
 * (the free memory and the other streams are read around it): a load, a
 * get that can load (cuModuleGetFunction, cuKernelGetFunction, cuFuncLoad),
 * a launch of a function not launched yet. cuLibraryGetKernel is not
 * watched: it hands out a handle and loads nothing into a context (under
 * LAZY the load is in cuKernelGetFunction or the first launch), and the
 * runtime calls it for every kernel of a library it registers: 14,471
 * times at a PyTorch program's first linalg and conv2d under EAGER, which
 * would be two cuMemGetInfo and a query of each noted stream each. (On the
 * H200 the probed requests took 219 ms more than bare ones before this and
 * 305 ms after, on another machine: the probe's cost there is not this
 * work; tests/gpu/hazards.sh prints it.) */
static int pb_watch(pb_kind kind, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    pb_kernel *k;
    int watch;
    if (!atomic_load(&pb_mem_info) || kind == PB_GET_KERNEL || kind == PB_CONTEXT || kind == PB_ALLOC)
        return 0;
    if (kind != PB_LAUNCH) return 1;
    pthread_mutex_lock(&pb.lock);
    k = pb_kernel_of(pb_launch_fn(cbid, cd->functionParams));
    watch = k && !k->launched;
    pthread_mutex_unlock(&pb.lock);
    return watch;
}

/* A load after the first kernel that began at start, took ms, with free
 * MiB before and after it (NaN: unread). Under pb.lock. */
static void pb_count_load(pb_kind kind, long long start, double ms, double free_in, double free_out)
{
    prc_load *l;
    double took = !isnan(free_in) && !isnan(free_out) ? free_in - free_out : NAN;
    double at = pb_ms(start), end = at + ms;
    if (!atomic_load(&pb_mem_info)) return;
    /* One more of the last burst (no launch since it, or no room left: a
     * load is never dropped, its time always counted), else a new one. */
    if (pb.nloads && (!pb.launched_since_load || pb.nloads == PRC_MAX_LOADS)) {
        l = &pb.loads[pb.nloads - 1];
        l->n += 1;
        l->ms += ms;
        l->took_mib = isnan(l->took_mib) ? took : isnan(took) ? l->took_mib : l->took_mib + took;
        l->library |= kind == PB_LIBRARY_LOAD;
        /* The same burst: its span grows to this exit, less the gets between;
         * a later burst in the last entry adds its load's time alone. */
        l->span_ms += pb.launched_since_load ? ms : fmax(ms, end - l->end_ms - pb.burst_gets_ms);
        l->end_ms = end;
    } else {
        l = &pb.loads[pb.nloads++];
        l->at_ms = at;
        l->n = 1;
        l->ms = ms;
        l->span_ms = ms;
        l->end_ms = end;
        l->free_mib = free_in;
        l->took_mib = took;
        l->library = kind == PB_LIBRARY_LOAD;
    }
    pb.burst_gets_ms = 0;
    pb.launched_since_load = 0;
}

/* What a call of kind works on, for the live record: a launch's kernel,
 * a get's name asked for; NULL where the call names none at its entry. */
static const char *pb_call_what(pb_kind kind, const CUpti_CallbackData *cd)
{
    const void *p = cd->functionParams;
    if (kind == PB_LAUNCH) return cd->symbolName;
    if (kind == PB_GET_FUNCTION && p) return ((const cuModuleGetFunction_params *)p)->name;
    if (kind == PB_GET_KERNEL && p) return ((const cuLibraryGetKernel_params *)p)->name;
    return NULL;
}

/* A call's ENTER: its clock started in its correlationData; the live
 * record told the call, a launch's stream, and a first use beside another
 * stream's work (pblive.h). */
static void pb_call_enter(pb_kind kind, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    long long now;
    CUstream stream = NULL, busy_on = NULL;
    int has_stream = kind == PB_LAUNCH && pb_launch_stream(cbid, cd->functionParams, &stream);
    int watch = pb_watch(kind, cbid, cd);
    int load = kind == PB_MODULE_LOAD || kind == PB_LIBRARY_LOAD;
    const char *what = pb_call_what(kind, cd);
    pb_free_in = watch ? pb_free_now() : NAN;
    pb_busy_in = watch && !load ? pb_busy_streams(has_stream, stream, &busy_on) : NAN;
    if (has_stream) pb_stream_note(stream);
    if (load) pb_load_enter(cbid, cd->functionParams);
    now = pb_now();
    if (cd->correlationData) *cd->correlationData = (uint64_t)now;
    pbl_enter(cd->functionName, what, now);
    if (watch && !load && (kind == PB_LAUNCH || pb_busy_in > 0))
        pbl_first_use(what, cd->functionName, pb_busy_in > 0, (uint64_t)(uintptr_t)busy_on, now);
    if (has_stream) pbl_launch((uint64_t)(uintptr_t)stream, what, now);
    if (kind == PB_LAUNCH) pb_launch_enter(now);
}

/* A call's EXIT told the live record: its result, a load's time and the
 * free memory after it, a failure. */
static void pb_call_live(pb_kind kind, const CUpti_CallbackData *cd, long long now, double ms,
                         double free_out, const pb_fail *fail)
{
    const CUresult *rv = cd->functionReturnValue;
    pbl_exit(rv ? (int)*rv : 0, NULL, now);
    if (kind == PB_MODULE_LOAD || kind == PB_LIBRARY_LOAD) {
        pbl_load(cd->functionName, "", ms, now);
        if (!isnan(free_out)) pbl_free((uint64_t)(free_out * 1048576.0), now);
    }
    if (fail) pbl_failure(cd->functionName, fail->name, fail->error, now);
}

/* A call's EXIT: its time from the ENTER's stamp (0 when there was none),
 * counted under its kind, with a span. */
static void pb_call_exit(pb_kind kind, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    long long now = pb_now();
    long long start = cd->correlationData ? (long long)*cd->correlationData : 0;
    double ms = start > 0 && start <= now ? (double)(now - start) / 1e6 : 0;
    const char *name = NULL;
    const void *fn = kind == PB_LAUNCH ? pb_launch_fn(cbid, cd->functionParams)
                                       : pb_got_fn(kind, cd, &name);
    double free_in = pb_free_in, free_out = isnan(free_in) ? NAN : pb_free_now();
    long long from = start > 0 ? start : now;
    pb_fail fail;
    int failed = pb_fail_begin(cbid, cd, from, free_out, &fail);

    if (kind == PB_CONTEXT || kind == PB_ALLOC) {
        pthread_mutex_lock(&pb.lock);
        if (failed) failed = pb_fail_keep(kind, cd, NULL, &fail);
        pthread_mutex_unlock(&pb.lock);
        pb_call_live(kind, cd, now, ms, free_out, failed ? &fail : NULL);
        if (failed) pb_write_record("failure");
        return;
    }

    pthread_mutex_lock(&pb.lock);
    if (failed) failed = pb_fail_keep(kind, cd, fn, &fail);
    if (kind == PB_LAUNCH) {
        pb_use_mark(pb_kernel_of(fn), from, free_in, free_out, pb_busy_in);
        pb_count_launch(fn, ms, cd->symbolName);
    } else {
        if (kind == PB_MODULE_LOAD || kind == PB_LIBRARY_LOAD) {
            if (pb_ptx_here) pb.ptx_ms += ms;
            pb_ptx_here = 0;
            pb_count_load(kind, from, ms, free_in, free_out);
        } else {
            pb_use_mark(fn ? pb_kernel_of(fn) : NULL, from, free_in, free_out, pb_busy_in);
            pb_use_mark(pb_got_kernel(kind, cd) ? pb_kernel_of(pb_got_kernel(kind, cd)) : NULL, from,
                        NAN, NAN, pb_busy_in);
        }
        pb_count_call(kind, fn, ms, name);
        pb_count_get(pb_got_kernel(kind, cd), ms, name);
        if (kind != PB_MODULE_LOAD && kind != PB_LIBRARY_LOAD && pb.nloads && !pb.launched_since_load)
            pb.burst_gets_ms += ms;     /* a get inside a burst: a first use's, not the burst's */
    }
    pb_add_span(cd->functionName, start > 0 ? start : now, ms);
    pthread_mutex_unlock(&pb.lock);
    pb_call_live(kind, cd, now, ms, free_out, failed ? &fail : NULL);
    if (failed) pb_write_record("failure");
    if (kind == PB_LAUNCH && pb_first_here) {
        pb_first_here = 0;
        pb_first_kernel_done();
    }
}

/* A resource event: a context created, a module loaded. */
static void pb_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    long long now = pb_now();
    const CUpti_ModuleResourceData *mod = rd->resourceDescriptor;

    pthread_mutex_lock(&pb.lock);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        if (pb.contexts == 0) pb.at_context = pb_ms(now);
        pb.contexts += 1;
    } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        pb.loaded += 1;
        if (mod) pb.loaded_mib += (double)mod->cubinSize / 1048576.0;
    }
    pthread_mutex_unlock(&pb.lock);
}

/* The calls that destroy what the noted streams belong to. */
static const CUpti_CallbackId pb_destroy_cbs[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy, CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
};
#define PB_NDESTROYS (sizeof pb_destroy_cbs / sizeof pb_destroy_cbs[0])

static int pb_destroys(CUpti_CallbackId cbid)
{
    size_t i;
    for (i = 0; i < PB_NDESTROYS; i++)
        if (pb_destroy_cbs[i] == cbid) return 1;
    return 0;
}

/* A stream's or a context's destruction entered: the streams it takes
 * forgotten before the driver frees them. */
static void pb_destroy_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    if (cd->callbackSite != CUPTI_API_ENTER) return;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy && cd->functionParams)
        pb_stream_forget(((const cuStreamDestroy_params *)cd->functionParams)->hStream, 0);
    else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2 && cd->functionParams)
        pb_stream_forget(((const cuStreamDestroy_v2_params *)cd->functionParams)->hStream, 0);
    else
        pb_stream_forget(NULL, 1);
}

/* A call a thread may block in (pblive.h), told the live record: its
 * entry, its exit, and the work a synchronize saw end. */
static void pb_blocking(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    long long now = pb_now();
    const CUresult *rv = cd->functionReturnValue;
    uint64_t stream;
    int all;
    if (cd->callbackSite == CUPTI_API_ENTER) {
        pbl_enter(cd->functionName, NULL, now);
        return;
    }
    pbl_exit(rv ? (int)*rv : 0, NULL, now);
    if ((!rv || *rv == CUDA_SUCCESS) && pbl_sync_reach(cbid, cd->functionParams, &all, &stream))
        pbl_synced(all, stream, now);
}

void pb_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                 const void *cbdata)
{
    (void)userdata;
    if (pb_busy || !cbdata || !atomic_load_explicit(&pb_on, memory_order_acquire)) return;
    pb_busy = 1;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && pb_destroys(cbid)) {
        pb_destroy_enter(cbid, cbdata);
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && pbl_is_blocking(cbid)) {
        pb_blocking(cbid, cbdata);
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cd = cbdata;
        int kind = pb_kind_of(cbid);
        if (kind >= 0 && cd->callbackSite == CUPTI_API_ENTER)
            pb_call_enter((pb_kind)kind, cbid, cd);
        else if (kind >= 0)
            pb_call_exit((pb_kind)kind, cbid, cd);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        pb_resource(cbid, cbdata);
    }
    pb_busy = 0;
}

/* ------------------------------------------- the device, from inside --- */

/* The driver's entry points the probe calls itself (from the process's
 * libcuda.so.1, never loaded here); each NULL when not there. */
typedef struct pb_drv {
    CUresult (*loading_mode)(CUmoduleLoadingMode *);
    CUresult (*ctx_device)(CUdevice *);
    CUresult (*bus_id)(char *, int, CUdevice);
    CUresult (*mem_info)(size_t *, size_t *);
    CUresult (*error_name)(CUresult, const char **);
    CUresult (*stream_query)(CUstream);
} pb_drv;

/* The driver entry points a test puts in place of the process's (NULL:
 * the process's own; pb_set_failure_driver_for_test). */
static CUresult (*pb_test_mem_info)(size_t *, size_t *);
static CUresult (*pb_test_error_name)(CUresult, const char **);
static const void *pb_test_driver_addr;

/* The process's driver, where it has loaded one (the reference taken is
 * kept: the driver stays loaded as long as the process uses it anyway). */
static void pb_driver(pb_drv *d)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    memset(d, 0, sizeof *d);
    if (!lib) return;
    pbc_sym(lib, "cuModuleGetLoadingMode", &d->loading_mode, sizeof d->loading_mode);
    pbc_sym(lib, "cuCtxGetDevice", &d->ctx_device, sizeof d->ctx_device);
    pbc_sym(lib, "cuDeviceGetPCIBusId", &d->bus_id, sizeof d->bus_id);
    pbc_sym(lib, "cuMemGetInfo_v2", &d->mem_info, sizeof d->mem_info);
    pbc_sym(lib, "cuGetErrorName", &d->error_name, sizeof d->error_name);
    pbc_sym(lib, "cuStreamQuery", &d->stream_query, sizeof d->stream_query);
}

/* ------------------------------------------------------ failed calls --- */

/* The index of cbid in pb_cbs (and prc_fail_calls), PB_NCBS when absent. */
static size_t pb_cb_index(CUpti_CallbackId cbid)
{
    size_t i;
    for (i = 0; i < PB_NCBS && pb_cbs[i].cbid != cbid; i++)
        ;
    return i;
}

/* The last part of a path (after its last '/'), or the path. */
static const char *pb_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* What a failed load was loading, into buf: the file's name for a load
 * from a file, the shared library (or program) that holds the image for
 * one from memory (dladdr), else "(an image in memory)". */
static void pb_load_name(CUpti_CallbackId cbid, const void *params, char *buf, size_t len)
{
    const char *file = NULL;
    const void *image;
    Dl_info info;

    if (params && cbid == CUPTI_DRIVER_TRACE_CBID_cuModuleLoad)
        file = ((const cuModuleLoad_params *)params)->fname;
    else if (params && cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile)
        file = ((const cuLibraryLoadFromFile_params *)params)->fileName;
    else if (params && (image = pb_image_of(cbid, params)) != NULL && dladdr(image, &info) != 0 &&
             info.dli_fname && *info.dli_fname)
        file = info.dli_fname;
    pb_copy_name(buf, len, file && *file ? pb_base(file) : "(an image in memory)");
}

void pb_caller_pick(const char *const *objs, size_t n, const char *driver, char *buf, size_t len)
{
    const char *cudart = NULL;
    size_t i = 0;

    buf[0] = '\0';
    if (!driver || !*driver) return;
    while (i < n && !(objs[i] && strcmp(objs[i], driver) == 0)) i++;
    for (; i < n; i++) {
        const char *base = objs[i] ? pb_base(objs[i]) : NULL;
        if (!base || !*base || strcmp(objs[i], driver) == 0) continue;
        if (strncmp(base, "libcudart", 9) == 0) {
            if (!cudart) cudart = base;
            continue;
        }
        pb_copy_name(buf, len, base);
        return;
    }
    if (cudart) pb_copy_name(buf, len, cudart);
}

/* The library that made the driver call now running (pb_caller_pick on
 * this thread's stack, glibc's backtrace and dladdr) into buf, "" where it
 * cannot be told. driver_addr: an address in the driver's object (its
 * cuGetErrorName); none, or the probe's own object (a unit test that
 * calls the callback itself), names nothing. Only on a failed call: a
 * walk of the stack costs microseconds. */
static void pb_caller(const void *driver_addr, char *buf, size_t len)
{
    void *frames[PB_FRAMES];
    const char *objs[PB_FRAMES], *driver;
    Dl_info info, own;
    int n, i;

    buf[0] = '\0';
    if (!driver_addr || dladdr(driver_addr, &info) == 0 || !info.dli_fname ||
        dladdr((const void *)&pb_caller_pick, &own) == 0 || info.dli_fbase == own.dli_fbase)
        return;
    driver = info.dli_fname;
    n = backtrace(frames, PB_FRAMES);
    for (i = 0; i < n; i++)
        /* A return address, less one: inside the call that made the frame. */
        objs[i] = dladdr((const char *)frames[i] - 1, &info) != 0 ? info.dli_fname : NULL;
    pb_caller_pick(objs, n > 0 ? (size_t)n : 0, driver, buf, len);
}

/* What a failed device allocation asked for, into buf: "64 MiB", "1.5 MiB",
 * "4096 bytes" (under 1 MiB), or "(its size unread)" without parameters. */
static void pb_alloc_name(CUpti_CallbackId cbid, const void *params, char *buf, size_t len)
{
    double bytes = -1, mib;

    if (params) switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
        bytes = (double)((const cuMemAlloc_v2_params *)params)->bytesize;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        const cuMemAllocPitch_v2_params *a = params;
        bytes = (double)a->WidthInBytes * (double)a->Height;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
        bytes = (double)((const cuMemAllocAsync_params *)params)->bytesize;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
        bytes = (double)((const cuMemAllocAsync_ptsz_params *)params)->bytesize;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
        bytes = (double)((const cuMemAllocFromPoolAsync_params *)params)->bytesize;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
        bytes = (double)((const cuMemAllocFromPoolAsync_ptsz_params *)params)->bytesize;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate:
        bytes = (double)((const cuMemCreate_params *)params)->size;
        break;
    default:
        break;
    }
    mib = bytes / 1048576.0;
    if (bytes < 0) snprintf(buf, len, "(its size unread)");
    else if (mib < 1) snprintf(buf, len, "%.0f bytes", bytes);
    else if (mib == floor(mib)) snprintf(buf, len, "%.0f MiB", mib);
    else snprintf(buf, len, "%.1f MiB", mib);
}

/* The driver's name of error r (cuGetErrorName) into buf, "?" where it
 * gives none or one that is not of [A-Z0-9_], at most 63 characters. */
static void pb_error_name(const pb_drv *d, CUresult r, char *buf, size_t len)
{
    const char *s = NULL;
    CUresult (*name)(CUresult, const char **) = pb_test_error_name ? pb_test_error_name : d->error_name;
    if (!name || name(r, &s) != CUDA_SUCCESS || !s || !*s || strlen(s) > 63 ||
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(s))
        s = "?";
    snprintf(buf, len, "%s", s);
}

/* A call's EXIT that returned an error, while fewer than PRC_MAX_FAILS are
 * kept: what can be learnt outside pb.lock into *f (the call, when it
 * began, the error and its name, the free memory: free_out where it was
 * read, else cuMemGetInfo now; a load's name). Returns 1 when the call
 * failed and there is room, else 0. */
static int pb_fail_begin(CUpti_CallbackId cbid, const CUpti_CallbackData *cd, long long start,
                         double free_out, pb_fail *f)
{
    const CUresult *rv = cd->functionReturnValue;
    CUresult (*info)(size_t *, size_t *);
    size_t free_b, total_b;
    pb_drv d;
    pb_kind kind;
    int room;

    if (!rv || *rv == CUDA_SUCCESS || (int)*rv < 1 || (int)*rv > 1000000) return 0;
    pthread_mutex_lock(&pb.lock);
    room = pb.nfails < PRC_MAX_FAILS;
    pthread_mutex_unlock(&pb.lock);
    if (!room) return 0;
    memset(f, 0, sizeof *f);
    pb_driver(&d);
    info = pb_test_mem_info ? pb_test_mem_info : d.mem_info;
    f->call = pb_cb_index(cbid);
    f->at_ms = pb_ms(start);
    f->error = (int)*rv;
    f->free_mib = free_out;
    if (isnan(f->free_mib) && info && info(&free_b, &total_b) == CUDA_SUCCESS)
        f->free_mib = (double)free_b / 1048576.0;
    pb_error_name(&d, *rv, f->err, sizeof f->err);
    if (f->call >= PB_NCBS) return 0;
    kind = pb_cbs[f->call].kind;
    if (kind == PB_MODULE_LOAD || kind == PB_LIBRARY_LOAD) {
        pb_load_name(cbid, cd->functionParams, f->name, sizeof f->name);
    } else {        /* a get's, a launch's, an allocation's, a context's: who called it */
        const void *drv;
        memcpy(&drv, &d.error_name, sizeof drv);
        pb_caller(pb_test_driver_addr ? pb_test_driver_addr : drv, f->by, sizeof f->by);
    }
    return 1;
}

/* Keep the failed call *f: a load's as it is; a get's named by the name it
 * asked for or the kernel's as seen so far; a launch only where it is the
 * function's first (a later launch loads nothing), named by its symbol.
 * Under pb.lock. Returns 1 when kept. */
static int pb_fail_keep(pb_kind kind, const CUpti_CallbackData *cd, const void *fn, pb_fail *f)
{
    const void *p = cd->functionParams;
    const pb_kernel *k = NULL;
    const char *name = NULL;
    char size[48];

    if (pb.nfails >= PRC_MAX_FAILS) return 0;
    switch (kind) {
    case PB_MODULE_LOAD: case PB_LIBRARY_LOAD:
        break;
    case PB_GET_FUNCTION:
        name = p ? ((const cuModuleGetFunction_params *)p)->name : NULL;
        break;
    case PB_GET_KERNEL:
        name = p ? ((const cuLibraryGetKernel_params *)p)->name : NULL;
        break;
    case PB_CONTEXT:
        name = "the context";
        break;
    case PB_ALLOC:
        pb_alloc_name(f->call < PB_NCBS ? pb_cbs[f->call].cbid : 0, p, size, sizeof size);
        name = size;
        break;
    case PB_KERNEL_FUNCTION:
        k = p ? pb_kernel_of(((const cuKernelGetFunction_params *)p)->kernel) : NULL;
        break;
    case PB_FUNC_LOAD:
        k = p ? pb_kernel_of(((const cuFuncLoad_params *)p)->function) : NULL;
        break;
    default:
        k = pb_kernel_of(fn);
        if (k && k->launched) return 0;
        name = cd->symbolName;
        break;
    }
    if (kind != PB_MODULE_LOAD && kind != PB_LIBRARY_LOAD)
        pb_copy_name(f->name, sizeof f->name, name && *name ? name : k && k->name[0] ? k->name
                                                                     : "(unnamed)");
    if (f->by[0]) {
        size_t at = strlen(f->name);
        snprintf(f->name + at, sizeof f->name - at, " (called by %s)", f->by);
    }
    pb.fails[pb.nfails++] = *f;
    return 1;
}

/* "LAZY", "EAGER" or "unread". */
static const char *pb_loading_mode(const pb_drv *d)
{
    CUmoduleLoadingMode mode;
    if (!d->loading_mode || d->loading_mode(&mode) != CUDA_SUCCESS) return "unread";
    return mode == CU_MODULE_LAZY_LOADING ? "LAZY" : mode == CU_MODULE_EAGER_LOADING ? "EAGER"
                                                                                  : "unread";
}

/* The PCI bus id of the current context's device into bus ("" when none). */
static void pb_bus_id(const pb_drv *d, char *bus, size_t len)
{
    CUdevice dev;
    bus[0] = '\0';
    if (!d->ctx_device || !d->bus_id || d->ctx_device(&dev) != CUDA_SUCCESS ||
        d->bus_id(bus, (int)len, dev) != CUDA_SUCCESS)
        bus[0] = '\0';
}

/* The process's device memory in *mib and whose figure it is. */
static const char *pb_memory(const pb_drv *d, const char *bus, double *mib)
{
    char why[256];
    size_t free_b, total_b;
    if (nv_process_mib(bus[0] ? bus : NULL, pb.pid, mib, why, sizeof why) == 0)
        return "nvml process";
    if (d->mem_info && d->mem_info(&free_b, &total_b) == CUDA_SUCCESS && total_b >= free_b) {
        *mib = (double)(total_b - free_b) / 1048576.0;
        return "device-wide";
    }
    *mib = NAN;
    return "none";
}

/* The first launch returned: what the process is running on, then the
 * record "first kernel". */
static void pb_first_kernel_done(void)
{
    pb_drv d;
    char bus[32];
    double mib;
    const char *mode, *source;

    pb_driver(&d);
    atomic_store(&pb_stream_query, d.stream_query);
    atomic_store(&pb_mem_info, d.mem_info);   /* from now on, free memory is read around first uses and loads */
    mode = pb_loading_mode(&d);
    pb_bus_id(&d, bus, sizeof bus);
    source = pb_memory(&d, bus, &mib);
    pthread_mutex_lock(&pb.lock);
    snprintf(pb.loading_mode, sizeof pb.loading_mode, "%s", mode);
    snprintf(pb.device, sizeof pb.device, "%s", bus);
    snprintf(pb.mem_source, sizeof pb.mem_source, "%s", source);
    pb.mem_first_kernel = mib;
    pthread_mutex_unlock(&pb.lock);
    pb_write_record("first kernel");
}

/* ------------------------------------------------------------ record --- */

/* 1 when the probe is set up in this very process. */
static int pb_mine(void)
{
    return atomic_load_explicit(&pb_on, memory_order_acquire) && (long)getpid() == pb.pid;
}

/* The one line of a failed write, the process's first only. Under pb_write_lock. */
static void pb_say_failure(int err)
{
    if (pb.said) return;
    fprintf(stderr, "harness-probe: cannot write %s: %s\n",
            pb.path_error ? "the record (its directory's path is too long)" : pb.path,
            strerror(err));
    pb.said = 1;
}

int pb_write_record(const char *written)
{
    results r;
    size_t nspans;
    int rc = 0, err = ENOMEM;

    if (!pb_mine()) return 1;
    pthread_mutex_lock(&pb_write_lock);
    if (pb.exit_written) goto done;
    res_init(&r);
    pthread_mutex_lock(&pb.lock);
    rc = pbr_build_env(&r, written) != 0 || pbr_build_figures(&r) != 0 ? -1 : 0;
    nspans = pb.nspans;     /* the spans below it no longer change */
    pthread_mutex_unlock(&pb.lock);
    if (rc == 0 && (rc = pbr_save(&r, nspans)) != 0) err = errno;
    res_free(&r);
    if (rc != 0) pb_say_failure(err);
    else if (strcmp(written, "exit") == 0) pb.exit_written = 1;
done:
    pthread_mutex_unlock(&pb_write_lock);
    return rc;
}

void pb_exit(void)
{
    struct rusage ru;
    double rss = NAN, mib = NAN;
    char why[256], bus[32];
    long long now;
    int ask;

    if (!pb_mine()) return;
    now = pb_now();
    if (getrusage(RUSAGE_SELF, &ru) == 0) rss = (double)ru.ru_maxrss / 1024.0;
    pthread_mutex_lock(&pb.lock);
    ask = pb.contexts > 0 || atomic_load(&pb_first);     /* it had a device to ask about */
    snprintf(bus, sizeof bus, "%s", pb.device);
    pthread_mutex_unlock(&pb.lock);
    if (ask && nv_process_mib(bus[0] ? bus : NULL, pb.pid, &mib, why, sizeof why) != 0) mib = NAN;
    pthread_mutex_lock(&pb.lock);
    pb.at_exit = pb_ms(now);
    pb.rss_peak = rss;
    pb.mem_exit = mib;
    if (!isnan(mib) && strcmp(pb.mem_source, "none") == 0)
        snprintf(pb.mem_source, sizeof pb.mem_source, "nvml process");
    pthread_mutex_unlock(&pb.lock);
    pb_write_record("exit");
}

/* ------------------------------------------------------------ set-up --- */

/* The first two words of /proc/self/cmdline, joined by a space. */
static void pb_read_command(char *out, size_t len)
{
    char buf[4096];
    ssize_t n = 0;
    size_t first;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

    out[0] = '\0';
    if (fd >= 0) {
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
    }
    if (n <= 0) return;
    buf[n] = '\0';
    first = strlen(buf);
    if (first + 1 < (size_t)n) buf[first] = ' ';     /* a second word follows */
    pb_copy_name(out, len, buf);
}

/* fork: the lock is held across it, so that the child's copy is whole;
 * the child keeps no record of its parent's. */
static void pb_fork_prepare(void) { pthread_mutex_lock(&pb.lock); }
static void pb_fork_parent(void) { pthread_mutex_unlock(&pb.lock); }
static void pb_fork_child(void)
{
    pthread_mutex_unlock(&pb.lock);
    atomic_store(&pb_on, 0);
    pbl_forget();       /* the mapping is the parent's */
}

static void pb_register_fork(void)
{
    pthread_atfork(pb_fork_prepare, pb_fork_parent, pb_fork_child);
}

/* The tables, allocated once (calloc: untouched pages cost nothing). */
static int pb_alloc(long max_spans)
{
    if (max_spans > PRC_MAX_SPANS) max_spans = PRC_MAX_SPANS;
    pb.maxspans = max_spans > 0 ? (size_t)max_spans : 0;
    pb.slots = calloc(PB_SLOTS, sizeof *pb.slots);
    pb.kernels = calloc(PB_KERNELS, sizeof *pb.kernels);
    pb.spans = pb.maxspans ? calloc(pb.maxspans, sizeof *pb.spans) : NULL;
    if (pb.slots && pb.kernels && (pb.spans || !pb.maxspans)) return 0;
    free(pb.slots);
    free(pb.kernels);
    free(pb.spans);
    pb.slots = NULL;
    pb.kernels = NULL;
    pb.spans = NULL;
    pb.maxspans = 0;
    return -1;
}

/* Everything before the first callback: the process, the origin of the
 * clock, at.probe, the record's path, the tables. 0, or -1 when the tables
 * cannot be allocated (the probe is still set up: the record says so). */
static int pb_setup(const char *dir, long long t0_ns, long max_spans)
{
    long long now = pb_now();
    int w, rc;

    pb.pid = (long)getpid();
    pb.t0_ns = t0_ns > 0 && t0_ns <= now ? t0_ns : now;
    w = snprintf(pb.path, sizeof pb.path, "%s/%ld.rec", dir, pb.pid);
    pb.path_error = w < 0 || (size_t)w >= sizeof pb.path;
    pb.at_probe = pb_ms(now);
    pb.at_context = pb.at_first_kernel = pb.at_exit = NAN;
    pb.mem_first_kernel = pb.mem_exit = pb.rss_peak = NAN;
    snprintf(pb.loading_mode, sizeof pb.loading_mode, "unread");
    snprintf(pb.mem_source, sizeof pb.mem_source, "none");
    pb.device[0] = '\0';
    pb_read_command(pb.command, sizeof pb.command);
    rc = pb_alloc(max_spans);
    if (pb.path[0] && !pb.path_error && pbl_open(dir, (int)pb.pid) == 0) {  /* none: no live record */
        double marks;
        long long ready;
        pm_on_ready(pbl_ready);         /* a mark's ready stamped as it matches */
        if (pm_ready(&marks, &ready)) pbl_ready(ready);     /* one before cuInit */
    }
    snprintf(pb.cupti, sizeof pb.cupti, "%s",
             rc == 0 ? "ok" : "failed: out of memory for the probe's tables");
    pthread_once(&pb_fork_once, pb_register_fork);
    atomic_store(&pb_on, 1);
    return rc;
}

/* --------------------------------------------------------------- CUPTI --- */

/* Enable every driver call of pb_cbs and the two resource events. */
static CUptiResult pb_cupti_enable(const pbc_cupti *c, CUpti_SubscriberHandle sub)
{
    CUptiResult r;
    size_t i;
    for (i = 0; i < PB_NCBS; i++) {
        r = c->enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, pb_cbs[i].cbid);
        if (r != CUPTI_SUCCESS) return r;
    }
    for (i = 0; i < PB_NDESTROYS; i++) {
        r = c->enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, pb_destroy_cbs[i]);
        if (r != CUPTI_SUCCESS) return r;
    }
    for (i = 0; i < pbl_nblocking; i++) {
        r = c->enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, pbl_blocking[i]);
        if (r != CUPTI_SUCCESS) return r;
    }
    if ((r = c->enable_callback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_CREATED)) != CUPTI_SUCCESS)
        return r;
    return c->enable_callback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
}

/* Open CUPTI, subscribe, enable (unless only_subscribe); env cupti says
 * how it went. Sets pb.counting when the callbacks are on. */
static void pb_cupti_start(int only_subscribe)
{
    char why[PB_WHY];
    pbc_cupti c;
    CUpti_SubscriberHandle sub;
    CUptiResult r;

    if (pbc_open(&c, why, sizeof why) != 0) goto done;
    r = c.subscribe(&sub, pb_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        snprintf(why, sizeof why, "another client is subscribed "
                 "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)");
        goto done;
    }
    if (r != CUPTI_SUCCESS) {
        pbc_failed(&c, "cuptiSubscribe", r, why, sizeof why);
        goto done;
    }
    if (!only_subscribe && (r = pb_cupti_enable(&c, sub)) != CUPTI_SUCCESS) {
        pbc_failed(&c, "cuptiEnableCallback", r, why, sizeof why);
        c.unsubscribe(sub);
        goto done;
    }
    snprintf(why, sizeof why, "ok");
    pthread_mutex_lock(&pb.lock);
    pb.counting = !only_subscribe;
    pthread_mutex_unlock(&pb.lock);
done:
    pthread_mutex_lock(&pb.lock);
    snprintf(pb.cupti, sizeof pb.cupti, "%s", why);
    pthread_mutex_unlock(&pb.lock);
}

/* A whole number from the environment variable name, or def. */
static long long pb_env_num(const char *name, long long def)
{
    const char *s = getenv(name);
    char *end;
    long long v;
    if (!s || !*s) return def;
    errno = 0;
    v = strtoll(s, &end, 10);
    return errno || *end ? def : v;
}

int InitializeInjection(void)
{
    const char *dir = getenv(PRC_ENV_DIR), *only = getenv(PRC_ENV_ONLY_SUBSCRIBE);
    long long spans;
    void *frame;

    if (!dir || !*dir || atomic_load(&pb_on)) return 1;
    /* glibc's first backtrace opens libgcc_s: here, not inside a failed call. */
    backtrace(&frame, 1);
    spans = pb_env_num(PRC_ENV_SPANS, 0);
    if (pb_setup(dir, pb_env_num(PRC_ENV_T0, 0),
                 spans > PRC_MAX_SPANS ? PRC_MAX_SPANS : (long)(spans < 0 ? 0 : spans)) == 0)
        pb_cupti_start(only && strcmp(only, "1") == 0);
    atexit(pb_exit);
    return 1;
}

/* ------------------------------------------------------------- tests --- */

/* Forget everything, as before set-up (the clock kept). */
static void pb_forget(void)
{
    atomic_store(&pb_on, 0);
    pbl_forget();
    atomic_store(&pb_first, 0);
    pb_first_here = 0;
    pthread_mutex_lock(&pb.lock);
    free(pb.slots);
    free(pb.kernels);
    free(pb.spans);
    memset((char *)&pb + offsetof(pb_state, pid), 0, sizeof pb - offsetof(pb_state, pid));
    pthread_mutex_unlock(&pb.lock);
}

int pb_init_for_test(const char *dir, long long t0_ns, long max_spans)
{
    pb_forget();
    if (pb_setup(dir, t0_ns, max_spans) != 0) return -1;
    snprintf(pb.cupti, sizeof pb.cupti, "failed: a unit test (no subscription)");
    pb.counting = 1;
    return 0;
}

void pb_set_mem_info_for_test(CUresult (*mem_info)(size_t *, size_t *))
{
    atomic_store(&pb_mem_info, mem_info);
}

void pb_set_stream_query_for_test(CUresult (*query)(CUstream))
{
    atomic_store(&pb_stream_query, query);
    pb_stream_forget(NULL, 1);
}

void pb_set_clock_for_test(long long (*now)(void))
{
    pb_now = now ? now : clk_now_ns;
}

void pb_set_failure_driver_for_test(CUresult (*mem_info)(size_t *, size_t *),
                                    CUresult (*error_name)(CUresult, const char **))
{
    pb_test_mem_info = mem_info;
    pb_test_error_name = error_name;
}

void pb_set_driver_object_for_test(const void *addr)
{
    pb_test_driver_addr = addr;
}

void pb_reset_for_test(void)
{
    pb_forget();
    pb_now = clk_now_ns;
}
