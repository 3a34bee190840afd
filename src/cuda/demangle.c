/* demangle.c: C++ symbols demangled through libstdc++'s __cxa_demangle
 * (dlopen, once), a small bounded reader of a symbol's qualified name for
 * the names it refuses, and the shortener of names for tables. */
#include "cuda/demangle.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DM_LIBRARY "libstdc++.so.6"
#define DM_MAX_SHORT 65536      /* a longer name is cut before it is shortened */
#define DM_MAX_LEVELS 16        /* template levels collapsed one at a time */
/* The longest demangled name asked for: the budget of dm_bounded's bound.
 * At 1 MiB, a 446-byte PyTorch name with 20 back-references (1.5 KiB
 * demangled, c++filt reads it whole) was refused; 16 MiB takes it, and a
 * name that could pass it is still kept from __cxa_demangle. */
#define DM_MAX_OUT ((double)(1 << 24))

typedef char *(*dm_fn)(const char *, char *, size_t *, int *);

static pthread_once_t dm_once = PTHREAD_ONCE_INIT;
static dm_fn dm_cxa;            /* NULL: no demangler (dm_why says why) */
static int dm_state = -1;
static char dm_why[512];

/* Open lib (NULL: DM_LIBRARY) and find __cxa_demangle; state into the
 * statics. */
