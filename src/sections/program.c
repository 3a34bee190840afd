/* program.c: the user's own program (-- CMD), run as it is in fresh
 * processes, each side in turn: under the probe (src/probe/, loaded by the
 * driver through CUDA_INJECTION64_PATH) in the mode asked for, or both
 * modes with --compare-loading, and the same modes bare (no probe) for the
 * probe's own cost; each CUDA process's record read back and checked
 * (precord.h), the runs gathered, compared and put into sentences. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cudadrv.h"
#include "demangle.h"
#include "nvml.h"
#include "precord.h"
#include "program.h"
#include "program_device.h"
#include "trace.h"
#include "verdict.h"

const pg_runfig pg_runfigs[PG_NRUNFIGS] = {
    { "wall", "ms", "whole process",
      "from the spawn of the program to its main process's exit (the parent's clock)" },
    { "cpu", "ms", "host CPU time, main process",
      "user and system CPU time of the main process and of the children it waited for (wait4)" },
    { "rss.main", "MiB", "host peak RSS, main process",
      "the main process's peak resident set, and of the children it waited for (wait4)" },
    { "mem.peak", "MiB", "device memory, peak",
      "the most device memory NVML showed for the run's processes together, sampled every 10 ms" },
    { "processes", "count", "CUDA processes", "processes of the run that wrote a record" },
};

/* The most spans kept from the traced run of each side. */
#define PG_TRACE_SPANS 20000
/* The kernels gathered per side for the slowest first uses. */
#define PG_MAX_KERNELS 256

typedef struct pg_side {
    char key[16];           /* "lazy", "bare.eager", "default" */
    char label[24];         /* "LAZY", "EAGER bare", "as set" */
    const char *mode;       /* CUDA_MODULE_LOADING's value, NULL: the user's own */
    int probed;
    int traced;             /* its spans were drawn once */
} pg_side;

/* One kernel's first uses over the runs of a side. */
typedef struct pg_kernel {
    char name[512];         /* the probe keeps 511 bytes of a name */
    double *ms, *get, *launch;
    size_t n, cap;
} pg_kernel;

/* The NVML sampler of one run: every 10 ms, the device memory of the
 * processes in the run's group, per process and in all. */
typedef struct pg_sampler {
    pthread_t th;
    atomic_int pgid, stop;
    long pid[PG_MAX_PROCS * 4];
    double peak[PG_MAX_PROCS * 4];
    size_t npid;
    double peak_sum;        /* -1: no process of the run seen */
} pg_sampler;

typedef struct pg_state {
    sec_ctx *c;
    pg_side side[PG_MAX_SIDES];
    size_t nsides;
    char probe[4096];       /* "" when not found */
    char cupti[4096];       /* "" when not found */
    char outdir[4096];
    int outdir_tmp;         /* 1: a temporary directory, removed at the end */
    int nvml;               /* 1 when NVML answers */
    int runs, failed, refused, with_record;
    int multi;              /* 1 once a run had several CUDA processes */
    pg_kernel kern[PG_MAX_SIDES][PG_MAX_KERNELS];
    size_t nkern[PG_MAX_SIDES];
    int mode_seen[PG_MAX_SIDES][3];  /* records that read LAZY, EAGER, unread */
    int records, no_cupti;  /* records read; those whose CUPTI was not "ok" */
    char cupti_why[256];    /* the first such record's reason */
    char bus[32];           /* the first record's device (env "device"), "" none */
    pg_sampler smp;
} pg_state;

/* ------------------------------------------------------------ finding --- */

/* The probe: harness-probe.so beside this executable, else where make
 * install puts it. */
