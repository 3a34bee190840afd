/* visible.h: section "visible": the cold start (loading libcuda, cuInit,
 * the first contexts) against the number of devices the process sees.
 * cuInit and the first context initialise every visible device, so a
 * process that uses one GPU on a node of eight pays for eight unless
 * CUDA_VISIBLE_DEVICES restricts it. This section measures how much.
 *
 * The parent makes no driver call: it runs first of all sections, before
 * any of them loads libcuda in this process, and starts fresh children
 * (--child=visible), each with CUDA_VISIBLE_DEVICES set:
 *   the first child   this process's own visibility (CUDA_VISIBLE_DEVICES
 *                     as the parent has it, or unset): its count is N
 *   count k           k = 1, 2, 4, 8, ... below N, and N itself (all of
 *                     1..N when N <= 4): CUDA_VISIBLE_DEVICES = the first k
 *                     comma-separated entries of the parent's (copied as
 *                     text: UUIDs stay UUIDs), else "0,1,...,k-1"
 * --rounds rounds of one child per count, the counts rotated by one each
 * round (the first child runs once, before round 1). --device plays no
 * part: every child opens device 0 of those it sees, as a process that
 * uses one GPU does.
 *
 * One child times on its host clock (CLOCK_MONOTONIC), as parts that
 * follow one another, and stores one sample of each (state process):
 *   load        dlopen of libcuda.so.1 + cuGetProcAddress of every entry point
 *   init        cuInit(0)
 *   count       cuDeviceGetCount
 *   ctx0        cuDeviceGet(0) + cuDevicePrimaryCtxRetain + cuCtxSetCurrent
 *   ctx_others  the same for devices 1..k-1, one after another, together
 *               (absent when the child sees one device)
 *   ready       from before the dlopen to device 0's context current: the
 *               cold start of a process that uses device 0 alone (load +
 *               init + count + ctx0)
 *   total       from before the dlopen to the last context current: the
 *               sum of the parts (process start and exit not included)
 *   devices     the count cuDeviceGetCount answered ("devices")
 * The parent keeps each child's figure as one more sample of
 * "k<k>.<figure>" ("k1.init", "k2.ctx_others", "k8.total"), so sample i
 * of a count comes from its child of round i; a child that failed, or
 * counted other than k devices, adds none (a failed check names it). The
 * first child's figures are one process's, which row N measures --rounds
 * times: they are kept as the entry first_child, not as measurements.
 *
 * The entries, all in section "visible" (value, unit; text; fields):
 *   devices         N, "devices"; text "CUDA_VISIBLE_DEVICES=<the
 *                   parent's>" or "CUDA_VISIBLE_DEVICES unset"; fields n,
 *                   rounds, counts (how many counts the rounds run)
 *   first_child     the first child's total, "ms" (NaN when it did not
 *                   reach every context); text as devices'; fields load,
 *                   init, count, ctx0, ctx_others (N > 1), ready, total:
 *                   its figures above, where it stored them
 *   k<k>.per_device (k > 1) the contexts on devices 1..k-1 per extra
 *                   device: median of k<k>.ctx_others / (k - 1), "ms";
 *                   fields k, ctx_others (its median)
 *   saving          what restricting to one visible device saves a
 *                   process that makes a context on every device it sees:
 *                   N > 1, median of k<N>.total - median of k1.total, "ms";
 *                   text "intervals apart" (the two medians' intervals do
 *                   not meet), "intervals overlap" or "one round"; fields n,
 *                   pct (the saving over total_n, in percent), total_1,
 *                   total_n, total_1_low, total_1_high, total_n_low,
 *                   total_n_high. N == 1: NaN, the text says there is
 *                   nothing to restrict; a count without figures: NaN, the
 *                   text names it.
 *   saving_one_gpu  the same of a process that uses device 0 alone: from
 *                   k<N>.ready and k1.ready (its cold start does not hold
 *                   the other devices' contexts, only what cuInit and the
 *                   rest pay for them); fields n, pct, ready_1, ready_n,
 *                   ready_1_low, ready_1_high, ready_n_low, ready_n_high.
 */
#ifndef VISIBLE_H
#define VISIBLE_H

#include <stddef.h>
#include "core/results.h"
#include "core/schema.h"

/* The figures of each count k above, in the order the child stores them
 * (the parts first, in the order it times them), each kept by the parent
 * as "k<k>.<key>" (vi_key); --schema declares them with the prefix
 * VI_KP "<i>.". The printer reads them through this table too. */
#define VI_KP "k"
enum { VI_K_LOAD, VI_K_INIT, VI_K_COUNT, VI_K_CTX0, VI_K_CTX_OTHERS, VI_K_READY, VI_K_TOTAL,
       VI_K_DEVICES, VI_NKEYS };
#define VI_NPARTS (VI_K_CTX_OTHERS + 1)
extern const sch_key vi_keys[VI_NKEYS];

/* The entries above, declared as --schema prints them: per_device is one
 * count's ("k<k>.per_device", declared with VI_KP "<i>."), the others the
 * section's. */
enum { VI_D_DEVICES, VI_D_FIRST_CHILD, VI_D_PER_DEVICE, VI_D_SAVING_ONE_GPU, VI_D_SAVING,
       VI_ND };
extern const sch_key vi_derived[VI_ND];

/* Count k's key "k<k>.<what>" into buf of len bytes; returns buf. */
char *vi_key(char *buf, size_t len, int k, const char *what);

/* The most counts one plan holds (1, 2, 4, ... 2^30 and N). */
#define VI_MAX_COUNTS 32

/* The counts a node of n visible devices is measured at, in increasing
 * order, into k (room for cap): 1..n when n <= 4, else 1, 2, 4, ... below
 * n, and n. Returns how many (0 when n < 1; at most cap). */
size_t vi_counts(int n, int *k, size_t cap);

/* The CUDA_VISIBLE_DEVICES of count k into buf (len bytes): the first k
 * comma-separated entries of parent, copied as text, or "0,1,...,k-1" when
 * parent is NULL. Returns 0, or -1 with a reason in *why (a static string)
 * when k < 1, parent has fewer than k entries, or the text does not fit. */
int vi_visible_prefix(const char *parent, int k, char *buf, size_t len, const char **why);

/* Store the conclusions above (per_device, saving_one_gpu, saving) from
 * the section's "devices" entry and k<k>.* measurements in r; nothing when
 * "devices" is absent. Returns 0, or -1 on out of memory. */
int vi_conclude(results *r);

#endif
