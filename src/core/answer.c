/* answer.c: the answers sections store, and the summary printed from them
 * (answer.h). The summary reads the results only. */
#include "core/answer.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

res_derived *an_store(results *r, const char *section, const char *key, const char *name,
                      double value, const char *unit, const char *fmt, ...)
{
    char k[128], text[1024];
    res_derived *d;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(k, sizeof k, AN_PREFIX "%s", key);
    if (!(d = res_derive(r, section, k, name, value, unit, text)))
        fprintf(stderr, "harness: %s: out of memory storing its answer %s\n", section, key);
    return d;
}

char *an_num(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (isnan(v)) snprintf(buf, len, "-");
    else if (a >= 100 || a == 0) snprintf(buf, len, "%.0f", v);
    else if (a >= 10) snprintf(buf, len, "%.1f", v);
    else if (a >= 1) snprintf(buf, len, "%.2f", v);
    else snprintf(buf, len, "%.3g", v);
    return buf;
}

/* The summary is built as lines first, then printed: the budget needs
 * each answer's line count before any is printed. */
#define AN_LINE 512
#define AN_WRAP 24      /* lines one answer may take before it is cut */
typedef struct an_lines {
    char line[AN_WRAP][AN_LINE];
    size_t n;
} an_lines;

/* 1 when text is a sentence: a capital first and a full stop last. */
static int an_sentence(const char *text)
{
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == ' ') n--;
    return n > 1 && text[0] >= 'A' && text[0] <= 'Z' && text[n - 1] == '.';
}

/* text broken at spaces into lines of at most width columns, the first
 * starting with first, the others with indent (a word longer than a line
 * stands alone, cut at AN_LINE); beyond AN_WRAP lines the rest is dropped. */
static void an_wrap(an_lines *L, const char *first, const char *indent, size_t width,
                    const char *text)
{
    const char *p = text, *lead = first;

    L->n = 0;
    while (*p && L->n < AN_WRAP) {
        size_t room = width > strlen(lead) ? width - strlen(lead) : 1, n = 0, cut = 0;
        while (*p == ' ') p++;
        if (!*p) break;
        while (p[n] && n < room) {
            if (p[n] == ' ') cut = n;
            n++;
        }
        if (p[n] && cut > 0 && p[n] != ' ') n = cut;
        else if (p[n] && cut == 0) while (p[n] && p[n] != ' ') n++;
        snprintf(L->line[L->n++], AN_LINE, "%s%.*s", lead, (int)n, p);
        p += n;
        lead = indent;
    }
}

/* Append page to the last line of L, right-aligned at width, where it
 * fits; returns 1 when it did. */
static int an_page(an_lines *L, const char *page, size_t width)
{
    char *last;
    size_t len;

    if (!L->n || !page) return 0;
    last = L->line[L->n - 1];
    len = strlen(last);
    if (len + 2 + strlen(page) > width || width >= AN_LINE) return 0;
    snprintf(last + len, AN_LINE - len, "%*s", (int)(width - len), page);
    return 1;
}

/* Whether section s is one of sections[0..n). */
static int an_listed(const char *s, const char *const *sections, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(s, sections[i]) == 0) return 1;
    return 0;
}

/* The answers of the sections named, in order: indices into r->d. */
static size_t an_collect(const results *r, const char *const *sections, size_t nsections,
                         size_t *idx, size_t max)
{
    size_t i, j, n = 0;
    for (j = 0; j < nsections; j++)
        for (i = 0; i < r->nd && n < max; i++)
            if (strcmp(r->d[i].section, sections[j]) == 0 &&
                strncmp(r->d[i].key, "answer.", 7) == 0)
                idx[n++] = i;
    return n;
}