static int pg_find_probe(char *buf, size_t len, char *why, size_t whylen)
{
    char exe[4096], *slash;
    const char *given = getenv("HARNESS_PROBE");
    ssize_t n;

    /* HARNESS_PROBE=PATH: another build of it (and the CPU tests' stand-in). */
    if (given && *given) {
        if ((size_t)snprintf(buf, len, "%s", given) < len && access(buf, R_OK) == 0) return 0;
        snprintf(why, whylen, "HARNESS_PROBE=%.600s: %s", given, strerror(errno));
        buf[0] = '\0';
        return -1;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (n > 0) {
        exe[n] = '\0';
        if ((slash = strrchr(exe, '/'))) *slash = '\0';
        if ((size_t)snprintf(buf, len, "%s/harness-probe.so", exe) < len && access(buf, R_OK) == 0)
            return 0;
        if ((size_t)snprintf(buf, len, "%s/../lib/harness/harness-probe.so", exe) < len &&
            access(buf, R_OK) == 0)
            return 0;
    }
    snprintf(why, whylen, "harness-probe.so is neither beside the harness (%.600s) nor in "
             "../lib/harness/ (make builds it; make install installs it)", n > 0 ? exe : "?");
    buf[0] = '\0';
    return -1;
}

/* CUPTI: $CUDA_HOME's, the toolkit the harness was built with, the
 * loader's path (the probe's dlopen looks there itself), or the
 * nvidia-cuda-cupti wheel of the python3 on the path. */
static int pg_find_cupti(char *buf, size_t len, char *why, size_t whylen)
{
    const char *home = getenv("CUDA_HOME");
    const char *dirs[4];
    static const char *const names[] = { "libcupti.so", "libcupti.so.13", "libcupti.so.12" };
    size_t nd = 0, i, j, at = 0;
    FILE *py;

    if (home && *home) dirs[nd++] = home;
    dirs[nd++] = HARNESS_CUDA_HOME;
    for (i = 0; i < nd; i++)
        for (j = 0; j < sizeof names / sizeof names[0]; j++) {
            if ((size_t)snprintf(buf, len, "%s/lib64/%s", dirs[i], names[j]) < len &&
                access(buf, R_OK) == 0)
                return 0;
            if ((size_t)snprintf(buf, len, "%s/extras/CUPTI/lib64/%s", dirs[i], names[j]) < len &&
                access(buf, R_OK) == 0)
                return 0;
        }
    py = popen("python3 -c 'import glob, nvidia, os; print(\"\\n\".join(sorted(p for d in "
               "nvidia.__path__ for p in glob.glob(os.path.join(d, \"*\", \"lib\", "
               "\"libcupti.so*\")))))' 2>/dev/null", "r");
    if (py) {
        int got = fgets(buf, (int)len, py) != NULL;
        pclose(py);
        if (got) {
            buf[strcspn(buf, "\n")] = '\0';
            if (buf[0] && access(buf, R_OK) == 0) return 0;
        }
    }
    for (i = 0; i < nd && at < whylen; i++)
        at += (size_t)snprintf(why + at, whylen - at, "%s%s/lib64, %s/extras/CUPTI/lib64", i ? ", " : "",
                               dirs[i], dirs[i]);
    if (at < whylen)
        snprintf(why + at, whylen - at, " and python3's nvidia-cuda-cupti wheel; install the CUDA "
                 "toolkit's CUPTI or pip install nvidia-cuda-cupti, or set CUDA_HOME");
    buf[0] = '\0';
    return -1;
}

/* Where the program's output goes: --program-output, else beside --json
 * ("<json>.program"), else a temporary directory removed at the end. */
static int pg_output_dir(pg_state *s, char *why, size_t whylen)
{
    const cli_opts *o = s->c->o;
    if (o->program_output || o->json) {
        if (o->program_output) snprintf(s->outdir, sizeof s->outdir, "%s", o->program_output);
        else snprintf(s->outdir, sizeof s->outdir, "%s.program", o->json);
        if (mkdir(s->outdir, 0755) != 0 && errno != EEXIST) {
            snprintf(why, whylen, "cannot make %.900s: %s", s->outdir, strerror(errno));
            return -1;
        }
        return 0;
    }
    s->outdir_tmp = 1;
    return pr_mkdtemp("program-output", s->outdir, sizeof s->outdir, why, whylen);
}

/* The sides: both modes with --compare-loading, else the one asked for
 * (or the user's own setting); each probed and bare. */
static void pg_plan_sides(pg_state *s)
{
    static const char *const modes[2] = { "LAZY", "EAGER" };
    const cli_opts *o = s->c->o;
    size_t nm = o->compare_loading ? 2 : 1, i, bare;

    for (bare = s->probe[0] ? 0 : 1; bare < 2; bare++)
        for (i = 0; i < nm; i++) {
            pg_side *d = &s->side[s->nsides++];
            const char *mode = o->compare_loading ? modes[i]
                             : o->loading == CLI_LOAD_DEFAULT ? NULL : cli_loading_name(o->loading);
            char low[8] = "default";
            size_t k;
            for (k = 0; mode && k < sizeof low; k++)
                if ((low[k] = (char)tolower((unsigned char)mode[k])) == '\0') break;
            d->mode = mode;
            d->probed = !bare;
            snprintf(d->key, sizeof d->key, "%s%s", bare ? "bare." : "", low);
            snprintf(d->label, sizeof d->label, "%s%s", mode ? mode : "as set", bare ? " bare" : "");
        }
}

/* ------------------------------------------------------------ sampler --- */

static void *pg_sample_loop(void *arg)
{
    pg_sampler *m = arg;
    nv_sample got[256];
    char why[128];

    while (!atomic_load(&m->stop)) {
        size_t n = 0, i, j;
        pid_t g = (pid_t)atomic_load(&m->pgid);
        double sum = 0;
        int seen = 0;
        if (g > 0 && nv_processes(got, sizeof got / sizeof got[0], &n, why, sizeof why) == 0) {
            for (i = 0; i < n; i++) {
                if (getpgid((pid_t)got[i].pid) != g) continue;
                seen = 1;
                sum += got[i].mib;
                for (j = 0; j < m->npid && m->pid[j] != got[i].pid; j++)
                    ;
                if (j == m->npid && m->npid < sizeof m->pid / sizeof m->pid[0]) {
                    m->pid[m->npid] = got[i].pid;
                    m->peak[m->npid++] = got[i].mib;
                } else if (j < m->npid && got[i].mib > m->peak[j]) {
                    m->peak[j] = got[i].mib;
                }
            }
            if (seen && sum > m->peak_sum) m->peak_sum = sum;
        }
        usleep(10000);
    }
    return NULL;
}

static void pg_spawned(int pid, void *arg)
{
    atomic_store(&((pg_sampler *)arg)->pgid, pid);
}

static int pg_sampler_start(pg_state *s)
{
    pg_sampler *m = &s->smp;
    memset(m->pid, 0, sizeof m->pid);
    m->npid = 0;
    m->peak_sum = -1;
    atomic_store(&m->pgid, 0);
    atomic_store(&m->stop, 0);
    if (!s->nvml) return 0;
    return pthread_create(&m->th, NULL, pg_sample_loop, m) == 0 ? 1 : 0;
}

static void pg_sampler_stop(pg_sampler *m, int started)
{
    atomic_store(&m->stop, 1);
    if (started) pthread_join(m->th, NULL);
}

/* ------------------------------------------------------------ records --- */

/* A record's figure, or NaN. */
static double pg_fig(const prc_record *rec, const char *key)
{
    const res_meas *m = res_find(&rec->r, PRC_SECTION, key);
    return m ? m->samples[0] : NAN;
}

/* The record's order: by the moment the probe was loaded, then pid. */
static int pg_rec_cmp(const void *a, const void *b)
{
    const prc_record *x = a, *y = b;
    double tx = pg_fig(x, "at.probe"), ty = pg_fig(y, "at.probe");
    if (isnan(tx)) tx = INFINITY;
    if (isnan(ty)) ty = INFINITY;
    if (tx != ty) return tx < ty ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Read every "<pid>.rec" of dir into recs (at most max; sorted); a record
 * refused is a failed check naming the run, the process and why. */
static size_t pg_read_records(pg_state *s, const char *dir, const char *what, prc_record *recs,
                              size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    int refused = s->refused;
    char said[64];

    if (!d) return 0;
    while ((e = readdir(d)) && n < max) {
        char path[4600], why[300], detail[600], *end;
        long pid = strtol(e->d_name, &end, 10);
        struct stat st;
        FILE *f;
        char *text;
        size_t len;
        if (end == e->d_name || strcmp(end, ".rec") != 0 || pid <= 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!(f = fopen(path, "rb"))) continue;
        /* Its size as it stands, at most one byte past what a record may be
         * (prc_read refuses that). */
        len = fstat(fileno(f), &st) == 0 && st.st_size >= 0 ? (size_t)st.st_size : 0;
        if (len > PRC_MAX_BYTES) len = PRC_MAX_BYTES + 1;
        text = malloc(len + 1);
        len = text ? fread(text, 1, len, f) : 0;
        fclose(f);
        if (text && prc_read(text, len, pid, &recs[n], why, sizeof why) == 0) {
            n++;
        } else {
            snprintf(detail, sizeof detail, "process %ld: %s", pid, text ? why : "out of memory");
            res_check_add(s->c->r, PG, what, 0, detail);
            s->refused++;
        }
        free(text);
    }
    closedir(d);
    qsort(recs, n, sizeof *recs, pg_rec_cmp);
    if (s->refused == refused) {
        snprintf(said, sizeof said, "%zu record%s read", n, n == 1 ? "" : "s");
        res_check_add(s->c->r, PG, what, 1, said);
    }
    return n;
}

/* One more sample of "<prefix><key>" in section PG. */
static void pg_put(pg_state *s, const char *prefix, const char *key, const char *name,
                   const char *region, const char *unit, double v)
{
    char k[128];
    if (isnan(v)) return;
    snprintf(k, sizeof k, "%s%s", prefix, key);
    if (!res_append(s->c->r, PG, k, name, region, RES_PROCESS, unit, v))
        fprintf(stderr, "harness: " PG ": out of memory storing %s\n", k);
}

const pg_runfig *pg_runfig_of(const char *key)
{
    size_t i;
    for (i = 0; i < PG_NRUNFIGS && strcmp(pg_runfigs[i].key, key) != 0; i++)
        ;
    return &pg_runfigs[i < PG_NRUNFIGS ? i : 0];
}

/* One more sample of the run-level figure key, as "<prefix><key>". */
static void pg_put_run(pg_state *s, const char *prefix, const char *key, double v)
{
    const pg_runfig *f = pg_runfig_of(key);
    pg_put(s, prefix, f->key, f->name, f->region, f->unit, v);
}

/* The run's figures from its records: "at." the earliest, the others
 * summed; then each process's own where the run had several. */
static void pg_put_records(pg_state *s, const pg_side *sd, const prc_record *recs, size_t n)
{
    char prefix[64], region[600];
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    pg_put_run(s, prefix, "processes", (double)n);
    for (j = 0; j < PRC_NFIGS; j++) {
        const prc_fig *f = &prc_figs[j];
        int at = strncmp(f->key, "at.", 3) == 0;
        double v = NAN;
        for (i = 0; i < n; i++) {
            double x = pg_fig(&recs[i], f->key);
            if (isnan(x)) continue;
            v = isnan(v) ? x : at ? fmin(v, x) : v + x;
        }
        snprintf(region, sizeof region, "%s: %s", at ? "the earliest of the run's CUDA processes"
                 : "summed over the run's CUDA processes", f->region);
        pg_put(s, prefix, f->key, f->name, region, f->unit, v);
    }
    if (n < 2) return;
    s->multi = 1;
    for (i = 0; i < n && i < PG_MAX_PROCS; i++) {
        char env[64];
        const res_kv *cmd = res_env_get(&recs[i].r, "command");
        snprintf(prefix, sizeof prefix, "proc%zu.%s.", i + 1, sd->key);
        for (j = 0; j < PRC_NFIGS; j++)
            pg_put(s, prefix, prc_figs[j].key, prc_figs[j].name, prc_figs[j].region, prc_figs[j].unit,
                   pg_fig(&recs[i], prc_figs[j].key));
        snprintf(env, sizeof env, "program_proc%zu_command", i + 1);
        if (!res_env_get(s->c->r, env) && cmd && cmd->kind == RES_STR) res_env_str(s->c->r, env, cmd->str);
    }
}

/* The run's device memory peaks from the sampler: in all, and per process
 * where the run had several. */
static void pg_put_memory(pg_state *s, const pg_side *sd, const prc_record *recs, size_t n)
{
    const pg_runfig *f = pg_runfig_of("mem.peak");
    char prefix[64];
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    if (s->smp.peak_sum >= 0) pg_put_run(s, prefix, f->key, s->smp.peak_sum);
    if (n < 2) return;
    for (i = 0; i < n && i < PG_MAX_PROCS; i++)
        for (j = 0; j < s->smp.npid; j++)
            if (s->smp.pid[j] == recs[i].pid) {
                snprintf(prefix, sizeof prefix, "proc%zu.%s.", i + 1, sd->key);
                pg_put(s, prefix, f->key, f->name, "the most device memory NVML showed for this "
                       "process, sampled every 10 ms", f->unit, s->smp.peak[j]);
            }
}

/* The slowest first uses of the records, gathered by kernel name. */
static void pg_gather_kernels(pg_state *s, size_t si, const prc_record *recs, size_t n)
{
    size_t i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < recs[i].r.nd; j++) {
            const res_derived *d = &recs[i].r.d[j];
            pg_kernel *kn = NULL;
            for (k = 0; k < s->nkern[si] && !kn; k++)
                if (strcmp(s->kern[si][k].name, d->name) == 0) kn = &s->kern[si][k];
            if (!kn && s->nkern[si] < PG_MAX_KERNELS) {
                kn = &s->kern[si][s->nkern[si]++];
                snprintf(kn->name, sizeof kn->name, "%s", d->name);
            }
            if (!kn) continue;
            if (kn->n == kn->cap) {
                size_t cap = kn->cap ? kn->cap * 2 : 8;
                double *a = realloc(kn->ms, cap * sizeof *a), *b, *c;
                if (a) kn->ms = a;
                b = a ? realloc(kn->get, cap * sizeof *b) : NULL;
                if (b) kn->get = b;
                c = b ? realloc(kn->launch, cap * sizeof *c) : NULL;
                if (!c) continue;
                kn->launch = c;
                kn->cap = cap;
            }
            kn->ms[kn->n] = d->value;
            kn->get[kn->n] = res_derived_num(d, "get_ms");
            kn->launch[kn->n++] = res_derived_num(d, "launch_ms");
        }
}

/* Which loading mode the records read in their processes, and whether
 * CUPTI answered in each (another client subscribed, say). */
static void pg_tally_modes(pg_state *s, size_t si, const prc_record *recs, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const res_kv *kv = res_env_get(&recs[i].r, "loading_mode");
        const res_kv *cu = res_env_get(&recs[i].r, "cupti");
        const char *m = kv && kv->kind == RES_STR && kv->str ? kv->str : "";
        const char *c = cu && cu->kind == RES_STR && cu->str ? cu->str : "not said";
        const res_kv *dev = res_env_get(&recs[i].r, "device");
        if (!s->bus[0] && dev && dev->kind == RES_STR && dev->str)
            snprintf(s->bus, sizeof s->bus, "%s", dev->str);
        s->mode_seen[si][strcmp(m, "LAZY") == 0 ? 0 : strcmp(m, "EAGER") == 0 ? 1 : 2]++;
        s->records++;
        if (strcmp(c, "ok") != 0 && !s->no_cupti++)
            snprintf(s->cupti_why, sizeof s->cupti_why, "%s", c);
    }
}

