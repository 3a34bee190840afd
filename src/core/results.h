/* results.h: the one results object of a run: the environment record,
 * every measurement the sections append, and the conclusions (derived
 * entries) computed once from them. Sections never print; each section's
 * printer (src/sections/X/X_table.c) turns this object into its tables, and
 * report.c into JSON and CSV. */
#ifndef RESULTS_H
#define RESULTS_H

#include <stddef.h>
#include <stdio.h>
#include "core/stats.h"

#define RES_SCHEMA_VERSION 1

/* Which state a figure was taken in: never an unnamed mix. */
typedef enum res_state {
    RES_FIRST_LAUNCH,   /* the first launch of a kernel in this process */
    RES_L2_COLD,        /* L2 flushed before each sample */
    RES_WARM,           /* after warm-up, caches as the previous run left them */
    RES_PROCESS         /* a whole child process (spawn to exit, or a part of it) */
} res_state;

/* Name of a state as written in tables and files ("first-launch", ...). */
const char *res_state_name(res_state s);

typedef struct res_meas {
    char *section;      /* "stopwatches" */
    char *name;         /* "events, kernel, after warm-up" */
    char *key;          /* short stable identifier inside the section: "row4" */
    char *region;       /* where the timer starts and stops, in words */
    res_state state;
    char *unit;         /* "ms", "us", "GB/s" */
    double *samples;    /* every sample, in the order taken */
    size_t nsamples;
    st_summary stats;   /* st_summarize(samples) */
    long batch;         /* units of work per timed region (samples are per unit) */
    long n;             /* elements, 0 where not meaningful */
    double bytes;       /* bytes moved per unit of work, 0 where not meaningful */
    double flops;       /* floating-point operations per unit, 0 where not meaningful */
    double *mhz;        /* the SM clock just before each sample (NaN where not read),
                           nsamples values; NULL when no clock was read */
    int noisy;          /* the stopping rule ended on a limit, interval still too wide */
    int host_only;      /* the region times the CPU alone (no driver call in it): a
                           figure of the host, not of the device (a node run's
                           summary leaves it out; comparisons use it as the host's
                           speed) */
    size_t low_clock;   /* samples taken below 75% of the device's SM clock */
} res_meas;

typedef enum res_kind { RES_STR, RES_NUM } res_kind;

typedef struct res_kv {
    char *key;
    res_kind kind;
    char *str;          /* RES_STR; NULL prints as null */
    double num;         /* RES_NUM */
} res_kv;

typedef struct res_skip {
    char *section;
    char *reason;
} res_skip;

/* A validation or invariant, passed or failed: the report prints every one. */
typedef struct res_check {
    char *section;
    char *what;         /* "vectorAdd, first launch, all elements vs CPU" */
    int passed;
    char *detail;       /* "16777827 of 16777827 elements match", or the first bad one */
} res_check;

/* A conclusion computed once, where it is measured (the copy floor, a
 * verdict, a reading): printers, the JSON and the scripts read it from here
 * and never recompute it. value is its figure (NaN when it is a text only),
 * text its words ("" when none); fields are the figures it rests on, by
 * name ("n", "p", "threshold_pct"): names of [a-z0-9_.] only. */
#define RES_MAX_FIELDS 16
typedef struct res_derived {
    char *section;      /* "fusion" */
    char *key;          /* "copy_floor", stable inside the section */
    char *name;         /* what it is, in words */
    double value;
    char *unit;         /* "GB/s", "" */
    char *text;         /* "LAZY higher", "at the floor", "" */
    size_t nfields;
    char *fkey[RES_MAX_FIELDS];
    double fval[RES_MAX_FIELDS];
} res_derived;

struct results;

/* One device of a node run (--device=all|LIST): who it is, and everything
 * its child measured (its own environment, checks, skips, conclusions and
 * measurements), owned here. */
typedef struct res_device {
    int ordinal;
    char *name;         /* "NVIDIA H200" */
    char *pci_bus_id;   /* "00000000:19:00.0" */
    char *uuid;         /* "GPU-..." */
    struct results *own;
} res_device;

typedef struct results {
    res_kv *env;        /* environment record, in insertion order */
    size_t nenv, capenv;
    res_meas *m;        /* measurements, in the order taken */
    size_t nm, capm;
    res_skip *skip;     /* sections that did not run, and why */
    size_t nskip, capskip;
    res_check *check;   /* validations and invariants, in the order checked */
    size_t ncheck, capcheck;
    res_derived *d;     /* conclusions, in the order derived */
    size_t nd, capd;
    res_device *dev;    /* a node run's devices, in the order run (none otherwise) */
    size_t ndev, capdev;
    int incomplete;     /* 1 when the run stopped before all sections finished */
} results;

/* Initialise an empty results object. */
void res_init(results *r);

/* Free everything the object owns; the struct may be re-initialised. */
void res_free(results *r);

/* Set an environment field (replacing an earlier value of the same key).
 * Strings are copied; val may be NULL. Returns 0, or -1 on out of memory. */
int res_env_str(results *r, const char *key, const char *val);
int res_env_num(results *r, const char *key, double val);

/* Look up an environment field; NULL when absent. */
const res_kv *res_env_get(const results *r, const char *key);

