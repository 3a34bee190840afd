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

/* Start this executable (/proc/self/exe) with args[0..nargs-1] after
 * argv[0] as a helper that lives beside a run (the memory holder of
 * --squeeze, squeeze_holder.h), and return at once: fork and execve, the
 * child in a process group of its own (a signal to the terminal's group is
 * not for it), killed by the kernel when the thread that started it ends
 * (PR_SET_PDEATHSIG), with the signal mask this process started with,
 * stdin, stdout and stderr on /dev/null, fd as its descriptor 3 and no
 * other descriptor of this process, the environment changed by set_env
 * (as pr_run_self). An execve that fails ends the child with 127. Returns
 * its pid, or -1 with a reason in why. */
int pr_start_self(const char *const *args, size_t nargs, const char *const *set_env, size_t nset,
                  int fd, char *why, size_t whylen);

/* A variable ("NAME=VALUE", copied; at most 1,023 bytes) that every copy
 * of this program started from now on by pr_run_self or pr_start_self gets
 * in its environment (unless their set_env names it), and no other command
 * this process runs: what this process learnt that its copies should know
 * (section_ctx.h: a reason said already on the stderr they share). NULL
 * forgets it. One at a time. Returns 0, or -1 (no '=', or too long: the one
 * before kept). */
int pr_self_env(const char *kv);

/* What became of a user's program run by pr_run_program. */
typedef struct pr_program {
    int pid;              /* its main process, also its process group */
    int exit_code;        /* the main process's exit status; -1 when a signal ended it */
    int signal;           /* the signal that ended it (SIGKILL at the time limit), or 0 */
    int timed_out;        /* 1 when its group was killed at the time limit */
    long long t0_ns;      /* CLOCK_MONOTONIC just before posix_spawn */
    double ms;            /* spawn to the main process's exit (its pidfd readable) */
    double rss_mib;       /* the main process's peak resident set (wait4's ru_maxrss,
                             which counts the children it waited for too) */
    double cpu_ms;        /* its user and system CPU time (wait4's ru_utime and
                             ru_stime, the children it waited for included) */
    int stragglers;       /* processes of its tree (ptree.h: its group, and those that
                             left it, setsid included) still there 2 s after the main
                             process exited, or at once after a time limit or a
                             signal: each killed (SIGKILL) */
    char straggler_names[600]; /* them, "pid 4242 (sleep), pid 4250 (python3)" */
    int overflow;         /* 1 when a process of the tree could not be kept (memory
                             short, or past PT_MAX): its records are refused */
} pr_program;

/* Run the program at path with argv (argv[0] as the user typed it,
 * NULL-terminated), no shell: fork and execve, the child in a process group
 * of its own and killed by the kernel if the harness dies first
 * (PR_SET_PDEATHSIG, SIGKILL), stdin from /dev/null, stdout to out_path and
 * stderr to err_path (created anew, mode 0644: whatever was there, a FIFO
 * included, is removed first), the environment of this process changed by
 * set_env (as pr_run_self) and, when t0_env is not NULL, with
 * "<t0_env>=<t0_ns>" (the spawn time on CLOCK_MONOTONIC). Every process it
 * starts is tracked (ptree.h), wherever it goes. spawned(pid, arg) is
 * called (when not NULL) right after the spawn. Waits for the main process
 * within timeout_s seconds (then its group is killed: SIGKILL, timed_out
 * 1), then up to 2 s for the rest of its tree, then kills and names every
 * process of it still there (stragglers). When a signal arrives meanwhile
 * (sg_pending), the whole tree is killed and reaped, and the run stops
 * (sg_check: this call does not return). Returns 0 when the program ran
 * (whatever its exit), or -1 with a reason in why when it could not be
 * started ("execve PATH: Exec format error"). */
int pr_run_program(const char *path, const char *const *argv, const char *const *set_env,
                   size_t nset, const char *t0_env, const char *out_path, const char *err_path,
                   double timeout_s, void (*spawned)(int pid, void *arg), void *arg,
                   pr_program *res, char *why, size_t whylen);

/* Kill (SIGKILL) the child pr_run_self is waiting on, if any, and the
 * process group and every known process of the tree of the program
 * pr_run_program runs: for a process about to end at once (sg_on_kill), so
 * that no child outlives it. Async-signal-safe. */
void pr_kill_child(void);

/* Make a private temporary directory (mode 0700, a new name of six random
 * letters and digits, as mkdtemp makes) under $TMPDIR (or /tmp where
 * TMPDIR is unset or empty; a relative TMPDIR made absolute), named
 * harness-<what>-XXXXXX, into buf, and remember it (up to 16 at a time;
 * remembered before it is made, so that a cleanup on another thread never
 * misses it) until pr_rmtree removes it. Returns 0, or -1 with a reason in
 * why. */
int pr_mkdtemp(const char *what, char *buf, size_t len, char *why, size_t whylen);

/* Remove a directory tree (no symlinks followed; a directory a program
 * made unreadable is made 0700 first) and forget it once it is gone.
 * Returns 0 (also where it is already gone), or -1 when something could
 * not be removed (it is then still remembered, for pr_cleanup and
 * pr_cleanup_now). */
int pr_rmtree(const char *path);

/* Remove every directory pr_mkdtemp made that is still there: for a run
 * that is stopped before its sections clean up. */
void pr_cleanup(void);

/* The same for a process about to end at once (a second signal:
 * sg_on_kill), with async-signal-safe calls only, while a stop may be
 * removing them too: each directory's files and up to two levels of
 * directories below; a directory that gains a file meanwhile (a child
 * killed just before, NVRTC writing its --time file) is tried again for up
 * to about 50 ms. */
void pr_cleanup_now(void);

#endif
