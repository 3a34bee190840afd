/* fake_libcuda.c: a stand-in libcuda.so.1 for CPU tests of the harness's
 * driver paths (HARNESS_LIBCUDA=.../fake_libcuda.so): every entry point the
 * harness resolves, answering like one GPU with host memory behind it.
 * Kernels do not run, so the harness's checks fail (exit 1); what it is for
 * is the error paths: with HARNESS_FAULT each checked call can fail once and
 * the run must end cleanly, under the sanitizers too.
 * FAKE_CUDA_HANG=FILE makes the device never finish its work: every
 * cuStreamQuery and cuEventQuery answers CUDA_ERROR_NOT_READY (the first
 * one creates FILE, so a test knows the harness is waiting), and the
 * blocking waits never return: for the tests of --kernel-timeout and
 * signals. Modules hold the lesson's two kernels, vectorAdd and
 * vectorScale, as functions of their own that follow the loading mode
 * (CUDA_MODULE_LOADING=EAGER: loaded with the module; otherwise each is
 * loaded by its cuModuleGetFunction, cuFuncLoad or first launch, as
 * cuFuncIsLoaded reports); any other name gets one shared, loaded function.
 * Devices: FAKE_CUDA_DEVICES=N (1..64, default 1) GPUs, each "Fake GPU"
 * with a bus id and UUID of its own; CUDA_VISIBLE_DEVICES (ordinals, as the
 * driver reads them: up to the first entry that is not one) picks and
 * orders the visible ones, unless FAKE_CUDA_IGNORE_VISIBLE=1 (a driver
 * that does not honour it: every device visible). FAKE_CUDA_INIT_US=U:
 * cuInit waits U us per visible device and a primary context's first
 * retain U us (a cold start that grows with the device count). FAKE_CUDA_KERNEL_US=U: every launch
 * adds U us to the device's event clock (no waiting), so event-timed
 * figures are U us per launch; FAKE_CUDA_SLOW=K:F multiplies that for
 * physical device K by F; FAKE_CUDA_FAIL=K makes every launch on physical
 * device K fail with CUDA_ERROR_ECC_UNCORRECTABLE (a device that breaks
 * mid-run). Images of --module: FAKE_CUDA_REFUSE_SIZE=B refuses a fatbin of
 * B bytes (header and entries, as the harness's inventory counts them) with
 * CUDA_ERROR_INVALID_IMAGE, a corrupt image; FAKE_CUDA_CRASH_SIZE=B aborts
 * the process loading one (SIGABRT), a driver that dies on an image.
 * Device memory shared by processes, for the tests of --squeeze:
 * FAKE_CUDA_FREE_MIB=N makes the device hold N MiB free before any
 * process allocates, and FAKE_CUDA_MEM_DIR=DIR (needed with it) the place
 * where each process's allocations are counted, DIR/<pid> holding the
 * bytes it holds (written at each change). cuMemGetInfo answers N less
 * what the processes still alive hold (one that ended, a zombie included,
 * holds nothing: the driver gives its memory back); cuMemAlloc beyond that,
 * or beyond FAKE_CUDA_MAX_ALLOC_MIB in one allocation (fragmentation), is
 * CUDA_ERROR_OUT_OF_MEMORY. Allocations of more than 64 MiB are address
 * space only (never touched). The stand-in program reads the same files
 * (tests/standin_program.py).
 * The checkpoint entry points (cuCheckpointProcess*), called on another
 * process by pid: FAKE_CUDA_NO_CKPT=1 makes cuGetProcAddress find none of
 * them (a driver before 570). Each process's state is kept in
 * FAKE_CUDA_MEM_DIR/ckpt.<pid> (a number, CUprocessState; in this
 * process's memory without FAKE_CUDA_MEM_DIR), and moves as the driver's
 * does: lock RUNNING -> LOCKED, checkpoint LOCKED -> CHECKPOINTED (the
 * bytes the process holds, FAKE_CUDA_MEM_DIR/<pid>, set to 0, so the
 * device has them free again, and kept in saved.<pid>), restore back to
 * LOCKED (the bytes held again; more than the device has free is
 * CUDA_ERROR_OUT_OF_MEMORY), unlock LOCKED -> RUNNING; a step from
 * another state is CUDA_ERROR_ILLEGAL_STATE, a pid that is gone
 * CUDA_ERROR_INVALID_VALUE. Planted: FAKE_CUDA_CKPT_US=L,C,R,U makes each
 * step take that many us; FAKE_CUDA_CKPT_GBS=C,R makes a checkpoint and a
 * restore take, besides, the bytes moved at C and R GB/s (1e9 bytes a
 * second); FAKE_CUDA_CKPT_FAIL=STEP:CODE makes STEP (lock,
 * checkpoint, restore, unlock) answer CODE, the state unchanged;
 * FAKE_CUDA_CKPT_BUSY=1 makes a lock find work that never ends: it waits
 * its timeoutMs and answers CUDA_ERROR_NOT_READY, the process left
 * RUNNING; FAKE_CUDA_CKPT_KILL=STEP kills the process (SIGKILL) once
 * STEP succeeded; FAKE_CUDA_CKPT_CORRUPT=1 makes a restore spoil the
 * process's device memory: the first cuMemcpyDtoH it makes after it reads
 * one float changed (FAKE_CUDA_MEM_DIR/corrupt.<pid> marks it).
 * Built by make as build/libfakecuda.so. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cuda/cudadrv.h"

struct fake_event { double ms; };
struct fake_fn { const char *name; int loaded; };
#define FAKE_MOD_FNS 2
struct fake_mod { struct fake_fn fn[FAKE_MOD_FNS]; };

#define FAKE_MAX_DEVICES 64
static unsigned fake_ctx_flags;
static int fake_ctx_object[FAKE_MAX_DEVICES], fake_kernel_object;
static int fake_retained[FAKE_MAX_DEVICES];
static int fake_cur;            /* the current context's visible ordinal */
static double fake_added_ms;    /* what launches added to the event clock */
static struct fake_fn fake_fn_object = { "fake", 1 };

