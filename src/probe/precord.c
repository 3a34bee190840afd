/* precord.c: the program record's schema (precord.h) and its reader. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe/precord.h"

const prc_fig prc_figs[PRC_NFIGS] = {
#define PRC_FIG_ROW(id, key, unit, name, region, proc) [PRC_F_##id] = { key, unit, name, region, proc },
    PRC_FIGS(PRC_FIG_ROW)
#undef PRC_FIG_ROW
};

const char *const prc_fail_calls[PRC_NFAIL_CALLS] = {
    "cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary",
    "cuLibraryLoadData", "cuLibraryLoadFromFile", "cuModuleGetFunction", "cuLibraryGetKernel",
    "cuKernelGetFunction", "cuFuncLoad", "cuLaunchKernel", "cuLaunchKernel_ptsz",
    "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz", "cuLaunchCooperativeKernel",
    "cuLaunchCooperativeKernel_ptsz", "cuDevicePrimaryCtxRetain", "cuCtxCreate_v2",
    "cuCtxCreate_v3", "cuCtxCreate_v4", "cuMemAlloc_v2", "cuMemAllocPitch_v2", "cuMemAllocAsync",
    "cuMemAllocAsync_ptsz", "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz", "cuMemCreate",
};

int prc_fail_text(const char *text, char *call, size_t callen, char *err, size_t errlen)
{
    const char *sp = strchr(text, ' '), *e;
    size_t n, i;

    if (!sp) return -1;
    n = (size_t)(sp - text);
    for (i = 0; i < PRC_NFAIL_CALLS; i++)
        if (strlen(prc_fail_calls[i]) == n && strncmp(prc_fail_calls[i], text, n) == 0) break;
    if (i == PRC_NFAIL_CALLS || n >= callen) return -1;
    e = sp + 1;
    n = strlen(e);
    if (n == 0 || n > 63 || n >= errlen) return -1;
    if (strcmp(e, "?") != 0 && strspn(e, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n) return -1;
    memcpy(call, text, (size_t)(sp - text));
    call[sp - text] = '\0';
    memcpy(err, e, n + 1);
    return 0;
}

const prc_fig *prc_fig_find(const char *key)
{
    size_t i;
    for (i = 0; i < PRC_NFIGS; i++)
        if (strcmp(prc_figs[i].key, key) == 0) return &prc_figs[i];
    return NULL;
}

/* ------------------------------------------------------------ reading --- */

#define PRC_MAX_MS 1e9
#define PRC_MAX_MIB 1e8
#define PRC_MAX_COUNT 1e12

/* The line starting at p (up to end) begins with word and a tab. */
static int prc_starts(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) > n && strncmp(p, word, n) == 0 && p[n] == '\t';
}

/* The most env fields a record has (PRC_ENV_FIELDS). */
static size_t prc_nenv(void)
{
    static const char *const fields[] = {
#define X(k) #k,
        PRC_ENV_FIELDS
#undef X
    };
    return sizeof fields / sizeof fields[0];
}

/* One more line of a kind that a record holds at most max of; -1 with why
 * past that. Counting before anything is parsed keeps the reading linear:
 * the line form's reader looks each key up among those read, so a record
 * of a million figure lines would take hours (it is refused here in
 * milliseconds). */
static int prc_count(size_t *n, size_t max, const char *what, size_t lineno, char *why,
                     size_t whylen)
{
    if (++*n <= max) return 0;
    snprintf(why, whylen, "line %zu: more than %zu %s lines, the most a record has", lineno, max,
             what);
    return -1;
}

/* Every line is a record of the line form (env, m, d), a span or the end
 * line, which is the last; no kind more often than the schema allows
 * (spans: PRC_MAX_SPANS); the end line's fields into *pid and *records,
 * the spans counted into *nspans. One pass over the text. Returns 0, or -1
 * with why. */
