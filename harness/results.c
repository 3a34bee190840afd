/* results.c: the run's results object: environment, measurements, skips. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "results.h"

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
    res_init(r);
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

const res_meas *res_find(const results *r, const char *section, const char *key)
{
    size_t i;

    if (section == NULL || key == NULL) return NULL;
    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, section) == 0 &&
            strcmp(r->m[i].key, key) == 0) return &r->m[i];
    return NULL;
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

size_t res_failed(const results *r)
{
    size_t i, n = 0;

    for (i = 0; i < r->ncheck; i++)
        if (!r->check[i].passed) n++;
    return n;
}
