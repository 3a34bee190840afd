/* table.h: the generic pieces of the human tables on stdout (configuration,
 * rows, states, intervals, noisy marks, rigor, roofline, checks), shared by
 * the section printers in src/sections/X/X_table.c. Reads the results only. */
#ifndef TABLE_H
#define TABLE_H

#include <stdio.h>
#include "core/results.h"
#include "run/cli.h"
#include "run/layout.h"

/* Print the configuration block (environment record and options). */
void tb_config(FILE *f, const results *r, const cli_opts *o);

/* Print one section: the reason it was skipped (if it was), its tables
 * (print), then its rigor lines (noisy measurements, the SM clock). */
void tb_section(FILE *f, const results *r, const char *name,
                void (*print)(FILE *, const results *));

/* Print the roofline of every timed kernel with a byte and flop model
 * (warm, in ms; of an entry whose sec_roof names its points, those only,
 * run/section.h), against the bandwidth roof an entry stored (the first
 * in the list's order, its sec_roof) and the FP32 peak; nothing when no
 * entry stored a roof. */
void tb_roofline(FILE *f, const results *r);

/* Print the checks (failed ones in full) and a one-line summary. */
void tb_checks(FILE *f, const results *r);

/* An environment field as a string (dflt when absent or not a string), or
 * as a number (NaN when absent or not a number). */
const char *tb_env_str(const results *r, const char *key, const char *dflt);
double tb_env_num(const results *r, const char *key);

/* A table of measurements, laid out for tb_width() (run/layout.h): a
 * number, a label (wraps in its column), the median in ms, the state, and
 * the interval with its sample count, batching and noisy marks ("1 run"
 * for one sample). tb_rows_new returns NULL on out of memory (the others
 * then do nothing); tb_rows_add adds nothing when m is NULL; tb_rows_end
 * prints the table and frees it. */
ly_table *tb_rows_new(void);
void tb_rows_add(ly_table *t, const char *num, const res_meas *m, const char *label);
void tb_rows_end(FILE *f, ly_table *t);

/* The median of "<section>/<key>", or NaN when absent. */
double tb_med(const results *r, const char *section, const char *key);

/* A figure that may be missing: "-" right-aligned in width in its place. */
void tb_num(FILE *f, int width, int prec, double v);

/* A paragraph: the printf-formatted text broken at spaces into lines of at
 * most width characters (a longer word stands alone), the first line
 * starting with first, the others with indent; each line ends in a
 * newline. Text beyond 4095 characters is cut. */
void tb_wrap(FILE *f, const char *first, const char *indent, size_t width, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The columns a line of the tables may take: COLUMNS where it is a number
 * from 40 to 1000, else the width of the terminal stdout is, else 100
 * (stdout is a file or a pipe). */
size_t tb_width(void);

/* Make tb_width() answer w whatever COLUMNS and the terminal say (the
 * Markdown's tables, at 100 columns); 0 undoes it. */
void tb_set_width(size_t w);

/* in shortened in the middle to at most width characters ("abc...xyz",
 * "..." in the middle), into out of len bytes; in as it is when it fits.
 * For names in a column: the full name stays in the JSON and CSV. Returns
 * out. */
char *tb_shorten(char *out, size_t len, const char *in, size_t width);

/* Print text to f with no line wider than width where it can: a table (a
 * run of rows with two spaces between their columns) loses blank columns
 * from its widest gutters first, then its widest column (a name) is
 * shortened in the middle in every row, then gutters go down to one space;
 * the columns stay aligned. A line of prose is broken at spaces, its
 * continuation two spaces further in; a failed check's line ("  FAILED ...")
 * stays whole, for grep. The full names stay in the JSON and CSV. Returns
 * 0, or -1 on out of memory (what was read is printed as it
 * is). */
int tb_fit(FILE *f, const char *text, size_t width);

#endif
