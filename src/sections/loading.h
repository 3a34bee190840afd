/* loading.h: what section loading's measurement (loading.c) and its printer
 * (loading_table.c) share: the modules it measured, and --compare-loading's
 * eager-against-lazy verdicts, computed once and stored as derived entries. */
#ifndef LOADING_H
#define LOADING_H

#include <stddef.h>
#include "results.h"

/* Module labels: at most LD_MAX_LABELS of fewer than LD_LABEL_LEN bytes. */
#define LD_MAX_LABELS 32
#define LD_LABEL_LEN 32

/* The module labels section loading measured, in order of first sight,
 * from the keys "<pre><label>.cubin.load" (pre "", "eager." or "lazy."),
 * the library path ("library", which has a line of its own) left out.
 * Writes at most max labels; returns how many. */
size_t ld_labels(const results *r, const char *pre, char labels[][LD_LABEL_LEN], size_t max);

/* The steps --compare-loading gives a verdict on, in the table's order. */
#define LD_COMPARE_NSTEPS 8
extern const char *const ld_compare_steps[LD_COMPARE_NSTEPS];

/* The U test's significance level a verdict needs, and the children a mode
 * needs for its noise to be known. */
#define LD_COMPARE_ALPHA 0.01
#define LD_COMPARE_MIN 3

/* The smallest change in percent a verdict calls (--threshold), from the
 * environment field "compare_threshold_pct"; 20 when it is absent. */
double ld_compare_threshold(const results *r);

/* The key of one verdict: "compare.<module>.<fmt>.<step>" (fmt "cubin" or
 * "ptx"; "compare.harness.cubin.load"), in section "loading". */
void ld_compare_key(char *buf, size_t len, const char *module, const char *fmt,
                    const char *step);

/* The verdicts of --compare-loading, from the measurements
 * "eager.<module>.<fmt>.<step>" and "lazy.<module>.<fmt>.<step>" (one sample
 * per child), by scripts/compare's noise rule (loading.c, ld_compare_verdict):
 * for every module, format and compare step where both exist, one derived
 * entry in section "loading" under ld_compare_key, with
 *   text   "no difference", "LAZY higher", "EAGER higher" or "unclear"
 *   value  p, the two-sided Mann-Whitney U test of the two sample sets
 *   fields p, threshold_pct, alpha, eager_median, lazy_median,
 *          diff (lazy_median - eager_median),
 *          noise (what |diff| is judged against, in the figure's unit: the
 *          larger of the two modes' st_half_band at 0.95, at least twice the
 *          environment's max_noise of the lower median),
 *          eager_noise_pct, lazy_noise_pct (each mode's half band, percent
 *          of its median; 0 with fewer than LD_COMPARE_MIN children),
 *          eager_n, lazy_n
 * An earlier verdict of the same key is replaced. Returns 0, or -1 on out
 * of memory (the verdicts stored so far stay). */
int ld_compare_verdicts(results *r);

/* Where each measured module's functions were loaded, from the loading
 * states its children read (the figures "<label>.<fmt>.k", .loaded_load,
 * .loaded_get, .loaded_launch, .loaded_others, .loaded_all; label as
 * ld_labels(r, "") gives it, "eager.harness" under --compare-loading): one
 * derived entry in section "loading" under ld_loaded_by_key, with
 *   value  the functions loaded after the module load (by
 *          cuModuleEnumerateFunctions' handles, before any get)
 *   text   "the module load" (all K), "partly the module load",
 *          "cuModuleGetFunction" (none after the load, the first after its
 *          get), "the first launch", "not the first launch", or "differs
 *          between children" (a state that was not the same in all)
 *   fields k, loaded_get, loaded_launch, loaded_others, loaded_all
 * Returns 0, or -1 on out of memory. */
int ld_loaded_by(results *r);

/* The key of one: "loaded_by.<label>.<fmt>". */
void ld_loaded_by_key(char *buf, size_t len, const char *label, const char *fmt);

#endif
