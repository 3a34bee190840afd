/* section.h: the table of sections: each section's measurement, printer,
 * answers and child entry point, in the order they run; with what an entry
 * is written against: the run's context (section_ctx.h) and its children
 * (section_child.h). */
#ifndef SECTION_H
#define SECTION_H

#include <stdio.h>
#include "core/results.h"
#include "core/schema.h"
#include "run/cli.h"
#include "run/section_child.h"
#include "run/section_ctx.h"

/* Where an entry runs (sections/list.h's scope column). */
typedef enum sec_scope {
    SEC_SCOPE_DEVICE,       /* a section of one device: in a run of one device, or
                               in each device's child of a node run */
    SEC_SCOPE_NODE_LEVEL,   /* a section that measures the node, not one device:
                               a node run (--device=all|LIST) runs it once, in the
                               parent */
    SEC_SCOPE_NODE,         /* the node run itself, in its parent: plans the
                               devices, runs each one's sections in a child;
                               not traced as a section (its devices are), its
                               time named "devices", its devices' tables
                               (nd_print) in place of the roofline */
    SEC_SCOPE_PROGRAM       /* the user's program (-- CMD), in place of the
                               sections: printed as it is, not fitted to the
                               terminal (it holds the program's output), and
                               not in "Seconds by section" */
} sec_scope;

/* An entry's part in the roofline (tb_roofline, table.h: every warm kernel
 * with a byte and flop model against a bandwidth roof and the FP32 peak):
 *   roof    the key of its derived entry whose value is the bandwidth roof
 *           in GB/s, the best a copy reaches (NULL: it stores none); the
 *           first entry in the list's order that stored one gives it
 *   points  the prefix of the keys of its rows that are points (NULL: every
 *           row of it with a model) */
typedef struct sec_roof {
    const char *roof;
    const char *points;
} sec_roof;

/* The prototypes of every entry point in the list (sections/list.h), so
 * that each is compiled against it. */
#define SEC_DECLARE(id, name, scope, plan, run, print, answer, child, schema, roof) \
    sec_status plan(sec_ctx *c);                                        \
    sec_status run(sec_ctx *c);                                         \
    void print(FILE *f, const results *r);                              \
    void answer(results *r);                                            \
    int child(const cli_opts *o, long long t_main_ns);                  \
    void schema(sch_out *o);                                            \
    extern const sec_roof roof;
SEC_LIST(SEC_DECLARE)
#undef SEC_DECLARE

/* The table of entries, in the order they run (indexed by cli_section):
 * sections/list.h's columns. */
typedef struct sec_def {
    const char *name;
    sec_scope scope;
    sec_status (*plan)(sec_ctx *c);     /* before any entry runs */
    sec_status (*run)(sec_ctx *c);      /* its measurement */
    void (*print)(FILE *f, const results *r);   /* its tables, from the results
                                           alone; nothing when it stored
                                           nothing */
    void (*answer)(results *r);         /* its "answer.<key>" entries, from its
                                           results alone; main calls it once,
                                           after it ran (whatever it returned) */
    int (*child)(const cli_opts *o, long long t_main_ns); /* runs one of the
                                           child kinds it owns; the process's
                                           exit code */
    void (*schema)(sch_out *o);         /* the keys it can write (--schema) */
    const sec_roof *roof;               /* its part in the roofline */
} sec_def;

extern const sec_def sec_table[CLI_NENTRIES];

/* What stands in the list where an entry has none: no plan (returns
 * SEC_OK), no printer (prints nothing), no answers, no child kinds (never
 * called: returns SEC_FAILED), no keys, no roof (its rows with a model are
 * points all the same). */
sec_status sec_no_plan(sec_ctx *c);
void sec_no_print(FILE *f, const results *r);
void sec_no_answer(results *r);
int sec_no_child(const cli_opts *o, long long t_main_ns);
void sec_no_schema(sch_out *o);
extern const sec_roof sec_no_roof;

/* The names of the table's entries, in order, as one array (its first
 * CLI_NSECTIONS for cli_parse); the same array on every call. */
const char *const *sec_names(void);

/* Print every entry's declared keys as JSON (--schema, schema.h) to f.
 * Returns 0, or -1 when a write failed. */
int sec_print_schema(FILE *f);

/* The entry that owns child kind k (sections/list.h), or NULL (the kinds
 * main runs itself). */
const sec_def *sec_of_child(cli_child k);

/* 1 when the command line asks for entry i: -- CMD for the program alone;
 * else --section for the sections (all by default) and --device=all|LIST
 * for the node run. */
int sec_asked(const cli_opts *o, cli_section i);

/* 1 when entry i runs in this process: it is asked for, and a node run's
 * parent runs the node run and the sections that measure the node, each
 * device's child (and a run of one device) the others. */
int sec_runs_here(const cli_opts *o, cli_section i);

/* The word entry i's time goes by, in the environment ("seconds_<word>")
 * and the report's "Seconds by section": its name; the node run's is
 * "devices" (its devices' children). */
const char *sec_timed_name(cli_section i);

#endif
