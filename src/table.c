/* table.c: the human tables on stdout, in the spirit of the lesson's output:
 * configuration first, every figure named by its region and state. */
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#define SW "stopwatches"
#define XO "crossover"

static const char *tb_env_str(const results *r, const char *key, const char *dflt)
{
    const res_kv *kv = res_env_get(r, key);
    return kv && kv->kind == RES_STR && kv->str ? kv->str : dflt;
}

static double tb_env_num(const results *r, const char *key)
{
    const res_kv *kv = res_env_get(r, key);
    return kv && kv->kind == RES_NUM ? kv->num : NAN;
}

void tb_config(FILE *f, const results *r, const cli_opts *o)
{
    double l2 = tb_env_num(r, "l2_bytes"), mem = tb_env_num(r, "memory_bytes");
    int i, first = 1;

    fprintf(f, "harness %s: the clock around one CUDA program, taken apart\n",
            tb_env_str(r, "harness_version", "?"));
    if (res_env_get(r, "gpu")) {
        fprintf(f, "  GPU              %s, device %d: compute capability %s, %.0f SMs, "
                "L2 %.1f MiB, %.1f GiB, %.0f-bit memory bus\n",
                tb_env_str(r, "gpu", "?"), o->device, tb_env_str(r, "compute_capability", "?"),
                tb_env_num(r, "sms"), l2 / 1048576.0, mem / 1073741824.0,
                tb_env_num(r, "memory_bus_bits"));
        fprintf(f, "  driver           %s (CUDA %s); NVRTC %s\n",
                tb_env_str(r, "driver_version", "version not readable"),
                tb_env_str(r, "driver_cuda_version", "?"), tb_env_str(r, "nvrtc_version", "not loaded"));
        fprintf(f, "  module loading   requested %s, in effect %s\n",
                tb_env_str(r, "module_loading_requested", "?"),
                tb_env_str(r, "module_loading_effective", "?"));
        fprintf(f, "  compiled for     %s (%s)\n", tb_env_str(r, "arch", "?"),
                o->arch ? "--arch" : "the device's");
    } else {
        fprintf(f, "  GPU              %s%s\n", res_env_get(r, "gpu_unusable") ? "none usable: " : "",
                tb_env_str(r, "gpu_unusable", "not opened (no section run in this process needed one)"));
        fprintf(f, "  NVRTC            %s\n", tb_env_str(r, "nvrtc_version", "not loaded"));
    }
    fprintf(f, "  kernel sources   %s\n", o->kernels_dir ? o->kernels_dir : "built in (kernels/*.cu)");
    if (o->profile)
        fprintf(f, "  timing           --profile: every kernel version once, no warm-up, no "
                "flush, no clock kernel\n");
    else if (o->reps_given)
        fprintf(f, "  timing           %d warm-up%s and exactly %d timed samples per measurement; "
                "the median is shown;\n                   a region shorter than 10 us (20 "
                "event-clock ticks) is batched\n", o->warmup, o->warmup == 1 ? "" : "s", o->reps);
    else
        fprintf(f, "  timing           %d warm-up%s, then samples until the median's 95%% interval "
                "is within %g%%\n                   of it (at least %d samples, at most %g s "
                "each; '~' marks a measurement\n                   that stopped noisier); the "
                "median is shown; a region shorter than\n                   10 us (20 "
                "event-clock ticks) is batched\n", o->warmup, o->warmup == 1 ? "" : "s",
                o->max_noise * 100.0,
                o->min_samples, o->max_time);
    if (!o->profile && res_env_get(r, "l2_cold_flush_bytes"))
        fprintf(f, "  cache states     %s; L2-cold writes over %.0f MiB (2x the L2) before each "
                "sample\n", o->cache == CLI_CACHE_WARM ? "warm" : o->cache == CLI_CACHE_COLD
                ? "L2-cold (and warm)" : "warm and L2-cold", tb_env_num(r, "l2_cold_flush_bytes") / 1048576.0);
    fprintf(f, "  sections         ");
    for (i = 0; i < CLI_NSECTIONS; i++) {
        if (!o->run[i]) continue;
        fprintf(f, "%s%s", first ? "" : ", ", cli_section_name((cli_section)i));
        first = 0;
    }
    fprintf(f, "\n");
}

/* One row: label, median in ms, the state, and the interval or "1 run". */
static void tb_row(FILE *f, const char *num, const res_meas *m, const char *label)
{
    if (!m) return;
    fprintf(f, "  %-3s%-46s %12.3f  %-13s", num, label, m->stats.median, res_state_name(m->state));
    if (m->stats.n == 1)
        fprintf(f, "1 run\n");
    else
        fprintf(f, "[%.3f, %.3f] of %zu%s%s\n", m->stats.ci_low, m->stats.ci_high, m->stats.n,
                m->batch > 1 ? " (batched)" : "", m->noisy ? " ~noisy" : "");
}

/* Per section: how many measurements the stopping rule left noisy, and the
 * SM clock read beside the samples (how many, how many low, the median). */
