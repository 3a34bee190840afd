/* answer.h: a run's answers and the summary every run ends with. Each
 * section stores its answers once, where it measures them, as derived
 * entries "answer.<key>" of its own section (name: what is answered; value
 * and unit: the figure; text: the figure's line, with its interval or
 * verdict, or a sentence). The summary prints them from the results alone,
 * one answer a line (wrapped where a sentence is longer), each with the
 * docs page of its section, then the checks and the exit code. */
#ifndef ANSWER_H
#define ANSWER_H

#include <stdio.h>
#include "core/results.h"

/* The most lines the summary takes, its leading blank line included: a
 * user's `tail -15` is the summary. */
#define AN_MAX_LINES 15

/* What an answer's key begins with: "answer.<key>". */
#define AN_PREFIX "answer."

/* Store the answer "answer.<key>" of section (replacing one of that key):
 * name, value and unit as given, the text printf-formatted (cut at 1023
 * characters). Returns the entry (valid until the next res_derive), or
 * NULL on out of memory (a message printed). */
res_derived *an_store(results *r, const char *section, const char *key, const char *name,
                      double value, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* v with about three significant digits ("8051", "504", "0.0626", "3.01"),
 * "-" for NaN, into buf of len bytes; returns buf. */
char *an_num(char *buf, size_t len, double v);

/* What the summary says beside the answers. */
typedef struct an_run {
    double seconds;     /* the run's wall time */
    int exit_code;      /* the exit code the run ends with */
    size_t width;       /* the columns a line may take (tb_width) */
    const results *answers;     /* whose answers: NULL for the run's own; a
                                   node run's first device's results */
    int device;         /* with answers: that device's ordinal */
} an_run;

/* Print the summary to f: a blank line, a heading, the answers of the
 * sections named (in that order; each section's answers in the order
 * stored), the sections skipped, and the line of checks, run time and exit
 * code; at most AN_MAX_LINES lines, none wider than run->width (a longer
 * word stands alone). An answer whose text is a sentence (a capital
 * first, a full stop last) is printed alone; any other follows its name
 * ("driver JIT: PTX of ..."). Answers beyond the budget are counted on the last
 * answer line ("and N more: ..."). Reads the results only. */
void an_summary(FILE *f, const results *r, const char *const *sections, size_t nsections,
                const an_run *run);

#endif
