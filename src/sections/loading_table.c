/* loading_table.c: the loading section's tables: each step from module load
 * to the last function loaded, and eager against lazy. Reads the results
 * only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"
#include "table.h"

/* The module labels the loading section measured, in order, from the keys
 * "<label>.cubin.load" (with an optional "eager."/"lazy." in front). */
static size_t ld_labels(const results *r, const char *pre, char labels[][32], size_t max)
{
    size_t i, j, n = 0, plen = strlen(pre);
    for (i = 0; i < r->nm && n < max; i++) {
        const char *k = r->m[i].key, *dot;
        int seen = 0;
        if (strcmp(r->m[i].section, "loading") != 0 || strncmp(k, pre, plen) != 0) continue;
        k += plen;
        dot = strstr(k, ".cubin.load");
        if (!dot || strcmp(dot, ".cubin.load") != 0 || (size_t)(dot - k) >= 32) continue;
        if (strncmp(k, "library", 7) == 0 || strncmp(k, "eager.library", 13) == 0 ||
            strncmp(k, "lazy.library", 12) == 0)
            continue;                              /* the library path has a line of its own */
        for (j = 0; j < n; j++)
            if (strncmp(labels[j], k, (size_t)(dot - k)) == 0 && labels[j][dot - k] == '\0') seen = 1;
        if (seen) continue;
        memcpy(labels[n], k, (size_t)(dot - k));
        labels[n][dot - k] = '\0';
        n++;
    }
    return n;
}

static const char *const ld_steps[] = { "load", "jit", "get_first", "launch_host",
                                           "launch_events", "warm", "get_others", "func_load",
                                           "total", "mem_load", "mem_all" };

static void ld_print_here(FILE *f, const results *r)
{
    char labels[32][32];
    size_t n = ld_labels(r, "", labels, 32), i, j;
    int t;
    if (n == 0) return;
    {
        const res_kv *kv = res_env_get(r, "loading_rounds");
        const res_kv *cmp = res_env_get(r, "compare_loading_rounds");
        if (cmp && cmp->kind == RES_NUM)
            fprintf(f, "\nloading: where each module's load costs sit, each mode in its own child "
                    "processes (eager.*, lazy.*);\nmedians of %.0f child process%s per mode, the "
                    "modes alternating\n", cmp->num, cmp->num == 1 ? "" : "es");
        else if (kv && kv->kind == RES_NUM)
            fprintf(f, "\nloading: where each module's load costs sit; medians of %.0f child process%s, "
                    "one after the other,\nin the mode this run passes on (%s, requested %s)\n",
                    kv->num, kv->num == 1 ? "" : "es",
                    tb_env_str(r, "module_loading_effective", "?"),
                    tb_env_str(r, "module_loading_requested", "?"));
        else
            fprintf(f, "\nloading: where each module's load costs sit, in this process's mode (%s, "
                    "requested %s)\n", tb_env_str(r, "module_loading_effective", "?"),
                    tb_env_str(r, "module_loading_requested", "?"));
    }
    fprintf(f, "host clock in ms unless noted; 'events' is the first launch on the device; "
            "memory in MiB\n");
    for (t = 0; t < 2; t++) {
        const char *fmt = t ? "ptx" : "cubin";
        fprintf(f, "\n  %s  %-10s %5s %8s %8s %8s %9s %8s %8s %9s %10s %8s %7s %7s   %s\n",
                fmt, "module", "K", "load", "JIT", "get 1st", "1st launch", "events", "warm",
                "get rest", "cuFuncLoad", "total", "MiB ld", "MiB all", "loaded: get/launch/rest/all");
        for (i = 0; i < n; i++) {
            char key[96];
            double v[11];
            for (j = 0; j < 11; j++) {
                snprintf(key, sizeof key, "%s.%s.%s", labels[i], fmt, ld_steps[j]);
                v[j] = tb_med(r, "loading", key);
            }
            snprintf(key, sizeof key, "%s.%s.k", labels[i], fmt);
            fprintf(f, "  %*s  %-10s %5.0f", (int)strlen(fmt), "", labels[i], tb_med(r, "loading", key));
            tb_num(f, 8, 3, v[0]);
            tb_num(f, 8, 3, v[1]);
            tb_num(f, 8, 3, v[2]);
            tb_num(f, 8, 3, v[3]);
            tb_num(f, 9, 3, v[4]);
            tb_num(f, 8, 4, v[5]);
            tb_num(f, 8, 3, v[6]);
            tb_num(f, 9, 3, v[7]);
            tb_num(f, 10, 3, v[8]);
            tb_num(f, 8, 1, v[9]);
            tb_num(f, 7, 1, v[10]);
            fprintf(f, "   ");
            {
                static const char *const ld[4] = { "loaded_get", "loaded_launch", "loaded_others", "loaded_all" };
                int q;
                for (q = 0; q < 4; q++) {
                    snprintf(key, sizeof key, "%s.%s.%s", labels[i], fmt, ld[q]);
                    fprintf(f, "%s%.0f", q ? "/" : "", tb_med(r, "loading", key));
                }
            }
            fprintf(f, "\n");
        }
        /* The library path (cuLibraryLoadData), per mode where the run has both. */
        {
            static const char *const pre[] = { "", "eager.", "lazy." };
            static const char *const step[] = { "load", "get_kernel", "get_function", "launch_host",
                                                "launch_events" };
            size_t p, q;
            for (p = 0; p < 3; p++) {
                char key[96], label[32];
                double v[5];
                snprintf(key, sizeof key, "%slibrary.%s.load", pre[p], fmt);
                if (!res_find(r, "loading", key)) continue;
                for (q = 0; q < 5; q++) {
                    snprintf(key, sizeof key, "%slibrary.%s.%s", pre[p], fmt, step[q]);
                    v[q] = tb_med(r, "loading", key);
                }
                snprintf(label, sizeof label, "%slibrary path:", pre[p]);
                fprintf(f, "  %*s  %-*s load %.3f, get kernel %.3f, get function %.3f, first launch "
                        "%.3f (events %.3f)\n", (int)strlen(fmt), "", p ? 20 : 16, label, v[0], v[1],
                        v[2], v[3], v[4]);
            }
        }
    }
    fprintf(f, "  total = load + get 1st + 1st launch (host) + get rest + cuFuncLoad: the host time "
            "until every\n  function is loaded. 'loaded' counts functions cuFuncIsLoaded reports "
            "after each step.\n  The children run with the driver's JIT cache disabled "
            "(CUDA_CACHE_DISABLE=1): every PTX load\n  pays its JIT; section jit measures the "
            "cache states apart.\n  Memory is cuMemGetInfo's difference, in its own "
            "granularity (whole MiB here).\n");
}

