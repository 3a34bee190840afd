/* program_device.h: the device and tools a program run used, named in its
 * results (env program_gpu_*, program_driver_version,
 * program_cuda_driver_version, program_cupti_version, program_demangler)
 * from NVML and the files found, never from a CUDA context in the parent;
 * and the line of the table's header that shows them. */
#ifndef PROGRAM_DEVICE_H
#define PROGRAM_DEVICE_H

#include <stdio.h>
#include "core/results.h"

/* Store the env fields (strings; a value not known is "unknown: <why>"):
 *   program_gpu_name, program_gpu_uuid, program_gpu_bus_id
 *                            the device of bus id bus (the first CUDA
 *                            process's record, env "device"), from NVML;
 *                            with bus NULL or "" the one device NVML counts
 *   program_gpu_source       which of the two named it
 *   program_driver_version   NVML's driver version ("580.65.06")
 *   program_cuda_driver_version  the CUDA version the driver serves ("13.0")
 *   program_cupti_version    "CUPTI API <n>, <file>" of the libcupti cupti
 *                            (the file the probe was handed; cuptiGetVersion,
 *                            which needs no context); "none found" for NULL/""
 *   program_demangler        "__cxa_demangle of libstdc++.so.6", or why
 *                            names stay as they are (said once on stderr).
 * Out of memory storing a field is said on stderr; nothing fails. */
void pgd_env(results *r, const char *bus, const char *cupti);

/* The header line: "device: <name> (<uuid>, bus <id>); driver <v>, CUDA
 * <v>; CUPTI <v>", wrapped; nothing when pgd_env did not run. */
void pgd_print(FILE *f, const results *r);

#endif
