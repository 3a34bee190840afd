/* crossover.h: what the crossover section's files share: its rows' keys.
 * Each size n gets one measurement of each row, "n=<n>.<row>" (XO_NP, the
 * row's key in xo_keys; xo_key builds it, and --schema declares the
 * pattern XO_NP "<N>." from the same constant). At the stopwatches' n,
 * where that section's rows are copied rather than timed again, the entry
 * "shared.n=<n>" (XO_SHARED XO_NP) says so. */
#ifndef CROSSOVER_H
#define CROSSOVER_H

#include <stddef.h>
#include "core/schema.h"

#define XO_NP "n="
#define XO_SHARED "shared."

/* The rows of one size: key (the part after "n=<n>."), unit, state, name
 * and region. */
enum { XO_CPU, XO_KERNEL, XO_COLD, XO_PAGEABLE, XO_PINNED, XO_NROWS };
extern const sch_key xo_keys[XO_NROWS];

/* Row row's key at size n, "n=<n>.<row>", into buf of len bytes; returns
 * buf. */
char *xo_key(char *buf, size_t len, long n, int row);

#endif
