/* results.c: the run's results object: environment, measurements, skips,
 * checks, conclusions, and their line form between processes. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/results.h"

const char *res_state_name(res_state s)
{
    switch (s) {
    case RES_FIRST_LAUNCH: return "first-launch";
    case RES_L2_COLD:      return "L2-cold";
    case RES_WARM:         return "warm";
    case RES_PROCESS:      return "process";
    }
    return "unknown";
}

void res_init(results *r)
{
    memset(r, 0, sizeof(*r));
}

/* Copy a string; NULL is copied as "". Returns NULL on out of memory. */
static char *copy_str(const char *s)
{
    size_t len;
    char *p;

    if (s == NULL) s = "";
    len = strlen(s);
    if ((p = malloc(len + 1)) == NULL) return NULL;
    memcpy(p, s, len + 1);
    return p;
}

/* Make room for one more element in an array of `*cap` elements of `size`
 * bytes holding `n`, doubling the capacity. Returns the (possibly moved)
 * array, or NULL on out of memory, in which case `p` is left as it was. */
static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
    size_t newcap;
    void *np;

    if (n < *cap) return p;
    newcap = *cap ? *cap * 2 : 8;
    if (newcap < *cap || newcap > SIZE_MAX / size) return NULL;
    if ((np = realloc(p, newcap * size)) == NULL) return NULL;
    *cap = newcap;
    return np;
}

static void free_meas(res_meas *m)
{
    free(m->section);
    free(m->name);
    free(m->key);
    free(m->region);
    free(m->unit);
    free(m->samples);
    free(m->mhz);
}

static void free_derived(res_derived *d)
{
    size_t i;

    free(d->section);
    free(d->key);
    free(d->name);
    free(d->unit);
    free(d->text);
    for (i = 0; i < d->nfields; i++) free(d->fkey[i]);
}

void res_free(results *r)
{
    size_t i;

    for (i = 0; i < r->nenv; i++) {
        free(r->env[i].key);
        free(r->env[i].str);
    }
    free(r->env);
    for (i = 0; i < r->nm; i++) free_meas(&r->m[i]);
    free(r->m);
    for (i = 0; i < r->nskip; i++) {
        free(r->skip[i].section);
        free(r->skip[i].reason);
    }
    free(r->skip);
    for (i = 0; i < r->ncheck; i++) {
        free(r->check[i].section);
        free(r->check[i].what);
        free(r->check[i].detail);
    }
    free(r->check);
    for (i = 0; i < r->nd; i++) free_derived(&r->d[i]);
    free(r->d);
    for (i = 0; i < r->ndev; i++) {
        free(r->dev[i].name);
        free(r->dev[i].pci_bus_id);
        free(r->dev[i].uuid);
        res_free(r->dev[i].own);
        free(r->dev[i].own);
    }
    free(r->dev);
    res_init(r);
}

results *res_add_device(results *r, int ordinal, const char *name, const char *pci_bus_id,
                        const char *uuid)
{
    res_device *nd = grow(r->dev, r->ndev, &r->capdev, sizeof *r->dev);
    res_device d;

    if (!nd) return NULL;
    r->dev = nd;
    d.ordinal = ordinal;
    d.name = copy_str(name);
    d.pci_bus_id = copy_str(pci_bus_id);
    d.uuid = copy_str(uuid);
    d.own = malloc(sizeof *d.own);
    if (!d.name || !d.pci_bus_id || !d.uuid || !d.own) {
        free(d.name);
        free(d.pci_bus_id);
        free(d.uuid);
        free(d.own);
        return NULL;
    }
    res_init(d.own);
    r->dev[r->ndev++] = d;
    return d.own;
}

/* Find the slot of an environment key, appending an empty RES_NUM slot
 * when it is absent. Returns NULL on out of memory. */
static res_kv *env_slot(results *r, const char *key)
{
    res_kv *env, *kv;
    size_t i;

    if (key == NULL) return NULL;
    for (i = 0; i < r->nenv; i++)
        if (strcmp(r->env[i].key, key) == 0) return &r->env[i];
    env = grow(r->env, r->nenv, &r->capenv, sizeof(*r->env));
    if (env == NULL) return NULL;
    r->env = env;
    kv = &r->env[r->nenv];
    memset(kv, 0, sizeof(*kv));
    if ((kv->key = copy_str(key)) == NULL) return NULL;
    kv->kind = RES_NUM;
    r->nenv++;
    return kv;
}

