/* opt.h: the machinery of the option table (cli.c's, with the entries' rows
 * from sections/list.h): a row's columns, reading argv through the table
 * (names matched exactly, a suggestion for a misspelled one), reading a
 * value as its row says, and printing the rows as --help does. The rows
 * set the fields of one struct cli_opts (run/cli_opts.h), by their offsets:
 * this module reads no field by name, and includes no header of the
 * harness. */
#ifndef OPT_H
#define OPT_H

#include <stddef.h>
#include <stdio.h>

struct cli_opts;

/* What reading an option returns (the same values as cli_parse's CLI_OK,
 * CLI_EXIT, CLI_USAGE). */
enum { OPT_OK = 0, OPT_EXIT = 1, OPT_USAGE = 2 };

/* How a row reads its value (the parse column). */
typedef enum opt_kind {
    OPT_K_FLAG,     /* no value: the int field set to 1 */
    OPT_K_TEXT,     /* the value as it is, into a const char * field */
    OPT_K_INT,      /* a whole number in [lo, hi], into an int or double field */
    OPT_K_NUM,      /* a finite number in [lo, hi], into a double field */
    OPT_K_ABOVE,    /* a finite number above lo and at most hi, into a double field */
    OPT_K_WORD,     /* one of the row's words, its value into an enum field */
    OPT_K_LIST,     /* appended to an array of const char *, with its count */
    OPT_K_CALL      /* the row's own parser */
} opt_kind;

/* Where a row applies (the scope column; cli.c checks it). */
typedef enum opt_scope {
    OPT_S_ANY,      /* the built-in sections and -- CMD alike */
    OPT_S_SECTIONS, /* the built-in sections: refused with -- CMD */
    OPT_S_ENTRY,    /* read by one entry of the list (entry): a section's is
                       refused with -- CMD and when --section leaves the
                       section out, the node run's with -- CMD, the program's
                       without -- CMD */
    OPT_S_NEEDS     /* only with another row (needs), and so where it applies */
} opt_scope;

/* Flags (the flags column). */
enum {
    OPT_REPEAT = 1,     /* may be given more than once (a list) */
    OPT_UNIQUE = 2,     /* ... but each value once */
    OPT_PARENT = 4,     /* kept by a node run's parent: not passed to its
                           device children (the node run sets it, or only the
                           parent writes its file) */
    OPT_HIDDEN = 8,     /* the harness's own, to its children: not in --help */
    OPT_EMPTY_OK = 16,  /* its value may be empty (its parser says what is wrong) */
    OPT_OPTIONAL = 32   /* its value is optional (--help[=all]) */
};
/* Its one-letter form (-h), in the flags column: for a row whose value is
 * optional or that takes none (given with a letter, it has none). */
#define OPT_LETTER(c) ((unsigned)(c) << 8)

typedef struct opt_row opt_row;

/* A row's own parser (OPT_CALL): read arg (NULL where none was given) into
 * o. Returns OPT_OK; OPT_EXIT after printing to out (--help, --version);
 * OPT_USAGE after printing what is wrong to err (opt_fail). */
typedef int opt_parse_fn(const opt_row *r, const char *arg, struct cli_opts *o, FILE *out,
                         FILE *err);

/* How --help lays an entry out: its text's column, and the least gap after
 * the label. */
typedef struct opt_layout {
    int col, gap;
} opt_layout;

/* A row's own help printer (OPT_HELP_BY): prints its entry from its label
 * and text (its help or brief column) in layout l; names are the section
 * names, for --section's. */
typedef void opt_help_fn(FILE *out, const opt_layout *l, const char *label, const char *text,
                         const char *const *names);

/* A word an OPT_K_WORD row takes, and the value it stores. */
typedef struct opt_word {
    const char *word;
    int value;
} opt_word;

/* One option. */
struct opt_row {
    const char *name;       /* the option without "--", matched exactly */
    const char *value;      /* its value's name in --help (MODE); NULL: it takes none */
    opt_kind kind;
    size_t field;           /* offsetof the cli_opts field it sets */
    int real;               /* OPT_K_INT: the field is a double */
    size_t count;           /* OPT_K_LIST: offsetof the count */
    size_t max;             /* OPT_K_LIST: the most values (the array's size) */
    double lo, hi;          /* OPT_K_INT, NUM, ABOVE (and an OPT_CALL_RANGE): the range */
    const char *what;       /* ... what the value is, for the error ("seconds");
                               OPT_K_LIST: its values ("modules") */
    const opt_word *words;  /* OPT_K_WORD: the words, to a NULL word */
    opt_parse_fn *parse;    /* OPT_K_CALL */
    opt_scope scope;
    int entry;              /* OPT_S_ENTRY: the entry (cli_section) */
    int needs;              /* OPT_S_NEEDS: the row it needs (its index) */
    const char *why;        /* OPT_S_ENTRY, NEEDS: how it belongs, for the error
                               ("is read by" section loading, "applies to" a
                               program, "applies to --source compiles") */
    unsigned flags;         /* OPT_REPEAT ..., OPT_LETTER */
    int common;             /* its place in the short help (--help), 0: not there */
    const char *brief;      /* its text in the short help */
    const char *help;       /* its text in --help=all: lines, each after the first
                               indented to the text's column; a line "FORM\tTEXT"
                               is a form of its own (--help=all) */
    opt_help_fn *help_fn;   /* prints its entry instead (run-time figures) */
};