static void dm_load(const char *lib)
{
    void *h = dlopen(lib ? lib : DM_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    void *p;

    dm_cxa = NULL;
    dm_state = -1;
    if (!h) {
        const char *e = dlerror();
        snprintf(dm_why, sizeof dm_why, "no C++ demangler: %s", e ? e : DM_LIBRARY);
        return;
    }
    if (!(p = dlsym(h, "__cxa_demangle"))) {
        snprintf(dm_why, sizeof dm_why, "no C++ demangler: %s has no __cxa_demangle",
                 lib ? lib : DM_LIBRARY);
        return;
    }
    memcpy(&dm_cxa, &p, sizeof dm_cxa);
    dm_why[0] = '\0';
    dm_state = 0;
}

static void dm_open_once(void)
{
    dm_load(NULL);
}

int dm_open(char *why, size_t whylen)
{
    pthread_once(&dm_once, dm_open_once);
    if (dm_state != 0 && why && whylen) snprintf(why, whylen, "%s", dm_why);
    return dm_state;
}

int dm_open_lib(const char *lib, char *why, size_t whylen)
{
    pthread_once(&dm_once, dm_open_once);
    dm_load(lib);
    if (dm_state != 0 && why && whylen) snprintf(why, whylen, "%s", dm_why);
    return dm_state;
}

/* ------------------------------------------------ the qualified name --- */

/* The text being built, cut at its room. */
typedef struct dm_out {
    char *s;
    size_t len, at;
} dm_out;

static void dm_put(dm_out *o, const char *t, size_t n)
{
    while (n-- && o->at + 1 < o->len) o->s[o->at++] = *t++;
    o->s[o->at] = '\0';
}

static void dm_puts(dm_out *o, const char *t)
{
    dm_put(o, t, strlen(t));
}

/* A source name "<length><identifier>" at *p: the identifier in *id, *n;
 * *p past it. 0, or -1 (nothing read) when it is not one or runs past end. */
static int dm_source(const char **p, const char *end, const char **id, size_t *n)
{
    const char *q = *p;
    size_t v = 0;
    if (q == end || !isdigit((unsigned char)*q)) return -1;
    while (q < end && isdigit((unsigned char)*q)) {
        v = v * 10 + (size_t)(*q++ - '0');
        if (v > (size_t)(end - *p)) return -1;
    }
    if (v == 0 || (size_t)(end - q) < v) return -1;
    *id = q;
    *n = v;
    *p = q + v;
    return 0;
}

/* Skip *p past the digits and upper-case letters of a number or sequence
 * id and the '_' that ends it, where there is one. */
static void dm_skip_to_underscore(const char **p, const char *end)
{
    while (*p < end && (isdigit((unsigned char)**p) || isupper((unsigned char)**p))) (*p)++;
    if (*p < end && **p == '_') (*p)++;
}

/* Skip one bracketed piece that starts at *p ('I' template arguments,
 * say) to the 'E' that closes it, counting what opens and closes inside.
 * A literal, a source name, a template parameter or a substitution is
 * passed over whole. 0, or -1 when the end came first (a name cut short). */
static int dm_skip_group(const char **p, const char *end)
{
    size_t depth = 0;
    const char *id;
    size_t n;

    while (*p < end) {
        char c = **p, d = *p + 1 < end ? (*p)[1] : '\0';
        if (isdigit((unsigned char)c)) {
            if (dm_source(p, end, &id, &n) != 0) (*p)++;
        } else if (c == 'E') {
            (*p)++;
            if (--depth == 0) return 0;
        } else if (c == 'L' && d == '_') {
            *p += 2;                        /* L_Z <encoding> E */
            depth++;
        } else if (c == 'L' && d != 'Z') {
            while (*p < end && **p != 'E') (*p)++;   /* a literal: L <type> <value> E */
            if (*p < end) (*p)++;
        } else if (c == 'T' || (c == 'S' && !strchr("tabsiod", d)) || c == 'A') {
            (*p)++;
            dm_skip_to_underscore(p, end);
        } else if (c == 'S' || ((c == 'C' || c == 'D') && isdigit((unsigned char)d))) {
            *p += 2;
        } else if (c == 'D' && (d == 'v' || d == 'F')) {
            *p += 2;
            dm_skip_to_underscore(p, end);
        } else if (c == 'D' && (d == 'T' || d == 't')) {
            *p += 2;
            depth++;
        } else if (c == 'D' && d) {
            *p += 2;
        } else if (c == 'U' && d == 't') {
            *p += 2;
            dm_skip_to_underscore(p, end);
        } else if (c == 'U' && d == 'l') {
            *p += 2;
            depth++;
        } else if (strchr("INZXJF", c)) {
            (*p)++;
            depth++;
        } else {
            (*p)++;
        }
    }
    return -1;
}

/* One more scope of a nested name: "::" before all but the first. */
static void dm_scope(dm_out *o, size_t *ncomp, const char *id, size_t n)
{
    if ((*ncomp)++) dm_puts(o, "::");
    if (n >= 10 && strncmp(id, "_GLOBAL__N", 10) == 0) dm_puts(o, "(anonymous namespace)");
    else dm_put(o, id, n);
}

/* The parts of a nested name "N ... E" (after the N) into o, as far as
 * they read; *p past them. The number of scopes read. */
static size_t dm_nested(const char **p, const char *end, dm_out *o)
{
    const char *id = NULL, *last = NULL;
    size_t n = 0, nlast = 0, ncomp = 0;

    while (*p < end && strchr("rVKRO", **p)) (*p)++;
    while (*p < end) {
        char c = **p, d = *p + 1 < end ? (*p)[1] : '\0';
        if (c == 'E') {
            (*p)++;
            break;
        }
        if (isdigit((unsigned char)c)) {
            if (dm_source(p, end, &id, &n) != 0) break;
            dm_scope(o, &ncomp, id, n);
            last = id;
            nlast = n;
        } else if (c == 'S' && d == 't') {
            *p += 2;
            dm_scope(o, &ncomp, "std", 3);
        } else if (c == 'L') {
            (*p)++;
        } else if (c == 'I' && ncomp) {
            dm_puts(o, "<...>");
            if (dm_skip_group(p, end) != 0) break;
        } else if (c == 'B') {
            (*p)++;                         /* an ABI tag: left out */
            if (dm_source(p, end, &id, &n) != 0) break;
        } else if ((c == 'C' || c == 'D') && isdigit((unsigned char)d) && last) {
            *p += 2;
            dm_puts(o, c == 'C' ? "::" : "::~");
            dm_put(o, last, nlast);
        } else if (c == 'U' && d == 'l' && ncomp) {
            dm_puts(o, "::{lambda}");
            if (dm_skip_group(p, end) != 0) break;
            dm_skip_to_underscore(p, end);
        } else {
            break;                          /* an operator, a substitution: not read */
        }
    }
    return ncomp;
}

/* dm's own reading of a C++ symbol's qualified name, for what
 * __cxa_demangle refused: "at::native::reduce_kernel<...>" and
 * DM_PARTLY into out. 0, or -1 when not even that reads. */
static int dm_prefix(const char *name, size_t n, char *out, size_t len)
{
    const char *p = name + 2, *end = name + n, *id;
    size_t idn, ncomp = 0;
    dm_out o = { out, len, 0 };

    out[0] = '\0';
    while (p < end && *p == 'L') p++;
    if (p < end && *p == 'N') {
        p++;
        ncomp = dm_nested(&p, end, &o);
    } else {
        if (end - p >= 2 && p[0] == 'S' && p[1] == 't') {
            p += 2;
            dm_puts(&o, "std::");
        }
        if (dm_source(&p, end, &id, &idn) == 0) {
            dm_put(&o, id, idn);
            ncomp = 1;
            if (p < end && *p == 'I') dm_puts(&o, "<...>");
        }
    }
    if (ncomp == 0) return -1;
    dm_puts(&o, DM_PARTLY);
    return 0;
}

/* Whether the name is made only of a symbol's characters. */
static int dm_symbol_chars(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '$') return 0;
    return 1;
}