int res_env_str(results *r, const char *key, const char *val)
{
    char *copy = NULL;
    res_kv *kv;

    if (val != NULL && (copy = copy_str(val)) == NULL) return -1;
    if ((kv = env_slot(r, key)) == NULL) {
        free(copy);
        return -1;
    }
    free(kv->str);
    kv->kind = RES_STR;
    kv->str = copy;
    kv->num = 0;
    return 0;
}

int res_env_num(results *r, const char *key, double val)
{
    res_kv *kv;

    if ((kv = env_slot(r, key)) == NULL) return -1;
    free(kv->str);
    kv->kind = RES_NUM;
    kv->str = NULL;
    kv->num = val;
    return 0;
}

const res_kv *res_env_get(const results *r, const char *key)
{
    size_t i;

    if (key == NULL) return NULL;
    for (i = 0; i < r->nenv; i++)
        if (strcmp(r->env[i].key, key) == 0) return &r->env[i];
    return NULL;
}

const char *res_env_known(const results *r, const char *key)
{
    const res_kv *kv = res_env_get(r, key);

    if (!kv || kv->kind != RES_STR || !kv->str || strncmp(kv->str, "unknown", 7) == 0) return NULL;
    return kv->str;
}

res_meas *res_add(results *r, const char *section, const char *key,
                  const char *name, const char *region, res_state state,
                  const char *unit, const double *samples, size_t nsamples)
{
    res_meas m, *arr;

    memset(&m, 0, sizeof(m));
    if ((m.section = copy_str(section)) == NULL) goto err;
    if ((m.key = copy_str(key)) == NULL) goto err;
    if ((m.name = copy_str(name)) == NULL) goto err;
    if ((m.region = copy_str(region)) == NULL) goto err;
    if ((m.unit = copy_str(unit)) == NULL) goto err;
    if (nsamples > 0) {
        if (nsamples > SIZE_MAX / sizeof(double)) goto err;
        if ((m.samples = malloc(nsamples * sizeof(double))) == NULL) goto err;
        memcpy(m.samples, samples, nsamples * sizeof(double));
    }
    m.nsamples = nsamples;
    m.state = state;
    m.stats = st_summarize(m.samples, nsamples);
    m.batch = 1;
    arr = grow(r->m, r->nm, &r->capm, sizeof(*r->m));
    if (arr == NULL) goto err;
    r->m = arr;
    r->m[r->nm] = m;
    return &r->m[r->nm++];

err:
    free_meas(&m);
    return NULL;
}

res_meas *res_add_copy(results *r, const res_meas *m, const char *section, const char *key,
                       const char *name, const char *region)
{
    res_meas from = *m;     /* r->m may move on the append; m's arrays do not */
    res_meas *c;
    double *mhz = NULL;

    if (from.mhz && from.nsamples > 0) {
        if (from.nsamples > SIZE_MAX / sizeof *mhz || !(mhz = malloc(from.nsamples * sizeof *mhz)))
            return NULL;
        memcpy(mhz, from.mhz, from.nsamples * sizeof *mhz);
    }
    c = res_add(r, section, key, name, region, from.state, from.unit, from.samples, from.nsamples);
    if (!c) {
        free(mhz);
        return NULL;
    }
    c->batch = from.batch;
    c->n = from.n;
    c->bytes = from.bytes;
    c->flops = from.flops;
    c->mhz = mhz;
    c->noisy = from.noisy;
    c->host_only = from.host_only;
    c->low_clock = from.low_clock;
    return c;
}

int res_set_clock(res_meas *m, const float *mhz)
{
    double *d;
    size_t i;
    if (m->nsamples == 0 || !mhz) return 0;
    if (m->nsamples > SIZE_MAX / sizeof *d || !(d = malloc(m->nsamples * sizeof *d))) return -1;
    for (i = 0; i < m->nsamples; i++) d[i] = mhz[i];
    free(m->mhz);
    m->mhz = d;
    return 0;
}

const res_meas *res_find(const results *r, const char *section, const char *key)
{
    size_t i;

    if (section == NULL || key == NULL) return NULL;
    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, section) == 0 &&
            strcmp(r->m[i].key, key) == 0) return &r->m[i];
    return NULL;
}

