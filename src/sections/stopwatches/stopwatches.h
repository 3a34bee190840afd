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
#include "cuda/kernels.h"

/* The lesson's n (vectorAdd's, kernels.h) and vectorScale's factor. */
#define SW_N KN_VECADD_N
#define SW_SCALE 3.0f

/* Store the rows' conclusions above from the section's measurements (and
 * section stopwatches' first-launch conclusions, where stored). Returns 0,
 * or -1 on out of memory. */
int sw_conclude(results *r);

#endif
