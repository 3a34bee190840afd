/* opt.c: the machinery of the option table: reading argv through its rows,
 * reading each value as its row says, printing the rows for --help. */
#include "run/opt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int opt_fail(FILE *err, const char *fmt, ...)
{
    va_list ap;

    fprintf(err, "harness: ");
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
    fprintf(err, "\nTry 'harness --help' for the options.\n");
    return OPT_USAGE;
}

/* ------------------------------------------------------------ values --- */

int opt_int(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    long long x;
    if (!*s || isspace((unsigned char)*s)) return -1;
    errno = 0;
    x = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int opt_num(const char *s, double lo, double hi, double *v)
{
    char *end;
    double x;
    if (!*s || isspace((unsigned char)*s)) return -1;
    errno = 0;
    x = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(x) || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int opt_read_int(const opt_row *r, const char *arg, long long *v, FILE *err)
{
    if (opt_int(arg, (long long)r->lo, (long long)r->hi, v) != 0)
        return opt_fail(err, "--%s=%s: expected %s, %lld to %lld", r->name, arg, r->what,
                        (long long)r->lo, (long long)r->hi);
    return OPT_OK;
}

int opt_read_num(const opt_row *r, const char *arg, double *v, FILE *err)
{
    if (r->kind == OPT_K_ABOVE && (opt_num(arg, r->lo, r->hi, v) != 0 || *v <= r->lo))
        return opt_fail(err, "--%s=%s: expected %s above %g, at most %g", r->name, arg, r->what,
                        r->lo, r->hi);
    if (r->kind != OPT_K_ABOVE && opt_num(arg, r->lo, r->hi, v) != 0)
        return opt_fail(err, "--%s=%s: expected %s, %g to %g", r->name, arg, r->what, r->lo,
                        r->hi);
    return OPT_OK;
}

/* arg as one of row r's words: its value into *v. Returns OPT_OK, or
 * OPT_USAGE after printing "--NAME=ARG: expected A, B or C" to err. */
static int opt_read_word(const opt_row *r, const char *arg, int *v, FILE *err)
{
    char list[128];
    size_t i, at = 0;

    for (i = 0; r->words[i].word; i++)
        if (strcmp(arg, r->words[i].word) == 0) {
            *v = r->words[i].value;
            return OPT_OK;
        }
    list[0] = '\0';
    for (i = 0; r->words[i].word && at < sizeof list; i++) {
        const char *sep = !i ? "" : r->words[i + 1].word ? ", " : " or ";
        int w = snprintf(list + at, sizeof list - at, "%s%s", sep, r->words[i].word);
        if (w < 0) break;
        at += (size_t)w;
    }
    return opt_fail(err, "--%s=%s: expected %s", r->name, arg, list);
}

/* arg appended to row r's list in o (each value once where OPT_UNIQUE), up
 * to its size. Returns OPT_OK, or OPT_USAGE after printing what is wrong to
 * err. */
static int opt_read_list(const opt_row *r, const char *arg, struct cli_opts *o, FILE *err)
{
    const char **v = (const char **)(void *)((char *)o + r->field);
    size_t *n = (size_t *)(void *)((char *)o + r->count), i;

    if (r->flags & OPT_UNIQUE)
        for (i = 0; i < *n; i++)
            if (strcmp(v[i], arg) == 0)
                return opt_fail(err, "--%s=%s given more than once", r->name, arg);
    if (*n == r->max) return opt_fail(err, "--%s: at most %zu %s", r->name, r->max, r->what);
    v[(*n)++] = arg;
    return OPT_OK;
}

/* Apply row r with its value arg (NULL where none was given) to o, as its
 * parse column says. Returns OPT_OK; OPT_EXIT after printing --help or
 * --version to out; OPT_USAGE after printing what is wrong to err. */
static int opt_apply(const opt_row *r, const char *arg, struct cli_opts *o, FILE *out, FILE *err)
{
    void *f = (char *)o + r->field;
    long long v;
    double d;

    switch (r->kind) {
    case OPT_K_FLAG: *(int *)f = 1; return OPT_OK;
    case OPT_K_TEXT: *(const char **)f = arg; return OPT_OK;
    case OPT_K_INT:
        if (opt_read_int(r, arg, &v, err) != OPT_OK) return OPT_USAGE;
        if (r->real) *(double *)f = (double)v;
        else *(int *)f = (int)v;
        return OPT_OK;
    case OPT_K_NUM: case OPT_K_ABOVE:
        if (opt_read_num(r, arg, &d, err) != OPT_OK) return OPT_USAGE;
        *(double *)f = d;
        return OPT_OK;
    case OPT_K_WORD: return opt_read_word(r, arg, f, err);
    case OPT_K_LIST: return opt_read_list(r, arg, o, err);
    case OPT_K_CALL: return r->parse(r, arg, o, out, err);
    }
    return opt_fail(err, "--%s: the table has no way to read it", r->name);
}

/* ------------------------------------------------------- reading argv --- */

/* A table and where its rows' facts go. */
typedef struct opt_reader {
    const opt_row *rows;
    size_t n;
    const opt_dest *d;
    FILE *out, *err;
} opt_reader;

/* The row named name (len bytes), exactly; NULL when none is. */
static const opt_row *opt_find(const opt_reader *t, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strlen(t->rows[i].name) == len && strncmp(t->rows[i].name, name, len) == 0)
            return &t->rows[i];
    return NULL;
}

/* The row whose letter is c; NULL when none is. */
static const opt_row *opt_find_letter(const opt_reader *t, char c)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (c && (t->rows[i].flags >> 8 & 0xffu) == (unsigned char)c) return &t->rows[i];
    return NULL;
}