res_meas *res_append(results *r, const char *section, const char *key,
                     const char *name, const char *region, res_state state,
                     const char *unit, double v)
{
    res_meas *m = NULL;
    double *p;
    size_t i;

    for (i = 0; i < r->nm && section && key; i++)
        if (strcmp(r->m[i].section, section) == 0 && strcmp(r->m[i].key, key) == 0) m = &r->m[i];
    if (!m) return res_add(r, section, key, name, region, state, unit, &v, 1);
    if (m->nsamples >= SIZE_MAX / sizeof *p - 1) return NULL;
    p = realloc(m->samples, (m->nsamples + 1) * sizeof *p);
    if (!p) return NULL;
    m->samples = p;
    if (m->mhz) {
        double *q = realloc(m->mhz, (m->nsamples + 1) * sizeof *q);
        if (!q) return NULL;
        m->mhz = q;
        m->mhz[m->nsamples] = NAN;
    }
    m->samples[m->nsamples++] = v;
    m->stats = st_summarize(m->samples, m->nsamples);
    return m;
}

int res_skip_section(results *r, const char *section, const char *reason)
{
    res_skip s, *arr;

    s.section = copy_str(section);
    s.reason = copy_str(reason);
    if (s.section == NULL || s.reason == NULL) goto err;
    arr = grow(r->skip, r->nskip, &r->capskip, sizeof(*r->skip));
    if (arr == NULL) goto err;
    r->skip = arr;
    r->skip[r->nskip++] = s;
    return 0;

err:
    free(s.section);
    free(s.reason);
    return -1;
}

int res_check_add(results *r, const char *section, const char *what, int passed,
                  const char *detail)
{
    res_check c, *arr;

    c.section = copy_str(section);
    c.what = copy_str(what);
    c.detail = copy_str(detail);
    c.passed = passed != 0;
    if (c.section == NULL || c.what == NULL || c.detail == NULL) goto err;
    arr = grow(r->check, r->ncheck, &r->capcheck, sizeof(*r->check));
    if (arr == NULL) goto err;
    r->check = arr;
    r->check[r->ncheck++] = c;
    return 0;

err:
    free(c.section);
    free(c.what);
    free(c.detail);
    return -1;
}

res_derived *res_derive(results *r, const char *section, const char *key,
                        const char *name, double value, const char *unit,
                        const char *text)
{
    res_derived d, *arr;
    size_t i;

    memset(&d, 0, sizeof d);
    if (!section || !key) return NULL;
    if ((d.section = copy_str(section)) == NULL || (d.key = copy_str(key)) == NULL ||
        (d.name = copy_str(name)) == NULL || (d.unit = copy_str(unit)) == NULL ||
        (d.text = copy_str(text)) == NULL) goto err;
    d.value = value;
    for (i = 0; i < r->nd; i++) {
        if (strcmp(r->d[i].section, section) == 0 && strcmp(r->d[i].key, key) == 0) {
            free_derived(&r->d[i]);
            r->d[i] = d;
            return &r->d[i];
        }
    }
    if ((arr = grow(r->d, r->nd, &r->capd, sizeof *r->d)) == NULL) goto err;
    r->d = arr;
    r->d[r->nd] = d;
    return &r->d[r->nd++];

err:
    free_derived(&d);
    return NULL;
}

/* Whether a field name is non-empty and of [a-z0-9_.] only. */
static int field_name_ok(const char *s)
{
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.'))
            return 0;
    return 1;
}

int res_derived_field(res_derived *d, const char *name, double v)
{
    size_t i;
    char *k;

    if (!d || !field_name_ok(name)) return -1;
    for (i = 0; i < d->nfields; i++) {
        if (strcmp(d->fkey[i], name) == 0) {
            d->fval[i] = v;
            return 0;
        }
    }
    if (d->nfields == RES_MAX_FIELDS || (k = copy_str(name)) == NULL) return -1;
    d->fkey[d->nfields] = k;
    d->fval[d->nfields++] = v;
    return 0;
}

const res_derived *res_derived_find(const results *r, const char *section, const char *key)
{
    size_t i;

    if (section == NULL || key == NULL) return NULL;
    for (i = 0; i < r->nd; i++)
        if (strcmp(r->d[i].section, section) == 0 && strcmp(r->d[i].key, key) == 0)
            return &r->d[i];
    return NULL;
}

