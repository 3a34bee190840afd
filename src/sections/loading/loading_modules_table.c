/* loading_modules_table.c: section loading's --module tables: each file's
 * inventory, its steps in each mode, the slowest images, where the cost
 * went, eager against lazy. Reads the results only. */
#include <math.h>
#include <string.h>

#include "run/section_ctx.h"
#include "run/table.h"
#include "sections/loading/loading.h"

#define LD "loading"
#define LM_LIST_MAX 24      /* fatbins listed one by one up to this many */

/* A byte count with thousands separators. */
static const char *lm_b(char *buf, size_t len, double v)
{
    return sec_commas(buf, len, v);
}

/* The inventory of module mi (its derived entries). */
static void lm_print_inventory(FILE *f, const results *r, size_t mi, const res_derived *md)
{
    static const char *const use[3] = { "no code", "PTX only (JIT)", "SASS" };
    char key[96], a[32], b[32], c2[32];
    size_t j, nf = (size_t)res_derived_num(md, "fatbins"), nrel = (size_t)res_derived_num(md, "relfatbins");
    const char *target = tb_env_str(r, "module_target_arch", "sm_90");

    fprintf(f, "\n  module %zu: %s\n    %s, %s bytes", mi, md->name, md->text,
            lm_b(a, sizeof a, res_derived_num(md, "file_bytes")));
    if (res_derived_num(md, "section_bytes") > 0)
        fprintf(f, "; .nv_fatbin %s bytes at offset %s", lm_b(b, sizeof b, res_derived_num(md, "section_bytes")),
                lm_b(c2, sizeof c2, res_derived_num(md, "section_offset")));
    fprintf(f, "\n");
    if (strcmp(md->text, "host ELF") == 0 || strcmp(md->text, "fatbin") == 0)
        fprintf(f, "    %.0f fatbins, %.0f entries (%.0f ELF, %.0f PTX, %.0f compressed); for %s: %.0f "
                "with no code, %.0f with PTX only\n", res_derived_num(md, "fatbins"),
                res_derived_num(md, "entries"), res_derived_num(md, "elf"), res_derived_num(md, "ptx"),
                res_derived_num(md, "compressed"), target, res_derived_num(md, "no_code"),
                res_derived_num(md, "ptx_only"));
    else
        fprintf(f, "    for %s: %s\n", target, res_derived_num(md, "no_code") > 0 ? "no code"
                : res_derived_num(md, "ptx_only") > 0 ? "PTX, compiled by the driver's JIT" : "SASS");
    if (nrel)
        fprintf(f, "    __nv_relfatbin: %zu fatbins, %s bytes: listed, not loaded (relocatable "
                "device code needs device linking first)\n", nrel,
                lm_b(a, sizeof a, res_derived_num(md, "rel_bytes")));
    {   /* by architecture */
        size_t i, klen;
        lm_key(key, sizeof key, NULL, mi, "arch.");
        klen = strlen(key);
        for (i = 0; i < r->nd; i++) {
            const res_derived *d = &r->d[i];
            if (strcmp(d->section, LD) != 0 || strncmp(d->key, key, klen) != 0) continue;
            fprintf(f, "    %-12s %-3s %6.0f entries %14s B stored %14s B raw, %.0f compressed\n",
                    d->key + klen, d->text, d->value,
                    lm_b(a, sizeof a, res_derived_num(d, "stored_bytes")),
                    lm_b(b, sizeof b, res_derived_num(d, "raw_bytes")), res_derived_num(d, "compressed"));
        }
    }
    for (j = 0; j < nf + nrel; j++) {
        const res_derived *d;
        int rel = j >= nf;
        if (nf > LM_LIST_MAX && !rel) continue;
        {
            char sub[48];
            snprintf(sub, sizeof sub, "%s.%zu", rel ? "relfatbin" : "fatbin", rel ? j - nf : j);
            lm_key(key, sizeof key, NULL, mi, sub);
        }
        if (!(d = res_derived_find(r, LD, key))) continue;
        if (nrel > LM_LIST_MAX && rel) break;
        fprintf(f, "    %-6s %4zu  offset %12s  %10s B  %-14s %s\n", rel ? "rel" : "fatbin",
                rel ? j - nf : j, lm_b(a, sizeof a, res_derived_num(d, "offset")),
                lm_b(b, sizeof b, d->value), rel ? "(not loaded)" : use[(int)res_derived_num(d, "use") % 3],
                d->text);
    }
    if (nf > LM_LIST_MAX)
        fprintf(f, "    (%zu fatbins: each one's entries are in the JSON, derived entries "
                "module.%zu.fatbin.N)\n", nf, mi);
}

