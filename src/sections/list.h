/* sections/list.h: the one list of what a run can run (the sections, the
 * node run, the user's program), of the kinds of child process, and of the
 * rows each entry adds to the option table, as X-macros, like the driver's
 * entry points in cudadrv.h. The enums cli_section and cli_child
 * (run/cli_opts.h), the words --section and --child take, the sections
 * named in --help (cli.c), the table of sections and the prototypes of
 * every entry point (section.h, section.c), and the entries' options
 * (cli.c) all come from it.
 *
 * Adding a section NAME takes a folder of its own and one line here:
 *   1. sections/NAME/NAME.c: sec_status sec_NAME(sec_ctx *c), its measurement
 *      (it opens what it needs with sec_begin, run/section_ctx.h), and,
 *      where it answers, void xx_answers(results *r) (core/answer.h), and
 *      void xx_schema(sch_out *o), from the table of the keys it writes and,
 *      after sch_derived, of its derived entries (core/schema.h);
 *   2. sections/NAME/NAME_table.c: void xx_print(FILE *f, const results
 *      *r), its tables from the results alone;
 *   3. a line in SEC_LIST below, in the place it runs (before node and
 *      program); where it starts children of its own, their kinds in
 *      SEC_CHILD_LIST, owned by it, and its child entry point in its line;
 *      where it has options of its own, sections/NAME/NAME_opts.h with
 *      its rows, included below and named in SEC_OPT_LIST;
 *   4. docs/NAME.md, the page the summary names beside its answers, linked
 *      from docs/README.md;
 *   5. a row for xx_ and the folder's .c files in docs/architecture.md's
 *      prefix map, and NAME/ in docs/build.md's layout (tests/test_docs.sh
 *      checks both against src/); on docs/architecture.md, NAME where it
 *      lists the entries.
 * Both files include run/section.h, whose prototypes come from this list,
 * so the compiler checks each entry point against it; the Makefile builds
 * every file of each folder of sections/, and tests/layers.sh holds that
 * each folder is an entry of this list. This file includes only the
 * entries' rows headers (NAME_opts.h), which include nothing. */
#ifndef SECTIONS_LIST_H
#define SECTIONS_LIST_H

#include "sections/loading/loading_opts.h"
#include "sections/jit/jit_opts.h"
#include "sections/launch/launch_opts.h"
#include "sections/program/program_opts.h"
#include "sections/snapshot/snapshot_opts.h"

/* The entries, in the order they run:
 *   X(ID, name, scope, plan, run, print, answer, child, schema, roof)
 *   ID      the enums' suffix: CLI_SEC_ID
 *   name    the word --section takes and the results' section name
 *   scope   where it runs (sec_scope, section.h): DEVICE, a section of one
 *           device; NODE_LEVEL, a section that measures the node (once, in
 *           a node run's parent); NODE, the node run itself
 *           (--device=all|LIST); PROGRAM, the user's program (-- CMD)
 *   plan    sec_status (sec_ctx *): before any entry runs
 *   run     sec_status (sec_ctx *): the measurement
 *   print   void (FILE *, const results *): its tables, from the results
 *   answer  void (results *): its answers (answer.h), after it ran
 *   child   int (const cli_opts *, long long t_main_ns): runs one of the
 *           child kinds it owns (SEC_CHILD_LIST); the exit code
 *   schema  void (sch_out *): the measurement keys it can write, from its
 *           table of them (schema.h); --schema prints them
 *   roof    const sec_roof (section.h): its part in the roofline: the
 *           derived entry that holds the bandwidth roof, which of its rows
 *           are points
 * sec_no_plan, sec_no_print, sec_no_answer, sec_no_child, sec_no_schema and
 * sec_no_roof stand where an entry has none. The sections come first: --section names those entries
 * whose scope SEC_IS_SECTION_ marks. */
#define SEC_LIST(X)                                                                     \
    X(VISIBLE, "visible", NODE_LEVEL, sec_no_plan, sec_visible, vi_print, sec_no_answer, \
      sec_visible_child, vi_schema, sec_no_roof)                                        \
    X(STOPWATCHES, "stopwatches", DEVICE, sec_no_plan, sec_stopwatches, sw_print,       \
      sw_answers, sec_stopwatches_child, sw_schema, sec_no_roof)                        \
    X(CROSSOVER, "crossover", DEVICE, sec_no_plan, sec_crossover, xo_print,             \
      sec_no_answer, sec_no_child, xo_schema, sec_no_roof)                              \
    X(LOADING, "loading", DEVICE, sec_no_plan, sec_loading, ld_print, ld_answers,       \
      sec_no_child, ld_schema, sec_no_roof)                                             \
    X(JIT, "jit", DEVICE, sec_no_plan, sec_jit, jt_print, jt_answers, sec_jit_child,    \
      jt_schema, sec_no_roof)                                                           \
    X(LAUNCH, "launch", DEVICE, sec_no_plan, sec_launch, la_print, la_answers,          \
      sec_launch_child, la_schema, sec_no_roof)                                         \
    X(FUSION, "fusion", DEVICE, sec_no_plan, sec_fusion, fs_print, fs_answers,          \
      sec_no_child, fs_schema, fs_roof)                                                 \
    X(SNAPSHOT, "snapshot", DEVICE, sn_plan, sec_snapshot, sn_print, sn_answers,        \
      sec_snapshot_child, sn_schema, sec_no_roof)                                       \
    X(NODE, "node", NODE, nd_plan, nd_run, sec_no_print, sec_no_answer,                 \
      nd_devices_child, nd_schema, sec_no_roof)                                         \
    X(PROGRAM, "program", PROGRAM, sec_no_plan, pg_run, pg_print, sec_no_answer,        \
      sq_hold_child, pg_schema, sec_no_roof)

