/* schema.h: the measurement keys a run can write, declared where they are
 * measured (one table a section), and --schema, which prints them all as
 * JSON for tests/check_json.py and the scripts. */
#ifndef SCHEMA_H
#define SCHEMA_H

#include <stddef.h>
#include <stdio.h>
#include "core/results.h"

/* One measurement key, or a pattern of keys made at run time: a word in
 * angle brackets stands for a part the run fills in, matched as
 * sch_placeholders says ("n=<N>.kernel", "<side>.wall"). name and desc
 * are the measurement's name and region, in words, where a <word> stands
 * for what the run fills in ("at n = <n>"); desc may be "". */
typedef struct sch_key {
    const char *key;
    const char *unit;
    res_state state;
    const char *name;
    const char *desc;
} sch_key;

/* The placeholders a pattern may hold, each with the regular expression
 * (Python's re syntax, whole part) it stands for. */
typedef struct sch_placeholder {
    const char *word;
    const char *regex;
    const char *what;
} sch_placeholder;
extern const sch_placeholder sch_placeholders[];
extern const size_t sch_nplaceholders;

/* Where a section writes its declarations: sch_put and sch_put_table
 * append to the --schema document, first to the section's measurement
 * keys, after sch_derived to its derived entries (the conclusions a run
 * writes under "derived": a declaration's state is not written there). */
typedef struct sch_out {
    FILE *f;
    size_t nkeys;       /* declarations written in the current list */
    int derived;        /* 1 after sch_derived: the derived list is open */
} sch_out;

/* Close the section's measurement keys and open its derived entries. */
void sch_derived(sch_out *o);

/* Write one declaration, its key prefix + k->key (prefix NULL or ""
 * for none), and its description desc when not NULL, else k->desc. */
void sch_put(sch_out *o, const char *prefix, const sch_key *k, const char *desc);

/* The decimal digits of v as a pattern's part (sch_fill), into buf
 * (SCH_NUM bytes). Returns buf. */
#define SCH_NUM 32
const char *sch_num(char *buf, long long v);

/* Store derived entry k of section in r: its unit from k, its key k->key
 * (key instead when not NULL: a pattern of k's filled in by the caller),
 * its name k->name (name instead when not NULL). Returns the entry, or
 * NULL out of memory (said on stderr). */
res_derived *sch_derive(results *r, const char *section, const sch_key *k, const char *key,
                        const char *name, double value, const char *text);

/* Write n declarations of a table, each with prefix before its key. */
void sch_put_table(sch_out *o, const char *prefix, const sch_key *k, size_t n);

/* A key (or a name) of a declared pattern, made at run time: prefix (NULL
 * or "" for none) and pattern written into buf, each <word> of the two, in
 * order, replaced by the next of the n parts; a placeholder left without a
 * part stays as it is. Returns 0, or -1 when buf (len bytes) was too short
 * or parts were left over (buf holds what fit). */
int sch_fill(char *buf, size_t len, const char *prefix, const char *pattern,
             const char *const *parts, size_t n);

/* Write the document: { "schema_version", "placeholders": {word: regex},
 * "sections": [ { "section", "keys": [ { "key", "unit", "state", "name",
 * "description" }, ... ], "derived": [ { "key", "unit", "name",
 * "description" }, ... ] }, ... ] }, a section for each entry of n names
 * with the function that writes its declarations (NULL: none).
 * Returns 0, or -1 when a write to f failed. */
int sch_print(FILE *f, const char *const *names, void (*const *decl)(sch_out *o), size_t n);

#endif
