/* cli_paths.h: the files a command line names (cli_parse's checks of them,
 * before anything runs): the outputs, their placeholders, the program's
 * output directory, the inputs. Each check returns CLI_OK, or CLI_USAGE
 * after printing "harness: <what is wrong>" and the usage hint to err
 * (opt_fail); none exits. */
#ifndef CLI_PATHS_H
#define CLI_PATHS_H

#include <stddef.h>
#include <stdio.h>
#include "run/cli_opts.h"

/* ------------------------------------------------------------- outputs --- */

/* Expand the placeholders of an output path tmpl into out (len bytes):
 * %n the node's name (node), %j the job id (job), %t the task (task), %%
 * one '%'. A pure function: the caller looks the values up
 * (clp_expand_outputs). Returns 0, or -1 with what is wrong in why: a '%'
 * followed by another character or by nothing, a value that is empty or
 * holds a '/', "..", or a control character, or a result that does not
 * fit. */
int clp_expand_path(const char *tmpl, const char *node, const char *job, const char *task,
                    char *out, size_t len, char *why, size_t whylen);

/* Expand the placeholders of --json, --csv, --trace and --program-output
 * (clp_expand_path) into the buffers of o (json_buf...), pointing the
 * option there, with the node SLURMD_NODENAME, else SLURM_NODENAME, else
 * the hostname; the job SLURM_JOB_ID, else "nojob"; the task
 * SLURM_PROCID, else "0". A value without a '%' is kept as it is. On
 * error, the option and what is wrong are printed. */
int clp_expand_outputs(cli_opts *o, FILE *err);

/* The output files, --json, --csv, --trace, --preload-list and
 * --markdown: "-" is stdout, for one of them at most; none names a
 * directory, or stdout or stderr by another name (/dev/stdout,
 * /proc/self/fd/1, a link to the file stdout goes to: the tables would mix
 * into it; /dev/null is neither); each can be written (its directory is
 * there and takes new files, its name leaves room for the temporary
 * file's: af_check_target); no two name one file, however spelled (r.json
 * and ./r.json, a symbolic link and the file it names; the same path
 * twice, a device's included), nor the program's output directory
 * (--program-output, else <json>.program with -- CMD): the second write
 * would replace the first. On error, the first that is wrong is printed. */
int clp_check_outputs(const cli_opts *o, FILE *err);

/* --program-output, where given, names a directory or nothing that exists
 * yet: an existing file is refused. */
int clp_check_program_output(const cli_opts *o, FILE *err);

/* -------------------------------------------------------------- inputs --- */

/* --kernels-dir, where given, names a directory this process can list and
 * read: a usage error now, not a failed compile later. */
int clp_check_kernels_dir(const cli_opts *o, FILE *err);

/* Every --module and --source names a file this process can read (it
 * exists and is not a directory): a usage error before the first
 * measurement, not when its section runs. On error, the first that is not
 * is printed. */
int clp_check_inputs(const cli_opts *o, FILE *err);

#endif