double res_derived_num(const res_derived *d, const char *name)
{
    size_t i;

    for (i = 0; d && name && i < d->nfields; i++)
        if (strcmp(d->fkey[i], name) == 0) return d->fval[i];
    return NAN;
}

size_t res_failed(const results *r)
{
    size_t i, n = 0;

    for (i = 0; i < r->ncheck; i++)
        if (!r->check[i].passed) n++;
    return n;
}

/* ---------------------------------------------------------- line form --- */

/* A string with backslash, tab, newline and CR escaped; NULL as "". */
static int put_esc(FILE *f, const char *s)
{
    const char *e;

    if (s == NULL) s = "";
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '\\': e = "\\\\"; break;
        case '\t': e = "\\t"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        default:   e = NULL; break;
        }
        if (e != NULL ? fputs(e, f) == EOF : putc(*s, f) == EOF) return -1;
    }
    return 0;
}

/* A tab, then the escaped string. */
static int put_tab_esc(FILE *f, const char *s)
{
    if (putc('\t', f) == EOF) return -1;
    return put_esc(f, s);
}

/* A number that reads back exactly: %.17g, or nan, inf, -inf. */
static int put_num(FILE *f, double x)
{
    if (isnan(x)) return fputs("nan", f) == EOF ? -1 : 0;
    if (isinf(x)) return fputs(x > 0 ? "inf" : "-inf", f) == EOF ? -1 : 0;
    return fprintf(f, "%.17g", x) < 0 ? -1 : 0;
}

static int put_tab_num(FILE *f, double x)
{
    if (putc('\t', f) == EOF) return -1;
    return put_num(f, x);
}

static int write_env(FILE *f, const res_kv *kv)
{
    if (fputs("env", f) == EOF || put_tab_esc(f, kv->key) != 0) return -1;
    if (kv->kind == RES_NUM) {
        if (fputs("\tn", f) == EOF || put_tab_num(f, kv->num) != 0) return -1;
    } else if (kv->str == NULL) {
        if (fputs("\t-\t", f) == EOF) return -1;
    } else {
        if (fputs("\ts", f) == EOF || put_tab_esc(f, kv->str) != 0) return -1;
    }
    return putc('\n', f) == EOF ? -1 : 0;
}

static int write_skip(FILE *f, const res_skip *s)
{
    if (fputs("skip", f) == EOF || put_tab_esc(f, s->section) != 0 ||
        put_tab_esc(f, s->reason) != 0) return -1;
    return putc('\n', f) == EOF ? -1 : 0;
}

static int write_check(FILE *f, const res_check *c)
{
    if (fputs("check", f) == EOF || put_tab_esc(f, c->section) != 0 ||
        put_tab_esc(f, c->what) != 0 ||
        fputs(c->passed ? "\t1" : "\t0", f) == EOF ||
        put_tab_esc(f, c->detail) != 0) return -1;
    return putc('\n', f) == EOF ? -1 : 0;
}

static int write_meas(FILE *f, const res_meas *m)
{
    size_t i;

    if (fputs("m", f) == EOF || put_tab_esc(f, m->section) != 0 ||
        put_tab_esc(f, m->key) != 0 || put_tab_esc(f, m->name) != 0 ||
        put_tab_esc(f, m->region) != 0 ||
        fprintf(f, "\t%s", res_state_name(m->state)) < 0 ||
        put_tab_esc(f, m->unit) != 0 ||
        fprintf(f, "\t%ld\t%ld", m->batch, m->n) < 0 ||
        put_tab_num(f, m->bytes) != 0 || put_tab_num(f, m->flops) != 0 ||
        putc('\t', f) == EOF) return -1;
    for (i = 0; i < m->nsamples; i++) {
        if (i > 0 && putc(',', f) == EOF) return -1;
        if (put_num(f, m->samples[i]) != 0) return -1;
    }
    if (fprintf(f, "\t%d\t%zu\t%d\t", m->noisy != 0, m->low_clock, m->host_only != 0) < 0)
        return -1;
    for (i = 0; m->mhz && i < m->nsamples; i++) {
        if (i > 0 && putc(',', f) == EOF) return -1;
        if (put_num(f, m->mhz[i]) != 0) return -1;
    }
    return putc('\n', f) == EOF ? -1 : 0;
}