/* The first traced run of a side: its records' spans into the trace,
 * each process a track of its own, on the harness's axis. */
static void pg_trace(const pg_side *sd, long long t0_ns, const prc_record *recs, size_t n)
{
    double axis = tr_now() - (clk_now_ms() - (double)t0_ns / 1e6);
    size_t i, j;
    for (i = 0; i < n; i++) {
        char pname[160];
        const res_kv *cmd = res_env_get(&recs[i].r, "command");
        snprintf(pname, sizeof pname, "%s: %s (pid %ld)", sd->label,
                 cmd && cmd->kind == RES_STR && cmd->str ? cmd->str : "?", recs[i].pid);
        for (j = 0; j < recs[i].nspans; j++) {
            const prc_span *sp = &recs[i].spans[j];
            tr_process_span((int)recs[i].pid, pname, sp->tid, sp->name, axis + sp->start_ms, sp->ms);
        }
    }
}

/* ---------------------------------------------------------------- runs --- */

/* The environment of a run: the mode set (or the user's own), the probe
 * and its settings on a probed side, none of the probe's on a bare one. */
static size_t pg_env(const pg_state *s, const pg_side *sd, const char *recdir, int spans,
                     char buf[][4200], const char **env)
{
    size_t n = 0;
    if (sd->mode) snprintf(buf[n++], 4200, "CUDA_MODULE_LOADING=%s", sd->mode);
    if (sd->probed && s->probe[0]) {
        snprintf(buf[n++], 4200, "CUDA_INJECTION64_PATH=%s", s->probe);
        snprintf(buf[n++], 4200, PRC_ENV_DIR "=%s", recdir);
        if (s->cupti[0]) snprintf(buf[n++], 4200, PRC_ENV_CUPTI "=%s", s->cupti);
        if (spans) snprintf(buf[n++], 4200, PRC_ENV_SPANS "=%d", PG_TRACE_SPANS);
    } else {
        snprintf(buf[n++], 4200, PRC_ENV_DIR);
        if (s->probe[0]) {
            const char *inj = getenv("CUDA_INJECTION64_PATH");
            if (inj && strcmp(inj, s->probe) == 0) snprintf(buf[n++], 4200, "CUDA_INJECTION64_PATH");
        }
    }
    for (size_t i = 0; i < n; i++) env[i] = buf[i];
    return n;
}

