/* rx.c: --ready's matcher (rx.h): a parser to a tree, the tree to a
 * Thompson automaton, and a scan that keeps the set of live states. */
#include "core/rx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the tree --- */

enum rx_kind { RN_EMPTY, RN_BYTE, RN_CLASS, RN_ANY, RN_ASSERT, RN_CAT, RN_ALT, RN_REP };
enum rx_assert { RA_BOL, RA_EOL, RA_WORDB, RA_NWORDB, RA_WBEG, RA_WEND };

typedef struct rx_node {
    int kind;
    int arg;            /* the byte, the class's index, the assertion */
    int min, max;       /* RN_REP: the counts; max -1: no bound */
    int kid, next;      /* the first child, the next sibling; -1: none */
} rx_node;

typedef struct rx_parse {
    const unsigned char *p;     /* the next byte of the pattern */
    rx_node *node;
    int nnode, cap;
    unsigned char (*cls)[32];   /* bracket expressions and \w \s, as bitmaps */
    int ncls;
    int depth;
    char *why;
    size_t whylen;
} rx_parse;

/* ------------------------------------------------------- the automaton --- */

enum rx_op { RO_BYTE, RO_CLASS, RO_ANY, RO_ASSERT, RO_SPLIT, RO_JMP, RO_MATCH };

typedef struct rx_ins {
    int op;
    int arg;        /* the byte, the class, the assertion */
    int x, y;       /* RO_SPLIT: both ways on; RO_JMP: x */
} rx_ins;

struct rx_prog {
    rx_ins *ins;
    int n;
    unsigned char (*cls)[32];
    char *lit;          /* bytes every matching line holds in a row; NULL: none known */
    size_t nlit;
};

struct rx_stream {
    const rx_prog *p;
    int lines;
    int *pend, *next;   /* states to enter at this byte, and at the next */
    int npend, nnext;
    unsigned *cmark, *nmark;    /* generation stamps: entered this byte, queued for the next */
    unsigned gen;
    int *stack;
    int prev;           /* the byte before this one, -1 at a line's start */
};

__attribute__((format(printf, 2, 3))) static int rx_fail(rx_parse *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->why, ps->whylen, fmt, ap);
    va_end(ap);
    return -1;
}

static int rx_new(rx_parse *ps, int kind, int arg)
{
    rx_node *n;
    if (ps->nnode == ps->cap) return rx_fail(ps, "out of memory");
    n = &ps->node[ps->nnode];
    n->kind = kind;
    n->arg = arg;
    n->min = n->max = 0;
    n->kid = n->next = -1;
    return ps->nnode++;
}

static int rx_new_class(rx_parse *ps)
{
    if (ps->ncls == ps->cap) return rx_fail(ps, "out of memory");
    memset(ps->cls[ps->ncls], 0, 32);
    return ps->ncls++;
}

static void rx_set(unsigned char *m, int c) { m[c >> 3] = (unsigned char)(m[c >> 3] | (1u << (c & 7))); }
static int rx_has(const unsigned char *m, int c) { return m[c >> 3] >> (c & 7) & 1; }
static int rx_word(int c)
{
    return c >= 0 && (c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'));
}

/* [:name:]'s bytes into m; 0, or -1 for an unknown name. */
static int rx_named(const char *name, size_t len, unsigned char *m)
{
    static const char *names[] = { "alpha", "digit", "alnum", "upper", "lower", "space",
                                   "blank", "punct", "print", "graph", "cntrl", "xdigit" };
    size_t k;
    int c;
    for (k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k]) == len && memcmp(names[k], name, len) == 0) break;
    if (k == sizeof names / sizeof names[0]) return -1;
    for (c = 0; c < 128; c++) {
        int a = (c | 32) >= 'a' && (c | 32) <= 'z', d = c >= '0' && c <= '9';
        int sp = c == ' ' || (c >= '\t' && c <= '\r'), gr = c > ' ' && c < 127;
        int in[] = { a, d, a || d, c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', sp, c == ' ' || c == '\t',
                     gr && !a && !d, gr || c == ' ', gr, c < ' ' || c == 127,
                     d || ((c | 32) >= 'a' && (c | 32) <= 'f') };
        if (in[k]) rx_set(m, c);
    }
    return 0;
}

