/* pblive.h: the probe's side of the live record (live.h): which driver
 * calls it follows, and what each callback writes there. The probe
 * (probe.c) calls these from its callbacks; every one does nothing where
 * no live record could be made. None makes a syscall after pbl_open but a
 * thread's first call (its id, once), and none waits for a lock: a wait
 * beside busy work is kept in a small table that a synchronize's exit
 * settles, under a lock taken only by try.
 *
 * Besides the calls the probe counts, it follows the calls a program
 * blocks in (pbl_blocking: the synchronizes, the synchronous copies, the
 * frees and the memsets), for their entry and exit alone: a thread that
 * hangs hangs in one of them, and a crash after one names it as the last. */
#ifndef PBLIVE_H
#define PBLIVE_H

#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

/* The calls followed for the live record alone. */
extern const CUpti_CallbackId pbl_blocking[];
extern const size_t pbl_nblocking;

/* "<dir>/<pid>.live" made and mapped; 0, or -1 (errno) where it cannot be:
 * the probe then keeps none. */
int pbl_open(const char *dir, int pid);

/* Unmap it and forget every pending wait (tests; a forked child). */
void pbl_forget(void);

/* 1 when cbid is one of pbl_blocking. */
int pbl_is_blocking(CUpti_CallbackId cbid);

/* The calling thread enters call (what: its kernel or library, "" none) at
 * now, and its call returned result at now (what: replaced where not NULL). */
void pbl_enter(const char *call, const char *what, long long now);
void pbl_exit(int result, const char *what, long long now);

/* A kernel launched on stream (its CUstream's value) at now. */
void pbl_launch(uint64_t stream, const char *kernel, long long now);

/* A kernel's first use began at now; busy: another stream (busy_stream)
 * had work in flight then (its kernel is named from the record), and the
 * use waits beside it until a synchronize says that stream's work ended. */
void pbl_first_use(const char *kernel, const char *call, int busy, uint64_t busy_stream,
                   long long now);

/* A load returned after ms; a call failed with result; the free device
 * memory read at a load. */
void pbl_load(const char *call, const char *name, double ms, long long now);
void pbl_failure(const char *call, const char *name, int result, long long now);
void pbl_free(uint64_t free_bytes, long long now);

/* The stamps (live.h): an NVTX mark matched --ready, the first kernel
 * launched, at now (each kept once). */
void pbl_ready(long long now);
void pbl_first_kernel(long long now);

/* A synchronize returned at now: of the context (all = 1) or of stream.
 * The streams' work is marked ended, and every pending wait on them ends
 * with an LV_EV_WAIT event of its length. */
void pbl_synced(int all, uint64_t stream, long long now);

/* The synchronize cbid's reach from its parameters: 1 with *all and
 * *stream set where it says that work ended (a context's synchronize, a
 * stream's), 0 for any other call. */
int pbl_sync_reach(CUpti_CallbackId cbid, const void *params, int *all, uint64_t *stream);

#endif
