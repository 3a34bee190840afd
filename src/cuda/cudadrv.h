/* cudadrv.h: the CUDA driver, loaded with dlopen and resolved entry point by
 * entry point with cuGetProcAddress; one checking macro for every CUresult;
 * the device and context the sections share. */
#ifndef CUDADRV_H
#define CUDADRV_H

#include <stddef.h>
#include <cuda.h>
#include "os/fault.h"

/* Every driver entry point the harness calls, by base name. Each is resolved
 * with cuGetProcAddress at the headers' CUDA_VERSION, so the versioned symbol
 * (cuMemAlloc_v2, ...) is the driver's choice, not ours. */
#define DRV_FUNCS(X)                                                          \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorString)                       \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                     \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                               \
    X(cuDeviceGetPCIBusId) X(cuDeviceGetUuid)                                 \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                  \
    X(cuDevicePrimaryCtxGetState)                                             \
    X(cuCtxSetCurrent) X(cuCtxGetFlags)                                   \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)              \
    X(cuModuleGetLoadingMode) X(cuModuleGetFunctionCount)                     \
    X(cuModuleEnumerateFunctions) X(cuFuncGetName)                            \
    X(cuMemAlloc) X(cuMemFree) X(cuMemAllocHost) X(cuMemFreeHost)             \
    X(cuMemGetInfo) X(cuMemcpyHtoD) X(cuMemcpyDtoH)                           \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)               \
    X(cuMemsetD32Async) X(cuMemsetD32)                                        \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)               \
    X(cuStreamQuery)                                                          \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                       \
    X(cuEventSynchronize) X(cuEventQuery) X(cuEventElapsedTime)               \
    X(cuLaunchKernel)                                                         \
    X(cuModuleLoadDataEx) X(cuFuncIsLoaded) X(cuFuncLoad)                      \
    X(cuLibraryLoadData) X(cuLibraryUnload) X(cuLibraryGetKernel)              \
    X(cuKernelGetFunction)                                                    \
    X(cuMemHostAlloc) X(cuMemHostGetDevicePointer) X(cuMemcpyDtoDAsync)        \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags)\
    X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy)                   \
    X(cuLaunchKernelEx) X(cuDevicePrimaryCtxSetFlags) X(cuFuncGetAttribute)    \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                           \
    X(cuLibraryGetKernelCount) X(cuLibraryEnumerateKernels)

/* The driver's checkpoint entry points (driver 570 / CUDA 12.8 and
 * later), called on another process by its pid. They are resolved like
 * the others but may be missing: an older driver leaves them NULL and
 * drv_ckpt_missing says so; drv_load does not fail for them. */
#define DRV_CKPT_FUNCS(X)                                                     \
    X(cuCheckpointProcessLock) X(cuCheckpointProcessCheckpoint)               \
    X(cuCheckpointProcessRestore) X(cuCheckpointProcessUnlock)                \
    X(cuCheckpointProcessGetState)

/* The table of entry points. The member for cuMemAlloc is spelled as
 * cuda.h's macro expands it (cuMemAlloc_v2), so drv.cuMemAlloc(...) reads
 * like the API. One process-wide table: the driver itself is process-wide.
 * Two members are the harness's own: drv.cuStreamSynchronize and
 * drv.cuEventSynchronize wait within the kernel time limit (see
 * drv_set_kernel_timeout), so no wait on the device is unbounded. */
struct drv_api {
#define DRV_MEMBER(name) __typeof__(&name) name;
    DRV_FUNCS(DRV_MEMBER)
    DRV_CKPT_FUNCS(DRV_MEMBER)
#undef DRV_MEMBER
};
extern struct drv_api drv;

/* Whether the loaded driver has every checkpoint entry point
 * (DRV_CKPT_FUNCS): 0 when it has, else 1 with one line in why: "the
 * driver has no checkpoint API: 570 or later (cuCheckpointProcessLock
 * not found)"; also 1 (why: "no CUDA driver loaded") before drv_load. */
int drv_ckpt_missing(char *why, size_t whylen);

