/* layout.c: text laid out for a width before it is printed: tables whose
 * long cells wrap in their own column or split into blocks of columns,
 * paragraphs and labelled values (layout.h). */
#include "run/layout.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A row: its cells, or a note (cell NULL). */
typedef struct ly_line {
    char **cell;
    char *note;
    int heading;        /* a note: 1 a heading (2 columns out), 0 under a row (2 in) */
} ly_line;

struct ly_table {
    size_t indent, ncols, keys;
    char *head[LY_MAX_COLS];
    ly_align align[LY_MAX_COLS];
    size_t wrap_min[LY_MAX_COLS];
    unsigned char group[LY_MAX_COLS];   /* 1: the column starts a group */
    ly_line *rows;
    size_t nrows, cap;
};

/* A column's widths: as wide as its widest cell (nat), and the narrowest
 * it may go (min). */
typedef struct ly_widths {
    size_t nat[LY_MAX_COLS], min[LY_MAX_COLS], w[LY_MAX_COLS];
} ly_widths;

/* ------------------------------------------------------ breaking text --- */

/* The next piece of s that fits room columns: the length to print, and in
 * *next where the piece after it starts (its spaces skipped). Breaks at
 * the last space that leaves the piece within room; a word longer than
 * room is left whole (hard 0: prose), or cut at room (hard 1: a cell,
 * which also breaks after the last "; " that leaves it half of room). */
static size_t ly_piece(const char *s, size_t room, int hard, const char **next)
{
    size_t n = strlen(s), cut = 0, k;
    if (room == 0) room = 1;
    if (n <= room) {
        *next = s + n;
        return n;
    }
    for (k = 1; k <= room; k++)
        if (s[k] == ' ') cut = k;
    /* In a cell, a list's item kept whole: the last "; " where it leaves
     * the line at least half full. */
    for (k = room; hard && k > room / 2; k--)
        if (s[k] == ' ' && s[k - 1] == ';') {
            cut = k;
            break;
        }
    if (cut == 0) {
        if (hard) cut = room;
        else
            for (cut = 0; s[cut] && s[cut] != ' '; cut++) {}
    }
    *next = s + cut;
    while (**next == ' ') (*next)++;
    return cut;
}

/* text from the current column (the first line's prefix, plen columns,
 * already printed) broken to width; later lines start with hang spaces. */
static void ly_wrap_text(FILE *f, size_t plen, size_t hang, size_t width, const char *text)
{
    const char *p = text, *next;
    size_t at = plen;
    while (*p == ' ') p++;
    if (!*p) {
        fputc('\n', f);
        return;
    }
    while (*p) {
        size_t n = ly_piece(p, width > at ? width - at : 1, 0, &next);
        fprintf(f, "%.*s\n", (int)n, p);
        p = next;
        if (*p) fprintf(f, "%*s", (int)hang, "");
        at = hang;
    }
}

