/* fake_nvml.c: a stand-in NVML (libnvidia-ml.so.1) for the CPU tests,
 * opened through HARNESS_NVML=PATH: one device, the bus id the stand-in
 * program's records name (00000000:00:00.0), no compute process. With
 * FAKE_NVML_NAMES=off the name, UUID and version queries answer
 * NVML_ERROR_NOT_SUPPORTED; with FAKE_NVML_INIT=fail nvmlInit_v2 fails. */
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

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, void *p)
{
    (void)d;
    (void)p;
    *n = 0;
    return FAKE_SUCCESS;
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