/* The columns of a row, X(ID, name, value, parse, scope, flags, common, help):
 *   ID      the row's name in the enum of cli.c's table (CLI_O_ID)
 *   name    the option without "--"
 *   value   its value's name in --help ("MODE"), or NULL: it takes none
 *   parse   how its value is read, and the field of cli_opts it sets (the
 *           compiler checks the field's type against the kind):
 *             OPT_FLAG(f)                     an int, set to 1
 *             OPT_TEXT(f)                     a const char *: the value
 *             OPT_INT(f, lo, hi, what)        a whole number in [lo, hi], in an
 *                                             int or a double; the error says
 *                                             "expected WHAT, LO to HI"
 *             OPT_NUM(f, lo, hi, what)        a number in [lo, hi], in a double
 *             OPT_ABOVE(f, lo, hi, what)      a number above lo, at most hi
 *             OPT_WORD(f, words)              an enum: one of words (opt_word)
 *             OPT_LIST(f, n, what)            appended to array f, counted in n
 *             OPT_CALL(fn)                    its own parser (opt_parse_fn)
 *             OPT_CALL_RANGE(fn, lo, hi, what)  ... which reads a range
 *                                             (opt_read_int, opt_read_num)
 *   scope   OPT_ANY, OPT_SECTIONS, OPT_OWNED(ENTRY, why): read by the list's
 *           entry (SEC_LIST's ID), OPT_NEEDS(ID, why): only with row ID
 *   flags   0, or OPT_REPEAT, OPT_UNIQUE, OPT_PARENT, OPT_HIDDEN, OPT_EMPTY_OK,
 *           OPT_OPTIONAL, OPT_LETTER(c) joined with |
 *   common  OPT_RARE, or OPT_COMMON(place, brief): in the short help, at place
 *   help    its text in --help=all (a string), or OPT_HELP_BY(fn, text)
 * OPT_ROW makes the row's initializer from them. */
#define OPT_ROW(id, name_, value_, parse, scope, flags_, common, help_) \
    { .name = (name_), .value = (value_), parse, scope, .flags = (flags_), common, .help = help_ },

/* The field f of struct cli_opts: a pointer to it (never evaluated), and
 * its offset where its type passes the test ok (else a compile error). */
#define OPT_FIELD(f) (&((struct cli_opts *)0)->f)
#define OPT_CHECKED(f, ok) (offsetof(struct cli_opts, f) + 0 * sizeof(char[(ok) ? 1 : -1]))
#define OPT_AT(f, T) OPT_CHECKED(f, _Generic(OPT_FIELD(f), T *: 1, default: 0))
#define OPT_AT_NUMBER(f) OPT_CHECKED(f, _Generic(OPT_FIELD(f), int *: 1, double *: 1, default: 0))
#define OPT_AT_ENUM(f) OPT_CHECKED(f, sizeof *OPT_FIELD(f) == sizeof(int))
#define OPT_IS_REAL(f) _Generic(OPT_FIELD(f), double *: 1, default: 0)

#define OPT_FLAG(f) .kind = OPT_K_FLAG, .field = OPT_AT(f, int)
#define OPT_TEXT(f) .kind = OPT_K_TEXT, .field = OPT_AT(f, const char *)
#define OPT_INT(f, lo_, hi_, what_) .kind = OPT_K_INT, .field = OPT_AT_NUMBER(f), \
    .real = OPT_IS_REAL(f), .lo = (lo_), .hi = (hi_), .what = (what_)
#define OPT_NUM(f, lo_, hi_, what_) .kind = OPT_K_NUM, .field = OPT_AT(f, double), \
    .lo = (lo_), .hi = (hi_), .what = (what_)
#define OPT_ABOVE(f, lo_, hi_, what_) .kind = OPT_K_ABOVE, .field = OPT_AT(f, double), \
    .lo = (lo_), .hi = (hi_), .what = (what_)
#define OPT_WORD(f, words_) .kind = OPT_K_WORD, .field = OPT_AT_ENUM(f), .words = (words_)
#define OPT_LIST(f, n, what_) .kind = OPT_K_LIST, .field = OPT_AT(f[0], const char *), \
    .count = OPT_AT(n, size_t), .max = sizeof *OPT_FIELD(f) / sizeof *OPT_FIELD(f[0]), \
    .what = (what_)
