/* report.h: the run's files: one JSON document and one CSV table, each
 * written to a temporary name in the target directory and renamed. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include "core/results.h"

/* Write the whole results object as one JSON document:
 *   { "schema_version": 1, "incomplete": false,
 *     "environment": { key: string|number|null, ... },
 *     "skipped": [ { "section": s, "reason": s }, ... ],
 *     "measurements": [ { "section", "key", "name", "region", "state", "unit",
 *                         "batch", "n", "bytes", "flops",
 *                         "stats": { "n", "min", "median", "mean", "max", "stdev",
 *                                    "cv", "ci_low", "ci_high", "ci_level" },
 *                         "samples": [ ... ] }, ... ] }
 * (and "checks", "derived"). A node run (r->ndev > 0) lists its devices in
 * the environment ("devices": ordinal, name, pci_bus_id, uuid and each
 * one's own "environment"), and each device's skips, checks, conclusions
 * and measurements follow the run's own, each with "device": {ordinal,
 * name, pci_bus_id, uuid}. Non-finite numbers are written as null. Returns 0 on success. On error
 * returns -1, prints "harness: cannot write PATH: strerror" to stderr, and
 * leaves any earlier file at path untouched (the temporary file is removed).
 * Path "-" is stdout (written and flushed; "harness: cannot write the JSON
 * to stdout: reason" on error). */
int rp_write_json(const results *r, const char *path);

/* Same contract, one CSV row per measurement with a header line:
 * section,key,name,state,unit,n,batch,samples,min,median,mean,max,stdev,cv,
 * ci_low,ci_high,ci_level,bytes,flops,region,noisy,low_clock,device (the
 * device's ordinal in a node run, else empty). Fields with commas or quotes are
 * quoted as RFC 4180 says. */
int rp_write_csv(const results *r, const char *path);

/* Write the JSON document to an open stream (used by rp_write_json and by
 * tests). Returns 0, or -1 when a write to f failed. */
int rp_json(FILE *f, const results *r);

/* Write s as a JSON string: quotes, backslashes and control characters
 * escaped, valid UTF-8 as it is, and each byte that is not part of valid
 * UTF-8 as \u00XX, the character of that byte's value (so a file name or
 * an environment value in Latin-1 reads back as its Latin-1 characters,
 * and the document is always valid JSON); NULL as null. */
void rp_json_str(FILE *f, const char *s);

#endif
