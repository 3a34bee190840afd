/* cli_command.h: -- CMD on the command line (cli_parse's part for the
 * user's program): the words after "--", the program found and checked
 * before any run, and the sides a run compares. The row parsers are
 * opt_parse_fn (run/opt.h), named by the program entry's rows
 * (sections/program/program_opts.h). Each function that takes err returns
 * CLI_OK, or CLI_USAGE after printing "harness: <what is wrong>" and the
 * usage hint to err (opt_fail); none exits. */
#ifndef CLI_COMMAND_H
#define CLI_COMMAND_H

#include <stddef.h>
#include <stdio.h>
#include "run/cli_opts.h"
#include "run/opt.h"

/* ------------------------------------------------------- the rows' parsers --- */

/* --compare-env=NAME=A,B[,...]: NAME (a variable name, not the probe's
 * own) into o->setting_name, the values (2 to CLI_MAX_SETTINGS, none
 * empty, a comma inside one written "\,") into o->setting; compare is
 * CLI_CMP_ENV. --jit-cache=LIST: cold and warm, each at most once, in the
 * order given; CLI_CMP_JIT_CACHE. --compare: a side per command (split by
 * clc_check_sides); CLI_CMP_COMMANDS. The first of the three given sets
 * the sides; another is refused. */
opt_parse_fn clc_read_compare_env, clc_read_jit_cache, clc_read_compare;

/* --ready=REGEX: a POSIX extended regular expression that rx takes
 * (core/rx.h: no back-references, bounded in size), kept in o->ready; a
 * pattern refused that is over 60 bytes is named by its start and length.
 * --squeeze=MiB|auto: a whole number, 0 to CLI_SQUEEZE_MAX, into
 * o->squeeze_mib, or auto (o->squeeze_auto). */
opt_parse_fn clc_read_ready, clc_read_squeeze;

/* --------------------------------------------------------- the command --- */

/* The user's program: the words after the first "--" into o->cmd, o->ncmd
 * (cmd set, ncmd 0, for a "--" with nothing after it; both untouched
 * without one). Returns the count of the words before it, what
 * opt_read_argv reads. Never fails. */
int clc_split_command(int argc, char **argv, cli_opts *o);

/* Find cmd (a program's name) as execvp would: a name with a '/' is taken
 * as it is, another is looked for in each directory of path (PATH; NULL or
 * empty: "/usr/bin:/bin"; an empty entry is the current directory). Writes
 * the file into buf. Returns 0 when it is a regular file this process may
 * execute, or -1 with the reason in why ("not found in PATH", "Permission
 * denied", "is a directory"). */
int clc_find_program(const char *cmd, const char *path, char *buf, size_t len, char *why,
                     size_t whylen);

/* -- CMD's program (o->cmd[0], o->ncmd > 0) found into o->cmd_path
 * (clc_find_program; with --compare, clc_check_sides finds each command
 * instead) and one execve would run (ex_check, os/exe.h: a bad ELF, a
 * missing #! interpreter are refused here, before any run). */
int clc_check_command(cli_opts *o, FILE *err);

/* The sides of -- CMD, once every option is read: --compare-loading as
 * CUDA_MODULE_LOADING=LAZY,EAGER (not with another comparison);
 * --compare-env of CUDA_MODULE_LOADING not with --module-loading;
 * --jit-cache's warm side not with --warmup=0 (a warm-up run fills it);
 * --vs-word only with --compare. --compare: the command split at each
 * --vs-word (default "--vs") into copies of its words (o->cmds, each
 * NULL-terminated; argv is left as it is), 2 to CLI_MAX_SETTINGS commands,
 * none empty, each found and checked as clc_check_command does; the first
 * becomes o->cmd and o->cmd_path. */
int clc_check_sides(cli_opts *o, FILE *err);

#endif
