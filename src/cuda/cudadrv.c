/* cudadrv.c: loading the CUDA driver with dlopen, the entry-point table, the
 * CUresult name table and the one error path for driver calls. */
#include "cuda/cudadrv.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/phase.h"
#include "os/sig.h"

struct drv_api drv;

static void *drv_lib;
static unsigned drv_sched;
static long drv_nerrors;
static double drv_timeout_s;
static __typeof__(&cuStreamSynchronize) drv_real_stream_sync;
static __typeof__(&cuEventSynchronize) drv_real_event_sync;
static volatile int *drv_held_flag;
static CUstream drv_held_stream;

/* Our own table of CUresult names: the stub library and a missing driver
 * cannot name codes, and cuGetErrorName may then leave NULL. Generated from
 * the enumerators of cuda.h's CUresult, so the compiler checks every one. */
#define E(x) { x, #x },
static const struct { CUresult code; const char *name; } drv_names[] = {
    E(CUDA_SUCCESS)
    E(CUDA_ERROR_INVALID_VALUE)
    E(CUDA_ERROR_OUT_OF_MEMORY)
    E(CUDA_ERROR_NOT_INITIALIZED)
    E(CUDA_ERROR_DEINITIALIZED)
    E(CUDA_ERROR_PROFILER_DISABLED)
    E(CUDA_ERROR_PROFILER_NOT_INITIALIZED)
    E(CUDA_ERROR_PROFILER_ALREADY_STARTED)
    E(CUDA_ERROR_PROFILER_ALREADY_STOPPED)
    E(CUDA_ERROR_STUB_LIBRARY)
    E(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    E(CUDA_ERROR_DEVICE_UNAVAILABLE)
    E(CUDA_ERROR_NO_DEVICE)
    E(CUDA_ERROR_INVALID_DEVICE)
    E(CUDA_ERROR_DEVICE_NOT_LICENSED)
    E(CUDA_ERROR_INVALID_IMAGE)
    E(CUDA_ERROR_INVALID_CONTEXT)
    E(CUDA_ERROR_CONTEXT_ALREADY_CURRENT)
    E(CUDA_ERROR_MAP_FAILED)
    E(CUDA_ERROR_UNMAP_FAILED)
    E(CUDA_ERROR_ARRAY_IS_MAPPED)
    E(CUDA_ERROR_ALREADY_MAPPED)
    E(CUDA_ERROR_NO_BINARY_FOR_GPU)
    E(CUDA_ERROR_ALREADY_ACQUIRED)
    E(CUDA_ERROR_NOT_MAPPED)
    E(CUDA_ERROR_NOT_MAPPED_AS_ARRAY)
    E(CUDA_ERROR_NOT_MAPPED_AS_POINTER)
    E(CUDA_ERROR_ECC_UNCORRECTABLE)
    E(CUDA_ERROR_UNSUPPORTED_LIMIT)
    E(CUDA_ERROR_CONTEXT_ALREADY_IN_USE)
    E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
    E(CUDA_ERROR_INVALID_PTX)
    E(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT)
    E(CUDA_ERROR_NVLINK_UNCORRECTABLE)
    E(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    E(CUDA_ERROR_JIT_COMPILATION_DISABLED)
    E(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY)
    E(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC)
    E(CUDA_ERROR_CONTAINED)
    E(CUDA_ERROR_INVALID_SOURCE)
    E(CUDA_ERROR_FILE_NOT_FOUND)
    E(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND)
    E(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)
    E(CUDA_ERROR_OPERATING_SYSTEM)
    E(CUDA_ERROR_INVALID_HANDLE)
    E(CUDA_ERROR_ILLEGAL_STATE)
    E(CUDA_ERROR_LOSSY_QUERY)
    E(CUDA_ERROR_NOT_FOUND)
    E(CUDA_ERROR_NOT_READY)
    E(CUDA_ERROR_ILLEGAL_ADDRESS)
    E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    E(CUDA_ERROR_LAUNCH_TIMEOUT)
    E(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING)
    E(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
    E(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE)
    E(CUDA_ERROR_CONTEXT_IS_DESTROYED)
    E(CUDA_ERROR_ASSERT)
    E(CUDA_ERROR_TOO_MANY_PEERS)
    E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    E(CUDA_ERROR_HARDWARE_STACK_ERROR)
    E(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    E(CUDA_ERROR_MISALIGNED_ADDRESS)
    E(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    E(CUDA_ERROR_INVALID_PC)
    E(CUDA_ERROR_LAUNCH_FAILED)
    E(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    E(CUDA_ERROR_TENSOR_MEMORY_LEAK)
    E(CUDA_ERROR_NOT_PERMITTED)
    E(CUDA_ERROR_NOT_SUPPORTED)
    E(CUDA_ERROR_SYSTEM_NOT_READY)
    E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    E(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    E(CUDA_ERROR_MPS_CONNECTION_FAILED)
    E(CUDA_ERROR_MPS_RPC_FAILURE)
    E(CUDA_ERROR_MPS_SERVER_NOT_READY)
    E(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED)
    E(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED)
    E(CUDA_ERROR_MPS_CLIENT_TERMINATED)
    E(CUDA_ERROR_CDP_NOT_SUPPORTED)
    E(CUDA_ERROR_CDP_VERSION_MISMATCH)
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    E(CUDA_ERROR_STREAM_CAPTURE_MERGE)
    E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED)
    E(CUDA_ERROR_STREAM_CAPTURE_UNJOINED)
    E(CUDA_ERROR_STREAM_CAPTURE_ISOLATION)
    E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
    E(CUDA_ERROR_CAPTURED_EVENT)
    E(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
    E(CUDA_ERROR_TIMEOUT)
    E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
    E(CUDA_ERROR_EXTERNAL_DEVICE)
    E(CUDA_ERROR_INVALID_CLUSTER_SIZE)
    E(CUDA_ERROR_FUNCTION_NOT_LOADED)
    E(CUDA_ERROR_INVALID_RESOURCE_TYPE)
    E(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION)
    E(CUDA_ERROR_KEY_ROTATION)
    E(CUDA_ERROR_UNKNOWN)
};
#undef E

const char *drv_result_name(CUresult r)
{
    size_t i;
    for (i = 0; i < sizeof drv_names / sizeof drv_names[0]; i++)
        if (drv_names[i].code == r) return drv_names[i].name;
    return "CUDA_ERROR_UNKNOWN_CODE";
}

int drv_result_code(const char *name, CUresult *r)
{
    size_t i;
    for (i = 0; i < sizeof drv_names / sizeof drv_names[0]; i++) {
        if (strcmp(drv_names[i].name, name) == 0) {
            *r = drv_names[i].code;
            return 0;
        }
    }
    return -1;
}

int drv_entry_known(const char *name)
{
    /* cuGetErrorString is in the table but never called through a check. */
    if (strcmp(name, "cuGetErrorString") == 0) return 0;
#define DRV_KNOWN(fn) if (strcmp(name, #fn) == 0) return 1;
    DRV_FUNCS(DRV_KNOWN)
    DRV_CKPT_FUNCS(DRV_KNOWN)
#undef DRV_KNOWN
    return 0;
}

CUresult drv_fault_default(const char *name)
{
    /* What each call returns when it really fails; the rest take
     * CUDA_ERROR_INVALID_VALUE, which every entry point can return. */
    static const struct { const char *name; CUresult code; } defaults[] = {
        { "cuInit", CUDA_ERROR_NO_DEVICE },
        { "cuDeviceGetCount", CUDA_ERROR_NOT_INITIALIZED },
        { "cuDeviceGet", CUDA_ERROR_INVALID_DEVICE },
        { "cuDevicePrimaryCtxRetain", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuCtxSetCurrent", CUDA_ERROR_INVALID_CONTEXT },
        { "cuModuleLoadData", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuModuleLoadDataEx", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuLibraryLoadData", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuModuleGetFunction", CUDA_ERROR_NOT_FOUND },
        { "cuLibraryGetKernel", CUDA_ERROR_NOT_FOUND },
        { "cuFuncLoad", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuMemAllocHost", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuMemHostAlloc", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuStreamCreate", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuEventCreate", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuGraphInstantiateWithFlags", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES },
        { "cuLaunchKernelEx", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES },
        { "cuGraphLaunch", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES },
        { "cuStreamSynchronize", CUDA_ERROR_LAUNCH_FAILED },
        { "cuEventSynchronize", CUDA_ERROR_LAUNCH_FAILED },
        { "cuEventElapsedTime", CUDA_ERROR_NOT_READY },
        { "cuStreamEndCapture", CUDA_ERROR_STREAM_CAPTURE_INVALIDATED },
        { "cuCheckpointProcessLock", CUDA_ERROR_NOT_READY },
        { "cuCheckpointProcessCheckpoint", CUDA_ERROR_NOT_SUPPORTED },
        { "cuCheckpointProcessRestore", CUDA_ERROR_OUT_OF_MEMORY },
        { "cuCheckpointProcessUnlock", CUDA_ERROR_ILLEGAL_STATE },
        { "cuCheckpointProcessGetState", CUDA_ERROR_INVALID_VALUE },
    };
    size_t i;
    for (i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (strcmp(defaults[i].name, name) == 0) return defaults[i].code;
    return CUDA_ERROR_INVALID_VALUE;
}

/* drv_report, told whether the failure was injected. */
static char drv_first[512];    /* the first error drv_report printed, in words */

static void drv_report_as(CUresult r, const char *call, const char *file, int line,
                          int injected)
{
    if (drv_nerrors++ == 0)
        snprintf(drv_first, sizeof drv_first, "%s: %s failed: %s (%d)%s", ph_get(), call,
                 drv_result_name(r), (int)r, injected ? " (injected by HARNESS_FAULT)" : "");
    fprintf(stderr, "harness: error: %s: %s failed: %s (%d)%s at %s:%d\n",
            ph_get(), call, drv_result_name(r), (int)r,
            injected ? " (injected by HARNESS_FAULT)" : "", file, line);
}

const char *drv_first_error(void)
{
    return drv_nerrors ? drv_first : NULL;
}

void drv_report(CUresult r, const char *call, const char *file, int line)
{
    drv_report_as(r, call, file, line, ft_take_injected());
}

long drv_errors(void)
{
    return drv_nerrors;
}

void drv_set_kernel_timeout(double seconds)
{
    drv_timeout_s = seconds;
}

#define DRV_SPIN_NS 2000000LL       /* poll without sleeping for the first 2 ms */
#define DRV_MAX_SLEEP_NS 1000000L   /* then sleep between polls, up to 1 ms */

/* Wait for stream s, or event e when not NULL, within the time limit. */
static CUresult drv_wait(CUstream s, CUevent e)
{
    long long t0, waited, limit = (long long)(drv_timeout_s * 1e9);
    long nap = 20000;
    CUresult r;

    if (drv_timeout_s <= 0) return e ? drv_real_event_sync(e) : drv_real_stream_sync(s);
    t0 = clk_now_ns();
    for (;;) {
        /* Before the query too: work that is always done by the first poll
         * (a fast device, the stand-in driver) must not skip every safe point. */
        sg_check();
        r = e ? drv.cuEventQuery(e) : drv.cuStreamQuery(s);
        if (r != CUDA_ERROR_NOT_READY) return r;
        waited = clk_now_ns() - t0;
        if (waited >= limit) {
            char why[160];
            fprintf(stderr, "harness: error: %s: %s timed out after %g s (--kernel-timeout=%g): "
                    "the work queued on the device did not finish (a kernel that does not end, or more queued "
                    "work than the limit allows)\n", ph_get(),
                    e ? "cuEventSynchronize" : "cuStreamSynchronize", drv_timeout_s, drv_timeout_s);
            snprintf(why, sizeof why, "a kernel ran past --kernel-timeout=%g s in %s",
                     drv_timeout_s, ph_get());
            sg_stop(1, why);
        }
        if (waited > DRV_SPIN_NS) {
            struct timespec ts = { 0, nap };
            nanosleep(&ts, NULL);
            if (nap < DRV_MAX_SLEEP_NS) nap *= 2;
        }
    }
}

/* drv.cuStreamSynchronize and drv.cuEventSynchronize (see cudadrv.h). */
static CUresult drv_wait_stream(CUstream s)
{
    return drv_wait(s, NULL);
}

static CUresult drv_wait_event(CUevent e)
{
    return drv_wait(NULL, e);
}

void drv_hold_flag(volatile int *flag, CUstream s)
{
    drv_held_flag = flag;
    drv_held_stream = s;
}

int drv_release_held(double wait_s)
{
    volatile int *flag = drv_held_flag;
    long long t0;
    if (!flag) return -1;
    drv_held_flag = NULL;
    flag[0] = 1;
    __sync_synchronize();
    if (!drv.cuStreamQuery) return 0;
    t0 = clk_now_ns();
    for (;;) {
        struct timespec ts = { 0, 1000000L };
        CUresult r = drv.cuStreamQuery(drv_held_stream);
        if (r != CUDA_ERROR_NOT_READY) return r == CUDA_SUCCESS ? 1 : 0;
        if ((double)(clk_now_ns() - t0) > wait_s * 1e9) return 0;
        nanosleep(&ts, NULL);
    }
}

/* The library drv_load opens: libcuda.so.1, or HARNESS_LIBCUDA's. */
static const char *drv_lib_name = "libcuda.so.1";
static int drv_lib_from_env;

/* Describe a failed bootstrap call, with a word on the stub library. */
static void drv_why_code(char *why, size_t len, const char *call, CUresult r)
{
    char stub[600] = "";
    int injected = ft_take_injected();

    if (!injected && r == CUDA_ERROR_STUB_LIBRARY)
        snprintf(stub, sizeof stub, ": this %.500s%s is the toolkit's stub, not a driver",
                 drv_lib_name, drv_lib_from_env ? " (HARNESS_LIBCUDA)" : "");
    snprintf(why, len, "%s: %s (%d)%s%s", call, drv_result_name(r), (int)r,
             injected ? " (injected by HARNESS_FAULT)" : "", stub);
}

int drv_load(char *why, size_t whylen)
{
    /* The unversioned cuGetProcAddress (the first ABI) is the bootstrap: it
     * exists in every driver since 11.3, and through it we ask for the
     * current cuGetProcAddress by base name like every other entry point. */
    typedef CUresult (*getproc_v1)(const char *, void **, int, cuuint64_t);
    getproc_v1 boot;
    __typeof__(&cuGetProcAddress) getproc = NULL;
    CUdriverProcAddressQueryResult status;
    CUresult r;
    void *p;

    const char *lib = getenv("HARNESS_LIBCUDA");

    if (drv_lib) return 0;
    /* HARNESS_LIBCUDA names another library (tests: a missing one, the stub). */
    drv_lib_from_env = lib && *lib;
    if (!drv_lib_from_env) lib = "libcuda.so.1";
    drv_lib_name = lib;
    drv_lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!drv_lib) {
        const char *e = dlerror();
        snprintf(why, whylen, "%s", e ? e : "dlopen failed");
        return -1;
    }
    p = dlsym(drv_lib, "cuGetProcAddress");
    memcpy(&boot, &p, sizeof p);
    if (!boot) {
        snprintf(why, whylen, "%s%s has no cuGetProcAddress: not a CUDA driver, or one older than "
                 "11.3", lib, drv_lib_from_env ? " (HARNESS_LIBCUDA)" : "");
        goto fail;
    }
    r = boot("cuGetProcAddress", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT);
    if (r != CUDA_SUCCESS) {
        drv_why_code(why, whylen, "cuGetProcAddress", r);
        goto fail;
    }
    memcpy(&getproc, &p, sizeof p);
#define DRV_RESOLVE(name)                                                     \
    r = getproc(#name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);\
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !p) {  \
        if (r != CUDA_SUCCESS) drv_why_code(why, whylen, "cuGetProcAddress(" #name ")", r); \
        else snprintf(why, whylen, "%s has no %s for CUDA %d.%d (status "   \
                      "%d): driver too old for these headers", lib,          \
                      #name, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, (int)status); \
        goto fail;                                                            \
    }                                                                         \
    memcpy(&drv.name, &p, sizeof p);
    DRV_FUNCS(DRV_RESOLVE)
#undef DRV_RESOLVE
    /* The checkpoint entry points may be missing (a driver before 570):
     * left NULL, for drv_ckpt_missing to say. */
#define DRV_RESOLVE_OPTIONAL(name)                                            \
    p = NULL;                                                                 \
    r = getproc(#name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);\
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS) p = NULL; \
    memcpy(&drv.name, &p, sizeof p);
    DRV_CKPT_FUNCS(DRV_RESOLVE_OPTIONAL)
#undef DRV_RESOLVE_OPTIONAL
    /* The two waits go through the bounded versions. */
    drv_real_stream_sync = drv.cuStreamSynchronize;
    drv_real_event_sync = drv.cuEventSynchronize;
    drv.cuStreamSynchronize = drv_wait_stream;
    drv.cuEventSynchronize = drv_wait_event;
    return 0;
fail:
    memset(&drv, 0, sizeof drv);
    dlclose(drv_lib);
    drv_lib = NULL;
    return -1;
}

int drv_ckpt_missing(char *why, size_t whylen)
{
    if (!drv_lib) {
        snprintf(why, whylen, "no CUDA driver loaded");
        return 1;
    }
#define DRV_CKPT_CHECK(name)                                                  \
    if (!drv.name) {                                                          \
        snprintf(why, whylen, "the driver has no checkpoint API: 570 or later (%s not found)", \
                 #name);                                                      \
        return 1;                                                             \
    }
    DRV_CKPT_FUNCS(DRV_CKPT_CHECK)
#undef DRV_CKPT_CHECK
    return 0;
}

void drv_set_sched(unsigned flags)
{
    drv_sched = flags;
}

int drv_unload(void)
{
    int rc = 0;
    if (drv_lib) rc = dlclose(drv_lib) == 0 ? 0 : -1;
    drv_lib = NULL;
    memset(&drv, 0, sizeof drv);
    return rc;
}

const char *drv_loading_name(CUmoduleLoadingMode m)
{
    switch (m) {
    case CU_MODULE_LAZY_LOADING: return "LAZY";
    case CU_MODULE_EAGER_LOADING: return "EAGER";
    }
    return "UNKNOWN";
}

/* A device attribute into *v. A required one that fails is reported and
 * gives -1; an optional one (clocks, sizes) the driver cannot give is 0. */
static int drv_attr(CUdevice dev, CUdevice_attribute a, int required, int *v)
{
    CUresult r;
    int injected;
    *v = 0;
    DRV_CALL(r, drv.cuDeviceGetAttribute(v, a, dev));
    if (r == CUDA_SUCCESS) return 0;
    *v = 0;
    injected = ft_take_injected();
    if (!required && !injected) return 0;
    drv_report_as(r, "drv.cuDeviceGetAttribute(v, a, dev)", __FILE__, __LINE__, injected);
    return -1;
}

/* 1 when r, from cuInit or cuDeviceGetCount, is how the driver says this
 * machine has no GPU it can use (no device, only the toolkit's stub, a
 * driver library that does not match the kernel module, a device that is
 * unavailable or not supported here); 0 for a call that failed. */
static int drv_means_no_gpu(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_SYSTEM_NOT_READY:
        return 1;
    default:
        return 0;
    }
}

/* Bootstrap call `name` (cuInit, cuDeviceGetCount; its text as made in
 * `text`, at `line`) answered r: DRV_NO_GPU with the answer in why when r
 * says there is no usable GPU; else DRV_FAILED after reporting the failed
 * call through the one error path. */
static int drv_bootstrap_failed(CUresult r, const char *name, const char *text, int line,
                                char *why, size_t whylen)
{
    char tmp[400];

    if (drv_means_no_gpu(r)) {
        drv_why_code(tmp, sizeof tmp, name, r);
        snprintf(why, whylen, "%s: %s", r == CUDA_ERROR_STUB_LIBRARY ? "no CUDA driver"
                 : "no usable GPU", tmp);
        return DRV_NO_GPU;
    }
    drv_report(r, text, __FILE__, line);
    snprintf(why, whylen, "%s failed (see the error above)", name);
    return DRV_FAILED;
}

int drv_init(char *why, size_t whylen)
{
    CUresult r;

    DRV_CALL(r, drv.cuInit(0));
    if (r != CUDA_SUCCESS)
        return drv_bootstrap_failed(r, "cuInit", "drv.cuInit(0)", __LINE__, why, whylen);
    return DRV_OK;
}

int drv_device_count(int *count, char *why, size_t whylen)
{
    CUresult r;

    *count = 0;
    DRV_CALL(r, drv.cuDeviceGetCount(count));
    if (r != CUDA_SUCCESS)
        return drv_bootstrap_failed(r, "cuDeviceGetCount", "drv.cuDeviceGetCount(count)", __LINE__,
                                    why, whylen);
    if (*count == 0) {
        snprintf(why, whylen, "no usable GPU: the driver sees no CUDA device");
        return DRV_NO_GPU;
    }
    return DRV_OK;
}

int drv_device_identity(CUdevice d, char *bus, char *uuid)
{
    CUuuid u;
    const unsigned char *b = (const unsigned char *)u.bytes;

    CK(drv.cuDeviceGetPCIBusId(bus, DRV_BUS_ID_LEN, d));
    bus[DRV_BUS_ID_LEN - 1] = '\0';
    CK(drv.cuDeviceGetUuid(&u, d));
    snprintf(uuid, DRV_UUID_LEN, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
             b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return 0;
fail:
    return -1;
}

int drv_gpu_open(drv_gpu *g, int ordinal, char *why, size_t whylen)
{
    char tmp[400];
    const char *prev_phase = ph_get();
    int count = 0, retained = 0, rc;
    double t0;

    memset(g, 0, sizeof *g);
    g->ordinal = ordinal;
    if (drv_load(tmp, sizeof tmp) != 0) {
        snprintf(why, whylen, "no CUDA driver: %s", tmp);
        return DRV_NO_GPU;
    }
    t0 = clk_now_ms();
    rc = drv_init(why, whylen);
    g->init_ms = clk_now_ms() - t0;
    if (rc != DRV_OK || (rc = drv_device_count(&count, why, whylen)) != DRV_OK) return rc;
    if (ordinal >= count) {
        snprintf(why, whylen, "--device=%d: this machine has %d CUDA device%s (0..%d)",
                 ordinal, count, count == 1 ? "" : "s", count - 1);
        return DRV_BAD_DEVICE;
    }
    {
        /* "crossover: opening the device": the section that asked. */
        static char phase[160];
        snprintf(phase, sizeof phase, "%.120s: opening the device", prev_phase);
        ph_set(phase);
    }
    CK(drv.cuDriverGetVersion(&g->driver_version));
    CK(drv.cuDeviceGet(&g->dev, ordinal));
    CK(drv.cuDeviceGetName(g->name, (int)sizeof g->name, g->dev));
    if (drv_device_identity(g->dev, g->pci_bus_id, g->uuid) != 0) goto fail;
    if (drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 1, &g->cc_major) ||
        drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1, &g->cc_minor) ||
        drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1, &g->sms) ||
        drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0, &g->l2_bytes) ||
        drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 0, &g->bus_width_bits) ||
        drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 0, &g->mem_clock_khz) ||
        drv_attr(g->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0, &g->sm_clock_khz))
        goto fail;
    CK(drv.cuDeviceTotalMem(&g->total_mem, g->dev));
    snprintf(g->arch, sizeof g->arch, "sm_%d%d", g->cc_major, g->cc_minor);
    if (drv_sched) CK(drv.cuDevicePrimaryCtxSetFlags(g->dev, drv_sched));
    t0 = clk_now_ms();
    CK(drv.cuDevicePrimaryCtxRetain(&g->ctx, g->dev));
    retained = 1;
    CK(drv.cuCtxSetCurrent(g->ctx));
    g->ctx_ms = clk_now_ms() - t0;
    CK(drv.cuCtxGetFlags(&g->ctx_flags));
    CK(drv.cuModuleGetLoadingMode(&g->loading));
    CK(drv.cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING));
    ph_set(prev_phase);
    return DRV_OK;
fail:
    snprintf(why, whylen, "opening device %d failed (see the error above)", ordinal);
    if (retained) drv.cuDevicePrimaryCtxRelease(g->dev);
    g->ctx = NULL;
    ph_set(prev_phase);
    return DRV_FAILED;
}

void drv_gpu_close(drv_gpu *g)
{
    if (!g->ctx) return;
    if (g->stream) drv.cuStreamDestroy(g->stream);
    drv.cuDevicePrimaryCtxRelease(g->dev);
    g->stream = NULL;
    g->ctx = NULL;
}

int drv_mem_info(size_t *free_b, size_t *total_b)
{
    CK(drv.cuMemGetInfo(free_b, total_b));
    return 0;
fail:
    return -1;
}

int drv_load_image(const void *image, int opt_level, CUmodule *mod,
                   double *host_ms, double *jit_ms)
{
    char log[8192];
    CUjit_option opt[4];
    void *val[4];
    unsigned n = 0;
    float wall = 0;
    double t0;
    CUresult r;

    log[0] = '\0';
    opt[n] = CU_JIT_WALL_TIME;
    val[n++] = NULL;
    opt[n] = CU_JIT_ERROR_LOG_BUFFER;
    val[n++] = log;
    opt[n] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    val[n++] = (void *)(uintptr_t)sizeof log;
    if (opt_level >= 0) {
        opt[n] = CU_JIT_OPTIMIZATION_LEVEL;
        val[n++] = (void *)(uintptr_t)(unsigned)opt_level;
    }
    t0 = clk_now_ms();
    DRV_CALL(r, drv.cuModuleLoadDataEx(mod, image, n, opt, val));
    *host_ms = clk_now_ms() - t0;
    /* CU_JIT_WALL_TIME comes back as a float in the pointer's bytes. */
    memcpy(&wall, &val[0], sizeof wall);
    *jit_ms = wall;
    if (r != CUDA_SUCCESS) {
        drv_report(r, "drv.cuModuleLoadDataEx(mod, image, ...)", __FILE__, __LINE__);
        if (log[0]) fprintf(stderr, "harness: the driver's JIT log: %s\n", log);
        *mod = NULL;
        return -1;
    }
    return 0;
}