/* The time limit of every wait on the device through the table, in seconds
 * (--kernel-timeout). With a limit, drv.cuStreamSynchronize and
 * drv.cuEventSynchronize poll cuStreamQuery / cuEventQuery (spinning for
 * the first 2 ms, then sleeping up to 1 ms between polls), reach a safe
 * point (sg_check) at every poll, so SIGINT and SIGTERM are noticed while
 * waiting, and when the limit passes print
 *   harness: error: PHASE: cuStreamSynchronize timed out after S s (--kernel-timeout=S) ...
 * and end the run with sg_stop(1, ...): nothing after a stuck kernel could
 * free or unload without waiting on it. 0 (the default before this is
 * called) makes them the driver's own blocking calls, as the scheduling-mode
 * children need (their wait is the thing measured; --child-timeout bounds
 * them). */
void drv_set_kernel_timeout(double seconds);

/* The flag a blocking kernel spins on (host-mapped memory) and the stream
 * it runs on, held while the kernel may be waiting on it; NULL to clear.
 * drv_release_held sets it, whatever stops the run. */
void drv_hold_flag(volatile int *flag, CUstream s);

/* Release the held blocking kernel: set its flag, then wait up to wait_s
 * seconds for its stream to drain. Returns 1 when the stream drained, 0
 * when it had not (another kernel still runs), -1 when no flag was held. The
 * flag is no longer held afterwards. */
int drv_release_held(double wait_s);

/* Load libcuda.so.1 and resolve every entry point (no cuInit). Returns 0, or
 * -1 with a one-line reason in why ("libcuda.so.1: cannot open shared object
 * file", "cuGetProcAddress: CUDA_ERROR_STUB_LIBRARY (34): ..."). Idempotent. */
int drv_load(char *why, size_t whylen);

/* Unload the driver library (dlclose) and clear the table. Every context
 * must be released first. Returns 0, or -1 when dlclose failed. */
int drv_unload(void);

/* Name of a CUresult from our own table ("CUDA_ERROR_OUT_OF_MEMORY"); an
 * unknown code gives "CUDA_ERROR_UNKNOWN_CODE". Never NULL, never calls the
 * driver (which cannot name codes when it is the stub, or absent). */
const char *drv_result_name(CUresult r);


/* The one error path: prints
 *   harness: error: PHASE: CALL failed: NAME (CODE) at FILE:LINE
 * to stderr, with "(injected by HARNESS_FAULT)" before " at" when the
 * failure was injected, and counts it (drv_errors). */
void drv_report(CUresult r, const char *call, const char *file, int line);

/* How many errors drv_report has printed in this process. */
long drv_errors(void);

/* The first of them as "PHASE: CALL failed: NAME (CODE)", or NULL when
 * none was printed. */
const char *drv_first_error(void);

/* Make a checked call: r = the call's CUresult, or, when HARNESS_FAULT
 * names this call (fault.h), the injected code, the call then not made.
 * DRV_CALL_AS takes the call's text apart: a macro that passes its argument
 * on must stringify it itself, before cuda.h's names (cuMemAlloc ->
 * cuMemAlloc_v2) are expanded in it. */
#define DRV_CALL(r, call) DRV_CALL_AS(r, call, #call)
#define DRV_CALL_AS(r, call, text) do {                                     \
        (r) = (CUresult)ft_hit(text);                                       \
        if ((r) == CUDA_SUCCESS) (r) = (call);                              \
    } while (0)

/* Check a CUresult: on failure report it and jump to the enclosing
 * function's `fail:` label. The call is evaluated once (or not at all when
 * a fault is injected in its place). */