/* The edit distance between a (na bytes) and b: insertions, deletions,
 * substitutions and swaps of two neighbours; 99 where either is longer
 * than 31 bytes. */
static size_t opt_distance(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b), d[32][32], i, j;

    if (na > 31 || nb > 31) return 99;
    for (i = 0; i <= na; i++) d[i][0] = i;
    for (j = 0; j <= nb; j++) d[0][j] = j;
    for (i = 1; i <= na; i++)
        for (j = 1; j <= nb; j++) {
            size_t m = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < m) m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m) m = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < m)
                m = d[i - 2][j - 2] + 1;
            d[i][j] = m;
        }
    return d[na][nb];
}

/* The option a misspelled name (len bytes) most likely means, among those
 * --help=all lists: the nearest by edit distance where that is 1 (2 for a
 * name of 5 bytes or more; the first such in the table), else the one
 * option whose name begins with it; NULL when none is that close. */
static const opt_row *opt_suggest(const opt_reader *t, const char *name, size_t len)
{
    const opt_row *best = NULL, *prefix = NULL;
    size_t i, d, bestd = len >= 5 ? 3 : 2, prefixes = 0;

    for (i = 0; i < t->n; i++) {
        const opt_row *r = &t->rows[i];
        if (r->flags & OPT_HIDDEN) continue;
        if ((d = opt_distance(name, len, r->name)) < bestd) {
            bestd = d;
            best = r;
        }
        if (len && strncmp(r->name, name, len) == 0) {
            prefix = r;
            prefixes++;
        }
    }
    return best ? best : prefixes == 1 ? prefix : NULL;
}

/* Keep the words argv[from..to-1] of row r for a device child, unless the
 * node run's parent keeps it (OPT_PARENT). Returns OPT_OK, or OPT_USAGE when
 * the command line has more than maxkeep such words. */
static int opt_keep_for_child(const opt_reader *t, const opt_row *r, char **argv, int from,
                              int to)
{
    const opt_dest *d = t->d;
    int i;

    if (r->flags & OPT_PARENT) return OPT_OK;
    for (i = from; i < to; i++) {
        if (*d->nkeep == d->maxkeep) return opt_fail(t->err, "more than %zu options", d->maxkeep);
        d->keep[(*d->nkeep)++] = argv[i];
    }
    return OPT_OK;
}

