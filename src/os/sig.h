/* sig.h: ending a run early and cleanly: SIGINT, SIGTERM, SIGHUP (a closed
 * terminal, a dropped ssh session) and SIGQUIT taken alike by a thread of
 * their own, whatever handlers a library installs, as a flag that
 * the run reads at safe points, and one stop routine that the owner of the
 * run registers (write what was measured, clean up) before the process
 * ends. */
#ifndef SIG_H
#define SIG_H

#include <signal.h>

/* Take SIGINT, SIGTERM, SIGHUP and SIGQUIT for the whole process (SIGQUIT
 * then leaves no core dump: it stops the run like SIGTERM). All four are
 * blocked in the
 * calling thread, and so in every thread started after it (call this before
 * any library is loaded), and a thread of this module takes them with
 * sigwaitinfo: no handler runs for them, so a library that installs its own
 * and puts the old one back without its flags (NVRTC does both during the
 * process's first compile) changes nothing, and no system call of the
 * harness, the driver or NVRTC is interrupted or restarted. Their action is
 * set to a handler that does the same as that thread, for a thread that
 * unblocks them.
 *   The first signal is recorded (sg_pending) and makes sg_wake_fd
 *   readable; the run stops at its next safe point (sg_check), or at once,
 *   on a thread of its own, when it is inside sg_call_begin/sg_call_end.
 *   A later one ends the process at once: the kill hook (sg_on_kill), one
 *   line on stderr, _exit(128 + that signal).
 * Returns 0, or -1 when a call failed (errno says which way). */
int sg_install(void);

/* The signal caught and not yet acted on (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT), or 0. */
int sg_pending(void);

/* A descriptor that becomes readable (POLLIN) when the first signal is
 * caught, for a wait to poll beside what it waits on; -1 before sg_install.
 * Never read it. */
int sg_wake_fd(void);

/* The signal mask a child process should start with: the one this process
 * had before sg_install blocked the four signals. */
void sg_child_mask(sigset_t *mask);

/* What a second signal does before the process ends (NULL: nothing). It
 * runs on the signal thread, or in a handler: only async-signal-safe calls
 * (kill, unlink, write). */
void sg_on_kill(void (*fn)(void));

/* Bracket a call that may run long and touches none of the run's state (an
 * NVRTC compile): a signal that comes meanwhile stops the run at once, on
 * a thread of its own, without waiting for the call to return (the process
 * then ends inside the stop routine; sg_call_end, if the call returns
 * first, waits for that and never returns). sg_call_begin is a safe point:
 * a signal already pending stops the run there (sg_check). Not nested. */
void sg_call_begin(void);
void sg_call_end(void);

/* The routine that ends a run: called once by sg_stop with the exit code
 * and a one-line reason ("interrupted by SIGINT", "... timed out after 30 s").
 * It must not wait on the device or on a child without a bound. It may run
 * on a thread other than the run's (see sg_call_begin). */
typedef void (*sg_stop_fn)(int code, const char *why, void *arg);

/* Register the stop routine (NULL: none). */
void sg_on_stop(sg_stop_fn fn, void *arg);

/* End the process: run the stop routine (once; a stop from inside it goes
 * straight on; a stop from another thread while it runs waits for it), flush
 * stdout and stderr, and _exit(code), skipping atexit handlers and library
 * destructors, which could wait on a device that no longer answers. Never
 * returns. */
_Noreturn void sg_stop(int code, const char *why);

/* 1 once a stop has begun (a writer should then wait on nothing). */
int sg_stopping(void);

/* A safe point: when a signal is pending, sg_stop(128 + signal,
 * "interrupted by SIGNAME"); otherwise returns at once. Call it only where
 * the run's results are consistent and nothing waits half-done. */
void sg_check(void);

#endif