#define CK(call) do {                                                       \
        CUresult ck_r_;                                                     \
        DRV_CALL_AS(ck_r_, call, #call);                                    \
        if (ck_r_ != CUDA_SUCCESS) {                                        \
            drv_report(ck_r_, #call, __FILE__, __LINE__);                   \
            goto fail;                                                      \
        }                                                                   \
    } while (0)

/* For HARNESS_FAULT: 1 when name is an entry point of the table, else 0. */
int drv_entry_known(const char *name);

/* The CUresult whose name is name ("CUDA_ERROR_OUT_OF_MEMORY"): 0, or -1
 * when no CUresult has that name. */
int drv_result_code(const char *name, CUresult *r);

/* The error an injected failure of entry point name returns when
 * HARNESS_FAULT gives no CODE: one that call can really return. */
CUresult drv_fault_default(const char *name);

/* One usable GPU: device, primary context (current on this thread), one
 * stream, and what the environment record needs. */
#define DRV_BUS_ID_LEN 32
#define DRV_UUID_LEN 48

/* Device d's PCI bus id (cuDeviceGetPCIBusId) into bus and its UUID
 * (cuDeviceGetUuid, as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx") into
 * uuid, DRV_BUS_ID_LEN and DRV_UUID_LEN bytes. Returns 0, or -1 after
 * reporting a failed call. */
int drv_device_identity(CUdevice d, char *bus, char *uuid);

typedef struct drv_gpu {
    int ordinal;
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    char name[256];
    char pci_bus_id[DRV_BUS_ID_LEN]; /* "0000:19:00.0" */
    char uuid[DRV_UUID_LEN];         /* "GPU-1a2b3c4d-...", as nvidia-smi writes it */
    int cc_major, cc_minor;
    int sms;
    int l2_bytes;
    int bus_width_bits;
    int mem_clock_khz;       /* peak memory clock, 0 when not readable */
    int sm_clock_khz;        /* typical SM clock, 0 when not readable */
    size_t total_mem;
    int driver_version;      /* cuDriverGetVersion: 13000 for 13.0 */
    CUmoduleLoadingMode loading; /* effective, cuModuleGetLoadingMode */
    unsigned ctx_flags;      /* cuCtxGetFlags */
    char arch[16];           /* "sm_90", from the compute capability */
    double init_ms;          /* cuInit, host clock */
    double ctx_ms;           /* primary context retain + set current */
} drv_gpu;

enum { DRV_OK = 0, DRV_NO_GPU = -1, DRV_BAD_DEVICE = -2, DRV_FAILED = -3 };

/* Context scheduling flags (CU_CTX_SCHED_*) for the primary context the next
 * drv_gpu_open makes active; 0 leaves the driver's default. */
void drv_set_sched(unsigned flags);

/* Load the driver if needed, cuInit, and open device `ordinal`. Returns
 * DRV_OK; DRV_NO_GPU with a one-line reason in why when no driver or no
 * usable device is there (no driver, the stub, no device counted, or
 * cuInit or cuDeviceGetCount answering with a code that says so:
 * CUDA_ERROR_NO_DEVICE, _STUB_LIBRARY, _SYSTEM_DRIVER_MISMATCH,
 * _COMPAT_NOT_SUPPORTED_ON_DEVICE, _DEVICE_UNAVAILABLE, _SYSTEM_NOT_READY);
 * DRV_BAD_DEVICE with why naming the device count when the ordinal does
 * not exist; DRV_FAILED when a driver call failed, those two with any
 * other code included (reported through drv_report; why says so). On
 * failure nothing is left open. */
int drv_gpu_open(drv_gpu *g, int ordinal, char *why, size_t whylen);

/* cuInit(0), and cuDeviceGetCount into *count, as drv_gpu_open makes them
 * (for the children that time them as steps of their own; the driver
 * loaded). Each returns DRV_OK; DRV_NO_GPU with a one-line reason in why
 * when the answer says there is no usable GPU (the codes listed above; no
 * device counted); DRV_FAILED after reporting any other failure. */
int drv_init(char *why, size_t whylen);
int drv_device_count(int *count, char *why, size_t whylen);

/* Release the stream and the primary context. Safe on a failed open. */
void drv_gpu_close(drv_gpu *g);

/* Name of a loading mode: "LAZY", "EAGER". */
const char *drv_loading_name(CUmoduleLoadingMode m);

/* Load a compiled image, cubin or PTX, with cuModuleLoadDataEx, asking the
 * driver for its JIT wall time (CU_JIT_WALL_TIME) and error log. opt_level
 * 0..4 sets CU_JIT_OPTIMIZATION_LEVEL; -1 leaves the driver's default.
 * *host_ms: the call on the host clock; *jit_ms: the driver's JIT wall time
 * (0 for a cubin, or when the JIT was not run at load). Returns 0, or -1
 * after printing the failed call and the driver's JIT log. */
int drv_load_image(const void *image, int opt_level, CUmodule *mod,
                   double *host_ms, double *jit_ms);

/* Device memory free and total in bytes; 0 or -1 (reported). */
int drv_mem_info(size_t *free_b, size_t *total_b);

#endif
