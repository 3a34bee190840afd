/* ckpt.c: the driver's checkpoint steps on a process by its pid
 * (ckpt.h). */
#include "cuda/ckpt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/nvml.h"
#include "os/clock.h"

const char *const ckp_step_words[CKP_NSTEPS] = { "lock", "checkpoint", "restore", "unlock" };

/* The state each step leaves the process in. */
static const CUprocessState ckp_after[CKP_NSTEPS] = {
    CU_PROCESS_STATE_LOCKED, CU_PROCESS_STATE_CHECKPOINTED, CU_PROCESS_STATE_LOCKED,
    CU_PROCESS_STATE_RUNNING
};

/* Each call's text, as drv_report names it. */
static const char *const ckp_call_text[CKP_NSTEPS] = {
    "cuCheckpointProcessLock(pid)", "cuCheckpointProcessCheckpoint(pid)",
    "cuCheckpointProcessRestore(pid)", "cuCheckpointProcessUnlock(pid)"
};

void ckp_init(ckp_proc *p, int pid)
{
    int k;
    p->pid = pid;
    p->state = CU_PROCESS_STATE_RUNNING;
    for (k = 0; k < CKP_NSTEPS; k++) p->ms[k] = NAN;
}

CUresult ckp_step_on(ckp_proc *p, ckp_step k, unsigned lock_ms)
{
    CUcheckpointLockArgs la;
    CUcheckpointCheckpointArgs ca;
    CUcheckpointRestoreArgs ra;
    CUcheckpointUnlockArgs ua;
    CUresult r;
    double t0;

    memset(&la, 0, sizeof la);
    memset(&ca, 0, sizeof ca);
    memset(&ra, 0, sizeof ra);
    memset(&ua, 0, sizeof ua);
    la.timeoutMs = lock_ms;
    t0 = clk_now_ms();
    switch (k) {
    case CKP_LOCK: DRV_CALL(r, drv.cuCheckpointProcessLock(p->pid, &la)); break;
    case CKP_CHECKPOINT: DRV_CALL(r, drv.cuCheckpointProcessCheckpoint(p->pid, &ca)); break;
    case CKP_RESTORE: DRV_CALL(r, drv.cuCheckpointProcessRestore(p->pid, &ra)); break;
    default: DRV_CALL(r, drv.cuCheckpointProcessUnlock(p->pid, &ua)); break;
    }
    p->ms[k] = clk_now_ms() - t0;
    if (r == CUDA_SUCCESS) p->state = ckp_after[k];
    else drv_report(r, ckp_call_text[k], __FILE__, __LINE__);   /* an injected fault said so too */
    return r;
}

const char *ckp_state_name(CUprocessState s)
{
    switch (s) {
    case CU_PROCESS_STATE_RUNNING: return "RUNNING";
    case CU_PROCESS_STATE_LOCKED: return "LOCKED";
    case CU_PROCESS_STATE_CHECKPOINTED: return "CHECKPOINTED";
    case CU_PROCESS_STATE_FAILED: return "FAILED";
    }
    return "UNKNOWN";
}

int ckp_release(ckp_proc *p, unsigned lock_ms, char *code, size_t len)
{
    CUresult r;
    code[0] = '\0';
    if (p->state == CU_PROCESS_STATE_CHECKPOINTED &&
        (r = ckp_step_on(p, CKP_RESTORE, lock_ms)) != CUDA_SUCCESS)
        snprintf(code, len, "the restore failed: %s (%d)", drv_result_name(r), (int)r);
    if (p->state == CU_PROCESS_STATE_LOCKED && (r = ckp_step_on(p, CKP_UNLOCK, lock_ms)) != CUDA_SUCCESS)
        snprintf(code, len, "the unlock failed: %s (%d)", drv_result_name(r), (int)r);
    return p->state == CU_PROCESS_STATE_RUNNING ? 0 : -1;
}

double ckp_mem(int pid, char *why, size_t whylen)
{
    nv_sample s[256];
    size_t n = sizeof s / sizeof s[0], i;

    if (nv_processes(s, n, &n, why, whylen) != 0) return NAN;
    for (i = 0; i < n && i < sizeof s / sizeof s[0]; i++)
        if (s[i].pid == pid) return s[i].mib;
    return 0;
}

void ckp_sentence(char *buf, size_t len, const ckp_proc *p, ckp_step k, CUresult r,
                  const ckp_failed *f)
{
    size_t free_b = 0, total_b = 0;
    double ms = p->ms[k];
    char held[160];

    if (!isnan(f->mem_before)) snprintf(held, sizeof held, "%.0f MiB", f->mem_before);
    else if (f->held_else) snprintf(held, sizeof held, "%s (NVML could not say what else)", f->held_else);
    else snprintf(held, sizeof held, "an amount NVML could not say");

    if (f->ended)
        snprintf(buf, len, "%s %s while %s; the %s that followed failed: %s (%d)", f->who, f->ended,
                 ckp_state_name(p->state), ckp_step_words[k], drv_result_name(r), (int)r);
    else if (k == CKP_LOCK && (r == CUDA_ERROR_NOT_READY || r == CUDA_ERROR_TIMEOUT ||
                               (f->lock_ms > 0 && ms >= 0.9 * f->lock_ms)))
        snprintf(buf, len, "the lock of %s timed out after %.0f ms (%s): %s%s was still running, and "
                 "a lock waits for the work a process submitted (%s (%d))", f->who, ms,
                 f->lock_option, f->busy && f->busy[0] ? "its kernel " : "work it had submitted",
                 f->busy ? f->busy : "", drv_result_name(r), (int)r);
    else if (k == CKP_RESTORE && r == CUDA_ERROR_OUT_OF_MEMORY && !f->ask_free)
        snprintf(buf, len, "the restore of %s failed: %s (%d): it held %s before the checkpoint, "
                 "more than the device has free now", f->who, drv_result_name(r), (int)r, held);
    else if (k == CKP_RESTORE && r == CUDA_ERROR_OUT_OF_MEMORY && drv_mem_info(&free_b, &total_b) == 0)
        snprintf(buf, len, "the restore of %s failed: %s (%d): it held %s before the checkpoint, "
                 "and the device has %.0f MiB free", f->who, drv_result_name(r), (int)r, held,
                 (double)free_b / 1048576.0);
    else
        snprintf(buf, len, "the driver refused to %s %s: %s (%d)%s", ckp_step_words[k], f->who,
                 drv_result_name(r), (int)r,
                 r == CUDA_ERROR_NOT_SUPPORTED ? "; a process that holds what the checkpoint API "
                 "does not take (unified memory, IPC handles) is refused so" : "");
}
