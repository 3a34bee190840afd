/* cli.h: the command line: one options struct (run/cli_opts.h), read from
 * argv through the option table (cli.c, run/opt.h; the entries' rows from
 * sections/list.h), validation (the files it names: run/cli_paths.h; -- CMD
 * and its sides: run/cli_command.h), --help and --version. */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>
#include "run/cli_opts.h"

/* Name of a loading mode as CUDA_MODULE_LOADING spells it ("LAZY", "EAGER"),
 * or "default". */
const char *cli_loading_name(cli_loading l);

/* The --child=KIND word for a child kind. */
const char *cli_child_name(cli_child k);

/* Parse argv into *o (defaults first); sections holds the CLI_NSECTIONS
 * section names --section takes, in cli_section order (kept, not copied, as
 * o->section_names). Returns CLI_OK to run; CLI_EXIT when --help or
 * --version was printed to out (exit 0); CLI_USAGE on a usage error, after
 * printing "harness: <what is wrong>" and a short usage hint to err (exit
 * 2). Never exits the process itself. */
int cli_parse(int argc, char **argv, const char *const *sections, cli_opts *o, FILE *out,
              FILE *err);

/* 1 when o asks for several devices (--device=all or a LIST): the node
 * run, one child per device. */
int cli_node(const cli_opts *o);

/* Parse a device list "0,2,5" into dev[] (at most max, each an ordinal 0
 * to 1023, each once, no empty entry). Returns the count, or -1 with what
 * is wrong in bad. */
int cli_parse_devices(const char *s, int *dev, size_t max, char *bad, size_t badlen);

/* Name of a module format: "cubin", "ptx". */
const char *cli_format_name(cli_format f);

/* Parse a size list "1024,65536" into sizes[] (at most max entries; each an
 * integer in 1..2^40, decimal digits only). Returns the count, or -1 with a
 * reason in why (static string) on malformed input. */
int cli_parse_sizes(const char *s, size_t *sizes, size_t max, const char **why);

#endif
