/* loading_modules_table.c: section loading's --module tables: each file's
 * inventory, its steps in each mode, the slowest images, where the cost
 * went, eager against lazy. Reads the results only. */
#include <math.h>
#include <string.h>

#include "run/section_ctx.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/loading/loading.h"

#define LD "loading"
#define LM_LIST_MAX 24      /* fatbins listed one by one up to this many */

/* A byte count with thousands separators. */
static const char *lm_b(char *buf, size_t len, double v)
{
    return sec_commas(buf, len, v);
}

/* The inventory's table by architecture of module mi. */
static void lm_print_archs(FILE *f, const results *r, size_t mi)
{
    static const char *const head[6] = { NULL, NULL, "entries", "B stored", "B raw", "compressed" };
    char key[96], a[32], b[32], n[32], c[32];
    size_t i, klen;
    ly_table *t = ly_new(4, 6);

    for (i = 0; i < 6; i++) ly_column(t, i, head[i], i >= 2 ? LY_RIGHT : LY_LEFT, 0);
    lm_key(key, sizeof key, NULL, mi, "arch.");
    klen = strlen(key);
    for (i = 0; i < r->nd; i++) {
        const res_derived *d = &r->d[i];
        if (strcmp(d->section, LD) != 0 || strncmp(d->key, key, klen) != 0) continue;
        snprintf(n, sizeof n, "%.0f", d->value);
        snprintf(c, sizeof c, "%.0f", res_derived_num(d, "compressed"));
        ly_rowv(t, d->key + klen, d->text, n, lm_b(a, sizeof a, res_derived_num(d, "stored_bytes")),
                lm_b(b, sizeof b, res_derived_num(d, "raw_bytes")), c, NULL);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* The inventory's fatbins of module mi, one a row (up to LM_LIST_MAX),
 * their entries wrapping in their own column. */
static void lm_print_fatbins(FILE *f, const results *r, size_t mi, size_t nf, size_t nrel)
{
    static const char *const use[3] = { "no code", "PTX only (JIT)", "SASS" };
    char key[96], a[32], b[32], n[32];
    size_t j;
    ly_table *t = ly_new(4, 6);

    ly_column(t, 0, NULL, LY_LEFT, 0);
    ly_column(t, 1, NULL, LY_RIGHT, 0);
    ly_column(t, 2, "offset", LY_RIGHT, 0);
    ly_column(t, 3, "bytes", LY_RIGHT, 0);
    ly_column(t, 4, "for this GPU", LY_LEFT, 0);
    ly_column(t, 5, "entries", LY_LEFT, 20);
    for (j = 0; j < nf + nrel; j++) {
        const res_derived *d;
        char sub[48];
        int rel = j >= nf;
        if (nf > LM_LIST_MAX && !rel) continue;
        snprintf(sub, sizeof sub, "%s.%zu", rel ? "relfatbin" : "fatbin", rel ? j - nf : j);
        lm_key(key, sizeof key, NULL, mi, sub);
        if (!(d = res_derived_find(r, LD, key))) continue;
        if (nrel > LM_LIST_MAX && rel) break;
        snprintf(n, sizeof n, "%zu", rel ? j - nf : j);
        ly_rowv(t, rel ? "rel" : "fatbin", n, lm_b(a, sizeof a, res_derived_num(d, "offset")),
                lm_b(b, sizeof b, d->value), rel ? "(not loaded)" : use[(int)res_derived_num(d, "use") % 3],
                d->text, NULL);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
    if (nf > LM_LIST_MAX)
        ly_para(f, 4, 6, tb_width(), "(%zu fatbins: each one's entries are in the JSON, derived "
                "entries module.%zu.fatbin.N)", nf, mi);
}

/* The inventory of module mi (its derived entries). */
static void lm_print_inventory(FILE *f, const results *r, size_t mi, const res_derived *md)
{
    char a[32], b[32], c2[32], where[160] = "";
    size_t nf = (size_t)res_derived_num(md, "fatbins"), nrel = (size_t)res_derived_num(md, "relfatbins");
    const char *target = tb_env_str(r, "module_target_arch", "sm_90");

    fprintf(f, "\n");
    ly_para(f, 2, 4, tb_width(), "module %zu: %s", mi, md->name);
    if (res_derived_num(md, "section_bytes") > 0)
        snprintf(where, sizeof where, "; .nv_fatbin %s bytes at offset %s",
                 lm_b(b, sizeof b, res_derived_num(md, "section_bytes")),
                 lm_b(c2, sizeof c2, res_derived_num(md, "section_offset")));
    ly_para(f, 4, 6, tb_width(), "%s, %s bytes%s", md->text,
            lm_b(a, sizeof a, res_derived_num(md, "file_bytes")), where);
    if (strcmp(md->text, "host ELF") == 0 || strcmp(md->text, "fatbin") == 0)
        ly_para(f, 4, 6, tb_width(), "%.0f fatbins, %.0f entries (%.0f ELF, %.0f PTX, %.0f "
                "compressed); for %s: %.0f with no code, %.0f with PTX only",
                res_derived_num(md, "fatbins"), res_derived_num(md, "entries"),
                res_derived_num(md, "elf"), res_derived_num(md, "ptx"),
                res_derived_num(md, "compressed"), target, res_derived_num(md, "no_code"),
                res_derived_num(md, "ptx_only"));
    else
        ly_para(f, 4, 6, tb_width(), "for %s: %s", target, res_derived_num(md, "no_code") > 0
                ? "no code" : res_derived_num(md, "ptx_only") > 0 ? "PTX, compiled by the driver's JIT"
                : "SASS");
    if (nrel)
        ly_para(f, 4, 6, tb_width(), "__nv_relfatbin: %zu fatbins, %s bytes: listed, not loaded "
                "(relocatable device code needs device linking first)", nrel,
                lm_b(a, sizeof a, res_derived_num(md, "rel_bytes")));
    lm_print_archs(f, r, mi);
    lm_print_fatbins(f, r, mi, nf, nrel);
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
    int have[3], p, nc;
    size_t i;
    char key[96];
    ly_table *t;

    for (p = 0; p < 3; p++) {
        char sub[32];
        snprintf(sub, sizeof sub, "%s." LM_LOAD, api);
        lm_key(key, sizeof key, pre[p], mi, sub);
        have[p] = res_find(r, LD, key) != NULL;
    }
    if (!have[0] && !have[1] && !have[2]) return;
    t = ly_new(4, 4);
    ly_column(t, 0, strcmp(api, LM_MOD) == 0 ? "cuModuleLoadDataEx, per image"
              : "cuLibraryLoadData, per image", LY_LEFT, 16);
    for (p = 0, nc = 1; p < 3; p++)
        if (have[p]) {
            ly_group(t, (size_t)nc);
            ly_column(t, (size_t)nc++, p == 0 ? tb_env_str(r, "module_loading_effective", "this mode")
                      : p == 1 ? "EAGER" : "LAZY", LY_RIGHT, 0);
        }
    ly_keys(t, 1);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char cell[3][64];
        const char *c[4];
        c[0] = rows[i].label;
        for (p = 0, nc = 1; p < 3; p++) {
            const res_meas *m;
            char sub[64];
            if (!have[p]) continue;
            snprintf(sub, sizeof sub, "%s.%s", api, rows[i].step);
            lm_key(key, sizeof key, pre[p], mi, sub);
            m = res_find(r, LD, key);
            if (!m) snprintf(cell[nc - 1], sizeof cell[0], "-");
            else if (rows[i].prec == 0) snprintf(cell[nc - 1], sizeof cell[0], "%.0f", m->stats.median);
            else snprintf(cell[nc - 1], sizeof cell[0], "%.3f [%6.3f,%6.3f]", m->stats.median,
                          m->stats.ci_low, m->stats.ci_high);
            c[nc] = cell[nc - 1];
            nc++;
        }
        ly_row(t, c, (size_t)nc);
        /* Which images, as the conclusions name them. */
        if (strcmp(rows[i].step, LM_REFUSED_OTHER) == 0 || strcmp(rows[i].step, LM_SKIPPED) == 0) {
            const res_derived *d;
            lm_key(key, sizeof key, NULL, mi, rows[i].step[0] == 'r' ? LM_D_REFUSED : LM_D_SKIPPED);
            if ((d = res_derived_find(r, LD, key)) && d->value > 0) ly_note(t, d->text);
        }
    }
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* The ten slowest images per prefix, with their entries. */
static void lm_print_slowest(FILE *f, const results *r, size_t mi)
{
    static const char *const pre[3] = { "", LD_EAGER, LD_LAZY };
    char key[96], fk[96], a[32], sub[48];
    int p;
    size_t k;
    ly_table *t;
    for (p = 0; p < 3; p++) {
        const res_derived *d;
        lm_key(key, sizeof key, pre[p], mi, "slowest.1");
        if (!(d = res_derived_find(r, LD, key))) continue;
        fprintf(f, "\n");
        ly_para(f, 4, 6, tb_width(), "slowest images to load%s%s (median ms, share of the load):",
                p ? ", " : "", p == 1 ? "EAGER" : p == 2 ? "LAZY" : "");
        t = ly_new(4, 5);
        for (k = 0; k < 5; k++)
            ly_column(t, k, NULL, k == 1 || k == 4 ? LY_LEFT : LY_RIGHT, k == 4 ? 20 : 0);
        for (k = 1; k <= 10; k++) {
            const res_derived *fb;
            char rank[16], img[32], ms[32], pct[32], what[1024];
            snprintf(sub, sizeof sub, "slowest.%zu", k);
            lm_key(key, sizeof key, pre[p], mi, sub);
            if (!(d = res_derived_find(r, LD, key))) break;
            snprintf(sub, sizeof sub, "fatbin.%.0f", res_derived_num(d, "fatbin"));
            lm_key(fk, sizeof fk, NULL, mi, sub);
            fb = res_derived_find(r, LD, fk);
            snprintf(rank, sizeof rank, "%zu.", k);
            snprintf(img, sizeof img, "image %.0f", res_derived_num(d, "fatbin"));
            snprintf(ms, sizeof ms, "%.3f ms", d->value);
            snprintf(pct, sizeof pct, "%.1f%%", res_derived_num(d, "share_pct"));
            snprintf(what, sizeof what, "%s B: %s", fb ? lm_b(a, sizeof a, fb->value) : "?", fb ? fb->text : "");
            ly_rowv(t, rank, img, ms, pct, what, NULL);
        }
        ly_print(f, t, tb_width());
        ly_free(t);
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
    char mod[48], key[96], e[32], l[32], pv[32], df[512];
    int t_, shown = 0;
    size_t s_;
    ly_table *t = NULL;
    lm_key(mod, sizeof mod, NULL, mi, NULL);
    for (t_ = 0; t_ < 2; t_++)
        for (s_ = 0; s_ < LM_COMPARE_NSTEPS; s_++) {
            const res_derived *d;
            vd_key(key, sizeof key, mod, fmts[t_], lm_compare_steps[s_]);
            if (!(d = res_derived_find(r, LD, key))) continue;
            if (!shown++) {
                fprintf(f, "\n");
                ly_para(f, 4, 6, tb_width(), "eager against lazy (medians, p of the U test, verdict at "
                        "p < %.2f and %.0f%%):", VD_ALPHA, vd_threshold(r));
                t = ly_new(4, 6);
                ly_column(t, 0, NULL, LY_LEFT, 0);
                ly_column(t, 1, NULL, LY_LEFT, 0);
                ly_column(t, 2, "EAGER", LY_RIGHT, 0);
                ly_column(t, 3, "LAZY", LY_RIGHT, 0);
                ly_column(t, 4, "p", LY_RIGHT, 0);
                ly_column(t, 5, "LAZY - EAGER: verdict", LY_LEFT, 12);
            }
            snprintf(e, sizeof e, "%.3f", res_derived_num(d, "eager_median"));
            snprintf(l, sizeof l, "%.3f", res_derived_num(d, "lazy_median"));
            snprintf(pv, sizeof pv, "%.4f", res_derived_num(d, "p"));
            snprintf(df, sizeof df, "%+.3f: %s", res_derived_num(d, "diff"), d->text);
            ly_rowv(t, fmts[t_], lm_compare_steps[s_], e, l, pv, df, NULL);
        }
    ly_print(f, t, tb_width());
    ly_free(t);
}

void lm_print(FILE *f, const results *r)
{
    char key[48];
    size_t mi;
    const res_derived *md;

    lm_key(key, sizeof key, NULL, 0, NULL);
    if (!res_derived_find(r, LD, key)) return;
    fprintf(f, "\n");
    ly_para(f, 0, 0, tb_width(), "loading --module: each file's device code, read from disk (no "
            "driver), for %s (--arch, else sm_90); where children ran, every image loaded in each, "
            "JIT cache disabled; medians of the children", tb_env_str(r, "module_target_arch", "sm_90"));
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
        if ((w = res_derived_find(r, LD, key))) {
            fprintf(f, "\n");
            ly_para(f, 4, 6, tb_width(), "where the cost went: %s", w->text);
        }
    }
    {
        char k2[48], k3[48];
        lm_key(k2, sizeof k2, NULL, 0, LM_MOD "." LM_LOAD);
        lm_key(k3, sizeof k3, LD_EAGER, 0, LM_MOD "." LM_LOAD);
        if (res_find(r, LD, k2) || res_find(r, LD, k3))
            ly_para(f, 2, 2, tb_width(), "Each image (a fatbin, or the cubin or PTX file) is loaded "
                    "as it is; 'later' is what a first use of every function pays on top (get and "
                    "cuFuncLoad). The library path runs in the same child after every module is "
                    "unloaded. Memory: cuMemGetInfo's difference, in its own granularity.");
    }
}
