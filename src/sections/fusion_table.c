/* fusion_table.c: the fusion section's tables: predictions, the main size,
 * the n-sweep, the widths and the correctness line. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"
#include "table.h"

void fs_print(FILE *f, const results *r)
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
    /* The roof: the copy floor the section stored. */
    {
        const res_derived *cf = res_derived_find(r, "fusion", "copy_floor");
        double roof = cf ? cf->value : NAN, roof_dtod = res_derived_num(cf, "dtod_gbs");
        if (res_derived_num(cf, "fallback") == 1)
            fprintf(f, "  No n of the sweep has buffers of 4x the L2: the roof falls back to this size's floor.\n");
        fprintf(f, "  x floor is GB/s over the best copy at this n (%.1f GB/s). With buffers of at least "
                "4x the L2,\n  the copy floor is highest at n = %.0f: %.1f GB/s, %.1f%% of cuMemcpyDtoD's "
                "%.1f GB/s there", floor_gbs, res_derived_num(cf, "n"), roof, 100.0 * roof / roof_dtod, roof_dtod);
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
