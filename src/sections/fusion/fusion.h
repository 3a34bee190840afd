/* fusion.h: the fusion section's facts and conclusions, stored as derived
 * entries from a results object alone (the section stores them; the unit
 * tests call them on results built by hand). The printer and the scripts
 * read them; none of them recomputes one.
 *
 * The entries, all in section "fusion" (value, unit; text; fields):
 *   sizes            the main n, "elements"; fields main_n, check_n
 *   version.<key>    one per version, in table order (the version's key as
 *                    in main.<key>): bytes per element, "B/element"; the
 *                    kernels it launches, comma-separated ("" for
 *                    cuMemcpyDtoD); fields bytes_per_elem, flops_per_elem,
 *                    kernels (how many it launches), floor (1: a copy floor
 *                    candidate), sweep (1: timed in the n sweep), fused (1:
 *                    the whole chain in one kernel), checked (1: validated
 *                    at check_n), width (K of fused-wide<K>, else 0)
 *   predictions      the byte ratio staged/fused; fields staged_bytes,
 *                    pair_bytes, fused_bytes, extra_bytes (staged - fused,
 *                    per element), launch_ratio, staged_pair, pair_fused
 *                    (byte ratios), staged_kernels, pair_kernels, fused_kernels
 *   floor.main       the copy floor at the main size, "GB/s": the best
 *   floor.n=N        warm copy floor candidate at that n; text its version
 *                    key; fields n, ms (its median), <key>_gbs per candidate
 *   copy_floor       the roof, "GB/s": the best floor.* with n floats of at
 *                    least the L2's bytes (buffers of 4x the L2), else
 *                    floor.main (fallback 1); text the measurement key;
 *                    fields n, dtod_gbs, fallback, l2_bytes, datasheet_gbs
 *                    (the environment's datasheet_memory_gbs, from the
 *                    table of known devices: devices.h; NaN when the GPU
 *                    is not in it) and datasheet_pct (the roof's share)
 *   main.stages      the four stages' medians summed, "ms"; text the key of
 *                    the row it follows (main.<last stage>); fields n, bytes
 *   sweep.n=N        one per n of the sweep, in the order run: staged/fused;
 *                    text the reading; fields n, staged_ms, fused_ms,
 *                    us_per_launch (staged), best_fused_gbs, floor_gbs,
 *                    best_over_floor
 *   shared.n=N       the sweep's rows at N, the main n, are the main
 *                    phase's (main.<key> copied as n=N.<key>, not timed
 *                    again): N, "elements"; text "main"; fields n, rows
 *                    (how many); stored by the section as it sweeps, not
 *                    by fs_conclude
 *   sweep.within     the n from which on staged/fused stays within the
 *                    tolerance of the byte ratio (NaN: not at the largest
 *                    n), "elements"; fields tolerance, first_n, first_ratio,
 *                    last_n, last_ratio, last_staged_gbs, last_fused_gbs
 *   held             which prediction held: staged/fused at the main size;
 *                    text "exceeds the byte ratio" or "falls short of the
 *                    byte ratio"; fields staged_pair, pair_fused, extra_us
 *                    (staged - fused), bytes_us (extra bytes at the roof),
 *                    staged_gbs, fused_gbs, grid_us and one_us (section
 *                    launch's device.grid and device.1x1; NaN when launch
 *                    did not run), grid_blocks, extra_grids, extra_grids_us
 *   held.wide        the fastest fused-wide<K> at the main size over the
 *                    copy floor there (floor.main); text its version key;
 *                    fields width (K), gbs, floor_gbs, ms */
#ifndef FUSION_H
#define FUSION_H

#include "core/results.h"
#include "core/schema.h"

/* The keys, shared by the section's declarations (fs_schema), its stores
 * and its printer; a <word> is filled in with sch_fill (core/schema.h).
 * A version's rows: FS_MAIN_PRE or FS_SWEEP_PRE, then its key, then
 * FS_COLD for the L2-cold twin (its name: the version's, then FS_COLD_NAME). */
#define FS_MAIN_PRE "main."
#define FS_SWEEP_PRE "n=<N>."
#define FS_COLD ".cold"
#define FS_COLD_NAME ", L2 cold"
#define FS_BITWISE_COUNT "bitwise.count"
#define FS_BITWISE_MAX "bitwise.max"
#define FS_WIDTH_REGS "width.<N>.regs"
#define FS_WIDTH_LOCAL "width.<N>.local"
#define FS_WIDTH_BLOCKS "width.<N>.blocks"
#define FS_WIDTH_OCCUPANCY "width.<N>.occupancy"
/* The derived entries (their declarations: fs_schema). */
#define FS_D_SIZES "sizes"
#define FS_D_VERSION "version.<word>"
#define FS_D_PREDICTIONS "predictions"
#define FS_D_FLOOR "floor."
#define FS_D_FLOOR_MAIN FS_D_FLOOR "main"
#define FS_D_FLOOR_N FS_D_FLOOR "n=<N>"
#define FS_D_COPY_FLOOR "copy_floor"
#define FS_D_STAGES "main.stages"
#define FS_D_SWEEP_N "sweep.n=<N>"
#define FS_D_SHARED_N "shared.n=<N>"
#define FS_D_WITHIN "sweep.within"
#define FS_D_HELD "held"
#define FS_D_HELD_WIDE "held.wide"
#define FS_ANSWER "fusion"           /* answer.fusion (an_store) */
/* The length of a pattern's literal head, before its first <word>. */
#define FS_HEAD(pattern) strcspn(pattern, "<")

/* Store "sizes", every "version.<key>" and "predictions": the facts the
 * section runs on, known before any time. Returns 0, or -1 on out of
 * memory. */
int fs_store_models(results *r);

/* Compute the conclusions from the fusion measurements in r (main.<key>,
 * n=N.<key>, warm and L2-cold) and section launch's, and store them: the
 * floors, copy_floor, main.stages, sweep.n=N, sweep.within, held and
 * held.wide.
 * l2_bytes is the device's L2. Returns 0, or -1 on out of memory or when
 * no copy was timed (no copy floor). */
int fs_conclude(results *r, double l2_bytes);

#endif
