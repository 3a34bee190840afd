/* pblive.c: the probe's side of the live record (pblive.h). */
#include "probe/pblive.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe/live.h"

/* The first uses that began beside another stream's work and wait for a
 * synchronize to say it ended (the rest beyond PBL_WAITS: their
 * LV_EV_FIRST_USE event alone). */
#define PBL_WAITS 16

typedef struct pbl_wait {
    uint64_t stream;            /* the busy stream */
    long long began;
    char kernel[LV_NAME], other[LV_NAME], call[LV_CALL];
} pbl_wait;

static _Atomic(lv_file *) pbl_file;
static pthread_mutex_t pbl_lock = PTHREAD_MUTEX_INITIALIZER;   /* the waits; taken by try only */
static pbl_wait pbl_waits[PBL_WAITS];
static atomic_int pbl_nwaits;
static _Thread_local lv_thread *pbl_slot;
static _Thread_local int pbl_tid;       /* 0: this thread has no slot asked for yet */

const CUpti_CallbackId pbl_blocking[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
};
const size_t pbl_nblocking = sizeof pbl_blocking / sizeof pbl_blocking[0];

int pbl_is_blocking(CUpti_CallbackId cbid)
{
    size_t i;
    for (i = 0; i < pbl_nblocking; i++)
        if (pbl_blocking[i] == cbid) return 1;
    return 0;
}

int pbl_open(const char *dir, int pid)
{
    lv_file *f = lv_open(dir, pid);
    if (!f) return -1;
    atomic_store(&pbl_file, f);
    return 0;
}

void pbl_forget(void)
{
    lv_file *f = atomic_exchange(&pbl_file, NULL);
    lv_close(f);
    pthread_mutex_lock(&pbl_lock);
    atomic_store(&pbl_nwaits, 0);
    pthread_mutex_unlock(&pbl_lock);
    pbl_slot = NULL;
    pbl_tid = 0;
}

/* This thread's slot, claimed at its first call (its id read once). */
static lv_thread *pbl_thread(lv_file *f)
{
    if (!pbl_tid) {
        pbl_tid = (int)syscall(SYS_gettid);
        pbl_slot = lv_thread_slot(f, pbl_tid);
    }
    return pbl_slot;
}

void pbl_enter(const char *call, const char *what, long long now)
{
    lv_file *f = atomic_load_explicit(&pbl_file, memory_order_acquire);
    if (f) lv_enter(pbl_thread(f), call, what, now);
}

void pbl_exit(int result, const char *what, long long now)
{
    lv_file *f = atomic_load_explicit(&pbl_file, memory_order_acquire);
    if (f) lv_exit(pbl_thread(f), result, what, now);
}

void pbl_launch(uint64_t stream, const char *kernel, long long now)
{
    lv_launch(atomic_load_explicit(&pbl_file, memory_order_acquire), stream, kernel, now);
}

/* A wait kept until a synchronize settles it (none where the table is
 * full or its lock is held elsewhere: the event above still tells it). */
static void pbl_wait_add(const char *kernel, const char *other, const char *call, uint64_t stream,
                         long long now)
{
    int n;
    if (pthread_mutex_trylock(&pbl_lock) != 0) return;
    n = atomic_load(&pbl_nwaits);
    if (n < PBL_WAITS) {
        pbl_wait *w = &pbl_waits[n];
        w->stream = stream;
        w->began = now;
        snprintf(w->kernel, sizeof w->kernel, "%s", kernel ? kernel : "");
        snprintf(w->other, sizeof w->other, "%s", other);
        snprintf(w->call, sizeof w->call, "%s", call ? call : "");
        atomic_store(&pbl_nwaits, n + 1);
    }
    pthread_mutex_unlock(&pbl_lock);
}

void pbl_first_use(const char *kernel, const char *call, int busy, uint64_t busy_stream,
                   long long now)
{
    lv_file *f = atomic_load_explicit(&pbl_file, memory_order_acquire);
    char other[LV_NAME] = "";
    if (!f) return;
    if (busy) lv_stream_kernel(f, busy_stream, other, sizeof other);
    lv_event_add(f, LV_EV_FIRST_USE, pbl_tid, kernel, call, other, 0, busy ? busy_stream : 0, 0, now);
    if (busy) pbl_wait_add(kernel, other, call, busy_stream, now);
}

void pbl_load(const char *call, const char *name, double ms, long long now)
{
    lv_event_add(atomic_load_explicit(&pbl_file, memory_order_acquire), LV_EV_LOAD, pbl_tid, name,
                 call, "", 0, 0, ms, now);
}

void pbl_failure(const char *call, const char *name, int result, long long now)
{
    lv_event_add(atomic_load_explicit(&pbl_file, memory_order_acquire), LV_EV_FAILURE, pbl_tid, name,
                 call, "", result, 0, 0, now);
}

void pbl_free(uint64_t free_bytes, long long now)
{
    lv_free_mem(atomic_load_explicit(&pbl_file, memory_order_acquire), free_bytes, now);
}

void pbl_synced(int all, uint64_t stream, long long now)
{
    lv_file *f = atomic_load_explicit(&pbl_file, memory_order_acquire);
    int i, n;
    if (!f) return;
    lv_stream_done(f, all, stream, now);
    if (atomic_load_explicit(&pbl_nwaits, memory_order_relaxed) == 0 ||
        pthread_mutex_trylock(&pbl_lock) != 0)
        return;
    n = atomic_load(&pbl_nwaits);
    for (i = 0; i < n;) {
        pbl_wait *w = &pbl_waits[i];
        if (!all && w->stream != stream) {
            i++;
            continue;
        }
        lv_event_add(f, LV_EV_WAIT, pbl_tid, w->kernel, w->call, w->other, 0, w->stream,
                     (double)(now - w->began) / 1e6, now);
        *w = pbl_waits[--n];
    }
    atomic_store(&pbl_nwaits, n);
    pthread_mutex_unlock(&pbl_lock);
}

void pbl_ready(long long now)
{
    lv_stamp_ready(atomic_load(&pbl_file), now);
}

void pbl_first_kernel(long long now)
{
    lv_stamp_first_kernel(atomic_load(&pbl_file), now);
}

int pbl_sync_reach(CUpti_CallbackId cbid, const void *params, int *all, uint64_t *stream)
{
    *all = 0;
    *stream = 0;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
        *all = 1;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
        if (!params) return 0;
        *stream = (uint64_t)(uintptr_t)((const cuStreamSynchronize_params *)params)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
        if (!params) return 0;
        *stream = (uint64_t)(uintptr_t)((const cuStreamSynchronize_ptsz_params *)params)->hStream;
        return *stream != 0;    /* a per-thread default stream: another thread's is another */
    default:
        return 0;
    }
}
