/* layout.h: text laid out for a width before it is printed: tables whose
 * long cells wrap inside their own column (or, where the columns cannot
 * all fit, one block of columns after another, each repeating the key
 * columns), and paragraphs with a hanging indent. The printers of the
 * tables use it with tb_width() (run/table.h); it knows no section. */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <stddef.h>
#include <stdio.h>

/* The most columns a table has. */
#define LY_MAX_COLS 16

/* How a column's cells sit in it: left or right aligned. */
typedef enum { LY_LEFT, LY_RIGHT } ly_align;

typedef struct ly_table ly_table;

/* A table of ncols columns (1 to LY_MAX_COLS) whose rows start after
 * indent spaces. Returns NULL on out of memory or a bad count; every
 * function below takes NULL and does nothing with it (ly_print prints
 * nothing), so a caller checks once, where it prints. */
ly_table *ly_new(size_t indent, size_t ncols);

/* Column i: its heading (NULL or "" for none; a long heading wraps at its
 * spaces over several heading lines), its alignment, and the narrowest it
 * may wrap to: 0 for a column that never wraps (figures: it is as wide as
 * its widest cell), else a cell longer than the column is broken at its
 * spaces onto the following lines of its row, in its own column. The
 * column stays as wide as its longest word up to twice wrap_min; a longer
 * word (a C++ name) is cut at the column's width. */
void ly_column(ly_table *t, size_t i, const char *head, ly_align align, size_t wrap_min);

/* The first k columns are the table's keys: where the other columns do not
 * fit beside them even wrapped, they are printed in blocks, one after the
 * other, each block with the key columns again (k = 0: the first column). */
void ly_keys(ly_table *t, size_t k);

/* Column i starts a group: blocks break only between groups (a side's
 * figure and its interval stay together). Without any, each column
 * after the keys is a group of its own. */
void ly_group(ly_table *t, size_t i);

/* A row of n cells (n at most the columns; the missing ones empty; a NULL
 * cell empty). The cells are copied. Returns 0, or -1 on out of memory
 * (the row is then missing). */
int ly_row(ly_table *t, const char *const *cells, size_t n);

/* The same with the cells as arguments, ended by NULL. */
int ly_rowv(ly_table *t, const char *first, ...);

/* A line of its own between rows, two columns further in than the rows,
 * broken at its spaces to the width (what a row names, a heading of the
 * rows below it); in every block. Returns 0, or -1 on out of memory. */
int ly_note(ly_table *t, const char *text);

/* A heading of the rows below it, on a line of its own two columns further
 * out than the rows (at 0 where they are nearer), broken at its spaces; in
 * every block. Returns 0, or -1 on out of memory. */
int ly_heading(ly_table *t, const char *text);

/* Print the table to f with no line wider than width where the key
 * columns and the widest unwrappable cell of each column allow it: the
 * wrapping columns narrowed (the widest first) down to their wrap_min,
 * then the gutters from two spaces to one, then blocks. No line ends in
 * spaces. A table without a row prints nothing. */
void ly_print(FILE *f, const ly_table *t, size_t width);

/* Release the table (NULL is fine). */
void ly_free(ly_table *t);

/* A paragraph: the printf-formatted text broken at spaces into lines of at
 * most width columns, the first starting with indent spaces, the others
 * with hang spaces (a word longer than the room stands alone on its line).
 * Text beyond 8191 characters is cut. */
void ly_para(FILE *f, size_t indent, size_t hang, size_t width, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A label and its value: the label from indent, the value from column at
 * (the label padded; a label as long as that or longer puts the value on
 * the next line), the value broken at spaces and continued at column at;
 * where the room beside the label is under 24 columns, the value goes on
 * the lines below the label, from indent + 4. */
void ly_label(FILE *f, size_t indent, size_t at, size_t width, const char *label,
              const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