/* 1 when CUDA_MODULE_LOADING asks for eager loading. */
static int fake_eager(void)
{
    const char *e = getenv("CUDA_MODULE_LOADING");
    return e && strcmp(e, "EAGER") == 0;
}

static double fake_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *fake_handle(void)
{
    return calloc(1, 64);
}

/* The integer value of environment variable name, or def when unset. */
static long fake_env_long(const char *name, long def)
{
    const char *e = getenv(name);
    return e && *e ? strtol(e, NULL, 10) : def;
}

/* The physical ordinals of the visible devices into vis (at most
 * FAKE_MAX_DEVICES); returns their count. */
static int fake_visible(int *vis)
{
    long n = fake_env_long("FAKE_CUDA_DEVICES", 1);
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    int count = 0, i;

    if (n < 1) n = 1;
    if (n > FAKE_MAX_DEVICES) n = FAKE_MAX_DEVICES;
    if (!v || fake_env_long("FAKE_CUDA_IGNORE_VISIBLE", 0) == 1) {
        for (i = 0; i < n; i++) vis[i] = i;
        return (int)n;
    }
    while (*v && count < FAKE_MAX_DEVICES) {
        char *end;
        long k = strtol(v, &end, 10);
        if (end == v || k < 0 || k >= n) break;
        for (i = 0; i < count && vis[i] != k; i++) {}
        if (i < count) break;               /* named twice: the driver stops */
        vis[count++] = (int)k;
        if (*end != ',') break;
        v = end + 1;
    }
    return count;
}

/* The physical ordinal of visible device d, or -1. */
static int fake_physical(int d)
{
    int vis[FAKE_MAX_DEVICES], n = fake_visible(vis);
    return d >= 0 && d < n ? vis[d] : -1;
}

static void fake_wait_us(long us)
{
    struct timespec ts;
    if (us <= 0) return;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = us % 1000000 * 1000;
    nanosleep(&ts, NULL);
}

