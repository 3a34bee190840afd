/* table.h: the human tables on stdout: configuration first, then each
 * section's table, then every check. Reads the results object only. */
#ifndef TABLE_H
#define TABLE_H

#include <stdio.h>
#include "cli.h"
#include "results.h"

/* Print the configuration block (environment record and options). */
void tb_config(FILE *f, const results *r, const cli_opts *o);

/* Print one section's tables from its measurements; nothing when the
 * section has none (a skipped section prints its reason instead). */
void tb_section(FILE *f, const results *r, cli_section s);

/* Print the roofline of every timed kernel with a byte and flop model,
 * against the best copy floor (section fusion) and the FP32 peak; nothing
 * when fusion did not run. */
void tb_roofline(FILE *f, const results *r);

/* Print the checks (failed ones in full) and a one-line summary. */
void tb_checks(FILE *f, const results *r);

#endif
