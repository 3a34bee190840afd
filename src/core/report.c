/* report.c: the run's JSON document and CSV table, written atomically. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/report.h"
#include "os/atomicfile.h"

/* ---------------------------------------------------------------- JSON --- */

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 where the
 * byte at p starts none (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, a sequence cut short). */
static size_t rp_utf8_len(const unsigned char *p)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    size_t n, i;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3;
    else if (c >= 0xf0 && c <= 0xf4) n = 4;
    else return 0;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (p[1] < lo || p[1] > hi) return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

void rp_json_str(FILE *f, const char *s)
{
    const unsigned char *p;
    size_t n;

    if (s == NULL) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    for (p = (const unsigned char *)s; *p; p += n ? n : 1) {
        n = rp_utf8_len(p);
        if (*p == '"' || *p == '\\') {
            putc('\\', f);
            putc(*p, f);
        } else if (*p < 0x20 || !n) {
            fprintf(f, "\\u%04x", (unsigned)*p);
        } else {
            fwrite(p, 1, n, f);
        }
    }
    putc('"', f);
}

/* A number that reads back exactly; non-finite values are written as null. */
static void json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x);
    else fputs("null", f);
}

/* `"name": value` inside an object, preceded by `sep`. */
static void json_key_str(FILE *f, const char *sep, const char *name,
                         const char *val)
{
    fputs(sep, f);
    rp_json_str(f, name);
    fputs(": ", f);
    rp_json_str(f, val);
}

static void json_key_num(FILE *f, const char *sep, const char *name, double val)
{
    fputs(sep, f);
    rp_json_str(f, name);
    fputs(": ", f);
    json_num(f, val);
}

/* `"device": {...}`, preceded by sep, for an entry of device d; nothing
 * when d is NULL (an entry of the run itself). */
static void json_device(FILE *f, const char *sep, const res_device *d)
{
    if (!d) return;
    fprintf(f, "%s\"device\": {\"ordinal\": %d", sep, d->ordinal);
    json_key_str(f, ", ", "name", d->name);
    json_key_str(f, ", ", "pci_bus_id", d->pci_bus_id);
    json_key_str(f, ", ", "uuid", d->uuid);
    putc('}', f);
}

static void json_meas(FILE *f, const res_meas *m, const res_device *d)
{
    const st_summary *s = &m->stats;
    size_t i;

    fputs("    {\n", f);
    json_key_str(f, "      ", "section", m->section);
    json_key_str(f, ", ", "key", m->key);
    json_device(f, ",\n      ", d);
    json_key_str(f, ",\n      ", "name", m->name);
    json_key_str(f, ",\n      ", "region", m->region);
    json_key_str(f, ",\n      ", "state", res_state_name(m->state));
    json_key_str(f, ", ", "unit", m->unit);
    fprintf(f, ", \"batch\": %ld, \"n\": %ld", m->batch, m->n);
    json_key_num(f, ", ", "bytes", m->bytes);
    json_key_num(f, ", ", "flops", m->flops);
    fprintf(f, ",\n      \"stats\": {\"n\": %zu", s->n);
    json_key_num(f, ", ", "min", s->min);
    json_key_num(f, ", ", "median", s->median);
    json_key_num(f, ", ", "mean", s->mean);
    json_key_num(f, ", ", "max", s->max);
    json_key_num(f, ",\n                ", "stdev", s->stdev);
    json_key_num(f, ", ", "cv", s->cv);
    json_key_num(f, ", ", "ci_low", s->ci_low);
    json_key_num(f, ", ", "ci_high", s->ci_high);
    json_key_num(f, ", ", "ci_level", s->ci_level);
    fprintf(f, "},\n      \"noisy\": %s, \"low_clock_samples\": %zu, \"host_only\": %s",
            m->noisy ? "true" : "false", m->low_clock, m->host_only ? "true" : "false");
    fputs(",\n      \"samples\": [", f);
    for (i = 0; i < m->nsamples; i++) {
        if (i) fputs(", ", f);
        json_num(f, m->samples[i]);
    }
    fputs("]", f);
    if (m->mhz) {
        fputs(",\n      \"clock_mhz\": [", f);
        for (i = 0; i < m->nsamples; i++) {
            if (i) fputs(", ", f);
            json_num(f, m->mhz[i]);
        }
        fputs("]", f);
    }
    fputs("\n    }", f);
}