static void tb_rigor(FILE *f, const results *r, const char *section)
{
    size_t i, j, nm = 0, noisy = 0, nclk = 0, low = 0, shown = 0;
    double *clk = NULL, med = NAN, lo = NAN, hi = NAN;
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, section) != 0) continue;
        nm++;
        if (m->noisy) noisy++;
        if (m->mhz) nclk += m->nsamples;
        low += m->low_clock;
    }
    if (nm == 0) return;
    if (nclk && (clk = malloc(nclk * sizeof *clk)) != NULL) {
        size_t k = 0;
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            if (strcmp(m->section, section) != 0 || !m->mhz) continue;
            for (j = 0; j < m->nsamples; j++)
                if (isfinite(m->mhz[j])) clk[k++] = m->mhz[j];
        }
        if (k) {
            st_summary sm = st_summarize(clk, k);
            med = sm.median;
            lo = sm.min;
            hi = sm.max;
        }
        nclk = k;
        free(clk);
    }
    fprintf(f, "  rigor: %zu measurements, %zu stopped noisier than asked", nm, noisy);
    for (i = 0; i < r->nm && noisy; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, section) != 0 || !m->noisy) continue;
        if (shown == 4) { fprintf(f, ", ..."); break; }
        fprintf(f, "%s%s", shown++ ? ", " : " (", m->key);
    }
    fprintf(f, "%s\n", shown && shown < 5 ? ")" : shown ? ")" : "");
    if (nclk)
        fprintf(f, "  SM clock beside %zu samples: median %.0f MHz (%.0f to %.0f); %zu below 75%% "
                "of %.0f MHz\n", nclk, med, lo, hi, low, tb_env_num(r, "sm_clock_khz") / 1000.0);
}

static void tb_skipped(FILE *f, const results *r, const char *section)
{
    size_t i;
    for (i = 0; i < r->nskip; i++)
        if (strcmp(r->skip[i].section, section) == 0)
            fprintf(f, "\n%s: skipped: %s\n", section, r->skip[i].reason);
}

static void tb_stopwatches(FILE *f, const results *r)
{
    const res_meas *m1 = res_find(r, SW, "row1"), *m4 = res_find(r, SW, "row4");
    const res_meas *m5 = res_find(r, SW, "row5"), *cpu = res_find(r, SW, "cpu");
    size_t i;

    if (!m1 && !m4) return;
    fprintf(f, "\nstopwatches: one vectorAdd over 16,777,827 floats (64.0 MiB per buffer, "
            "256 threads per block, 65,539 blocks)\n\n");
    fprintf(f, "Five ways to time one vector add                     median (ms)  state        "
            "95%% CI of the median\n");
    tb_row(f, "1", m1, "wall clock, whole process");
    tb_row(f, "2", res_find(r, SW, "row2"), "wall clock, around the launch");
    tb_row(f, "", res_find(r, SW, "row2sync"), "the same clock, plus a sync");
    tb_row(f, "", res_find(r, SW, "row2.first"), "around the launch, first launch");
    tb_row(f, "", res_find(r, SW, "row2sync.first"), "plus a sync, first launch");
    tb_row(f, "3", res_find(r, SW, "row3"), "events, kernel, first launch");
    tb_row(f, "4", m4, "events, kernel, after warm-up");
    tb_row(f, "", res_find(r, SW, "row4.cold"), "the same, L2 written over before each");
    tb_row(f, "5", m5, "events, copies + kernel + copy back");
    tb_row(f, "", res_find(r, SW, "row5pinned"), "the same, pinned host memory");
    tb_row(f, "", cpu, "CPU, same n, one thread");
    if (m1 && m4 && m4->stats.median > 0)
        fprintf(f, "\nRow 1 / row 4 = %.0f: what `time ./a.out` reports over what the kernel takes.\n",
                m1->stats.median / m4->stats.median);
    if (cpu && m4 && m5 && m4->stats.median > 0 && cpu->stats.median > 0)
        fprintf(f, "The kernel is %.1fx the CPU's speed; the whole round trip is %.2fx.\n",
                cpu->stats.median / m4->stats.median, cpu->stats.median / m5->stats.median);

    fprintf(f, "\nA second kernel is cold too\n");
    tb_row(f, "", res_find(r, SW, "scale.first"), "vectorScale, first launch");
    tb_row(f, "", res_find(r, SW, "scale.warm"), "vectorScale, after warm-up");

    if (m1) {
        double sum = 0;
        if (m1->nsamples > 1)
            fprintf(f, "\nWhere row 1 went: the child's waterfall, median of %zu children  ms   %% of row 1\n",
                    m1->nsamples);
        else
            fprintf(f, "\nWhere row 1 went: the child's waterfall                     ms   %% of row 1\n");
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            if (strcmp(m->section, SW) != 0 || strncmp(m->key, "waterfall.", 10) != 0) continue;
            fprintf(f, "  %-52s %10.3f %8.1f%%\n", m->name, m->stats.median,
                    100.0 * m->stats.median / m1->stats.median);
            sum += m->stats.median;
        }
        fprintf(f, "  %-52s %10.3f %8.1f%%\n", m1->nsamples > 1 ? "total (the parts' medians)" : "total (row 1)",
                sum, 100.0 * sum / m1->stats.median);
        fprintf(f, "  The child times its own parts; the parent times the last two, from the\n"
                "  child's last mark to its last file closing, and from there to waitpid.\n");
    }
    fprintf(f, "\nWhat each row holds that the row below does not:\n"
            "  1  process start, loading the driver and NVRTC, cuInit, the context, compiling,\n"
            "     module load, allocations, host setup, the copies and teardown\n"
            "  2  with the sync: the kernel's run and the wait for it; without: only the enqueue\n"
            "  3  the first launch's one-time cost: loading the function (lazy loading)\n"
            "  4  the kernel alone, warm\n"
            "  5  the two copies in and the copy back over PCIe around the kernel\n");
}