static int write_derived(FILE *f, const res_derived *d)
{
    size_t i;

    if (fputs("d", f) == EOF || put_tab_esc(f, d->section) != 0 ||
        put_tab_esc(f, d->key) != 0 || put_tab_esc(f, d->name) != 0 ||
        put_tab_num(f, d->value) != 0 || put_tab_esc(f, d->unit) != 0 ||
        put_tab_esc(f, d->text) != 0 || putc('\t', f) == EOF) return -1;
    for (i = 0; i < d->nfields; i++) {
        if ((i > 0 && putc(',', f) == EOF) || fprintf(f, "%s=", d->fkey[i]) < 0 ||
            put_num(f, d->fval[i]) != 0) return -1;
    }
    return putc('\n', f) == EOF ? -1 : 0;
}

int res_write_lines(FILE *f, const results *r)
{
    size_t i;

    for (i = 0; i < r->nenv; i++)
        if (write_env(f, &r->env[i]) != 0) return -1;
    for (i = 0; i < r->nskip; i++)
        if (write_skip(f, &r->skip[i]) != 0) return -1;
    for (i = 0; i < r->ncheck; i++)
        if (write_check(f, &r->check[i]) != 0) return -1;
    for (i = 0; i < r->nm; i++)
        if (write_meas(f, &r->m[i]) != 0) return -1;
    for (i = 0; i < r->nd; i++)
        if (write_derived(f, &r->d[i]) != 0) return -1;
    if (fprintf(f, "incomplete\t%d\n", r->incomplete ? 1 : 0) < 0) return -1;
    if (fflush(f) != 0 || ferror(f)) return -1;
    return 0;
}

/* One tab-separated field of a line: not NUL-terminated. */
typedef struct ln_field {
    const char *p;
    size_t len;
} ln_field;

/* One more than the most fields of any record, so that an extra one shows. */
#define LN_MAXF 16

/* Split [p, end) at tabs into f (at most maxf stored); returns the number of
 * fields the line has, which may exceed maxf. */
static size_t split_fields(const char *p, const char *end, ln_field *f,
                           size_t maxf)
{
    size_t n = 0;
    const char *tab;

    for (;;) {
        tab = memchr(p, '\t', (size_t)(end - p));
        if (n < maxf) {
            f[n].p = p;
            f[n].len = (size_t)((tab != NULL ? tab : end) - p);
        }
        n++;
        if (tab == NULL) return n;
        p = tab + 1;
    }
}

/* Whether a field is exactly the string s. */
static int field_is(const ln_field *f, const char *s)
{
    return f->len == strlen(s) && memcmp(f->p, s, f->len) == 0;
}

/* Unescape a field into a new string. Returns 0, -1 on out of memory, or -2
 * on an unknown escape or a trailing backslash. */
static int unescape(const ln_field *f, char **out)
{
    char *s, *q;
    size_t i;

    *out = NULL;
    if ((s = malloc(f->len + 1)) == NULL) return -1;
    for (i = 0, q = s; i < f->len; i++) {
        if (f->p[i] != '\\') {
            *q++ = f->p[i];
            continue;
        }
        if (++i == f->len) goto bad;
        switch (f->p[i]) {
        case '\\': *q++ = '\\'; break;
        case 't':  *q++ = '\t'; break;
        case 'n':  *q++ = '\n'; break;
        case 'r':  *q++ = '\r'; break;
        default:   goto bad;
        }
    }
    *q = '\0';
    *out = s;
    return 0;

bad:
    free(s);
    return -2;
}

/* Unescape field f of a record into *out; on failure a reason in msg. */
static int get_str(const ln_field *f, char **out, const char *rec,
                   const char *what, char *msg, size_t msglen)
{
    int rc = unescape(f, out);

    if (rc == -1) snprintf(msg, msglen, "out of memory");
    else if (rc != 0)
        snprintf(msg, msglen, "%s record: bad escape in %s", rec, what);
    return rc == 0 ? 0 : -1;
}

/* Copy a numeric field into buf, NUL-terminated; -1 when it is empty, too
 * long, or starts with white space (which strtod and strtol would skip). */
static int num_text(const char *p, size_t len, char *buf, size_t buflen)
{
    if (len == 0 || len >= buflen || isspace((unsigned char)p[0])) return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 0;
}

/* Parse exactly one number (as put_num writes it) from [p, p + len). */
static int parse_num(const char *p, size_t len, double *out)
{
    char buf[64], *end;

    if (num_text(p, len, buf, sizeof(buf)) != 0) return -1;
    *out = strtod(buf, &end);
    return *end == '\0' ? 0 : -1;
}