/* 1 for the scopes of the entries --section names. */
#define SEC_IS_SECTION_DEVICE 1
#define SEC_IS_SECTION_NODE_LEVEL 1
#define SEC_IS_SECTION_NODE 0
#define SEC_IS_SECTION_PROGRAM 0

/* 1 for the scope of the entry whose options need a command after "--". */
#define SEC_IS_PROGRAM_DEVICE 0
#define SEC_IS_PROGRAM_NODE_LEVEL 0
#define SEC_IS_PROGRAM_NODE 0
#define SEC_IS_PROGRAM_PROGRAM 1

/* The kinds of child process: the harness re-executed by itself for one
 * job (--child=WORD).
 *   X(ID, word, owner)
 *   ID      the enum's suffix: CLI_CHILD_ID
 *   word    what --child takes
 *   owner   the entry (SEC_LIST's ID) whose child entry point runs it, or
 *           NONE: main runs it (the sections asked for, results as lines) */
#define SEC_CHILD_LIST(X)                                                               \
    X(NONE, "none", NONE)                                                               \
    X(WATERFALL, "waterfall", STOPWATCHES)   /* row 1: the whole program once */        \
    X(RESULTS, "results", NONE)              /* the sections asked for; results as      \
                                                lines */                                \
    X(JIT_FIRST, "jit-first", JIT)           /* NVRTC's first and second compile in a   \
                                                process */                              \
    X(JIT_LOAD, "jit-load", JIT)             /* driver JIT of a PTX module, load to     \
                                                first launch */                         \
    X(JIT_OPT, "jit-opt", JIT)               /* CU_JIT_OPTIMIZATION_LEVEL 0..4 */       \
    X(ORDER_INIT, "order-init", JIT)         /* cuInit, then NVRTC's first compile */   \
    X(ORDER_COMPILE, "order-compile", JIT)   /* NVRTC's first compile, then cuInit */   \
    X(SCHED_SPIN, "sched-spin", LAUNCH)      /* launch + sync under CU_CTX_SCHED_SPIN */ \
    X(SCHED_YIELD, "sched-yield", LAUNCH)    /* ... CU_CTX_SCHED_YIELD */               \
    X(SCHED_BLOCKING, "sched-blocking", LAUNCH) /* ... CU_CTX_SCHED_BLOCKING_SYNC */    \
    X(FIRST, "first-launch", STOPWATCHES)    /* the first launch taken apart, one       \
                                                mode */                                 \
    X(DEVICES, "devices", NODE)              /* --device=all|LIST: list the devices     \
                                                (env lines) */                          \
    X(DEVICE, "device", NONE)                /* --device=all|LIST: one device's         \
                                                sections, results as lines */           \
    X(VISIBLE, "visible", VISIBLE)           /* libcuda, cuInit, the contexts, as it    \
                                                sees devices */                         \
    X(HOLD, "hold", PROGRAM)                 /* -- CMD --squeeze: hold the device's     \
                                                memory but a margin (squeeze_holder.h) */ \
    X(SNAPSHOT, "snapshot", SNAPSHOT)        /* a cold start, then paused while its     \
                                                parent checkpoints and restores it */

/* The entries' rows of the option table, in the list's order, each entry's
 * from its folder's NAME_opts.h:
 *   X(ID, name, value, parse, scope, flags, common, help)
 *           an option; the columns are run/opt.h's, and cli.c puts these
 *           rows between its own and its last (--quiet, --help)
 *   NO_PROFILE(ENTRY, why)
 *           --profile leaves the entry out of the run (why: what it
 *           measures instead of kernels); naming it in --section with
 *           --profile is a usage error */
#define SEC_OPT_LIST(X, NO_PROFILE)                                                     \
    LD_OPTS(X, NO_PROFILE) JT_OPTS(X, NO_PROFILE) LA_OPTS(X, NO_PROFILE)                \
    SN_OPTS(X, NO_PROFILE) PG_OPTS(X, NO_PROFILE)

/* The sections a run leaves out unless --section names them (or "all"):
 * those that take longer than the default run's budget allows.
 *   X(ID)   SEC_LIST's ID */
#define SEC_OPT_IN_LIST(X) X(SNAPSHOT)

#endif
