/* launch.h: what section launch's files share with the sections that read
 * its figures: its name, the keys it writes and the shapes it launches an
 * empty kernel on. Section fusion reads the device-side cost on the chain's
 * grid through them. */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stddef.h>
#include "core/schema.h"

/* The section's name, as the list names it (sections/list.h). */
#define LA "launch"

/* The measurement keys the section writes, in --schema's order: <word> a
 * shape (LA_SHAPE_) or, in sync.<word>, a scheduling mode ("spin",
 * "yield", "blocking"). The measuring code, the tables and section fusion
 * read them through this table. */
enum { LA_K_REF, LA_K_SUBMIT, LA_K_STREAM, LA_K_DEVICE, LA_K_SUBMIT_EX, LA_K_INSTANTIATE,
       LA_K_GRAPH_HOST, LA_K_GRAPH_NODE, LA_K_SYNC, LA_NKEYS };
extern const sch_key la_keys[LA_NKEYS];

/* The shapes of the empty kernel: 1 block of 1 thread, and the fusion
 * chain's own grid (65,536 blocks of 256). */
enum { LA_SHAPE_1X1, LA_SHAPE_GRID, LA_NSHAPES };

/* Key k of la_keys (LA_K_SUBMIT, LA_K_STREAM or LA_K_DEVICE: a pattern of
 * one <word>) for shape (LA_SHAPE_), into buf of len bytes ("device.grid").
 * Returns buf, cut where it is too short. */
const char *la_shape_key(char *buf, size_t len, int k, int shape);

#endif
