/* firstlaunch.h: the first launch taken apart (section stopwatches): the
 * surplus of vectorAdd's first launch over a warm one, in each loading
 * mode, split by experiments that each remove one candidate. Each round
 * runs one fresh child per mode (--child=first-launch), LAZY and EAGER
 * interleaved; the conclusions are computed from a results object alone
 * (the section stores them; the unit tests call fl_conclude on results
 * built by hand) and the printer formats them.
 *
 * One child, in order, on one context and stream (events and the host
 * clock around each launch: tm_once; "warm": tm_events):
 *   load, get        host clock around module 1's cuModuleLoadDataEx and
 *                    its cuModuleGetFunction of vectorAdd
 *   first            vectorAdd's first launch in the process (module 1;
 *                    inputs copied in, the output written by cuMemsetD32)
 *   warm             the same, warm, launches queued back to back (row 4)
 *   once             the same, warm, one launch on an idle stream
 *   module2          vectorAdd's first launch from a second module
 *   unloaded         ... from a third, its handle from
 *                    cuModuleEnumerateFunctions (no get)
 *   funcload         ... from a fourth, the same, after cuFuncLoad
 *   runtime          ... from a fifth: cuModuleGetFunction and the launch
 *                    timed together, as cudaLaunchKernel's first call does
 *   second           vectorScale's first launch (module 1, never launched)
 *   second_warm, second_once   vectorScale warm, as warm and once
 *   fresh            vectorAdd warm, once, into an output allocated just
 *                    before (never written)
 * Each launch's event figure is "<step>", its host clock around
 * cuLaunchKernel "<step>.enqueue" and to cuStreamSynchronize returning
 * "<step>.sync"; the loading states are counts (cuFuncIsLoaded). The
 * parent keeps each child's figure as one sample of
 * "first.<mode>.<key>" (mode "lazy", "eager"); sample i of every
 * measurement of a mode comes from the same child.
 *
 * The conclusions, in section "stopwatches" (value, unit; text; fields):
 *   first.<mode>.part.<part>   a part of the surplus, "ms": the median
 *       over that mode's children of the per-child difference below
 *       (events); text "above zero", "below zero" or "spans zero" (its
 *       interval), "one child" (no interval); fields ci_low, ci_high,
 *       ci_level, n, share (of the surplus's median; NaN for the parts
 *       outside the surplus), enqueue and sync (the same difference on
 *       the host clocks; NaN where a term has none); the surplus also
 *       largest (the index in fl_parts of its part with the largest
 *       median) and largest_ms
 *     surplus         first - warm
 *     alone           once - warm: a launch on its own, whose events hold
 *                     its enqueue
 *     context         first - module2: the process's first launch
 *     load            module2 - funcload: loading the function before the
 *                     launch (cuFuncLoad) against the get's loading
 *     module          (funcload - once) - (second - second_once): the
 *                     module's first launch, beyond a second kernel's
 *     left            second - second_once: left unexplained (alone +
 *                     context + load + module + left = surplus, child by
 *                     child)
 *     load_in_launch  unloaded - funcload: the load inside the launch
 *     get_in_launch   runtime - module2: the get inside the launch
 *     fresh           fresh - once: an output never written before
 *   first.<mode>.loading   where vectorAdd was loaded in that mode: the
 *       functions module 1 had loaded after its load, "functions"; text
 *       "the module load", "cuModuleGetFunction", "the first launch",
 *       "not loaded" or "differs between children"; fields functions,
 *       loaded_load, add_loaded_load, loaded_get, loaded_launch,
 *       unloaded_loaded (the enumerated handle before its launch),
 *       funcload_loaded (before cuFuncLoad), load_ms, get_ms, n
 *   first.where.<what>     EAGER against LAZY (both modes ran): value
 *       eager - lazy medians, "ms"; text "EAGER higher", "LAZY higher"
 *       (the two intervals apart) or "intervals overlap"; fields eager,
 *       lazy, eager_low, eager_high, lazy_low, lazy_high; what is load,
 *       get (host clock) or surplus (first.<mode>.part.surplus)
 */
#ifndef FIRSTLAUNCH_H
#define FIRSTLAUNCH_H

#include <stdio.h>
#include "core/results.h"
#include "core/schema.h"
#include "run/cli.h"

struct sec_ctx;

/* The modes a round runs, in key form ("lazy", "eager"), with the names
 * the driver reports for them ("LAZY", "EAGER"). */
#define FL_NMODES 2
enum { FL_LAZY, FL_EAGER };
extern const char *const fl_modes[FL_NMODES];
extern const char *const fl_mode_names[FL_NMODES];