/* The median of "<section>/<key>", or NaN when absent. */
static double tb_med(const results *r, const char *section, const char *key)
{
    const res_meas *m = res_find(r, section, key);
    return m ? m->stats.median : NAN;
}

/* A figure that may be missing: "-" in its place. */
static void tb_num(FILE *f, int width, int prec, double v)
{
    if (isnan(v)) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*.*f", width, prec, v);
}

static void tb_crossover(FILE *f, const results *r)
{
    size_t i;
    int any = 0;

    for (i = 0; i < r->nm; i++) {
        const res_meas *cpu = &r->m[i], *k, *pg, *pn;
        char key[80];
        const char *win;
        double best;
        if (strcmp(cpu->section, XO) != 0 || !strstr(cpu->key, ".cpu")) continue;
        snprintf(key, sizeof key, "n=%ld.kernel", cpu->n);
        k = res_find(r, XO, key);
        snprintf(key, sizeof key, "n=%ld.rt_pageable", cpu->n);
        pg = res_find(r, XO, key);
        snprintf(key, sizeof key, "n=%ld.rt_pinned", cpu->n);
        pn = res_find(r, XO, key);
        if (!k || !pg || !pn) continue;
        snprintf(key, sizeof key, "n=%ld.kernel.cold", cpu->n);
        if (!any) {
            fprintf(f, "\ncrossover: where the CPU wins (medians, ms; the one-shot task is copy "
                    "in, compute, copy back)\n");
            fprintf(f, "%12s %11s %11s %11s %14s %12s   %-18s %s\n", "n", "CPU", "kernel",
                    "L2-cold", "pageable", "pinned", "one-shot winner", "kernel vs CPU");
            any = 1;
        }
        best = fmin(pg->stats.median, pn->stats.median);
        win = cpu->stats.median <= best ? "CPU"
              : pn->stats.median <= pg->stats.median ? "GPU (pinned)" : "GPU (pageable)";
        fprintf(f, "%12ld %11.4f %11.4f", cpu->n, cpu->stats.median, k->stats.median);
        tb_num(f, 12, 4, tb_med(r, XO, key));
        fprintf(f, " %14.4f %12.4f   %-18s %s %.1fx\n", pg->stats.median, pn->stats.median, win,
                k->stats.median < cpu->stats.median ? "kernel faster" : "CPU faster",
                k->stats.median < cpu->stats.median ? cpu->stats.median / k->stats.median
                                                     : k->stats.median / cpu->stats.median);
    }
    if (any)
        fprintf(f, "kernel: warm (inputs as the last run left them in the L2); L2-cold: the L2 "
                "written over\nbefore each launch. Kernel vs CPU flatters the GPU by hiding the "
                "copies; round trip vs CPU is the honest\ncomparison for a one-shot job and pessimistic for data that "
                "stays on the device.\n");
}

/* The module labels the loading section measured, in order, from the keys
 * "<label>.cubin.load" (with an optional "eager."/"lazy." in front). */
static size_t tb_ld_labels(const results *r, const char *pre, char labels[][32], size_t max)
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

static const char *const tb_ld_steps[] = { "load", "jit", "get_first", "launch_host",
                                           "launch_events", "warm", "get_others", "func_load",
                                           "total", "mem_load", "mem_all" };

static void tb_loading_here(FILE *f, const results *r)
{
    char labels[32][32];
    size_t n = tb_ld_labels(r, "", labels, 32), i, j;
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
                snprintf(key, sizeof key, "%s.%s.%s", labels[i], fmt, tb_ld_steps[j]);
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
 * higher only when the test rejects "no difference" at TB_COMPARE_ALPHA and
 * the medians differ by at least min_pct percent of the lower one
 * (--threshold, recorded in the environment).
 * Two separate 95% intervals that overlap miss real shifts the rank test sees
 * on the same values (a 20% shift at 20 rounds), so that rule flipped between
 * runs. A significant change under the floor is below what the drift of
 * process start-up costs on one machine allows to call: on the H200 VM the
 * same eager load moved 20-40% between and within runs. */
#define TB_COMPARE_ALPHA 0.01
static const char *tb_compare_verdict(const st_summary *e, const st_summary *l, double p,
                                      double min_pct)
{
    double lo = e->median < l->median ? e->median : l->median;
    double hi = e->median < l->median ? l->median : e->median;
    if (!(p < TB_COMPARE_ALPHA) || !(hi - lo >= min_pct / 100.0 * fabs(lo)) ||
        hi == lo)
        return "no difference";
    return l->median > e->median ? "LAZY higher" : "EAGER higher";
}

/* Eager against lazy, from --compare-loading: medians over the children,
 * their intervals, the difference, and a verdict. */
static void tb_loading_compare(FILE *f, const results *r)
{
    static const char *const steps[] = { "load", "jit", "get_first", "launch_host", "get_others",
                                         "func_load", "total", "mem_all" };
    char labels[32][32];
    size_t n = tb_ld_labels(r, "eager.", labels, 32), i, j;
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
                verdict = tb_compare_verdict(&e->stats, &l->stats, p, pct);
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
            TB_COMPARE_ALPHA, pct);
}

