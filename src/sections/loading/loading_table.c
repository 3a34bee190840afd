/* loading_table.c: the loading section's tables: each step from module load
 * to the last function loaded, and eager against lazy. Reads the results
 * only. */
#include <math.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/loading/loading.h"

/* Where each module's functions were loaded in one format, as stored
 * (ld_loaded_by): one sentence when every module says the same, else one
 * clause per module. */
static void ld_print_loaded_by(FILE *f, const results *r, char labels[][LD_LABEL_LEN], size_t n,
                               const char *fmt)
{
    char key[96], text[2048];
    const res_derived *d, *first = NULL;
    size_t i, len = 0, same = 1, seen = 0;

    for (i = 0; i < n; i++) {
        ld_loaded_by_key(key, sizeof key, labels[i], fmt);
        if (!(d = res_derived_find(r, "loading", key))) continue;
        if (!first) first = d;
        else if (strcmp(first->text, d->text) != 0) same = 0;
        seen++;
        if (len < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s %s (%.0f of %.0f after the "
                                    "load)", len ? "; " : "", labels[i], d->text, d->value,
                                    res_derived_num(d, "k"));
    }
    if (!first) return;
    if (same && seen > 1)
        tb_wrap(f, "  ", "  ", tb_width(), "%s: every module's functions were loaded by %s (cuFuncIsLoaded "
                "after each step)", fmt, first->text);
    else
        tb_wrap(f, "  ", "  ", tb_width(), "%s: loaded by: %s", fmt, text);
}

static const int ld_steps[] = { LD_K_LOAD, LD_K_JIT, LD_K_GET_FIRST, LD_K_LAUNCH_HOST,
                                 LD_K_LAUNCH_EVENTS, LD_K_WARM, LD_K_GET_OTHERS, LD_K_FUNC_LOAD,
                                 LD_K_TOTAL, LD_K_MEM_LOAD, LD_K_MEM_ALL };

/* The median of figure k (LD_K_) of label in format fmt, NaN when absent. */
static double ld_med(const results *r, int k, const char *label, const char *fmt)
{
    char key[96];
    ld_key(key, sizeof key, NULL, k, label, fmt);
    return tb_med(r, "loading", key);
}

/* The steps of each module in format fmt, a row a module. */
static void ld_print_steps(FILE *f, const results *r, char labels[][LD_LABEL_LEN], size_t n,
                           const char *fmt)
{
    static const char *const head[10] = { NULL, "K", "load", "JIT", "get 1st", "1st launch",
                                          "events", "get rest", "cuFuncLoad", "total" };
    static const int col[8] = { 0, 1, 2, 3, 4, 6, 7, 8 };  /* of ld_steps, after module and K */
    size_t i, j;
    ly_table *t = ly_new(2, 10);

    for (j = 0; j < 10; j++) ly_column(t, j, j ? head[j] : fmt, j ? LY_RIGHT : LY_LEFT, 0);
    ly_keys(t, 1);
    for (i = 0; i < n; i++) {
        char c[9][32];
        const char *cell[10];
        snprintf(c[0], sizeof c[0], "%.0f", ld_med(r, LD_K_K, labels[i], fmt));
        for (j = 0; j < 8; j++) {
            double v = ld_med(r, ld_steps[col[j]], labels[i], fmt);
            if (isnan(v)) snprintf(c[j + 1], sizeof c[0], "-");
            else snprintf(c[j + 1], sizeof c[0], "%.3f", v);
        }
        cell[0] = labels[i];
        for (j = 0; j < 9; j++) cell[j + 1] = c[j];
        ly_row(t, cell, 10);
    }
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
}

static void ld_print_here(FILE *f, const results *r)
{
    char labels[LD_MAX_LABELS][LD_LABEL_LEN];
    size_t n = ld_labels(r, "", labels, LD_MAX_LABELS), i;
    int t;
    if (n == 0) return;
    {
        const res_kv *kv = res_env_get(r, "loading_rounds");
        const res_kv *cmp = res_env_get(r, "compare_loading_rounds");
        fprintf(f, "\n");
        if (cmp && cmp->kind == RES_NUM)
            ly_para(f, 0, 0, tb_width(), "loading: where each module's load costs sit, each mode in "
                    "its own child processes (eager.*, lazy.*); medians of %.0f child process%s per "
                    "mode, the modes alternating", cmp->num, cmp->num == 1 ? "" : "es");
        else if (kv && kv->kind == RES_NUM)
            ly_para(f, 0, 0, tb_width(), "loading: where each module's load costs sit; medians of "
                    "%.0f child process%s, one after the other, in the mode this run passes on (%s, "
                    "requested %s)", kv->num, kv->num == 1 ? "" : "es",
                    tb_env_str(r, "module_loading_effective", "?"),
                    tb_env_str(r, "module_loading_requested", "?"));
        else
            ly_para(f, 0, 0, tb_width(), "loading: where each module's load costs sit, in this "
                    "process's mode (%s, requested %s)", tb_env_str(r, "module_loading_effective", "?"),
                    tb_env_str(r, "module_loading_requested", "?"));
    }
    ly_para(f, 0, 0, tb_width(), "host clock in ms unless noted; 'events' is the first launch on "
            "the device; memory in MiB");
    for (t = 0; t < 2; t++) {
        const char *fmt = t ? "ptx" : "cubin";
        ld_print_steps(f, r, labels, n, fmt);
        /* A line a module: the warm launch, the memory, and cuFuncIsLoaded's
         * counts after each step. */
        for (i = 0; i < n; i++) {
            static const int ld[5] = { LD_K_LOADED_LOAD, LD_K_LOADED_GET, LD_K_LOADED_LAUNCH,
                                       LD_K_LOADED_OTHERS, LD_K_LOADED_ALL };
            int q;
            char counts[96];
            size_t at = 0;
            for (q = 0; q < 5 && at < sizeof counts; q++)
                at += (size_t)snprintf(counts + at, sizeof counts - at, "%s%.0f", q ? "/" : "",
                                       ld_med(r, ld[q], labels[i], fmt));
            ly_para(f, 4, 6, tb_width(), "%s: loaded after each step %s; warm launch %.4f ms; %.1f "
                    "MiB after the load, %.1f all loaded", labels[i], counts,
                    ld_med(r, LD_K_WARM, labels[i], fmt), ld_med(r, LD_K_MEM_LOAD, labels[i], fmt),
                    ld_med(r, LD_K_MEM_ALL, labels[i], fmt));
        }
        ld_print_loaded_by(f, r, labels, n, fmt);
        /* The library path (cuLibraryLoadData), per mode where the run has both. */
        {
            static const char *const pre[] = { "", LD_EAGER, LD_LAZY };
            static const int step[] = { LD_K_LIB_LOAD, LD_K_LIB_GET_KERNEL, LD_K_LIB_GET_FUNCTION,
                                        LD_K_LIB_LAUNCH_HOST, LD_K_LIB_LAUNCH_EVENTS };
            size_t p, q;
            for (p = 0; p < 3; p++) {
                char key[96], label[32];
                double v[5];
                ld_key(key, sizeof key, pre[p], LD_K_LIB_LOAD, NULL, fmt);
                if (!res_find(r, "loading", key)) continue;
                for (q = 0; q < 5; q++) {
                    ld_key(key, sizeof key, pre[p], step[q], NULL, fmt);
                    v[q] = tb_med(r, "loading", key);
                }
                snprintf(label, sizeof label, "%slibrary path:", pre[p]);
                ly_para(f, 4, 6, tb_width(), "%s load %.3f, get kernel "
                        "%.3f, get function %.3f, first launch %.3f (events %.3f)", label, v[0], v[1],
                        v[2], v[3], v[4]);
            }
        }
    }
    tb_wrap(f, "  ", "  ", tb_width(), "total = load + get 1st + 1st launch (host) + get rest + "
            "cuFuncLoad: the host time until every function is loaded. 'loaded after each step' "
            "counts the functions cuFuncIsLoaded reports loaded after the load, the first get, the "
            "first launch, the other gets and cuFuncLoad. The children run with the driver's JIT "
            "cache disabled (CUDA_CACHE_DISABLE=1): every PTX load pays its JIT; section jit "
            "measures the cache states apart. Memory is cuMemGetInfo's difference, in its own "
            "granularity (whole MiB here).");
}

/* Eager against lazy, from --compare-loading: medians over the children,
 * their intervals, the difference, the noise it was judged against and the
 * verdict ld_compare_verdicts stored (a row for each stored verdict). */
static void ld_print_compare(FILE *f, const results *r)
{
    static const char *const head[5] = { "step", "EAGER", "LAZY", "lazy-eager, noise, p",
                                         "verdict" };
    char labels[LD_MAX_LABELS][LD_LABEL_LEN];
    size_t n = ld_labels(r, LD_EAGER, labels, LD_MAX_LABELS), i, j;
    double pct = vd_threshold(r);
    int t;
    ly_table *tb;
    if (n == 0) return;
    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "loading, eager against lazy: %.0f rounds of child processes, "
            "alternating; medians and 95%% intervals", tb_env_num(r, "compare_loading_rounds"));
    /* The module heads its rows (in every block); a row a step. */
    tb = ly_new(4, 5);
    for (i = 0; i < 5; i++) {
        ly_column(tb, i, head[i], i >= 1 && i <= 3 ? LY_RIGHT : LY_LEFT, i == 4 ? 10 : 0);
        if (i >= 1) ly_group(tb, i);
    }
    ly_group(tb, 4);
    ly_keys(tb, 1);
    for (t = 0; t < 2; t++) {
        const char *fmt = t ? "ptx" : "cubin";
        for (i = 0; i < n; i++) {
            int named = 0;     /* the module's label on its first row */
            for (j = 0; j < LD_COMPARE_NSTEPS; j++) {
                const char *step = ld_step(ld_compare_steps[j]);
                char ke[96], kl[96], kd[96], mod[48], ec[64], lc[64], dc[64];
                const res_meas *e, *l;
                const res_derived *d;
                ld_key(ke, sizeof ke, LD_EAGER, ld_compare_steps[j], labels[i], fmt);
                ld_key(kl, sizeof kl, LD_LAZY, ld_compare_steps[j], labels[i], fmt);
                vd_key(kd, sizeof kd, labels[i], fmt, step);
                e = res_find(r, "loading", ke);
                l = res_find(r, "loading", kl);
                d = res_derived_find(r, "loading", kd);
                if (!e || !l || !d) continue;
                snprintf(mod, sizeof mod, "%s (%s)", labels[i], fmt);
                snprintf(ec, sizeof ec, "%.3f [%.3f, %.3f]", res_derived_num(d, "eager_median"),
                         e->stats.ci_low, e->stats.ci_high);
                snprintf(lc, sizeof lc, "%.3f [%.3f, %.3f]", res_derived_num(d, "lazy_median"),
                         l->stats.ci_low, l->stats.ci_high);
                snprintf(dc, sizeof dc, "%+.3f, %.3f, %.4f", res_derived_num(d, "diff"),
                         res_derived_num(d, "noise"), res_derived_num(d, "p"));
                if (!named++) ly_heading(tb, mod);
                ly_rowv(tb, step, ec, lc, dc, d->text, NULL);
            }
        }
    }
    ly_print(f, tb, tb_width());
    ly_free(tb);
    ly_para(f, 2, 2, tb_width(), "ms, except mem_all (MiB in use once every function is loaded). "
            "noise: half the central 95%% of the noisier mode's children, at least the runs' "
            "--max-noise twice; p: two-sided Mann-Whitney U test of the children's values. A side "
            "is 'higher' when the difference is past the noise, p < %.2f and its median is at least "
            "%.0f%% above the other's (--threshold); 'no difference' within the noise or the "
            "threshold; 'unclear' past both with p >= %.2f, or with fewer than %d children a mode; "
            "'out of reach' where the counts cannot give p < %.2f (the least p of n a side is "
            "2/C(2n,n): %d a side are the fewest that can; scripts/compare's rule on one run a side).",
            VD_ALPHA, pct, VD_ALPHA, VD_MIN_NOISE, VD_ALPHA, vd_children());
}

void ld_print(FILE *f, const results *r)
{
    ld_print_here(f, r);
    ld_print_compare(f, r);
    lm_print(f, r);
}
