/* ptree.h: the process tree of a user's program (-- CMD): every descendant
 * of its first process, whatever it does (setsid, a process group of its
 * own, a double fork), known to the harness, and ended with it.
 *
 * How: this process becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so
 * a descendant whose parent ends is handed to it, not to init; a thread
 * reads /proc every PT_SCAN_MS ms and classifies each process it has not
 * seen by its parent: a child of this process, or of a process already
 * known, is a descendant. Each is kept with its start time (/proc/PID/stat),
 * so that a pid used again by another process is never taken for it. The
 * limits: a descendant that starts and ends between two reads, and is
 * reaped by its own parent, is not seen (a CUDA process lives far longer:
 * cuInit alone takes tens of ms). Its tables grow with it, to PT_MAX; where
 * memory is short, later ones are not kept (pt_overflow says so). One tree
 * at a time.
 *
 * The sentinel: at the first pt_begin this process starts a copy of itself
 * (its own process group, its output on /dev/null) that waits on a pipe
 * only this process writes. When this process ends while a tree runs (it
 * was killed with SIGKILL), the sentinel kills every process of the tree it
 * was told of (their pids are in memory the two share) and the first
 * process's group, runs pt_on_abandon's routine, and exits; otherwise it
 * just exits. A descendant made in the last 5 ms before the harness died,
 * or one past PT_MAX, is not known to it. */
#ifndef PTREE_H
#define PTREE_H

#include <stddef.h>
#include <sys/types.h>

#define PT_SCAN_MS 5
#define PT_MAX (1 << 22)     /* pid_max's ceiling: the most descendants a tree keeps */

/* Begin a tree, before its first process is started: this process made a
 * child subreaper (once), the processes that exist now noted as not of the
 * tree, the previous tree forgotten. Returns 0, or -1 with why (prctl). */
int pt_begin(char *why, size_t whylen);

/* The tree's first process, just started: known from now, and the thread
 * that reads /proc started. Returns 0, or -1 with why (the thread could not
 * start: the tree is then read only when pt_scan or pt_kill_all runs). */
int pt_root(pid_t pid, char *why, size_t whylen);

/* Read /proc once now: new descendants noted; those handed to this process
 * that ended reaped (never the first process: its owner reaps it). Returns the descendants
 * alive (zombies not counted), the first process included while it lives. */
size_t pt_scan(void);

/* 1 when pid was seen as a process of the tree (its first process
 * included) since pt_begin, also after it ended; 0 otherwise. Thread-safe. */
int pt_known(long pid);

/* 1 when a descendant could not be kept (memory short, or past PT_MAX:
 * pt_known is 0 for it). */
int pt_overflow(void);

/* Stop the reading thread (the tree stays known for pt_known until the
 * next pt_begin). */
void pt_stop(void);

/* Kill (SIGKILL) every live descendant, again and again until none is left
 * (a process that forks meanwhile is caught on the next pass; at most about
 * a second), reaping those handed to this process. The first process must
 * have been reaped already, or be killed too (its group is sent SIGKILL
 * as well). Each one killed is named into names ("pid 4242 (sleep), pid
 * 4250 (python3)", and where len (at least 40) is too short for all,
 * ", and 4990 more" at the end), each read from /proc before any is killed.
 * Returns how many were killed. */
size_t pt_kill_all(pid_t group, char *names, size_t len);

/* For a process about to end at once (a second signal, sg_on_kill): SIGKILL
 * every descendant known, by pid, with no check (async-signal-safe). */
void pt_kill_now(void);

/* A child of this process that is not of the program's tree (the memory
 * holder of --squeeze, squeeze_holder.h), started beside it: never taken for one
 * of the tree's; where the tree's reader reaps it (it ended while the tree
 * ran), its wait status is kept for pt_spared. One at a time; 0 forgets
 * it. Thread-safe. */
void pt_spare(pid_t pid);

/* 1 with the spared process pid's wait status in *status when the tree's
 * reader reaped it, else 0 (it is still there, or it is not the one
 * spared). Thread-safe. */
int pt_spared(pid_t pid, int *status);

/* What the sentinel does after it has killed a tree that this process
 * abandoned (it ended, SIGKILL included, while the tree ran): fn, in the
 * sentinel, a copy of this process made at the first pt_begin, with
 * async-signal-safe calls only, on memory it shares with this process
 * (proc.h's temporary directories). Set it before the first pt_begin. */
void pt_on_abandon(void (*fn)(void));

#endif