/* What became of the run, as a check; 1 when it exited 0. */
static int pg_outcome(pg_state *s, const char *what, const pr_program *p)
{
    char detail[300];
    int ok = !p->timed_out && p->signal == 0 && p->exit_code == 0;
    if (p->timed_out)
        snprintf(detail, sizeof detail, "ran past --child-timeout=%.0f s; its process group was killed",
                 s->c->o->child_timeout);
    else if (p->signal)
        snprintf(detail, sizeof detail, "killed by signal %d (%s)", p->signal, strsignal(p->signal));
    else
        snprintf(detail, sizeof detail, "exited with %d%s", p->exit_code,
                 p->stragglers ? "; processes of its group still there 2 s later were killed" : "");
    res_check_add(s->c->r, PG, what, ok, detail);
    return ok;
}

/* One run of side sd: spawn, wait, read its records, store its figures. */
static int pg_one(pg_state *s, pg_side *sd, int round)
{
    const cli_opts *o = s->c->o;
    char recdir[512] = "", what[200], why[512], out[4300], err[4300], envbuf[6][4200];
    const char *env[6];
    prc_record recs[PG_MAX_PROCS * 4];
    size_t nenv, nrec = 0, si = (size_t)(sd - s->side), i;
    int started, ok, spans;
    pr_program p;

    s->runs++;
    snprintf(what, sizeof what, "run %d (%s, round %d): the program exited 0", s->runs, sd->label,
             round + 1);
    if (sd->probed && s->probe[0] && pr_mkdtemp("program", recdir, sizeof recdir, why, sizeof why) != 0) {
        fprintf(stderr, "harness: " PG ": %s\n", why);
        return -1;
    }
    spans = o->trace && sd->probed && !sd->traced;
    nenv = pg_env(s, sd, recdir, spans, envbuf, env);
    snprintf(out, sizeof out, "%s/run%02d-%s.out", s->outdir, s->runs, sd->key);
    snprintf(err, sizeof err, "%s/run%02d-%s.err", s->outdir, s->runs, sd->key);
    if (s->runs == 1) {
        res_env_str(s->c->r, "program_first_stdout", out);
        res_env_str(s->c->r, "program_first_stderr", err);
    }
    drv_set_phase(what);
    started = pg_sampler_start(s);
    if (pr_run_program(o->cmd_path, o->cmd, env, nenv, sd->probed ? PRC_ENV_T0 : NULL, out, err,
                       o->child_timeout, pg_spawned, &s->smp, &p, why, sizeof why) != 0) {
        pg_sampler_stop(&s->smp, started);
        fprintf(stderr, "harness: " PG ": %s\n", why);
        if (recdir[0]) pr_rmtree(recdir);
        return -1;
    }
    pg_sampler_stop(&s->smp, started);
    ok = pg_outcome(s, what, &p);
    if (recdir[0]) {
        snprintf(what, sizeof what, "run %d (%s): every CUDA process's record read", s->runs, sd->label);
        nrec = pg_read_records(s, recdir, what, recs, sizeof recs / sizeof recs[0]);
        pr_rmtree(recdir);
    }
    if (!ok) s->failed++;
    if (ok) {
        char prefix[40];
        snprintf(prefix, sizeof prefix, "%s.", sd->key);
        pg_put_run(s, prefix, "wall", p.ms);
        pg_put_run(s, prefix, "cpu", p.cpu_ms);
        pg_put_run(s, prefix, "rss.main", p.rss_mib);
        pg_put_memory(s, sd, recs, nrec);
        if (sd->probed && s->probe[0]) {
            pg_put_records(s, sd, recs, nrec);
            pg_gather_kernels(s, si, recs, nrec);
            pg_tally_modes(s, si, recs, nrec);
            if (nrec) s->with_record++;
        }
    }
    if (spans && nrec) {
        pg_trace(sd, p.t0_ns, recs, nrec);
        sd->traced = 1;
    }
    for (i = 0; i < nrec; i++) prc_free(&recs[i]);
    return 0;
}