static void tb_jit(FILE *f, const results *r)
{
    static const char *const sets[][2] = {
        { "opt.compute", "-arch=compute_XY (PTX)" }, { "opt.base", "-arch=sm_XY (cubin)" },
        { "opt.fast_math", "--use_fast_math" }, { "opt.lineinfo", "-lineinfo" },
        { "opt.G", "-G" }, { "opt.edv", "--extra-device-vectorization" }, { "opt.dopt", "-dopt=on" },
    };
    static const char *const states[][2] = {
        { "cache.disabled.", "EAGER, cache disabled (CUDA_CACHE_DISABLE=1)" },
        { "cache.empty.", "EAGER, empty private cache" },
        { "cache.warm.", "EAGER, the same cache, warm" },
        { "lazy.disabled.", "LAZY, cache disabled" },
    };
    static const char *const orders[][2] = {
        { "order.init_first.", "cuInit first" },
        { "order.compile_first.", "first compile first" },
        { "order.init_first.nopreload.", "cuInit first, CUDA_FORCE_PRELOAD_LIBRARIES=0" },
        { "order.compile_first.nopreload.", "compile first, CUDA_FORCE_PRELOAD_LIBRARIES=0" },
    };
    size_t i;
    char key[128];
    int any = 0;

    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, "jit") == 0) any = 1;
    if (!any) return;
    fprintf(f, "\njit: what compiling at run time costs (arch %s); NVRTC in this process, medians in ms\n",
            tb_env_str(r, "jit_arch", "?"));
    fprintf(f, "  %-22s %10s %10s\n", "source", "to PTX", "to cubin");
    for (i = 0; i < kn_nfiles; i++) {
        fprintf(f, "  %-22s", kn_files[i]);
        snprintf(key, sizeof key, "compile.%s.ptx", kn_files[i]);
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        snprintf(key, sizeof key, "compile.%s.cubin", kn_files[i]);
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        fprintf(f, "\n");
    }
    fprintf(f, "  first compile in a fresh process %.2f, the second %.2f (loading NVRTC %.2f); "
            "children, median of %zu\n", tb_med(r, "jit", "nvrtc.first"),
            tb_med(r, "jit", "nvrtc.second"), tb_med(r, "jit", "nvrtc.dlopen"),
            res_find(r, "jit", "nvrtc.first") ? res_find(r, "jit", "nvrtc.first")->stats.n : (size_t)0);
    fprintf(f, "\n");
    if (res_find(r, "jit", "opt.base")) {              /* not in --quick */
        fprintf(f, "  options, vector.cu\n");
        for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
            fprintf(f, "  %-34s", sets[i][1]);
            tb_num(f, 9, 2, tb_med(r, "jit", sets[i][0]));
            fprintf(f, "\n");
        }
    }
    fprintf(f, "  NVRTC's own phases (--time), vector.cu to cubin:");
    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, "jit") == 0 && strncmp(r->m[i].key, "phases.vector.cubin.", 20) == 0)
            fprintf(f, " %s %.0f;", r->m[i].key + 20, r->m[i].stats.median);
    fprintf(f, "\n\n  %-10s %12s %10s %10s\n", "kernels K", "source B", "to PTX", "to cubin");
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        long k;
        if (strcmp(m->section, "jit") != 0 || strncmp(m->key, "synth.", 6) != 0) continue;
        if (!strstr(m->key, ".ptx")) continue;
        k = strtol(m->key + 6, NULL, 10);
        snprintf(key, sizeof key, "synth.%ld.cubin", k);
        fprintf(f, "  %-10ld %12ld %10.2f", k, m->n, m->stats.median);
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        fprintf(f, "\n");
    }
    if (res_find(r, "jit", "cache.disabled.load")) {
        fprintf(f, "\n  driver JIT of the %.0f-kernel PTX module, child processes, median of %zu:\n",
                tb_env_num(r, "jit_cache_k"), res_find(r, "jit", "cache.disabled.load")->stats.n);
        fprintf(f, "  %-48s %9s %9s %9s %11s\n", "", "load", "JIT wall", "get 1st", "1st launch");
        for (i = 0; i < sizeof states / sizeof states[0]; i++) {
            static const char *const st[4] = { "load", "jit", "get", "launch" };
            int q;
            fprintf(f, "  %-48s", states[i][1]);
            for (q = 0; q < 4; q++) {
                snprintf(key, sizeof key, "%s%s", states[i][0], st[q]);
                tb_num(f, q == 3 ? 11 : 9, 3, tb_med(r, "jit", key));
            }
            fprintf(f, "\n");
        }
        {
            double dis = tb_med(r, "jit", "cache.disabled.load"), warm = tb_med(r, "jit", "cache.warm.load");
            double ej = tb_med(r, "jit", "cache.disabled.jit"), lj = tb_med(r, "jit", "lazy.disabled.jit");
            double ll = tb_med(r, "jit", "lazy.disabled.load"), la = tb_med(r, "jit", "lazy.disabled.launch");
            fprintf(f, "  The warm cache saves %.3f ms of the %.3f ms load.\n", dis - warm, dis);
            if (!isnan(lj) && !isnan(ej) && ej > 0)
                fprintf(f, "  Under LAZY the JIT %s: the driver reports %.3f ms of JIT inside the load "
                        "(EAGER %.3f ms);\n  the load takes %.3f ms and the first launch %.3f ms.\n",
                        lj >= 0.5 * ej ? "is not deferred" : "is deferred", lj, ej, ll, la);
        }
    }
    if (res_find(r, "jit", "jitopt.O0.load")) {
        fprintf(f, "\n  CU_JIT_OPTIMIZATION_LEVEL (vector.cu PTX, cache disabled): %9s %9s %12s\n",
                "load", "JIT wall", "vectorAdd");
        for (i = 0; i <= 4; i++) {
            fprintf(f, "  %-56s", "");
            snprintf(key, sizeof key, "jitopt.O%zu.load", i);
            fprintf(f, "%zu", i);
            tb_num(f, 8, 3, tb_med(r, "jit", key));
            snprintf(key, sizeof key, "jitopt.O%zu.jit", i);
            tb_num(f, 9, 3, tb_med(r, "jit", key));
            snprintf(key, sizeof key, "jitopt.O%zu.warm", i);
            tb_num(f, 12, 4, tb_med(r, "jit", key));
            fprintf(f, "\n");
        }
    }
    if (res_find(r, "jit", "order.init_first.init")) {
        fprintf(f, "\n  who pays what cuInit and NVRTC share (children):  %9s %9s %9s %9s\n",
                "libcuda", "cuInit", "NVRTC", "compile");
        for (i = 0; i < sizeof orders / sizeof orders[0]; i++) {
            static const char *const st[4] = { "libcuda", "init", "nvrtc", "compile" };
            int q;
            fprintf(f, "  %-49s", orders[i][1]);
            for (q = 0; q < 4; q++) {
                snprintf(key, sizeof key, "%s%s", orders[i][0], st[q]);
                tb_num(f, 9, 2, tb_med(r, "jit", key));
            }
            fprintf(f, "\n");
        }
        {
            double ci = tb_med(r, "jit", "order.init_first.init"), cc = tb_med(r, "jit", "order.compile_first.init");
            double pi = tb_med(r, "jit", "order.init_first.compile"), pc = tb_med(r, "jit", "order.compile_first.compile");
            double lc = tb_med(r, "jit", "order.compile_first.libcuda");
            fprintf(f, "  Compiling first moves %.2f ms out of cuInit (%.2f -> %.2f) and adds %.2f ms to "
                    "the first compile\n  (%.2f -> %.2f)%s\n", ci - cc, ci, cc, pc - pi, pi, pc,
                    lc < 0.1 ? "; libcuda was already loaded when the harness asked for it: NVRTC's "
                               "first compile\n  had loaded the driver and initialised it itself" : ".");
        }
    }
}

