/* section_child.c: children of this binary run for one job, their results
 * read back as lines; a private JIT cache for them. */
#include "run/section_child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"

int sec_private_cache(const char *section, const char *what, char *dir, size_t dirlen,
                      char *pathvar, size_t pvlen, const char **env)
{
    char why[512];

    if (pr_mkdtemp(what, dir, dirlen, why, sizeof why) != 0) {
        fprintf(stderr, "harness: %s: %s\n", section, why);
        return -1;
    }
    snprintf(pathvar, pvlen, "CUDA_CACHE_PATH=%s", dir);
    env[0] = "CUDA_CACHE_DISABLE=0";
    env[1] = pathvar;
    return 0;
}

int sec_child_outcome(const sec_ctx *c, const pr_result *pr, const char *name,
                      char *detail, size_t detaillen)
{
    if (pr->timed_out)
        snprintf(detail, detaillen, "the child %s ran past --child-timeout=%.0f s and was killed",
                 name, c->o->child_timeout);
    else if (pr->signal)
        snprintf(detail, detaillen, "the child %s died of signal %d (%s)", name, pr->signal,
                 strsignal(pr->signal));
    else if (pr->exit_code != 0)
        snprintf(detail, detaillen, "the child %s exited with %d", name, pr->exit_code);
    else
        snprintf(detail, detaillen, "the child %s ran to the end", name);
    return !pr->timed_out && !pr->signal && pr->exit_code == 0;
}

/* The fields of the device a child measured on that name it, for a parent
 * that opened none (sec_adopt_device). */
static const char *const sec_device_keys[] = {
    "gpu", "device", "pci_bus_id", "uuid", "compute_capability", "arch", "sms", "memory_bytes",
    "l2_bytes", "memory_bus_bits", "driver_cuda_version"
};

/* Where this process opened no device itself and the child did, the
 * child's device (sec_device_keys) into this process's environment, with
 * device_opened "child processes": a parent that only runs children (section
 * loading with --module, jit's driver part) still names its GPU. Not for a
 * child run with a CUDA_VISIBLE_DEVICES of its own (section visible: its
 * device 0 may be another GPU), nor in a node run's parent (each device has
 * its own record), nor for a child on another ordinal. Returns 0, or -1 out
 * of memory. */
static int sec_adopt_device(sec_ctx *c, const char *const *set_env, size_t nset,
                            const results *child)
{
    const res_kv *mine = res_env_get(c->r, "device_opened"), *dev = res_env_get(child, "device");
    size_t i;

    if ((mine && mine->kind == RES_STR && mine->str && strcmp(mine->str, "this process") == 0) ||
        !res_env_get(child, "uuid") || !dev || dev->kind != RES_NUM || dev->num != c->o->device ||
        (cli_node(c->o) && c->o->child == CLI_CHILD_NONE))
        return 0;
    for (i = 0; i < nset; i++)
        if (strncmp(set_env[i], "CUDA_VISIBLE_DEVICES", 20) == 0) return 0;
    for (i = 0; i < sizeof sec_device_keys / sizeof sec_device_keys[0]; i++) {
        const res_kv *kv = res_env_get(child, sec_device_keys[i]);
        if (!kv) continue;
        if (kv->kind == RES_NUM ? res_env_num(c->r, sec_device_keys[i], kv->num)
                                : res_env_str(c->r, sec_device_keys[i], kv->str))
            return -1;
    }
    return res_env_str(c->r, "device_opened", "child processes");
}

/* A child that exited 3 said why on the stderr this process shares: its
 * skips (its lines, out), each printed there, noted as said (sec_said), so
 * that this process's own skips for the same reason say "(as above)".
 * Lines that do not read back say nothing. */
static void sec_child_said(const char *out)
{
    results said;
    char why[256];
    size_t i;

    if (!out) return;
    res_init(&said);
    if (res_read_lines(&said, out, why, sizeof why) >= 0)
        for (i = 0; i < said.nskip; i++) sec_said(said.skip[i].reason);
    res_free(&said);
}

sec_status sec_run_child(sec_ctx *c, const char *const *args, size_t nargs,
                         const char *const *set_env, size_t nset, results *out,
                         char *detail, size_t detaillen)
{
    char why[512], kt[64];
    const char **all;
    pr_result pr;
    double start = tr_now();
    size_t i;
    int ok, rc;

    res_init(out);
    /* The child waits on the device within the same limit. */
    all = calloc(nargs + 1, sizeof *all);
    if (!all) {
        fprintf(stderr, "harness: cannot start a child: out of memory\n");
        return SEC_ERROR;
    }
    for (i = 0; i < nargs; i++) all[i] = args[i];
    snprintf(kt, sizeof kt, "--kernel-timeout=%.0f", c->o->kernel_timeout);
    all[nargs] = kt;
    rc = pr_run_self(all, nargs + 1, set_env, nset, c->o->child_timeout, &pr, why, sizeof why);
    free(all);
    if (rc != 0) {
        fprintf(stderr, "harness: cannot start a child: %s\n", why);
        return SEC_ERROR;
    }
    tr_host(args[0], start, tr_now() - start);
    ok = sec_child_outcome(c, &pr, args[0], detail, detaillen);
    if (!pr.signal && (pr.exit_code == 2 || pr.exit_code == 3)) {
        if (pr.exit_code == 2) c->child_usage = 1;
        else c->child_no_gpu = 1;
        if (pr.exit_code == 3) sec_child_said(pr.out);
        c->r->incomplete = 1;
        free(pr.out);
        return SEC_ERROR;
    }
    /* A child that exited 1 (a failed check, a reported error) still printed
     * its results: read what reads back, for the caller to name the cause. */
    if (!ok && !pr.signal && pr.exit_code == 1 && !pr.timed_out && pr.out) {
        res_free(out);
        res_init(out);
        if (res_read_lines(out, pr.out, why, sizeof why) < 0) {
            res_free(out);
            res_init(out);
        }
    }
    if (ok && res_read_lines(out, pr.out, why, sizeof why) < 0) {
        snprintf(detail, detaillen, "the child %s printed a malformed result: %.300s", args[0], why);
        ok = 0;
    }
    /* What the child measured is lost: the run is incomplete. */
    if (!ok) c->r->incomplete = 1;
    free(pr.out);
    if (sec_adopt_device(c, set_env, nset, out) != 0) {
        fprintf(stderr, "harness: out of memory storing the child's device\n");
        return SEC_ERROR;
    }
    return ok ? SEC_OK : SEC_FAILED;
}

int sec_child_end(const results *r, int rc)
{
    if (res_write_lines(stdout, r) != 0 || fflush(stdout) != 0) return SEC_FAILED;
    if (rc == SEC_OK || rc == SEC_USAGE || rc == SEC_NO_GPU) return rc;
    return SEC_FAILED;
}

int sec_accumulate(results *dst, const char *section, const char *prefix,
                   const results *child)
{
    size_t i;
    for (i = 0; i < child->nm; i++) {
        const res_meas *m = &child->m[i];
        char key[256];
        int fresh;
        res_meas *acc;
        snprintf(key, sizeof key, "%s%s", prefix, m->key);
        fresh = res_find(dst, section, key) == NULL;
        acc = res_append(dst, section, key, m->name, m->region, RES_PROCESS, m->unit,
                         m->stats.median);
        if (!acc) return -1;
        if (fresh) {
            acc->n = m->n;
            acc->bytes = m->bytes;
            acc->flops = m->flops;
        }
    }
    return 0;
}