void ly_para(FILE *f, size_t indent, size_t hang, size_t width, const char *fmt, ...)
{
    char text[8192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(f, "%*s", (int)indent, "");
    ly_wrap_text(f, indent, hang, width, text);
}

void ly_label(FILE *f, size_t indent, size_t at, size_t width, const char *label, const char *fmt, ...)
{
    char text[8192];
    va_list ap;
    size_t ll = strlen(label);

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (width < at + 24 || indent + ll + 1 > at) {
        /* No room beside the label: the value below it, further in. */
        fprintf(f, "%*s%s\n%*s", (int)indent, "", label, (int)(indent + 4), "");
        ly_wrap_text(f, indent + 4, indent + 4, width, text);
        return;
    }
    fprintf(f, "%*s%-*s", (int)indent, "", (int)(at - indent), label);
    ly_wrap_text(f, at, at, width, text);
}

/* ---------------------------------------------------------- the table --- */

ly_table *ly_new(size_t indent, size_t ncols)
{
    ly_table *t;
    size_t i;
    if (ncols < 1 || ncols > LY_MAX_COLS || !(t = calloc(1, sizeof *t))) return NULL;
    t->indent = indent;
    t->ncols = ncols;
    for (i = 0; i < ncols; i++) t->align[i] = LY_LEFT;
    return t;
}

void ly_column(ly_table *t, size_t i, const char *head, ly_align align, size_t wrap_min)
{
    if (!t || i >= t->ncols) return;
    free(t->head[i]);
    t->head[i] = head && *head ? strdup(head) : NULL;
    t->align[i] = align;
    t->wrap_min[i] = wrap_min;
}

void ly_group(ly_table *t, size_t i)
{
    if (t && i < t->ncols) t->group[i] = 1;
}

void ly_keys(ly_table *t, size_t k)
{
    if (t) t->keys = k < t->ncols ? k : t->ncols - 1;
}

/* Room for one more line of t. Returns 0, or -1 on out of memory. */
static int ly_grow(ly_table *t)
{
    ly_line *grown;
    size_t cap;
    if (t->nrows < t->cap) return 0;
    cap = t->cap ? 2 * t->cap : 16;
    if (!(grown = realloc(t->rows, cap * sizeof *grown))) return -1;
    t->rows = grown;
    t->cap = cap;
    return 0;
}

int ly_row(ly_table *t, const char *const *cells, size_t n)
{
    char **c;
    size_t i;
    if (!t || ly_grow(t) != 0 || !(c = calloc(t->ncols, sizeof *c))) return -1;
    for (i = 0; i < t->ncols; i++)
        if (!(c[i] = strdup(i < n && cells[i] ? cells[i] : ""))) {
            while (i > 0) free(c[--i]);
            free(c);
            return -1;
        }
    t->rows[t->nrows].cell = c;
    t->rows[t->nrows].heading = 0;
    t->rows[t->nrows++].note = NULL;
    return 0;
}

int ly_rowv(ly_table *t, const char *first, ...)
{
    const char *cells[LY_MAX_COLS];
    size_t n = 0;
    va_list ap;
    const char *s = first;

    va_start(ap, first);
    while (s && n < LY_MAX_COLS) {
        cells[n++] = s;
        s = va_arg(ap, const char *);
    }
    va_end(ap);
    return ly_row(t, cells, n);
}

/* A line of its own: under a row (heading 0) or heading the rows below. */
static int ly_line_of_own(ly_table *t, const char *text, int heading)
{
    char *copy;
    if (!t || ly_grow(t) != 0 || !(copy = strdup(text ? text : ""))) return -1;
    t->rows[t->nrows].cell = NULL;
    t->rows[t->nrows].heading = heading;
    t->rows[t->nrows++].note = copy;
    return 0;
}

int ly_note(ly_table *t, const char *text)
{
    return ly_line_of_own(t, text, 0);
}

int ly_heading(ly_table *t, const char *text)
{
    return ly_line_of_own(t, text, 1);
}

void ly_free(ly_table *t)
{
    size_t i, j;
    if (!t) return;
    for (i = 0; i < t->nrows; i++) {
        if (t->rows[i].cell)
            for (j = 0; j < t->ncols; j++) free(t->rows[i].cell[j]);
        free(t->rows[i].cell);
        free(t->rows[i].note);
    }
    for (i = 0; i < t->ncols; i++) free(t->head[i]);
    free(t->rows);
    free(t);
}

/* The longest word (a run without spaces) of s. */
static size_t ly_longest_word(const char *s)
{
    size_t best = 0, run = 0;
    for (; s && *s; s++) {
        run = *s == ' ' ? 0 : run + 1;
        if (run > best) best = run;
    }
    return best;
}

/* Each column's natural and narrowest width. */
static void ly_measure(const ly_table *t, ly_widths *wd)
{
    size_t i, j;
    for (j = 0; j < t->ncols; j++) {
        size_t cells = 0, head = t->head[j] ? strlen(t->head[j]) : 0;
        size_t hword = ly_longest_word(t->head[j]);
        for (i = 0; i < t->nrows; i++)
            if (t->rows[i].cell && strlen(t->rows[i].cell[j]) > cells) cells = strlen(t->rows[i].cell[j]);
        wd->nat[j] = cells > head ? cells : head;
        if (t->wrap_min[j]) {
            /* A word of the cells stays whole up to twice wrap_min. */
            size_t m = t->wrap_min[j] > hword ? t->wrap_min[j] : hword, word = 0;
            for (i = 0; i < t->nrows; i++)
                if (t->rows[i].cell && ly_longest_word(t->rows[i].cell[j]) > word)
                    word = ly_longest_word(t->rows[i].cell[j]);
            if (word > 2 * t->wrap_min[j]) word = 2 * t->wrap_min[j];
            if (word > m) m = word;
            wd->min[j] = m < wd->nat[j] ? m : wd->nat[j];
        } else
            wd->min[j] = cells > hword ? cells : hword;
        wd->w[j] = wd->nat[j];
    }
}

/* The width of the columns col[0..n) at widths w with gutters of gut. */
static size_t ly_total(const ly_table *t, const size_t *col, size_t n, const size_t *w, size_t gut)
{
    size_t i, sum = t->indent;
    for (i = 0; i < n; i++) sum += w[col[i]] + (i ? gut : 0);
    return sum;
}

/* Narrow the columns col[0..n) (in wd->w) toward width: first the headings
 * wider than their cells, then the wrapping columns, the widest first.
 * Returns the gutter (2, or 1 where 2 does not fit); the total may still be
 * over width. */
static size_t ly_narrow(const ly_table *t, const size_t *col, size_t n, ly_widths *wd, size_t width)
{
    int pass;
    for (pass = 0; pass < 2; pass++)
        while (ly_total(t, col, n, wd->w, 2) > width) {
            size_t i, best = n, room = 0;
            for (i = 0; i < n; i++) {
                size_t c = col[i], slack = wd->w[c] - wd->min[c];
                int wraps = t->wrap_min[c] != 0;
                if (!slack || wraps != (pass == 1)) continue;
                if (pass == 0 ? slack > room : wd->w[c] > room) {
                    best = i;
                    room = pass == 0 ? slack : wd->w[c];
                }
            }
            if (best == n) break;
            wd->w[col[best]]--;
        }
    return ly_total(t, col, n, wd->w, 2) > width ? 1 : 2;
}

/* The lines a cell takes in a column of width w. */
static size_t ly_height(const char *s, size_t w)
{
    const char *next;
    size_t n = 0;
    while (*s) {
        ly_piece(s, w, 1, &next);
        s = next;
        n++;
    }
    return n ? n : 1;
}

/* Print cells c[] (one per column of col[0..n)) at widths w, each wrapped
 * in its own column, as many lines as the tallest needs. */
static void ly_print_cells(FILE *f, const ly_table *t, char *const *c, const size_t *col, size_t n,
                           const size_t *w, size_t gut)
{
    const char *at[LY_MAX_COLS];
    size_t i, line, lines = 1;
    char buf[4096];         /* a line: COLUMNS is at most 1000 */

    for (i = 0; i < n; i++) {
        size_t h = ly_height(c[col[i]], w[col[i]]);
        at[i] = c[col[i]];
        if (h > lines) lines = h;
    }
    for (line = 0; line < lines; line++) {
        size_t len = 0, end = 0;
        len += (size_t)snprintf(buf, sizeof buf, "%*s", (int)t->indent, "");
        for (i = 0; i < n && len < sizeof buf; i++) {
            size_t cw = w[col[i]], k;
            const char *next = at[i];
            k = *at[i] ? ly_piece(at[i], cw, 1, &next) : 0;
            if (i) len += (size_t)snprintf(buf + len, sizeof buf - len, "%*s", (int)gut, "");
            if (len >= sizeof buf) break;
            if (t->align[col[i]] == LY_RIGHT)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%*s%.*s", (int)(cw - k), "",
                                        (int)k, at[i]);
            else
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%.*s%*s", (int)k, at[i],
                                        (int)(cw - k), "");
            at[i] = next;
        }
        end = len < sizeof buf ? len : sizeof buf - 1;
        while (end > 0 && buf[end - 1] == ' ') end--;
        fprintf(f, "%.*s\n", (int)end, buf);
    }
}

