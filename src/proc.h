/* proc.h: re-executing the harness itself as a child (posix_spawn, argv
 * only, no shell), timing it from spawn to exit and collecting its output. */
#ifndef PROC_H
#define PROC_H

#include <stddef.h>

typedef struct pr_result {
    int exit_code;        /* the child's exit status; -1 when a signal ended it */
    int signal;           /* the signal that ended the child (SIGKILL at the time
                             limit), or 0 when it exited */
    long long t0_ns;      /* CLOCK_MONOTONIC just before posix_spawn */
    double ms;            /* spawn to exit (waitpid returned) */
    int timed_out;        /* 1 when the child was killed at the time limit */
    double eof_ms;        /* spawn to the child's stdout pipe closing (EOF), the
                             last of its files the kernel closes when the child
                             keeps it on its highest descriptor */
    char *out;            /* everything the child wrote to stdout, NUL-terminated */
    size_t outlen;
} pr_result;

/* Run this executable (/proc/self/exe) with args[0..nargs-1] after argv[0]
 * and a final "--child-t0=NS" holding the spawn time, the environment of
 * this process changed by set_env (nset strings: "NAME=VALUE" sets NAME,
 * "NAME" removes it; NULL for none), with posix_spawn (no shell). stderr is
 * inherited; stdout is collected. Gives up on a child that has not exited
 * after timeout_s seconds (killed: signal SIGKILL, timed_out 1). When SIGINT
 * or SIGTERM arrives meanwhile (sg_pending), the child is killed and reaped,
 * and the run stops (sg_check: this call does not return). Returns 0 when
 * the child ran (whatever its exit code), or -1 with a reason in why when
 * it could not be started. Free res->out with free(). */
int pr_run_self(const char *const *args, size_t nargs, const char *const *set_env,
                size_t nset, double timeout_s, pr_result *res, char *why, size_t whylen);

/* Kill (SIGKILL) the child pr_run_self is waiting on, if any: for a process
 * about to end at once (sg_on_kill), so that no child outlives it.
 * Async-signal-safe. */
void pr_kill_child(void);

/* Make a private temporary directory (mkdtemp, mode 0700) under $TMPDIR (or
 * /tmp where TMPDIR is unset or empty), named harness-<what>-XXXXXX, into
 * buf, and remember it (up to 16 at a time) until pr_rmtree removes it.
 * Returns 0, or -1 with a reason in why. */
int pr_mkdtemp(const char *what, char *buf, size_t len, char *why, size_t whylen);

/* Remove a directory tree (no symlinks followed) and forget it. Returns 0,
 * or -1 when something could not be removed. */
int pr_rmtree(const char *path);

/* Remove every directory pr_mkdtemp made that is still there: for a run
 * that is stopped before its sections clean up. */
void pr_cleanup(void);

#endif