static void tb_launch(FILE *f, const results *r)
{
    static const char *const rows[][2] = {
        { "submit", "host: one cuLaunchKernel (the submit)" },
        { "stream", "stream: back-to-back launches, events" },
        { "device", "device: queue full behind a blocking kernel" },
    };
    size_t i;
    const res_meas *m = res_find(r, "launch", "submit.1x1");
    if (!m) return;
    fprintf(f, "\nlaunch: what one empty launch costs, in us (medians of %zu samples)\n", m->stats.n);
    fprintf(f, "  %-46s %14s %16s\n", "", "1 block of 1", "65,536 x 256");
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char k1[64], k2[64];
        snprintf(k1, sizeof k1, "%s.1x1", rows[i][0]);
        snprintf(k2, sizeof k2, "%s.grid", rows[i][0]);
        fprintf(f, "  %-46s", rows[i][1]);
        tb_num(f, 14, 3, tb_med(r, "launch", k1));
        tb_num(f, 16, 3, tb_med(r, "launch", k2));
        fprintf(f, "\n");
    }
    fprintf(f, "  %-46s", "host: one cuLaunchKernelEx");
    tb_num(f, 14, 3, tb_med(r, "launch", "submit_ex.1x1"));
    fprintf(f, "\n");
    fprintf(f, "  %-46s", "launch + sync, CU_CTX_SCHED_SPIN");
    tb_num(f, 14, 3, tb_med(r, "launch", "sync.spin.launch_sync"));
    fprintf(f, "\n  %-46s", "launch + sync, CU_CTX_SCHED_YIELD");
    tb_num(f, 14, 3, tb_med(r, "launch", "sync.yield.launch_sync"));
    fprintf(f, "\n  %-46s", "launch + sync, CU_CTX_SCHED_BLOCKING_SYNC");
    tb_num(f, 14, 3, tb_med(r, "launch", "sync.blocking.launch_sync"));
    fprintf(f, "\n  graph of 1000 empty kernels: instantiate %.3f ms; cuGraphLaunch %.3f us on the host;"
            "\n  %.3f us per node on the device\n", tb_med(r, "launch", "graph.instantiate"),
            tb_med(r, "launch", "graph.launch_host"), tb_med(r, "launch", "graph.node"));
    if (res_find(r, "launch", "host.ref"))
        fprintf(f, "  host yardstick (100,000 integer steps, beside each submit sample): %.1f us; "
                "host figures\n  of two runs compare only when this one agrees\n",
                tb_med(r, "launch", "host.ref"));
    fprintf(f, "Three launch costs: the submit is what the CPU pays per call; the stream figure is "
            "what\nback-to-back launches cost while the host keeps the queue fed; the device figure "
            "is what the\nGPU alone pays between kernels once the queue is full; a graph node is "
            "that with the submits\ncollapsed into one call. On 65,536 blocks the empty kernel "
            "costs the GPU's time to run its blocks,\nwhich every one-float-per-thread kernel on "
            "that grid pays too.\n");
}