/* The string of environment field key where it holds a value that was read:
 * NULL when it is absent, not a string, or "unknown: <why>" (a source that
 * could not answer it, as the program's device fields say). */
const char *res_env_known(const results *r, const char *key);

/* Append a measurement. All strings and the samples are copied and the stats
 * computed. batch < 1 is stored as 1. Returns the stored measurement (valid
 * until the next append), or NULL on out of memory. */
res_meas *res_add(results *r, const char *section, const char *key,
                  const char *name, const char *region, res_state state,
                  const char *unit, const double *samples, size_t nsamples);

/* One more sample v of the measurement (section, key): appended and the
 * stats recomputed when it exists (name, region, state and unit are then
 * ignored; a clock record gets NaN for it), otherwise a new measurement of
 * that one sample. For figures taken once per process or per round and
 * gathered over rounds. Returns the measurement (valid until the next
 * append), or NULL on out of memory (nothing changed). */
res_meas *res_append(results *r, const char *section, const char *key,
                     const char *name, const char *region, res_state state,
                     const char *unit, double v);

/* Append a measurement of section, key, name and region (copied) that
 * holds the samples of m bit for bit, with what they were taken with:
 * state, unit, batch, n, bytes, flops, the clock readings, noisy,
 * host_only, low_clock; the stats are recomputed from the same samples, so
 * they are m's. For a figure that is another's measurement under a name of
 * its own (the same work at the same n, not timed again). m may be one of
 * r's own measurements (it may move: do not use m after the call). Returns
 * the new measurement (valid until the next append), or NULL on out of
 * memory (nothing changed). */
res_meas *res_add_copy(results *r, const res_meas *m, const char *section, const char *key,
                       const char *name, const char *region);

/* Attach per-sample SM clock readings (m->nsamples of them, copied) to m.
 * Returns 0, or -1 on out of memory (m unchanged). */
int res_set_clock(res_meas *m, const float *mhz);

/* Find a measurement by section and key; NULL when absent. */
const res_meas *res_find(const results *r, const char *section, const char *key);

/* Record that a section was skipped and why (copied). Returns 0 or -1. */
int res_skip_section(results *r, const char *section, const char *reason);

/* Record a validation or invariant (strings copied). Returns 0 or -1. */
int res_check_add(results *r, const char *section, const char *what, int passed,
                  const char *detail);

/* Store a conclusion (strings copied; unit and text may be NULL, stored as
 * ""); one of the same section and key is replaced. Returns the entry (valid
 * until the next res_derive), or NULL on out of memory (nothing changed). */
res_derived *res_derive(results *r, const char *section, const char *key,
                        const char *name, double value, const char *unit,
                        const char *text);

/* Add a supporting figure to d (replacing one of the same name). Returns 0,
 * or -1 on out of memory, a full entry (RES_MAX_FIELDS) or a name with a
 * character outside [a-z0-9_.] (d unchanged). */
int res_derived_field(res_derived *d, const char *name, double v);

/* A conclusion by section and key; NULL when absent. */
const res_derived *res_derived_find(const results *r, const char *section, const char *key);

/* A supporting figure of d by name; NaN when d is NULL or has none. */
double res_derived_num(const res_derived *d, const char *name);

/* Add a device to a node run: its identity (strings copied; NULL as "")
 * and an empty results object of its own, which it returns (valid while r
 * lives; NULL on out of memory, nothing changed). res_free frees it. */
results *res_add_device(results *r, int ordinal, const char *name, const char *pci_bus_id,
                        const char *uuid);

/* Number of failed checks. */
size_t res_failed(const results *r);

/* The line form of a results object, for a child harness to hand its
 * results to its parent over a pipe (both ends are this same binary):
 *   env <TAB> key <TAB> s|n|- <TAB> value      (string, number, null)
 *   skip <TAB> section <TAB> reason
 *   check <TAB> section <TAB> what <TAB> 0|1 <TAB> detail
 *   m <TAB> section <TAB> key <TAB> name <TAB> region <TAB> state <TAB> unit
 *     <TAB> batch <TAB> n <TAB> bytes <TAB> flops <TAB> v1,v2,... (%.17g)
 *     <TAB> noisy 0|1 <TAB> low_clock <TAB> host_only 0|1 <TAB> mhz1,mhz2,...
 *     (the clock readings, one per sample; empty when none were read)
 *   d <TAB> section <TAB> key <TAB> name <TAB> value <TAB> unit <TAB> text
 *     <TAB> name1=v1,name2=v2,... (the fields; empty when none)
 *   incomplete <TAB> 0|1
 * one record per line; in strings, backslash, tab, newline and CR are
 * written as \\, \t, \n, \r. Numbers round-trip exactly. Returns 0, or -1
 * when a write to f failed. */
int res_write_lines(FILE *f, const results *r);

/* Append the records of `text` (as res_write_lines writes them) to r: env
 * fields set, skips, checks and measurements appended (stats recomputed),
 * incomplete or-ed in. Lines that are not records (empty, or starting with
 * another word) are ignored. Returns the number of records read, or -1 on a
 * malformed record (nothing after it is read; what came before stays) with
 * a one-line reason in why. */
int res_read_lines(results *r, const char *text, char *why, size_t whylen);

#endif
