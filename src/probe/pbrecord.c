/* pbrecord.c: the probe's record built from its state and saved
 * (pbrecord.h). */
#include "probe/pbrecord.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/marks.h"
#include "probe/pbstate.h"
#include "probe/precord.h"

/* The NVTX marks' figures (marks.h): marks.n where any was seen (or the
 * marks are routed here), at.ready_mark where one matched. */
static void pbr_put_marks(double *v)
{
    double n = 0;
    long long ns = 0;
    int ready = pm_ready(&n, &ns);
    if (n > 0 || getenv(PRC_ENV_READY)) v[PRC_F_MARKS_N] = n;
    if (ready) v[PRC_F_AT_READY_MARK] = pb_ms(ns) > 0 ? pb_ms(ns) : 0;
}

/* Every figure's value into v (indexed by prc_fig_id), NaN where absent:
 * counts only where the calls were seen, a call's .ms only where it was
 * made. Under pb.lock. */
static void pbr_figures(double *v)
{
    size_t i;

    for (i = 0; i < PRC_NFIGS; i++) v[i] = NAN;
    v[PRC_F_AT_PROBE] = pb.at_probe;
    v[PRC_F_AT_CONTEXT] = pb.at_context;
    v[PRC_F_AT_FIRST_KERNEL] = pb.at_first_kernel;
    v[PRC_F_AT_EXIT] = pb.at_exit;
    v[PRC_F_MEM_FIRST_KERNEL] = pb.mem_first_kernel;
    v[PRC_F_MEM_EXIT] = pb.mem_exit;
    v[PRC_F_RSS_PEAK] = pb.rss_peak;
    pbr_put_marks(v);
    if (!pb.counting) return;
    v[PRC_F_CONTEXTS_N] = pb.contexts;
    v[PRC_F_LOADED_N] = pb.loaded;
    v[PRC_F_LOADED_MIB] = pb.loaded_mib;
    v[PRC_F_PTX_N] = pb.ptx;
    if (pb.ptx > 0) v[PRC_F_PTX_MS] = pb.ptx_ms;
    for (i = 0; i < PB_NKINDS; i++) {
        v[pb_kind_figs[i][0]] = pb.n[i];
        if (pb.n[i] > 0) v[pb_kind_figs[i][1]] = pb.ms[i];
    }
}

static double pbr_first_use(const pb_kernel *k)
{
    return k->get_ms + k->launch_ms;
}

/* The PRC_SLOWEST launched functions of the slowest first use into top,
 * slowest first (ties: the one seen first); returns how many. */
static size_t pbr_slowest(const pb_kernel **top)
{
    size_t n = 0, i, j;
    for (i = 0; i < pb.nkernels; i++) {
        const pb_kernel *k = &pb.kernels[i];
        double use = pbr_first_use(k);
        if (!k->launched || (n == PRC_SLOWEST && pbr_first_use(top[n - 1]) >= use)) continue;
        j = n < PRC_SLOWEST ? n++ : n - 1;
        for (; j > 0 && pbr_first_use(top[j - 1]) < use; j--) top[j] = top[j - 1];
        top[j] = k;
    }
    return n;
}

/* The record's env fields into r. 0, or -1 on out of memory. */
int pbr_build_env(results *r, const char *written)
{
    if (res_env_str(r, "record", PRC_FORMAT) != 0 ||
        res_env_str(r, "version", HARNESS_VERSION) != 0 ||
        res_env_num(r, "pid", (double)pb.pid) != 0 ||
        res_env_num(r, "ppid", (double)getppid()) != 0 ||
        res_env_str(r, "command", pb.command) != 0 ||
        res_env_str(r, "written", written) != 0 ||
        res_env_str(r, "cupti", pb.cupti) != 0 ||
        res_env_str(r, "loading_mode", pb.loading_mode) != 0 ||
        res_env_str(r, "mem_source", pb.mem_source) != 0 ||
        res_env_str(r, "device", pb.device) != 0)
        return -1;
    return 0;
}

/* Every failed call kept ("fail.<i>") into r. 0, or -1 on out of memory. */
static int pbr_build_fails(results *r)
{
    size_t i;
    for (i = 0; i < pb.nfails; i++) {
        const pb_fail *f = &pb.fails[i];
        char key[32], text[160];
        res_derived *d;
        snprintf(key, sizeof key, "fail.%zu", i + 1);
        snprintf(text, sizeof text, "%s %s", prc_fail_calls[f->call], f->err);
        d = res_derive(r, PRC_SECTION, key, f->name[0] ? f->name : "(unnamed)", f->at_ms, "ms", text);
        if (!d || res_derived_field(d, "error", f->error) != 0 ||
            (!isnan(f->free_mib) && res_derived_field(d, "free_mib", f->free_mib) != 0))
            return -1;
    }
    return 0;
}