CUresult CUDAAPI cuInit(unsigned int flags)
{
    int vis[FAKE_MAX_DEVICES];
    (void)flags;
    fake_wait_us(fake_env_long("FAKE_CUDA_INIT_US", 0) * fake_visible(vis));
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int *v) { *v = CUDA_VERSION; return CUDA_SUCCESS; }
CUresult CUDAAPI cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake"; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetCount(int *n)
{
    int vis[FAKE_MAX_DEVICES];
    *n = fake_visible(vis);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal)
{
    if (fake_physical(ordinal) < 0) return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
    int k = fake_physical(d);
    if (k < 0) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(bus, (size_t)len, "00000000:%02X:00.0", 0x19 + 0x10 * k);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *u, CUdevice d)
{
    int k = fake_physical(d), i;
    if (k < 0) return CUDA_ERROR_INVALID_DEVICE;
    for (i = 0; i < 16; i++) u->bytes[i] = (char)(i == 15 ? k : 0xfa);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    strncpy(name, "Fake GPU", (size_t)len);
    name[len - 1] = '\0';
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 5120; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    default: *v = 1; break;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t *b, CUdevice d) { (void)d; *b = (size_t)80 << 30; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    if (fake_physical(d) < 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!fake_retained[d]++) fake_wait_us(fake_env_long("FAKE_CUDA_INIT_US", 0));
    *c = (CUcontext)(void *)&fake_ctx_object[d];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice d, unsigned int *flags, int *active)
{
    (void)d;
    *flags = fake_ctx_flags;
    *active = 1;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned int flags)
{
    (void)d;
    fake_ctx_flags = flags;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext c)
{
    if (c) fake_cur = (int)((int *)(void *)c - fake_ctx_object);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags) { *flags = fake_ctx_flags; return CUDA_SUCCESS; }

/* Like the driver for a GPU of sm_90: a fatbin (magic 0xBA55ED50) with no
 * entry of SASS for sm_90 (ELF, arch 90) and no PTX for 90 or below is
 * CUDA_ERROR_NO_BINARY_FOR_GPU; PTX text of an ISA above 9.0 is
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION. The entry sizes are trusted: the
 * harness checked them before handing the image over. */