/* ----------------------------------------------------------- settings --- */

/* The command as one line of words, into buf. */
static void pg_command_line(const cli_opts *o, char *buf, size_t len)
{
    size_t i, at = 0;
    buf[0] = '\0';
    for (i = 0; i < o->ncmd && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", o->cmd[i]);
}

/* What the run is: the command, the sides, the probe, CUPTI, NVML, the
 * outputs; found before any run. Returns 0, or -1 (printed). */
static int pg_setup(pg_state *s)
{
    results *r = s->c->r;
    const cli_opts *o = s->c->o;
    char why[1024], line[4096], sides[200];
    size_t i, at = 0;

    if (pg_find_probe(s->probe, sizeof s->probe, why, sizeof why) != 0) {
        res_env_str(r, "program_probe", NULL);
        res_env_str(r, "program_probe_missing", why);
        fprintf(stderr, "harness: " PG ": %s; the runs are bare (no figures from inside)\n", why);
    }
    pg_plan_sides(s);
    if (pg_output_dir(s, why, sizeof why) != 0) {
        fprintf(stderr, "harness: " PG ": %s\n", why);
        return -1;
    }
    pg_command_line(o, line, sizeof line);
    res_env_str(r, "program_command", line);
    res_env_str(r, "program_path", o->cmd_path);
    res_env_num(r, "program_rounds", o->rounds);
    for (i = 0; i < s->nsides; i++)
        at += (size_t)snprintf(sides + at, sizeof sides - at, "%s%s", i ? ", " : "", s->side[i].label);
    res_env_str(r, "program_sides", sides);
    res_env_str(r, "program_user_loading", getenv("CUDA_MODULE_LOADING"));
    /* Another injection of the user's (Nsight's, say): the probe takes its
     * place on probed runs; bare runs keep it. */
    res_env_str(r, "program_user_injection", getenv("CUDA_INJECTION64_PATH"));
    if (getenv("CUDA_INJECTION64_PATH") && *getenv("CUDA_INJECTION64_PATH"))
        fprintf(stderr, "harness: " PG ": CUDA_INJECTION64_PATH=%s is set: probed runs load the "
                "harness's probe in its place; bare runs keep it\n", getenv("CUDA_INJECTION64_PATH"));
    res_env_str(r, "program_output", s->outdir_tmp ? NULL : s->outdir);
    if (s->probe[0]) {
        res_env_str(r, "program_probe", s->probe);
        if (pg_find_cupti(s->cupti, sizeof s->cupti, why, sizeof why) == 0)
            res_env_str(r, "program_cupti", s->cupti);
        else {
            res_env_str(r, "program_cupti", NULL);
            res_env_str(r, "program_cupti_missing", why);
            fprintf(stderr, "harness: " PG ": no CUPTI: looked in %s; the wall time and exit status "
                    "are still measured\n", why);
        }
    }
    s->nvml = nv_open(why, sizeof why) == 0;
    res_env_str(r, "program_nvml", s->nvml ? "ok" : why);
    return 0;
}

/* ----------------------------------------------------------- concluding --- */

static double pg_threshold(const pg_state *s)
{
    return s->c->o->threshold;
}

/* EAGER against LAZY, figure by figure, on the probed sides and, for the
 * whole process and memory, on the bare sides. */
static void pg_compare_modes(pg_state *s)
{
    static const char *const prefixes[2] = { "", "bare." };
    results *r = s->c->r;
    char ke[128], kl[128], key[128], name[200];
    size_t i, j, p;

    for (p = 0; p < 2; p++)
        for (i = 0; i < PG_NRUNFIGS + PRC_NFIGS; i++) {
            const char *fk = i < PG_NRUNFIGS ? pg_runfigs[i].key : prc_figs[i - PG_NRUNFIGS].key;
            const res_meas *e, *l;
            vd_result v;
            snprintf(ke, sizeof ke, "%seager.%s", prefixes[p], fk);
            snprintf(kl, sizeof kl, "%slazy.%s", prefixes[p], fk);
            if (!(e = res_find(r, PG, ke)) || !(l = res_find(r, PG, kl))) continue;
            vd_judge(e->samples, e->nsamples, l->samples, l->nsamples, "EAGER", "LAZY",
                     pg_threshold(s), 0.0, &v);
            snprintf(key, sizeof key, "compare.%s%s", prefixes[p], fk);
            snprintf(name, sizeof name, "EAGER against LAZY%s, %s: the U test's p", p ? " (bare)" : "", fk);
            vd_store(r, PG, key, name, &v, "EAGER", "LAZY", pg_threshold(s));
        }
    for (j = 1; j <= PG_MAX_PROCS; j++)
        for (i = 0; i < PG_NRUNFIGS + PRC_NFIGS; i++) {
            const char *fk = i < PG_NRUNFIGS ? pg_runfigs[i].key : prc_figs[i - PG_NRUNFIGS].key;
            const res_meas *e, *l;
            vd_result v;
            snprintf(ke, sizeof ke, "proc%zu.eager.%s", j, fk);
            snprintf(kl, sizeof kl, "proc%zu.lazy.%s", j, fk);
            if (!(e = res_find(r, PG, ke)) || !(l = res_find(r, PG, kl))) continue;
            vd_judge(e->samples, e->nsamples, l->samples, l->nsamples, "EAGER", "LAZY",
                     pg_threshold(s), 0.0, &v);
            snprintf(key, sizeof key, "compare.proc%zu.%s", j, fk);
            snprintf(name, sizeof name, "process %zu, EAGER against LAZY, %s", j, fk);
            vd_store(r, PG, key, name, &v, "EAGER", "LAZY", pg_threshold(s));
        }
}

/* The probe's own cost per mode: bare against probed, on the whole
 * process and the device memory peak; pct_of_bare the difference as a
 * share of the bare median. */
static void pg_probe_cost(pg_state *s)
{
    static const char *const figs[3] = { "wall", "cpu", "mem.peak" };
    results *r = s->c->r;
    size_t i, f;

    for (i = 0; i < s->nsides; i++) {
        const pg_side *sd = &s->side[i];
        if (!sd->probed) continue;
        for (f = 0; f < 3; f++) {
            char kb[128], kp[128], key[128], name[200];
            const res_meas *b, *p;
            res_derived *d;
            vd_result v;
            snprintf(kp, sizeof kp, "%s.%s", sd->key, figs[f]);
            snprintf(kb, sizeof kb, "bare.%s.%s", sd->key, figs[f]);
            if (!(b = res_find(r, PG, kb)) || !(p = res_find(r, PG, kp))) continue;
            vd_judge(b->samples, b->nsamples, p->samples, p->nsamples, "bare", "probed",
                     0.0, 0.0, &v);
            snprintf(key, sizeof key, "probe_cost.%s.%s", sd->key, figs[f]);
            snprintf(name, sizeof name, "the probe's cost, %s, %s: probed median less bare", sd->label,
                     figs[f]);
            if ((d = vd_store(r, PG, key, name, &v, "bare", "probed", 0.0))) {
                d->value = v.diff;
                res_derived_field(d, "pct_of_bare", v.a_median != 0 ? v.diff / v.a_median * 100.0 : NAN);
            }
        }
    }
}

static int pg_kernel_cmp(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The slowest first uses of each probed side: each kernel's median over
 * the runs it appeared in, the PRC_SLOWEST slowest. */
static void pg_slowest(pg_state *s)
{
    size_t si, k, n;
    for (si = 0; si < s->nsides; si++) {
        double order[PG_MAX_KERNELS][2];
        for (k = 0, n = 0; k < s->nkern[si]; k++) {
            order[n][0] = st_median(s->kern[si][k].ms, s->kern[si][k].n);
            order[n++][1] = (double)k;
        }
        qsort(order, n, sizeof order[0], pg_kernel_cmp);
        for (k = 0; k < n && k < PRC_SLOWEST; k++) {
            const pg_kernel *kn = &s->kern[si][(size_t)order[k][1]];
            char key[64], full[4096];
            res_derived *d;
            snprintf(key, sizeof key, "slowest.%s.%zu", s->side[si].key, k + 1);
            dm_demangle(kn->name, full, sizeof full);   /* text: the name demangled */
            d = res_derive(s->c->r, PG, key, kn->name, order[k][0], "ms", full);
            if (!d) continue;
            res_derived_field(d, "runs", (double)kn->n);
            res_derived_field(d, "get_ms", st_median(kn->get, kn->n));
            res_derived_field(d, "launch_ms", st_median(kn->launch, kn->n));
        }
    }
}

/* The median of "<side>.<fig>", NaN when absent. */
static double pg_med(const results *r, const char *side, const char *fig)
{
    char k[128];
    const res_meas *m;
    snprintf(k, sizeof k, "%s.%s", side, fig);
    m = res_find(r, PG, k);
    return m ? m->stats.median : NAN;
}

/* The verdict text of "compare.<fig>", "" when none. */
static const char *pg_verdict(const results *r, const char *fig)
{
    char k[128];
    const res_derived *d;
    snprintf(k, sizeof k, "compare.%s", fig);
    d = res_derived_find(r, PG, k);
    return d ? d->text : "";
}

static void pg_answer(pg_state *s, const char *key, const char *name, double value,
                      const char *unit, const char *text)
{
    if (!res_derive(s->c->r, PG, key, name, value, unit, text))
        fprintf(stderr, "harness: " PG ": out of memory storing %s\n", key);
}

/* The sentences of a comparison of the modes: where the cold start went,
 * what each mode costs in memory, what LAZY pays later. */
static void pg_answers_modes(pg_state *s)
{
    const results *r = s->c->r;
    char t[1200];
    double le = pg_med(r, "eager", "at.first_kernel"), ll = pg_med(r, "lazy", "at.first_kernel");
    double me = pg_med(r, "eager", "mem.first_kernel"), ml = pg_med(r, "lazy", "mem.first_kernel");
    double pe = pg_med(r, "eager", "mem.peak"), pl = pg_med(r, "lazy", "mem.peak");
    double gl = pg_med(r, "lazy", "kernel_function.ms"), fl = pg_med(r, "lazy", "launch_first.ms");
    double be = pg_med(r, "eager", "library_load.ms") + pg_med(r, "eager", "module_load.ms");
    double bl = pg_med(r, "lazy", "library_load.ms") + pg_med(r, "lazy", "module_load.ms");
    const char *v = pg_verdict(r, "at.first_kernel");

    if (!isnan(le) && !isnan(ll)) {
        snprintf(t, sizeof t, "Before the first kernel: LAZY %.0f ms, EAGER %.0f ms after the spawn "
                 "(medians; %s). %s", ll, le, v,
                 strstr(v, "higher") ? (le > ll ? "LAZY reached its first kernel sooner: EAGER loads "
                                        "every module up front" : "EAGER reached its first kernel sooner")
                 : "The difference is within the noise, or not called at this count.");
        pg_answer(s, "answer.cold_start", "where the cold start went", ll - le, "ms", t);
        if (!isnan(be) && !isnan(bl)) {
            snprintf(t, sizeof t, "Module and library loads took %.0f ms under EAGER and %.0f ms "
                     "under LAZY (host time inside the calls, medians).", be, bl);
            pg_answer(s, "answer.loads", "the loads", bl - be, "ms", t);
        }
    }
    if (!isnan(pe) && !isnan(pl)) {
        snprintf(t, sizeof t, "Device memory: EAGER %.0f MiB at its peak, LAZY %.0f MiB (%s)%s%s.",
                 pe, pl, pg_verdict(r, "mem.peak"), !isnan(me) && !isnan(ml) ? "; at the first kernel " : "",
                 "");
        if (!isnan(me) && !isnan(ml))
            snprintf(t + strlen(t) - 1, sizeof t - strlen(t) + 1, "EAGER %.0f MiB, LAZY %.0f MiB (%s).",
                     me, ml, pg_verdict(r, "mem.first_kernel"));
        pg_answer(s, "answer.memory", "what each mode costs in device memory", pe - pl, "MiB", t);
    }
    if (!isnan(gl) || !isnan(fl)) {
        static const char *const later[][2] = {
            { "kernel_function.ms", "cuKernelGetFunction" }, { "get_function.ms", "cuModuleGetFunction" },
            { "func_load.ms", "cuFuncLoad" }, { "launch_first.ms", "first launches" },
        };
        size_t k, shown = 0, at = (size_t)snprintf(t, sizeof t, "What LAZY pays later (host time "
                                                   "inside the calls, medians): ");
        for (k = 0; k < sizeof later / sizeof later[0] && at < sizeof t; k++) {
            double l = pg_med(r, "lazy", later[k][0]), e = pg_med(r, "eager", later[k][0]);
            char eager[32] = "none";
            if (isnan(l)) continue;
            if (!isnan(e)) snprintf(eager, sizeof eager, "%.2f ms", e);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %.2f ms (EAGER %s)",
                                   shown++ ? ", " : "", later[k][1], l, eager);
        }
        for (k = 1; k <= 3 && at < sizeof t; k++) {
            char key[64];
            const res_derived *d;
            snprintf(key, sizeof key, "slowest.lazy.%zu", k);
            if (!(d = res_derived_find(r, PG, key))) break;
            char name[64];
            dm_shorten(d->text[0] ? d->text : d->name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %.2f ms", k == 1 ? "; the slowest "
                                   "first uses under LAZY: " : ", ", name, d->value);
        }
        if (at < sizeof t) snprintf(t + at, sizeof t - at, ".");
        pg_answer(s, "answer.later", "what LAZY pays later", (isnan(gl) ? 0 : gl) + (isnan(fl) ? 0 : fl),
                  "ms", t);
    }
}

/* The mode in effect against the mode asked for, per side. */
static void pg_answer_mode(pg_state *s)
{
    size_t i;
    for (i = 0; i < s->nsides; i++) {
        const pg_side *sd = &s->side[i];
        int want = sd->mode && strcmp(sd->mode, "LAZY") == 0 ? 0 : sd->mode ? 1 : -1;
        int other, seen = s->mode_seen[i][0] + s->mode_seen[i][1] + s->mode_seen[i][2];
        char key[64], t[400];
        if (!sd->probed || want < 0 || seen == 0) continue;
        other = s->mode_seen[i][1 - want];
        snprintf(key, sizeof key, "answer.mode.%s", sd->key);
        if (other)
            snprintf(t, sizeof t, "%s was requested, but %s was in effect in %d of %d CUDA processes "
                     "(cuModuleGetLoadingMode, read inside each).", sd->mode, want ? "LAZY" : "EAGER",
                     other, seen);
        else
            snprintf(t, sizeof t, "%s was in effect in every CUDA process that launched a kernel "
                     "(%d of %d read it; cuModuleGetLoadingMode, inside each).", sd->mode,
                     s->mode_seen[i][want], seen);
        pg_answer(s, key, "the loading mode in effect", (double)other, "", t);
    }
}

/* The probe's cost in words. */
static void pg_answer_cost(pg_state *s)
{
    char t[800];
    size_t i, at = 0;
    for (i = 0; i < s->nsides && at < sizeof t; i++) {
        char kw[96], km[96];
        const res_derived *w, *m;
        if (!s->side[i].probed) continue;
        snprintf(kw, sizeof kw, "probe_cost.%s.wall", s->side[i].key);
        snprintf(km, sizeof km, "probe_cost.%s.mem.peak", s->side[i].key);
        if (!(w = res_derived_find(s->c->r, PG, kw))) continue;
        m = res_derived_find(s->c->r, PG, km);
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s: %+.1f%% of the whole process (%+.0f ms; %s)",
                               at ? "; " : "The probe's own cost, probed against bare runs: ",
                               s->side[i].label, res_derived_num(w, "pct_of_bare"), w->value, w->text);
        if (m && at < sizeof t)
            at += (size_t)snprintf(t + at, sizeof t - at, ", %+.0f MiB of device memory at the peak",
                                   m->value);
    }
    if (at && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ".");
        pg_answer(s, "answer.probe_cost", "what the measurement added", NAN, "", t);
    }
}