static int prc_scan(const char *text, long *pid, long *records, size_t *nspans, int *nincomplete,
                    char *why, size_t whylen)
{
    const char *p, *end;
    size_t lineno = 0, nenv = 0, nm = 0, nd = 0;
    int ended = 0;

    *nspans = 0;
    *nincomplete = 0;
    for (p = text; *p; p = *end ? end + 1 : end) {
        char *stop;
        if (!(end = strchr(p, '\n'))) end = p + strlen(p);
        lineno++;
        if (ended) {
            snprintf(why, whylen, "line %zu: a line after the end line", lineno);
            return -1;
        }
        if (prc_starts(p, end, "span")) {
            if (prc_count(nspans, PRC_MAX_SPANS, "span", lineno, why, whylen) != 0) return -1;
        } else if (prc_starts(p, end, "env")) {
            if (prc_count(&nenv, prc_nenv(), "env", lineno, why, whylen) != 0) return -1;
        } else if (prc_starts(p, end, "m") || prc_starts(p, end, "d")) {
            int fig = *p == 'm';
            if (prc_count(fig ? &nm : &nd, fig ? PRC_NFIGS : PRC_SLOWEST + PRC_MAX_USES + PRC_MAX_LOADS + PRC_MAX_FAILS,
                          fig ? "figure (m)" : "derived (d)", lineno, why, whylen) != 0)
                return -1;
            if ((size_t)(end - p) > PRC_MAX_LINE) {
                snprintf(why, whylen, "line %zu: a %s line of %zu bytes, more than %d", lineno,
                         fig ? "figure" : "derived", (size_t)(end - p), PRC_MAX_LINE);
                return -1;
            }
        } else if (prc_starts(p, end, "incomplete")) {
            /* res_write_lines ends its records so; a probe's is never 1. */
            if (end - p != 12 || p[11] != '0' || (*nincomplete)++) {
                snprintf(why, whylen, "line %zu: an incomplete line other than one \"incomplete 0\"",
                         lineno);
                return -1;
            }
        } else if (prc_starts(p, end, "end")) {
            *pid = strtol(p + 4, &stop, 10);
            if (*stop != '\t') goto bad_end;
            *records = strtol(stop + 1, &stop, 10);
            if (stop != end || *records < 0) goto bad_end;
            ended = 1;
        } else {
            snprintf(why, whylen, "line %zu: neither a record (env, m, d), a span nor the end", lineno);
            return -1;
        }
        if (!*end) break;
    }
    if (!ended) {
        snprintf(why, whylen, "truncated: no end line");
        return -1;
    }
    return 0;
bad_end:
    snprintf(why, whylen, "line %zu: a malformed end line", lineno);
    return -1;
}

/* A figure's value within its unit's bounds. */
static int prc_in_bounds(const prc_fig *f, double v)
{
    double max = strcmp(f->unit, "count") == 0 ? PRC_MAX_COUNT
               : strcmp(f->unit, "MiB") == 0 ? PRC_MAX_MIB : PRC_MAX_MS;
    if (!isfinite(v) || v < 0 || v > max) return 0;
    return strcmp(f->unit, "count") != 0 || v == floor(v);
}

/* The env fields: only the schema's, the format and version this harness
 * writes, the pid of the file. */
static int prc_check_env(const results *r, long pid, char *why, size_t whylen)
{
    static const char *const fields[] = {
#define X(k) #k,
        PRC_ENV_FIELDS
#undef X
    };
    const res_kv *kv;
    size_t i, j;

    for (i = 0; i < r->nenv; i++) {
        for (j = 0; j < sizeof fields / sizeof fields[0] && strcmp(fields[j], r->env[i].key); j++)
            ;
        if (j == sizeof fields / sizeof fields[0]) {
            snprintf(why, whylen, "env field %.60s is not one of the record's", r->env[i].key);
            return -1;
        }
    }
    kv = res_env_get(r, "record");
    if (!kv || kv->kind != RES_STR || !kv->str || strcmp(kv->str, PRC_FORMAT) != 0) {
        snprintf(why, whylen, "not a record of format \"%s\"", PRC_FORMAT);
        return -1;
    }
    kv = res_env_get(r, "version");
    if (!kv || kv->kind != RES_STR || !kv->str || strcmp(kv->str, HARNESS_VERSION) != 0) {
        snprintf(why, whylen, "written by probe version %.40s, not this harness's %s",
                 kv && kv->kind == RES_STR && kv->str ? kv->str : "(none)", HARNESS_VERSION);
        return -1;
    }
    kv = res_env_get(r, "pid");
    if (!kv || kv->kind != RES_NUM || kv->num != (double)pid) {
        snprintf(why, whylen, "its pid is not the file's (%ld)", pid);
        return -1;
    }
    return 0;
}

/* The figures: the schema's, one sample each, in their units and bounds;
 * the "at." moments in order. */
