/* launch_table.c: the launch section's tables: what a launch costs on the
 * host and on the device. Reads the results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/table.h"

void la_print(FILE *f, const results *r)
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