/* The best copy rate (GB/s) of section fusion at any n whose buffers are at
 * least 4x the L2 (smaller ones are copied partly within the L2; the main
 * size's buffers are about the L2's size), the n, and cuMemcpyDtoD's rate
 * at that n. 0 when there is none. */
static double tb_copy_roof(const results *r, long *n, double *dtod)
{
    double roof = 0, l2 = tb_env_num(r, "l2_bytes");
    size_t i;
    *n = 0;
    *dtod = NAN;
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        double gbs;
        if (strcmp(m->section, "fusion") != 0 || m->bytes <= 0) continue;
        if (!strstr(m->key, ".copy") && !strstr(m->key, ".dtod")) continue;
        if ((double)m->n < l2) continue;
        gbs = m->bytes / m->stats.median / 1e6;
        if (gbs > roof) {
            roof = gbs;
            *n = m->n;
        }
    }
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, "fusion") == 0 && m->n == *n && strstr(m->key, ".dtod"))
            *dtod = m->bytes / m->stats.median / 1e6;
    }
    return roof;
}

static void tb_fusion(FILE *f, const results *r)
{
    static const char *const order[] = { "copy", "copy4", "dtod", "stage1", "stage2", "stage3", "stage4",
        "staged", "pair", "fused", "graph", "wide1", "wide2", "wide4", "wide8", "wide16", "wide32" };
    static const char *const names[] = { "stageScaleBias", "stageGelu", "stageAddResidual", "stageClamp" };
    static const char *const pairs[] = { "pairScaleGelu", "pairResidualClamp" };
    static const char *const fused[] = { "chainFused" };
    double bs = kn_bytes_of(names, 4), bp = kn_bytes_of(pairs, 2), bf = kn_bytes_of(fused, 1);
    double floor_gbs = 0, t_staged, t_fused, t_pair, res_floor = 0;
    const char *gpu = tb_env_str(r, "gpu", "");
    size_t i;
    char key[96];

    if (!res_find(r, "fusion", "main.fused")) return;
    fprintf(f, "\nfusion: one chain of four elementwise stages (scale and bias, GELU, add residual, clamp)\n");
    fprintf(f, "Predictions, from the byte model, before any time: staged %.0f B per element, pair-fused "
            "%.0f, fused %.0f;\n  staged/fused: byte ratio %.2f, launch ratio 4; staged/pair %.2f, "
            "pair/fused %.2f\n", bs, bp, bf, bs / bf, bs / bp, bp / bf);
    for (i = 0; i < 3; i++) {
        const res_meas *m;
        snprintf(key, sizeof key, "main.%s", order[i]);
        m = res_find(r, "fusion", key);
        if (m && m->bytes > 0 && m->bytes / m->stats.median / 1e6 > floor_gbs)
            floor_gbs = m->bytes / m->stats.median / 1e6;
    }
    fprintf(f, "\n  n = 16,777,216 (64 MiB per buffer)    ms   B/elem      GB/s   x floor  L2-cold ms\n");
    for (i = 0; i < sizeof order / sizeof order[0]; i++) {
        const res_meas *m;
        double gbs;
        snprintf(key, sizeof key, "main.%s", order[i]);
        m = res_find(r, "fusion", key);
        if (!m) continue;
        gbs = m->bytes / m->stats.median / 1e6;
        fprintf(f, "  %-32s %9.4f %6.0f %9.1f %9.2f", m->name, m->stats.median,
                m->bytes / (double)m->n, gbs, gbs / floor_gbs);
        snprintf(key, sizeof key, "main.%s.cold", order[i]);
        tb_num(f, 11, 4, tb_med(r, "fusion", key));
        fprintf(f, "\n");
        if (i == 6) {
            double sum = 0;
            int q;
            for (q = 3; q <= 6; q++) {
                snprintf(key, sizeof key, "main.%s", order[q]);
                sum += tb_med(r, "fusion", key);
            }
            fprintf(f, "  %-32s %9.4f %6.0f %9.1f %9.2f\n", "four stages, summed", sum, bs,
                    bs * 16777216.0 / sum / 1e6, bs * 16777216.0 / sum / 1e6 / floor_gbs);
        }
    }
    /* The roof: the best copy with buffers of at least 4x the L2. */
    {
        long roof_n = 0;
        double roof_dtod = 0, roof = tb_copy_roof(r, &roof_n, &roof_dtod);
        if (roof_n == 0) {
            fprintf(f, "  No n of the sweep has buffers of 4x the L2: the roof falls back to this size's floor.\n");
            roof = floor_gbs;
            roof_n = 16777216;
            roof_dtod = 8.0 * 16777216.0 / tb_med(r, "fusion", "main.dtod") / 1e6;
        }
        fprintf(f, "  x floor is GB/s over the best copy at this n (%.1f GB/s). With buffers of at least "
                "4x the L2,\n  the copy floor is highest at n = %ld: %.1f GB/s, %.1f%% of cuMemcpyDtoD's "
                "%.1f GB/s there", floor_gbs, roof_n, roof, 100.0 * roof / roof_dtod, roof_dtod);
        if (strstr(gpu, "H200")) fprintf(f, ", %.1f%% of the H200 datasheet's 4800 GB/s", roof / 48.0);
        fprintf(f, ".\n  GB/s counts the bytes each version names, 1e9 bytes per second; the state is warm: "
                "at 64 MiB per\n  buffer part of the inputs stays in the %.0f MiB L2, which is how a "
                "version can pass 1.00.\n", tb_env_num(r, "l2_bytes") / 1048576.0);
        res_floor = roof;
    }
    t_staged = tb_med(r, "fusion", "main.staged");
    t_fused = tb_med(r, "fusion", "main.fused");
    t_pair = tb_med(r, "fusion", "main.pair");
    {
        double grid_us = tb_med(r, "launch", "device.grid"), one_us = tb_med(r, "launch", "device.1x1");
        double diff_us = (t_staged - t_fused) * 1000.0;
        double bytes_us = (bs - bf) * 16777216.0 / res_floor / 1e3;
        double gs = bs * 16777216.0 / t_staged / 1e6, gf = bf * 16777216.0 / t_fused / 1e6;
        fprintf(f, "Which prediction held: staged/fused = %.2f against the byte ratio %.2f and the launch "
                "ratio 4;\n  staged/pair = %.2f (%.2f), pair/fused = %.2f (%.2f). The staged chain takes "
                "%.1f us longer.\n  At the roof's %.0f GB/s its %.0f extra bytes per element take %.1f us",
                t_staged / t_fused, bs / bf, t_staged / t_pair, bs / bp, t_pair / t_fused, bp / bf,
                diff_us, res_floor, bs - bf, bytes_us);
        if (!isnan(grid_us))
            fprintf(f, "; an empty kernel on the same\n  grid of 65,536 blocks takes %.1f us (on one block "
                    "%.1f us), so its three extra grids can take up to %.1f us.\n  Each one-float-per-thread "
                    "stage kernel pays its grid's time on top of its bytes: the staged chain\n  moves "
                    "%.0f GB/s, the fused kernel %.0f GB/s, and the ratio %s the byte ratio. Fewer, "
                    "fuller\n  blocks (fused-wide<K>) reach the floor.\n", grid_us, one_us,
                    3.0 * grid_us, gs, gf, t_staged / t_fused > bs / bf ? "exceeds" : "falls short of");
        else
            fprintf(f, " (section launch, not run, measures what\n  a grid costs by itself); the staged "
                    "chain moves %.0f GB/s, the fused kernel %.0f GB/s.\n", gs, gf);
    }
    fprintf(f, "\n  %11s %10s %10s %7s %10s %10s %10s %6s  %s\n", "n", "staged ms", "fused ms",
            "ratio", "us/launch", "best fused", "floor", "best/", "reading");
    fprintf(f, "  %11s %10s %10s %7s %10s %10s %10s %6s\n", "", "", "", "", "(staged)", "GB/s", "GB/s", "floor");
    {
        long within = -1, first_n = -1, last_n = 0;
        double small_ratio = NAN, t_small = NAN, last_ratio = NAN, last_st = NAN, last_fu = NAN;
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            double st, fu, best, fl_gbs = 0, bgbs, ratio;
            const char *reading;
            int q;
            static const char *const fv[] = { "fused", "wide4", "wide8" };
            static const char *const cv[] = { "copy", "copy4", "dtod" };
            if (strcmp(m->section, "fusion") != 0 || strncmp(m->key, "n=", 2) != 0 || !strstr(m->key, ".staged"))
                continue;
            st = m->stats.median;
            snprintf(key, sizeof key, "n=%ld.fused", m->n);
            fu = tb_med(r, "fusion", key);
            best = fu;
            for (q = 0; q < 3; q++) {
                snprintf(key, sizeof key, "n=%ld.%s", m->n, fv[q]);
                if (tb_med(r, "fusion", key) < best) best = tb_med(r, "fusion", key);
                snprintf(key, sizeof key, "n=%ld.%s", m->n, cv[q]);
                if (8.0 * (double)m->n / tb_med(r, "fusion", key) / 1e6 > fl_gbs)
                    fl_gbs = 8.0 * (double)m->n / tb_med(r, "fusion", key) / 1e6;
            }
            bgbs = 12.0 * (double)m->n / best / 1e6;
            ratio = st / fu;
            last_n = m->n;
            last_ratio = ratio;
            last_st = st;
            last_fu = fu;
            if (first_n < 0) {
                first_n = m->n;
                small_ratio = ratio;
                t_small = best;
            }
            if (fabs(ratio - 3.0) / 3.0 <= 0.10) {
                if (within < 0) within = m->n;
            } else {
                within = -1;
            }
            if (best < 2.0 * t_small) reading = "launch: the time is a launch's fixed cost";
            else if (bgbs < 0.9 * fl_gbs && (double)m->n * 12.0 < 64e6)
                reading = "too few bytes in flight to reach the floor";
            else if (bgbs < 0.9 * fl_gbs) reading = "below the floor: the tail and the arithmetic";
            else reading = "at the floor";
            fprintf(f, "  %11ld %10.4f %10.4f %7.2f %10.3f %10.1f %10.1f %6.2f  %s\n", m->n, st, fu,
                    ratio, st * 1000.0 / 4.0, bgbs, fl_gbs, bgbs / fl_gbs, reading);
        }
        if (within > 0)
            fprintf(f, "  From n = %ld on, staged/fused stays within 10%% of the byte ratio 3.00.\n", within);
        else
            fprintf(f, "  staged/fused is not within 10%% of the byte ratio 3.00 at the largest n: it settles "
                    "at %.2f, where\n  the staged chain moves %.0f GB/s and the fused kernel %.0f GB/s "
                    "(its four grids of one float per thread:\n  see above).\n", last_ratio, 36.0 * (double)last_n / last_st / 1e6,
                    12.0 * (double)last_n / last_fu / 1e6);
        fprintf(f, "  At n = %ld the ratio is %.2f: launches, not bytes, set both times there (the "
                "launch ratio is 4,\n  but the fused kernel pays a launch too, so the ratio "
                "approaches 4 only when the work vanishes).\n", first_n, small_ratio);
    }

    fprintf(f, "\n  %-16s %5s %8s %10s %10s %9s %9s\n", "width K", "regs", "local B", "blocks/SM",
            "occupancy", "ms", "GB/s");
    for (i = 0; i < 6; i++) {
        static const int K[6] = { 1, 2, 4, 8, 16, 32 };
        double t;
        fprintf(f, "  fused-wide<%-2d>  ", K[i]);
        snprintf(key, sizeof key, "width.%d.regs", K[i]);
        tb_num(f, 5, 0, tb_med(r, "fusion", key));
        snprintf(key, sizeof key, "width.%d.local", K[i]);
        tb_num(f, 8, 0, tb_med(r, "fusion", key));
        snprintf(key, sizeof key, "width.%d.blocks", K[i]);
        tb_num(f, 10, 0, tb_med(r, "fusion", key));
        snprintf(key, sizeof key, "width.%d.occupancy", K[i]);
        tb_num(f, 10, 2, tb_med(r, "fusion", key));
        snprintf(key, sizeof key, "main.wide%d", K[i]);
        t = tb_med(r, "fusion", key);
        tb_num(f, 9, 4, t);
        tb_num(f, 9, 1, 12.0 * 16777216.0 / t / 1e6);
        fprintf(f, "\n");
    }
    fprintf(f, "\n  correctness at n = 1,049,187: see the checks; staged and fused differ bitwise in %.0f "
            "elements,\n  by at most %.3g (counted, not asserted: the same arithmetic in the same order,"
            " so differences\n  come from how the compiler contracted it)\n",
            tb_med(r, "fusion", "bitwise.count"), tb_med(r, "fusion", "bitwise.max"));

}