static int prc_check_figs(const results *r, char *why, size_t whylen)
{
    static const prc_fig_id order[] = { PRC_F_AT_PROBE, PRC_F_AT_CONTEXT, PRC_F_AT_FIRST_KERNEL,
                                        PRC_F_AT_EXIT };
    double last = -1;
    size_t i;

    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        const prc_fig *f = prc_fig_find(m->key);
        if (strcmp(m->section, PRC_SECTION) != 0 || !f) {
            snprintf(why, whylen, "figure %.40s/%.60s is not one of the record's", m->section, m->key);
            return -1;
        }
        if (m->nsamples != 1 || strcmp(m->unit, f->unit) != 0 || m->state != RES_PROCESS) {
            snprintf(why, whylen, "figure %s: expected one sample in %s, state process", f->key, f->unit);
            return -1;
        }
        if (!prc_in_bounds(f, m->samples[0])) {
            snprintf(why, whylen, "figure %s: %g is out of its bounds", f->key, m->samples[0]);
            return -1;
        }
        if (res_find(r, PRC_SECTION, m->key) != m) {
            snprintf(why, whylen, "figure %s given twice", f->key);
            return -1;
        }
    }
    for (i = 0; i < sizeof order / sizeof order[0]; i++) {
        const res_meas *m = res_find(r, PRC_SECTION, prc_figs[order[i]].key);
        if (!m) continue;
        if (m->samples[0] < last) {
            snprintf(why, whylen, "figure %s comes before an earlier moment", prc_figs[order[i]].key);
            return -1;
        }
        last = m->samples[0];
    }
    return 0;
}

/* A field of d that is absent or a number in [lo, hi]. */
static int prc_field_ok(const res_derived *d, const char *field, double lo, double hi)
{
    double v = res_derived_num(d, field);
    return isnan(v) || (v >= lo && v <= hi);
}

/* A failed call ("fail.<i>"): named, at a time in bounds, its text
 * "<call> <error>" (prc_fail_text), its error a whole number from 1, its
 * free memory absent or in bounds. */
static int prc_fail_ok(const res_derived *d)
{
    char call[48], err[64];
    double e = res_derived_num(d, "error");
    return d->name[0] && d->value >= 0 && d->value <= PRC_MAX_MS &&
           prc_fail_text(d->text, call, sizeof call, err, sizeof err) == 0 &&
           e >= 1 && e <= 1e6 && e == floor(e) && prc_field_ok(d, "free_mib", 0, PRC_MAX_MIB);
}

/* The derived entries, in this order: the slowest first uses
 * ("slowest.1" .. "slowest.N", each named, slowest first, with their two
 * parts), every first use ("use.1" .. , at most PRC_MAX_USES, each named,
 * at a time in bounds, its parts and memory in bounds), the loads after
 * the first kernel ("load.1" .., at most PRC_MAX_LOADS, "library" or
 * "module"), the failed calls ("fail.1" .., at most PRC_MAX_FAILS,
 * prc_fail_ok). Returns 0, or -1 with why. */
static int prc_check_derived(const results *r, char *why, size_t whylen)
{
    static const char *const kinds[4] = { "slowest", "use", "load", "fail" };
    static const size_t max[4] = { PRC_SLOWEST, PRC_MAX_USES, PRC_MAX_LOADS, PRC_MAX_FAILS };
    double last = INFINITY;
    size_t i, kind = 0, n = 0;

    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        char key[32];
        double g = res_derived_num(d, "get_ms"), l = res_derived_num(d, "launch_ms");
        for (;;) {
            snprintf(key, sizeof key, "%s.%zu", kinds[kind], n + 1);
            if (strcmp(d->key, key) == 0 || kind == 3) break;
            kind++;
            n = 0;
        }
        if (strcmp(d->section, PRC_SECTION) != 0 || strcmp(d->key, key) != 0 || n >= max[kind]) {
            snprintf(why, whylen, "entry %.40s/%.40s is not %s", d->section, d->key, key);
            return -1;
        }
        n++;
        if (kind == 0 && (!d->name[0] || !isfinite(d->value) || d->value < 0 || d->value > PRC_MAX_MS ||
                          d->value > last || !(g >= 0 && g <= PRC_MAX_MS) || !(l >= 0 && l <= PRC_MAX_MS))) {
            snprintf(why, whylen, "entry %s: a nameless, out-of-order or out-of-bounds first use", key);
            return -1;
        }
        if (kind == 0) last = d->value;
        if (kind == 1 && (!d->name[0] || !(d->value >= 0 && d->value <= PRC_MAX_MS) ||
                          !(g >= 0 && g <= PRC_MAX_MS) || !(l >= 0 && l <= PRC_MAX_MS) ||
                          !prc_field_ok(d, "later_n", 0, 1e12) || !prc_field_ok(d, "later_ms", 0, PRC_MAX_MS) ||
                          !prc_field_ok(d, "busy", 0, 1e6) ||
                          !prc_field_ok(d, "free_mib", 0, PRC_MAX_MIB) ||
                          !prc_field_ok(d, "took_mib", -PRC_MAX_MIB, PRC_MAX_MIB))) {
            snprintf(why, whylen, "entry %s: a nameless or out-of-bounds first use", key);
            return -1;
        }
        if (kind == 2 && ((strcmp(d->name, "library") != 0 && strcmp(d->name, "module") != 0) ||
                          !(d->value >= 0 && d->value <= PRC_MAX_MS) ||
                          !(res_derived_num(d, "ms") >= 0 && res_derived_num(d, "ms") <= PRC_MAX_MS) ||
                          !prc_field_ok(d, "n", 1, PRC_MAX_COUNT) || !prc_field_ok(d, "span_ms", 0, PRC_MAX_MS) ||
                          !prc_field_ok(d, "free_mib", 0, PRC_MAX_MIB) ||
                          !prc_field_ok(d, "took_mib", -PRC_MAX_MIB, PRC_MAX_MIB))) {
            snprintf(why, whylen, "entry %s: a load neither library nor module, or out of bounds", key);
            return -1;
        }
        if (kind == 3 && !prc_fail_ok(d)) {
            snprintf(why, whylen, "entry %s: a failed call without a name, a known call, an error "
                     "or in bounds", key);
            return -1;
        }
    }
    return 0;
}

