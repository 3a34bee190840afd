/* cli_paths.c: the files a command line names, checked before anything runs:
 * the outputs (--json, --csv, --trace, --preload-list, --markdown; "-" is
 * stdout) with their placeholders expanded, the program's output directory,
 * and the inputs (--kernels-dir, --module, --source). */
#include "run/cli_paths.h"
#include "run/opt.h"
#include "os/atomicfile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when s holds a control character (below 0x20, or 0x7f). */
static int clp_has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

/* What makes a placeholder's value unfit for a path, or NULL: it names
 * another directory ('/', ".."), or holds a control character. */
static const char *clp_bad_value(const char *val)
{
    if (!val || !*val) return "nothing";
    if (strchr(val, '/')) return "which holds a '/'";
    if (strstr(val, "..")) return "which holds '..'";
    if (clp_has_control(val)) return "which holds a control character";
    return NULL;
}

int clp_expand_path(const char *tmpl, const char *node, const char *job, const char *task,
                    char *out, size_t len, char *why, size_t whylen)
{
    size_t n = 0;
    const char *p, *val;
    char one[2] = { '%', '\0' };

    for (p = tmpl; *p; p++) {
        val = NULL;
        if (*p != '%') {
            one[0] = *p;
            val = one;
        } else {
            switch (p[1]) {
            case 'n': val = node; break;
            case 'j': val = job; break;
            case 't': val = task; break;
            case '%': one[0] = '%'; val = one; break;
            case '\0':
                snprintf(why, whylen, "a '%%' at the end; a placeholder is %%n, %%j, %%t or %%%%");
                return -1;
            default:
                snprintf(why, whylen, "unknown placeholder '%%%c'; expected %%n, %%j, %%t or %%%%",
                         p[1]);
                return -1;
            }
            if (p[1] != '%' && clp_bad_value(val)) {
                snprintf(why, whylen, "%%%c expands to '%s', %s", p[1], val && !clp_has_control(val)
                         ? val : "(not shown)", clp_bad_value(val));
                return -1;
            }
            p++;
        }
        if (n + strlen(val) >= len) {
            snprintf(why, whylen, "longer than %zu characters once expanded", len - 1);
            return -1;
        }
        memcpy(out + n, val, strlen(val));
        n += strlen(val);
    }
    out[n] = '\0';
    return 0;
}

/* The value of environment variable name, NULL where unset or empty. */
static const char *clp_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int clp_expand_outputs(cli_opts *o, FILE *err)
{
    struct { const char *name; const char **path; char *buf; } out[] = {
        { "json", &o->json, o->json_buf }, { "csv", &o->csv, o->csv_buf },
        { "trace", &o->trace, o->trace_buf },
        { "program-output", &o->program_output, o->program_output_buf },
    };
    char host[256], why[256];
    const char *node = clp_env("SLURMD_NODENAME"), *job = clp_env("SLURM_JOB_ID");
    const char *task = clp_env("SLURM_PROCID");
    size_t i;

    if (!node) node = clp_env("SLURM_NODENAME");
    if (!node) {
        host[0] = '\0';
        if (gethostname(host, sizeof host) != 0) host[0] = '\0';
        host[sizeof host - 1] = '\0';
        node = host;
    }
    for (i = 0; i < sizeof out / sizeof out[0]; i++) {
        if (!*out[i].path || !strchr(*out[i].path, '%')) continue;
        if (clp_expand_path(*out[i].path, node, job ? job : "nojob", task ? task : "0",
                            out[i].buf, CLI_PATH_MAX, why, sizeof why) != 0)
            CLI_FAIL("--%s=%s: %s", out[i].name, *out[i].path, why);
        *out[i].path = out[i].buf;
    }
    return CLI_OK;
}

/* Which of the harness's stdout and stderr path would write into: "stdout",
 * "stderr", or NULL (neither; /dev/null is neither: nothing written there
 * is lost). Through links and /proc/self/fd: the same open file (a pipe, a
 * terminal, a regular file) by device and inode. */
static const char *clp_std_clash(const char *path)
{
    struct stat p, s, null;
    int fd;
    if (stat(path, &p) != 0) return NULL;
    if (S_ISCHR(p.st_mode) && stat("/dev/null", &null) == 0 && p.st_rdev == null.st_rdev) return NULL;
    for (fd = 1; fd <= 2; fd++)
        if (fstat(fd, &s) == 0 && s.st_dev == p.st_dev && s.st_ino == p.st_ino)
            return fd == 1 ? "stdout" : "stderr";
    return NULL;
}

/* The directory of -- CMD's output beside the outputs: --program-output,
 * or <json>.program (pg_claim_output), into buf; NULL without -- CMD or
 * where there is none. */