/* The steps of one API for module mi, a column per prefix present. */
static void lm_print_steps(FILE *f, const results *r, size_t mi, const char *api)
{
    static const char *const pre[3] = { "", LD_EAGER, LD_LAZY };
    static const struct { const char *step, *label; int prec; } rows[] = {
        { LM_LOADED, "images loaded", 0 }, { LM_REFUSED_NOBIN, "refused: no code for this GPU", 0 },
        { LM_REFUSED_PTX, "refused: PTX newer than the driver", 0 },
        { LM_REFUSED_OTHER, "refused: another error", 0 },
        { LM_SKIPPED, "left out: killed a child loading it", 0 },
        { LM_LOAD, "load, every image (ms)", 3 }, { LM_JIT, "  of it driver JIT, PTX-only images (ms)", 3 },
        { LM_FUNCTIONS, "functions", 0 }, { LM_GET, "get every function (ms)", 3 },
        { LM_LOADED_GET, "  loaded once got (cuFuncIsLoaded)", 0 },
        { LM_FUNC_LOAD, "cuFuncLoad of the rest (ms)", 3 },
        { LM_LOADED_ALL, "  loaded after cuFuncLoad", 0 }, { LM_LATER, "later: get + cuFuncLoad (ms)", 3 },
        { LM_MEM_LOAD, "device MiB after load", 0 }, { LM_MEM_ALL, "device MiB, every function", 0 },
        { LM_RSS_BASE, "host MiB (VmRSS) before the load", 0 }, { LM_RSS_ALL, "host MiB, every function", 0 },
    };
    int have[3], p;
    size_t i;
    char key[96];

    for (p = 0; p < 3; p++) {
        char sub[32];
        snprintf(sub, sizeof sub, "%s." LM_LOAD, api);
        lm_key(key, sizeof key, pre[p], mi, sub);
        have[p] = res_find(r, LD, key) != NULL;
    }
    if (!have[0] && !have[1] && !have[2]) return;
    fprintf(f, "\n    %-40s", strcmp(api, LM_MOD) == 0 ? "cuModuleLoadDataEx, per image"
            : "cuLibraryLoadData, per image");
    for (p = 0; p < 3; p++)
        if (have[p]) fprintf(f, " %26s", p == 0 ? tb_env_str(r, "module_loading_effective", "this mode")
                             : p == 1 ? "EAGER" : "LAZY");
    fprintf(f, "\n");
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fprintf(f, "    %-40s", rows[i].label);
        for (p = 0; p < 3; p++) {
            const res_meas *m;
            if (!have[p]) continue;
            char sub[64];
            snprintf(sub, sizeof sub, "%s.%s", api, rows[i].step);
            lm_key(key, sizeof key, pre[p], mi, sub);
            m = res_find(r, LD, key);
            if (!m) fprintf(f, " %26s", "-");
            else if (rows[i].prec == 0) fprintf(f, " %26.0f", m->stats.median);
            else fprintf(f, " %10.3f [%6.3f,%6.3f]", m->stats.median, m->stats.ci_low, m->stats.ci_high);
        }
        fprintf(f, "\n");
        /* Which images, as the conclusions name them. */
        if (strcmp(rows[i].step, LM_REFUSED_OTHER) == 0 || strcmp(rows[i].step, LM_SKIPPED) == 0) {
            const res_derived *d;
            lm_key(key, sizeof key, NULL, mi, rows[i].step[0] == 'r' ? LM_D_REFUSED : LM_D_SKIPPED);
            if ((d = res_derived_find(r, LD, key)) && d->value > 0) fprintf(f, "      %s\n", d->text);
        }
    }
}

/* The ten slowest images per prefix, with their entries. */
static void lm_print_slowest(FILE *f, const results *r, size_t mi)
{
    static const char *const pre[3] = { "", LD_EAGER, LD_LAZY };
    char key[96], fk[96], a[32], sub[48];
    int p;
    size_t k;
    for (p = 0; p < 3; p++) {
        const res_derived *d;
        lm_key(key, sizeof key, pre[p], mi, "slowest.1");
        if (!(d = res_derived_find(r, LD, key))) continue;
        fprintf(f, "\n    slowest images to load%s%s (median ms, share of the load):\n", p ? ", " : "",
                p == 1 ? "EAGER" : p == 2 ? "LAZY" : "");
        for (k = 1; k <= 10; k++) {
            const res_derived *fb;
            snprintf(sub, sizeof sub, "slowest.%zu", k);
            lm_key(key, sizeof key, pre[p], mi, sub);
            if (!(d = res_derived_find(r, LD, key))) break;
            snprintf(sub, sizeof sub, "fatbin.%.0f", res_derived_num(d, "fatbin"));
            lm_key(fk, sizeof fk, NULL, mi, sub);
            fb = res_derived_find(r, LD, fk);
            fprintf(f, "    %2zu. image %5.0f %9.3f ms %5.1f%%  %s B: %s\n", k, res_derived_num(d, "fatbin"),
                    d->value, res_derived_num(d, "share_pct"), fb ? lm_b(a, sizeof a, fb->value) : "?",
                    fb ? fb->text : "");
        }
    }
}