/* One conclusion: its names, value, unit, text and supporting fields. */
static void json_derived(FILE *f, const res_derived *d, const res_device *dev)
{
    size_t i;

    fputs("    {", f);
    json_key_str(f, "", "section", d->section);
    json_key_str(f, ", ", "key", d->key);
    json_device(f, ", ", dev);
    json_key_str(f, ", ", "name", d->name);
    json_key_num(f, ", ", "value", d->value);
    json_key_str(f, ", ", "unit", d->unit);
    json_key_str(f, ", ", "text", d->text);
    fputs(", \"fields\": {", f);
    for (i = 0; i < d->nfields; i++) json_key_num(f, i ? ", " : "", d->fkey[i], d->fval[i]);
    fputs("}}", f);
}

/* The environment's fields, each preceded by sep0 (the first) or sep. */
static void json_env_fields(FILE *f, const results *r, const char *sep0, const char *sep)
{
    size_t i;

    for (i = 0; i < r->nenv; i++) {
        const res_kv *kv = &r->env[i];
        if (kv->kind == RES_STR) json_key_str(f, i ? sep : sep0, kv->key, kv->str);
        else json_key_num(f, i ? sep : sep0, kv->key, kv->num);
    }
}

/* The environment; a node run's adds "devices": each device's identity
 * and its own environment record. */
static void json_environment(FILE *f, const results *r)
{
    size_t i;

    fputs("  \"environment\": {", f);
    json_env_fields(f, r, "\n    ", ",\n    ");
    if (r->ndev) {
        fputs(r->nenv ? ",\n    \"devices\": [" : "\n    \"devices\": [", f);
        for (i = 0; i < r->ndev; i++) {
            const res_device *d = &r->dev[i];
            fprintf(f, "%s{\"ordinal\": %d", i ? ",\n      " : "\n      ", d->ordinal);
            json_key_str(f, ", ", "name", d->name);
            json_key_str(f, ", ", "pci_bus_id", d->pci_bus_id);
            json_key_str(f, ", ", "uuid", d->uuid);
            fputs(", \"environment\": {", f);
            json_env_fields(f, d->own, "", ", ");
            fputs("}}", f);
        }
        fputs("\n    ]", f);
    }
    fputs(r->nenv || r->ndev ? "\n  },\n" : "},\n", f);
}

/* The entries of kind `what` of x (the run, d NULL, or device d's own),
 * each opened with ",\n" after the first of the whole list (*n so far). */
enum { RP_SKIPS, RP_CHECKS, RP_DERIVED, RP_MEAS };
static void json_entries(FILE *f, int what, const results *x, const res_device *d, size_t *n)
{
    size_t i, count = what == RP_SKIPS ? x->nskip : what == RP_CHECKS ? x->ncheck
                    : what == RP_DERIVED ? x->nd : x->nm;

    for (i = 0; i < count; i++, (*n)++) {
        fputs(*n ? ",\n" : "\n", f);
        if (what == RP_SKIPS) {
            json_key_str(f, "    {", "section", x->skip[i].section);
            json_device(f, ", ", d);
            json_key_str(f, ", ", "reason", x->skip[i].reason);
            putc('}', f);
        } else if (what == RP_CHECKS) {
            json_key_str(f, "    {", "section", x->check[i].section);
            json_device(f, ", ", d);
            json_key_str(f, ", ", "what", x->check[i].what);
            fprintf(f, ", \"passed\": %s", x->check[i].passed ? "true" : "false");
            json_key_str(f, ", ", "detail", x->check[i].detail);
            putc('}', f);
        } else if (what == RP_DERIVED) {
            json_derived(f, &x->d[i], d);
        } else {
            json_meas(f, &x->m[i], d);
        }
    }
}

