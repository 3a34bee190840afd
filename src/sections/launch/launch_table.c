/* launch_table.c: the launch section's tables: what a launch costs on the
 * host and on the device. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/table.h"
#include "sections/launch/launch.h"

void la_print(FILE *f, const results *r)
{
    static const struct { int k; const char *label; } rows[] = {
        { LA_K_SUBMIT, "host: one cuLaunchKernel (the submit)" },
        { LA_K_STREAM, "stream: back-to-back launches, events" },
        { LA_K_DEVICE, "device: queue full behind a blocking kernel" },
    };
    size_t i;
    char k1[64], k2[64];
    const res_meas *m = res_find(r, LA, la_shape_key(k1, sizeof k1, LA_K_SUBMIT, LA_SHAPE_1X1));
    if (!m) return;
    fprintf(f, "\nlaunch: what one empty launch costs, in us (medians of %zu samples)\n", m->stats.n);
    fprintf(f, "  %-46s %14s %16s\n", "", "1 block of 1", "65,536 x 256");
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fprintf(f, "  %-46s", rows[i].label);
        tb_num(f, 14, 3, tb_med(r, LA, la_shape_key(k1, sizeof k1, rows[i].k, LA_SHAPE_1X1)));
        tb_num(f, 16, 3, tb_med(r, LA, la_shape_key(k2, sizeof k2, rows[i].k, LA_SHAPE_GRID)));
        fprintf(f, "\n");
    }
    fprintf(f, "  %-46s", "host: one cuLaunchKernelEx");
    tb_num(f, 14, 3, tb_med(r, LA, la_keys[LA_K_SUBMIT_EX].key));
    fprintf(f, "\n");
    fprintf(f, "  %-46s", "launch + sync, CU_CTX_SCHED_SPIN");
    tb_num(f, 14, 3, tb_med(r, LA, "sync.spin.launch_sync"));
    fprintf(f, "\n  %-46s", "launch + sync, CU_CTX_SCHED_YIELD");
    tb_num(f, 14, 3, tb_med(r, LA, "sync.yield.launch_sync"));
    fprintf(f, "\n  %-46s", "launch + sync, CU_CTX_SCHED_BLOCKING_SYNC");
    tb_num(f, 14, 3, tb_med(r, LA, "sync.blocking.launch_sync"));
    fprintf(f, "\n  graph of 1000 empty kernels: instantiate %.3f ms; cuGraphLaunch %.3f us on the host;"
            "\n  %.3f us per node on the device\n", tb_med(r, LA, la_keys[LA_K_INSTANTIATE].key),
            tb_med(r, LA, la_keys[LA_K_GRAPH_HOST].key),
            tb_med(r, LA, la_keys[LA_K_GRAPH_NODE].key));
    if (res_find(r, LA, la_keys[LA_K_REF].key))
        fprintf(f, "  host yardstick (100,000 integer steps, beside each submit sample): %.1f us; "
                "host figures\n  of two runs compare only when this one agrees\n",
                tb_med(r, LA, la_keys[LA_K_REF].key));
    fprintf(f, "Three launch costs: the submit is what the CPU pays per call; the stream figure is "
            "what\nback-to-back launches cost while the host keeps the queue fed; the device figure "
            "is what the\nGPU alone pays between kernels once the queue is full; a graph node is "
            "that with the submits\ncollapsed into one call. On 65,536 blocks the empty kernel "
            "costs the GPU's time to run its blocks,\nwhich every one-float-per-thread kernel on "
            "that grid pays too.\n");
}