/* The last lines (at most 2) into L: checks, skips, run time and exit code. */
static void an_tail(an_lines *L, const results *r, const char *const *sections, size_t nsections,
                    const an_run *run)
{
    char text[2048];
    size_t i, len = 0, failed = res_failed(r), nskip = 0;

    for (i = 0; i < r->nskip; i++)
        if (an_listed(r->skip[i].section, sections, nsections)) nskip++;
    len += (size_t)snprintf(text, sizeof text, "Run time %.1f s; exit code %d%s", run->seconds,
                            run->exit_code, r->incomplete ? " (the run is incomplete)" : "");
    if (r->ncheck && len < sizeof text)
        len += (size_t)snprintf(text + len, sizeof text - len, "; checks: %zu passed, %zu failed",
                                r->ncheck - failed, failed);
    for (i = 0; i < r->ncheck && failed && len < sizeof text; i++)
        if (!r->check[i].passed) {
            len += (size_t)snprintf(text + len, sizeof text - len, " (the first: %s: %s)",
                                    r->check[i].section, r->check[i].what);
            break;
        }
    if (nskip && len < sizeof text) {
        size_t k = 0;
        len += (size_t)snprintf(text + len, sizeof text - len, "; skipped: ");
        for (i = 0; i < r->nskip && len < sizeof text; i++)
            if (an_listed(r->skip[i].section, sections, nsections) &&
                (i == 0 || strcmp(r->skip[i].section, r->skip[i - 1].section) != 0))
                len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", k++ ? ", " : "",
                                        r->skip[i].section);
    }
    if (len < sizeof text) snprintf(text + len, sizeof text - len, ".");
    an_wrap(L, "", "  ", run->width, text);
    if (L->n > 2) L->n = 2;
}

void an_summary(FILE *f, const results *r, const char *const *sections, size_t nsections,
                const an_run *run)
{
    an_lines *L, T;
    size_t idx[64], n, i, used = 0, avail, total = 0, shown;
    const char *one = NULL;
    char page[96], line[2048];
    int same = 1;

    const results *ar = run->answers ? run->answers : r;

    n = an_collect(ar, sections, nsections, idx, sizeof idx / sizeof idx[0]);
    for (i = 0; i < n; i++) {
        if (!one) one = ar->d[idx[i]].section;
        else if (strcmp(one, ar->d[idx[i]].section) != 0) same = 0;
    }
    if (run->answers) same = 0;         /* a device's: each line names its page */
    if (!(L = calloc(n ? n : 1, sizeof *L))) n = 0;
    /* One section's answers name its page once, in the heading. */
    fprintf(f, "\n");
    if (!n) fprintf(f, "No answers: no section stored one (see above, and the JSON).\n");
    else if (run->answers)
        fprintf(f, "Answers, device %d (the others' are in the JSON):\n", run->device);
    else if (same) fprintf(f, "Answers (docs/%s.md explains them):\n", one);
    else fprintf(f, "Answers (each line's page is in docs/):\n");
    an_tail(&T, r, sections, nsections, run);
    avail = AN_MAX_LINES - 2 - T.n;
    for (i = 0; i < n; i++) {
        const res_derived *d = &ar->d[idx[i]];
        /* A sentence (a capital first, a full stop last) stands alone; a
         * figure's line ("PTX of 10 kernels loaded in ...") follows the
         * name of what it answers. */
        if (an_sentence(d->text)) snprintf(line, sizeof line, "%s", d->text);
        else snprintf(line, sizeof line, "%s: %s", d->name, d->text);
        an_wrap(&L[i], "  ", "    ", run->width, line);
        if (!same) {
            snprintf(page, sizeof page, "%s.md", d->section);
            if (!an_page(&L[i], page, run->width) && L[i].n < AN_WRAP) {
                snprintf(L[i].line[L[i].n], AN_LINE, "%*s", (int)(run->width < AN_LINE
                         ? run->width : AN_LINE - 1), page);
                L[i].n++;
            }
        }
        total += L[i].n;
    }
    for (shown = 0; shown < n; shown++) {
        size_t need = L[shown].n;
        if (total > avail && used + need > avail - 1) break;
        for (i = 0; i < need; i++) fprintf(f, "%s\n", L[shown].line[i]);
        used += need;
    }
    if (shown < n)
        fprintf(f, "  and %zu more, above and in the JSON\n", n - shown);
    for (i = 0; i < T.n; i++) fprintf(f, "%s\n", T.line[i]);
    free(L);
}