/* Row r given as argv[from..to-1], with value arg: refused when it was
 * given before (but a list) or its value is empty (but OPT_EMPTY_OK), else
 * applied and kept for a device child. Returns OPT_OK, or the first
 * OPT_EXIT or OPT_USAGE (printed). */
static int opt_take(const opt_reader *t, const opt_row *r, const char *arg, char **argv, int from,
                    int to)
{
    int rc;

    if (t->d->seen[r - t->rows]++ && !(r->flags & OPT_REPEAT))
        return opt_fail(t->err, "--%s given more than once", r->name);
    if (arg && !*arg && !(r->flags & OPT_EMPTY_OK))
        return opt_fail(t->err, "--%s needs a value; it is empty", r->name);
    if ((rc = opt_apply(r, arg, t->d->o, t->out, t->err)) != OPT_OK) return rc;
    return opt_keep_for_child(t, r, argv, from, to);
}

/* The letters of argv[*i] ("-h"), each a row's, without a value. */
static int opt_read_letters(const opt_reader *t, char **argv, int *i)
{
    const char *p;
    const opt_row *r;
    int rc, at = (*i)++;

    for (p = argv[at] + 1; *p; p++) {
        if (!(r = opt_find_letter(t, *p))) return opt_fail(t->err, "unknown option '-%c'", *p);
        if ((rc = opt_take(t, r, NULL, argv, at, *i)) != OPT_OK) return rc;
    }
    return OPT_OK;
}

/* The long option argv[*i]: its name matched exactly, its value after '='
 * or, where it needs one and has no '=', the next word. *i moves past the
 * words it took. */
static int opt_read_long(const opt_reader *t, int argc, char **argv, int *i)
{
    const char *w = argv[*i], *eq = strchr(w + 2, '='), *arg = NULL;
    size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
    const opt_row *r = opt_find(t, w + 2, len);
    int at = (*i)++;

    if (!r && (r = opt_suggest(t, w + 2, len)))
        return opt_fail(t->err, "unknown option '%s'; did you mean --%s?", w, r->name);
    if (!r) return opt_fail(t->err, "unknown option '%s'", w);
    if (eq && !r->value) return opt_fail(t->err, "option '--%s' takes no value", r->name);
    if (eq) arg = eq + 1;
    else if (r->value && !(r->flags & OPT_OPTIONAL)) {
        if (*i >= argc) return opt_fail(t->err, "option '%s' needs a value", w);
        arg = argv[(*i)++];
    }
    return opt_take(t, r, arg, argv, at, *i);
}

int opt_read_argv(const opt_row *rows, size_t n, int argc, char **argv, const opt_dest *d,
                  FILE *out, FILE *err)
{
    const opt_reader t = { rows, n, d, out, err };
    const char *stray = NULL;
    int i = 1, rc;

    while (i < argc) {
        const char *w = argv[i];
        if (w[0] != '-' || !w[1]) {
            if (!stray) stray = w;
            i++;
            continue;
        }
        rc = w[1] == '-' ? opt_read_long(&t, argc, argv, &i) : opt_read_letters(&t, argv, &i);
        if (rc != OPT_OK) return rc;
    }
    if (stray) return opt_fail(err, "unexpected argument '%s'", stray);
    return OPT_OK;
}

/* ------------------------------------------------------------- --help --- */

const opt_layout opt_usage_layout = { 26, 2 };
const opt_layout opt_brief_layout = { 24, 1 };

const char *opt_help_lead(char *buf, size_t len, const opt_layout *l, const char *label)
{
    int n = (int)strlen(label) + 2, pad = l->col - n < l->gap ? l->gap : l->col - n;

    snprintf(buf, len, "  %s%*s", label, pad, "");
    return buf;
}

