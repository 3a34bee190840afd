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

/* The section's figures (ld_keys, loading.c: key, unit, state, name,
 * region): a module's, "<module>.<word>.<step>" (its label and format), the
 * library path's, "library.<word>.<step>"; under --compare-loading after
 * LD_EAGER or LD_LAZY. */
enum { LD_K_LOAD, LD_K_GET_FIRST, LD_K_LAUNCH_HOST, LD_K_LAUNCH_EVENTS, LD_K_GET_OTHERS,
       LD_K_FUNC_LOAD, LD_K_TOTAL, LD_K_MEM_LOAD, LD_K_MEM_ALL, LD_K_K, LD_K_LOADED_LOAD,
       LD_K_LOADED_GET, LD_K_LOADED_LAUNCH, LD_K_LOADED_OTHERS, LD_K_LOADED_ALL, LD_K_WARM,
       LD_K_LIB_LOAD, LD_K_LIB_GET_KERNEL, LD_K_LIB_GET_FUNCTION, LD_K_LIB_LAUNCH_HOST,
       LD_K_LIB_LAUNCH_EVENTS, LD_K_JIT, LD_NKEYS };
extern const sch_key ld_keys[LD_NKEYS];
#define LD_MOD_PRE "<pre><module>.<word>."
#define LD_LIB_PRE "<pre>library.<word>."
#define LD_EAGER "eager."
#define LD_LAZY "lazy."

/* The key of figure k (LD_K_) of module label in format fmt (label
 * unused for the library path's), after pre (NULL: none), into buf. */
void ld_key(char *buf, size_t len, const char *pre, int k, const char *label, const char *fmt);

/* The step of figure k: its key after the module's or library's part ("load"). */
const char *ld_step(int k);

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
extern const int ld_compare_steps[LD_COMPARE_NSTEPS];     /* LD_K_ */

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
 * figures, "[<mode>.]module.<i>.<api>.<step>"; lm_schema_derived, its
 * derived entries (in section loading's derived list, after sch_derived). */
void lm_schema(sch_out *o);
void lm_schema_derived(sch_out *o);

/* --module's keys: "<pre>module.<mi>." then suffix (NULL: "<pre>module.<mi>"), into buf. The API
 * passes and the steps after them, as the children store them (lm_figs). */
void lm_key(char *buf, size_t len, const char *pre, size_t mi, const char *suffix);
#define LM_MODULE "module.<i>"
#define LM_MOD "mod"             /* cuModuleLoadDataEx */
#define LM_LIB "lib"             /* cuLibraryLoadData */
#define LM_CACHE_EMPTY "cache.empty."
#define LM_CACHE_WARM "cache.warm."
#define LM_LOADED "loaded"
#define LM_REFUSED_NOBIN "refused_nobin"
#define LM_REFUSED_PTX "refused_ptx"
#define LM_REFUSED_OTHER "refused_other"
#define LM_SKIPPED "skipped"
#define LM_LOAD "load"
#define LM_JIT "jit"
#define LM_JIT_IMAGES "jit_images"
#define LM_FUNCTIONS "functions"
#define LM_GET "get"
#define LM_LOADED_GET "loaded_get"
#define LM_FUNC_LOAD "func_load"
#define LM_LOADED_ALL "loaded_all"
#define LM_MEM_LOAD "mem_load"
#define LM_MEM_ALL "mem_all"
#define LM_RSS_BASE "rss_base"
#define LM_RSS_LOAD "rss_load"
#define LM_RSS_ALL "rss_all"
#define LM_LATER "later"
/* Derived entries after "module.<i>." */
#define LM_D_WHERE "where"
#define LM_D_REFUSED "refused"
#define LM_D_SKIPPED "skipped"

#define LM_COMPARE_NSTEPS 7
extern const char *const lm_compare_steps[LM_COMPARE_NSTEPS];

/* The --module tables: the inventory and, where children ran, each
 * module's steps in each mode and the conclusions. */
void lm_print(FILE *f, const results *r);

#endif
