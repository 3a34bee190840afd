/* figures.h: what the program entry stores besides the record's figures
 * (precord.h), declared once: its run-level figures, its derived entries
 * and their keys, and their declarations for --schema. The measuring code
 * stores through these tables, the printer reads through them. */
#ifndef FIGURES_H
#define FIGURES_H

#include <stddef.h>
#include "core/schema.h"

/* The period at which a run's sampler reads NVML and --ready's output
 * (sampler.h); the figures taken from it say so. */
#define PGF_SAMPLE_MS 10
/* How often --ready's output is looked at, in ms: a ready line is dated by
 * the first look that saw its file hold it (sampler.c), so its date lags
 * its writing by at most this, and the look's own lateness. */
#define PGF_READY_MS 2
#define PGF_STR_(x) #x
#define PGF_STR(x) PGF_STR_(x)    /* a constant's digits, in a description */

/* The run-level figures: X(ID, key, unit, name, region, proc), as the
 * record's PRC_FIGS (proc: the place among the table's rows per process, one
 * sequence with the record's; 0 not there). A figure the parent measures is
 * one row here and one pgt_put_run where it is measured. The headline first:
 * in.first_kernel and in.context, on the clock inside the process (probed
 * sides); wall, cpu, rss.main, mem.peak, processes (every side); code.ms
 * (probed sides); cache.<name> (--jit-cache sides); ready.at, ready.uses,
 * ready.stall, ready.worst, headroom, concurrent (probed sides, from the
 * records' first uses and loads). */
#define PGF_FIGS(X)                                                                           \
    X(IN_FIRST_KERNEL, "in.first_kernel", "ms", "first kernel, from cuInit",                  \
      "inside the process: from the probe's load (inside the run's first cuInit) to the "     \
      "first kernel launch entered, of the earliest CUDA processes (the program's own start " \
      "left out)", 0)                                                                         \
    X(IN_CONTEXT, "in.context", "ms", "first context, from cuInit",                           \
      "inside the process: from the probe's load (inside the run's first cuInit) to the "     \
      "first context created", 0)                                                             \
    X(WALL, "wall", "ms", "whole process, from the spawn",                                    \
      "from the spawn of the program to its main process's exit (the parent's clock)", 0)     \
    X(CPU, "cpu", "ms", "host CPU time, main process",                                        \
      "user and system CPU time of the main process and of the children it waited for "       \
      "(wait4)", 0)                                                                           \
    X(RSS_MAIN, "rss.main", "MiB", "host peak RSS, main process",                             \
      "the main process's peak resident set, and of the children it waited for (wait4)", 0)   \
    X(MEM_PEAK, "mem.peak", "MiB", "device memory, peak",                                     \
      "the most device memory NVML showed for the run's processes together, sampled every "   \
      PGF_STR(PGF_SAMPLE_MS) " ms", 9)                                                        \
    X(PROCESSES, "processes", "count", "CUDA processes",                                      \
      "processes of the run that wrote a record", 0)                                          \
    X(CODE_MS, "code.ms", "ms", "loads, gets, first launches",                                \
      "host time inside module and library loads, function and kernel gets and loads, and "   \
      "each kernel's first launch, summed over the run's CUDA processes (where a JIT from "   \
      "PTX and lazy loads are paid)", 0)                                                      \
    X(CACHE_CUDA, "cache.cuda", "MiB", "CUDA_CACHE_PATH after the run",                       \
      "--jit-cache: the regular files under the side's CUDA_CACHE_PATH after the run", 0)     \
    X(CACHE_TRITON, "cache.triton", "MiB", "TRITON_CACHE_DIR after the run",                  \
      "--jit-cache: the regular files under the side's TRITON_CACHE_DIR after the run", 0)    \
    X(CACHE_INDUCTOR, "cache.inductor", "MiB", "TORCHINDUCTOR_CACHE_DIR after run",           \
      "--jit-cache: the regular files under the side's TORCHINDUCTOR_CACHE_DIR after the "    \
      "run", 0)                                                                               \
    X(CACHE_CUPY, "cache.cupy", "MiB", "CUPY_CACHE_DIR after the run",                        \
      "--jit-cache: the regular files under the side's CUPY_CACHE_DIR after the run", 0)      \
    X(READY_AT, "ready.at", "ms", "ready, from the spawn",                                    \
      "when a line of the program's output first matched --ready (the harness's clock: "     \
      "the first look, every " PGF_STR(PGF_READY_MS) " ms, that saw it written), else the "  \
      "first kernel plus --ready-after",                                                      \
      0)                                                                                      \
    X(READY_USES, "ready.uses", "count", "first uses after ready",                            \
      "kernels whose first use began after ready (a --snapshot side: after its last unlock), " \
      "over the run's CUDA processes", 0)                                                     \
    X(READY_STALL, "ready.stall", "ms", "their stalls, summed",                               \
      "host time of those first uses (gets and first launch) and of the bursts of loads "     \
      "after ready (each from its first load's entry to its last one's exit, less the gets "  \
      "between), summed", 0)                                                                  \
    X(READY_WORST, "ready.worst", "ms", "the worst of them",                                  \
      "the longest of those first uses (0 where there was none)", 0)                          \
    X(HEADROOM, "headroom", "MiB", "free at the tightest load",                               \
      "the least device memory free (cuMemGetInfo, inside the process) when a first use or "  \
      "a load after the first kernel began", 0)                                               \
    X(CONCURRENT, "concurrent", "count", "first uses beside busy streams",                    \
      "first uses after the first kernel, in processes under LAZY, that began while another " \
      "stream of the program had work in flight (cuStreamQuery, inside the process)", 0)

