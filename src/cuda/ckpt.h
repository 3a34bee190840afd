/* ckpt.h: the driver's checkpoint steps on a process by its pid, for the
 * two that use them: section snapshot (a child of its own) and -- CMD
 * --snapshot (each CUDA process of the user's program). One place for the
 * four calls: each made through the one error path (DRV_CALL, drv_report)
 * and timed on this process's host clock, the state it leaves tracked; a
 * process brought back to RUNNING whatever state it was left in; its
 * device memory from NVML; a failed step in one sentence. */
#ifndef CKPT_H
#define CKPT_H

#include <stddef.h>
#include "cuda/cudadrv.h"

/* The steps, in order. */
typedef enum ckp_step { CKP_LOCK, CKP_CHECKPOINT, CKP_RESTORE, CKP_UNLOCK, CKP_NSTEPS } ckp_step;

/* Each step in words: "lock", "checkpoint", "restore", "unlock". */
extern const char *const ckp_step_words[CKP_NSTEPS];

/* One process, as the steps leave it. */
typedef struct ckp_proc {
    int pid;
    CUprocessState state;   /* where the steps left it: RUNNING at first */
    double ms[CKP_NSTEPS];  /* each step's time on the host clock, ms (NaN: not made) */
} ckp_proc;

/* p for process pid, RUNNING, no step made. */
void ckp_init(ckp_proc *p, int pid);

/* Step k on p: the call timed into p->ms[k]; lock_ms the lock's
 * timeoutMs (0: none). Returns the driver's result: on success p->state
 * is the state the step leaves; on failure the state is unchanged and the
 * call was reported (drv_report: one line, "harness: error: ...", counted
 * in drv_errors). */
CUresult ckp_step_on(ckp_proc *p, ckp_step k, unsigned lock_ms);

/* A process state's name: "RUNNING", "LOCKED", "CHECKPOINTED", "FAILED". */
const char *ckp_state_name(CUprocessState s);

/* Bring p back to RUNNING: restore where it is checkpointed, then unlock
 * where it is locked. Returns 0 when it is RUNNING (nothing done where it
 * was), or -1 with the step that failed and the driver's result in code
 * ("the restore failed: CUDA_ERROR_OUT_OF_MEMORY (2)"): the caller kills
 * it, since a process that is gone holds nothing. */
int ckp_release(ckp_proc *p, unsigned lock_ms, char *code, size_t len);

/* Process pid's device memory now, MiB: NVML's figure, 0 where it is not
 * among the compute processes (a checkpointed process holds none), NaN
 * with why where NVML cannot say. */
double ckp_mem(int pid, char *why, size_t whylen);

/* What is known of a failed step, for its sentence. */
typedef struct ckp_failed {
    const char *who;        /* "the child of 256 MiB (pid 4242)", "process 4242 (python3)" */
    const char *ended;      /* how the process ended ("was killed by signal 9 (Killed)"),
                               NULL while it is there */
    const char *busy;       /* the kernel it left running (its live record), "" or NULL:
                               none known */
    const char *lock_option; /* the option that set the lock's time-out, with its value
                               ("--snapshot-lock-timeout=5000") */
    unsigned lock_ms;       /* that time-out, 0: none */
    double mem_before;      /* its device memory before the lock, MiB (NaN: unknown) */
    const char *held_else;  /* where it is unknown, what it held at least ("256 MiB of
                               buffers"), NULL: nothing known */
    int ask_free;           /* 1: the device's free memory asked of the driver (this
                               process holds a context), 0: not said */
} ckp_failed;

/* Step k of p failed with r: one sentence into buf, no newline:
 *   "<who> <ended> while LOCKED; the checkpoint that followed failed: NAME (CODE)"
 *   "the lock of <who> timed out after MS ms (OPTION): its kernel K was still
 *    running, and a lock waits for the work a process submitted (NAME (CODE))"
 *   "the restore of <who> failed: NAME (CODE): it held N MiB before the
 *    checkpoint, and the device has F MiB free" (without ask_free: "more
 *    than the device has free now"; N MiB where NVML could not say: held_else
 *    "(NVML could not say what else)", else "an amount NVML could not say")
 *   "the driver refused to <step> <who>: NAME (CODE)[; what it refuses]". */
void ckp_sentence(char *buf, size_t len, const ckp_proc *p, ckp_step k, CUresult r,
                  const ckp_failed *f);

#endif