/* One byte of a bracket expression, or [.c.] / [=c=]: its value, or -1. */
static int rx_bracket_byte(rx_parse *ps)
{
    const unsigned char *p = ps->p;
    if (p[0] == '[' && (p[1] == '.' || p[1] == '=')) {
        if (!p[2] || p[3] != p[1] || p[4] != ']')
            return rx_fail(ps, "[%c%c: only one byte between [%c and %c] is taken", p[1], p[2] ? p[2] : ' ',
                           p[1], p[1]);
        ps->p += 5;
        return p[2];
    }
    if (!p[0]) return rx_fail(ps, "an unclosed '['");
    ps->p++;
    return p[0];
}

/* A bracket expression after its '[': a class node. */
static int rx_bracket(rx_parse *ps)
{
    int k = rx_new_class(ps), neg = 0, first = 1, c, hi, i;
    unsigned char *m;
    if (k < 0) return -1;
    m = ps->cls[k];
    if (*ps->p == '^') neg = 1, ps->p++;
    for (; first || *ps->p != ']'; first = 0) {
        if (ps->p[0] == '[' && ps->p[1] == ':') {
            const char *end = strstr((const char *)ps->p + 2, ":]");
            if (!end || rx_named((const char *)ps->p + 2, (size_t)(end - (const char *)ps->p - 2), m) != 0)
                return rx_fail(ps, "an unknown character class in [[:...:]]");
            ps->p = (const unsigned char *)end + 2;
            continue;
        }
        if ((c = rx_bracket_byte(ps)) < 0) return -1;
        hi = c;
        if (ps->p[0] == '-' && ps->p[1] && ps->p[1] != ']') {
            ps->p++;
            if ((hi = rx_bracket_byte(ps)) < 0) return -1;
            if (hi < c) return rx_fail(ps, "a range out of order in a bracket expression (%c-%c)", c, hi);
        }
        for (i = c; i <= hi; i++) rx_set(m, i);
    }
    ps->p++;
    if (neg)
        for (i = 0; i < 32; i++) m[i] = (unsigned char)~m[i];
    return rx_new(ps, RN_CLASS, k);
}

/* \w \W \s \S: a class node. */
static int rx_escape_class(rx_parse *ps, int e)
{
    int k = rx_new_class(ps), c;
    if (k < 0) return -1;
    for (c = 0; c < 256; c++) {
        int in = (e | 32) == 'w' ? rx_word(c) : (c == ' ' || (c >= '\t' && c <= '\r'));
        if (in != (e == 'W' || e == 'S')) rx_set(ps->cls[k], c);
    }
    return rx_new(ps, RN_CLASS, k);
}

/* A backslash and what follows it. */
static int rx_escape(rx_parse *ps)
{
    int e = *ps->p++;
    switch (e) {
    case 0: return rx_fail(ps, "a backslash at the end");
    case 'w': case 'W': case 's': case 'S': return rx_escape_class(ps, e);
    case 'b': return rx_new(ps, RN_ASSERT, RA_WORDB);
    case 'B': return rx_new(ps, RN_ASSERT, RA_NWORDB);
    case '<': return rx_new(ps, RN_ASSERT, RA_WBEG);
    case '>': return rx_new(ps, RN_ASSERT, RA_WEND);
    case '`': return rx_new(ps, RN_ASSERT, RA_BOL);
    case '\'': return rx_new(ps, RN_ASSERT, RA_EOL);
    default:
        if (e >= '1' && e <= '9')
            return rx_fail(ps, "back-references (\\%c) are not taken: they make matching a line take "
                           "time without bound", e);
        return rx_new(ps, RN_BYTE, e);
    }
}

static int rx_alt(rx_parse *ps);

