/* pbstate.h: the probe's state, shared by its modules (probe.c keeps it
 * up to date from the callbacks; pbrecord.c writes the record from it).
 * Everything that changes after set-up is guarded by pb.lock. */
#ifndef PBSTATE_H
#define PBSTATE_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/precord.h"

#define PB_NAME    512           /* a kernel's name kept, truncated (torch's run to 300+) */
#define PB_WHY     1024          /* env cupti */

/* The calls timed, each a pair of figures "<key>.n" and "<key>.ms". A
 * launch is told first or later at its exit. Past PB_NKINDS, the calls
 * watched for their failure alone, not counted: PB_CONTEXT a context's
 * creation (under EAGER it loads every library loaded before it, so a
 * squeezed device can fail there); PB_ALLOC a device allocation (on a
 * squeezed device a library's handle or workspace, or the program's own
 * tensor, fails there rather than in a load). */
typedef enum pb_kind {
    PB_MODULE_LOAD, PB_LIBRARY_LOAD, PB_GET_FUNCTION, PB_GET_KERNEL,
    PB_KERNEL_FUNCTION, PB_FUNC_LOAD, PB_LAUNCH_FIRST, PB_LAUNCH_LATER, PB_NKINDS,
    PB_CONTEXT = PB_NKINDS, PB_ALLOC
} pb_kind;
#define PB_LAUNCH PB_LAUNCH_FIRST

/* Each kind's figures: its calls counted, the time inside them (precord.h). */
extern const prc_fig_id pb_kind_figs[PB_NKINDS][2];

/* A first use or load whose call failed ("fail.<i>" of the record). */
typedef struct pb_fail {
    double at_ms;           /* the call began, ms after t0 */
    double free_mib;        /* free when it returned (NaN: unread) */
    int error;              /* the CUresult */
    size_t call;            /* index into pb_cbs and prc_fail_calls */
    char err[64];           /* cuGetErrorName's name of it, or "?" */
    char name[PB_NAME];     /* what was being loaded */
    char by[128];           /* the library that made the call (pb_caller), or "" */
} pb_fail;

/* One function (CUfunction) seen got or launched. */
typedef struct pb_kernel {
    const void *fn;
    double get_ms;          /* its gets (cuModuleGetFunction, cuKernelGetFunction)
                               before its first launch, summed */
    double launch_ms;       /* its first launch's host time */
    double at_ms;           /* its first use began (its first get's or first launch's entry),
                               ms after t0; valid where used */
    double free_mib;        /* device memory free when its first use began (cuMemGetInfo
                               at the entry of its first get or launch); valid where has_free */
    double took_mib;        /* free memory its first use took: before less after each of
                               its gets and its first launch, summed */
    double later_n, later_ms; /* its later launches: how many, their host time summed */
    double busy;            /* other streams with work in flight when its first use began
                               (the most over its gets and first launch); NaN: not asked */
    int used, has_free;
    int launched;
    char name[PB_NAME];     /* the launch's symbolName, else the get's name */
} pb_kernel;

/* Everything the record holds; pb.lock guards what changes after set-up. */
typedef struct pb_state {
    pthread_mutex_t lock;
    long pid;                   /* the process the probe was set up in */
    long long t0_ns;            /* the origin of every "at." figure */
    int counting;               /* the callbacks are enabled: counts are known */
    char path[PATH_MAX + 32];   /* the record; "" when too long (path_error) */
    int path_error;
    char command[256], cupti[PB_WHY], loading_mode[8], mem_source[16], device[32];
    double at_probe, at_context, at_first_kernel, at_exit;  /* NaN: not reached */
    double mem_first_kernel, mem_exit, rss_peak;            /* NaN: not read */
    double n[PB_NKINDS], ms[PB_NKINDS];
    double contexts, loaded, loaded_mib, ptx, ptx_ms;
    prc_load loads[PRC_MAX_LOADS]; /* loads after the first kernel, the first nloads: each a
                                   burst of loads with no launch between them */
    size_t nloads;
    int launched_since_load;    /* a launch came after the last load: the next starts a burst */
    double burst_gets_ms;       /* host time of the gets since the last load of the open burst */
    uint32_t *slots;            /* PB_SLOTS: 1 + index into kernels; 0 empty */
    pb_kernel *kernels;         /* PB_KERNELS, the first nkernels used */
    size_t nkernels;
    prc_span *spans;            /* maxspans, the first nspans used (then never changed) */
    size_t nspans, maxspans;
    int exit_written;           /* the "exit" record is written: no later one */
    int said;                   /* a failed write has been said on stderr */
    pb_fail fails[PRC_MAX_FAILS]; /* the failed calls of first uses and loads, the first nfails */
    size_t nfails;
} pb_state;

extern pb_state pb;

/* ms after the origin of the clock's reading ns. */
double pb_ms(long long ns);

#endif