static void pg_conclude(pg_state *s)
{
    char t[600];
    if (s->c->o->compare_loading) pg_compare_modes(s);
    pg_probe_cost(s);
    pg_slowest(s);
    if (s->c->o->compare_loading) pg_answers_modes(s);
    pg_answer_mode(s);
    pg_answer_cost(s);
    if (s->probe[0] && s->with_record == 0 && s->runs > s->failed) {
        snprintf(t, sizeof t, "No CUDA process: in no probed run did the driver load the probe (the "
                 "program never called cuInit, or no CUDA driver is there); only its whole-process "
                 "time and host memory are measured.");
        pg_answer(s, "answer.cuda", "whether the program used CUDA", 0, "", t);
    }
    if (s->no_cupti) {
        snprintf(t, sizeof t, "CUPTI did not answer inside %d of %d CUDA processes (the first said: "
                 "%s): their records hold what is measured without callbacks (the probe's load, "
                 "exit, host memory).", s->no_cupti, s->records, s->cupti_why);
        pg_answer(s, "answer.cupti", "whether CUPTI answered inside", s->no_cupti, "", t);
    }
    if (s->failed) {
        snprintf(t, sizeof t, "%d of %d runs failed (their figures are left out; the rest are "
                 "compared).", s->failed, s->runs);
        pg_answer(s, "answer.failed", "runs that failed", s->failed, "", t);
    }
}

