/* probe.h: the probe (harness-probe.so), a library the CUDA driver loads
 * into each CUDA process of a user's program (CUDA_INJECTION64_PATH) and
 * which writes that process's record (precord.h). Only InitializeInjection
 * is exported from the library; the rest is the probe's own API, declared
 * here for the unit test (tests/test_probe.c), which drives its
 * bookkeeping with constructed CUPTI callback data and a fake clock. */
#ifndef PROBE_H
#define PROBE_H

#include <cupti.h>

/* The most functions whose first launch is told apart; the launches of any
 * beyond count as later launches (and in no slowest entry). */
#define PB_MAX_KERNELS (1u << 15)

/* Called by the driver inside the process's first cuInit. Without
 * HARNESS_PROBE_DIR it does nothing. Otherwise it takes the clock's origin
 * (HARNESS_PROBE_T0_NS; now when absent, not a whole number, or later than
 * now), stamps at.probe, opens CUPTI
 * (HARNESS_PROBE_CUPTI, the loader's libcupti.so.13 and libcupti.so, then
 * $CUDA_HOME/lib64, /usr/local/cuda/lib64 and /usr/local/cuda/extras/CUPTI/lib64),
 * subscribes pb_callback and enables the driver calls and resource events
 * of precord.h's figures (none with HARNESS_PROBE_ONLY_SUBSCRIBE=1), and
 * registers pb_exit with atexit. A CUPTI that is missing or refuses is no
 * failure: the record says why in env cupti. Always returns 1 (the driver
 * reads anything else as a failed injection). */
__attribute__((visibility("default"))) int InitializeInjection(void);

/* The CUPTI callback: driver-API ENTER and EXIT of the calls enabled, and
 * the resource events CONTEXT_CREATED and MODULE_LOADED; every other
 * domain or call id is ignored, and so is every call made while the probe
 * itself runs on that thread. Thread-safe; a launch takes one lock and one
 * hash lookup, and allocates nothing. The first launch's EXIT (of any
 * thread) reads the loading mode, device and device memory, and writes the
 * record "first kernel". The EXIT of a load, a get or a kernel's first
 * launch that returned an error keeps it (precord.h, "fail.<i>": what was
 * being loaded, the error and its name from cuGetErrorName, the free
 * memory from cuMemGetInfo) and writes the record "failure", for the
 * first PRC_MAX_FAILS. Does nothing before set-up or in a forked child. */
void pb_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                 const void *cbdata);

/* The exit handler: stamps at.exit, reads rss.peak and (where a context
 * was seen) mem.exit from NVML, and writes the record "exit". Does nothing
 * in a process other than the one set up (a forked child keeps no record
 * of its parent's). */
void pb_exit(void);

/* Write the record now to "<dir>/<pid>.rec", atomically (a temporary file
 * beside it, renamed over it), with env written as given ("first kernel",
 * "failure" or "exit"). Once "exit" is written, later calls write nothing. Returns
 * 0 when written (or skipped after "exit"), 1 when the probe is not set up
 * in this process (nothing written), -1 on failure: an earlier record at
 * PATH is left as it was, and the process's first failure puts the one
 * line "harness-probe: cannot write PATH: REASON" on stderr (later ones
 * say nothing). Thread-safe. */
int pb_write_record(const char *written);

/* For tests: set the probe up as InitializeInjection does, without CUPTI
 * (env cupti says it is a test) and without atexit: records to dir, times
 * after t0_ns on the probe's clock, up to max_spans spans (capped at
 * PRC_MAX_SPANS). The calls are counted as if every callback were
 * enabled. Returns 0, or -1 when the tables cannot be allocated. */
int pb_init_for_test(const char *dir, long long t0_ns, long max_spans);

/* For tests: the probe's clock (CLOCK_MONOTONIC ns); NULL restores it. */
void pb_set_clock_for_test(long long (*now)(void));

/* For tests: the driver's cuMemGetInfo and cuGetErrorName that a failed
 * call's entry reads (precord.h, "fail.<i>"), in place of the process's
 * libcuda.so.1; NULL restores the process's. */
void pb_set_failure_driver_for_test(CUresult (*mem_info)(size_t *, size_t *),
                                    CUresult (*error_name)(CUresult, const char **));

/* The library that made a failed driver call, from the objects of the
 * stack's frames, innermost first (objs[i] the path of frame i's object,
 * NULL where unknown): past the first frame in the driver's object
 * (driver) and the driver's own frames, the first object that is not the
 * CUDA runtime (libcudart*), by the last part of its path, into buf; the
 * runtime's where only it follows; "" where no frame is the driver's or
 * nothing follows. A failed device allocation or context creation is
 * named with it ("64 MiB (called by libcufft.so.12)"). */
void pb_caller_pick(const char *const *objs, size_t n, const char *driver, char *buf, size_t len);

/* For tests: an address inside the object that a failed call's caller is
 * looked for past (in place of the process's libcuda.so.1); NULL restores
 * the process's. */
void pb_set_driver_object_for_test(const void *addr);

/* For tests: the cuMemGetInfo read around first uses and loads after the
 * first kernel, in place of the one that first kernel took from the
 * process's driver (NULL: none; loads are then not kept). */
void pb_set_mem_info_for_test(CUresult (*mem_info)(size_t *, size_t *));

/* For tests: the cuStreamQuery a first use asks the other streams with
 * (NULL: none), the streams noted so far forgotten. */
void pb_set_stream_query_for_test(CUresult (*query)(CUstream));

/* For tests: free the tables and forget everything, as before set-up;
 * the clock is restored. */
void pb_reset_for_test(void);

#endif
