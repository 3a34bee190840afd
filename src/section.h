/* section.h: the table of sections: each section's measurement, printer,
 * answers and child entry point, in the order they run; with what an entry
 * is written against: the run's context (section_ctx.h) and its children
 * (section_child.h). */
#ifndef SECTION_H
#define SECTION_H

#include <stdio.h>
#include "cli.h"
#include "results.h"
#include "section_child.h"
#include "section_ctx.h"

/* The sections' measurements. Each returns a SEC_ code. */
int sec_visible(sec_ctx *c);
int sec_stopwatches(sec_ctx *c);
int sec_crossover(sec_ctx *c);
int sec_loading(sec_ctx *c);
int sec_jit(sec_ctx *c);
int sec_launch(sec_ctx *c);
int sec_fusion(sec_ctx *c);

/* The sections' printers (src/sections/X_table.c): each prints its tables
 * from the results alone, nothing when the section stored nothing. */
void vi_print(FILE *f, const results *r);
void sw_print(FILE *f, const results *r);
void xo_print(FILE *f, const results *r);
void ld_print(FILE *f, const results *r);
void jt_print(FILE *f, const results *r);
void la_print(FILE *f, const results *r);
void fs_print(FILE *f, const results *r);

/* The sections' answers (answer.h): each stores its "answer.<key>"
 * entries from its results alone; main calls it once, after the section
 * ran (whatever it returned: what was measured is answered). */
void sw_answers(results *r);
void ld_answers(results *r);
void jt_answers(results *r);
void la_answers(results *r);
void fs_answers(results *r);

/* The launch section's scheduling-mode children (--child=sched-*): launch +
 * synchronize under one mode, results as lines. Returns the exit code. */
int sec_launch_child(const cli_opts *o, long long t_main_ns);

/* The jit section's children (--child=jit-*, order-*): each does its one
 * job and prints its results as lines. Returns the process exit code. */
int sec_jit_child(const cli_opts *o, long long t_main_ns);

/* The visible section's child (--child=visible, sections/visible.h): in a
 * fresh process whose CUDA_VISIBLE_DEVICES the parent set, libcuda,
 * cuInit, cuDeviceGetCount and the primary context on every visible
 * device, each timed on the host clock, results as lines. Returns the
 * process exit code: 0, 1 when a call failed (reported; the lines hold
 * what was timed before it), 3 without a driver or a usable device. */
int sec_visible_child(const cli_opts *o, long long t_main_ns);

/* The stopwatches section's children: --child=waterfall (row 1: the
 * lesson's whole program once, printing its waterfall on stdout) and
 * --child=first-launch (the first launch taken apart in one mode, results
 * as lines: sections/firstlaunch.h). Returns the process exit code. */
int sec_stopwatches_child(const cli_opts *o, long long t_main_ns);

/* The one table of sections, in the order they run (indexed by
 * cli_section): the name --section takes, the measurement, the printer, and
 * the child kinds the section starts with the entry point that runs one of
 * them (CLI_CHILD_NONE-terminated; child NULL when it starts none of its
 * own), and whether it measures the node rather than one device. */
#define SEC_MAX_CHILDREN 6
typedef struct sec_def {
    const char *name;
    int (*run)(sec_ctx *c);
    void (*print)(FILE *f, const results *r);
    cli_child children[SEC_MAX_CHILDREN];
    int (*child)(const cli_opts *o, long long t_main_ns);
    int node_level;     /* 1: measures the node, not one device: a node run
                           (--device=all|LIST) runs it once, in the parent */
    void (*answer)(results *r);     /* its answers, NULL when it stores none */
} sec_def;

extern const sec_def sec_table[CLI_NSECTIONS];

/* The CLI_NSECTIONS names of the table's entries, in order, as one array
 * (for cli_parse); the same array on every call. */
const char *const *sec_names(void);

/* The section that owns child kind k, or NULL (CLI_CHILD_NONE, results). */
const sec_def *sec_of_child(cli_child k);

#endif
