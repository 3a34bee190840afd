/* nvml.c: NVML's per-process device memory and the device's and driver's
 * names, through dlopen: the few NVML types and entry points declared
 * here, opened once (pthread_once). */
#include "cuda/nvml.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVML's own types and codes (nvml.h), as far as they are used. */
typedef int nvmlReturn_t;
typedef struct nv_device_st *nvmlDevice_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;   /* bytes, or NV_VALUE_NOT_AVAILABLE */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nv_proc_info;                         /* nvmlProcessInfo_t of the _v3 query */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nv_pci_info;                          /* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) */

#define NV_SUCCESS 0
#define NV_ERROR_INSUFFICIENT_SIZE 7
#define NV_VALUE_NOT_AVAILABLE ULLONG_MAX
#define NV_LIBRARY "libnvidia-ml.so.1"
#define NV_TRIES 4          /* a list that keeps growing is asked for this often */

static struct nv_api {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*by_bus)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*procs)(nvmlDevice_t, unsigned int *, nv_proc_info *);
    const char *(*error_string)(nvmlReturn_t);  /* optional */
    /* Optional (an NVML without them leaves those fields unanswered): */
    nvmlReturn_t (*dev_name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*dev_uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*dev_pci)(nvmlDevice_t, nv_pci_info *);
    nvmlReturn_t (*driver_version)(char *, unsigned int);
    nvmlReturn_t (*cuda_version)(int *);
} nv;

static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static int nv_state = -1;       /* 0: open; -1: not (nv_why says why) */
static char nv_why[512];

/* The entry point name of lib into *slot (a function pointer's storage);
 * 0, or -1 with nv_why set. */
static int nv_resolve(void *lib, const char *name, void *slot, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p) {
        snprintf(nv_why, sizeof nv_why, "NVML not usable: " NV_LIBRARY " has no %s", name);
        return -1;
    }
    memcpy(slot, &p, size);
    return 0;
}

/* NVML's name of code r, into buf. */
static const char *nv_error(nvmlReturn_t r, char *buf, size_t len)
{
    const char *s = nv.error_string ? nv.error_string(r) : NULL;
    snprintf(buf, len, "%s (%d)", s ? s : "NVML error", r);
    return buf;
}