/* The keys: a child's figure "<key>" is kept by the parent as
 * FL_FIRST "<mode>.<key>"; the conclusions are FL_FIRST "<mode>." FL_PART
 * "<part>", FL_FIRST "<mode>." FL_LOADING and FL_FIRST FL_WHERE ".<what>"
 * (fl_key, fl_part_key, fl_where_key build them; fl_schema declares the
 * patterns from the same constants). A launch's figures come in threes:
 * "<step>", "<step>" FL_ENQUEUE, "<step>" FL_SYNC. */
#define FL_FIRST "first."
#define FL_PART "part."
#define FL_LOADING "loading"
#define FL_WHERE "where"
#define FL_ENQUEUE ".enqueue"
#define FL_SYNC ".sync"

/* A child's figures (fl_keys), in the order it stores them; each launch's
 * _ENQ and _SYNC follow its events figure. */
enum {
    FL_K_LOAD, FL_K_GET, FL_K_LOADED_GET,
    FL_K_FIRST, FL_K_FIRST_ENQ, FL_K_FIRST_SYNC, FL_K_LOADED_LAUNCH, FL_K_WARM,
    FL_K_ONCE, FL_K_ONCE_ENQ, FL_K_ONCE_SYNC,
    FL_K_MODULE2_GET, FL_K_MODULE2, FL_K_MODULE2_ENQ, FL_K_MODULE2_SYNC,
    FL_K_FUNCTIONS, FL_K_LOADED_LOAD, FL_K_UNLOADED_LOADED,
    FL_K_UNLOADED, FL_K_UNLOADED_ENQ, FL_K_UNLOADED_SYNC,
    FL_K_FUNCLOAD_MS, FL_K_FUNCLOAD_LOADED, FL_K_FUNCLOAD, FL_K_FUNCLOAD_ENQ, FL_K_FUNCLOAD_SYNC,
    FL_K_RUNTIME, FL_K_RUNTIME_ENQ, FL_K_RUNTIME_SYNC, FL_K_RUNTIME_GET,
    FL_K_SECOND, FL_K_SECOND_ENQ, FL_K_SECOND_SYNC, FL_K_SECOND_WARM,
    FL_K_SECOND_ONCE, FL_K_SECOND_ONCE_ENQ, FL_K_SECOND_ONCE_SYNC,
    FL_K_FRESH, FL_K_FRESH_ENQ, FL_K_FRESH_SYNC,
    FL_NKEYS
};
extern const sch_key fl_keys[FL_NKEYS];

/* The parts of first.<mode>.part.<part>, in the table's order: the first
 * FL_NSURPLUS after "surplus" (FL_P_SURPLUS) are the parts of the surplus. */
#define FL_NPARTS 9
#define FL_NSURPLUS 5
#define FL_P_SURPLUS 0
extern const char *const fl_parts[FL_NPARTS];

/* FL_FIRST "<mode>.<what>" (mode: fl_modes' index), FL_FIRST "<mode>."
 * FL_PART "<part>" (fl_parts' index) and FL_FIRST FL_WHERE ".<what>", into
 * buf of len bytes; each returns buf. */
char *fl_key(char *buf, size_t len, int mode, const char *what);
char *fl_part_key(char *buf, size_t len, int mode, int part);
char *fl_where_key(char *buf, size_t len, const char *what);

/* Declare the children's figures as the parent keeps them (FL_FIRST
 * "<mode>."), or, after sch_derived, the conclusions above. */
void fl_schema(sch_out *o);

/* The child (--child=first-launch): the steps above in this process's
 * mode, its results printed as lines (res_write_lines). Returns 0 when
 * every step ran (a failed check is a check record, not an exit code), 1
 * on a driver, compile or memory error (reported), 3 without a GPU. */
int fl_child(const cli_opts *o);

/* The parent: --rounds rounds of one child per mode, the first mode of
 * each round alternating, each child checked for the mode in effect;
 * their figures kept as above, their failed checks copied, then
 * fl_conclude. Returns 0, 1 when a child did not run or failed a check
 * (recorded), -1 when one could not be started or memory ran out. */
int fl_rounds(struct sec_ctx *c);

/* Store the conclusions above from the first.<mode>.* measurements of r
 * (a mode without them stores none). Returns 0, or -1 on out of memory. */
int fl_conclude(results *r);

/* The table: each step in both modes, the parts and where the cost went;
 * nothing when no conclusion is stored. */
void fl_print(FILE *f, const results *r);

/* The table's label of a part (fl_parts), for the other tables that name
 * one; part itself when it is not one. */
const char *fl_part_label(const char *part);

#endif
