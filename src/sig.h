/* sig.h: ending a run early and cleanly: SIGINT and SIGTERM caught as a flag
 * that the run reads at safe points, and one stop routine that the owner of
 * the run registers (write what was measured, clean up) before the process
 * ends. */
#ifndef SIG_H
#define SIG_H

/* Catch SIGINT and SIGTERM: the handler only records the signal (the first
 * one) in a volatile sig_atomic_t and restores the default action, so a
 * second signal ends the process at once. SA_RESTART, so the driver's and
 * NVRTC's own system calls go on undisturbed; poll and nanosleep, which the
 * harness's waits use, return early all the same (Linux never restarts
 * them), and the waits read the flag. Returns 0, or -1 when sigaction
 * failed. */
int sg_install(void);

/* The signal caught and not yet acted on (SIGINT, SIGTERM), or 0. */
int sg_pending(void);

/* The routine that ends a run: called once by sg_stop with the exit code
 * and a one-line reason ("interrupted by SIGINT", "... timed out after 30 s").
 * It must not wait on the device or on a child without a bound. */
typedef void (*sg_stop_fn)(int code, const char *why, void *arg);

/* Register the stop routine (NULL: none). */
void sg_on_stop(sg_stop_fn fn, void *arg);

/* End the process: run the stop routine (once; a stop from inside it goes
 * straight on), flush stdout and stderr, and _exit(code), skipping atexit
 * handlers and library destructors, which could wait on a device that no
 * longer answers. Never returns. */
_Noreturn void sg_stop(int code, const char *why);

/* A safe point: when a signal is pending, sg_stop(128 + signal,
 * "interrupted by SIGNAME"); otherwise returns at once. Call it only where
 * the run's results are consistent and nothing waits half-done. */
void sg_check(void);

#endif