/* pthread_once's step: open the library, resolve, initialise. */
static void nv_open_once(void)
{
    /* HARNESS_NVML=PATH: another library (the CPU tests' stand-in). */
    const char *given = getenv("HARNESS_NVML");
    void *lib = dlopen(given && *given ? given : NV_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    char code[128];
    nvmlReturn_t r;

    if (!lib) {
        const char *e = dlerror();
        snprintf(nv_why, sizeof nv_why, "NVML not available: %s", e ? e : NV_LIBRARY);
        return;
    }
    if (nv_resolve(lib, "nvmlInit_v2", &nv.init, sizeof nv.init) != 0 ||
        nv_resolve(lib, "nvmlDeviceGetCount_v2", &nv.count, sizeof nv.count) != 0 ||
        nv_resolve(lib, "nvmlDeviceGetHandleByIndex_v2", &nv.by_index, sizeof nv.by_index) != 0 ||
        nv_resolve(lib, "nvmlDeviceGetHandleByPciBusId_v2", &nv.by_bus, sizeof nv.by_bus) != 0 ||
        nv_resolve(lib, "nvmlDeviceGetComputeRunningProcesses_v3", &nv.procs, sizeof nv.procs) != 0)
        return;
    nv_resolve(lib, "nvmlErrorString", &nv.error_string, sizeof nv.error_string);
    nv_resolve(lib, "nvmlDeviceGetName", &nv.dev_name, sizeof nv.dev_name);
    nv_resolve(lib, "nvmlDeviceGetUUID", &nv.dev_uuid, sizeof nv.dev_uuid);
    nv_resolve(lib, "nvmlDeviceGetPciInfo_v3", &nv.dev_pci, sizeof nv.dev_pci);
    nv_resolve(lib, "nvmlSystemGetDriverVersion", &nv.driver_version, sizeof nv.driver_version);
    nv_resolve(lib, "nvmlSystemGetCudaDriverVersion", &nv.cuda_version, sizeof nv.cuda_version);
    if ((r = nv.init()) != NV_SUCCESS) {
        snprintf(nv_why, sizeof nv_why, "nvmlInit_v2: %s", nv_error(r, code, sizeof code));
        return;
    }
    nv_why[0] = '\0';
    nv_state = 0;
}

int nv_open(char *why, size_t whylen)
{
    pthread_once(&nv_once, nv_open_once);
    if (nv_state != 0 && why && whylen) snprintf(why, whylen, "%s", nv_why);
    return nv_state;
}

/* The compute processes of device d into *list (malloc'd, *count of them;
 * the caller frees). 0, or -1 with why. */
static int nv_list(nvmlDevice_t d, nv_proc_info **list, unsigned *count, char *why, size_t whylen)
{
    unsigned cap = 64, n;
    int tries;
    char code[128];

    *list = NULL;
    *count = 0;
    for (tries = 0; tries < NV_TRIES; tries++) {
        nv_proc_info *p = realloc(*list, (size_t)cap * sizeof *p);
        nvmlReturn_t r;
        if (!p) {
            snprintf(why, whylen, "out of memory listing the compute processes");
            break;
        }
        *list = p;
        n = cap;
        r = nv.procs(d, &n, p);
        if (r == NV_SUCCESS) {
            *count = n;
            return 0;
        }
        if (r != NV_ERROR_INSUFFICIENT_SIZE || n > UINT_MAX / 2) {
            snprintf(why, whylen, "nvmlDeviceGetComputeRunningProcesses_v3: %s",
                     nv_error(r, code, sizeof code));
            break;
        }
        cap = n + 16;       /* room for a few that start meanwhile */
    }
    if (tries == NV_TRIES) snprintf(why, whylen, "the compute processes kept growing while listed");
    free(*list);
    *list = NULL;
    return -1;
}

/* Device ordinal i, or the one of pci_bus_id (i ignored), into *d. */
static int nv_device(const char *pci_bus_id, unsigned i, nvmlDevice_t *d, char *why, size_t whylen)
{
    char code[128];
    nvmlReturn_t r = pci_bus_id ? nv.by_bus(pci_bus_id, d) : nv.by_index(i, d);
    if (r == NV_SUCCESS) return 0;
    if (pci_bus_id)
        snprintf(why, whylen, "nvmlDeviceGetHandleByPciBusId_v2(%s): %s", pci_bus_id,
                 nv_error(r, code, sizeof code));
    else
        snprintf(why, whylen, "nvmlDeviceGetHandleByIndex_v2(%u): %s", i,
                 nv_error(r, code, sizeof code));
    return -1;
}

/* How many devices to search: 1 for a bus id, else NVML's count. */
static int nv_ndevices(const char *pci_bus_id, unsigned *n, char *why, size_t whylen)
{
    char code[128];
    nvmlReturn_t r;
    if (pci_bus_id) {
        *n = 1;
        return 0;
    }
    if ((r = nv.count(n)) == NV_SUCCESS) return 0;
    snprintf(why, whylen, "nvmlDeviceGetCount_v2: %s", nv_error(r, code, sizeof code));
    return -1;
}

/* Add process p's figure on one device into *bytes (-1: not available,
 * and it stays so). */
static void nv_add(double *bytes, const nv_proc_info *p)
{
    if (*bytes < 0) return;
    if (p->usedGpuMemory == NV_VALUE_NOT_AVAILABLE) *bytes = -1;
    else *bytes += (double)p->usedGpuMemory;
}

int nv_process_mib(const char *pci_bus_id, long pid, double *mib, char *why, size_t whylen)
{
    unsigned ndev, i, j, count;
    double bytes = 0;
    int found = 0;

    if (nv_open(why, whylen) != 0 || nv_ndevices(pci_bus_id, &ndev, why, whylen) != 0) return -1;
    for (i = 0; i < ndev; i++) {
        nvmlDevice_t d;
        nv_proc_info *list;
        if (nv_device(pci_bus_id, i, &d, why, whylen) != 0 ||
            nv_list(d, &list, &count, why, whylen) != 0)
            return -1;
        for (j = 0; j < count; j++)
            if ((long)list[j].pid == pid) {
                found = 1;
                nv_add(&bytes, &list[j]);
            }
        free(list);
    }
    if (!found) {
        snprintf(why, whylen, "NVML lists no compute process %ld on %s", pid,
                 pci_bus_id ? pci_bus_id : "any device");
        return -1;
    }
    if (bytes < 0) {
        snprintf(why, whylen, "NVML: the device memory of process %ld is not available "
                 "(NVML_VALUE_NOT_AVAILABLE)", pid);
        return -1;
    }
    *mib = bytes / 1048576.0;
    return 0;
}

/* Add one device's processes to the distinct ones in *all (*nall, room
 * *cap, in bytes until the end). 0, or -1 on out of memory. */
static int nv_merge(nv_sample **all, size_t *nall, size_t *cap, const nv_proc_info *list,
                    unsigned count)
{
    unsigned j;
    for (j = 0; j < count; j++) {
        size_t k;
        for (k = 0; k < *nall && (*all)[k].pid != (long)list[j].pid; k++) {}
        if (k == *nall) {
            if (*nall == *cap) {
                size_t nc = *cap ? *cap * 2 : 32;
                nv_sample *p = realloc(*all, nc * sizeof *p);
                if (!p) return -1;
                *all = p;
                *cap = nc;
            }
            (*all)[k].pid = (long)list[j].pid;
            (*all)[k].mib = 0;
            (*nall)++;
        }
        nv_add(&(*all)[k].mib, &list[j]);
    }
    return 0;
}

int nv_processes(nv_sample *out, size_t max, size_t *n, char *why, size_t whylen)
{
    unsigned ndev, i, count;
    nv_sample *all = NULL;
    size_t nall = 0, cap = 0, k;

    *n = 0;
    if (nv_open(why, whylen) != 0 || nv_ndevices(NULL, &ndev, why, whylen) != 0) return -1;
    for (i = 0; i < ndev; i++) {
        nvmlDevice_t d;
        nv_proc_info *list;
        int rc;
        if (nv_device(NULL, i, &d, why, whylen) != 0 ||
            nv_list(d, &list, &count, why, whylen) != 0) {
            free(all);
            return -1;
        }
        rc = nv_merge(&all, &nall, &cap, list, count);
        free(list);
        if (rc != 0) {
            snprintf(why, whylen, "out of memory listing the compute processes");
            free(all);
            return -1;
        }
    }
    for (k = 0; k < nall; k++) {
        if (all[k].mib >= 0) all[k].mib /= 1048576.0;
        if (k < max) out[k] = all[k];
    }
    *n = nall;
    free(all);
    return 0;
}

/* Field f of out is not answered: why, into out->why[f] and, for the
 * first such field, into why. */
static void nv_fail(nv_gpu *out, int f, int *rc, char *why, size_t whylen, const char *call,
                    nvmlReturn_t r)
{
    char code[128];
    if (r == NV_SUCCESS) snprintf(out->why[f], sizeof out->why[f], "%s: not in this NVML", call);
    else snprintf(out->why[f], sizeof out->why[f], "%s: %s", call, nv_error(r, code, sizeof code));
    if (*rc == 0 && why && whylen) snprintf(why, whylen, "%s", out->why[f]);
    *rc = -1;
}

/* The reason of the first unanswered field into every field after it
 * from first to last (the device was not found, say). */
static void nv_fail_all(nv_gpu *out, int first, int last, const char *reason, int *rc, char *why,
                        size_t whylen)
{
    int f;
    for (f = first; f <= last; f++) snprintf(out->why[f], sizeof out->why[f], "%s", reason);
    if (*rc == 0 && why && whylen) snprintf(why, whylen, "%s", reason);
    *rc = -1;
}

/* A string query of device d into field f's buf (len bytes), "" when it fails. */
static void nv_dev_string(nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned int), nvmlDevice_t d,
                          const char *call, nv_gpu *out, int f, char *buf, size_t len, int *rc,
                          char *why, size_t whylen)
{
    nvmlReturn_t r = fn ? fn(d, buf, (unsigned)len) : NV_SUCCESS;
    if (!fn || r != NV_SUCCESS) {
        buf[0] = '\0';
        nv_fail(out, f, rc, why, whylen, call, r);
    }
    buf[len - 1] = '\0';
}