/* --show-output: the first run's stdout and stderr, up to PG_SHOW_BYTES
 * each, into the env fields program_first_stdout_text and
 * program_first_stderr_text (the printer shows them; a cut is said). */
#define PG_SHOW_BYTES 65536
static void pg_keep_output(pg_state *s)
{
    static const char *const from[2] = { "program_first_stdout", "program_first_stderr" };
    static const char *const to[2] = { "program_first_stdout_text", "program_first_stderr_text" };
    size_t i;
    for (i = 0; i < 2; i++) {
        const res_kv *kv = res_env_get(s->c->r, from[i]);
        FILE *f = kv && kv->kind == RES_STR && kv->str ? fopen(kv->str, "r") : NULL;
        char *buf = malloc(PG_SHOW_BYTES + 64);
        size_t n = 0;
        if (f && buf) {
            n = fread(buf, 1, PG_SHOW_BYTES, f);
            if (fgetc(f) != EOF) n += (size_t)snprintf(buf + n, 64, "\n[cut at %d bytes]\n", PG_SHOW_BYTES);
            buf[n] = '\0';
            res_env_str(s->c->r, to[i], buf);
        }
        if (f) fclose(f);
        free(buf);
    }
}

static void pg_free(pg_state *s)
{
    size_t i, k;
    for (i = 0; i < PG_MAX_SIDES; i++)
        for (k = 0; k < s->nkern[i]; k++) {
            free(s->kern[i][k].ms);
            free(s->kern[i][k].get);
            free(s->kern[i][k].launch);
        }
    if (s->outdir_tmp && s->outdir[0]) {
        /* The output is not kept: no path in the results names a file gone. */
        pr_rmtree(s->outdir);
        res_env_str(s->c->r, "program_first_stdout", NULL);
        res_env_str(s->c->r, "program_first_stderr", NULL);
    }
}

int pg_run(sec_ctx *c)
{
    static pg_state st;
    pg_state *s = &st;
    char why[512];
    int round, rc = SEC_OK, no_driver;
    size_t k;

    memset(s, 0, sizeof *s);
    s->c = c;
    if (pg_setup(s) != 0) return SEC_FAILED;
    no_driver = drv_load(why, sizeof why) != 0;
    if (no_driver) res_env_str(c->r, "program_driver", why);
    for (round = 0; round < c->o->rounds && rc == SEC_OK; round++)
        for (k = 0; k < s->nsides && rc == SEC_OK; k++)
            if (pg_one(s, &s->side[(k + (size_t)round) % s->nsides], round) != 0) rc = SEC_FAILED;
    pg_conclude(s);
    pgd_env(c->r, s->bus, s->cupti);
    if (c->o->show_output) pg_keep_output(s);
    pg_free(s);
    if (rc != SEC_OK || s->failed || s->refused) return SEC_FAILED;
    if (no_driver) {
        sec_skip(c, PG, "no CUDA device was used: no CUDA driver is there (the program ran; its "
                 "whole-process time and exit status are measured)");
        return SEC_NO_GPU;
    }
    return SEC_OK;
}