/* Whether the demangled name stays below DM_MAX_OUT bytes however its
 * substitutions and template parameters ("S0_", "T_") refer back: each
 * can multiply what is printed, by at most about 1.45 (e^(1/e), a
 * back-reference repeated k times costs k of them), so the name's length
 * times 1.5 to the power of their count is the bound used. */
static int dm_bounded(const char *s, size_t n)
{
    double bound = (double)n;
    size_t i;
    for (i = 0; i + 1 < n; i++) {
        size_t k = i + 1;
        if (s[i] != 'S' && s[i] != 'T') continue;
        while (k < n && (isdigit((unsigned char)s[k]) || (s[i] == 'S' && isupper((unsigned char)s[k]))))
            k++;
        if (k < n && s[k] == '_' && (bound *= 1.5) > DM_MAX_OUT) return 0;
    }
    return 1;
}

dm_status dm_demangle(const char *name, char *out, size_t len)
{
    size_t n;
    if (!out || len == 0) return DM_AS_IS;
    if (!name) name = "";
    n = strnlen(name, DM_MAX_SHORT + 1);
    snprintf(out, len, "%s", name);
    if (n < 3 || name[0] != '_' || name[1] != 'Z' || !dm_symbol_chars(name, n)) return DM_AS_IS;
    if (dm_open(NULL, 0) != 0) return DM_AS_IS;
    if (n <= DM_MAX_IN && dm_bounded(name, n)) {
        int status = -1;
        char *d = dm_cxa(name, NULL, NULL, &status);
        if (d && status == 0) {
            snprintf(out, len, "%s", d);
            free(d);
            return DM_DEMANGLED;
        }
        free(d);
    }
    if (dm_prefix(name, n, out, len) == 0) return DM_PREFIX;
    snprintf(out, len, "%s", name);
    return DM_AS_IS;
}

/* ------------------------------------------------------- shortening --- */

static int dm_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* How many bytes from s[i] are read as text whatever brackets they hold:
 * an operator's name ("operator<<", "operator()"), "(anonymous
 * namespace)", a lambda's or unnamed type's "{...}"; 0 for none. */