/* "name": [ the run's entries of kind what, then each device's ]. */
static void json_list(FILE *f, const char *name, int what, const results *r, int last)
{
    size_t n = 0, i;

    fprintf(f, "  \"%s\": [", name);
    json_entries(f, what, r, NULL, &n);
    for (i = 0; i < r->ndev; i++) json_entries(f, what, r->dev[i].own, &r->dev[i], &n);
    fputs(n ? "\n  ]" : "]", f);
    fputs(last ? "\n" : ",\n", f);
}

int rp_json(FILE *f, const results *r)
{
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"incomplete\": %s,\n",
            RES_SCHEMA_VERSION, r->incomplete ? "true" : "false");
    json_environment(f, r);
    json_list(f, "skipped", RP_SKIPS, r, 0);
    json_list(f, "checks", RP_CHECKS, r, 0);
    json_list(f, "derived", RP_DERIVED, r, 0);
    json_list(f, "measurements", RP_MEAS, r, 1);
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

/* ----------------------------------------------------------------- CSV --- */

/* A CSV field, quoted as RFC 4180 says when it holds , " CR or LF. */
static void csv_str(FILE *f, const char *s)
{
    const char *p;

    if (s == NULL) return;
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    for (p = s; *p; p++) {
        if (*p == '"') putc('"', f);
        putc(*p, f);
    }
    putc('"', f);
}

/* A number as a CSV field, preceded by a comma; non-finite is empty. */
static void csv_num(FILE *f, double x)
{
    putc(',', f);
    if (isfinite(x)) fprintf(f, "%.9g", x);
}

/* The rows of x's measurements; device: its ordinal, or -1 (the run's:
 * the rows of the user's program name its GPU's bus id there, where NVML
 * named it: env program_gpu_bus_id). */
static void csv_rows(FILE *f, const results *x, int device)
{
    const char *bus = res_env_known(x, "program_gpu_bus_id");
    size_t i;

    for (i = 0; i < x->nm; i++) {
        const res_meas *m = &x->m[i];
        const st_summary *s = &m->stats;

        csv_str(f, m->section);
        putc(',', f);
        csv_str(f, m->key);
        putc(',', f);
        csv_str(f, m->name);
        putc(',', f);
        csv_str(f, res_state_name(m->state));
        putc(',', f);
        csv_str(f, m->unit);
        fprintf(f, ",%ld,%ld,%zu", m->n, m->batch, m->nsamples);
        csv_num(f, s->min);
        csv_num(f, s->median);
        csv_num(f, s->mean);
        csv_num(f, s->max);
        csv_num(f, s->stdev);
        csv_num(f, s->cv);
        csv_num(f, s->ci_low);
        csv_num(f, s->ci_high);
        csv_num(f, s->ci_level);
        csv_num(f, m->bytes);
        csv_num(f, m->flops);
        putc(',', f);
        csv_str(f, m->region);
        fprintf(f, ",%d,%zu,", m->noisy, m->low_clock);
        if (device >= 0) fprintf(f, "%d", device);
        else if (bus && strcmp(m->section, "program") == 0) csv_str(f, bus);
        putc('\n', f);
    }
}

static int csv_emit(FILE *f, const results *r)
{
    size_t i;

    fputs("section,key,name,state,unit,n,batch,samples,min,median,mean,max,"
          "stdev,cv,ci_low,ci_high,ci_level,bytes,flops,region,noisy,low_clock,device\n", f);
    csv_rows(f, r, -1);
    for (i = 0; i < r->ndev; i++) csv_rows(f, r->dev[i].own, r->dev[i].ordinal);
    return ferror(f) ? -1 : 0;
}

static int json_emit(FILE *f, const void *r)
{
    return rp_json(f, r);
}

static int csv_emit_any(FILE *f, const void *r)
{
    return csv_emit(f, r);
}

int rp_write_json(const results *r, const char *path)
{
    if (strcmp(path, "-") == 0) {
        if (rp_json(stdout, r) == 0 && fflush(stdout) == 0) return 0;
        fprintf(stderr, "harness: cannot write the JSON to stdout: %s\n", strerror(errno));
        return -1;
    }
    return af_write(path, json_emit, r);
}

int rp_write_csv(const results *r, const char *path)
{
    return af_write(path, csv_emit_any, r);
}
