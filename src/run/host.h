/* host.h: the environment record's fields that describe the run rather
 * than a section: this host (its OS, name, Slurm place, kernel driver, CPU
 * and GPUs), the options in effect (loading mode, sampling, module
 * format), how the results were made (command line, start time, commit),
 * and which process opened a device. Every field is written, null where it
 * cannot be read, so no results file leaves one unsaid. */
#ifndef HOST_H
#define HOST_H

#include <time.h>
#include "core/results.h"
#include "run/cli.h"

/* The host and the options in effect: harness_version,
 * cuda_headers_version, module_loading_requested, the sampling (mode,
 * warmup, reps, and min_samples, max_noise, max_time_s: null under a fixed
 * count, while reps is 0 under the stopping rule), cache, module_format,
 * CUDA_CACHE_DISABLE and CUDA_CACHE_PATH as found, kernels_dir, host_os and
 * hostname (where uname answers), a Slurm task's place (slurm_job_id,
 * slurm_node; slurm_procid, slurm_ntasks and slurm_localid as numbers, or
 * as strings when not whole numbers; nothing outside Slurm), and
 * driver_version (the kernel driver's, sysinfo.h; null where not
 * readable). */
void host_record(results *r, const cli_opts *o);

/* How the results were made (every results file carries it): command_line
 * (argv, a word with a character a shell reads quoted in '...'),
 * started_utc (start, ISO 8601), cpu_model, os_kernel, harness_commit and
 * host_gpus (the GPUs the kernel driver lists); a field that cannot be read
 * is null. */
void host_provenance(results *r, int argc, char **argv, time_t start);

/* device_opened where neither this process opened a device (sec_need_gpu:
 * "this process") nor a child reported one ("child processes"): "per
 * device" in a node run's parent (each device's record is its own), else
 * "none"; and gpu null where no device was named. */
void host_device(results *r, const cli_opts *o);

#endif