void opt_help_entry(FILE *out, const opt_layout *l, const char *label, const char *text)
{
    char lead[128], form[64];
    const char *p, *end, *tab;

    for (p = text;; p = end + 1) {
        end = p + strcspn(p, "\n");
        tab = memchr(p, '\t', (size_t)(end - p));
        if (tab) {
            snprintf(form, sizeof form, "%.*s", (int)(tab - p), p);
            fputs(opt_help_lead(lead, sizeof lead, l, form), out);
            p = tab + 1;
        } else if (p == text) {
            fputs(opt_help_lead(lead, sizeof lead, l, label), out);
        } else {
            fprintf(out, "%*s", l->col, "");
        }
        fprintf(out, "%.*s\n", (int)(end - p), p);
        if (!*end) break;
    }
}

/* A row's label in --help=all (brief 0) or --help (brief 1): "-h, " for a
 * letter, "--name", "=VALUE" for a value; an optional value is shown in
 * --help as "[=VALUE]", and --help=all gives that form a line of its own
 * (a "FORM\tTEXT" line of its help). */
static const char *opt_label(const opt_row *r, int brief, char *buf, size_t len)
{
    unsigned letter = r->flags >> 8 & 0xffu;
    int optional = (r->flags & OPT_OPTIONAL) != 0, shown = r->value && (!optional || brief);
    int n = letter ? snprintf(buf, len, "-%c, ", (char)letter) : 0;

    snprintf(buf + n, len - (size_t)n, "--%s%s%s%s", r->name,
             !shown ? "" : optional ? "[=" : "=", shown ? r->value : "",
             shown && optional ? "]" : "");
    return buf;
}

/* Row r's entry, brief or not. */
static void opt_print_row(FILE *out, const opt_row *r, int brief, const char *const *names)
{
    const opt_layout *l = brief ? &opt_brief_layout : &opt_usage_layout;
    const char *text = brief ? r->brief : r->help;
    char label[64];

    opt_label(r, brief, label, sizeof label);
    if (r->help_fn) r->help_fn(out, l, label, text, names);
    else opt_help_entry(out, l, label, text);
}

void opt_print_rows(FILE *out, const opt_row *rows, size_t n, int brief,
                    const char *const *names)
{
    size_t i;
    int place;

    for (i = 0; !brief && i < n; i++)
        if (!(rows[i].flags & OPT_HIDDEN)) opt_print_row(out, &rows[i], 0, names);
    for (place = 1; brief && (size_t)place <= n; place++)
        for (i = 0; i < n; i++)
            if (rows[i].common == place) opt_print_row(out, &rows[i], 1, names);
}

/* ------------------------------------------------- shell completion --- */

/* What a row's value completes to: 'w' words (into w, space-separated),
 * 'f' files, 'd' directories, 0 nothing known. */
static int opt_value_kind(const opt_row *r, const char *word_opt, const char *const *words,
                          char *w, size_t len)
{
    size_t at = 0, k;
    w[0] = '\0';
    if (r->kind == OPT_K_WORD && r->words) {
        for (k = 0; r->words[k].word && at < len; k++)
            at += (size_t)snprintf(w + at, len - at, "%s%s", at ? " " : "", r->words[k].word);
        return 'w';
    }
    if (word_opt && words && strcmp(r->name, word_opt) == 0) {
        for (k = 0; words[k] && at < len; k++)
            at += (size_t)snprintf(w + at, len - at, "%s%s", at ? " " : "", words[k]);
        return 'w';
    }
    if (!r->value) return 0;
    if (strstr(r->value, "DIR")) return 'd';
    if (strstr(r->value, "FILE") || strstr(r->value, "PATH") || strstr(r->value, "CMD")) return 'f';
    return 0;
}

/* A row's first line of help, for zsh: without the characters its
 * specification reads ("[]:'\\"), at most 70 characters. */
static void opt_brief_line(const opt_row *r, char *out, size_t len)
{
    const char *h = r->help ? r->help : "";
    size_t k = 0;
    for (; *h && *h != '\n' && *h != '\t' && k + 1 < len && k < 70; h++)
        if (!strchr("[]:'\\`$", *h)) out[k++] = *h == '%' ? ' ' : *h;
    out[k] = '\0';
}