/* One atom, or -2 where none starts here ('|', ')' or the end). */
static int rx_atom(rx_parse *ps)
{
    int c = *ps->p, n;
    switch (c) {
    case 0: case '|': case ')': return -2;
    case '*': case '+': case '?':
        return rx_fail(ps, "'%c' repeats nothing: put a backslash before it for the character", c);
    case '(':
        ps->p++;
        if (++ps->depth > RX_MAX_DEPTH)
            return rx_fail(ps, "groups and repetitions nested more than %d deep", RX_MAX_DEPTH);
        if ((n = rx_alt(ps)) < 0) return n == -2 ? rx_fail(ps, "an unmatched '('") : -1;
        if (*ps->p != ')') return rx_fail(ps, "an unmatched '('");
        ps->p++;
        ps->depth--;
        return n;
    case '[': ps->p++; return rx_bracket(ps);
    case '\\': ps->p++; return rx_escape(ps);
    case '.': ps->p++; return rx_new(ps, RN_ANY, 0);
    case '^': ps->p++; return rx_new(ps, RN_ASSERT, RA_BOL);
    case '$': ps->p++; return rx_new(ps, RN_ASSERT, RA_EOL);
    default: ps->p++; return rx_new(ps, RN_BYTE, c);
    }
}

/* A whole number of a count at ps->p, at most RX_MAX_REPEAT; -1 if none. */
static int rx_count(rx_parse *ps)
{
    long v = 0;
    if (*ps->p < '0' || *ps->p > '9') return -1;
    while (*ps->p >= '0' && *ps->p <= '9') {
        v = v * 10 + (*ps->p++ - '0');
        if (v > RX_MAX_REPEAT) return rx_fail(ps, "a count over %d in {n,m}", RX_MAX_REPEAT), -3;
    }
    return (int)v;
}

/* {n}, {n,}, {n,m} after its '{': *min, *max (-1: no bound); 0 or -1. */
static int rx_braces(rx_parse *ps, int *min, int *max)
{
    if ((*min = rx_count(ps)) < 0)
        return *min == -3 ? -1 : rx_fail(ps, "'{' opens no count: {n}, {n,} or {n,m}");
    *max = *min;
    if (*ps->p == ',') {
        ps->p++;
        *max = *ps->p == '}' ? -1 : rx_count(ps);
        if (*max == -3) return -1;
        if (*max < 0 && *ps->p != '}') return rx_fail(ps, "'{' opens no count: {n}, {n,} or {n,m}");
    }
    if (*ps->p != '}') return rx_fail(ps, "'{' opens no count: {n}, {n,} or {n,m}");
    ps->p++;
    if (*max >= 0 && *max < *min) return rx_fail(ps, "{%d,%d}: the larger count first", *min, *max);
    return 0;
}

/* An atom and its repetitions, or -2 where none starts here. */
static int rx_piece(rx_parse *ps)
{
    int n = rx_atom(ps), depth = 0;
    if (n < 0) return n;
    for (;;) {
        int c = *ps->p, min = 0, max = 0, r;
        if (c == '*') min = 0, max = -1;
        else if (c == '+') min = 1, max = -1;
        else if (c == '?') min = 0, max = 1;
        else if (c != '{') break;
        ps->p++;
        if (c == '{' && rx_braces(ps, &min, &max) != 0) return -1;
        if (ps->depth + ++depth > RX_MAX_DEPTH)
            return rx_fail(ps, "groups and repetitions nested more than %d deep", RX_MAX_DEPTH);
        if ((r = rx_new(ps, RN_REP, 0)) < 0) return -1;
        ps->node[r].min = min;
        ps->node[r].max = max;
        ps->node[r].kid = n;
        n = r;
    }
    return n;
}

/* Pieces in a row: a concatenation (maybe empty). */
static int rx_cat(rx_parse *ps)
{
    int cat = rx_new(ps, RN_CAT, 0), last = -1, n;
    if (cat < 0) return -1;
    while ((n = rx_piece(ps)) >= 0) {
        if (last < 0) ps->node[cat].kid = n;
        else ps->node[last].next = n;
        last = n;
    }
    return n == -2 ? cat : -1;
}

/* Branches between '|': an alternation. */
static int rx_alt(rx_parse *ps)
{
    int alt = rx_new(ps, RN_ALT, 0), last = -1, n;
    if (alt < 0) return -1;
    for (;;) {
        if ((n = rx_cat(ps)) < 0) return -1;
        if (last < 0) ps->node[alt].kid = n;
        else ps->node[last].next = n;
        last = n;
        if (*ps->p != '|') return alt;
        ps->p++;
    }
}

/* ---------------------------------------------------- tree to automaton --- */

