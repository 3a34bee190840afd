/* nvml.h: the device memory of processes, from NVML (libnvidia-ml.so.1,
 * opened with dlopen at the first need; no nvml.h needed to build). */
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
 * later calls return the first call's answer. Thread-safe. Returns 0, or
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

#endif
