/* stopwatches.h: what the stopwatches section's files share: the lesson's
 * n and scale, the child entry point, and the rows' conclusions, stored as
 * derived entries from a results object alone (the section stores them;
 * the unit tests call sw_conclude on results built by hand).
 *
 * The entries, all in section "stopwatches" (value, unit; text; fields):
 *   setup      the vectorAdd the rows time: n, "elements"; fields n,
 *              threads (per block), blocks, buffer_bytes (one buffer)
 *   row1       row 1's median, "ms"; text the names of its three largest
 *              waterfall parts, largest first, joined by "; "; fields
 *              parts (how many), top1_pct, top2_pct, top3_pct (each of
 *              row 1's median)
 *   row2       row 2 with the sync over row 4 (the wait around the kernel
 *              beyond its run), "ms"; fields enqueue (row 2 alone), sync
 *              (row 2 with the sync), kernel (row 4)
 *   row3       row 3 over row 4: this process's first launch's surplus,
 *              "ms"; text the loading mode this process ran in ("LAZY",
 *              "EAGER"); fields first, warm, enqueue_first (row 2 at the
 *              first launch), enqueue_warm (row 2), experiment (1: the
 *              first-launch experiment's conclusions for this mode are
 *              stored, firstlaunch.h; 0: it did not run)
 *   row4       row 4's GB/s over its byte model, "GB/s"; fields bytes, ms
 *   row5       row 5 over row 4: what the copies add, "ms"; fields pinned
 *              (the pinned row over row 4), pageable_ms, pinned_ms
 * An entry whose rows are missing is not stored. */
#ifndef STOPWATCHES_H
#define STOPWATCHES_H

#include "core/results.h"
#include "core/schema.h"
#include "cuda/kernels.h"

/* The section's name, as the list names it (sections/list.h). */
#define SW "stopwatches"

/* The lesson's n (vectorAdd's, kernels.h) and vectorScale's factor. */
#define SW_N KN_VECADD_N
#define SW_SCALE 3.0f

/* The measurement keys the section writes (besides the first-launch
 * children's, firstlaunch.h), in --schema's order: row 1, the parts of its
 * waterfall (SW_WATERFALL "<part>", in the order the child times them; the
 * child names each part by what follows SW_WATERFALL), then the rows this
 * process times. The measuring code, the tables and section crossover read
 * them through this table. */
#define SW_WATERFALL "waterfall."
enum {
    SW_K_ROW1,
    SW_K_WF_EXEC, SW_K_WF_LIBCUDA, SW_K_WF_INIT, SW_K_WF_CONTEXT, SW_K_WF_LIBNVRTC,
    SW_K_WF_COMPILE, SW_K_WF_MODULE, SW_K_WF_JIT, SW_K_WF_FUNCTION, SW_K_WF_ALLOC, SW_K_WF_HOST,
    SW_K_WF_COPYIN, SW_K_WF_KERNEL, SW_K_WF_COPYOUT, SW_K_WF_CHECK, SW_K_WF_TEARDOWN,
    SW_K_WF_DLCLOSE, SW_K_WF_EXIT, SW_K_WF_KEXIT, SW_K_WF_REAP,
    SW_K_ROW2_FIRST, SW_K_ROW2SYNC_FIRST, SW_K_ROW3, SW_K_ROW4, SW_K_ROW4_COLD, SW_K_ROW2,
    SW_K_ROW2SYNC, SW_K_ROW5, SW_K_ROW5PINNED, SW_K_CPU, SW_K_SCALE_FIRST, SW_K_SCALE_WARM,
    SW_NKEYS
};
extern const sch_key sw_keys[SW_NKEYS];

/* The entries above, as --schema declares them (their key, name, unit). */
enum { SW_D_SETUP, SW_D_ROW1, SW_D_ROW2, SW_D_ROW3, SW_D_ROW4, SW_D_ROW5, SW_ND };
extern const sch_key sw_derived[SW_ND];

/* Store the rows' conclusions above from the section's measurements (and
 * section stopwatches' first-launch conclusions, where stored). Returns 0,
 * or -1 on out of memory. */
int sw_conclude(results *r);

#endif
