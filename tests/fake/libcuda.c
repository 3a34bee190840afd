/* libcuda.c: a stand-in for libcuda.so.1, loaded through HARNESS_LIBCUDA by
 * the CPU tests, so the harness's driver paths run on a machine without a
 * GPU: one device (compute capability 9.0), host memory behind every device
 * pointer, copies and memsets done with memcpy, kernels that do nothing.
 * FAKE_CUDA_HANG=FILE makes the device never finish its work: every
 * cuStreamQuery and cuEventQuery answers CUDA_ERROR_NOT_READY (the first
 * one creates FILE, so a test knows the harness is waiting), and the
 * blocking waits never return. Any entry point not implemented here
 * resolves to a function that returns CUDA_ERROR_NOT_SUPPORTED. */
#include <cuda.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fake_hung(void)
{
    static int announced;
    const char *f = getenv("FAKE_CUDA_HANG");
    if (!f || !*f) return 0;
    if (!announced) {
        int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) close(fd);
        announced = 1;
    }
    return 1;
}

static CUresult fake_unsupported(void) { return CUDA_ERROR_NOT_SUPPORTED; }

static CUresult f_cuInit(unsigned flags) { (void)flags; return CUDA_SUCCESS; }
static CUresult f_cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult f_cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake"; return CUDA_SUCCESS; }
static CUresult f_cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
static CUresult f_cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *d = 0;
    return CUDA_SUCCESS;
}
static CUresult f_cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    strncpy(name, "Fake GPU (tests/fake_cuda.c)", (size_t)len - 1);
    name[len - 1] = '\0';
    return CUDA_SUCCESS;
}
static CUresult f_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 1 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}
static CUresult f_cuDeviceTotalMem(size_t *b, CUdevice d) { (void)d; *b = (size_t)1 << 34; return CUDA_SUCCESS; }
static int fake_ctx_obj;
static unsigned fake_ctx_flags;
static CUresult f_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    (void)d;
    *c = (CUcontext)(void *)&fake_ctx_obj;
    return CUDA_SUCCESS;
}
static CUresult f_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult f_cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned f) { (void)d; fake_ctx_flags = f; return CUDA_SUCCESS; }
static CUresult f_cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
static CUresult f_cuCtxGetFlags(unsigned *f) { *f = fake_ctx_flags; return CUDA_SUCCESS; }
static CUresult f_cuModuleGetLoadingMode(CUmoduleLoadingMode *m) { *m = CU_MODULE_LAZY_LOADING; return CUDA_SUCCESS; }