/* The verdict of eager (e) against lazy (l), given the U test's p: a side is
 * higher only when the test rejects "no difference" at LD_COMPARE_ALPHA and
 * the medians differ by at least min_pct percent of the lower one
 * (--threshold, recorded in the environment).
 * Two separate 95% intervals that overlap miss real shifts the rank test sees
 * on the same values (a 20% shift at 20 rounds), so that rule flipped between
 * runs. A significant change under the floor is below what the drift of
 * process start-up costs on one machine allows to call: on the H200 VM the
 * same eager load moved 20-40% between and within runs. */
#define LD_COMPARE_ALPHA 0.01
static const char *ld_compare_verdict(const st_summary *e, const st_summary *l, double p,
                                      double min_pct)
{
    double lo = e->median < l->median ? e->median : l->median;
    double hi = e->median < l->median ? l->median : e->median;
    if (!(p < LD_COMPARE_ALPHA) || !(hi - lo >= min_pct / 100.0 * fabs(lo)) ||
        hi == lo)
        return "no difference";
    return l->median > e->median ? "LAZY higher" : "EAGER higher";
}

/* Eager against lazy, from --compare-loading: medians over the children,
 * their intervals, the difference, and a verdict. */
static void ld_print_compare(FILE *f, const results *r)
{
    static const char *const steps[] = { "load", "jit", "get_first", "launch_host", "get_others",
                                         "func_load", "total", "mem_all" };
    char labels[32][32];
    size_t n = ld_labels(r, "eager.", labels, 32), i, j;
    double pct = tb_env_num(r, "compare_threshold_pct");
    int t;
    if (n == 0) return;
    if (!(pct >= 0)) pct = 20.0;
    fprintf(f, "\nloading, eager against lazy: %.0f rounds of child processes, alternating; "
            "medians and 95%% intervals\n", tb_env_num(r, "compare_loading_rounds"));
    fprintf(f, "  %-16s %-12s %24s %24s %10s %7s  %s\n", "module", "step", "EAGER", "LAZY",
            "lazy-eager", "p", "verdict");
    for (t = 0; t < 2; t++) {
        const char *fmt = t ? "ptx" : "cubin";
        for (i = 0; i < n; i++) {
            for (j = 0; j < sizeof steps / sizeof steps[0]; j++) {
                char ke[96], kl[96], mod[48];
                const res_meas *e, *l;
                const char *verdict;
                double p;
                snprintf(ke, sizeof ke, "eager.%s.%s.%s", labels[i], fmt, steps[j]);
                snprintf(kl, sizeof kl, "lazy.%s.%s.%s", labels[i], fmt, steps[j]);
                e = res_find(r, "loading", ke);
                l = res_find(r, "loading", kl);
                if (!e || !l) continue;
                p = st_mann_whitney(e->samples, e->nsamples, l->samples, l->nsamples, NULL);
                verdict = ld_compare_verdict(&e->stats, &l->stats, p, pct);
                snprintf(mod, sizeof mod, "%s (%s)", labels[i], fmt);
                fprintf(f, "  %-16s %-12s %8.3f [%6.3f,%6.3f] %8.3f [%6.3f,%6.3f] %+10.3f %7.4f  %s\n",
                        j == 0 ? mod : "", steps[j], e->stats.median, e->stats.ci_low,
                        e->stats.ci_high, l->stats.median, l->stats.ci_low, l->stats.ci_high,
                        l->stats.median - e->stats.median, p, verdict);
            }
        }
    }
    fprintf(f, "  ms, except mem_all (MiB in use once every function is loaded). p: two-sided "
            "Mann-Whitney U\n  test of the children's values. A side is 'higher' when p < %.2f and its median is at\n"
            "  least %.0f%% above the other's (--threshold); otherwise 'no difference'.\n",
            LD_COMPARE_ALPHA, pct);
}

void ld_print(FILE *f, const results *r)
{
    ld_print_here(f, r);
    ld_print_compare(f, r);
}