/* One block: the columns col[0..n) of every row, headings first. */
static void ly_print_block(FILE *f, const ly_table *t, const size_t *col, size_t n, ly_widths *wd,
                           size_t width)
{
    size_t gut = ly_narrow(t, col, n, wd, width), i, any = 0;
    char *head[LY_MAX_COLS];

    for (i = 0; i < t->ncols; i++) {
        head[i] = t->head[i] ? t->head[i] : (char *)"";
        if (t->head[i]) any = 1;
    }
    if (any) ly_print_cells(f, t, head, col, n, wd->w, gut);
    for (i = 0; i < t->nrows; i++) {
        if (t->rows[i].cell) ly_print_cells(f, t, t->rows[i].cell, col, n, wd->w, gut);
        else {
            size_t at = t->rows[i].heading ? (t->indent > 2 ? t->indent - 2 : 0) : t->indent + 2;
            fprintf(f, "%*s", (int)at, "");
            ly_wrap_text(f, at, at + 2, width, t->rows[i].note);
        }
    }
}

void ly_print(FILE *f, const ly_table *t, size_t width)
{
    size_t col[LY_MAX_COLS], keys, n = 0, i, j, k;
    int grouped = 0;
    ly_widths wd;

    if (!t || t->nrows == 0) return;      /* no row: no headings either */
    ly_measure(t, &wd);
    for (i = 0; i < t->ncols; i++) col[i] = i;
    if (ly_total(t, col, t->ncols, wd.min, 1) <= width) {
        ly_print_block(f, t, col, t->ncols, &wd, width);
        return;
    }
    /* Blocks: the keys, then as many of the other columns (whole groups)
     * as fit. */
    keys = t->keys ? t->keys : 1;
    for (k = 0; k < t->ncols; k++) grouped |= t->group[k];
    for (i = keys; i < t->ncols; i = j) {
        n = keys;
        for (j = i; j < t->ncols;) {
            size_t g = j + 1, m = n, c;
            while (grouped && g < t->ncols && !t->group[g]) g++;   /* the group j..g */
            for (c = j; c < g; c++) col[m++] = c;
            if (n > keys && ly_total(t, col, m, wd.min, 1) > width) break;
            n = m;
            j = g;
        }
        for (k = 0; k < t->ncols; k++) wd.w[k] = wd.nat[k];
        if (i > keys) fprintf(f, "\n");
        ly_print_block(f, t, col, n, &wd, width);
    }
}
