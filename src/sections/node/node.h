/* node.h: a node run (--device=all or --device=LIST): the devices listed
 * by a child of their own, each device's sections run in a child process
 * of its own, one device after the other (so devices do not disturb each
 * other), and the node summary: for each figure measured on more than one
 * device, the median across devices, the spread, and every device that
 * lies more than --node-threshold from that median and beyond its own
 * interval. */
#ifndef NODE_H
#define NODE_H

#include <stdio.h>
#include "core/results.h"
#include "run/cli.h"
#include "run/section_ctx.h"

/* The section name of the node run's own entries (skips, checks, the
 * summary's conclusions). */
#define ND_SECTION "node"

/* The listing child (--child=devices): loads the driver, cuInit, and prints
 * as result lines the device count ("device_count") and, for each device
 * K, "device.K.name", "device.K.pci_bus_id" and "device.K.uuid"; when there
 * is no usable GPU, "no_device" with the reason instead (nothing on
 * stderr). Returns the exit code: 0, or 1 after a failed call (reported).
 * t_main_ns, the child entry points' start time, is not used. */
int nd_devices_child(const cli_opts *o, long long t_main_ns);

/* Plan a node run: list the devices in a child and resolve --device=all
 * (every device) or check a LIST against them; record each in c->r
 * (res_add_device). Returns SEC_OK; SEC_USAGE after printing one line
 * ("--device=0,3: device 3 does not exist: this machine has 2 CUDA
 * devices (0..1)", or "--device=all: no CUDA device here: <why>") with the
 * skip recorded; SEC_FAILED when the listing child failed (named). */
sec_status nd_plan(sec_ctx *c);

/* Run the sections once per planned device, each in a child
 * (--child=device, the command line's words, --device=K), one after the
 * other, reading its results into that device's own. A device whose child
 * fails (exit 1, a signal, its results unreadable) or finds no usable GPU
 * is named in a failed check of section node with its bus id and the
 * child's first error, and the others still run; a usage error (exit 2:
 * the same for every device) stops the run. Then the node summary is
 * computed (nd_summarize). Returns SEC_OK, SEC_FAILED, SEC_USAGE or
 * SEC_NO_GPU (every device found no usable GPU). */
sec_status nd_run(sec_ctx *c);

/* The node summary of r's devices, stored as conclusions of section node:
 * one per figure (section/key) measured on two or more devices (a figure
 * of the host alone, host_only, is no device's and is left out), key
 * "SECTION/KEY", value the median across the devices' medians, fields
 * devices, min, max, spread_pct (max - min over the median), outliers,
 * worst_ordinal, worst_pct; text naming each outlier ("device 2
 * (00000000:39:00.0) +50.0%"), "" when none. A device is an outlier of a
 * figure when its median lies more than threshold_pct from the node's
 * median even at the near end of its own interval of the median (beyond
 * the threshold and beyond its own noise). Then one conclusion "summary": value the number of figures
 * with an outlier, fields figures, devices, threshold_pct, and per device
 * named "dev<ORDINAL>_outliers"; its text names each device with the
 * figures it is off in. Returns 0, or -1 on out of memory. */
int nd_summarize(results *r, double threshold_pct);

/* Print a node run: each device's configuration, its sections' tables
 * (tables: the caller's printer of one device's sections, from its
 * results), roofline and checks, then the node summary. */
void nd_print(FILE *f, const results *r, const cli_opts *o,
              void (*tables)(FILE *f, const results *own, const cli_opts *o));

#endif
