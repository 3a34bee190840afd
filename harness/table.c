/* table.c: the human tables on stdout, in the spirit of the lesson's output:
 * configuration first, every figure named by its region and state. */
#include "table.h"

#include <math.h>
#include <string.h>

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
        fprintf(f, "  GPU              none usable: %s\n", tb_env_str(r, "gpu_unusable", "?"));
        fprintf(f, "  NVRTC            %s\n", tb_env_str(r, "nvrtc_version", "not loaded"));
    }
    fprintf(f, "  kernel sources   %s\n", o->kernels_dir ? o->kernels_dir : "built in (kernels/*.cu)");
    fprintf(f, "  timing           %d warm-ups and %d timed runs per measurement; the median "
            "is shown;\n                   a region shorter than 10 us (20 event-clock ticks) "
            "is batched\n", o->warmup, o->reps);
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
        fprintf(f, "[%.3f, %.3f] of %zu%s\n", m->stats.ci_low, m->stats.ci_high, m->stats.n,
                m->batch > 1 ? " (batched)" : "");
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
        fprintf(f, "\nWhere row 1 went: the child's waterfall                     ms   %% of row 1\n");
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            if (strcmp(m->section, SW) != 0 || strncmp(m->key, "waterfall.", 10) != 0) continue;
            fprintf(f, "  %-52s %10.3f %8.1f%%\n", m->name, m->stats.median,
                    100.0 * m->stats.median / m1->stats.median);
            sum += m->stats.median;
        }
        fprintf(f, "  %-52s %10.3f %8.1f%%\n", "total (row 1)", sum, 100.0 * sum / m1->stats.median);
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
        if (!any) {
            fprintf(f, "\ncrossover: where the CPU wins (medians, ms; the one-shot task is copy "
                    "in, compute, copy back)\n");
            fprintf(f, "%12s %11s %11s %14s %12s   %-18s %s\n", "n", "CPU", "kernel",
                    "pageable", "pinned", "one-shot winner", "kernel vs CPU");
            any = 1;
        }
        best = fmin(pg->stats.median, pn->stats.median);
        win = cpu->stats.median <= best ? "CPU"
              : pn->stats.median <= pg->stats.median ? "GPU (pinned)" : "GPU (pageable)";
        fprintf(f, "%12ld %11.4f %11.4f %14.4f %12.4f   %-18s %s %.1fx\n", cpu->n,
                cpu->stats.median, k->stats.median, pg->stats.median, pn->stats.median, win,
                k->stats.median < cpu->stats.median ? "kernel faster" : "CPU faster",
                k->stats.median < cpu->stats.median ? cpu->stats.median / k->stats.median
                                                     : k->stats.median / cpu->stats.median);
    }
    if (any)
        fprintf(f, "Kernel vs CPU flatters the GPU by hiding the copies; round trip vs CPU is "
                "the honest\ncomparison for a one-shot job and pessimistic for data that "
                "stays on the device.\n");
}

void tb_section(FILE *f, const results *r, cli_section s)
{
    tb_skipped(f, r, cli_section_name(s));
    switch (s) {
    case CLI_SEC_STOPWATCHES: tb_stopwatches(f, r); break;
    case CLI_SEC_CROSSOVER: tb_crossover(f, r); break;
    case CLI_NSECTIONS: break;
    }
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