/* The states node n takes, capped just above the limit. */
static long rx_size(const rx_parse *ps, int n)
{
    const rx_node *d = &ps->node[n];
    long s = 0, k;
    int c;
    switch (d->kind) {
    case RN_CAT:
    case RN_ALT:
        for (c = d->kid; c >= 0; c = ps->node[c].next) {
            s += rx_size(ps, c) + (d->kind == RN_ALT && ps->node[c].next >= 0 ? 2 : 0);
            if (s > RX_MAX_STATES) return RX_MAX_STATES + 1;
        }
        return s;
    case RN_REP:
        k = rx_size(ps, d->kid);
        s = d->min * k + (d->max < 0 ? k + 2 : (d->max - d->min) * (k + 1));
        return s > RX_MAX_STATES ? RX_MAX_STATES + 1 : s;
    default:
        return 1;
    }
}

static int rx_emit_one(rx_prog *p, int op, int arg, int x, int y)
{
    rx_ins *i = &p->ins[p->n];
    i->op = op, i->arg = arg, i->x = x, i->y = y;
    return p->n++;
}

static void rx_emit(rx_prog *p, const rx_parse *ps, int n);

/* Branches: a split before each but the last, a jump after each to the
 * end (the jumps chained through their x until the end is known). */
static void rx_emit_alt(rx_prog *p, const rx_parse *ps, const rx_node *d)
{
    int chain = -1, c, s, k;
    for (c = d->kid; c >= 0; c = ps->node[c].next) {
        if (ps->node[c].next < 0) {
            rx_emit(p, ps, c);
            break;
        }
        s = rx_emit_one(p, RO_SPLIT, 0, p->n + 1, 0);
        rx_emit(p, ps, c);
        chain = rx_emit_one(p, RO_JMP, 0, chain, 0);
        p->ins[s].y = p->n;
    }
    for (; chain >= 0; chain = k) {
        k = p->ins[chain].x;
        p->ins[chain].x = p->n;
    }
}

/* min copies, then a loop (no bound) or max - min optional copies (their
 * splits chained through y until the end is known). */
static void rx_emit_rep(rx_prog *p, const rx_parse *ps, const rx_node *d)
{
    int chain = -1, k, s;
    for (k = 0; k < d->min; k++) rx_emit(p, ps, d->kid);
    if (d->max < 0) {
        s = rx_emit_one(p, RO_SPLIT, 0, p->n + 1, 0);
        rx_emit(p, ps, d->kid);
        rx_emit_one(p, RO_JMP, 0, s, 0);
        p->ins[s].y = p->n;
        return;
    }
    for (k = d->min; k < d->max; k++) {
        chain = rx_emit_one(p, RO_SPLIT, 0, p->n + 1, chain);
        rx_emit(p, ps, d->kid);
    }
    for (; chain >= 0; chain = k) {
        k = p->ins[chain].y;
        p->ins[chain].y = p->n;
    }
}

static void rx_emit(rx_prog *p, const rx_parse *ps, int n)
{
    const rx_node *d = &ps->node[n];
    int c;
    switch (d->kind) {
    case RN_BYTE: rx_emit_one(p, RO_BYTE, d->arg, 0, 0); break;
    case RN_CLASS: rx_emit_one(p, RO_CLASS, d->arg, 0, 0); break;
    case RN_ANY: rx_emit_one(p, RO_ANY, 0, 0, 0); break;
    case RN_ASSERT: rx_emit_one(p, RO_ASSERT, d->arg, 0, 0); break;
    case RN_CAT:
        for (c = d->kid; c >= 0; c = ps->node[c].next) rx_emit(p, ps, c);
        break;
    case RN_ALT: rx_emit_alt(p, ps, d); break;
    case RN_REP: rx_emit_rep(p, ps, d); break;
    default: break;
    }
}

/* The longest run of single bytes in the top concatenation (the one
 * branch): every matching line holds it. */
