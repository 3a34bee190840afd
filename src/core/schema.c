/* schema.c: --schema, the measurement keys the sections declare, as JSON. */
#include "core/schema.h"
#include "core/report.h"

const sch_placeholder sch_placeholders[] = {
    { "N", "[0-9]+", "a size in elements" },
    { "i", "[0-9]+", "a number: a module's, an image's, a process's" },
    { "side", "(bare\\.)?[a-z0-9_-]+", "a side of the program's runs (\"lazy\", \"bare.eager\")" },
    { "mode", "[a-z]+", "a loading mode (\"lazy\", \"eager\")" },
    { "module", "harness|synth[0-9]+", "a built-in module (\"harness\", \"synth10\")" },
    { "pre", "(eager\\.|lazy\\.)?", "nothing, or a loading mode and a dot (--compare-loading)" },
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

void sch_derived(sch_out *o)
{
    if (o->derived) return;
    fputs(o->nkeys ? "\n    ], \"derived\": [" : "], \"derived\": [", o->f);
    o->derived = 1;
    o->nkeys = 0;
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
