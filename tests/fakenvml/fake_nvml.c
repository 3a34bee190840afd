/* fake_nvml.c: a stand-in NVML (libnvidia-ml.so.1) for the CPU tests,
 * opened through HARNESS_NVML=PATH: one device, the bus id the stand-in
 * program's records name (00000000:00:00.0), no compute process. With
 * FAKE_NVML_NAMES=off the name, UUID and version queries answer
 * NVML_ERROR_NOT_SUPPORTED; with FAKE_NVML_INIT=fail nvmlInit_v2 fails.
 * FAKE_NVML_MEM_DIR=DIR (the stand-in driver's FAKE_CUDA_MEM_DIR) makes the
 * compute processes those that hold device memory there: each file named
 * by a pid of a live process holding more than 0 bytes (a process the
 * driver checkpointed holds none, and is not listed). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;

#define FAKE_SUCCESS 0
#define FAKE_NOT_SUPPORTED 3
#define FAKE_NOT_FOUND 6
#define FAKE_UNKNOWN 999
#define FAKE_BUS "00000000:00:00.0"
#define FAKE_BUS_TAIL "00:00.0"     /* after the domain */

/* Every entry point is exported (the Makefile builds this -shared). */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, void *p);
const char *nvmlErrorString(nvmlReturn_t r);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int len);
nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v);

static int fake_device_storage;

static int fake_names_off(void)
{
    const char *s = getenv("FAKE_NVML_NAMES");
    return s && strcmp(s, "off") == 0;
}

static nvmlReturn_t fake_copy(const char *s, char *buf, unsigned int len)
{
    if (fake_names_off()) return FAKE_NOT_SUPPORTED;
    if (!buf || len <= strlen(s)) return 7;     /* NVML_ERROR_INSUFFICIENT_SIZE */
    memcpy(buf, s, strlen(s) + 1);
    return FAKE_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void)
{
    const char *s = getenv("FAKE_NVML_INIT");
    return s && strcmp(s, "fail") == 0 ? FAKE_UNKNOWN : FAKE_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = 1;
    return FAKE_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (i != 0) return FAKE_NOT_FOUND;
    *d = (nvmlDevice_t)(void *)&fake_device_storage;
    return FAKE_SUCCESS;
}

/* The bus id matches with a domain of 4 or 8 hex digits, as NVML's does. */
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvmlDevice_t *d)
{
    size_t n = bus ? strlen(bus) : 0;
    if (n < 7 || strcmp(bus + n - 7, FAKE_BUS_TAIL) != 0 || strspn(bus, "0") != n - 8)
        return FAKE_NOT_FOUND;
    *d = (nvmlDevice_t)(void *)&fake_device_storage;
    return FAKE_SUCCESS;
}

/* nvmlProcessInfo_t of the _v3 query. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} fake_proc_info;

/* The bytes process pid holds in FAKE_NVML_MEM_DIR (file name), 0 when none
 * or when it is gone. */
static unsigned long long fake_held(const char *dir, const char *name, long pid)
{
    char path[4096], buf[64];
    FILE *f;
    unsigned long long v = 0;
    if (kill((pid_t)pid, 0) != 0) return 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "r"))) return 0;
    if (fgets(buf, sizeof buf, f)) v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, void *p)
{
    const char *dir = getenv("FAKE_NVML_MEM_DIR");
    fake_proc_info *out = p;
    unsigned int cap = *n, count = 0;
    struct dirent *e;
    DIR *dd;
    (void)d;
    *n = 0;
    if (!dir || !*dir || !(dd = opendir(dir))) return FAKE_SUCCESS;
    while ((e = readdir(dd))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        unsigned long long b;
        if (pid <= 0 || *end || (b = fake_held(dir, e->d_name, pid)) == 0) continue;
        if (count < cap) {
            memset(&out[count], 0, sizeof out[count]);
            out[count].pid = (unsigned)pid;
            out[count].usedGpuMemory = b;
        }
        count++;
    }
    closedir(dd);
    *n = count;
    return count > cap ? 7 : FAKE_SUCCESS;     /* NVML_ERROR_INSUFFICIENT_SIZE */
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    return r == FAKE_NOT_SUPPORTED ? "Not Supported" : r == FAKE_NOT_FOUND ? "Not Found" : "Unknown Error";
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned int len)
{
    (void)d;
    return fake_copy("NVIDIA H200 (stand-in)", buf, len);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int len)
{
    (void)d;
    return fake_copy("GPU-00000000-1111-2222-3333-444444444444", buf, len);
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    return fake_copy("580.00.01", buf, len);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
    if (fake_names_off()) return FAKE_NOT_SUPPORTED;
    *v = 13000;
    return FAKE_SUCCESS;
}
