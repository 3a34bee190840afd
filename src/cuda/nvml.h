/* nvml.h: the device memory of processes and the names of the device and
 * the driver, from NVML (libnvidia-ml.so.1, opened with dlopen at the first
 * need; no nvml.h needed to build). No call here opens a CUDA context. */
#ifndef NVML_H
#define NVML_H

#include <stddef.h>

/* One compute process and the device memory NVML counts for it (MiB,
 * summed over the devices it uses). */
typedef struct nv_sample {
    long pid;
    double mib;
} nv_sample;

/* Open NVML once per process (dlopen, the entry points, nvmlInit_v2);
 * later calls return the first call's answer. Thread-safe. The environment
 * variable HARNESS_NVML=PATH opens that library file instead (the CPU
 * tests' stand-in, tests/fakenvml/). Returns 0, or
 * -1 with one line in why: the library is not there ("NVML not available:
 * <dlerror>"), it lacks an entry point, or nvmlInit_v2 failed (its error). */
int nv_open(char *why, size_t whylen);

/* The device memory of process pid in *mib: NVML's usedGpuMemory for it,
 * summed over the device whose PCI bus id is pci_bus_id ("0000:19:00.0"),
 * or over every device when pci_bus_id is NULL. Returns 0, or -1 with one
 * line in why: NVML not open (nv_open's reason), the device not found, a
 * query that failed, the process not among the compute processes searched,
 * or NVML's "not available" (NVML_VALUE_NOT_AVAILABLE) for it. */
int nv_process_mib(const char *pci_bus_id, long pid, double *mib, char *why, size_t whylen);

/* Every compute process of every device, with its memory summed over the
 * devices: the first min(*n, max) of them into out, and in *n how many
 * there are (more than max: the rest were left out). A process whose
 * memory NVML does not know (NVML_VALUE_NOT_AVAILABLE) has mib -1.
 * Returns 0, or -1 with one line in why (NVML not open, a query failed,
 * out of memory); *n is then 0. */
int nv_processes(nv_sample *out, size_t max, size_t *n, char *why, size_t whylen);

/* What NVML says of one device and of the driver. */
enum { NV_GPU_NAME, NV_GPU_UUID, NV_GPU_BUS, NV_GPU_DRIVER, NV_GPU_CUDA, NV_GPU_NFIELDS };
typedef struct nv_gpu {
    char name[96];          /* nvmlDeviceGetName: "NVIDIA H200" */
    char uuid[96];          /* nvmlDeviceGetUUID: "GPU-8c4a..." */
    char bus_id[32];        /* the bus id asked for, else NVML's (nvmlDeviceGetPciInfo_v3) */
    char driver[80];        /* nvmlSystemGetDriverVersion: "580.65.06" */
    int cuda_driver;        /* nvmlSystemGetCudaDriverVersion: 13000 for CUDA 13.0 */
    char why[NV_GPU_NFIELDS][512]; /* per field (NV_GPU_NAME ...): why it is not
                                      answered, "" when it is */
} nv_gpu;

/* The device whose PCI bus id is pci_bus_id ("0000:19:00.0", as
 * cuDeviceGetPCIBusId writes it) or, for NULL or "", the one device NVML
 * counts, and the driver's versions, into *out (zeroed first; a field
 * NVML did not answer stays "" or 0, and out->why[field] says why). Returns 0 when every field was
 * answered; -1 with one line in why naming the first that was not: NVML
 * not open (nv_open's reason), the device not found, no bus id given and
 * other than one device, or a query that failed or that this NVML lacks
 * (the fields answered before and after it are still filled, except that
 * nothing of the device is when it was not found). */
int nv_gpu_info(const char *pci_bus_id, nv_gpu *out, char *why, size_t whylen);

#endif
