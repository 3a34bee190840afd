/* recdir.h: the record directory of one run of a user's program: every
 * "<pid>.rec" the probe (or anything else the program runs) left there, read
 * as untrusted input (ufile.h) and checked (precord.h); the pids of its live
 * records ("<pid>.live", live.h). */
#ifndef RECDIR_H
#define RECDIR_H

#include <stddef.h>
#include "probe/precord.h"

/* The most entries of a record directory looked at, and the most bytes of
 * records one run may hold in all; past either, the rest is refused. */
#define RD_MAX_ENTRIES 65536
#define RD_MAX_TOTAL ((size_t)512 << 20)

/* What one reading found. */
typedef struct rd_result {
    size_t found;       /* entries named "<pid>.rec" (pid a positive decimal) */
    size_t read;        /* records read and accepted, in recs */
    size_t refused;     /* files refused (each told to refuse()) */
    size_t over;        /* records past the cap, neither read nor refused */
} rd_result;

/* Whether pid is a process of the run (ptree.h's pt_known, or a test's). */
typedef int (*rd_known_fn)(long pid);

/* Told each file refused: its pid and the reason, one line; pid 0 for the
 * directory as a whole (more than RD_MAX_ENTRIES entries). */
typedef void (*rd_refuse_fn)(void *arg, long pid, const char *why);

/* Read the records of directory dir into recs[0 .. max), sorted by the
 * moment the probe was loaded, then pid. The directory is opened with
 * O_NOFOLLOW (a symbolic link put in its place is refused); one this
 * process cannot open (a program changed its mode) is made 0700 again and
 * tried once more. Each "<pid>.rec" is refused, with the reason, when pid
 * is not a process of the run (known(pid) is 0: "pid 1 is not a process of
 * this run"), when ufile.h refuses the file (not a regular file, more than
 * PRC_MAX_BYTES) or prc_read refuses its text; a record of a pid already
 * read (the same process under two names) too. Past max records read, the
 * rest are counted in res->over, not read; past RD_MAX_TOTAL bytes read,
 * refused. Other names are passed over (the probe's temporary files).
 * A signal that comes while a record is parsed stops the run at once
 * (sg_call_begin); between files, at a safe point (sg_check). Returns 0, or
 * -1 with why when the directory itself cannot be read (res->found 0). */
int rd_read(const char *dir, prc_record *recs, size_t max, rd_known_fn known,
            rd_refuse_fn refuse, void *arg, rd_result *res, char *why, size_t whylen);

/* The pids of the live records in dir ("<pid>.live", pid a positive
 * decimal, known(pid) 1; at most max, of the first RD_MAX_ENTRIES entries)
 * into pids, ascending. Returns the count (0 where dir cannot be read). */
size_t rd_live_pids(const char *dir, rd_known_fn known, long *pids, size_t max);

#endif