typedef enum pgf_id {
#define PGF_ID(id, key, unit, name, region, proc) PGF_##id,
    PGF_FIGS(PGF_ID)
#undef PGF_ID
    PGF_N
} pgf_id;

typedef struct pgf_fig {
    const char *key, *unit, *name, *region;
    int proc;               /* its place among the rows per process, 0: not there */
} pgf_fig;
extern const pgf_fig pgf_figs[PGF_N];
/* The key of figure PGF_<id>: PGF_KEY(WALL) is "wall". */
#define PGF_KEY(id) (pgf_figs[PGF_##id].key)

/* The region of a process's own device memory peak ("proc<i>.<side>.mem.peak"). */
#define PGF_PROC_PEAK_REGION \
    "the most device memory NVML showed for this process, sampled every " PGF_STR(PGF_SAMPLE_MS) " ms"

/* The probe's own cost is judged on these figures ("probe_cost.<side>.<fig>"). */
#define PGF_NCOST 3
extern const pgf_id pgf_cost[PGF_NCOST];
#define PGF_COST_PREFIX "probe_cost."

/* The section's derived entries whose key is fixed or a pattern of its
 * own, declared once: pgf_schema_derived prints them, the code stores
 * through them (sch_derive). The verdicts over the figures
 * ("compare.<fig>", "compare.<side>.<fig>", "compare.proc<i>.<fig>") are
 * declared from the figures' tables instead, a kind of setting's own in
 * its row (setting.h: --squeeze's). */
enum pgf_derived_id {
    PGF_D_COLD_START, PGF_D_WALL, PGF_D_JIT, PGF_D_READY, PGF_D_HEADROOM, PGF_D_AUTOTUNE,
    PGF_D_CONCURRENT, PGF_D_ROUNDS, PGF_D_LOADS, PGF_D_MEMORY, PGF_D_LATER, PGF_D_MODE,
    PGF_D_PROBE_COST_ANSWER, PGF_D_CUDA, PGF_D_CUPTI, PGF_D_FAILED, PGF_D_SLOWEST,
    PGF_D_READY_RANK, PGF_NDERIVED
};
extern const sch_key pgf_derived[PGF_NDERIVED];

/* The key of rank k of side key side in the ranked list what
 * (PGF_D_SLOWEST "slowest.<side>.<i>", PGF_D_READY_RANK "ready.<side>.<i>"),
 * its declaration filled in, into buf. */
void pgf_rank_key(enum pgf_derived_id what, const char *side, size_t k, char *buf, size_t len);

/* --schema: the measurements (every figure per side, the record's per
 * process too), then the derived entries: the verdicts over every figure,
 * the probe's cost and the declared ones (pgf_derived), after
 * sch_derived(o). */
void pgf_schema_figures(sch_out *o);
void pgf_schema_derived(sch_out *o);

#endif