/* Streams, events, modules and functions: distinct non-NULL handles. */
static CUresult f_handle(void **h)
{
    *h = malloc(1);
    return *h ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult f_release(void *h) { free(h); return CUDA_SUCCESS; }
static CUresult f_cuStreamCreate(CUstream *s, unsigned f) { (void)f; return f_handle((void **)s); }
static CUresult f_cuStreamDestroy(CUstream s) { return f_release(s); }
static CUresult f_cuStreamQuery(CUstream s) { (void)s; return fake_hung() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
static CUresult f_cuStreamSynchronize(CUstream s)
{
    (void)s;
    while (fake_hung()) pause();
    return CUDA_SUCCESS;
}
static CUresult f_cuEventCreate(CUevent *e, unsigned f) { (void)f; return f_handle((void **)e); }
static CUresult f_cuEventDestroy(CUevent e) { return f_release(e); }
static CUresult f_cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
static CUresult f_cuEventQuery(CUevent e) { (void)e; return fake_hung() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
static CUresult f_cuEventSynchronize(CUevent e)
{
    (void)e;
    while (fake_hung()) pause();
    return CUDA_SUCCESS;
}
static CUresult f_cuEventElapsedTime(float *ms, CUevent a, CUevent b) { (void)a; (void)b; *ms = 0.5f; return CUDA_SUCCESS; }
static CUresult f_cuModuleLoadDataEx(CUmodule *m, const void *img, unsigned n, CUjit_option *o, void **v)
{
    (void)img;
    (void)n;
    (void)o;
    (void)v;
    return f_handle((void **)m);
}
static CUresult f_cuModuleLoadData(CUmodule *m, const void *img) { (void)img; return f_handle((void **)m); }
static CUresult f_cuModuleUnload(CUmodule m) { return f_release(m); }
static int fake_fn_obj;
static CUresult f_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    (void)m;
    (void)name;
    *f = (CUfunction)(void *)&fake_fn_obj;
    return CUDA_SUCCESS;
}
static CUresult f_cuFuncIsLoaded(CUfunctionLoadingState *st, CUfunction f)
{
    (void)f;
    *st = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}
static CUresult f_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e)
{
    (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)s;
    (void)p; (void)e;
    return CUDA_SUCCESS;
}

/* Memory: device pointers are host addresses. */
static CUresult f_cuMemGetInfo(size_t *fr, size_t *total)
{
    *fr = (size_t)1 << 33;
    *total = (size_t)1 << 34;
    return CUDA_SUCCESS;
}
static CUresult f_cuMemAlloc(CUdeviceptr *p, size_t n)
{
    void *m = calloc(1, n ? n : 1);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}
static CUresult f_cuMemFree(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
static CUresult f_cuMemAllocHost(void **p, size_t n)
{
    *p = calloc(1, n ? n : 1);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult f_cuMemHostAlloc(void **p, size_t n, unsigned f) { (void)f; return f_cuMemAllocHost(p, n); }
static CUresult f_cuMemFreeHost(void *p) { free(p); return CUDA_SUCCESS; }
static CUresult f_cuMemHostGetDevicePointer(CUdeviceptr *d, void *h, unsigned f)
{
    (void)f;
    *d = (CUdeviceptr)(uintptr_t)h;
    return CUDA_SUCCESS;
}
static CUresult f_cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n) { memcpy((void *)(uintptr_t)d, h, n); return CUDA_SUCCESS; }
static CUresult f_cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n) { memcpy(h, (const void *)(uintptr_t)d, n); return CUDA_SUCCESS; }
static CUresult f_cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, CUstream s) { (void)s; return f_cuMemcpyHtoD(d, h, n); }
static CUresult f_cuMemcpyDtoHAsync(void *h, CUdeviceptr d, size_t n, CUstream s) { (void)s; return f_cuMemcpyDtoH(h, d, n); }
static CUresult f_cuMemcpyDtoDAsync(CUdeviceptr a, CUdeviceptr b, size_t n, CUstream s)
{
    (void)s;
    memmove((void *)(uintptr_t)a, (const void *)(uintptr_t)b, n);
    return CUDA_SUCCESS;
}
static CUresult f_cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s)
{
    unsigned *p = (unsigned *)(uintptr_t)d;
    size_t i;
    (void)s;
    for (i = 0; i < n; i++) p[i] = v;
    return CUDA_SUCCESS;
}

#define F(name) { #name, (void (*)(void))f_##name }
static const struct { const char *name; void (*fn)(void); } fake_table[] = {
    F(cuInit), F(cuDriverGetVersion), F(cuGetErrorString), F(cuDeviceGetCount), F(cuDeviceGet),
    F(cuDeviceGetName), F(cuDeviceGetAttribute), F(cuDeviceTotalMem), F(cuDevicePrimaryCtxRetain),
    F(cuDevicePrimaryCtxRelease), F(cuDevicePrimaryCtxSetFlags), F(cuCtxSetCurrent),
    F(cuCtxGetFlags), F(cuModuleGetLoadingMode), F(cuStreamCreate), F(cuStreamDestroy),
    F(cuStreamQuery), F(cuStreamSynchronize), F(cuEventCreate), F(cuEventDestroy),
    F(cuEventRecord), F(cuEventQuery), F(cuEventSynchronize), F(cuEventElapsedTime),
    F(cuModuleLoadDataEx), F(cuModuleLoadData), F(cuModuleUnload), F(cuModuleGetFunction),
    F(cuFuncIsLoaded), F(cuLaunchKernel), F(cuMemGetInfo), F(cuMemAlloc), F(cuMemFree),
    F(cuMemAllocHost), F(cuMemHostAlloc), F(cuMemFreeHost), F(cuMemHostGetDevicePointer),
    F(cuMemcpyHtoD), F(cuMemcpyDtoH), F(cuMemcpyHtoDAsync), F(cuMemcpyDtoHAsync),
    F(cuMemcpyDtoDAsync), F(cuMemsetD32Async),
};
#undef F

/* cuGetProcAddress as the current ABI (with the status out-parameter). */
static CUresult f_getproc(const char *symbol, void **pfn, int version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult *status)
{
    void (*fn)(void) = (void (*)(void))fake_unsupported;
    size_t i;
    (void)version;
    (void)flags;
    if (strcmp(symbol, "cuGetProcAddress") == 0) fn = (void (*)(void))f_getproc;
    for (i = 0; i < sizeof fake_table / sizeof fake_table[0]; i++)
        if (strcmp(symbol, fake_table[i].name) == 0) fn = fake_table[i].fn;
    memcpy(pfn, &fn, sizeof fn);
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

/* The exported bootstrap: the first ABI of cuGetProcAddress, unversioned. */
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    return f_getproc(symbol, pfn, version, flags, NULL);
}