static size_t dm_opaque(const char *s, size_t n, size_t i)
{
    static const char anon[] = "(anonymous namespace)";
    if (n - i >= 8 && strncmp(s + i, "operator", 8) == 0 && (i == 0 || !dm_ident(s[i - 1])) &&
        (n - i == 8 || !dm_ident(s[i + 8]))) {
        size_t k = i + 8;
        if (n - k >= 2 && (strncmp(s + k, "()", 2) == 0 || strncmp(s + k, "[]", 2) == 0)) return 10;
        while (k < n && strchr("<>=!-+*/%^&|~,", s[k])) k++;
        return k - i;
    }
    if (n - i >= sizeof anon - 1 && strncmp(s + i, anon, sizeof anon - 1) == 0) return sizeof anon - 1;
    if (s[i] == '{') {
        size_t k = i, depth = 0;
        for (; k < n; k++) {
            if (s[k] == '{') depth++;
            else if (s[k] == '}' && --depth == 0) return k + 1 - i;
        }
        return n - i;
    }
    return 0;
}

/* Where a parenthesis that opens at s[i] closes (n when it does not). */
static size_t dm_close_paren(const char *s, size_t n, size_t i)
{
    size_t depth = 0;
    for (; i < n; i++) {
        if (s[i] == '(') depth++;
        else if (s[i] == ')' && --depth == 0) return i;
    }
    return n;
}

/* Whether s[0..i) ends with word (a whole word, spaces before i skipped). */
static int dm_ends_with_word(const char *s, size_t i, const char *word)
{
    size_t w = strlen(word);
    while (i > 0 && s[i - 1] == ' ') i--;
    return i >= w && strncmp(s + i - w, word, w) == 0 && (i == w || !dm_ident(s[i - w - 1]));
}

/* The function's name in s[0..n): without a return type before it and a
 * parameter list (and what follows it) after it, into *from, *to. */
static void dm_function_name(const char *s, size_t n, size_t *from, size_t *to)
{
    size_t i = 0, angle = 0, space = 0, op = n, k;
    int have_space = 0;

    *from = 0;
    *to = n;
    while (i < n) {
        char c = s[i];
        if ((k = dm_opaque(s, n, i)) > 0) {
            if (angle == 0 && strncmp(s + i, "operator", 8) == 0 && op == n) op = i;
            i += k;
            continue;
        }
        if (c == '<') angle++;
        else if (c == '>' && angle) angle--;
        else if (c == '(' && angle == 0) {
            if (dm_ends_with_word(s, i, "decltype") || dm_ends_with_word(s, i, "sizeof") ||
                dm_ends_with_word(s, i, "noexcept") || i == 0) {
                i = dm_close_paren(s, n, i) + 1;
                continue;
            }
            *to = i;
            break;
        } else if (c == ' ' && angle == 0 && i < op) {
            space = i;
            have_space = 1;
        }
        i++;
    }
    if (have_space && space + 1 < *to) *from = space + 1;
    while (*to > *from && s[*to - 1] == ' ') (*to)--;
}

/* The deepest level of template arguments in s[0..n) (1: "a<b>"). */
static size_t dm_depth(const char *s, size_t n)
{
    size_t i = 0, angle = 0, most = 0, k;
    while (i < n) {
        if ((k = dm_opaque(s, n, i)) > 0) {
            i += k;
            continue;
        }
        if (s[i] == '<' && ++angle > most) most = angle;
        else if (s[i] == '>' && angle) angle--;
        i++;
    }
    return most;
}

/* s[0..n) with every template argument list at level >= level written
 * "<...>", into o; its length. */
static size_t dm_collapse(const char *s, size_t n, size_t level, char *o)
{
    size_t i = 0, angle = 0, at = 0, k;
    while (i < n) {
        if ((k = dm_opaque(s, n, i)) > 0) {
            if (angle < level) {
                memcpy(o + at, s + i, k);
                at += k;
            }
            i += k;
            continue;
        }
        if (s[i] == '<') {
            if (++angle < level) {
                o[at++] = '<';
            } else if (angle == level) {
                memcpy(o + at, "<...>", 5);
                at += 5;
            }
        } else if (s[i] == '>' && angle) {
            if (angle-- < level) o[at++] = '>';
        } else if (angle < level) {
            o[at++] = s[i];
        }
        i++;
    }
    o[at] = '\0';
    return at;
}