/* The span lines, into rec->spans. Returns 0, or -1 with why. */
static int prc_read_spans(const char *text, prc_record *rec, size_t n, char *why, size_t whylen)
{
    const char *p, *end;

    if (n == 0) return 0;
    if (!(rec->spans = calloc(n, sizeof *rec->spans))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (p = text; *p; p = *end ? end + 1 : end) {
        if (!(end = strchr(p, '\n'))) end = p + strlen(p);
        if (prc_starts(p, end, "span")) {
            prc_span *s = &rec->spans[rec->nspans];
            const char *name = strchr(p + 5, '\t'), *tab;
            char *stop;
            s->tid = strtol(p + 5, &stop, 10);
            if (!name || stop != name || s->tid < 0) goto bad;
            name++;
            if (!(tab = memchr(name, '\t', (size_t)(end - name))) || tab == name ||
                (size_t)(tab - name) >= sizeof s->name)
                goto bad;
            memcpy(s->name, name, (size_t)(tab - name));
            s->start_ms = strtod(tab + 1, &stop);
            if (*stop != '\t') goto bad;
            s->ms = strtod(stop + 1, &stop);
            if (stop != end || !isfinite(s->start_ms) || !isfinite(s->ms) || s->start_ms < 0 ||
                s->ms < 0 || s->start_ms > PRC_MAX_MS || s->ms > PRC_MAX_MS)
                goto bad;
            rec->nspans++;
        }
        if (!*end) break;
    }
    return 0;
bad:
    snprintf(why, whylen, "span %zu: malformed", rec->nspans + 1);
    return -1;
}

int prc_read(const char *text, size_t len, long pid, prc_record *out, char *why, size_t whylen)
{
    char *buf = NULL;
    long end_pid = -1, records = -1;
    size_t nspans = 0;
    int n, nincomplete = 0;

    memset(out, 0, sizeof *out);
    res_init(&out->r);
    if (len > PRC_MAX_BYTES) {
        snprintf(why, whylen, "%zu bytes, more than a record may hold (%zu)", len, PRC_MAX_BYTES);
        return -1;
    }
    if (memchr(text, '\0', len)) {
        snprintf(why, whylen, "a NUL byte in the record");
        return -1;
    }
    if (!(buf = malloc(len + 1))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (prc_scan(buf, &end_pid, &records, &nspans, &nincomplete, why, whylen) != 0) goto bad;
    if (pid >= 0 && end_pid != pid) {
        snprintf(why, whylen, "its end line's pid %ld is not the file's %ld", end_pid, pid);
        goto bad;
    }
    if ((n = res_read_lines(&out->r, buf, why, whylen)) < 0) goto bad;
    if ((long)(n - nincomplete) != records) {
        snprintf(why, whylen, "truncated: %d records where the end line counts %ld", n - nincomplete,
                 records);
        goto bad;
    }
    if (prc_check_env(&out->r, end_pid, why, whylen) != 0 ||
        prc_check_figs(&out->r, why, whylen) != 0 ||
        prc_check_derived(&out->r, why, whylen) != 0 ||
        prc_read_spans(buf, out, nspans, why, whylen) != 0)
        goto bad;
    out->pid = end_pid;
    {
        const res_kv *kv = res_env_get(&out->r, "ppid");
        out->ppid = kv && kv->kind == RES_NUM && kv->num >= 0 && kv->num < 1e9 ? (long)kv->num : -1;
    }
    free(buf);
    return 0;
bad:
    free(buf);
    prc_free(out);
    return -1;
}

void prc_free(prc_record *rec)
{
    res_free(&rec->r);
    free(rec->spans);
    rec->spans = NULL;
    rec->nspans = 0;
}