void tb_roofline(FILE *f, const results *r)
{
    double peak = tb_env_num(r, "fp32_peak_gflops"), dtod;
    long roof_n;
    double tb_roof = tb_copy_roof(r, &roof_n, &dtod);
    size_t i;
    if (!(tb_roof > 0) || isnan(peak)) return;
    fprintf(f, "\nroofline: every kernel with a byte and flop model (warm, medians); the roofs are "
            "the best copy floor,\n%.1f GB/s, and the FP32 peak, %.0f GFLOP/s (%s;\n"
            "tanh counted as one operation)\n", tb_roof, peak, tb_env_str(r, "fp32_peak_source", "?"));
    fprintf(f, "  %-12s %-34s %12s %8s %11s %11s %7s\n", "section", "kernel", "n", "flops/B",
            "attainable", "achieved", "%");
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        double ai, att, ach;
        if (!(m->flops > 0) || !(m->bytes > 0) || strcmp(m->unit, "ms") != 0 || m->state != RES_WARM)
            continue;
        if (strcmp(m->section, "fusion") == 0 && strncmp(m->key, "main.", 5) != 0) continue;
        ai = m->flops / m->bytes;
        att = fmin(peak, ai * tb_roof);
        ach = m->flops / m->stats.median / 1e6;
        fprintf(f, "  %-12s %-34s %12ld %8.3f %11.1f %11.1f %7.1f\n", m->section, m->name, m->n, ai,
                att, ach, 100.0 * ach / att);
    }
    fprintf(f, "  attainable = min(peak, intensity x floor), in GFLOP/s; achieved = the model's flops "
            "over the median.\n");
}

void tb_section(FILE *f, const results *r, cli_section s)
{
    tb_skipped(f, r, cli_section_name(s));
    switch (s) {
    case CLI_SEC_STOPWATCHES: tb_stopwatches(f, r); break;
    case CLI_SEC_CROSSOVER: tb_crossover(f, r); break;
    case CLI_SEC_LOADING:
        tb_loading_here(f, r);
        tb_loading_compare(f, r);
        break;
    case CLI_SEC_JIT: tb_jit(f, r); break;
    case CLI_SEC_LAUNCH: tb_launch(f, r); break;
    case CLI_SEC_FUSION: tb_fusion(f, r); break;
    case CLI_NSECTIONS: break;
    }
    tb_rigor(f, r, cli_section_name(s));
}

void tb_checks(FILE *f, const results *r)
{
    size_t i, failed = res_failed(r);
    if (r->ncheck == 0) return;
    fprintf(f, "\nChecks: %zu passed, %zu failed\n", r->ncheck - failed, failed);
    for (i = 0; i < r->ncheck; i++)
        if (!r->check[i].passed)
            fprintf(f, "  FAILED %s: %s: %s\n", r->check[i].section, r->check[i].what,
                    r->check[i].detail);
}
