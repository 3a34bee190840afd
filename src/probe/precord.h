/* precord.h: the program record: what the probe (src/probe/) writes for each
 * CUDA process of a user's program, and what the parent reads back, checks
 * and refuses when it is truncated or forged. One schema, here, for both.
 *
 * The record is the harness's line form (results.h, res_write_lines) with
 * every figure in section PRC_SECTION, one sample each, state process,
 * followed by the line
 *     end <TAB> <pid> <TAB> <records>
 * (records: the number of env, m and d lines above it; the line form's own
 * "incomplete <TAB> 0" may stand among them, uncounted). Lines that start
 * with "span" carry the driver calls for --trace:
 *     span <TAB> <thread id> <TAB> <call name> <TAB> <start ms> <TAB> <ms>
 * (res_read_lines passes over them; prc_read reads them).
 *
 * The probe writes it to "<HARNESS_PROBE_DIR>/<pid>.rec", atomically (a
 * temporary file renamed over it): once at the first kernel launch (env
 * "written" "first kernel"), again at exit ("exit"), so that a process that
 * ends without running exit handlers (os._exit, a worker of fork) keeps
 * its record. */
#ifndef PRECORD_H
#define PRECORD_H

#include <stddef.h>
#include "core/results.h"

#define PRC_SECTION "program"
#define PRC_FORMAT  "harness-probe 1"   /* env "record" */

