/* host.c: the environment record's fields of the run itself: the host, the
 * options in effect, the provenance, the device opened. */
#include "run/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cuda/cudadrv.h"
#include "os/sysinfo.h"
#include "version.h"

/* The sampling in effect (cli_parse has applied --quick and --profile): a
 * fixed count (reps; --profile's is 1) leaves the stopping rule's
 * parameters null, the stopping rule records reps 0. */
static void host_sampling(results *r, const cli_opts *o)
{
    res_env_str(r, "mode", o->profile ? "profile" : o->quick ? "quick" : "default");
    res_env_num(r, "warmup", o->warmup);
    res_env_num(r, "reps", o->reps_given ? o->reps : 0);
    if (o->reps_given) {
        res_env_str(r, "min_samples", NULL);
        res_env_str(r, "max_noise", NULL);
        res_env_str(r, "max_time_s", NULL);
    } else {
        res_env_num(r, "min_samples", o->min_samples);
        res_env_num(r, "max_noise", o->max_noise);
        res_env_num(r, "max_time_s", o->max_time);
    }
    res_env_str(r, "cache", o->cache == CLI_CACHE_BOTH ? "both" : o->cache == CLI_CACHE_WARM ? "warm" : "cold");
}

/* A Slurm task's place where its variables are set: slurm_job_id and
 * slurm_node (SLURMD_NODENAME, else SLURM_NODENAME) as strings,
 * slurm_procid, slurm_ntasks and slurm_localid as numbers (a value that is
 * not a whole number is kept as its string). Nothing outside Slurm. */
static void host_slurm(results *r)
{
    static const struct { const char *key, *var; } num[] = {
        { "slurm_procid", "SLURM_PROCID" }, { "slurm_ntasks", "SLURM_NTASKS" },
        { "slurm_localid", "SLURM_LOCALID" },
    };
    const char *v;
    char *end;
    long n;
    size_t i;

    if ((v = getenv("SLURM_JOB_ID")) && *v) res_env_str(r, "slurm_job_id", v);
    if (!(v = getenv("SLURMD_NODENAME")) || !*v) v = getenv("SLURM_NODENAME");
    if (v && *v) res_env_str(r, "slurm_node", v);
    for (i = 0; i < sizeof num / sizeof num[0]; i++) {
        if (!(v = getenv(num[i].var)) || !*v) continue;
        errno = 0;
        n = strtol(v, &end, 10);
        if (errno == 0 && !*end && n >= 0) res_env_num(r, num[i].key, (double)n);
        else res_env_str(r, num[i].key, v);
    }
}

void host_record(results *r, const cli_opts *o)
{
    struct utsname u;
    char host[256], version[512];

    res_env_str(r, "harness_version", HARNESS_VERSION);
    res_env_num(r, "cuda_headers_version", CUDA_VERSION);
    res_env_str(r, "module_loading_requested", o->loading == CLI_LOAD_DEFAULT
                ? "default" : cli_loading_name(o->loading));
    host_sampling(r, o);
    res_env_str(r, "module_format", cli_format_name(o->format));
    res_env_str(r, "CUDA_CACHE_DISABLE", getenv("CUDA_CACHE_DISABLE"));
    res_env_str(r, "CUDA_CACHE_PATH", getenv("CUDA_CACHE_PATH"));
    res_env_str(r, "kernels_dir", o->kernels_dir);
    if (uname(&u) == 0) {
        snprintf(host, sizeof host, "%s %s %s", u.sysname, u.release, u.machine);
        res_env_str(r, "host_os", host);
        res_env_str(r, "hostname", u.nodename);
    }
    host_slurm(r);
    res_env_str(r, "driver_version",
                si_driver_version(version, sizeof version) == 0 ? version : NULL);
}

/* A word of the command line as a shell reads it back, at buf (NULL: only
 * counted): plain, or in '...' with a ' in it as '\''. Returns its length. */
static size_t host_word(const char *a, char *buf)
{
    size_t at = 0;
    const char *p;
    int plain = *a != '\0';
    for (p = a; *p && plain; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+%@", *p))
            plain = 0;
    if (plain) {
        if (buf) memcpy(buf, a, strlen(a));
        return strlen(a);
    }
    if (buf) buf[at] = '\'';
    at++;
    for (p = a; *p; p++) {
        if (*p == '\'') {
            if (buf) memcpy(buf + at, "'\\''", 4);
            at += 4;
        } else {
            if (buf) buf[at] = *p;
            at++;
        }
    }
    if (buf) buf[at] = '\'';
    return at + 1;
}

/* The command line as a shell would read it back: argv's words joined by
 * spaces, a word with a character outside [A-Za-z0-9-_=./,:+%@] (or an
 * empty one) in '...', a ' in it as '\''. Whole, however long; a new
 * string, or NULL when memory is short. */
static char *host_command_line(int argc, char **argv)
{
    size_t n = 1, at = 0;
    char *buf;
    int i;
    for (i = 0; i < argc; i++) n += host_word(argv[i], NULL) + 1;
    if (!(buf = malloc(n))) return NULL;
    for (i = 0; i < argc; i++) {
        if (i) buf[at++] = ' ';
        at += host_word(argv[i], buf + at);
    }
    buf[at] = '\0';
    return buf;
}

void host_provenance(results *r, int argc, char **argv, time_t start)
{
    char buf[4096], model[256], *line = host_command_line(argc, argv);
    struct tm tm;
    struct utsname u;

    res_env_str(r, "command_line", line ? line : "(out of memory)");
    free(line);
    if (gmtime_r(&start, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        res_env_str(r, "started_utc", buf);
    else res_env_str(r, "started_utc", NULL);
    res_env_str(r, "cpu_model", si_cpu_model(model, sizeof model) == 0 ? model : NULL);
    if (uname(&u) == 0) {
        snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.version);
        res_env_str(r, "os_kernel", buf);
    } else res_env_str(r, "os_kernel", NULL);
    res_env_str(r, "harness_commit", harness_commit);
    res_env_str(r, "host_gpus", si_driver_gpus(buf, sizeof buf) == 0 ? buf : NULL);
}

void host_device(results *r, const cli_opts *o)
{
    if (!res_env_get(r, "device_opened"))
        res_env_str(r, "device_opened", cli_node(o) && o->child == CLI_CHILD_NONE ? "per device" : "none");
    if (!res_env_get(r, "gpu")) res_env_str(r, "gpu", NULL);
}