/* The driver's versions into out. */
static void nv_driver(nv_gpu *out, int *rc, char *why, size_t whylen)
{
    nvmlReturn_t r = nv.driver_version ? nv.driver_version(out->driver, sizeof out->driver)
                                       : NV_SUCCESS;
    if (!nv.driver_version || r != NV_SUCCESS) {
        out->driver[0] = '\0';
        nv_fail(out, NV_GPU_DRIVER, rc, why, whylen, "nvmlSystemGetDriverVersion", r);
    }
    out->driver[sizeof out->driver - 1] = '\0';
    r = nv.cuda_version ? nv.cuda_version(&out->cuda_driver) : NV_SUCCESS;
    if (!nv.cuda_version || r != NV_SUCCESS || out->cuda_driver < 0) {
        out->cuda_driver = 0;
        nv_fail(out, NV_GPU_CUDA, rc, why, whylen, "nvmlSystemGetCudaDriverVersion", r);
    }
}

/* The device of pci_bus_id, or the one device NVML counts, into *d, and
 * its bus id into out. 0, or -1 (out->why of the device's fields set). */
static int nv_gpu_device(const char *pci_bus_id, nv_gpu *out, nvmlDevice_t *d, int *rc,
                         char *why, size_t whylen)
{
    char reason[200], code[128];
    unsigned count = 0;
    nv_pci_info pci;
    nvmlReturn_t r;

    if (pci_bus_id && *pci_bus_id) {
        if (nv_device(pci_bus_id, 0, d, reason, sizeof reason) != 0) goto fail;
        snprintf(out->bus_id, sizeof out->bus_id, "%s", pci_bus_id);
        return 0;
    }
    if ((r = nv.count(&count)) != NV_SUCCESS) {
        snprintf(reason, sizeof reason, "nvmlDeviceGetCount_v2: %s", nv_error(r, code, sizeof code));
        goto fail;
    }
    if (count != 1) {
        snprintf(reason, sizeof reason, "no CUDA process reported its device, and NVML counts %u", count);
        goto fail;
    }
    if (nv_device(NULL, 0, d, reason, sizeof reason) != 0) goto fail;
    memset(&pci, 0, sizeof pci);
    if (nv.dev_pci && (r = nv.dev_pci(*d, &pci)) == NV_SUCCESS) {
        pci.busId[sizeof pci.busId - 1] = '\0';
        snprintf(out->bus_id, sizeof out->bus_id, "%s", pci.busId);
    } else {
        nv_fail(out, NV_GPU_BUS, rc, why, whylen, "nvmlDeviceGetPciInfo_v3", nv.dev_pci ? r : NV_SUCCESS);
    }
    return 0;
fail:
    nv_fail_all(out, NV_GPU_NAME, NV_GPU_BUS, reason, rc, why, whylen);
    return -1;
}

int nv_gpu_info(const char *pci_bus_id, nv_gpu *out, char *why, size_t whylen)
{
    nvmlDevice_t d;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (nv_open(why, whylen) != 0) {
        int f;
        for (f = 0; f < NV_GPU_NFIELDS; f++) nv_open(out->why[f], sizeof out->why[f]);
        return -1;
    }
    nv_driver(out, &rc, why, whylen);
    if (nv_gpu_device(pci_bus_id, out, &d, &rc, why, whylen) != 0) return -1;
    nv_dev_string(nv.dev_name, d, "nvmlDeviceGetName", out, NV_GPU_NAME, out->name, sizeof out->name,
                  &rc, why, whylen);
    nv_dev_string(nv.dev_uuid, d, "nvmlDeviceGetUUID", out, NV_GPU_UUID, out->uuid, sizeof out->uuid,
                  &rc, why, whylen);
    return rc;
}
