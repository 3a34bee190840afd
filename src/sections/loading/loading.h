/* loading.h: what section loading's measurement (loading.c) and its printer
 * (loading_table.c) share: the modules it measured, and --compare-loading's
 * eager-against-lazy verdicts, computed once and stored as derived entries. */
#ifndef LOADING_H
#define LOADING_H

#include <stddef.h>
#include <stdio.h>
#include "core/results.h"
#include "core/schema.h"
#include "core/verdict.h"
#include "run/section_ctx.h"

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

/* The verdicts of --compare-loading (verdict.h, vd_compare_one): for every
 * module, format ("cubin", "ptx") and compare step where both modes have
 * the measurement "eager.<module>.<fmt>.<step>" and "lazy.<...>", one
 * derived entry in section "loading" under vd_key ("compare.harness.cubin.
 * load"), at the environment's threshold (vd_threshold). Returns 0, or -1
 * on out of memory (the verdicts stored so far stay). */
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

/* ------------------------------------ --module (loading_modules.c) --- */

/* The compute capability arch ("sm_90a" -> 9.0) names, or sm_90 when arch
 * is NULL or not sm_XY; returns it as 90. */
int lm_target(const char *arch, int *major, int *minor);

/* Read every --module file (modfile) and store its inventory for the
 * target (--arch, else sm_90; env "module_target_arch") as derived entries
 * in section "loading":
 *   module.<i>             value: images the driver is handed; name: the
 *                          path; text: its kind ("host ELF", "cubin for
 *                          sm_90", "PTX 9.0 for sm_90", "fatbin"); fields
 *                          file_bytes, fatbins, entries, elf, ptx,
 *                          compressed, no_code, ptx_only (fatbins whose
 *                          best code for the target is none, PTX),
 *                          relfatbins, section_offset, section_bytes,
 *                          rel_bytes
 *   module.<i>.fatbin.<j>  value: bytes; text: its entries ("ELF sm_90
 *                          5,536; PTX compute_90 zstd 400 (1,422)");
 *                          fields offset, entries, use (0 none, 1 PTX,
 *                          2 SASS for the target)
 *   module.<i>.relfatbin.<j>  the same for __nv_relfatbin (use 0)
 *   module.<i>.arch.<sm_90a|compute_90>  value: entries; text: "ELF" or
 *                          "PTX"; fields stored_bytes, raw_bytes, compressed
 * and the measurement module.<i>.read (ms). Requires: c->o->nmodules > 0.
 * Returns SEC_OK; SEC_USAGE for a file that cannot be read (the one-line
 * reason printed and recorded as the section's skip); SEC_FAILED on out of
 * memory. */
int lm_inventory(sec_ctx *c);

/* The child's part (--child=results with --module=PATH, one path): every
 * image loaded through both APIs in this process's mode, measured as
 * "mod.<step>" and "lib.<step>" (lm_print's table lists them), per-image
 * load times "mod.fb.<j>.load", the CUresult of each image refused by
 * another error "<api>.fb.<j>.refused" (counted, not a failed call: the
 * other images are loaded all the same), and checks: the images the reader
 * predicts no code for are those the driver refused with
 * CUDA_ERROR_NO_BINARY_FOR_GPU; every function is loaded after cuFuncLoad.
 * From the parent: HARNESS_MODULE_SKIP ("3,7") names images to leave out
 * ("<api>.skipped" counts them), HARNESS_MODULE_PROGRESS a file where the
 * image being loaded is named before its load. Returns a SEC_ code. */
int lm_measure(sec_ctx *c);

/* The parent's part: the inventory, then --rounds children per module
 * (with --compare-loading, o->compare_rounds a mode, the modes alternating),
 * JIT cache disabled, gathered as "[eager.|lazy.]module.<i>.<key>"; for a module with images
 * that hold only PTX for the target, --rounds EAGER pairs over a private
 * cache, "cache.empty.module.<i>.<key>" then "cache.warm.module.<i>.<key>";
 * then lm_conclude. A child that dies (or runs past --child-timeout)
 * inside an image's load is named with that image, a failed check, and a
 * fresh child measures the module again without it, as do all later ones
 * ("module.<i>.skipped": value the images left out, text what happened);
 * images refused by another error make a failed check and one line. Both
 * exit 1 at the end, the rest measured. Returns a SEC_ code: SEC_NO_GPU
 * after the inventory when there is no driver. */
int lm_run(sec_ctx *c);

/* The conclusions, from what the rounds gathered: for every module and
 * prefix ("", "eager.", "lazy."), the ten slowest images by median load
 * time, "<prefix>module.<i>.slowest.<rank>" (value: ms; fields fatbin,
 * share_pct of the load total); "module.<i>.where": a sentence on where
 * the cost went (the mode's or both modes' load, later function loads and
 * memory), fields of the medians it rests on; "module.<i>.refused" where
 * images were refused by another error (value: how many; text: "image 3:
 * CUDA_ERROR_INVALID_IMAGE (200)", each); and with both modes, the
 * eager-against-lazy verdicts of vd_compare_one for the steps of
 * lm_compare_steps (module "module.<i>", fmt "mod" or "lib"). Returns 0 or
 * -1 (out of memory). */
int lm_conclude(results *r);

/* The keys of --module (schema.h): "module.<i>.read", and the children's
 * figures, "[<mode>.]module.<i>.<api>.<step>". */
void lm_schema(sch_out *o);

#define LM_COMPARE_NSTEPS 7
extern const char *const lm_compare_steps[LM_COMPARE_NSTEPS];

/* The --module tables: the inventory and, where children ran, each
 * module's steps in each mode and the conclusions. */
void lm_print(FILE *f, const results *r);

#endif
