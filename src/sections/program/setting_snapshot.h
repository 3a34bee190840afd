/* setting_snapshot.h: the kind of setting --snapshot (row pgk_snapshot of
 * setting.h): each loading mode with and without the driver's checkpoint
 * at the program's ready point. On a snapshot side, once the run is ready
 * (readiness.h), every CUDA process of the run (those with a live record;
 * on a bare side those NVML lists for the run's tree) is locked,
 * checkpointed, restored and unlocked through cuda/ckpt.h, each step
 * timed on this process's clock, NVML's device memory read before, while
 * checkpointed and after; the program then goes on, and its first uses are
 * counted from the last unlock. Its figures are declared here, once: the
 * kind stores them (setting_snapshot.c) and words and prints them
 * (setting_snapshot_words.c). */
#ifndef SETTING_SNAPSHOT_H
#define SETTING_SNAPSHOT_H

#include <stdio.h>
#include "core/results.h"
#include "core/schema.h"
#include "sections/program/setting.h"

/* The figures of a snapshot side: X(ID, key, unit, name, region). Each is
 * "<side>.<key>" (a run's: summed over its processes where per process),
 * the steps and the memory also "proc<i>.<side>.<key>" (process i of the
 * run, by pid order). */
#define PGN_FIGS(X)                                                                            \
    X(LOCK, "snapshot.lock", "ms", "lock",                                                     \
      "this process's host clock around cuCheckpointProcessLock(pid), summed over the run's "  \
      "CUDA processes: its CUDA calls held, the work it submitted waited for")                 \
    X(CHECKPOINT, "snapshot.checkpoint", "ms", "checkpoint",                                   \
      "around cuCheckpointProcessCheckpoint(pid), summed: device memory copied to host "       \
      "memory, the process's allocations and device handles released")                        \
    X(RESTORE, "snapshot.restore", "ms", "restore",                                            \
      "around cuCheckpointProcessRestore(pid), summed: device memory taken again and its "     \
      "contents copied back")                                                                  \
    X(UNLOCK, "snapshot.unlock", "ms", "unlock",                                               \
      "around cuCheckpointProcessUnlock(pid), summed: its CUDA calls let go")                  \
    X(MEM_BEFORE, "snapshot.mem_before", "MiB", "device memory before the lock",               \
      "NVML's usedGpuMemory of the process(es), just before the first lock")                   \
    X(MEM_CKPT, "snapshot.mem_checkpointed", "MiB", "device memory checkpointed",              \
      "NVML's usedGpuMemory once every process was checkpointed (0: no longer a compute "     \
      "process)")                                                                              \
    X(MEM_AFTER, "snapshot.mem_after", "MiB", "device memory after the unlock",                \
      "NVML's usedGpuMemory once every process was unlocked")                                  \
    X(WAIT, "snapshot.wait", "ms", "ready to the first lock",                                  \
      "from the ready point as dated (a line's first look, a mark's or first kernel's stamp) " \
      "to the first lock's call: the harness's own lateness")                                  \
    X(HELD, "snapshot.held", "ms", "held, ready to the last unlock",                           \
      "this process's clock from the ready point as dated to the last unlock's return: the "   \
      "steps, the NVML reads between them and the lateness")                                   \
    X(RESUMED, "snapshot.resumed", "ms", "resumed, from the spawn",                            \
      "from the spawn to the last unlock's return; the first uses after ready of a snapshot "  \
      "side are those after this")                                                             \
    X(PROCS, "snapshot.processes", "count", "processes checkpointed",                          \
      "the run's CUDA processes locked, checkpointed, restored and unlocked")

typedef enum pgn_fig {
#define PGN_ID(id, key, unit, name, region) PGN_##id,
    PGN_FIGS(PGN_ID)
#undef PGN_ID
    PGN_NFIGS
} pgn_fig;

/* The figures that are per process too: the four steps and the memory. */
#define PGN_PER_PROC(f) ((f) <= PGN_MEM_AFTER)

extern const sch_key pgn_figs[PGN_NFIGS];

/* "<prefix><side>.<key of f>" into buf (prefix "" or "proc<i>."). */
void pgn_key(char *buf, size_t len, const char *prefix, const char *side, pgn_fig f);

/* The derived entries: per mode, the break-even ("snapshot.<side>", side
 * the mode's side without the snapshot), and the answer. */
enum { PGN_D_MODE, PGN_D_ANSWER, PGN_ND };
extern const sch_key pgn_derived[PGN_ND];

/* The row's words (setting_snapshot_words.c): the answer, from the
 * results alone (setting.h's answer); the table's block (print); the
 * declarations (schema_figures, schema). */
void pgn_answer(results *r, const pgk_plan *plan);
void pgn_print(FILE *f, const results *r);
void pgn_schema_figures(sch_out *o);
void pgn_schema(sch_out *o);

#endif