static void opt_completion_bash(FILE *out, const opt_row *rows, size_t n, const char *word_opt,
                                const char *const *words)
{
    char w[2048];
    size_t i;

    fprintf(out, "# bash completion for harness: generated by `harness --completion=bash` from\n"
            "# its option table.\n_harness()\n{\n"
            "    local cur=${COMP_WORDS[COMP_CWORD]} opt= i\n"
            "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
            "        if [[ ${COMP_WORDS[i]} == -- ]]; then\n"
            "            if ((i + 1 == COMP_CWORD)); then COMPREPLY=($(compgen -c -- \"$cur\"))\n"
            "            else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
            "            return\n        fi\n    done\n"
            "    # '=' splits a word in bash: --section=j is --section, =, j.\n"
            "    if [[ $cur == = ]]; then opt=${COMP_WORDS[COMP_CWORD-1]}; cur=\n"
            "    elif ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD-1]} == = ]]; then\n"
            "        opt=${COMP_WORDS[COMP_CWORD-2]}\n"
            "    elif [[ $cur == --*=* ]]; then opt=${cur%%%%=*}; cur=${cur#*=}\n    fi\n"
            "    if [[ -n $opt ]]; then\n        case $opt in\n");
    for (i = 0; i < n; i++) {
        int k;
        if (rows[i].flags & OPT_HIDDEN || !rows[i].value) continue;
        k = opt_value_kind(&rows[i], word_opt, words, w, sizeof w);
        if (k == 'w') fprintf(out, "        --%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")) ;;\n",
                              rows[i].name, w);
        else if (k == 'd') fprintf(out, "        --%s) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n",
                                   rows[i].name);
        else if (k == 'f') fprintf(out, "        --%s) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n",
                                   rows[i].name);
    }
    fprintf(out, "        esac\n        return\n    fi\n    COMPREPLY=($(compgen -W '");
    for (i = 0; i < n; i++)
        if (!(rows[i].flags & OPT_HIDDEN))
            fprintf(out, "%s--%s%s", i ? " " : "", rows[i].name,
                    rows[i].value && !(rows[i].flags & OPT_OPTIONAL) ? "=" : "");
    fprintf(out, " --' -- \"$cur\"))\n"
            "    [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null\n}\n"
            "complete -F _harness harness\n");
}

static void opt_completion_zsh(FILE *out, const opt_row *rows, size_t n, const char *word_opt,
                               const char *const *words)
{
    char w[2048], brief[80];
    size_t i;

    fprintf(out, "#compdef harness\n# zsh completion for harness: generated by "
            "`harness --completion=zsh` from its\n# option table.\n_arguments -s \\\n");
    for (i = 0; i < n; i++) {
        int k;
        if (rows[i].flags & OPT_HIDDEN) continue;
        opt_brief_line(&rows[i], brief, sizeof brief);
        if (!rows[i].value) {
            fprintf(out, "  '%s--%s[%s]' \\\n", rows[i].flags & OPT_REPEAT ? "*" : "",
                    rows[i].name, brief);
            continue;
        }
        k = opt_value_kind(&rows[i], word_opt, words, w, sizeof w);
        fprintf(out, "  '%s--%s=%s[%s]:%s:", rows[i].flags & OPT_REPEAT ? "*" : "", rows[i].name,
                rows[i].flags & OPT_OPTIONAL ? "-" : "", brief, rows[i].value);
        if (k == 'w') fprintf(out, "(%s)", w);
        else fputs(k == 'd' ? "_files -/" : k == 'f' ? "_files" : " ", out);
        fputs("' \\\n", out);
    }
    fprintf(out, "  '(-)--[the program to run]' \\\n  '*::program and its arguments:_normal'\n");
}

int opt_completion(FILE *out, const opt_row *rows, size_t n, const char *shell,
                   const char *word_opt, const char *const *words)
{
    if (strcmp(shell, "bash") == 0) opt_completion_bash(out, rows, n, word_opt, words);
    else if (strcmp(shell, "zsh") == 0) opt_completion_zsh(out, rows, n, word_opt, words);
    else return -1;
    return 0;
}