static int rx_literal(rx_prog *p, const rx_parse *ps, int root)
{
    const rx_node *d = &ps->node[root];
    int c, best = -1, nbest = 0, start = -1, run = 0;
    if (d->kind == RN_ALT && d->kid >= 0 && ps->node[d->kid].next < 0) d = &ps->node[d->kid];
    if (d->kind != RN_CAT) return 0;
    for (c = d->kid;; c = ps->node[c].next) {
        if (c >= 0 && ps->node[c].kind == RN_BYTE) {
            if (!run++) start = c;
            continue;
        }
        if (run > nbest) nbest = run, best = start;
        run = 0;
        if (c < 0) break;
    }
    if (!nbest) return 0;
    if (!(p->lit = malloc((size_t)nbest))) return -1;
    for (c = best; p->nlit < (size_t)nbest; c = ps->node[c].next) p->lit[p->nlit++] = (char)ps->node[c].arg;
    return 0;
}

static int rx_build(rx_prog *p, rx_parse *ps, int root)
{
    long size = rx_size(ps, root);
    if (size > RX_MAX_STATES)
        return rx_fail(ps, "more than %d states (a state a byte, bracket or anchor, each "
                       "count's copies included)", RX_MAX_STATES);
    if (!(p->ins = malloc((size_t)(size + 1) * sizeof *p->ins))) return rx_fail(ps, "out of memory");
    rx_emit(p, ps, root);
    rx_emit_one(p, RO_MATCH, 0, 0, 0);
    if (rx_literal(p, ps, root) != 0) return rx_fail(ps, "out of memory");
    return 0;
}

int rx_compile(const char *pat, rx_prog **out, char *why, size_t whylen)
{
    size_t len = strlen(pat);
    rx_parse ps = { .p = (const unsigned char *)pat, .why = why, .whylen = whylen };
    rx_prog *p = NULL;
    int root, rc = -1;

    *out = NULL;
    if (len > RX_MAX_PATTERN) {
        snprintf(why, whylen, "%zu bytes, more than %d", len, RX_MAX_PATTERN);
        return -1;
    }
    ps.cap = (int)len * 2 + 4;
    ps.node = malloc((size_t)ps.cap * sizeof *ps.node);
    ps.cls = malloc((size_t)ps.cap * sizeof *ps.cls);
    p = calloc(1, sizeof *p);
    if (!ps.node || !ps.cls || !p) {
        rx_fail(&ps, "out of memory");
        goto done;
    }
    if ((root = rx_alt(&ps)) < 0) goto done;
    if (*ps.p == ')') {
        rx_fail(&ps, "an unmatched ')'");
        goto done;
    }
    if (rx_build(p, &ps, root) != 0) goto done;
    p->cls = ps.cls;
    ps.cls = NULL;
    *out = p;
    p = NULL;
    rc = 0;
done:
    free(ps.node);
    free(ps.cls);
    rx_free(p);
    return rc;
}

void rx_free(rx_prog *p)
{
    if (!p) return;
    free(p->ins);
    free(p->cls);
    free(p->lit);
    free(p);
}

size_t rx_states(const rx_prog *p) { return (size_t)p->n; }

/* -------------------------------------------------------------- scans --- */

rx_stream *rx_stream_new(const rx_prog *p, int lines)
{
    rx_stream *s = calloc(1, sizeof *s);
    size_t n = (size_t)p->n;
    if (!s) return NULL;
    s->p = p;
    s->lines = lines;
    s->pend = malloc(n * sizeof *s->pend);
    s->next = malloc(n * sizeof *s->next);
    s->cmark = calloc(n, sizeof *s->cmark);
    s->nmark = calloc(n, sizeof *s->nmark);
    s->stack = malloc((3 * n + 2) * sizeof *s->stack);
    if (!s->pend || !s->next || !s->cmark || !s->nmark || !s->stack) {
        rx_stream_free(s);
        return NULL;
    }
    rx_reset(s);
    return s;
}

void rx_stream_free(rx_stream *s)
{
    if (!s) return;
    free(s->pend);
    free(s->next);
    free(s->cmark);
    free(s->nmark);
    free(s->stack);
    free(s);
}

void rx_reset(rx_stream *s)
{
    s->npend = 0;
    s->prev = -1;
}

static int rx_holds(int a, int prev, int c)
{
    switch (a) {
    case RA_BOL: return prev < 0;
    case RA_EOL: return c < 0;
    case RA_WORDB: return rx_word(prev) != rx_word(c);
    case RA_NWORDB: return rx_word(prev) == rx_word(c);
    case RA_WBEG: return !rx_word(prev) && rx_word(c);
    default: return rx_word(prev) && !rx_word(c);
    }
}