/* Where the first scope to keep starts, so that "..." and s[from..n) fit
 * width; n when no "::" at the top level gives that. */
static size_t dm_scope_cut(const char *s, size_t n, size_t width)
{
    size_t i = 0, angle = 0, k;
    while (i + 1 < n) {
        if ((k = dm_opaque(s, n, i)) > 0) {
            i += k;
            continue;
        }
        if (s[i] == '<') angle++;
        else if (s[i] == '>' && angle) angle--;
        else if (angle == 0 && s[i] == ':' && s[i + 1] == ':' && n - i + 1 <= width) return i;
        i++;
    }
    return n;
}

/* s[0..n) into out (room len), cut to width with "..." at its end. */
static void dm_cut(const char *s, size_t n, size_t width, char *out, size_t len)
{
    if (n <= width) {
        snprintf(out, len, "%.*s", (int)n, s);
        return;
    }
    if (width <= 3) {
        snprintf(out, len, "%.*s", (int)width, s);
        return;
    }
    snprintf(out, len, "%.*s...", (int)(width - 3), s);
}

void dm_shorten(const char *name, size_t width, char *out, size_t len)
{
    size_t n, from, to, level, pl = strlen(DM_PARTLY), mark = 0, cut;
    char *a, *b;

    if (!out || len == 0) return;
    if (!name) name = "";
    if (width > len - 1) width = len - 1;
    n = strnlen(name, DM_MAX_SHORT);
    if (n <= width) {
        snprintf(out, len, "%.*s", (int)n, name);
        return;
    }
    a = malloc(n * 3 + 8);              /* "<...>" for each "<>" still fits */
    b = malloc(n * 3 + 8);
    if (!a || !b) {
        free(a);
        free(b);
        dm_cut(name, n, width, out, len);
        return;
    }
    /* DM_PARTLY is dm's own mark: kept at the end while it fits beside a
     * few bytes of the name. */
    if (n > pl && strcmp(name + n - pl, DM_PARTLY) == 0 && width >= pl + 8) mark = pl;
    dm_function_name(name, n - mark, &from, &to);
    memcpy(a, name + from, to - from);
    n = to - from;
    a[n] = '\0';
    width -= mark;
    level = dm_depth(a, n);
    if (level > DM_MAX_LEVELS) {
        n = dm_collapse(a, n, DM_MAX_LEVELS, b);
        memcpy(a, b, n + 1);
        level = DM_MAX_LEVELS;
    }
    for (; level > 0 && n > width; level--) {
        n = dm_collapse(a, n, level, b);
        memcpy(a, b, n + 1);
    }
    if (n > width && (cut = dm_scope_cut(a, n, width)) < n) {
        memcpy(b, "...", 3);
        memcpy(b + 3, a + cut + 2, n - cut - 2);
        n = n - cut + 1;
        memcpy(a, b, n);
        a[n] = '\0';
    }
    dm_cut(a, n, width, out, len);
    if (mark) snprintf(out + strlen(out), len - strlen(out), "%s", DM_PARTLY);
    free(a);
    free(b);
}

dm_status dm_table_name(const char *name, size_t width, char *out, size_t len)
{
    char *full;
    size_t room;
    dm_status st;

    if (!out || len == 0) return DM_AS_IS;
    room = (name ? strnlen(name, DM_MAX_SHORT) : 0) * 4 + 64;
    if (!(full = malloc(room))) {
        dm_shorten(name, width, out, len);
        return DM_AS_IS;
    }
    st = dm_demangle(name, full, room);
    dm_shorten(full, width, out, len);
    free(full);
    return st;
}