/* Parse exactly one decimal integer from a field. */
static int parse_long(const ln_field *f, long *out)
{
    char buf[32], *end;

    if (num_text(f->p, f->len, buf, sizeof(buf)) != 0) return -1;
    errno = 0;
    *out = strtol(buf, &end, 10);
    return *end == '\0' && errno == 0 ? 0 : -1;
}

/* Parse a comma-separated list of numbers (empty: none) into a new array
 * (NULL when empty). Returns 0, -1 on out of memory, -2 on a bad number. */
static int parse_samples(const ln_field *f, double **out, size_t *nout)
{
    const char *p = f->p, *end = f->p + f->len, *comma;
    double *v;
    size_t n = 1, i;

    *out = NULL;
    *nout = 0;
    if (f->len == 0) return 0;
    for (i = 0; i < f->len; i++)
        if (f->p[i] == ',') n++;
    if (n > SIZE_MAX / sizeof(double)) return -1;
    if ((v = malloc(n * sizeof(double))) == NULL) return -1;
    for (i = 0; i < n; i++) {
        comma = memchr(p, ',', (size_t)(end - p));
        if (comma == NULL) comma = end;
        if (parse_num(p, (size_t)(comma - p), &v[i]) != 0) {
            free(v);
            return -2;
        }
        p = comma + 1;
    }
    *out = v;
    *nout = n;
    return 0;
}

static int read_env(results *r, const ln_field *f, char *msg, size_t msglen)
{
    char *key = NULL, *val = NULL;
    double num;
    int rc = -1;

    if (get_str(&f[1], &key, "env", "key", msg, msglen) != 0) goto out;
    if (field_is(&f[2], "s")) {
        if (get_str(&f[3], &val, "env", "value", msg, msglen) != 0) goto out;
        rc = res_env_str(r, key, val);
    } else if (field_is(&f[2], "n")) {
        if (parse_num(f[3].p, f[3].len, &num) != 0) {
            snprintf(msg, msglen, "env record: value is not a number");
            goto out;
        }
        rc = res_env_num(r, key, num);
    } else if (field_is(&f[2], "-")) {
        if (f[3].len != 0) {
            snprintf(msg, msglen, "env record: null value is not empty");
            goto out;
        }
        rc = res_env_str(r, key, NULL);
    } else {
        snprintf(msg, msglen, "env record: kind is not s, n or -");
        goto out;
    }
    if (rc != 0) snprintf(msg, msglen, "out of memory");

out:
    free(key);
    free(val);
    return rc;
}

static int read_skip(results *r, const ln_field *f, char *msg, size_t msglen)
{
    char *section = NULL, *reason = NULL;
    int rc = -1;

    if (get_str(&f[1], &section, "skip", "section", msg, msglen) != 0 ||
        get_str(&f[2], &reason, "skip", "reason", msg, msglen) != 0) goto out;
    if ((rc = res_skip_section(r, section, reason)) != 0)
        snprintf(msg, msglen, "out of memory");

out:
    free(section);
    free(reason);
    return rc;
}

static int read_check(results *r, const ln_field *f, char *msg, size_t msglen)
{
    char *section = NULL, *what = NULL, *detail = NULL;
    int rc = -1, passed;

    if (get_str(&f[1], &section, "check", "section", msg, msglen) != 0 ||
        get_str(&f[2], &what, "check", "what", msg, msglen) != 0 ||
        get_str(&f[4], &detail, "check", "detail", msg, msglen) != 0) goto out;
    if (field_is(&f[3], "0") || field_is(&f[3], "1")) {
        passed = f[3].p[0] == '1';
    } else {
        snprintf(msg, msglen, "check record: passed is not 0 or 1");
        goto out;
    }
    if ((rc = res_check_add(r, section, what, passed, detail)) != 0)
        snprintf(msg, msglen, "out of memory");

out:
    free(section);
    free(what);
    free(detail);
    return rc;
}

/* The m record's fields 12-15 into m: noisy, low_clock, host_only, and
 * the clock readings (none, or one per sample). Returns 0, or -1 with
 * what is wrong in msg. */
