/* launch_table.c: the launch section's tables: what a launch costs on the
 * host and on the device. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/launch/launch.h"

/* A median in a cell, "-" where it is missing. */
static const char *la_cell(char *buf, size_t len, double v)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.3f", v);
    return buf;
}

void la_print(FILE *f, const results *r)
{
    static const struct { int k; const char *label; } rows[] = {
        { LA_K_SUBMIT, "host: one cuLaunchKernel (the submit)" },
        { LA_K_STREAM, "stream: back-to-back launches, events" },
        { LA_K_DEVICE, "device: queue full behind a blocking kernel" },
    };
    size_t i;
    char k1[64], k2[64], c1[32], c2[32];
    ly_table *t;
    const res_meas *m = res_find(r, LA, la_shape_key(k1, sizeof k1, LA_K_SUBMIT, LA_SHAPE_1X1));
    if (!m) return;
    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "launch: what one empty launch costs, in us (medians of %zu "
            "samples)", m->stats.n);
    t = ly_new(2, 3);
    ly_column(t, 0, NULL, LY_LEFT, 16);
    ly_column(t, 1, "1 block of 1", LY_RIGHT, 0);
    ly_column(t, 2, "65,536 x 256", LY_RIGHT, 0);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        ly_rowv(t, rows[i].label,
                la_cell(c1, sizeof c1, tb_med(r, LA, la_shape_key(k1, sizeof k1, rows[i].k, LA_SHAPE_1X1))),
                la_cell(c2, sizeof c2, tb_med(r, LA, la_shape_key(k2, sizeof k2, rows[i].k, LA_SHAPE_GRID))),
                NULL);
    ly_rowv(t, "host: one cuLaunchKernelEx", la_cell(c1, sizeof c1, tb_med(r, LA, la_keys[LA_K_SUBMIT_EX].key)), NULL);
    ly_rowv(t, "launch + sync, CU_CTX_SCHED_SPIN", la_cell(c1, sizeof c1, tb_med(r, LA, "sync.spin.launch_sync")), NULL);
    ly_rowv(t, "launch + sync, CU_CTX_SCHED_YIELD", la_cell(c1, sizeof c1, tb_med(r, LA, "sync.yield.launch_sync")), NULL);
    ly_rowv(t, "launch + sync, CU_CTX_SCHED_BLOCKING_SYNC",
            la_cell(c1, sizeof c1, tb_med(r, LA, "sync.blocking.launch_sync")), NULL);
    ly_print(f, t, tb_width());
    ly_free(t);
    ly_para(f, 2, 2, tb_width(), "graph of 1000 empty kernels: instantiate %.3f ms; cuGraphLaunch "
            "%.3f us on the host; %.3f us per node on the device",
            tb_med(r, LA, la_keys[LA_K_INSTANTIATE].key), tb_med(r, LA, la_keys[LA_K_GRAPH_HOST].key),
            tb_med(r, LA, la_keys[LA_K_GRAPH_NODE].key));
    if (res_find(r, LA, la_keys[LA_K_REF].key))
        ly_para(f, 2, 2, tb_width(), "host yardstick (100,000 integer steps, beside each submit "
                "sample): %.1f us; host figures of two runs compare only when this one agrees",
                tb_med(r, LA, la_keys[LA_K_REF].key));
    ly_para(f, 0, 0, tb_width(), "Three launch costs: the submit is what the CPU pays per call; the "
            "stream figure is what back-to-back launches cost while the host keeps the queue fed; "
            "the device figure is what the GPU alone pays between kernels once the queue is full; a "
            "graph node is that with the submits collapsed into one call. On 65,536 blocks the empty "
            "kernel costs the GPU's time to run its blocks, which every one-float-per-thread kernel "
            "on that grid pays too.");
}