#define OPT_CALL(fn) .kind = OPT_K_CALL, .parse = (fn)
#define OPT_CALL_RANGE(fn, lo_, hi_, what_) .kind = OPT_K_CALL, .parse = (fn), \
    .lo = (lo_), .hi = (hi_), .what = (what_)
#define OPT_ANY .scope = OPT_S_ANY
#define OPT_SECTIONS .scope = OPT_S_SECTIONS
#define OPT_OWNED(e, why_) .scope = OPT_S_ENTRY, .entry = CLI_SEC_##e, .why = (why_)
#define OPT_NEEDS(id, why_) .scope = OPT_S_NEEDS, .needs = CLI_O_##id, .why = (why_)
#define OPT_RARE .common = 0
#define OPT_COMMON(place, brief_) .common = (place), .brief = (brief_)
/* The help column of a row with its own help printer: the text, then the
 * printer (the row's initializer takes both, one after the other). */
#define OPT_HELP_BY(fn, text) (text), .help_fn = (fn)

/* A usage error: "harness: <fmt ...>" and a line on --help, to err.
 * Returns OPT_USAGE. */
int opt_fail(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a whole decimal integer in [lo, hi] into *v (nothing else in s, no
 * leading space). Returns 0, or -1. */
int opt_int(const char *s, long long lo, long long hi, long long *v);

/* Parse a finite decimal number in [lo, hi] into *v. Returns 0, or -1. */
int opt_num(const char *s, double lo, double hi, double *v);

/* arg as a whole number in row r's range (lo to hi) into *v. Returns
 * OPT_OK, or OPT_USAGE after printing "--NAME=ARG: expected WHAT, LO to HI"
 * to err. */
int opt_read_int(const opt_row *r, const char *arg, long long *v, FILE *err);

/* arg as a number in row r's range into *v (OPT_K_ABOVE: above its low
 * end). Returns OPT_OK, or OPT_USAGE after printing the option, the value
 * and the range to err. */
int opt_read_num(const opt_row *r, const char *arg, double *v, FILE *err);

/* Where reading argv puts what it finds. */
typedef struct opt_dest {
    struct cli_opts *o;     /* the fields the rows set */
    int *seen;              /* for each row, the times it was given */
    const char **keep;      /* the words of each option given but an OPT_PARENT
                               row's, in order (for a node run's device child) */
    size_t *nkeep, maxkeep;
} opt_dest;

/* Read argv[1..argc-1] through the table rows[0..n-1]: each option by its
 * exact name ("--name", "--name=VALUE", or "--name VALUE" for a row that
 * needs a value; "-h" for a row's letter), given at most once (but a list),
 * its value not empty (but OPT_EMPTY_OK), set in d->o as its parse column
 * says, counted in d->seen and its words kept in d->keep. A word that is
 * not an option ("-" is not) is refused once every option is read. Returns
 * OPT_OK, or the first OPT_EXIT or OPT_USAGE (printed; an unknown option
 * with the one it most likely means). */
int opt_read_argv(const opt_row *rows, size_t n, int argc, char **argv, const opt_dest *d,
                  FILE *out, FILE *err);

/* The layouts of --help=all (every row: its text at column 26) and of
 * --help (the common rows: at column 24). */
extern const opt_layout opt_usage_layout, opt_brief_layout;

/* One entry of --help in layout l: two spaces, the label, spaces to the
 * text's column (at least l->gap), the text's lines, each after the first
 * indented to the column; a line "FORM\tTEXT" has a lead of its own. */
void opt_help_entry(FILE *out, const opt_layout *l, const char *label, const char *text);

/* The lead of an entry (two spaces, the label, spaces to the column) into
 * buf. Returns buf. */
const char *opt_help_lead(char *buf, size_t len, const opt_layout *l, const char *label);

/* The entries of rows[0..n-1] as --help=all prints them (brief 0: every row
 * but the hidden, in order) or --help (brief 1: the common rows, by their
 * places). names: the section names, for the rows' help printers. */
void opt_print_rows(FILE *out, const opt_row *rows, size_t n, int brief,
                    const char *const *names);

/* A completion script for shell ("bash" or "zsh") written to out from
 * rows[0..n): every option not hidden, "=" after one that takes a value;
 * a value completed from the row's words (OPT_K_WORD), from words for the
 * row named word_opt (the sections), as a file or directory where the
 * value's name says FILE, DIR, PATH or CMD; after "--", a command and its
 * files. Returns 0, or -1 for another shell (nothing written). */
int opt_completion(FILE *out, const opt_row *rows, size_t n, const char *shell,
                   const char *word_opt, const char *const *words);

#endif