/* Every first use ("use.<i>") and every load after the first kernel
 * ("load.<i>") into r. 0, or -1 on out of memory. */
static int pbr_build_uses(results *r)
{
    size_t i, n = 0;
    char key[32];
    res_derived *d;
    for (i = 0; i < pb.nkernels && n < PRC_MAX_USES; i++) {
        const pb_kernel *k = &pb.kernels[i];
        if (!k->launched || !k->used) continue;
        snprintf(key, sizeof key, "use.%zu", ++n);
        d = res_derive(r, PRC_SECTION, key, k->name[0] ? k->name : "(unnamed)", k->at_ms, "ms", "");
        if (!d || res_derived_field(d, "get_ms", k->get_ms) != 0 ||
            res_derived_field(d, "launch_ms", k->launch_ms) != 0 ||
            res_derived_field(d, "later_n", k->later_n) != 0 ||
            res_derived_field(d, "later_ms", k->later_ms) != 0 ||
            (!isnan(k->busy) && res_derived_field(d, "busy", k->busy) != 0) ||
            (k->has_free && (res_derived_field(d, "free_mib", k->free_mib) != 0 ||
                             res_derived_field(d, "took_mib", k->took_mib) != 0)))
            return -1;
    }
    for (i = 0; i < pb.nloads; i++) {
        const prc_load *l = &pb.loads[i];
        snprintf(key, sizeof key, "load.%zu", i + 1);
        d = res_derive(r, PRC_SECTION, key, l->library ? "library" : "module", l->at_ms, "ms", "");
        if (!d || res_derived_field(d, "ms", l->ms) != 0 || res_derived_field(d, "n", l->n) != 0 ||
            res_derived_field(d, "span_ms", l->span_ms) != 0 ||
            (!isnan(l->free_mib) && res_derived_field(d, "free_mib", l->free_mib) != 0) ||
            (!isnan(l->took_mib) && res_derived_field(d, "took_mib", l->took_mib) != 0))
            return -1;
    }
    return pbr_build_fails(r);
}

/* The figures and slowest first uses into r. 0, or -1 on out of memory. */
int pbr_build_figures(results *r)
{
    double v[PRC_NFIGS];
    const pb_kernel *top[PRC_SLOWEST];
    size_t i, n;

    pbr_figures(v);
    for (i = 0; i < PRC_NFIGS; i++) {
        const prc_fig *f = &prc_figs[i];
        if (!isnan(v[i]) && !res_add(r, PRC_SECTION, f->key, f->name, f->region, RES_PROCESS,
                                     f->unit, &v[i], 1))
            return -1;
    }
    n = pbr_slowest(top);
    for (i = 0; i < n; i++) {
        char key[32];
        res_derived *d;
        snprintf(key, sizeof key, "slowest.%zu", i + 1);
        d = res_derive(r, PRC_SECTION, key, top[i]->name[0] ? top[i]->name : "(unnamed)",
                       pbr_first_use(top[i]), "ms", "");
        if (!d || res_derived_field(d, "get_ms", top[i]->get_ms) != 0 ||
            res_derived_field(d, "launch_ms", top[i]->launch_ms) != 0)
            return -1;
    }
    return pbr_build_uses(r);
}

/* The record's lines: the results, the spans[0..nspans), the end line. */
static int pbr_emit(FILE *f, const results *r, size_t nspans)
{
    size_t i;
    if (res_write_lines(f, r) != 0) return -1;
    for (i = 0; i < nspans; i++) {
        const prc_span *s = &pb.spans[i];
        if (fprintf(f, "span\t%ld\t%s\t%.17g\t%.17g\n", s->tid, s->name, s->start_ms, s->ms) < 0)
            return -1;
    }
    if (fprintf(f, "end\t%ld\t%zu\n", pb.pid, r->nenv + r->nm + r->nd) < 0) return -1;
    return 0;
}

/* Write the record to pb.path through a temporary file beside it, renamed
 * over it (no fsync: whole against the process's death, which is what the
 * parent reads after). 0, or -1 with errno set (the temporary removed). */
int pbr_save(const results *r, size_t nspans)
{
    char tmp[sizeof pb.path + 16];
    FILE *f;
    int fd, err, rc;

    if (pb.path_error) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", pb.path);
    if ((fd = mkstemp(tmp)) < 0) return -1;
    if (fchmod(fd, 0644) != 0 || (f = fdopen(fd, "w")) == NULL) {
        err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
        return -1;
    }
    errno = 0;
    rc = pbr_emit(f, r, nspans) != 0 || fflush(f) != 0;
    err = errno ? errno : EIO;
    if (fclose(f) != 0 && !rc) {
        rc = 1;
        err = errno ? errno : EIO;
    }
    if (!rc && rename(tmp, pb.path) == 0) return 0;
    if (!rc) err = errno;
    unlink(tmp);
    errno = err;
    return -1;
}
