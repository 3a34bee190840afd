/* pbrecord.h: the probe's record (precord.h) built from its state
 * (pbstate.h) and written to its file. Each builder runs under pb.lock. */
#ifndef PBRECORD_H
#define PBRECORD_H

#include <stddef.h>

#include "core/results.h"

/* The record's env fields into r, written as given ("first kernel",
 * "failure", "exit"). 0, or -1 on out of memory. */
int pbr_build_env(results *r, const char *written);

/* The figures, the slowest first uses, every first use, load after the
 * first kernel and failed call into r. 0, or -1 on out of memory. */
int pbr_build_figures(results *r);

/* Write r and the first nspans spans to pb.path through a temporary file
 * beside it, renamed over it. 0, or -1 with errno set. */
int pbr_save(const results *r, size_t nspans);

#endif