static int read_meas_marks(res_meas *m, const ln_field *f, char *msg, size_t msglen)
{
    long low;
    double *mhz = NULL;
    float *fl;
    size_t nmhz = 0, i;
    int prc;

    if ((!field_is(&f[12], "0") && !field_is(&f[12], "1")) ||
        (!field_is(&f[14], "0") && !field_is(&f[14], "1")) ||
        parse_long(&f[13], &low) != 0 || low < 0 || (size_t)low > m->nsamples) {
        snprintf(msg, msglen, "m record: noisy, low_clock or host_only is not what it can be");
        return -1;
    }
    m->noisy = field_is(&f[12], "1");
    m->host_only = field_is(&f[14], "1");
    m->low_clock = (size_t)low;
    if ((prc = parse_samples(&f[15], &mhz, &nmhz)) != 0 || (nmhz && nmhz != m->nsamples)) {
        snprintf(msg, msglen, prc == -1 ? "out of memory"
                 : "m record: the clock readings are not one number per sample");
        free(mhz);
        return -1;
    }
    if (!nmhz) return 0;
    if ((fl = malloc(nmhz * sizeof *fl)) == NULL) {
        free(mhz);
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    for (i = 0; i < nmhz; i++) fl[i] = (float)mhz[i];
    prc = res_set_clock(m, fl);
    free(fl);
    free(mhz);
    if (prc != 0) snprintf(msg, msglen, "out of memory");
    return prc;
}

static int read_meas(results *r, const ln_field *f, char *msg, size_t msglen)
{
    /* section, key, name, region, unit: fields 1, 2, 3, 4 and 6 */
    static const size_t at[5] = { 1, 2, 3, 4, 6 };
    static const char *const what[5] = { "section", "key", "name", "region",
                                         "unit" };
    char *s[5] = { NULL, NULL, NULL, NULL, NULL };
    double *v = NULL, bytes, flops;
    size_t nv = 0, i;
    long batch, n;
    res_state st = RES_FIRST_LAUNCH;
    res_meas *m;
    int rc = -1, found = 0, prc;

    for (i = 0; i < 5; i++)
        if (get_str(&f[at[i]], &s[i], "m", what[i], msg, msglen) != 0) goto out;
    for (i = 0; i <= (size_t)RES_PROCESS && !found; i++) {
        st = (res_state)i;
        found = field_is(&f[5], res_state_name(st));
    }
    if (!found) {
        snprintf(msg, msglen, "m record: state is not first-launch, L2-cold, "
                 "warm or process");
        goto out;
    }
    if (parse_long(&f[7], &batch) != 0) {
        snprintf(msg, msglen, "m record: batch is not an integer");
        goto out;
    }
    if (parse_long(&f[8], &n) != 0) {
        snprintf(msg, msglen, "m record: n is not an integer");
        goto out;
    }
    if (parse_num(f[9].p, f[9].len, &bytes) != 0) {
        snprintf(msg, msglen, "m record: bytes is not a number");
        goto out;
    }
    if (parse_num(f[10].p, f[10].len, &flops) != 0) {
        snprintf(msg, msglen, "m record: flops is not a number");
        goto out;
    }
    if ((prc = parse_samples(&f[11], &v, &nv)) != 0) {
        snprintf(msg, msglen, prc == -1 ? "out of memory"
                 : "m record: a sample is not a number");
        goto out;
    }
    if ((m = res_add(r, s[0], s[1], s[2], s[3], st, s[4], v, nv)) == NULL) {
        snprintf(msg, msglen, "out of memory");
        goto out;
    }
    m->batch = batch;
    m->n = n;
    m->bytes = bytes;
    m->flops = flops;
    rc = read_meas_marks(m, f, msg, msglen);

out:
    for (i = 0; i < 5; i++) free(s[i]);
    free(v);
    return rc;
}

static int has_field(const res_derived *d, const char *name)
{
    size_t i;

    for (i = 0; i < d->nfields; i++)
        if (strcmp(d->fkey[i], name) == 0) return 1;
    return 0;
}

/* The fields of a d record, "name=v,name=v" (empty: none), into d. */
static int read_fields(res_derived *d, const ln_field *f, char *msg, size_t msglen)
{
    const char *p = f->p, *end = f->p + f->len, *comma, *eq;
    char name[64];
    double v;

    while (p < end) {
        if ((comma = memchr(p, ',', (size_t)(end - p))) == NULL) comma = end;
        eq = memchr(p, '=', (size_t)(comma - p));
        if (!eq || eq == p || (size_t)(eq - p) >= sizeof name ||
            parse_num(eq + 1, (size_t)(comma - eq - 1), &v) != 0) {
            snprintf(msg, msglen, "d record: a field is not name=number");
            return -1;
        }
        memcpy(name, p, (size_t)(eq - p));
        name[eq - p] = '\0';
        if (has_field(d, name) || !field_name_ok(name) ||
            res_derived_field(d, name, v) != 0) {
            snprintf(msg, msglen, "d record: field '%.40s' repeated, misnamed or one too many", name);
            return -1;
        }
        p = comma == end ? end : comma + 1;
        if (comma != end && p == end) {
            snprintf(msg, msglen, "d record: a field list ends with a comma");
            return -1;
        }
    }
    return 0;
}

static int read_derived(results *r, const ln_field *f, char *msg, size_t msglen)
{
    static const size_t at[5] = { 1, 2, 3, 5, 6 };
    static const char *const what[5] = { "section", "key", "name", "unit", "text" };
    char *s[5] = { NULL, NULL, NULL, NULL, NULL };
    res_derived *d;
    double value;
    size_t i, before = r->nd;
    int rc = -1;

    for (i = 0; i < 5; i++)
        if (get_str(&f[at[i]], &s[i], "d", what[i], msg, msglen) != 0) goto out;
    if (parse_num(f[4].p, f[4].len, &value) != 0) {
        snprintf(msg, msglen, "d record: value is not a number");
        goto out;
    }
    if ((d = res_derive(r, s[0], s[1], s[2], value, s[3], s[4])) == NULL) {
        snprintf(msg, msglen, "out of memory");
        goto out;
    }
    if (read_fields(d, &f[7], msg, msglen) != 0) {
        /* A malformed record leaves no entry behind (a new one is dropped). */
        if (r->nd > before) free_derived(&r->d[--r->nd]);
        goto out;
    }
    rc = 0;

out:
    for (i = 0; i < 5; i++) free(s[i]);
    return rc;
}

static int read_incomplete(results *r, const ln_field *f, char *msg,
                           size_t msglen)
{
    if (field_is(&f[1], "1")) r->incomplete = 1;
    else if (!field_is(&f[1], "0")) {
        snprintf(msg, msglen, "incomplete record: value is not 0 or 1");
        return -1;
    }
    return 0;
}

typedef int (*ln_reader)(results *r, const ln_field *f, char *msg,
                         size_t msglen);

int res_read_lines(results *r, const char *text, char *why, size_t whylen)
{
    static const struct {
        const char *word;
        size_t nfields;
        ln_reader read;
    } recs[] = {
        { "env", 4, read_env },
        { "skip", 3, read_skip },
        { "check", 5, read_check },
        { "m", 16, read_meas },
        { "d", 8, read_derived },
        { "incomplete", 2, read_incomplete },
    };
    const size_t nrecs = sizeof(recs) / sizeof(recs[0]);
    ln_field f[LN_MAXF];
    char msg[160];
    const char *p, *end;
    size_t lineno = 0, nf, i;
    int count = 0;

    if (why != NULL && whylen > 0) why[0] = '\0';
    if (text == NULL) {
        snprintf(msg, sizeof(msg), "no text");
        goto bad;
    }
    for (p = text; *p != '\0'; p = *end == '\n' ? end + 1 : end) {
        if ((end = strchr(p, '\n')) == NULL) end = p + strlen(p);
        lineno++;
        if (end == p) continue;
        nf = split_fields(p, end, f, LN_MAXF);
        for (i = 0; i < nrecs && !field_is(&f[0], recs[i].word); i++)
            ;
        if (i == nrecs) continue;
        if (nf != recs[i].nfields) {
            snprintf(msg, sizeof(msg), "%s record has %zu fields, expected %zu",
                     recs[i].word, nf, recs[i].nfields);
            goto bad;
        }
        if (count == INT_MAX) {
            snprintf(msg, sizeof(msg), "too many records");
            goto bad;
        }
        if (recs[i].read(r, f, msg, sizeof(msg)) != 0) goto bad;
        count++;
    }
    return count;

bad:
    if (why != NULL && whylen > 0) {
        if (lineno > 0) snprintf(why, whylen, "line %zu: %s", lineno, msg);
        else snprintf(why, whylen, "%s", msg);
    }
    return -1;
}
