/* cufault.h: HARNESS_FAULT and HARNESS_FAULT_LOG (os/fault.h) read from the
 * environment and set up against the driver's and NVRTC's checked calls:
 * the entry point and the code checked by the library that makes the call,
 * the fault armed, the call counts written at exit. */
#ifndef CUFAULT_H
#define CUFAULT_H

/* HARNESS_FAULT=NAME:K[:CODE]: NAME must be an entry point the harness
 * makes checked calls of (cudadrv.h's for cu..., rtc.h's for nvrtc...), a
 * named CODE an error of that library (CUDA_ERROR_..., NVRTC_ERROR_...);
 * without CODE, the library's default for NAME. HARNESS_FAULT_LOG=FILE:
 * every entry point counted, and this process's counts appended to FILE at
 * exit ("# process PID", then ft_log_write's lines; a failed write said on
 * stderr). Every child inherits both and counts its own calls. Returns 0
 * (also when neither is set), or -1 after naming on stderr what is wrong
 * with the spec, or -1 (nothing said) when atexit refused the handler. */
int cf_setup(void);

#endif
