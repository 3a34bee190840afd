/* sysinfo.h: what the system says about itself, read where it exposes it:
 * the CPU's model (/proc/cpuinfo), the kernel driver's version and the
 * GPUs it lists (/proc/driver/nvidia). Reads files only: no library is
 * loaded. */
#ifndef SYSINFO_H
#define SYSINFO_H

#include <stddef.h>

/* The first value of a "key : value" line of /proc/cpuinfo whose key is
 * one of those that name the CPU's model (x86's "model name", then Arm's
 * and POWER's), into buf of len bytes. Returns 0, or -1 when none is there
 * (buf then unchanged). */
int si_cpu_model(char *buf, size_t len);

/* The kernel driver's version ("580.95.05"): the first word of
 * /proc/driver/nvidia/version's first line that starts with a digit and
 * holds a '.', into buf of len bytes. Returns 0, or -1 when the file is
 * not there or holds no such word (buf then unchanged). */
int si_driver_version(char *buf, size_t len);

/* The models of the NVIDIA GPUs the kernel driver lists
 * (/proc/driver/nvidia/gpus/BUS/information, "Model:"), in bus order,
 * joined by ", " into buf of len bytes. Returns 0, or -1 when it lists
 * none (buf then ""). */
int si_driver_gpus(char *buf, size_t len);

#endif