/* The PTX-only images' JIT by cache state (disabled: the rounds). */
static void lm_print_cache(FILE *f, const results *r, size_t mi)
{
    static const char *const pre[2] = { LM_CACHE_EMPTY, LM_CACHE_WARM };
    const char *dis;
    char key[96];
    int p;
    lm_key(key, sizeof key, LD_EAGER, 0, LM_MOD "." LM_LOAD);
    dis = res_find(r, LD, key) ? LD_EAGER : "";
    lm_key(key, sizeof key, LM_CACHE_EMPTY, mi, LM_MOD "." LM_LOAD);
    if (!res_find(r, LD, key)) return;
    fprintf(f, "\n    the images with only PTX for this GPU, by JIT cache (median ms)\n"
            "    %-44s %10s %10s %10s\n", "", "load", "JIT", "images");
    for (p = -1; p < 2; p++) {
        const char *pp = p < 0 ? dis : pre[p];
        char label[64];
        snprintf(label, sizeof label, "%s, %s", p < 0 ? (dis[0] ? "EAGER" : tb_env_str(r,
                 "module_loading_effective", "this mode")) : "EAGER", p < 0 ? "cache disabled (the rounds)"
                 : p == 0 ? "an empty private cache" : "the same cache, warm");
        fprintf(f, "    %-44s", label);
        lm_key(key, sizeof key, pp, mi, LM_MOD "." LM_LOAD);
        tb_num(f, 11, 3, tb_med(r, LD, key));
        lm_key(key, sizeof key, pp, mi, LM_MOD "." LM_JIT);
        tb_num(f, 11, 3, tb_med(r, LD, key));
        lm_key(key, sizeof key, pp, mi, LM_MOD "." LM_JIT_IMAGES);
        tb_num(f, 11, 0, tb_med(r, LD, key));
        fprintf(f, "\n");
    }
}

/* Eager against lazy: the stored verdicts. */
static void lm_print_verdicts(FILE *f, const results *r, size_t mi)
{
    static const char *const fmts[2] = { LM_MOD, LM_LIB };
    char mod[48], key[96];
    int t, shown = 0;
    size_t s;
    lm_key(mod, sizeof mod, NULL, mi, NULL);
    for (t = 0; t < 2; t++)
        for (s = 0; s < LM_COMPARE_NSTEPS; s++) {
            const res_derived *d;
            vd_key(key, sizeof key, mod, fmts[t], lm_compare_steps[s]);
            if (!(d = res_derived_find(r, LD, key))) continue;
            if (!shown++)
                fprintf(f, "\n    eager against lazy (medians, p of the U test, verdict at p < %.2f and "
                        "%.0f%%):\n", VD_ALPHA, vd_threshold(r));
            fprintf(f, "    %-4s %-10s EAGER %10.3f  LAZY %10.3f  %+10.3f  p %.4f  %s\n", fmts[t],
                    lm_compare_steps[s], res_derived_num(d, "eager_median"),
                    res_derived_num(d, "lazy_median"), res_derived_num(d, "diff"),
                    res_derived_num(d, "p"), d->text);
        }
}

void lm_print(FILE *f, const results *r)
{
    char key[48];
    size_t mi;
    const res_derived *md;

    lm_key(key, sizeof key, NULL, 0, NULL);
    if (!res_derived_find(r, LD, key)) return;
    fprintf(f, "\nloading --module: each file's device code, read from disk (no driver), for %s "
            "(--arch, else sm_90);\nwhere children ran, every image loaded in each, JIT cache "
            "disabled; medians of the children\n", tb_env_str(r, "module_target_arch", "sm_90"));
    for (mi = 0;; mi++) {
        const res_derived *w;
        lm_key(key, sizeof key, NULL, mi, NULL);
        if (!(md = res_derived_find(r, LD, key))) break;
        lm_print_inventory(f, r, mi, md);
        lm_print_steps(f, r, mi, "mod");
        lm_print_steps(f, r, mi, "lib");
        lm_print_cache(f, r, mi);
        lm_print_slowest(f, r, mi);
        lm_print_verdicts(f, r, mi);
        lm_key(key, sizeof key, NULL, mi, LM_D_WHERE);
        if ((w = res_derived_find(r, LD, key))) fprintf(f, "\n    where the cost went: %s\n", w->text);
    }
    {
        char k2[48], k3[48];
        lm_key(k2, sizeof k2, NULL, 0, LM_MOD "." LM_LOAD);
        lm_key(k3, sizeof k3, LD_EAGER, 0, LM_MOD "." LM_LOAD);
        if (res_find(r, LD, k2) || res_find(r, LD, k3))
            fprintf(f, "  Each image (a fatbin, or the cubin or PTX file) is loaded as it is; 'later' is what a "
                    "first use of\n  every function pays on top (get and cuFuncLoad). The library path "
                    "runs in the same child\n  after every module is unloaded. Memory: cuMemGetInfo's "
                    "difference, in its own granularity.\n");
    }
}