static const char *clp_program_dir(const cli_opts *o, char *buf, size_t len)
{
    if (!o->cmd) return NULL;
    if (o->program_output) return o->program_output;
    if (!o->json || strcmp(o->json, "-") == 0) return NULL;
    if ((size_t)snprintf(buf, len, "%s.program", o->json) >= len) return NULL;
    return buf;
}

int clp_check_outputs(const cli_opts *o, FILE *err)
{
    struct { const char *name, *path; } out[] = {
        { "json", o->json }, { "csv", o->csv }, { "trace", o->trace },
        { "preload-list", o->preload_list }, { "markdown", o->markdown },
    };
    size_t i, j, n = sizeof out / sizeof out[0], dash = n;
    char why[PATH_MAX + 64], dir[CLI_PATH_MAX + 16];
    const char *std, *pdir;

    for (i = 0; i < n; i++) {
        if (!out[i].path || strcmp(out[i].path, "-") != 0) continue;
        if (dash < n)
            CLI_FAIL("--%s=- and --%s=- both name stdout; one output at a time can go there",
                     out[dash].name, out[i].name);
        dash = i;
        out[i].path = NULL;     /* stdout: nothing to check */
    }
    for (i = 0; i < n; i++)
        if (out[i].path && af_names_directory(out[i].path))
            CLI_FAIL("--%s=%s: names a directory; expected a file name", out[i].name, out[i].path);
    for (i = 0; i < n; i++)
        if (out[i].path && (std = clp_std_clash(out[i].path)) != NULL)
            CLI_FAIL("--%s=%s: is the harness's %s (where its %s go); --%s=- writes it to stdout "
                     "alone", out[i].name, out[i].path, std, std[3] == 'o' ? "tables" : "messages",
                     out[i].name);
    for (i = 0; i < n; i++)
        if (out[i].path && af_check_target(out[i].path, why, sizeof why) != 0)
            CLI_FAIL("--%s=%s: cannot be written: %s", out[i].name, out[i].path, why);
    if ((pdir = clp_program_dir(o, dir, sizeof dir)) != NULL)
        for (i = 0; i < n; i++)
            if (out[i].path && (strcmp(out[i].path, pdir) == 0 || af_same_file(out[i].path, pdir)))
                CLI_FAIL("--%s=%s: is the directory of the program's output (%s%s): the two "
                         "would be written over each other", out[i].name, out[i].path,
                         o->program_output ? "--program-output=" : "--json's default, ", pdir);
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (out[i].path && out[j].path &&
                (strcmp(out[i].path, out[j].path) == 0 || af_same_file(out[i].path, out[j].path)))
                CLI_FAIL("--%s=%s and --%s=%s name the same file", out[i].name, out[i].path,
                         out[j].name, out[j].path);
    return CLI_OK;
}

int clp_check_kernels_dir(const cli_opts *o, FILE *err)
{
    struct stat st;

    if (!o->kernels_dir) return CLI_OK;
    if (stat(o->kernels_dir, &st) != 0)
        CLI_FAIL("--kernels-dir=%s: %s", o->kernels_dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) CLI_FAIL("--kernels-dir=%s: not a directory", o->kernels_dir);
    if (access(o->kernels_dir, R_OK | X_OK) != 0)
        CLI_FAIL("--kernels-dir=%s: %s", o->kernels_dir, strerror(errno));
    return CLI_OK;
}

/* One file a user named for reading (what): it exists, is not a
 * directory, and this process can read it. Returns CLI_OK, or CLI_USAGE
 * after printing what is wrong to err. */
static int clp_check_input(const char *what, const char *path, FILE *err)
{
    struct stat st;

    if (stat(path, &st) != 0) CLI_FAIL("--%s=%s: cannot open: %s", what, path, strerror(errno));
    if (S_ISDIR(st.st_mode)) CLI_FAIL("--%s=%s: a directory, not a %s file", what, path, what);
    if (access(path, R_OK) != 0) CLI_FAIL("--%s=%s: cannot open: %s", what, path, strerror(errno));
    return CLI_OK;
}

int clp_check_inputs(const cli_opts *o, FILE *err)
{
    size_t i;
    int rc;

    for (i = 0; i < o->nmodules; i++)
        if ((rc = clp_check_input("module", o->modules[i], err)) != CLI_OK) return rc;
    for (i = 0; i < o->nsources; i++)
        if ((rc = clp_check_input("source", o->sources[i], err)) != CLI_OK) return rc;
    return CLI_OK;
}

int clp_check_program_output(const cli_opts *o, FILE *err)
{
    if (o->program_output && af_names_directory(o->program_output) == 0) {
        struct stat st;
        if (stat(o->program_output, &st) == 0)
            CLI_FAIL("--program-output=%s: not a directory", o->program_output);
    }
    return CLI_OK;
}
