/* markdown.h: a run's tables and answers as Markdown (--markdown=FILE|-),
 * for a pull request, an issue or a wiki page: the command line, the
 * tables as the report prints them (laid out at 100 columns, in a fenced
 * block), the answers as a Markdown table with each one's page, the checks,
 * the run time and the exit code. Reads the results only. */
#ifndef MARKDOWN_H
#define MARKDOWN_H

#include <stddef.h>
#include "core/results.h"

/* What the document holds besides the results. */
typedef struct md_doc {
    const results *r;
    const char *tables;             /* the report's tables as printed; NULL: none (--quiet) */
    const char *const *sections;    /* whose answers, in this order */
    size_t nsections;
    double seconds;                 /* the run's wall time */
    int exit_code;                  /* the exit code the run ends with */
} md_doc;

/* Write the document to path, or to stdout for "-". A file is written whole
 * or not at all (os/atomicfile.h). Returns 0, or -1 with one line on
 * stderr. */
int md_write(const char *path, const md_doc *d);

/* The document into f (md_write's body). Returns 0, or -1 when a write
 * failed. */
int md_emit(FILE *f, const md_doc *d);

#endif
