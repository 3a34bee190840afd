/* snapshot.h: what section snapshot's files share: its name, the keys it
 * writes, the kernels its child launches, the sizes it takes and the
 * words its parent and child say to each other. */
#ifndef SNAPSHOT_H
#define SNAPSHOT_H

#include <stddef.h>
#include "core/schema.h"

/* The section's name, as the list names it (sections/list.h). */
#define SN "snapshot"

/* The measurement keys, in --schema's order; <i> is a size in MiB
 * (--snapshot-mib), <word> a kernel's name. */
enum { SN_K_LOCK, SN_K_CHECKPOINT, SN_K_RESTORE, SN_K_UNLOCK, SN_K_PAUSE, SN_K_HELD,
       SN_K_COLD, SN_K_MEM_BEFORE, SN_K_MEM_CKPT, SN_K_MEM_AFTER, SN_K_WARM, SN_K_FIRST,
       SN_K_SECOND, SN_K_D2H, SN_NKEYS };
extern const sch_key sn_keys[SN_NKEYS];

/* The four steps, in order: the keys SN_K_LOCK .. SN_K_UNLOCK. */
#define SN_NSTEPS 4

/* The derived entries: the marginal rate and fixed part of the checkpoint
 * and of the restore (from the smallest and largest size), the pinned
 * device-to-host copy rate, the steps against the child's own pause at
 * each size, and the answer. */
enum { SN_D_RATE_CKPT, SN_D_RATE_RESTORE, SN_D_FIXED_CKPT, SN_D_FIXED_RESTORE, SN_D_D2H,
       SN_D_PAUSE, SN_D_ANSWER, SN_ND };
extern const sch_key sn_derived[SN_ND];

/* Key k of sn_keys for size mib (and kernel, for SN_K_WARM .. SN_K_SECOND;
 * else NULL) into buf. Returns buf. */
const char *sn_key(char *buf, size_t len, int k, long mib, const char *kernel);

/* The kernels the child loads, launches warm before the checkpoint and
 * again after the restore: their names, in order, and their files. */
#define SN_NKERNELS 5
extern const char *const sn_kernels[SN_NKERNELS];

/* The sizes of --snapshot-mib: at most SN_MAX_SIZES, each 1 to
 * SN_MAX_MIB MiB; the default when it is not given. */
#define SN_MAX_SIZES 8
#define SN_MAX_MIB (1L << 20)
#define SN_DEFAULT_MIB "256,2048"

/* Read a --snapshot-mib list ("256,2048") into mib (at most SN_MAX_SIZES).
 * Returns the count, or -1 with what is wrong in why. */
int sn_parse_sizes(const char *s, long *mib, char *why, size_t whylen);

/* The child's buffers are of SN_CHUNK_MIB each (the last one smaller). */
#define SN_CHUNK_MIB 64L

/* What the child and the parent say on the socket between them (the
 * child's descriptor 3), a line each: the child "ready <kernel>" once its
 * cold start is done ("-", or the kernel it left running when
 * HARNESS_SNAPSHOT_BUSY=1 asks it to); the parent "go" once it has done
 * with it; then the child's results as lines (res_write_lines), and its
 * stderr, which it sends there too. */
#define SN_READY "ready"
#define SN_GO "go\n"

/* One child of mib MiB, from the parent's side (snapshot_steps.c):
 * started, waited for until ready, locked, checkpointed, restored and
 * unlocked, each step timed and stored, its results read back. Returns 0;
 * 1 when something failed (said in one sentence on stderr and recorded
 * as a failed check), the child restored and unlocked, or killed; -1 when
 * it could not go on (out of memory, no child could be started). A signal
 * that comes meanwhile stops the run once the child is released. */
struct sec_ctx;
int sn_one(struct sec_ctx *c, long mib);

#endif
