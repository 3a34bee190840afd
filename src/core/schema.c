/* schema.c: --schema, the measurement keys the sections declare, as JSON. */
#include <string.h>

#include "core/schema.h"
#include <string.h>
#include "core/report.h"

const sch_placeholder sch_placeholders[] = {
    { "N", "[0-9]+", "a size in elements" },
    { "i", "[0-9]+", "a number: a module's, an image's, a process's" },
    { "side", "(bare\\.)?[a-z0-9_-]+", "a side of the program's runs (\"lazy\", \"bare.eager\")" },
    { "mode", "[a-z]+", "a loading mode (\"lazy\", \"eager\")" },
    { "module", "harness|synth[0-9]+", "a built-in module (\"harness\", \"synth10\")" },
    { "pre", "(eager\\.|lazy\\.)?", "nothing, or a loading mode and a dot (--compare-loading)" },
    { "modpre", "(eager\\.|lazy\\.|cache\\.empty\\.|cache\\.warm\\.)?",
      "nothing, a loading mode and a dot (--compare-loading), or a JIT cache state and a dot "
      "(--module's images with only PTX)" },
    { "api", "mod|lib", "how a module was loaded: mod, cuModuleLoadDataEx; lib, cuLibraryLoadData" },
    { "word", "[^.]+", "a name without a dot" },
    { "file", ".+", "a file's or a module's name (dots allowed)" },
};
const size_t sch_nplaceholders = sizeof sch_placeholders / sizeof sch_placeholders[0];

void sch_put(sch_out *o, const char *prefix, const sch_key *k, const char *desc)
{
    fputs(o->nkeys++ ? ",\n      { \"key\": " : "\n      { \"key\": ", o->f);
    putc('"', o->f);
    if (prefix) fputs(prefix, o->f);
    fputs(k->key, o->f);
    fputs("\", \"unit\": ", o->f);
    rp_json_str(o->f, k->unit);
    if (!o->derived) {
        fputs(", \"state\": ", o->f);
        rp_json_str(o->f, res_state_name(k->state));
    }
    fputs(", \"name\": ", o->f);
    rp_json_str(o->f, k->name);
    fputs(", \"description\": ", o->f);
    rp_json_str(o->f, desc ? desc : k->desc);
    fputs(" }", o->f);
}

/* Append s[0..n) to buf at *at; 0, or -1 when it does not fit. */
static int sch_append(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
    if (*at + n >= len) {
        n = *at < len ? len - 1 - *at : 0;
        memcpy(buf + *at, s, n);
        *at += n;
        return -1;
    }
    memcpy(buf + *at, s, n);
    *at += n;
    return 0;
}

int sch_fill(char *buf, size_t len, const char *prefix, const char *pattern,
             const char *const *parts, size_t n)
{
    const char *const src[2] = { prefix ? prefix : "", pattern };
    size_t at = 0, used = 0, i;
    int rc = 0;

    if (len == 0) return -1;
    for (i = 0; i < 2; i++) {
        const char *p = src[i];
        while (*p) {
            const char *open = strchr(p, '<'), *close = open ? strchr(open, '>') : NULL;
            if (!open || !close || used == n) {
                rc |= sch_append(buf, len, &at, p, strlen(p));
                break;
            }
            rc |= sch_append(buf, len, &at, p, (size_t)(open - p));
            rc |= sch_append(buf, len, &at, parts[used], strlen(parts[used]));
            used++;
            p = close + 1;
        }
    }
    buf[at] = '\0';
    return rc || used != n ? -1 : 0;
}

void sch_derived(sch_out *o)
{
    if (o->derived) return;
    fputs(o->nkeys ? "\n    ], \"derived\": [" : "], \"derived\": [", o->f);
    o->derived = 1;
    o->nkeys = 0;
}

const char *sch_num(char *buf, long long v)
{
    snprintf(buf, SCH_NUM, "%lld", v);
    return buf;
}

res_derived *sch_derive(results *r, const char *section, const sch_key *k, const char *key,
                        const char *name, double value, const char *text)
{
    res_derived *d = res_derive(r, section, key ? key : k->key, name ? name : k->name, value,
                                k->unit, text);
    if (!d) fprintf(stderr, "harness: %s: out of memory storing %s\n", section, key ? key : k->key);
    return d;
}

void sch_put_table(sch_out *o, const char *prefix, const sch_key *k, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) sch_put(o, prefix, &k[i], NULL);
}

int sch_print(FILE *f, const char *const *names, void (*const *decl)(sch_out *o), size_t n)
{
    size_t i;

    fprintf(f, "{\n  \"schema_version\": %d,\n  \"placeholders\": {", RES_SCHEMA_VERSION);
    for (i = 0; i < sch_nplaceholders; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        rp_json_str(f, sch_placeholders[i].word);
        fputs(": { \"regex\": ", f);
        rp_json_str(f, sch_placeholders[i].regex);
        fputs(", \"what\": ", f);
        rp_json_str(f, sch_placeholders[i].what);
        fputs(" }", f);
    }
    fputs("\n  },\n  \"sections\": [", f);
    for (i = 0; i < n; i++) {
        sch_out o = { f, 0, 0 };
        fputs(i ? ",\n    { \"section\": " : "\n    { \"section\": ", f);
        rp_json_str(f, names[i]);
        fputs(", \"keys\": [", f);
        if (decl[i]) decl[i](&o);
        sch_derived(&o);
        fputs(o.nkeys ? "\n    ] }" : "] }", f);
    }
    fputs("\n  ]\n}\n", f);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
