/* squeeze_holder.h: the memory holder of -- CMD --squeeze: a copy of the harness
 * (--child=hold) that takes a context on device 0 as the program sees it
 * (the same CUDA_VISIBLE_DEVICES), holds all of that device's free memory
 * but a margin, says what it held, and keeps it until its parent closes
 * the socket between them or ends. However it ends, the driver gives its
 * memory back. */
#ifndef SQUEEZE_HOLDER_H
#define SQUEEZE_HOLDER_H

#include <stddef.h>
#include "run/cli.h"

/* What a holder held, in MiB. */
typedef struct sq_held {
    double free_mib;    /* free once it had its context, before it allocated */
    double held_mib;    /* what it allocated */
    double left_mib;    /* free after it allocated: what the program finds */
    double total_mib;   /* the device's memory */
    double chunks;      /* the allocations it took (one, unless the first failed) */
} sq_held;

/* A holder running beside a run. */
typedef struct sq_holder {
    int pid;            /* 0: none */
    int fd;             /* this process's end of the socket, -1: none */
    sq_held held;
} sq_holder;

/* The smallest allocation the holder halves down to when one fails
 * (fragmentation); what is left below it is not held. */
#define SQ_MIN_CHUNK_MIB 2.0

/* The holder's own life (--child=hold --squeeze=MiB; descriptor 3 its end
 * of the socket): cuInit, device 0's primary context, cuMemGetInfo, then
 * allocations (cuMemAlloc) of all the free memory but the margin, one, or
 * where one fails with CUDA_ERROR_OUT_OF_MEMORY, smaller ones (the size
 * halved, down to SQ_MIN_CHUNK_MIB) until the target is held or no
 * allocation succeeds; then the line
 *     held <free> <held> <left> <total> <chunks>
 * (MiB) on descriptor 3, and it waits there until the other end closes.
 * Where a step fails, "error <what failed>" instead. A margin at or above
 * the free memory holds nothing. Returns the exit status (0, or 1 after an
 * error). t_main_ns, the child entry points' start time, is not used. */
int sq_hold_child(const cli_opts *o, long long t_main_ns);

/* Start a holder of all the free memory but margin_mib (pr_start_self;
 * the environment changed by set_env, nset strings as proc.h's, and
 * without the probe's variables), and wait up to timeout_s seconds for
 * what it held. Returns 0 with h filled (the holder holds until
 * sq_release); or -1 with why (its own error, "cuInit failed:
 * CUDA_ERROR_NO_DEVICE (100)", or what became of it), the holder gone and
 * h empty. A signal that comes meanwhile ends the holder and stops the run
 * (sg_check). */
int sq_start(double margin_mib, const char *const *set_env, size_t nset, double timeout_s,
             sq_holder *h, char *why, size_t whylen);

/* 1 while the holder holds (its end of the socket is open); 0 once it has
 * ended, with what became of it in why ("killed by signal 9 (Killed)",
 * "exited with 1"), reaped. */
int sq_alive(sq_holder *h, char *why, size_t whylen);

/* End the holder: close the socket (it exits, the driver takes its memory
 * back), wait up to 10 s for it, then kill it (SIGKILL); reaped, h empty.
 * Nothing when there is none. */
void sq_release(sq_holder *h);

#endif