/* A new generation for the stamps (all cleared when it wraps). */
static unsigned rx_gen(rx_stream *s)
{
    if (++s->gen == 0) {
        memset(s->cmark, 0, (size_t)s->p->n * sizeof *s->cmark);
        memset(s->nmark, 0, (size_t)s->p->n * sizeof *s->nmark);
        s->gen = 1;
    }
    return s->gen;
}

/* One position: the states queued, and a match starting here, entered
 * between the previous byte and c (-1: the line's end); those that take c
 * queued for the next position. Returns 1 on reaching the match. */
static int rx_step(rx_stream *s, int c)
{
    const rx_ins *ins = s->p->ins;
    unsigned g = rx_gen(s);
    int top = 0, k, *t;

    s->stack[top++] = 0;
    for (k = 0; k < s->npend; k++) s->stack[top++] = s->pend[k];
    s->nnext = 0;
    while (top) {
        int pc = s->stack[--top], take = 0;
        const rx_ins *i = &ins[pc];
        if (s->cmark[pc] == g) continue;
        s->cmark[pc] = g;
        switch (i->op) {
        case RO_MATCH: return 1;
        case RO_JMP: s->stack[top++] = i->x; break;
        case RO_SPLIT: s->stack[top++] = i->y; s->stack[top++] = i->x; break;
        case RO_ASSERT: if (rx_holds(i->arg, s->prev, c)) s->stack[top++] = pc + 1; break;
        case RO_BYTE: take = c == i->arg; break;
        case RO_ANY: take = c >= 0; break;
        default: take = c >= 0 && rx_has(s->p->cls[i->arg], c); break;
        }
        if (take && s->nmark[pc + 1] != g) {
            s->nmark[pc + 1] = g;
            s->next[s->nnext++] = pc + 1;
        }
    }
    t = s->pend, s->pend = s->next, s->next = t;
    s->npend = s->nnext;
    s->prev = c;
    return 0;
}

int rx_end(rx_stream *s)
{
    int m = rx_step(s, -1);
    rx_reset(s);
    return m;
}

/* At a line's start with a literal known: the whole lines in buf[*i..n)
 * before the first that holds it (all of them where none does) skipped,
 * with one memmem over the piece. Returns -1 when stopped, else 0. */
static int rx_skip_lines(rx_stream *s, const char *buf, size_t n, size_t *i, int (*stop)(void *), void *arg)
{
    const rx_prog *p = s->p;
    const char *from = buf + *i, *hit = memmem(from, n - *i, p->lit, p->nlit);
    const char *end = hit ? hit : buf + n, *nl = memrchr(from, '\n', (size_t)(end - from));
    if (nl) *i = (size_t)(nl + 1 - buf);
    return stop && stop(arg) ? -1 : 0;
}

int rx_feed(rx_stream *s, const char *buf, size_t n, int (*stop)(void *), void *arg, size_t *used)
{
    size_t i = 0;
    int rc = 0;
    while (i < n && !rc) {
        if (s->lines && s->prev < 0 && !s->npend && s->p->lit && rx_skip_lines(s, buf, n, &i, stop, arg) != 0) {
            rc = -1;
            break;
        }
        for (; i < n; i++) {
            int c = (unsigned char)buf[i];
            if ((i & 4095) == 4095 && stop && stop(arg)) {
                rc = -1;
                break;
            }
            if (s->lines && c == '\n') {
                rc = rx_end(s);
                i++;
                break;
            }
            if ((rc = rx_step(s, c)) != 0) {
                i++;
                break;
            }
        }
    }
    if (used) *used = i;
    return rc;
}

int rx_match(rx_stream *s, const char *text, size_t n, int (*stop)(void *), void *arg)
{
    int rc;
    if (s->p->lit && !memmem(text, n, s->p->lit, s->p->nlit)) return 0;
    rx_reset(s);
    rc = rx_feed(s, text, n, stop, arg, NULL);
    if (rc == 0) rc = rx_end(s);
    rx_reset(s);
    return rc;
}