/* The environment variables the parent sets for the probe. */
#define PRC_ENV_DIR    "HARNESS_PROBE_DIR"     /* where records go (required) */
#define PRC_ENV_T0     "HARNESS_PROBE_T0_NS"   /* CLOCK_MONOTONIC ns at the spawn:
                                                  every "at." figure is ms after it
                                                  (absent: after the probe's load) */
#define PRC_ENV_CUPTI  "HARNESS_PROBE_CUPTI"   /* the libcupti the parent found (optional) */
#define PRC_ENV_SPANS  "HARNESS_PROBE_SPANS"   /* keep up to N driver calls as spans */
#define PRC_ENV_READY  "HARNESS_PROBE_READY"   /* --ready's expression: the NVTX marks
                                                  matched (src/probe/marks.h) */
#define PRC_ENV_ONLY_SUBSCRIBE "HARNESS_PROBE_ONLY_SUBSCRIBE" /* "1": subscribe, enable
                                                  no callback (the subscription's cost) */

/* The env fields of a record (all strings unless said):
 *   record        PRC_FORMAT
 *   version       the harness version the probe was built with
 *   pid, ppid     numbers
 *   command       the process's first two words of /proc/self/cmdline
 *   written       "first kernel", "failure" (a failed call: fail.<i> below) or "exit"
 *   cupti         "ok", or why not: "not found: looked in ...", "another
 *                 client is subscribed (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)",
 *                 "failed: <call> <error>"
 *   loading_mode  "LAZY", "EAGER" (cuModuleGetLoadingMode, read in the process
 *                 at its first kernel launch), or "unread"
 *   mem_source    "nvml process" (NVML's figure for this pid), "device-wide"
 *                 (cuMemGetInfo: counts every process on the device), "none"
 *   device        the first context's device: PCI bus id ("" when none) */
#define PRC_ENV_FIELDS \
    X(record) X(version) X(pid) X(ppid) X(command) X(written) X(cupti) \
    X(loading_mode) X(mem_source) X(device)

/* The figures, declared once: X(ID, key, unit, name, region, proc) makes
 * the enum prc_fig_id (PRC_F_<ID>: the figure's index in prc_figs, which
 * the probe writes as v[PRC_F_<ID>] and the parent reads by it, so that a
 * figure not declared here is a compile error) and the table prc_figs.
 * key is the figure's name in the record's lines (the line form's key);
 * unit "ms", "MiB" or "count"; name what it is, for the table (at most
 * PRC_NAME_WIDTH); region where its clock starts and stops; proc its place
 * in the program table's rows per process (1 the first, then 2, ... with
 * no gap over PRC_FIGS and PGF_FIGS: the rows end at the first place no
 * figure has; 0: not shown there). Counts are "count"; times inside calls are the host clock from
 * the call's entry to its exit, summed; "at." figures are ms after
 * PRC_ENV_T0. A figure the process never reached (no kernel launched: no
 * at.first_kernel) is absent, never zero. The probe stores .ms figures
 * only where .n > 0. PRC_CALLS makes a call's pair: ID_N "<key>.n" (each
 * call counted) and ID_MS "<key>.ms" (the time inside them). */
#define PRC_CALLS(X, ID, k, call, what, proc_n, proc_ms)                                     \
    X(ID##_N, k ".n", "count", what ", calls", "each " call " call, counted", proc_n)         \
    X(ID##_MS, k ".ms", "ms", what ", time inside", "the host clock from the entry to the "   \
      "exit of each " call " call, summed", proc_ms)

#define PRC_FIGS(X)                                                                           \
    X(AT_PROBE, "at.probe", "ms", "probe loaded (cuInit), from spawn",                        \
      "from the spawn of the process to the driver's loading of the probe, inside its first " \
      "cuInit", 1)                                                                            \
    X(AT_CONTEXT, "at.context", "ms", "first context, from the spawn",                        \
      "from the spawn to the driver's report of the process's first context", 0)              \
    X(AT_FIRST_KERNEL, "at.first_kernel", "ms", "first kernel, from the spawn",               \
      "from the spawn to the entry of the process's first kernel launch", 2)                  \
    X(AT_EXIT, "at.exit", "ms", "exit handler, from the spawn",                               \
      "from the spawn to the probe's exit handler", 0)                                        \
    X(CONTEXTS_N, "contexts.n", "count", "contexts created",                                  \
      "contexts the driver reported created", 0)                                              \
    PRC_CALLS(X, MODULE_LOAD, "module_load", "cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx " \
              "or cuModuleLoadFatBinary", "module loads", 5, 0)                               \
    PRC_CALLS(X, LIBRARY_LOAD, "library_load", "cuLibraryLoadData or cuLibraryLoadFromFile",  \
              "library loads", 3, 4)                                                          \
    X(LOADED_N, "loaded.n", "count", "modules the driver loaded",                             \
      "modules CUPTI's resource callback reported loaded (under LAZY, those loaded so far)", 0) \
    X(LOADED_MIB, "loaded.mib", "MiB", "their images",                                        \
      "the images' bytes (cubinSize) of the modules loaded, summed", 0)                       \
    X(PTX_N, "ptx.n", "count", "images JIT-compiled from PTX",                                \
      "images handed to a load that hold PTX and no machine code the device runs as it is", 0) \
    X(PTX_MS, "ptx.ms", "ms", "loads of those images, time inside",                           \
      "host time inside the loads handed those images (where the driver JIT-compiles them, "  \
      "or finds them in its cache), summed", 0)                                               \
    PRC_CALLS(X, GET_FUNCTION, "get_function", "cuModuleGetFunction", "function gets", 0, 0)  \
    PRC_CALLS(X, GET_KERNEL, "get_kernel", "cuLibraryGetKernel", "kernel gets", 0, 0)         \
    PRC_CALLS(X, KERNEL_FUNCTION, "kernel_function", "cuKernelGetFunction",                   \
              "kernel-function gets", 0, 6)                                                   \
    PRC_CALLS(X, FUNC_LOAD, "func_load", "cuFuncLoad", "function loads", 0, 0)                \
    PRC_CALLS(X, LAUNCH_FIRST, "launch_first", "kernel's first launch (cuLaunchKernel, "      \
              "cuLaunchKernelEx, cuLaunchCooperativeKernel)", "first launches", 7, 0)         \
    PRC_CALLS(X, LAUNCH_LATER, "launch_later", "later launch of a kernel already launched once", \
              "later launches", 0, 0)                                                         \
    X(MEM_FIRST_KERNEL, "mem.first_kernel", "MiB", "device memory at the first kernel",       \
      "the process's device memory (env mem_source says whose figure) when its first kernel " \
      "launch returned", 8)                                                                   \
    X(MEM_EXIT, "mem.exit", "MiB", "device memory at exit",                                   \
      "the process's device memory when the probe's exit handler ran, where it still "        \
      "answered", 0)                                                                          \
    X(RSS_PEAK, "rss.peak", "MiB", "host peak RSS",                                           \
      "the process's peak resident set (getrusage) at its exit handler", 10)                  \
    X(MARKS_N, "marks.n", "count", "NVTX marks seen",                                         \
      "NVTX marks (nvtxMarkA, nvtxMarkEx, nvtxDomainMarkEx with an ASCII message) the probe " \
      "saw as the program's NVTX tool (with --ready)", 0)                                     \
    X(AT_READY_MARK, "at.ready_mark", "ms", "ready mark, from the spawn",                     \
      "from the spawn to the first NVTX mark whose message matched --ready", 0)

typedef enum prc_fig_id {
#define PRC_FIG_ID(id, key, unit, name, region, proc) PRC_F_##id,
    PRC_FIGS(PRC_FIG_ID)
#undef PRC_FIG_ID
    PRC_NFIGS
} prc_fig_id;

typedef struct prc_fig {
    const char *key;
    const char *unit;
    const char *name;       /* what it is, for the table */
    const char *region;     /* where its clock starts and stops */
    int proc;               /* its place among the rows per process, 0: not there */
} prc_fig;

extern const prc_fig prc_figs[PRC_NFIGS];
/* The key of figure PRC_F_<id>: PRC_KEY(AT_PROBE) is "at.probe". */
#define PRC_KEY(id) (prc_figs[PRC_F_##id].key)
/* The widest name a figure may have: the program table's name column. */
#define PRC_NAME_WIDTH 34
/* What they are:
 *   at.probe            ms    the driver loaded the probe (inside the first cuInit)
 *   at.context          ms    the first context was created
 *   at.first_kernel     ms    the first kernel launch was entered
 *   at.exit             ms    the probe's exit handler ran
 *   contexts.n          count contexts created
 *   module_load.n, .ms        cuModuleLoad, cuModuleLoadData(Ex), cuModuleLoadFatBinary
 *   library_load.n, .ms       cuLibraryLoadData, cuLibraryLoadFromFile
 *   loaded.n, loaded.mib      modules the driver reported loaded (CUPTI's resource
 *                             callback), and their images' MiB (cubinSize)
 *   ptx.n               count images handed to a load that hold PTX and no machine
 *                             code the driver can run as it is (it JIT-compiles them)
 *   ptx.ms              ms    host time inside those loads, summed (where ptx.n > 0)
 *   get_function.n, .ms       cuModuleGetFunction
 *   get_kernel.n, .ms         cuLibraryGetKernel
 *   kernel_function.n, .ms    cuKernelGetFunction (under LAZY it holds the loads)
 *   func_load.n, .ms          cuFuncLoad
 *   launch_first.n, .ms       each kernel's first launch (n: kernels launched)
 *   launch_later.n, .ms       every later launch
 *   mem.first_kernel    MiB   device memory of the process at its first launch
 *   mem.exit            MiB   at the probe's exit handler (where it still answers)
 *   rss.peak            MiB   host peak resident set (getrusage) at exit
 *   marks.n             count NVTX marks the probe saw (only with PRC_ENV_READY set
 *                             and NVTX_INJECTION64_PATH naming the probe)
 *   at.ready_mark       ms    the first of them whose message matched PRC_ENV_READY */

/* The slowest first uses: derived entries "slowest.<rank>" (rank 1 to
 * PRC_SLOWEST, slowest first): name the kernel's symbol, value its first
 * use in ms (its cuKernelGetFunction or cuModuleGetFunction time and its
 * first launch's host time), fields get_ms and launch_ms. */
#define PRC_SLOWEST 10

/* Every first use: derived entries "use.<i>" (i from 1, in the order the
 * probe first saw each function, at most PRC_MAX_USES): name the kernel's
 * symbol, value the ms after PRC_ENV_T0 at which its first use began (its
 * first get's or first launch's entry), fields get_ms, launch_ms (as
 * slowest's), later_n and later_ms (its later launches: how many, their
 * host time summed) and, where the free device memory was read (after the
 * process's first kernel), free_mib (free when the first use began) and
 * took_mib (what its gets and first launch took of it, summed), and busy
 * (the program's other streams whose work was still in flight when it
 * began: cuStreamQuery of the streams it launched on, after the first
 * kernel; absent where not asked). */
#define PRC_MAX_USES 1024

/* The module and library loads after the process's first kernel, in
 * bursts (loads with no kernel launch between them: EAGER loads a library's
 * thousands of modules at once): derived entries "load.<i>" (in order, at
 * most PRC_MAX_LOADS; past that the last burst takes the rest, so no load
 * is dropped) named "library" (any of them a cuLibraryLoad*) or "module",
 * value the ms after PRC_ENV_T0 at which the burst began, fields n (its
 * loads), ms (host time inside them, summed), span_ms (from its first
 * load's entry to its last load's exit, less the gets made in between: the
 * program's work around the loads, cudart's and a library's own set-up,
 * which stalls it as much; past PRC_MAX_LOADS a later burst adds only its
 * ms) and, where read, free_mib (free when it began) and took_mib (what its
 * loads took, summed). */
#define PRC_MAX_LOADS 256
typedef struct prc_load {
    double at_ms, n, ms, free_mib, took_mib; /* free_mib, took_mib NaN: unread */
    double span_ms, end_ms;                  /* the burst's span (see span_ms above), and
                                                its last load's exit, ms after PRC_ENV_T0 */
    int library;                             /* 1 any cuLibraryLoad*, 0 cuModuleLoad* only */
} prc_load;

/* The first uses and loads whose driver call failed: derived entries
 * "fail.<i>" (in order, after the loads; at most PRC_MAX_FAILS, later ones
 * are not kept), one for each failed call of a load (cuModuleLoad*,
 * cuLibraryLoad*), a get (cuModuleGetFunction, cuLibraryGetKernel,
 * cuKernelGetFunction, cuFuncLoad), a kernel's first launch, a context's
 * creation (cuDevicePrimaryCtxRetain, cuCtxCreate*: under EAGER it loads
 * the libraries loaded before it) or a device allocation (cuMemAlloc_v2,
 * cuMemAllocPitch_v2, cuMemAllocAsync*, cuMemAllocFromPoolAsync*,
 * cuMemCreate: a squeezed device fails there too): name what was being
 * loaded (the kernel's symbol for a get or a launch; for a load the file's
 * name, the shared library that holds the image (dladdr), or "(an image in
 * memory)"; "the context"; an allocation's size, "64 MiB", "1.5 MiB" or
 * "4096 bytes"), value the ms after PRC_ENV_T0 at which the call
 * began, text "<call> <error>" (the call, one of prc_fail_calls; the
 * driver's name of the error, cuGetErrorName's, or "?" where it gave
 * none), fields error (the CUresult, a whole number from 1) and, where it
 * was read, free_mib (the device memory free when the call returned,
 * cuMemGetInfo inside the process). A record is written at each of the
 * first PRC_MAX_FAILS failures (env written "failure"), so that a process
 * that then dies without its exit handler keeps it. */
#define PRC_MAX_FAILS 16
#define PRC_NFAIL_CALLS 27
extern const char *const prc_fail_calls[PRC_NFAIL_CALLS];

/* The call and error name of a "fail.<i>" entry's text into call and err
 * (callen, errlen bytes). Returns 0, or -1 when the text is not "<call>
 * <error>" with the call one of prc_fail_calls and the error "?" or 1 to
 * 63 of [A-Z0-9_]. */
int prc_fail_text(const char *text, char *call, size_t callen, char *err, size_t errlen);

/* The most span lines a record may carry, and the longest record file the
 * parent reads. */
#define PRC_MAX_SPANS 100000
#define PRC_MAX_BYTES ((size_t)32 << 20)

/* The longest figure (m) or slowest-entry (d) line a record may hold (the
 * probe's are a few hundred bytes): a figure of millions of samples is
 * refused before it is parsed. */
#define PRC_MAX_LINE 16384

/* The figure of key, or NULL. */
const prc_fig *prc_fig_find(const char *key);

/* One span (a driver call) of a record. */
typedef struct prc_span {
    long tid;
    char name[48];
    double start_ms, ms;
} prc_span;

/* A record read and checked. */
typedef struct prc_record {
    long pid, ppid;
    results r;              /* its env, figures and slowest entries */
    prc_span *spans;        /* NULL when none */
    size_t nspans;
} prc_record;

/* Read the record text[0..len) (not necessarily NUL-terminated) of process
 * pid (from its file name; -1: take the record's own) into *out
 * (initialised here). Refuses, with a one-line reason in why, anything that
 * is not a whole record of this schema: no end line or one whose pid or
 * count disagrees (truncated), another format or version, a pid that is
 * not the file's, a malformed line, a record of another section, a figure
 * or env field this schema does not have, a figure with other than one
 * sample or not its unit, a value that is negative, not finite, beyond its
 * bounds (a count not a whole number; times beyond 1e9 ms; MiB beyond
 * 1e8), "at." figures out of order, a slowest entry out of order or with
 * an empty name, more lines of a kind than the schema has (PRC_NFIGS
 * figures, its env fields, PRC_SLOWEST entries, PRC_MAX_SPANS spans), or
 * a figure or slowest line longer than PRC_MAX_LINE. Each line is looked at
 * once before any is parsed: the time is linear in len. Returns 0, or -1 (out
 * freed). */
int prc_read(const char *text, size_t len, long pid, prc_record *out, char *why,
             size_t whylen);

/* Free what a record holds. */
void prc_free(prc_record *rec);

#endif