static CUresult fake_image_ok(const void *image)
{
    const unsigned char *p = image;
    const char *v;
    uint32_t magic;
    uint64_t size, q, hs;
    unsigned major = 0, minor = 0;
    memcpy(&magic, p, 4);
    if (memcmp(p, "\177ELF", 4) == 0) return CUDA_SUCCESS;     /* a cubin */
    /* PTX text (NUL-terminated) of an ISA above 9.0 (CUDA 13.0's): newer
     * than this driver. */
    if (magic != 0xBA55ED50u && (v = strstr(image, ".version")) &&
        sscanf(v + 8, " %u.%u", &major, &minor) == 2 && major * 10 + minor > 90)
        return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    if (magic != 0xBA55ED50u) return CUDA_SUCCESS;
    hs = (uint64_t)(p[6] | p[7] << 8);
    memcpy(&size, p + 8, 8);
    if ((long)(hs + size) == fake_env_long("FAKE_CUDA_CRASH_SIZE", -1)) abort();
    if ((long)(hs + size) == fake_env_long("FAKE_CUDA_REFUSE_SIZE", -1)) return CUDA_ERROR_INVALID_IMAGE;
    for (q = hs; q < hs + size;) {
        uint16_t kind;
        uint32_t ehs, arch;
        uint64_t esz;
        memcpy(&kind, p + q, 2);
        memcpy(&ehs, p + q + 4, 4);
        memcpy(&esz, p + q + 8, 8);
        memcpy(&arch, p + q + 28, 4);
        if ((kind == 2 && arch == 90) || (kind == 1 && arch <= 90)) return CUDA_SUCCESS;
        q += ehs + esz;
    }
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *m, const void *image)
{
    static const char *const names[FAKE_MOD_FNS] = { "vectorAdd", "vectorScale" };
    struct fake_mod *fm;
    int i;
    CUresult r = fake_image_ok(image);
    if (r != CUDA_SUCCESS) return r;     /* refused: nothing allocated */
    fm = calloc(1, sizeof *fm);
    if (!fm) return CUDA_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < FAKE_MOD_FNS; i++) {
        fm->fn[i].name = names[i];
        fm->fn[i].loaded = fake_eager();
    }
    *m = (CUmodule)(void *)fm;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n,
                                    CUjit_option *opt, void **val)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        if (opt[i] == CU_JIT_WALL_TIME) {
            float ms = 0.25f;
            memcpy(&val[i], &ms, sizeof ms);
        }
    }
    return cuModuleLoadData(m, image);
}
CUresult CUDAAPI cuModuleUnload(CUmodule m) { free(m); return CUDA_SUCCESS; }
CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    struct fake_mod *fm = (struct fake_mod *)(void *)m;
    int i;
    for (i = 0; i < FAKE_MOD_FNS; i++)
        if (strcmp(fm->fn[i].name, name) == 0) {
            fm->fn[i].loaded = 1;
            *f = (CUfunction)(void *)&fm->fn[i];
            return CUDA_SUCCESS;
        }
    *f = (CUfunction)(void *)&fake_fn_object;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule m)
{
    (void)m;
    *count = FAKE_MOD_FNS;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *fns, unsigned int n, CUmodule m)
{
    struct fake_mod *fm = (struct fake_mod *)(void *)m;
    unsigned i;
    for (i = 0; i < n && i < FAKE_MOD_FNS; i++) fns[i] = (CUfunction)(void *)&fm->fn[i];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction f)
{
    *name = ((struct fake_fn *)(void *)f)->name;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    *mode = fake_eager() ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---------------------------------------------- shared device memory --- */

#define FAKE_MAX_ALLOCS 8192
#define FAKE_BIG ((size_t)64 << 20)     /* larger: address space only */
static struct { void *p; size_t n; } fake_alloc[FAKE_MAX_ALLOCS];
static size_t fake_held;        /* bytes this process holds (FAKE_CUDA_FREE_MIB) */

/* 1 when the device's memory is shared (FAKE_CUDA_FREE_MIB and FAKE_CUDA_MEM_DIR). */
static int fake_shared(void)
{
    const char *d = getenv("FAKE_CUDA_MEM_DIR");
    return fake_env_long("FAKE_CUDA_FREE_MIB", -1) >= 0 && d && *d;
}

/* 1 when process pid is alive and not a zombie. */
static int fake_alive(long pid)
{
    char path[64], buf[512], *close_paren;
    ssize_t n;
    int fd;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if ((fd = open(path, O_RDONLY)) < 0) return 0;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    close_paren = strrchr(buf, ')');
    return !(close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X'));
}

/* Bytes the live processes hold, this one's own from memory. */
static size_t fake_held_all(void)
{
    DIR *d = opendir(getenv("FAKE_CUDA_MEM_DIR"));
    struct dirent *e;
    size_t sum = fake_held;
    if (!d) return sum;
    while ((e = readdir(d))) {
        char path[4096], buf[64];
        long pid = strtol(e->d_name, NULL, 10);
        ssize_t n;
        int fd;
        if (pid <= 0 || pid == (long)getpid() || !fake_alive(pid)) continue;
        snprintf(path, sizeof path, "%s/%s", getenv("FAKE_CUDA_MEM_DIR"), e->d_name);
        if ((fd = open(path, O_RDONLY)) < 0) continue;
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            sum += (size_t)strtoull(buf, NULL, 10);
        }
    }
    closedir(d);
    return sum;
}

/* This process's holding into FAKE_CUDA_MEM_DIR/<pid>. */
static void fake_save_held(void)
{
    char path[4096], tmp[4160], buf[64];
    int fd, n;
    snprintf(path, sizeof path, "%s/%ld", getenv("FAKE_CUDA_MEM_DIR"), (long)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    n = snprintf(buf, sizeof buf, "%zu\n", fake_held);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) return;
    if (write(fd, buf, (size_t)n) == n && close(fd) == 0) rename(tmp, path);
    else close(fd);
}

/* The device's free bytes now. */
static size_t fake_free(void)
{
    size_t total = (size_t)fake_env_long("FAKE_CUDA_FREE_MIB", 0) << 20, held = fake_held_all();
    return held >= total ? 0 : total - held;
}

/* Memory for n bytes: zeroed host memory, or above FAKE_BIG address space
 * only (mmap PROT_NONE, no reserve). */
static void *fake_get(size_t n)
{
    void *m;
    if (n <= FAKE_BIG) return calloc(1, n ? n : 1);
    m = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static CUresult fake_shared_alloc(CUdeviceptr *p, size_t n)
{
    long max = fake_env_long("FAKE_CUDA_MAX_ALLOC_MIB", -1);
    size_t i;
    void *m;
    if (n > fake_free() || (max >= 0 && n > (size_t)max << 20)) return CUDA_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < FAKE_MAX_ALLOCS && fake_alloc[i].p; i++) {}
    if (i == FAKE_MAX_ALLOCS || !(m = fake_get(n))) return CUDA_ERROR_OUT_OF_MEMORY;
    fake_alloc[i].p = m;
    fake_alloc[i].n = n;
    fake_held += n;
    fake_save_held();
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

static CUresult fake_shared_free(void *m)
{
    size_t i;
    for (i = 0; i < FAKE_MAX_ALLOCS && fake_alloc[i].p != m; i++) {}
    if (i == FAKE_MAX_ALLOCS) return CUDA_ERROR_INVALID_VALUE;
    if (fake_alloc[i].n > FAKE_BIG) munmap(m, fake_alloc[i].n);
    else free(m);
    fake_held -= fake_alloc[i].n;
    fake_alloc[i].p = NULL;
    fake_save_held();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t n)
{
    void *m;
    if (fake_shared()) return fake_shared_alloc(p, n);
    /* Zeroed, as a fresh process's device memory comes: an output no
     * kernel wrote reads as 0.0f, not as uninitialised host memory. */
    m = calloc(1, n ? n : 1);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFree(CUdeviceptr p)
{
    if (fake_shared()) return fake_shared_free((void *)(uintptr_t)p);
    free((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAllocHost(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuMemFreeHost(void *p) { free(p); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemHostAlloc(void **p, size_t n, unsigned int flags)
{
    (void)flags;
    *p = calloc(1, n ? n : 1);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned int flags)
{
    (void)flags;
    *d = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetInfo(size_t *free_b, size_t *total_b)
{
    *free_b = fake_shared() ? fake_free() : (size_t)70 << 30;
    *total_b = (size_t)80 << 30;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n)
{
    memcpy((void *)(uintptr_t)d, h, n);
    return CUDA_SUCCESS;
}
/* FAKE_CUDA_CKPT_CORRUPT: 1 once, when a restore marked this process's
 * memory spoilt (the mark removed). */
static int fake_spoilt(void)
{
    char path[4096];
    const char *dir = getenv("FAKE_CUDA_MEM_DIR");
    if (!dir || !*dir) return 0;
    snprintf(path, sizeof path, "%s/corrupt.%ld", dir, (long)getpid());
    return unlink(path) == 0;
}

CUresult CUDAAPI cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n)
{
    memcpy(h, (const void *)(uintptr_t)d, n);
    if (n >= sizeof(float) && fake_spoilt()) ((unsigned char *)h)[n / 2] ^= 0x40;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
    (void)s;
    return cuMemcpyHtoD(d, h, n);
}
CUresult CUDAAPI cuMemcpyDtoHAsync(void *h, CUdeviceptr d, size_t n, CUstream s)
{
    (void)s;
    return cuMemcpyDtoH(h, d, n);
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)s;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{
    uint32_t *p = (uint32_t *)(uintptr_t)d;
    size_t i;
    (void)s;
    for (i = 0; i < n; i++) p[i] = v;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n)
{
    return cuMemsetD32Async(d, v, n, NULL);
}

CUresult CUDAAPI cuStreamCreate(CUstream *s, unsigned int flags)
{
    (void)flags;
    *s = (CUstream)fake_handle();
    return *s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuStreamDestroy(CUstream s) { free(s); return CUDA_SUCCESS; }
/* FAKE_CUDA_HANG: 1 when the device is to look stuck (announced once). */
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

CUresult CUDAAPI cuStreamQuery(CUstream s) { (void)s; return fake_hung() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult CUDAAPI cuEventQuery(CUevent e) { (void)e; return fake_hung() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult CUDAAPI cuStreamSynchronize(CUstream s)
{
    (void)s;
    while (fake_hung()) pause();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventCreate(CUevent *e, unsigned int flags)
{
    (void)flags;
    *e = (CUevent)calloc(1, sizeof(struct fake_event));
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    ((struct fake_event *)(void *)e)->ms = fake_now_ms() + fake_added_ms;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventSynchronize(CUevent e)
{
    (void)e;
    while (fake_hung()) pause();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    *ms = (float)(((struct fake_event *)(void *)b)->ms - ((struct fake_event *)(void *)a)->ms);
    return CUDA_SUCCESS;
}
/* A launch on the current device: FAKE_CUDA_FAIL's device fails it, else
 * the function is loaded and FAKE_CUDA_KERNEL_US (times FAKE_CUDA_SLOW's
 * factor on its device) is added to the event clock. */
static CUresult fake_launch(CUfunction f)
{
    const char *slow = getenv("FAKE_CUDA_SLOW");
    int k = fake_physical(fake_cur), sk = -1;
    double factor = 1;

    if (k >= 0 && k == fake_env_long("FAKE_CUDA_FAIL", -1)) return CUDA_ERROR_ECC_UNCORRECTABLE;
    if (slow && sscanf(slow, "%d:%lf", &sk, &factor) == 2 && sk != k) factor = 1;
    ((struct fake_fn *)(void *)f)->loaded = 1;
    fake_added_ms += (double)fake_env_long("FAKE_CUDA_KERNEL_US", 0) * factor / 1e3;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                unsigned int bx, unsigned int by, unsigned int bz,
                                unsigned int shmem, CUstream s, void **params, void **extra)
{
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz;
    (void)shmem; (void)s; (void)params; (void)extra;
    return fake_launch(f);
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    (void)cfg; (void)params; (void)extra;
    return fake_launch(f);
}
CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *st, CUfunction f)
{
    *st = ((struct fake_fn *)(void *)f)->loaded ? CU_FUNCTION_LOADING_STATE_LOADED
                                                : CU_FUNCTION_LOADING_STATE_UNLOADED;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncLoad(CUfunction f)
{
    ((struct fake_fn *)(void *)f)->loaded = 1;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    (void)a; (void)f;
    *v = 32;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int bs, size_t sh)
{
    (void)f; (void)bs; (void)sh;
    *n = 8;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jo, void **jv,
                                   unsigned int nj, CUlibraryOption *lo, void **lv, unsigned int nl)
{
    CUresult r = fake_image_ok(code);
    (void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
    if (r != CUDA_SUCCESS) return r;
    *lib = (CUlibrary)fake_handle();
    return *lib ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuLibraryUnload(CUlibrary lib) { free(lib); return CUDA_SUCCESS; }
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
    (void)lib; (void)name;
    *k = (CUkernel)(void *)&fake_kernel_object;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    (void)k;
    *f = (CUfunction)(void *)&fake_fn_object;
    return CUDA_SUCCESS;
}
/* Every library holds two kernels, each the one object. */
CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    (void)lib;
    *count = 2;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *k, unsigned int n, CUlibrary lib)
{
    unsigned i;
    (void)lib;
    for (i = 0; i < n && i < 2; i++) k[i] = (CUkernel)(void *)&fake_kernel_object;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamBeginCapture(CUstream s, CUstreamCaptureMode mode)
{
    (void)s; (void)mode;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamEndCapture(CUstream s, CUgraph *g)
{
    (void)s;
    *g = (CUgraph)fake_handle();
    return *g ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *ge, CUgraph g, unsigned long long flags)
{
    (void)g; (void)flags;
    *ge = (CUgraphExec)fake_handle();
    return *ge ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuGraphLaunch(CUgraphExec ge, CUstream s) { (void)ge; (void)s; return CUDA_SUCCESS; }
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec ge) { free(ge); return CUDA_SUCCESS; }
CUresult CUDAAPI cuGraphDestroy(CUgraph g) { free(g); return CUDA_SUCCESS; }

/* ------------------------------------------------------- checkpoints --- */

enum { FAKE_LOCK, FAKE_CHECKPOINT, FAKE_RESTORE, FAKE_UNLOCK, FAKE_NSTEPS };
static const char *const fake_step_names[FAKE_NSTEPS] = { "lock", "checkpoint", "restore", "unlock" };
static int fake_mem_state = CU_PROCESS_STATE_RUNNING;  /* without FAKE_CUDA_MEM_DIR */

/* FAKE_CUDA_MEM_DIR/<what><pid> into path; 0, or -1 without the variable. */
static int fake_ckpt_path(char *path, size_t len, const char *what, int pid)
{
    const char *dir = getenv("FAKE_CUDA_MEM_DIR");
    if (!dir || !*dir) return -1;
    snprintf(path, len, "%s/%s%d", dir, what, pid);
    return 0;
}

/* The number in file path, or def when it cannot be read. */
static long long fake_read_num(const char *path, long long def)
{
    char buf[64];
    ssize_t n;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return def;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return def;
    buf[n] = '\0';
    return strtoll(buf, NULL, 10);
}

static void fake_write_num(const char *path, long long v)
{
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%lld\n", v);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    if (write(fd, buf, (size_t)n) != n) {}
    close(fd);
}

static int fake_get_state(int pid)
{
    char path[4096];
    if (fake_ckpt_path(path, sizeof path, "ckpt.", pid) != 0) return fake_mem_state;
    return (int)fake_read_num(path, CU_PROCESS_STATE_RUNNING);
}

static void fake_set_state(int pid, int state)
{
    char path[4096];
    if (fake_ckpt_path(path, sizeof path, "ckpt.", pid) != 0) fake_mem_state = state;
    else fake_write_num(path, state);
}

/* The planted rate of the checkpoint (k 0) or the restore (k 1), GB/s;
 * infinite when none is planted. */
static double fake_gbs(int k)
{
    const char *e = getenv("FAKE_CUDA_CKPT_GBS");
    double c = 0, r = 0;
    if (!e || sscanf(e, "%lf,%lf", &c, &r) != 2) return 1e300;
    return (k ? r : c) > 0 ? (k ? r : c) : 1e300;
}

/* Checkpoint (out 1) or restore (out 0) process pid's device memory:
 * the bytes it holds moved between FAKE_CUDA_MEM_DIR/<pid> and saved.<pid>. */
static CUresult fake_move_memory(int pid, int out)
{
    char held[4096], saved[4096];
    long long bytes;
    if (fake_ckpt_path(held, sizeof held, "", pid) != 0 ||
        fake_ckpt_path(saved, sizeof saved, "saved.", pid) != 0)
        return CUDA_SUCCESS;
    if (out) {
        fake_wait_us((long)((double)fake_read_num(held, 0) / fake_gbs(0) / 1e3));
        fake_write_num(saved, fake_read_num(held, 0));
        fake_write_num(held, 0);
        return CUDA_SUCCESS;
    }
    bytes = fake_read_num(saved, 0);
    if (fake_shared() && (size_t)bytes > fake_free()) return CUDA_ERROR_OUT_OF_MEMORY;
    fake_wait_us((long)((double)bytes / fake_gbs(1) / 1e3));
    fake_write_num(held, bytes);
    if (fake_env_long("FAKE_CUDA_CKPT_CORRUPT", 0) == 1 &&
        fake_ckpt_path(held, sizeof held, "corrupt.", pid) == 0)
        fake_write_num(held, 1);
    return CUDA_SUCCESS;
}

/* The planted time of step k (FAKE_CUDA_CKPT_US=L,C,R,U), in us. */
static long fake_step_us(int k)
{
    const char *e = getenv("FAKE_CUDA_CKPT_US");
    long v = 0;
    int i;
    for (i = 0; e && *e && i <= k; i++) {
        char *end;
        v = strtol(e, &end, 10);
        e = *end == ',' ? end + 1 : end;
        if (i < k && end == e) return 0;
    }
    return i > k ? v : 0;
}

/* The code FAKE_CUDA_CKPT_FAIL plants for step k, or CUDA_SUCCESS. */
static CUresult fake_step_planted(int k)
{
    const char *e = getenv("FAKE_CUDA_CKPT_FAIL");
    size_t n = strlen(fake_step_names[k]);
    if (!e || strncmp(e, fake_step_names[k], n) != 0 || e[n] != ':') return CUDA_SUCCESS;
    return (CUresult)strtol(e + n + 1, NULL, 10);
}

/* One step k on process pid, from state `from` to state `to`. */
static CUresult fake_step(int k, int pid, int from, int to)
{
    const char *kill_at = getenv("FAKE_CUDA_CKPT_KILL");
    CUresult r;
    if (pid <= 0 || !fake_alive(pid)) return CUDA_ERROR_INVALID_VALUE;
    fake_wait_us(fake_step_us(k));
    if ((r = fake_step_planted(k)) != CUDA_SUCCESS) return r;
    if (fake_get_state(pid) != from) return CUDA_ERROR_ILLEGAL_STATE;
    if (k == FAKE_CHECKPOINT || k == FAKE_RESTORE)
        if ((r = fake_move_memory(pid, k == FAKE_CHECKPOINT)) != CUDA_SUCCESS) return r;
    fake_set_state(pid, to);
    if (kill_at && strcmp(kill_at, fake_step_names[k]) == 0) {
        int i;
        kill(pid, SIGKILL);
        for (i = 0; i < 1000 && fake_alive(pid); i++) fake_wait_us(1000);   /* gone, as the call returns */
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args)
{
    if (fake_env_long("FAKE_CUDA_CKPT_BUSY", 0) == 1 && pid > 0 && fake_alive(pid)) {
        unsigned ms = args ? args->timeoutMs : 0;
        if (ms == 0) for (;;) pause();
        fake_wait_us((long)ms * 1000);
        return CUDA_ERROR_NOT_READY;
    }
    return fake_step(FAKE_LOCK, pid, CU_PROCESS_STATE_RUNNING, CU_PROCESS_STATE_LOCKED);
}
CUresult CUDAAPI cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args)
{
    (void)args;
    return fake_step(FAKE_CHECKPOINT, pid, CU_PROCESS_STATE_LOCKED, CU_PROCESS_STATE_CHECKPOINTED);
}
CUresult CUDAAPI cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args)
{
    (void)args;
    return fake_step(FAKE_RESTORE, pid, CU_PROCESS_STATE_CHECKPOINTED, CU_PROCESS_STATE_LOCKED);
}
CUresult CUDAAPI cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args)
{
    (void)args;
    return fake_step(FAKE_UNLOCK, pid, CU_PROCESS_STATE_LOCKED, CU_PROCESS_STATE_RUNNING);
}
CUresult CUDAAPI cuCheckpointProcessGetState(int pid, CUprocessState *state)
{
    if (pid <= 0 || !fake_alive(pid)) return CUDA_ERROR_INVALID_VALUE;
    *state = (CUprocessState)fake_get_state(pid);
    return CUDA_SUCCESS;
}

/* The entry points by base name, from the harness's own list, so that one
 * the harness adds and this file lacks fails to build. */
static const struct { const char *name; void (*fn)(void); } fake_table[] = {
#define FAKE_ENTRY(name) { #name, (void (*)(void))(name) },
    DRV_FUNCS(FAKE_ENTRY)
    DRV_CKPT_FUNCS(FAKE_ENTRY)
#undef FAKE_ENTRY
};

/* 1 for a checkpoint entry point FAKE_CUDA_NO_CKPT=1 hides. */
static int fake_hidden(const char *symbol)
{
    return fake_env_long("FAKE_CUDA_NO_CKPT", 0) == 1 && strncmp(symbol, "cuCheckpoint", 12) == 0;
}

static CUresult fake_getproc(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status);

/* The current cuGetProcAddress: any entry point of the table. */
static CUresult fake_getproc(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    size_t i;
    (void)version;
    (void)flags;
    if (strcmp(symbol, "cuGetProcAddress") == 0) {
        CUresult (*self)(const char *, void **, int, cuuint64_t,
                         CUdriverProcAddressQueryResult *) = fake_getproc;
        memcpy(pfn, &self, sizeof self);
        if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    for (i = 0; i < sizeof fake_table / sizeof fake_table[0] && !fake_hidden(symbol); i++) {
        if (strcmp(symbol, fake_table[i].name) == 0) {
            memcpy(pfn, &fake_table[i].fn, sizeof fake_table[i].fn);
            if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    }
    *pfn = NULL;
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

/* The exported symbol: the first ABI, four arguments (the bootstrap). */
#undef cuGetProcAddress
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    return fake_getproc(symbol, pfn, version, flags, NULL);
}

/* For the probe's unit test (tests/test_probe.c): fn(arg) run from inside
 * this library, as the driver runs a CUPTI callback inside a call, so that
 * the callback's stack holds a frame of "the driver" with its caller after
 * it. The result is kept in a volatile, so that the call is not a tail
 * call (which would leave no frame of this library). */
int fake_call_inside(int (*fn)(void *), void *arg);
int fake_call_inside(int (*fn)(void *), void *arg)
{
    volatile int r = fn(arg);
    return r;
}
