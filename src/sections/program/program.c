/* program.c: the user's own program (-- CMD), run as it is in fresh
 * processes, each side in turn: under the probe (src/probe/, loaded by the
 * driver through CUDA_INJECTION64_PATH) in the mode asked for, or both
 * modes with --compare-loading, and the same modes bare (no probe) for the
 * probe's own cost; each CUDA process's record read back and checked
 * (precord.h), the runs gathered, compared and put into sentences. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <regex.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sections/program/program.h"
#include "sections/program/figures.h"
#include "core/answer.h"
#include "core/trace.h"
#include "core/verdict.h"
#include "cuda/cudadrv.h"
#include "cuda/demangle.h"
#include "cuda/nvml.h"
#include "os/atomicfile.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/ptree.h"
#include "os/sig.h"
#include "os/ufile.h"
#include "probe/precord.h"
#include "sections/program/program_device.h"
#include "sections/program/setting_squeeze.h"
#include "sections/program/recdir.h"
#include "sections/program/squeeze_holder.h"

/* The most spans kept from the traced run of each side. */
#define PG_TRACE_SPANS 20000
/* The kernels gathered per side for the slowest first uses. */
#define PG_MAX_KERNELS 256

/* The caches a --jit-cache side sets: the driver's compute cache and the
 * JIT layers' own, each a directory of its own (the variable, the folder). */
#define PG_NCACHES 4
static const struct { const char *var, *folder; pgf_id fig; } pg_caches[PG_NCACHES] = {
    { "CUDA_CACHE_PATH", "cuda", PGF_CACHE_CUDA }, { "TRITON_CACHE_DIR", "triton", PGF_CACHE_TRITON },
    { "TORCHINDUCTOR_CACHE_DIR", "inductor", PGF_CACHE_INDUCTOR },
    { "CUPY_CACHE_DIR", "cupy", PGF_CACHE_CUPY },
};

/* A side: a setting (a variable's value, a cache state, a command), run
 * under the probe or bare. */
typedef struct pg_side {
    char key[40];           /* "lazy", "eager", "cold", "a", a value; "bare.<key>" */
    char label[48];         /* "LAZY", "cold", "A", the value as given; "<label> bare" */
    char setting[48];       /* the label without " bare": the verdicts' words */
    char set[CLI_PATH_MAX + 160]; /* "NAME=VALUE" this side sets, "" when none */
    const char *mode;       /* CUDA_MODULE_LOADING's value, NULL: not set by the side */
    const char *const *cmd; /* its command's words */
    const char *path;       /* its command, found */
    int cache;              /* --jit-cache: 1 cold (fresh caches each run), 0 warm, -1 none */
    char cache_dir[512];    /* warm: the caches kept over its runs ("" when none) */
    int probed;
    int traced;             /* its spans were drawn once */
} pg_side;

/* One kernel's first uses over the runs of a side. */
typedef struct pg_kernel {
    char name[512];         /* the probe keeps 511 bytes of a name */
    double *ms, *get, *launch;
    size_t n, cap;
    size_t runs;            /* the runs it came in (a name can come several
                               times a run: bursts of loads, two processes) */
    int last_run;
} pg_kernel;

/* The NVML sampler of one run: every PGF_SAMPLE_MS, the device memory of the
 * processes of the run's tree (ptree.h), per process and in all. */
typedef struct pg_sampler {
    pthread_t th;
    atomic_int pgid, stop;
    long pid[PG_MAX_PROCS * 4];
    double peak[PG_MAX_PROCS * 4];
    size_t npid;
    double peak_sum;        /* -1: no process of the run seen */
    int nvml;               /* 1: sample the device memory (NVML answers) */
    regex_t *ready;         /* --ready's expression, or NULL */
    const char *path[2];    /* the run's stdout and stderr files */
    long off[2];            /* how far each was read (whole lines) */
    atomic_llong ready_ns;  /* CLOCK_MONOTONIC when a line first matched, 0: none yet */
} pg_sampler;

typedef struct pg_state {
    sec_ctx *c;
    pg_side side[PG_MAX_SIDES];
    size_t nsides;
    size_t nsettings;       /* the first nsettings sides are probed (or, without a
                               probe, bare); then the same settings bare */
    int round;              /* the rounds taken */
    int warmups;            /* warm-up runs taken */
    vd_looks looks;         /* the plan of looks at the headline verdicts */
    double alpha;           /* the level every verdict is judged at */
    char stop[200];         /* why the rounds stopped */
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
    int cache_written[PG_NCACHES]; /* --jit-cache: 1 once a run left files in that cache */
    int nlooks, nlooks_calling; /* looks taken at the headline verdicts; those of them
                               that could call a difference (alpha > 0) */
    int look_pairs, look_calls; /* headline verdicts judged over the looks, and those
                               that called a difference */
    int nvml_runs;          /* probed runs whose processes NVML saw on a device */
    char cupti_why[256];    /* the first such record's reason */
    char bus[32];           /* the first record's device (env "device"), "" none */
    pg_sampler smp;
    regex_t ready_re;       /* --ready, compiled (ready_on) */
    int ready_on;
    int ready_runs, ready_matched; /* probed runs that exited 0; those whose line matched */
    int mark_matched, mark_runs;   /* those where an NVTX mark matched; where marks were seen */
    pg_kernel ready_kern[PG_MAX_SIDES][PG_MAX_KERNELS]; /* first uses after ready: stall,
                               ms after ready, 0 */
    size_t nready[PG_MAX_SIDES];
    pg_kernel tune[PG_MAX_SIDES][PG_MAX_KERNELS]; /* first launch, a later one's mean, 0 */
    size_t ntune[PG_MAX_SIDES];
    pg_kernel conc[PG_MAX_SIDES][PG_MAX_KERNELS]; /* first uses beside busy streams: the busy
                               streams, ms after the spawn, 0 */
    size_t nconc[PG_MAX_SIDES];
    pg_kernel worst[PG_MAX_SIDES][PG_MAX_KERNELS]; /* what each run's worst stall after ready
                               was: its stall, 0, 0 (a name once a run) */
    size_t nworst[PG_MAX_SIDES];
    double tight_free[PG_MAX_SIDES], tight_took[PG_MAX_SIDES]; /* the tightest load after the
                               first kernel over the side's runs (tight_seen) */
    char tight_name[PG_MAX_SIDES][128];
    int tight_seen[PG_MAX_SIDES];
    pgs_state sq;           /* --squeeze: the margins, the search, the failed calls */
    int tries;              /* --squeeze=auto: runs of the search taken */
} pg_state;

/* What a run is for: unmeasured (warm-up), measured (a round), or one of
 * --squeeze=auto's search (its figures not kept; that it exited non-zero
 * is the search's answer, not a failure). */
typedef enum pg_kind { PG_WARMUP, PG_MEASURED, PG_TRY } pg_kind;

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

/* The directory of the program's output claimed by pg_claim_output ("":
 * none, a temporary one is made), and whether the claim was made. */
static char pg_claimed[4096];
static int pg_claim_done;

int pg_claim_output(const cli_opts *o)
{
    struct stat st;
    const char *opt = o->program_output ? "--program-output" : "--json";
    int fd;

    pg_claim_done = 1;
    pg_claimed[0] = '\0';
    if (o->program_output)
        snprintf(pg_claimed, sizeof pg_claimed, "%s", o->program_output);
    else if (o->json && strcmp(o->json, "-") != 0 &&
             (stat(o->json, &st) == 0 ? S_ISREG(st.st_mode) : errno == ENOENT))
        snprintf(pg_claimed, sizeof pg_claimed, "%s.program", o->json);
    else
        return 0;   /* none, stdout, /dev/null, a FIFO: nothing beside it */
    if (mkdir(pg_claimed, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "harness: %s=%s: cannot make %s: %s\n", opt,
                o->program_output ? o->program_output : o->json, pg_claimed, strerror(errno));
        return -1;
    }
    /* Held until the process ends (SIGKILL included: the kernel drops it),
     * never handed to the program (close-on-exec). */
    if ((fd = open(pg_claimed, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        fprintf(stderr, "harness: %s=%s: %s %s\n", opt, o->program_output ? o->program_output : o->json,
                pg_claimed, e == EWOULDBLOCK ? "is in use by another harness run (it holds a lock on "
                "it): the two programs' output would mix there; give this run another --json or "
                "--program-output" : strerror(e));
        if (fd >= 0) close(fd);
        return -1;
    }
    return 0;
}

/* Where the program's output goes: the directory pg_claim_output claimed,
 * else a temporary directory removed at the end. */
static int pg_output_dir(pg_state *s, char *why, size_t whylen)
{
    if (!pg_claim_done && pg_claim_output(s->c->o) != 0) {
        snprintf(why, whylen, "the program's output directory could not be claimed (said above)");
        return -1;
    }
    if (pg_claimed[0]) {
        snprintf(s->outdir, sizeof s->outdir, "%s", pg_claimed);
        return 0;
    }
    s->outdir_tmp = 1;
    return pr_mkdtemp("program-output", s->outdir, sizeof s->outdir, why, whylen);
}

/* A value as a key: lower case, letters, digits, '-' and '_' kept, others
 * '_', at most 16; "empty" for none. */
static void pg_value_key(const char *v, char *key, size_t len)
{
    size_t i, n = 0;
    for (i = 0; v[i] && n + 1 < len && n < 16; i++) {
        unsigned char ch = (unsigned char)v[i];
        key[n++] = isalnum(ch) ? (char)tolower(ch) : ch == '-' ? '-' : '_';
    }
    key[n] = '\0';
    if (!n) snprintf(key, len, "empty");
}

/* 1 when key is taken by one of the first n sides. */
static int pg_key_taken(const pg_state *s, size_t n, const char *key)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(s->side[i].key, key) == 0) return 1;
    return 0;
}

/* Setting i of the comparison asked for (or the one side without) into d:
 * its key, label, what it sets, its command. */
static void pg_plan_setting(pg_state *s, size_t i, pg_side *d)
{
    const cli_opts *o = s->c->o;
    const char *mode = o->loading == CLI_LOAD_DEFAULT ? NULL : cli_loading_name(o->loading);
    char key[32];
    size_t k;

    d->cmd = o->cmd;
    d->path = o->cmd_path;
    d->cache = -1;
    d->mode = mode;
    switch (o->compare) {
    case CLI_CMP_NONE:
        snprintf(key, sizeof key, "%s", mode ? mode : "default");
        pg_value_key(key, d->key, sizeof d->key);
        snprintf(d->label, sizeof d->label, "%s", mode ? mode : "as set");
        break;
    case CLI_CMP_LOADING: case CLI_CMP_ENV:
        pg_value_key(o->setting[i], key, sizeof key);
        for (k = 2; pg_key_taken(s, i, key); k++) {
            char base[32];
            pg_value_key(o->setting[i], base, sizeof base);
            snprintf(key, sizeof key, "%.16s-%zu", base, k);
        }
        snprintf(d->key, sizeof d->key, "%s", key);
        snprintf(d->label, sizeof d->label, "%.36s", o->setting[i]);
        for (k = 0; d->label[k]; k++)
            if (iscntrl((unsigned char)d->label[k])) d->label[k] = '?';
        for (k = 0; k < i; k++)
            if (strcmp(o->setting[k], o->setting[i]) == 0) {
                size_t at = strlen(d->label);
                snprintf(d->label + at, sizeof d->label - at, " (%zu)", i + 1);
                break;
            }
        snprintf(d->set, sizeof d->set, "%s=%s", o->setting_name, o->setting[i]);
        if (strcmp(o->setting_name, "CUDA_MODULE_LOADING") == 0) d->mode = o->setting[i];
        break;
    case CLI_CMP_JIT_CACHE:
        snprintf(d->key, sizeof d->key, "%s", o->setting[i]);
        snprintf(d->label, sizeof d->label, "%s", o->setting[i]);
        d->cache = strcmp(o->setting[i], "cold") == 0;
        break;
    case CLI_CMP_COMMANDS:
        snprintf(d->key, sizeof d->key, "%c", (char)('a' + i));
        snprintf(d->label, sizeof d->label, "%c", (char)('A' + i));
        d->cmd = o->cmds[i];
        d->path = o->cmd_paths[i];
        break;
    }
    if (d->mode && !d->set[0]) snprintf(d->set, sizeof d->set, "CUDA_MODULE_LOADING=%s", d->mode);
}

/* The sides: each setting probed (where the probe is), then each bare. */
static void pg_plan_sides(pg_state *s)
{
    const cli_opts *o = s->c->o;
    size_t n = o->compare == CLI_CMP_NONE ? 1 : o->nsettings, i, bare;

    s->nsettings = n;
    for (bare = s->probe[0] ? 0 : 1; bare < 2; bare++)
        for (i = 0; i < n; i++) {
            pg_side *d = &s->side[s->nsides++];
            pg_plan_setting(s, i, d);
            memcpy(d->setting, d->label, sizeof d->setting);
            d->probed = !bare;
            if (bare) {
                char k[sizeof d->key], l[sizeof d->label];
                snprintf(k, sizeof k, "%s", d->key);
                snprintf(l, sizeof l, "%s", d->label);
                snprintf(d->key, sizeof d->key, "bare.%.30s", k);
                snprintf(d->label, sizeof d->label, "%.40s bare", l);
            }
        }
}

/* ------------------------------------------------------------ sampler --- */

/* --ready: the new whole lines of the run's stdout and stderr matched
 * against the expression; the first match stamps ready_ns. A line longer
 * than the buffer is taken in parts. */
static void pg_ready_poll(pg_sampler *m)
{
    char buf[65536];
    size_t i;
    for (i = 0; i < 2 && !atomic_load(&m->ready_ns); i++) {
        /* The program can replace its output files: no link followed, no
         * wait on a FIFO, a regular file only. */
        int fd = m->path[i] ? open(m->path[i], O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) : -1;
        struct stat st;
        ssize_t got;
        char *p, *nl;
        if (fd < 0) continue;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            continue;
        }
        got = pread(fd, buf, sizeof buf - 1, (off_t)m->off[i]);
        close(fd);
        if (got <= 0) continue;
        buf[got] = '\0';
        for (p = buf;;) {
            nl = memchr(p, '\n', (size_t)(buf + got - p));
            if (!nl) {
                /* A line longer than the buffer: matched in parts. */
                if (p == buf && got == (ssize_t)sizeof buf - 1) {
                    if (regexec(m->ready, p, 0, NULL, 0) == 0) atomic_store(&m->ready_ns, clk_now_ns());
                    m->off[i] += got;
                }
                break;
            }
            *nl = '\0';
            if (regexec(m->ready, p, 0, NULL, 0) == 0) {
                atomic_store(&m->ready_ns, clk_now_ns());
                return;
            }
            m->off[i] += nl + 1 - p;
            p = nl + 1;
        }
    }
}

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
        if (m->ready && !atomic_load(&m->ready_ns)) pg_ready_poll(m);
        if (m->nvml && g > 0 && nv_processes(got, sizeof got / sizeof got[0], &n, why, sizeof why) == 0) {
            for (i = 0; i < n; i++) {
                if (!pt_known(got[i].pid)) continue;
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
        usleep(PGF_SAMPLE_MS * 1000);
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
    atomic_store(&m->ready_ns, 0);
    m->nvml = s->nvml;
    m->ready = s->ready_on ? &s->ready_re : NULL;
    m->off[0] = m->off[1] = 0;
    if (!s->nvml && !m->ready) return 0;
    return pthread_create(&m->th, NULL, pg_sample_loop, m) == 0 ? 1 : 0;
}

static void pg_sampler_stop(pg_sampler *m, int started)
{
    atomic_store(&m->stop, 1);
    if (started) pthread_join(m->th, NULL);
}

/* ------------------------------------------------------------ records --- */

/* A record's figure, or NaN. */
static double pg_fig(const prc_record *rec, prc_fig_id f)
{
    const res_meas *m = res_find(&rec->r, PRC_SECTION, prc_figs[f].key);
    return m ? m->samples[0] : NAN;
}

/* What pg_read_records hands recdir.c for each file it refuses. */
typedef struct pg_refusal {
    pg_state *s;
    const char *what;
} pg_refusal;

static void pg_refuse(void *arg, long pid, const char *why)
{
    pg_refusal *f = arg;
    char detail[600];
    snprintf(detail, sizeof detail, "process %ld: %s", pid, why);
    res_check_add(f->s->c->r, PG, f->what, 0, detail);
    f->s->refused++;
}

/* Read every "<pid>.rec" of dir into recs (at most max; sorted), as
 * recdir.h says; a record refused, or one past max, is a failed check
 * naming the run, the process and why. */
static size_t pg_read_records(pg_state *s, const char *dir, const char *what, prc_record *recs,
                              size_t max)
{
    pg_refusal f = { s, what };
    rd_result got;
    char said[300];
    int refused = s->refused;

    if (rd_read(dir, recs, max, pt_known, pg_refuse, &f, &got, said, sizeof said) != 0) {
        res_check_add(s->c->r, PG, what, 0, said);
        s->refused++;
        return 0;
    }
    if (got.over) {
        snprintf(said, sizeof said, "%zu records, %zu read: a run may have at most %zu CUDA "
                 "processes (docs/program.md); the figures would undercount", got.found - got.refused,
                 got.read, max);
        res_check_add(s->c->r, PG, what, 0, said);
        s->refused++;
    }
    if (s->refused == refused) {
        snprintf(said, sizeof said, "%zu record%s read", got.read, got.read == 1 ? "" : "s");
        res_check_add(s->c->r, PG, what, 1, said);
    }
    return got.read;
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

/* One more sample of the run-level figure id, as "<prefix><key>". */
static void pg_put_run(pg_state *s, const char *prefix, pgf_id id, double v)
{
    const pgf_fig *f = &pgf_figs[id];
    pg_put(s, prefix, f->key, f->name, f->region, f->unit, v);
}

/* The earliest of figure f over the run's records; NaN when none has it. */
static double pg_earliest(const prc_record *recs, size_t n, prc_fig_id f)
{
    double v = NAN;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = pg_fig(&recs[i], f);
        if (!isnan(x) && (isnan(v) || x < v)) v = x;
    }
    return v;
}

/* The figures on the clock inside the process (from the probe's load:
 * the program's own start before cuInit left out), and the host time spent
 * making code ready. */
static void pg_put_inside(pg_state *s, const char *prefix, const prc_record *recs, size_t n)
{
    static const prc_fig_id code[] = { PRC_F_MODULE_LOAD_MS, PRC_F_LIBRARY_LOAD_MS,
                                       PRC_F_GET_FUNCTION_MS, PRC_F_GET_KERNEL_MS,
                                       PRC_F_KERNEL_FUNCTION_MS, PRC_F_FUNC_LOAD_MS,
                                       PRC_F_LAUNCH_FIRST_MS };
    double probe = pg_earliest(recs, n, PRC_F_AT_PROBE), sum = NAN;
    size_t i, k;

    pg_put_run(s, prefix, PGF_IN_CONTEXT, pg_earliest(recs, n, PRC_F_AT_CONTEXT) - probe);
    pg_put_run(s, prefix, PGF_IN_FIRST_KERNEL, pg_earliest(recs, n, PRC_F_AT_FIRST_KERNEL) - probe);
    for (i = 0; i < n; i++)
        for (k = 0; k < sizeof code / sizeof code[0]; k++) {
            double x = pg_fig(&recs[i], code[k]);
            if (!isnan(x)) sum = isnan(sum) ? x : sum + x;
        }
    if (n && isnan(sum) && !isnan(pg_fig(&recs[0], PRC_F_LAUNCH_FIRST_N))) sum = 0;
    pg_put_run(s, prefix, PGF_CODE_MS, sum);
}

/* The run's figures from its records: "at." the earliest, the others
 * summed; then each process's own where the run had several. */
static void pg_put_records(pg_state *s, const pg_side *sd, const prc_record *recs, size_t n)
{
    char prefix[64], region[600];
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    pg_put_run(s, prefix, PGF_PROCESSES, (double)n);
    pg_put_inside(s, prefix, recs, n);
    for (j = 0; j < PRC_NFIGS; j++) {
        const prc_fig *f = &prc_figs[j];
        int at = strncmp(f->key, "at.", 3) == 0;
        double v = NAN;
        for (i = 0; i < n; i++) {
            double x = pg_fig(&recs[i], (prc_fig_id)j);
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
                   pg_fig(&recs[i], (prc_fig_id)j));
        snprintf(env, sizeof env, "program_proc%zu_command", i + 1);
        if (!res_env_get(s->c->r, env) && cmd && cmd->kind == RES_STR) res_env_str(s->c->r, env, cmd->str);
    }
}

/* The run's device memory peaks from the sampler: in all, and per process
 * where the run had several. */
static void pg_put_memory(pg_state *s, const pg_side *sd, const prc_record *recs, size_t n)
{
    const pgf_fig *f = &pgf_figs[PGF_MEM_PEAK];
    char prefix[64];
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    if (s->smp.peak_sum >= 0) pg_put_run(s, prefix, PGF_MEM_PEAK, s->smp.peak_sum);
    if (n < 2) return;
    for (i = 0; i < n && i < PG_MAX_PROCS; i++)
        for (j = 0; j < s->smp.npid; j++)
            if (s->smp.pid[j] == recs[i].pid) {
                snprintf(prefix, sizeof prefix, "proc%zu.%s.", i + 1, sd->key);
                pg_put(s, prefix, f->key, f->name, PGF_PROC_PEAK_REGION, f->unit, s->smp.peak[j]);
            }
}

/* One more sample (x, y, z) of the kernel name in kern[0..*n) (added
 * when new, while there is room), from measured run number run (1, 2,
 * ...). Returns 0, or -1 when it was not kept. */
static int pg_kernel_add(pg_kernel *kern, size_t *n, int run, const char *name, double x, double y,
                         double z)
{
    pg_kernel *kn = NULL;
    size_t k;
    for (k = 0; k < *n && !kn; k++)
        if (strcmp(kern[k].name, name) == 0) kn = &kern[k];
    if (!kn && *n < PG_MAX_KERNELS) {
        kn = &kern[(*n)++];
        snprintf(kn->name, sizeof kn->name, "%s", name);
    }
    if (!kn) return -1;
    if (kn->n == kn->cap) {
        size_t cap = kn->cap ? kn->cap * 2 : 8;
        double *a = realloc(kn->ms, cap * sizeof *a), *b, *c;
        if (a) kn->ms = a;
        b = a ? realloc(kn->get, cap * sizeof *b) : NULL;
        if (b) kn->get = b;
        c = b ? realloc(kn->launch, cap * sizeof *c) : NULL;
        if (!c) return -1;
        kn->launch = c;
        kn->cap = cap;
    }
    kn->ms[kn->n] = x;
    kn->get[kn->n] = y;
    kn->launch[kn->n++] = z;
    if (kn->last_run != run) kn->runs++;
    kn->last_run = run;
    return 0;
}

/* The slowest first uses of the records, gathered by kernel name. */
static void pg_gather_kernels(pg_state *s, size_t si, const prc_record *recs, size_t n)
{
    size_t i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < recs[i].r.nd; j++) {
            const res_derived *d = &recs[i].r.d[j];
            if (strncmp(d->key, "slowest.", 8) != 0) continue;
            pg_kernel_add(s->kern[si], &s->nkern[si], s->runs, d->name, d->value,
                          res_derived_num(d, "get_ms"), res_derived_num(d, "launch_ms"));
        }
}

/* The moment the run was ready, ms after the spawn: the earlier of
 * --ready's line (ready_ns, 0: none) and its NVTX mark (mark, the records'
 * earliest at.ready_mark; NaN: none) where either matched, else the first
 * kernel plus --ready-after; NaN when none is known. */
static double pg_ready_at(const pg_state *s, long long ready_ns, long long t0_ns, double mark,
                          double first)
{
    double line = ready_ns > 0 ? (double)(ready_ns - t0_ns) / 1e6 : NAN;
    if (!isnan(line) || !isnan(mark)) return fmin(line, mark);     /* fmin: the one that is there */
    return first + s->c->o->ready_after * 1e3;
}

/* One more stall ms of what after ready: *worst the largest so far, name
 * (len bytes) what it was (the first one's until a larger comes). */
static void pg_note_worst(double *worst, char *name, size_t len, double ms, const char *what)
{
    if (ms > *worst || !name[0]) snprintf(name, len, "%s", what);
    *worst = fmax(*worst, ms);
}

/* The first uses after ready (each kernel's stall and when it came), the
 * tightest load after the first kernel, and the kernels whose first launch
 * is many times their later ones, from a run's records. */
static void pg_put_uses(pg_state *s, const pg_side *sd, size_t si, const prc_record *recs, size_t n,
                        long long ready_ns, long long t0_ns)
{
    double first = pg_earliest(recs, n, PRC_F_AT_FIRST_KERNEL), mark = pg_earliest(recs, n, PRC_F_AT_READY_MARK);
    double ready = pg_ready_at(s, ready_ns, t0_ns, mark, first);
    double uses = 0, stall = 0, worst = 0, tight = INFINITY, took = NAN, conc = 0;
    int asked = 0;
    char prefix[64], tname[128] = "", wname[512] = "";
    size_t i, j;

    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    s->ready_runs++;
    if (ready_ns > 0) s->ready_matched++;
    if (!isnan(mark)) s->mark_matched++;
    if (!isnan(mark) || pg_earliest(recs, n, PRC_F_MARKS_N) > 0) s->mark_runs++;
    for (i = 0; i < n; i++)
        for (j = 0; j < recs[i].r.nd; j++) {
            const res_derived *d = &recs[i].r.d[j];
            const res_kv *mode = res_env_get(&recs[i].r, "loading_mode");
            int lazy = mode && mode->kind == RES_STR && mode->str && strcmp(mode->str, "LAZY") == 0;
            int use = strncmp(d->key, "use.", 4) == 0, load = strncmp(d->key, "load.", 5) == 0;
            double free_mib = res_derived_num(d, "free_mib");
            if (use) {
                double g = res_derived_num(d, "get_ms"), l = res_derived_num(d, "launch_ms");
                double ln = res_derived_num(d, "later_n"), lm = res_derived_num(d, "later_ms");
                if (!isnan(ready) && d->value > ready) {
                    uses++;
                    stall += g + l;
                    pg_note_worst(&worst, wname, sizeof wname, g + l, d->name);
                    pg_kernel_add(s->ready_kern[si], &s->nready[si], s->runs, d->name, g + l,
                                  d->value - ready, 0);
                }
                if (ln >= 1) pg_kernel_add(s->tune[si], &s->ntune[si], s->runs, d->name, l, lm / ln, 0);
                /* Under LAZY only: there a first use loads its kernel. */
                if (lazy && !isnan(res_derived_num(d, "busy"))) asked = 1;
                if (lazy && res_derived_num(d, "busy") > 0 && !isnan(first) && d->value >= first) {
                    conc++;
                    pg_kernel_add(s->conc[si], &s->nconc[si], s->runs, d->name, res_derived_num(d, "busy"),
                                  d->value, 0);
                }
            }
            if (load && !isnan(ready) && d->value > ready) {
                /* The burst's span where the record has it (the work around
                 * the loads stalls the program too), else its loads' time. */
                double ms = !isnan(res_derived_num(d, "span_ms")) ? res_derived_num(d, "span_ms")
                                                                   : res_derived_num(d, "ms");
                const char *what = strcmp(d->name, "library") == 0 ? "(library loads)" : "(module loads)";
                stall += ms;
                pg_note_worst(&worst, wname, sizeof wname, ms, what);
                pg_kernel_add(s->ready_kern[si], &s->nready[si], s->runs, what, ms, d->value - ready, 0);
            }
            if ((use || load) && !isnan(free_mib) && !isnan(first) && d->value >= first && free_mib < tight) {
                tight = free_mib;
                took = res_derived_num(d, "took_mib");
                if (use) dm_table_name(d->name, 60, tname, sizeof tname);
                else snprintf(tname, sizeof tname, "%s", strcmp(d->name, "library") == 0
                              ? "library loads" : "module loads");
            }
        }
    if (!isnan(ready)) {
        pg_put_run(s, prefix, PGF_READY_AT, ready);
        pg_put_run(s, prefix, PGF_READY_USES, uses);
        pg_put_run(s, prefix, PGF_READY_STALL, stall);
        pg_put_run(s, prefix, PGF_READY_WORST, worst);
        if (wname[0]) pg_kernel_add(s->worst[si], &s->nworst[si], s->runs, wname, worst, 0, 0);
    }
    if (asked) pg_put_run(s, prefix, PGF_CONCURRENT, conc);
    if (isfinite(tight)) {
        pg_put_run(s, prefix, PGF_HEADROOM, tight);
        if (!s->tight_seen[si] || tight < s->tight_free[si]) {
            s->tight_seen[si] = 1;
            s->tight_free[si] = tight;
            s->tight_took[si] = took;
            snprintf(s->tight_name[si], sizeof s->tight_name[si], "%s", tname);
        }
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

/* 1 when the user's environment names an NVTX tool of its own. */
static int pg_user_nvtx(void)
{
    const char *v = getenv("NVTX_INJECTION64_PATH");
    return v && *v;
}

/* The environment of a run: the side's setting, its caches under
 * cache_root (NULL: none), the probe and its settings on a probed side,
 * none of the probe's on a bare one. */
#define PG_NENV (1 + PG_NCACHES + 6)    /* the setting, the caches, the probe's six at most */
static size_t pg_env(const pg_state *s, const pg_side *sd, const char *recdir,
                     const char *cache_root, int spans, char buf[][4200], const char **env)
{
    size_t n = 0, i;
    if (sd->set[0]) snprintf(buf[n++], 4200, "%.4199s", sd->set);
    for (i = 0; cache_root && i < PG_NCACHES; i++)
        snprintf(buf[n++], 4200, "%s=%s/%s", pg_caches[i].var, cache_root, pg_caches[i].folder);
    if (sd->probed && s->probe[0]) {
        snprintf(buf[n++], 4200, "CUDA_INJECTION64_PATH=%s", s->probe);
        snprintf(buf[n++], 4200, PRC_ENV_DIR "=%s", recdir);
        if (s->cupti[0]) snprintf(buf[n++], 4200, PRC_ENV_CUPTI "=%s", s->cupti);
        if (spans) snprintf(buf[n++], 4200, PRC_ENV_SPANS "=%d", PG_TRACE_SPANS);
        /* --ready: the probe is the program's NVTX tool too (src/probe/marks.h),
         * unless the user named another (nsys, say): theirs is kept. */
        if (s->ready_on && !pg_user_nvtx()) {
            snprintf(buf[n++], 4200, "NVTX_INJECTION64_PATH=%s", s->probe);
            snprintf(buf[n++], 4200, PRC_ENV_READY "=%.4000s", s->c->o->ready);
        }
    } else {
        snprintf(buf[n++], 4200, PRC_ENV_DIR);
        snprintf(buf[n++], 4200, PRC_ENV_READY);
        if (s->probe[0]) {
            const char *inj = getenv("CUDA_INJECTION64_PATH");
            if (inj && strcmp(inj, s->probe) == 0) snprintf(buf[n++], 4200, "CUDA_INJECTION64_PATH");
        }
    }
    for (i = 0; i < n; i++) env[i] = buf[i];
    return n;
}

/* What became of the run (named name: "run 3 (LAZY, round 2)", "warm-up
 * run 1 (EAGER)"), into how; as a check (not for a search's run: its exit
 * is the answer); 1 when it exited 0. Processes of its tree that were
 * still there at its end (killed: proc.h) are said on stderr and are a
 * failed check of their own. */
static int pg_outcome(pg_state *s, const char *name, const char *what, const pr_program *p,
                      pg_kind kind, double margin, char *how, size_t howlen)
{
    char detail[400], left[900];
    int ok = !p->timed_out && p->signal == 0 && p->exit_code == 0;
    if (p->timed_out)
        snprintf(how, howlen, "ran past --child-timeout=%.0f s; its process group was killed",
                 s->c->o->child_timeout);
    else if (p->signal)
        snprintf(how, howlen, "killed by signal %d (%s)", p->signal, strsignal(p->signal));
    else
        snprintf(how, howlen, "exited with %d", p->exit_code);
    if (margin >= 0)
        snprintf(detail, sizeof detail, "%s, with all but %.0f MiB of device 0's free memory held "
                 "(--squeeze)", how, margin);
    else
        snprintf(detail, sizeof detail, "%s", how);
    if (kind != PG_TRY) res_check_add(s->c->r, PG, what, ok, detail);
    if (p->overflow)
        fprintf(stderr, "harness: " PG ": %s: more than %d processes: the later ones were not "
                "kept, and their records are refused\n", name, PT_MAX);
    if (p->stragglers) {
        snprintf(left, sizeof left, "%d process%s of the program still running %s %s killed "
                 "(SIGKILL): %s", p->stragglers, p->stragglers == 1 ? "" : "es",
                 p->timed_out ? "at the time limit" : "2 s after its main process exited",
                 p->stragglers == 1 ? "was" : "were", p->straggler_names);
        fprintf(stderr, "harness: " PG ": %s: %s\n", name, left);
        snprintf(detail, sizeof detail, "%s: no process of the program outlived it", name);
        res_check_add(s->c->r, PG, detail, 0, left);
    }
    return ok;
}

/* sh -c cmd in the side's setting (--prepare, --cleanup), its output into
 * the output directory as <tag>.out and .err. Returns 1 when it exited 0;
 * else 0 with what became of it in why. */
static int pg_shell(pg_state *s, const pg_side *sd, const char *cmd, const char *tag, char *why,
                    size_t whylen)
{
    const char *argv[4] = { "sh", "-c", cmd, NULL };
    const char *env[1] = { sd->set };
    char out[4300], err[4300];
    pr_program p;

    snprintf(out, sizeof out, "%s/%s.out", s->outdir, tag);
    snprintf(err, sizeof err, "%s/%s.err", s->outdir, tag);
    if (pr_run_program("/bin/sh", argv, env, sd->set[0] ? 1 : 0, NULL, out, err,
                       s->c->o->child_timeout, NULL, NULL, &p, why, whylen) != 0)
        return 0;
    if (!p.timed_out && p.signal == 0 && p.exit_code == 0) return 1;
    if (p.timed_out) snprintf(why, whylen, "ran past --child-timeout=%.0f s", s->c->o->child_timeout);
    else if (p.signal) snprintf(why, whylen, "was killed by signal %d (%s)", p.signal, strsignal(p.signal));
    else snprintf(why, whylen, "exited with %d", p.exit_code);
    return 0;
}

/* Bytes of the regular files under a tree, for pg_tree_mib (nftw). */
static _Thread_local double pg_tree_bytes;
static int pg_tree_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (flag == FTW_F && S_ISREG(st->st_mode)) pg_tree_bytes += (double)st->st_size;
    return 0;
}

/* MiB of the regular files under path (no link followed); -1 when it is
 * not there. */
static double pg_tree_mib(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return -1;
    pg_tree_bytes = 0;
    if (nftw(path, pg_tree_add, 16, FTW_PHYS) != 0) return -1;
    return pg_tree_bytes / 1048576.0;
}

/* Each cache's size after a run ("cache.<folder>", MiB), and which of
 * them the program wrote. */
static void pg_put_caches(pg_state *s, const pg_side *sd, const char *root)
{
    char prefix[64], dir[4300];
    size_t i;
    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    for (i = 0; i < PG_NCACHES; i++) {
        double mib;
        snprintf(dir, sizeof dir, "%s/%s", root, pg_caches[i].folder);
        mib = pg_tree_mib(dir);
        pg_put_run(s, prefix, pg_caches[i].fig, mib < 0 ? 0 : mib);
        if (mib > 0) s->cache_written[i] = 1;
    }
}

/* The names of a run: in words into name ("run 3 (LAZY, round 2)"), its
 * check's into what, its output files' tag into tag. Returns its number
 * (of its kind). */
static int pg_name_run(pg_state *s, const pg_side *sd, int round, pg_kind kind, double margin,
                       char *name, size_t nlen, char *what, size_t wlen, char *tag, size_t tlen)
{
    int n = kind == PG_MEASURED ? ++s->runs : kind == PG_WARMUP ? ++s->warmups : ++s->tries;
    if (kind == PG_MEASURED)
        snprintf(name, nlen, "run %d (%s, round %d)", n, sd->label, round + 1);
    else if (kind == PG_WARMUP)
        snprintf(name, nlen, "warm-up run %d (%s)", n, sd->label);
    else
        snprintf(name, nlen, "--squeeze=auto run %d (%s, margin %.0f MiB)", n, sd->label, margin);
    snprintf(what, wlen, "%s: the program exited 0", name);
    snprintf(tag, tlen, "%s%02d-%s", kind == PG_MEASURED ? "run" : kind == PG_WARMUP ? "warmup"
             : "squeeze", n, sd->key);
    return n;
}

/* --prepare before a run, in the side's setting. Returns 1 when it exited
 * 0; else 0, the run not started (a failed check, said on stderr). */
static int pg_prepare(pg_state *s, const pg_side *sd, const char *what, const char *tag)
{
    char t[80], why[512], detail[700];
    snprintf(t, sizeof t, "%s.prepare", tag);
    if (pg_shell(s, sd, s->c->o->prepare, t, why, sizeof why)) return 1;
    snprintf(detail, sizeof detail, "--prepare %s; the run was not started", why);
    res_check_add(s->c->r, PG, what, 0, detail);
    fprintf(stderr, "harness: " PG ": %.100s: --prepare %s\n", what, why);
    return 0;
}

/* --squeeze: a holder of all device 0's free memory but margin MiB
 * started before the run, in the side's setting (squeeze_holder.h). Returns 0,
 * or -1 when it could not hold (a failed check naming it, said on stderr:
 * the run is not started). */
static int pg_hold(pg_state *s, const pg_side *sd, const char *name, double margin, sq_holder *h)
{
    const char *env[1] = { sd->set };
    char why[600], detail[900], check[300];
    if (sq_start(margin, env, sd->set[0] ? 1 : 0, s->c->o->child_timeout, h, why, sizeof why) == 0)
        return 0;
    snprintf(detail, sizeof detail, "the memory holder of --squeeze=%.0f could not hold device 0's "
             "memory: %s; the run was not started", margin, why);
    snprintf(check, sizeof check, "%.160s: the memory holder held through it", name);
    res_check_add(s->c->r, PG, check, 0, detail);
    fprintf(stderr, "harness: " PG ": %.160s: %s\n", name, detail);
    sg_check();
    return -1;
}

/* --squeeze, after the run: the holder held through it (what it held into
 * *kept), and is released; where it ended during the run, the run fails
 * (a failed check naming the holder, one line on stderr, what became of it
 * into how). Returns 1 when it held throughout. */
static int pg_unhold(pg_state *s, const char *name, double margin, sq_holder *h, sq_held *kept,
                     char *how, size_t howlen)
{
    char why[300], detail[900], check[300];
    int pid = h->pid, alive = sq_alive(h, why, sizeof why);

    *kept = h->held;
    sq_release(h);
    if (alive) return 1;
    snprintf(how, howlen, "the memory holder of --squeeze ended during the run (%s)", why);
    snprintf(detail, sizeof detail, "the memory holder of --squeeze=%.0f (pid %d) ended during the "
             "run (%s): the margin was not held, so the run counts as failed; the driver took its "
             "memory back", margin, pid, why);
    snprintf(check, sizeof check, "%.160s: the memory holder held through it", name);
    res_check_add(s->c->r, PG, check, 0, detail);
    fprintf(stderr, "harness: " PG ": %.160s: %s\n", name, detail);
    return 0;
}

/* A measured run's figures (it exited 0): from the parent's clock, the
 * sampler, the caches and, on a probed side, its records. */
static void pg_keep_figures(pg_state *s, pg_side *sd, const pr_program *p, const char *cache_root,
                            const prc_record *recs, size_t nrec)
{
    size_t si = (size_t)(sd - s->side);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", sd->key);
    pg_put_run(s, prefix, PGF_WALL, p->ms);
    pg_put_run(s, prefix, PGF_CPU, p->cpu_ms);
    pg_put_run(s, prefix, PGF_RSS_MAIN, p->rss_mib);
    pg_put_memory(s, sd, recs, nrec);
    if (cache_root) pg_put_caches(s, sd, cache_root);
    if (sd->probed && s->probe[0]) {
        pg_put_records(s, sd, recs, nrec);
        pg_gather_kernels(s, si, recs, nrec);
        pg_put_uses(s, sd, si, recs, nrec, (long long)atomic_load(&s->smp.ready_ns), p->t0_ns);
        pg_tally_modes(s, si, recs, nrec);
        if (nrec) s->with_record++;
    }
}

/* One run of side sd: the --prepare command, the holder of --squeeze
 * (margin >= 0), spawn, wait, read its records, store its figures (a
 * measured run's; a warm-up's and a search's dropped), what it came to
 * noted for --squeeze. Returns 0 (the run failed or not), or -1 when it
 * could not be started. */
static int pg_one(pg_state *s, pg_side *sd, int round, pg_kind kind, double margin)
{
    const cli_opts *o = s->c->o;
    char recdir[512] = "", cold[512] = "", name[160], what[200], why[512], out[4300], err[4300];
    char how[400] = "";
    char envbuf[PG_NENV][4200], tag[64];
    const char *env[PG_NENV], *cache_root = NULL;
    prc_record recs[PG_MAX_PROCS * 4];
    size_t nenv, nrec = 0, si = (size_t)(sd - s->side), i;
    int started, ok, spans, n, held = 1, measured = kind == PG_MEASURED;
    sq_holder holder;
    sq_held kept;
    pr_program p;

    memset(&kept, 0, sizeof kept);
    n = pg_name_run(s, sd, round, kind, margin, name, sizeof name, what, sizeof what, tag, sizeof tag);
    if (o->prepare && !pg_prepare(s, sd, what, tag)) {
        if (measured) s->failed++;
        return 0;
    }
    if (sd->probed && s->probe[0] && pr_mkdtemp("program", recdir, sizeof recdir, why, sizeof why) != 0) {
        fprintf(stderr, "harness: " PG ": %s\n", why);
        return -1;
    }
    if (sd->cache == 1) {
        if (pr_mkdtemp("jit-cold", cold, sizeof cold, why, sizeof why) != 0) {
            fprintf(stderr, "harness: " PG ": %s\n", why);
            if (recdir[0]) pr_rmtree(recdir);
            return -1;
        }
        cache_root = cold;
    } else if (sd->cache == 0) {
        cache_root = sd->cache_dir;
    }
    if (margin >= 0 && pg_hold(s, sd, name, margin, &holder) != 0) {
        if (recdir[0]) pr_rmtree(recdir);
        if (cold[0]) pr_rmtree(cold);
        if (kind != PG_WARMUP) {
            s->failed++;
            pgs_note_run(&s->sq, si, margin, NULL, 0, "its holder could not hold", NULL, 0);
        }
        return 0;
    }
    spans = measured && o->trace && sd->probed && !sd->traced;
    nenv = pg_env(s, sd, recdir, cache_root, spans, envbuf, env);
    snprintf(out, sizeof out, "%s/%s.out", s->outdir, tag);
    snprintf(err, sizeof err, "%s/%s.err", s->outdir, tag);
    if (measured && n == 1) {
        res_env_str(s->c->r, "program_first_stdout", out);
        res_env_str(s->c->r, "program_first_stderr", err);
    }
    ph_set(what);
    s->smp.path[0] = out;
    s->smp.path[1] = err;
    started = pg_sampler_start(s);
    if (pr_run_program(sd->path, sd->cmd, env, nenv, sd->probed ? PRC_ENV_T0 : NULL, out, err,
                       o->child_timeout, pg_spawned, &s->smp, &p, why, sizeof why) != 0) {
        pg_sampler_stop(&s->smp, started);
        fprintf(stderr, "harness: " PG ": %s\n", why);
        if (margin >= 0) sq_release(&holder);
        if (recdir[0]) pr_rmtree(recdir);
        if (cold[0]) pr_rmtree(cold);
        return -1;
    }
    pg_sampler_stop(&s->smp, started);
    /* A ready line written just before the exit, not polled yet. */
    if (s->ready_on && !atomic_load(&s->smp.ready_ns)) pg_ready_poll(&s->smp);
    ok = pg_outcome(s, name, what, &p, kind, margin, how, sizeof how);
    if (margin >= 0 && !(held = pg_unhold(s, name, margin, &holder, &kept, how, sizeof how))) ok = 0;
    if (sd->probed && s->smp.peak_sum >= 0) s->nvml_runs++;
    if (recdir[0]) {
        snprintf(what, sizeof what, "%s: every CUDA process's record read", name);
        nrec = pg_read_records(s, recdir, what, recs, sizeof recs / sizeof recs[0]);
        pr_rmtree(recdir);
    }
    if (!ok && (measured || !held)) s->failed++;
    if (ok && measured) pg_keep_figures(s, sd, &p, cache_root, recs, nrec);
    if (margin >= 0 && kind != PG_WARMUP)
        pgs_note_run(&s->sq, si, margin, held ? &kept : NULL, ok, how, recs, nrec);
    if (cold[0]) pr_rmtree(cold);
    if (spans && nrec) {
        pg_trace(sd, p.t0_ns, recs, nrec);
        sd->traced = 1;
    }
    for (i = 0; i < nrec; i++) prc_free(&recs[i]);
    return 0;
}

/* ----------------------------------------------------------- settings --- */

/* NULL-terminated words as one line, into buf. */
static void pg_command_words(const char *const *w, char *buf, size_t len)
{
    size_t i, at = 0;
    buf[0] = '\0';
    for (i = 0; w[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", w[i]);
}

/* The command as one line of words, into buf (with --compare, each
 * command, the separator between them). */
static void pg_command_line(const cli_opts *o, char *buf, size_t len)
{
    size_t i, at = 0;
    buf[0] = '\0';
    if (o->compare != CLI_CMP_COMMANDS) {
        pg_command_words(o->cmd, buf, len);
        return;
    }
    for (i = 0; i < o->nsettings && at < len; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s", i ? (o->vs_word ? " " : " --vs ") : "");
        if (i && o->vs_word && at < len) at += (size_t)snprintf(buf + at, len - at, "%s ", o->vs_word);
        if (at < len) pg_command_words(o->cmds[i], buf + at, len - at);
        at += strlen(buf + at);
    }
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
    /* cli_parse compiled it once already: it cannot fail here but for memory. */
    if (o->ready && regcomp(&s->ready_re, o->ready, REG_EXTENDED | REG_NOSUB) == 0) s->ready_on = 1;
    res_env_str(r, "program_ready", o->ready);
    res_env_num(r, "program_ready_after_s", o->ready_after);
    res_env_str(r, "program_ready_marks", !s->ready_on || !s->probe[0] ? "none: no --ready, or no probe"
                : pg_user_nvtx() ? "none: NVTX_INJECTION64_PATH is the user's" : "NVTX marks, through the probe");
    if (s->ready_on && s->probe[0] && pg_user_nvtx())
        fprintf(stderr, "harness: " PG ": NVTX_INJECTION64_PATH=%s is set: --ready matches the "
                "program's lines only, not its NVTX marks\n", getenv("NVTX_INJECTION64_PATH"));
    return 0;
}

/* ----------------------------------------------------------- concluding --- */

/* The key of figure fk's verdict, setting i against setting 0: with two
 * settings "compare.<bare.>fk", with more "compare.<key of i>.fk". */
static void pg_compare_key(const pg_state *s, size_t side, const char *fk, char *buf, size_t len)
{
    if (s->nsettings == 2) snprintf(buf, len, "compare.%s%s", s->side[side].probed ? "" : "bare.", fk);
    else snprintf(buf, len, "compare.%s.%s", s->side[side].key, fk);
}

/* The samples of "<prefix><side>.<fk>", NULL when absent. */
static const res_meas *pg_side_meas(const pg_state *s, const char *prefix, const pg_side *sd,
                                    const char *fk)
{
    char k[160];
    snprintf(k, sizeof k, "%s%s.%s", prefix, sd->key, fk);
    return res_find(s->c->r, PG, k);
}

/* Every later setting against the first (EAGER against LAZY, warm against
 * cold, B against A), figure by figure, probed and bare, at level alpha;
 * with two settings, each process too. */
static void pg_compare_sides(pg_state *s, double alpha)
{
    results *r = s->c->r;
    char key[160], name[300], prefix[32];
    size_t i, j, f, group;

    for (group = 0; group < s->nsides; group += s->nsettings)
        for (i = 1; i < s->nsettings; i++) {
            size_t ai = group + i, bi = group;
            const pg_side *a = &s->side[ai], *b = &s->side[bi];
            for (f = 0; f < PGF_N + PRC_NFIGS; f++) {
                const char *fk = f < PGF_N ? pgf_figs[f].key : prc_figs[f - PGF_N].key;
                const res_meas *ma = pg_side_meas(s, "", a, fk), *mb = pg_side_meas(s, "", b, fk);
                vd_result v;
                if (!ma || !mb) continue;
                /* Bare sides beside probed ones run the first --rounds only: a
                 * count fixed in advance, one look at VD_ALPHA. */
                vd_judge_at(ma->samples, ma->nsamples, mb->samples, mb->nsamples, a->setting,
                            b->setting, s->c->o->threshold, 0.0, group && s->probe[0] ? VD_ALPHA : alpha,
                            &v);
                pg_compare_key(s, ai, fk, key, sizeof key);
                snprintf(name, sizeof name, "%s against %s, %s: the U test's p", a->label, b->label, fk);
                vd_store(r, PG, key, name, &v, a->setting, b->setting, s->c->o->threshold);
            }
        }
    if (s->nsettings != 2) return;
    for (j = 1; j <= PG_MAX_PROCS; j++)
        for (f = 0; f < PGF_N + PRC_NFIGS; f++) {
            const char *fk = f < PGF_N ? pgf_figs[f].key : prc_figs[f - PGF_N].key;
            const res_meas *ma, *mb;
            vd_result v;
            snprintf(prefix, sizeof prefix, "proc%zu.", j);
            ma = pg_side_meas(s, prefix, &s->side[1], fk);
            mb = pg_side_meas(s, prefix, &s->side[0], fk);
            if (!ma || !mb) continue;
            vd_judge_at(ma->samples, ma->nsamples, mb->samples, mb->nsamples, s->side[1].label,
                        s->side[0].label, s->c->o->threshold, 0.0, alpha, &v);
            snprintf(key, sizeof key, "compare.proc%zu.%s", j, fk);
            snprintf(name, sizeof name, "process %zu, %s against %s, %s", j, s->side[1].label,
                     s->side[0].label, fk);
            vd_store(r, PG, key, name, &v, s->side[1].label, s->side[0].label, s->c->o->threshold);
        }
}

/* The headline figures: those the setting acts on, on the clock inside
 * the process where the probe was loaded; --jit-cache adds the time spent
 * making code ready (where a JIT is paid), --compare the whole process.
 * Into key[], the count returned. */
static size_t pg_headline(const pg_state *s, const char **key)
{
    size_t n = 0;
    const cli_compare c = s->c->o->compare;
    if (s->probe[0] && pg_side_meas(s, "", &s->side[0], PGF_KEY(IN_FIRST_KERNEL))) {
        key[n++] = PGF_KEY(IN_FIRST_KERNEL);
        key[n++] = PGF_KEY(IN_CONTEXT);
        if (c == CLI_CMP_JIT_CACHE) key[n++] = PGF_KEY(CODE_MS);
    }
    if (!n || c == CLI_CMP_COMMANDS) key[n++] = PGF_KEY(WALL);
    return n;
}

/* A look at the headline verdicts after a round, at level alpha (0: this
 * look calls nothing). Counts the look, the verdicts judged and the
 * differences called. Returns 1 when every one is decided: a difference
 * called, or no difference. */
static int pg_look(pg_state *s, double alpha)
{
    const char *key[4];
    size_t nk = pg_headline(s, key), i, k;
    int decided = 1;

    s->nlooks++;
    if (alpha > 0) s->nlooks_calling++;
    for (i = 1; i < s->nsettings; i++)
        for (k = 0; k < nk; k++) {
            const res_meas *a = pg_side_meas(s, "", &s->side[i], key[k]);
            const res_meas *b = pg_side_meas(s, "", &s->side[0], key[k]);
            vd_result v;
            if (!a || !b) continue;
            vd_judge_at(a->samples, a->nsamples, b->samples, b->nsamples, s->side[i].label,
                        s->side[0].label, s->c->o->threshold, 0.0, alpha, &v);
            s->look_pairs++;
            s->look_calls += v.called;
            if (!v.called && strcmp(v.text, "no difference") != 0) decided = 0;
        }
    return decided;
}

/* The probe's own cost per mode: bare against probed, on the whole
 * process and the device memory peak; pct_of_bare the difference as a
 * share of the bare median. */
static void pg_probe_cost(pg_state *s)
{
    results *r = s->c->r;
    size_t i, f;

    for (i = 0; i < s->nsides; i++) {
        const pg_side *sd = &s->side[i];
        if (!sd->probed) continue;
        for (f = 0; f < PGF_NCOST; f++) {
            const char *fk = pgf_figs[pgf_cost[f]].key;
            char kb[128], kp[128], key[128], name[200];
            const res_meas *b, *p;
            res_derived *d;
            vd_result v;
            snprintf(kp, sizeof kp, "%s.%s", sd->key, fk);
            snprintf(kb, sizeof kb, "bare.%s.%s", sd->key, fk);
            if (!(b = res_find(r, PG, kb)) || !(p = res_find(r, PG, kp))) continue;
            vd_judge(b->samples, b->nsamples, p->samples, p->nsamples, "bare", "probed",
                     0.0, 0.0, &v);
            snprintf(key, sizeof key, PGF_COST_PREFIX "%s.%s", sd->key, fk);
            snprintf(name, sizeof name, "the probe's cost, %s, %s: probed median less bare", sd->label,
                     fk);
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

/* Side si's kernels kern[0..n) ranked by their median ms over the runs
 * they were in, slowest first: the first max as derived entries of
 * declaration what ("<what>.<side key>.<rank>": name the symbol, text the
 * name demangled, value the median over its samples), with fields runs
 * (the runs it came in), times (its samples) and, where named,
 * get_field and launch_field (the medians of each kernel's get and
 * launch samples). */
static void pg_rank(pg_state *s, size_t si, const pg_kernel *kern, size_t n, enum pgf_derived_id what,
                    size_t max, const char *get_field, const char *launch_field)
{
    double order[PG_MAX_KERNELS][2];
    size_t k;
    for (k = 0; k < n; k++) {
        order[k][0] = st_median(kern[k].ms, kern[k].n);
        order[k][1] = (double)k;
    }
    qsort(order, n, sizeof order[0], pg_kernel_cmp);
    for (k = 0; k < n && k < max; k++) {
        const pg_kernel *kn = &kern[(size_t)order[k][1]];
        char key[96], full[4096];
        res_derived *d;
        pgf_rank_key(what, s->side[si].key, k + 1, key, sizeof key);
        dm_demangle(kn->name, full, sizeof full);
        d = sch_derive(s->c->r, PG, &pgf_derived[what], key, kn->name, order[k][0], full);
        if (!d) continue;
        res_derived_field(d, "runs", (double)kn->runs);
        res_derived_field(d, "times", (double)kn->n);
        if (get_field) res_derived_field(d, get_field, st_median(kn->get, kn->n));
        if (launch_field) res_derived_field(d, launch_field, st_median(kn->launch, kn->n));
    }
}

/* The slowest first uses of each probed side: each kernel's median over
 * the runs it appeared in, the PRC_SLOWEST slowest. */
static void pg_slowest(pg_state *s)
{
    size_t si;
    for (si = 0; si < s->nsides; si++)
        pg_rank(s, si, s->kern[si], s->nkern[si], PGF_D_SLOWEST, PRC_SLOWEST, "get_ms", "launch_ms");
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

/* Store answer id (key the pattern filled in, or NULL for the declared key). */
static void pg_answer(pg_state *s, enum pgf_derived_id id, const char *key, double value,
                      const char *text)
{
    sch_derive(s->c->r, PG, &pgf_derived[id], key, NULL, value, text);
}

/* A figure's medians over the settings, "LAZY 360 ms, EAGER 3800 ms", into t. */
static size_t pg_medians(const pg_state *s, const char *fk, const char *unit, char *t, size_t len)
{
    size_t i, at = 0;
    t[0] = '\0';
    for (i = 0; i < s->nsettings && at < len; i++) {
        double m = pg_med(s->c->r, s->side[i].key, fk);
        if (isnan(m))
            at += (size_t)snprintf(t + at, len - at, "%s%s none, no run exited 0", i ? ", " : "",
                                   s->side[i].label);
        else
            at += (size_t)snprintf(t + at, len - at, "%s%s %.0f %s", i ? ", " : "", s->side[i].label,
                                   m, unit);
    }
    return at;
}

/* The verdicts of figure fk, each later setting against the first, into t. */
static void pg_verdicts(const pg_state *s, const char *fk, char *t, size_t len)
{
    size_t i, at = 0;
    t[0] = '\0';
    for (i = 1; i < s->nsettings && at < len; i++) {
        char key[160];
        const res_derived *d;
        pg_compare_key(s, i, fk, key, sizeof key);
        d = res_derived_find(s->c->r, PG, key);
        at += (size_t)snprintf(t + at, len - at, "%s%s%s", at ? "; " : "",
                               s->nsettings > 2 ? s->side[i].label : "", d ? "" : "no verdict");
        if (d) at += (size_t)snprintf(t + at, len - at, "%s%s", s->nsettings > 2 ? ": " : "", d->text);
    }
}

/* The headline in words: the first kernel on the clock inside the process,
 * then from the spawn; with --compare, the whole process first. */
static void pg_answer_headline(pg_state *s)
{
    char t[2000], med[400], v[400], med2[400], v2[400];
    if (s->nsettings < 2 || s->c->o->squeeze_auto) return;
    if (!isnan(pg_med(s->c->r, s->side[0].key, PGF_KEY(IN_FIRST_KERNEL)))) {
        pg_medians(s, PGF_KEY(IN_FIRST_KERNEL), "ms", med, sizeof med);
        pg_verdicts(s, PGF_KEY(IN_FIRST_KERNEL), v, sizeof v);
        pg_medians(s, PRC_KEY(AT_FIRST_KERNEL), "ms", med2, sizeof med2);
        pg_verdicts(s, PRC_KEY(AT_FIRST_KERNEL), v2, sizeof v2);
        const res_derived *d;
        char key[160], who[200] = "";
        pg_compare_key(s, 1, PGF_KEY(IN_FIRST_KERNEL), key, sizeof key);
        d = s->nsettings == 2 ? res_derived_find(s->c->r, PG, key) : NULL;
        if (d && strstr(d->text, " higher")) {
            /* diff: the first side's median less the second's. */
            int second_sooner = res_derived_num(d, "diff") > 0;
            snprintf(who, sizeof who, " %s reached its first kernel sooner%s.",
                     s->side[second_sooner ? 1 : 0].label,
                     s->c->o->compare == CLI_CMP_LOADING && !second_sooner ? ": EAGER loads every "
                     "module up front" : "");
        }
        snprintf(t, sizeof t, "Before the first kernel, inside the process (from cuInit, where the "
                 "setting acts): %s (medians; %s).%s From the spawn, which adds the program's own "
                 "start: %s (%s).", med, v, who, med2, v2);
        pg_answer(s, PGF_D_COLD_START, NULL,
                  pg_med(s->c->r, s->side[1].key, PGF_KEY(IN_FIRST_KERNEL)) -
                  pg_med(s->c->r, s->side[0].key, PGF_KEY(IN_FIRST_KERNEL)), t);
    }
    if (s->c->o->compare == CLI_CMP_COMMANDS || isnan(pg_med(s->c->r, s->side[0].key, PGF_KEY(IN_FIRST_KERNEL)))) {
        pg_medians(s, PGF_KEY(WALL), "ms", med, sizeof med);
        pg_verdicts(s, PGF_KEY(WALL), v, sizeof v);
        snprintf(t, sizeof t, "The whole process, from the spawn to its exit: %s (medians; %s).", med, v);
        pg_answer(s, PGF_D_WALL, NULL, pg_med(s->c->r, s->side[1].key, PGF_KEY(WALL)) -
                  pg_med(s->c->r, s->side[0].key, PGF_KEY(WALL)), t);
    }
}

/* --jit-cache: the PTX compiled, the time making code ready, and each
 * cache: written or not, its size. */
static void pg_answer_jit(pg_state *s)
{
    char t[2400], med[400], v[400];
    size_t i, at;
    double ptx = 0;
    int any = 0;
    for (i = 0; i < s->nsettings; i++) {
        double x = pg_med(s->c->r, s->side[i].key, PRC_KEY(PTX_N));
        if (!isnan(x)) ptx = fmax(ptx, x);
    }
    for (i = 0; i < PG_NCACHES; i++) any |= s->cache_written[i];
    if (ptx == 0 && !any) {
        pg_answer(s, PGF_D_JIT, NULL, 0, "No PTX was compiled and no "
                  "cache was written: the cache cannot matter for this program.");
        return;
    }
    pg_medians(s, PGF_KEY(CODE_MS), "ms", med, sizeof med);
    pg_verdicts(s, PGF_KEY(CODE_MS), v, sizeof v);
    at = (size_t)snprintf(t, sizeof t, "JIT: %.0f image%s of PTX handed to the driver a run (median, "
                          "the most of the sides)%s; ", ptx, ptx == 1 ? "" : "s",
                          ptx == 0 ? " (no PTX was compiled by the driver: its cache cannot matter)" : "");
    if (ptx > 0 && at < sizeof t) {
        char pm[400], pv[400];
        pg_medians(s, PRC_KEY(PTX_MS), "ms", pm, sizeof pm);
        pg_verdicts(s, PRC_KEY(PTX_MS), pv, sizeof pv);
        at += (size_t)snprintf(t + at, sizeof t - at, "their loads took %s (%s); ", pm, pv);
    }
    if (at < sizeof t)
        at += (size_t)snprintf(t + at, sizeof t - at, "all loads, gets and first launches took %s "
                               "(medians; %s). Caches written: ", med, v);
    for (i = 0; i < PG_NCACHES && at < sizeof t; i++) {
        const char *k = pgf_figs[pg_caches[i].fig].key;
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %s", i ? ", " : "", pg_caches[i].var,
                               s->cache_written[i] ? "" : "none");
        if (s->cache_written[i] && at < sizeof t)
            at += (size_t)snprintf(t + at, sizeof t - at, "%.3g MiB",
                                   fmax(pg_med(s->c->r, s->side[0].key, k), pg_med(s->c->r,
                                        s->side[s->nsettings - 1].key, k)));
    }
    if (at < sizeof t) snprintf(t + at, sizeof t - at, " (the largest median after a run).");
    pg_answer(s, PGF_D_JIT, NULL, ptx, t);
}

/* The first uses after ready per probed side: each kernel's median stall
 * over the runs it was in, the slowest PG_READY_LIST as derived
 * "ready.<side>.<rank>" (fields runs, after_ms: its median time after
 * ready). */
#define PG_READY_LIST 20
static void pg_ready_list(pg_state *s)
{
    size_t si;
    for (si = 0; si < s->nsides; si++)
        pg_rank(s, si, s->ready_kern[si], s->nready[si], PGF_D_READY_RANK, PG_READY_LIST, "after_ms", NULL);
}

/* The digits a time in ms is said with in a sentence: two below 1 ms (a
 * first use of 0.04 ms is not "0.0 ms"), one above. */
static int pg_ms_digits(double ms)
{
    return fabs(ms) < 1.0 ? 2 : 1;
}

/* Drops the spaces a sentence built piece by piece ends with. */
static void pg_trim_end(char *t)
{
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == ' ') t[--n] = '\0';
}

/* The entry of kern[0..n) that came in the most runs (the first of
 * those tied), or NULL when n is 0. */
static const pg_kernel *pg_most_runs(const pg_kernel *kern, size_t n)
{
    const pg_kernel *best = NULL;
    size_t k;
    for (k = 0; k < n; k++)
        if (!best || kern[k].runs > best->runs) best = &kern[k];
    return best;
}

/* The first uses after ready in words, per probed side: the count, the
 * stalls summed and the worst of a run (medians over the runs, as the
 * table's ready.* rows), and what was the worst in the most runs. */
static void pg_answer_ready(pg_state *s)
{
    char t[2400];
    size_t i, at;
    const cli_opts *o = s->c->o;
    if (!s->ready_runs) return;
    if (o->ready && s->ready_matched == 0 && s->mark_matched == 0)
        at = (size_t)snprintf(t, sizeof t, "No line or NVTX mark matched --ready=%s; first uses are "
                              "counted from the first kernel%s%s. ", o->ready,
                              o->ready_after > 0 ? " plus --ready-after" : "",
                              s->mark_runs ? "" : " (no run made an NVTX mark the probe saw)");
    else if (o->ready && s->mark_matched == 0)
        at = (size_t)snprintf(t, sizeof t, "Ready: a line matched --ready=%s in %d of %d runs. ",
                              o->ready, s->ready_matched, s->ready_runs);
    else if (o->ready && s->ready_matched == 0)
        at = (size_t)snprintf(t, sizeof t, "Ready: an NVTX mark matched --ready=%s in %d of %d runs. ",
                              o->ready, s->mark_matched, s->ready_runs);
    else if (o->ready)
        at = (size_t)snprintf(t, sizeof t, "Ready: a line matched --ready=%s in %d of %d runs, an NVTX "
                              "mark in %d (the earlier counts). ", o->ready, s->ready_matched,
                              s->ready_runs, s->mark_matched);
    else
        at = (size_t)snprintf(t, sizeof t, "Ready: %s (no --ready line given). ", o->ready_after > 0
                              ? "--ready-after past the first kernel" : "the first kernel");
    for (i = 0; i < s->nsides && at < sizeof t; i++) {
        const pg_side *sd = &s->side[i];
        const pg_kernel *w = pg_most_runs(s->worst[i], s->nworst[i]);
        double u = pg_med(s->c->r, sd->key, PGF_KEY(READY_USES)), st = pg_med(s->c->r, sd->key, PGF_KEY(READY_STALL));
        const res_meas *wm = pg_side_meas(s, "", sd, PGF_KEY(READY_WORST));
        if (!sd->probed || isnan(u)) continue;
        at += (size_t)snprintf(t + at, sizeof t - at, "%s: %.0f first use%s after ready, %.*f ms of "
                               "stalls in all (medians)", sd->label, u, u == 1 ? "" : "s",
                               pg_ms_digits(st), st);
        if (w && wm && at < sizeof t) {
            char name[64];
            dm_table_name(w->name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, ", the worst of a run %.*f ms (%s the worst in "
                                   "%zu of %zu runs)", pg_ms_digits(wm->stats.median), wm->stats.median, name,
                                   w->runs, wm->nsamples);
        }
        if (at < sizeof t) at += (size_t)snprintf(t + at, sizeof t - at, ". ");
    }
    pg_trim_end(t);
    pg_answer(s, PGF_D_READY, NULL, NAN, t);
}

/* The tightest load after the first kernel, per probed side. */
static void pg_answer_headroom(pg_state *s)
{
    char t[1600];
    size_t i, at = 0;
    for (i = 0; i < s->nsides && at < sizeof t; i++) {
        char took[64] = "";
        if (!s->side[i].probed || !s->tight_seen[i]) continue;
        if (!isnan(s->tight_took[i])) snprintf(took, sizeof took, ", took %.0f MiB", s->tight_took[i]);
        at += (size_t)snprintf(t + at, sizeof t - at, "%sunder %s the tightest load after the first "
                               "kernel (%.60s%s) ran with %.0f MiB free (the least over the runs; "
                               "median of each run's least: %.0f MiB)", at ? "; " : "Headroom: ",
                               s->side[i].label, s->tight_name[i], took, s->tight_free[i],
                               pg_med(s->c->r, s->side[i].key, PGF_KEY(HEADROOM)));
    }
    if (at && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ".");
        pg_answer(s, PGF_D_HEADROOM, NULL, NAN, t);
    }
}

/* Kernels whose first launch took many times their later launches: a
 * timer around a first launch (an autotuner's) times the load. */
#define PG_TUNE_FACTOR 10.0
#define PG_TUNE_MIN_MS 1.0
static void pg_answer_tune(pg_state *s)
{
    char t[1600];
    size_t i, k, at = 0, shown = 0;
    for (i = 0; i < s->nsides && at < sizeof t; i++) {
        if (!s->side[i].probed) continue;
        for (k = 0; k < s->ntune[i] && shown < 3 && at < sizeof t; k++) {
            const pg_kernel *kn = &s->tune[i][k];
            double first = st_median(kn->ms, kn->n), later = st_median(kn->get, kn->n);
            char name[64];
            if (!(first >= PG_TUNE_MIN_MS && first >= PG_TUNE_FACTOR * later)) continue;
            dm_table_name(kn->name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s, %s: first launch %.1f ms, later "
                                   "%.3f ms", shown++ ? "; " : "", s->side[i].label, name, first,
                                   later);
        }
    }
    if (shown && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ": a timer around a first launch times the load (preload the "
                 "kernel, or time it after one launch).");
        pg_answer(s, PGF_D_AUTOTUNE, NULL, (double)shown, t);
    }
}

/* First uses that began while another stream had work in flight, per
 * probed side: under LAZY such a first use loads its kernel there, and a
 * load can make the context wait (the CUDA Programming Guide's lazy-loading
 * hazard for kernels meant to run at once). */
static void pg_answer_concurrent(pg_state *s)
{
    char t[1600];
    size_t i, k, at = 0, sides = 0;
    for (i = 0; i < s->nsides && at < sizeof t; i++) {
        double med = pg_med(s->c->r, s->side[i].key, PGF_KEY(CONCURRENT));
        if (!s->side[i].probed || !(med > 0) || !s->nconc[i]) continue;
        at += (size_t)snprintf(t + at, sizeof t - at, "%s%s: %.0f first use%s (median) began while "
                               "another stream had work in flight", sides++ ? "; " : "",
                               s->side[i].label, med, med == 1 ? "" : "s");
        for (k = 0; k < s->nconc[i] && k < 3 && at < sizeof t; k++) {
            char name[64];
            dm_table_name(s->conc[i][k].name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s", k ? ", " : " (", name);
        }
        if (at < sizeof t) at += (size_t)snprintf(t + at, sizeof t - at, "%s)",
                                                  s->nconc[i] > 3 ? ", ..." : "");
    }
    if (sides && at < sizeof t) {
        snprintf(t + at, sizeof t - at, ". Under LAZY a first use loads its kernel, and a load can "
                 "make the context wait: kernels meant to run at the same time can serialize, or "
                 "deadlock where one waits for the other (preload them, or use EAGER).");
        pg_answer(s, PGF_D_CONCURRENT, NULL, NAN, t);
    }
}

/* --preload-list: every kernel first used after ready on a probed side,
 * slowest first (its median stall on the side where it was slowest). */
static int pg_emit_preload(FILE *f, const void *arg)
{
    const pg_state *s = arg;
    size_t i, k;
    fprintf(f, "# harness --preload-list: kernels first used after the program was ready; preload "
           "each (cudaFuncGetAttributes, cuKernelGetFunction) before it is\n"
            "# stall_ms\tside\tsymbol\tdemangled\n");
    for (i = 0; i < s->nsides; i++) {
        if (!s->side[i].probed) continue;
        for (k = 1; k <= PG_READY_LIST; k++) {
            char key[96];
            const res_derived *d;
            pgf_rank_key(PGF_D_READY_RANK, s->side[i].key, k, key, sizeof key);
            if (!(d = res_derived_find(s->c->r, PG, key))) break;
            if (d->name[0] == '(') continue;    /* a load: nothing to preload by name */
            fprintf(f, "%.3f\t%s\t%s\t%s\n", d->value, s->side[i].key, d->name, d->text);
        }
    }
    return ferror(f) ? -1 : 0;
}

static void pg_write_preload(pg_state *s)
{
    const char *path = s->c->o->preload_list;
    if (!path) return;
    if (af_write(path, pg_emit_preload, s) != 0) {
        fprintf(stderr, "harness: " PG ": --preload-list=%s: cannot be written: %s\n", path,
                strerror(errno));
        s->failed++;
        return;
    }
    res_env_str(s->c->r, "program_preload_list", path);
}

/* How many rounds the answer took, and why the rounds stopped. */
static void pg_answer_rounds(pg_state *s)
{
    char t[600];
    const cli_opts *o = s->c->o;
    if (s->nsettings < 2 || o->squeeze_auto) return;
    if (s->looks.looks == 0)
        snprintf(t, sizeof t, "The answer took %d round%s (%d runs; --rounds=%d, --max-rounds=%d): %s. "
                 "No look could call a difference: at %d runs a side the U test cannot reach p < %.2f "
                 "(raise --max-rounds).", s->round, s->round == 1 ? "" : "s", s->runs, o->rounds,
                 o->max_rounds, s->stop, o->max_rounds, VD_ALPHA);
    else
        snprintf(t, sizeof t, "The answer took %d round%s (%d runs; --rounds=%d, --max-rounds=%d): %s. "
                 "Verdicts at p < %.4f: %.2f shared equally (Bonferroni) over the %d look%s after "
                 "rounds %d to %d that could call a difference.", s->round, s->round == 1 ? "" : "s",
                 s->runs, o->rounds, o->max_rounds, s->stop, s->looks.alpha, VD_ALPHA, s->looks.looks,
                 s->looks.looks == 1 ? "" : "s", s->looks.first, o->max_rounds);
    pg_answer(s, PGF_D_ROUNDS, NULL, s->round, t);
}

/* The sentences of a comparison of the modes: where the cold start went,
 * what each mode costs in memory, what LAZY pays later. */
static void pg_answers_modes(pg_state *s)
{
    const results *r = s->c->r;
    char t[1200];
    double me = pg_med(r, "eager", PRC_KEY(MEM_FIRST_KERNEL)), ml = pg_med(r, "lazy", PRC_KEY(MEM_FIRST_KERNEL));
    double pe = pg_med(r, "eager", PGF_KEY(MEM_PEAK)), pl = pg_med(r, "lazy", PGF_KEY(MEM_PEAK));
    double gl = pg_med(r, "lazy", PRC_KEY(KERNEL_FUNCTION_MS)), fl = pg_med(r, "lazy", PRC_KEY(LAUNCH_FIRST_MS));
    double be = pg_med(r, "eager", PRC_KEY(LIBRARY_LOAD_MS)) + pg_med(r, "eager", PRC_KEY(MODULE_LOAD_MS));
    double bl = pg_med(r, "lazy", PRC_KEY(LIBRARY_LOAD_MS)) + pg_med(r, "lazy", PRC_KEY(MODULE_LOAD_MS));

    if (!isnan(be) && !isnan(bl)) {
        snprintf(t, sizeof t, "Module and library loads took %.0f ms under EAGER and %.0f ms "
                 "under LAZY (host time inside the calls, medians).", be, bl);
        pg_answer(s, PGF_D_LOADS, NULL, bl - be, t);
    }
    if (!isnan(pe) && !isnan(pl)) {
        snprintf(t, sizeof t, "Device memory: EAGER %.0f MiB at its peak, LAZY %.0f MiB (%s)%s%s.",
                 pe, pl, pg_verdict(r, PGF_KEY(MEM_PEAK)), !isnan(me) && !isnan(ml) ? "; at the first kernel " : "",
                 "");
        if (!isnan(me) && !isnan(ml))
            snprintf(t + strlen(t) - 1, sizeof t - strlen(t) + 1, "EAGER %.0f MiB, LAZY %.0f MiB (%s).",
                     me, ml, pg_verdict(r, PRC_KEY(MEM_FIRST_KERNEL)));
        pg_answer(s, PGF_D_MEMORY, NULL, pe - pl, t);
    }
    if (!isnan(gl) || !isnan(fl)) {
        static const struct { prc_fig_id fig; const char *calls; } later[] = {
            { PRC_F_KERNEL_FUNCTION_MS, "cuKernelGetFunction" },
            { PRC_F_GET_FUNCTION_MS, "cuModuleGetFunction" },
            { PRC_F_FUNC_LOAD_MS, "cuFuncLoad" }, { PRC_F_LAUNCH_FIRST_MS, "first launches" },
        };
        size_t k, shown = 0, at = (size_t)snprintf(t, sizeof t, "What LAZY pays later (host time "
                                                   "inside the calls, medians): ");
        for (k = 0; k < sizeof later / sizeof later[0] && at < sizeof t; k++) {
            double l = pg_med(r, "lazy", prc_figs[later[k].fig].key);
            double e = pg_med(r, "eager", prc_figs[later[k].fig].key);
            char eager[32] = "none";
            if (isnan(l)) continue;
            if (!isnan(e)) snprintf(eager, sizeof eager, "%.2f ms", e);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %.2f ms (EAGER %s)",
                                   shown++ ? ", " : "", later[k].calls, l, eager);
        }
        for (k = 1; k <= 3 && at < sizeof t; k++) {
            char key[64];
            const res_derived *d;
            pgf_rank_key(PGF_D_SLOWEST, "lazy", k, key, sizeof key);
            if (!(d = res_derived_find(r, PG, key))) break;
            char name[64];
            dm_shorten(d->text[0] ? d->text : d->name, 60, name, sizeof name);
            at += (size_t)snprintf(t + at, sizeof t - at, "%s%s %.2f ms", k == 1 ? "; the slowest "
                                   "first uses under LAZY: " : ", ", name, d->value);
        }
        if (at < sizeof t) snprintf(t + at, sizeof t - at, ".");
        pg_answer(s, PGF_D_LATER, NULL, (isnan(gl) ? 0 : gl) + (isnan(fl) ? 0 : fl), t);
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
        const char *side = sd->key;
        sch_fill(key, sizeof key, NULL, pgf_derived[PGF_D_MODE].key, &side, 1);
        if (other)
            snprintf(t, sizeof t, "%s was requested, but %s was in effect in %d of %d CUDA processes "
                     "(cuModuleGetLoadingMode, read inside each).", sd->mode, want ? "LAZY" : "EAGER",
                     other, seen);
        else
            snprintf(t, sizeof t, "%s was in effect in every CUDA process that launched a kernel "
                     "(%d of %d read it; cuModuleGetLoadingMode, inside each).", sd->mode,
                     s->mode_seen[i][want], seen);
        pg_answer(s, PGF_D_MODE, key, (double)other, t);
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
        snprintf(kw, sizeof kw, PGF_COST_PREFIX "%s.%s", s->side[i].key, PGF_KEY(WALL));
        snprintf(km, sizeof km, PGF_COST_PREFIX "%s.%s", s->side[i].key, PGF_KEY(MEM_PEAK));
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
        pg_answer(s, PGF_D_PROBE_COST_ANSWER, NULL, NAN, t);
    }
}

static void pg_conclude(pg_state *s)
{
    char t[600];
    int broken = pgs_conclude(&s->sq, s->c->r);
    if (s->sq.automatic) {
        snprintf(t, sizeof t, "%d of %zu sides' searches ended without a margin (said in the answer)",
                 broken, s->nsettings);
        res_check_add(s->c->r, PG, "--squeeze=auto: every side's search found its smallest margin",
                      broken == 0, broken ? t : "each side ran at a margin and its search ended");
        if (broken) s->failed++;
    }
    if (s->nsettings > 1) pg_compare_sides(s, s->alpha);
    pg_probe_cost(s);
    pg_slowest(s);
    pg_answer_headline(s);
    if (s->c->o->compare == CLI_CMP_LOADING) pg_answers_modes(s);
    if (s->c->o->compare == CLI_CMP_JIT_CACHE) pg_answer_jit(s);
    pg_ready_list(s);
    pg_answer_ready(s);
    pg_answer_headroom(s);
    pg_answer_tune(s);
    pg_answer_concurrent(s);
    pg_write_preload(s);
    pg_answer_rounds(s);
    pg_answer_mode(s);
    pg_answer_cost(s);
    if (s->probe[0] && s->with_record == 0 && s->runs > s->failed && s->nvml_runs) {
        snprintf(t, sizeof t, "The GPU was used without the probe: NVML saw the program's processes "
                 "on a device in %d probed run%s, but none left a record. Likely causes: the program "
                 "set its own CUDA_INJECTION64_PATH or cleared the harness's variables before it "
                 "started a CUDA process; another injection or profiler took the probe's place; or "
                 "the probe could not load (its stderr says why). Only the whole-process time, host "
                 "memory and NVML's device memory are measured.", s->nvml_runs,
                 s->nvml_runs == 1 ? "" : "s");
        pg_answer(s, PGF_D_CUDA, NULL, 1, t);
    } else if (s->probe[0] && s->with_record == 0 && s->runs > s->failed) {
        snprintf(t, sizeof t, "No CUDA process: in no probed run did the driver load the probe (the "
                 "program never called cuInit, or no CUDA driver is there); only its whole-process "
                 "time and host memory are measured.");
        pg_answer(s, PGF_D_CUDA, NULL, 0, t);
    }
    if (s->no_cupti) {
        snprintf(t, sizeof t, "CUPTI did not answer inside %d of %d CUDA processes (the first said: "
                 "%s): their records hold what is measured without callbacks (the probe's load, "
                 "exit, host memory).", s->no_cupti, s->records, s->cupti_why);
        pg_answer(s, PGF_D_CUPTI, NULL, s->no_cupti, t);
    }
    if (s->failed && s->runs) {
        snprintf(t, sizeof t, "%d of %d runs failed (their figures are left out; the rest are "
                 "compared).", s->failed, s->runs);
        pg_answer(s, PGF_D_FAILED, NULL, s->failed, t);
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
        char *buf = NULL, why[300], *shown;
        size_t n = 0;
        int cut = 0;
        if (!kv || kv->kind != RES_STR || !kv->str) continue;
        /* The program can put a FIFO or a link in its place: ufile.h. */
        if (uf_read(AT_FDCWD, kv->str, PG_SHOW_BYTES, &buf, &n, &cut, why, sizeof why) != 0) {
            char said[400];
            snprintf(said, sizeof said, "[not shown: %s: %s]\n", kv->str, why);
            res_env_str(s->c->r, to[i], said);
            continue;
        }
        if (cut && (shown = realloc(buf, n + 64))) {
            buf = shown;
            snprintf(buf + n, 64, "\n[cut at %d bytes]\n", PG_SHOW_BYTES);
        }
        res_env_str(s->c->r, to[i], buf);
        free(buf);
    }
}

/* The samples of kern[0..n) freed. */
static void pg_kernels_free(pg_kernel *kern, size_t n)
{
    size_t k;
    for (k = 0; k < n; k++) {
        free(kern[k].ms);
        free(kern[k].get);
        free(kern[k].launch);
    }
}

static void pg_free(pg_state *s)
{
    size_t i;
    for (i = 0; i < s->nsides; i++)
        if (s->side[i].cache_dir[0]) pr_rmtree(s->side[i].cache_dir);
    for (i = 0; i < PG_MAX_SIDES; i++) {
        pg_kernels_free(s->kern[i], s->nkern[i]);
        pg_kernels_free(s->ready_kern[i], s->nready[i]);
        pg_kernels_free(s->tune[i], s->ntune[i]);
        pg_kernels_free(s->conc[i], s->nconc[i]);
        pg_kernels_free(s->worst[i], s->nworst[i]);
    }
    if (s->ready_on) regfree(&s->ready_re);
    if (s->outdir_tmp && s->outdir[0]) {
        /* The output is not kept: no path in the results names a file gone. */
        pr_rmtree(s->outdir);
        res_env_str(s->c->r, "program_first_stdout", NULL);
        res_env_str(s->c->r, "program_first_stderr", NULL);
    }
}

/* The warm-up runs: --warmup a side, the sides alternating; unmeasured
 * (a --jit-cache warm side's caches are filled here); under --squeeze=MiB
 * at its margin; for --squeeze=auto the settings searched only, nothing
 * held. Returns 0, or -1 when a run could not be started. */
static int pg_warm_up(pg_state *s)
{
    size_t n = s->c->o->squeeze_auto ? s->nsettings : s->nsides, k;
    int w;
    for (w = 0; w < s->c->o->warmup; w++)
        for (k = 0; k < n; k++)
            if (pg_one(s, &s->side[(k + (size_t)w) % n], w, PG_WARMUP, s->c->o->squeeze_mib) != 0)
                return -1;
    return 0;
}

/* --squeeze=auto: each setting's search (setting_squeeze.h), one run a
 * margin, the settings one after the other; then a run of each setting at
 * another's largest failing margin where it was not tried there. Returns
 * 0, or -1 when a run could not be started. */
static int pg_search(pg_state *s)
{
    size_t i;
    double m;
    for (i = 0; i < s->nsettings; i++)
        while ((m = pgs_next(&s->sq, i)) >= 0)
            if (pg_one(s, &s->side[i], 0, PG_TRY, m) != 0) return -1;
    while (pgs_next_cross(&s->sq, &i, &m))
        if (pg_one(s, &s->side[i], 0, PG_TRY, m) != 0) return -1;
    snprintf(s->stop, sizeof s->stop, "the search of --squeeze=auto: %d runs, no measured round",
             s->tries);
    return 0;
}

/* The measured rounds: every side once a round (bare sides in the first
 * --rounds only: the probe's cost), in vd_order's balanced order; from
 * --rounds on, a look at the headline verdicts after each round, until
 * every one is decided, --max-rounds are taken or --max-time is spent.
 * Returns 0, or -1 when a run could not be started. */
static int pg_rounds(pg_state *s)
{
    const cli_opts *o = s->c->o;
    double t0 = clk_now_ms();
    size_t k;

    s->looks = vd_plan_looks(o->rounds, o->max_rounds);
    for (s->round = 0;;) {
        double alpha;
        for (k = 0; k < s->nsides; k++) {
            pg_side *sd = &s->side[vd_order(s->nsides, (size_t)s->round, k)];
            if (!sd->probed && s->probe[0] && s->round >= o->rounds) continue;
            if (pg_one(s, sd, s->round, PG_MEASURED, o->squeeze_mib) != 0) return -1;
        }
        s->round++;
        alpha = s->round >= s->looks.first ? s->looks.alpha : 0.0;
        s->alpha = alpha;
        if (s->round < o->rounds) continue;
        if (s->nsettings < 2) {
            snprintf(s->stop, sizeof s->stop, "--rounds=%d taken", o->rounds);
            break;
        }
        if (pg_look(s, alpha)) {
            snprintf(s->stop, sizeof s->stop, "every headline verdict was decided after round %d",
                     s->round);
            break;
        }
        if (s->round >= o->max_rounds) {
            snprintf(s->stop, sizeof s->stop, "--max-rounds=%d taken with a headline verdict "
                     "undecided", o->max_rounds);
            break;
        }
        if (o->max_time_given && clk_now_ms() - t0 >= o->max_time * 1e3) {
            snprintf(s->stop, sizeof s->stop, "--max-time=%g s spent with a headline verdict "
                     "undecided", o->max_time);
            break;
        }
    }
    return 0;
}

/* --cleanup: after each side's last run, in its setting; a failure is a
 * failed check, named. */
static void pg_clean_up(pg_state *s)
{
    size_t k;
    for (k = 0; k < s->nsides && s->c->o->cleanup; k++) {
        char what[200], why[512], tag[64];
        int ok;
        snprintf(tag, sizeof tag, "cleanup-%s", s->side[k].key);
        ok = pg_shell(s, &s->side[k], s->c->o->cleanup, tag, why, sizeof why);
        snprintf(what, sizeof what, "--cleanup after the runs of %s exited 0", s->side[k].label);
        res_check_add(s->c->r, PG, what, ok, ok ? "exited 0" : why);
        if (!ok) {
            fprintf(stderr, "harness: " PG ": --cleanup after %s: %s\n", s->side[k].label, why);
            s->failed++;
        }
    }
}

/* The environment fields of the sides and the looks (the printer and
 * scripts read them). */
static void pg_env_sides(pg_state *s)
{
    static const char *const kinds[] = { "none", "loading", "env", "jit-cache", "commands" };
    results *r = s->c->r;
    size_t i;
    res_env_str(r, "program_compare", kinds[s->c->o->compare]);
    res_env_str(r, "program_setting", s->c->o->setting_name[0] ? s->c->o->setting_name : NULL);
    res_env_num(r, "program_settings", (double)s->nsettings);
    for (i = 0; i < s->nsides; i++) {
        char k[64], line[4096];
        snprintf(k, sizeof k, "program_side%zu_key", i + 1);
        res_env_str(r, k, s->side[i].key);
        snprintf(k, sizeof k, "program_side%zu_label", i + 1);
        res_env_str(r, k, s->side[i].label);
        if (s->c->o->compare == CLI_CMP_COMMANDS && s->side[i].probed == (s->probe[0] != 0)) {
            snprintf(k, sizeof k, "program_side%zu_command", i + 1);
            pg_command_words(s->side[i].cmd, line, sizeof line);
            res_env_str(r, k, line);
        }
    }
    res_env_num(r, "program_warmup", s->c->o->warmup);
    res_env_num(r, "program_max_rounds", s->c->o->max_rounds);
    res_env_str(r, "program_prepare", s->c->o->prepare);
    res_env_str(r, "program_cleanup", s->c->o->cleanup);
}

/* The environment fields of the rounds taken. */
static void pg_env_rounds(pg_state *s)
{
    results *r = s->c->r;
    res_env_num(r, "program_rounds_taken", s->round);
    res_env_str(r, "program_stop", s->stop);
    res_env_num(r, "program_alpha", s->alpha);
    res_env_num(r, "program_looks_first", s->looks.first);
    res_env_num(r, "program_looks_planned", s->looks.looks);
    res_env_num(r, "program_looks", s->nlooks);
    res_env_num(r, "program_looks_calling", s->nlooks_calling);
    res_env_num(r, "program_look_verdicts", s->look_pairs);
    res_env_num(r, "program_look_calls", s->look_calls);
}

/* The kept caches of --jit-cache's warm sides. Returns 0, or -1 (printed). */
static int pg_warm_caches(pg_state *s)
{
    char why[512];
    size_t i;
    for (i = 0; i < s->nsides; i++)
        if (s->side[i].cache == 0 &&
            pr_mkdtemp("jit-warm", s->side[i].cache_dir, sizeof s->side[i].cache_dir, why, sizeof why) != 0) {
            fprintf(stderr, "harness: " PG ": %s\n", why);
            return -1;
        }
    return 0;
}

/* --squeeze: device 0's memory as a holder that holds nothing finds it
 * (the search's upper bound; --squeeze=MiB above its free memory is a
 * usage error), then the sides handed to setting_squeeze.h. Returns
 * SEC_OK, or SEC_USAGE, SEC_NO_GPU (no driver: the runs are not made) or
 * SEC_FAILED after saying why on stderr. */
static int pg_squeeze_begin(pg_state *s, const char *no_driver)
{
    const cli_opts *o = s->c->o;
    const char *key[PG_MAX_SIDES], *label[PG_MAX_SIDES], *env[1] = { s->side[0].set };
    char why[700];
    sq_holder h;
    sq_held first;
    size_t i;

    if (!o->squeeze_auto && o->squeeze_mib < 0) return SEC_OK;
    if (no_driver) {
        snprintf(why, sizeof why, "--squeeze holds device memory through the CUDA driver, and "
                 "there is none: %s; the program was not run", no_driver);
        sec_skip(s->c, PG, why);
        return SEC_NO_GPU;
    }
    if (sq_start(CLI_SQUEEZE_MAX, env, s->side[0].set[0] ? 1 : 0, o->child_timeout, &h, why,
                 sizeof why) != 0) {
        fprintf(stderr, "harness: " PG ": --squeeze: the memory holder could not start on device "
                "0: %s\n", why);
        res_check_add(s->c->r, PG, "--squeeze: the memory holder started on device 0", 0, why);
        return SEC_FAILED;
    }
    first = h.held;
    sq_release(&h);
    for (i = 0; i < s->nsides; i++) {
        key[i] = s->side[i].key;
        label[i] = s->side[i].label;
    }
    if (pgs_begin(&s->sq, o, key, label, s->nsides, s->nsettings, s->probe[0] != 0, &first, why,
                  sizeof why) != 0) {
        fprintf(stderr, "harness: %s\n", why);
        return SEC_USAGE;
    }
    return SEC_OK;
}

/* The runs: the warm-ups, then the measured rounds, or with
 * --squeeze=auto its search. Returns 0, or -1 when a run could not be
 * started. */
static int pg_runs(pg_state *s)
{
    if (pg_warm_caches(s) != 0 || pg_warm_up(s) != 0) return -1;
    return s->c->o->squeeze_auto ? pg_search(s) : pg_rounds(s);
}

sec_status pg_run(sec_ctx *c)
{
    static pg_state st;
    pg_state *s = &st;
    char why[512];
    int rc = SEC_OK, no_driver;

    memset(s, 0, sizeof *s);
    s->c = c;
    if (pg_setup(s) != 0) return SEC_FAILED;
    pg_env_sides(s);
    no_driver = drv_load(why, sizeof why) != 0;
    if (no_driver) res_env_str(c->r, "program_driver", why);
    if ((rc = pg_squeeze_begin(s, no_driver ? why : NULL)) != SEC_OK) {
        pg_free(s);
        if (rc == SEC_FAILED) c->r->incomplete = 1;
        return rc;
    }
    if (pg_runs(s) != 0) rc = SEC_FAILED;
    pg_clean_up(s);
    pg_env_rounds(s);
    pg_conclude(s);
    pgd_env(c->r, s->bus, s->cupti);
    if (c->o->show_output) pg_keep_output(s);
    pg_free(s);
    /* A failed run or a refused record: the figures are not the whole. */
    if (s->failed || s->refused) c->r->incomplete = 1;
    if (rc != SEC_OK || s->failed || s->refused) return SEC_FAILED;
    if (no_driver) {
        sec_skip(c, PG, "no CUDA device was used: no CUDA driver is there (the program ran; its "
                 "whole-process time and exit status are measured)");
        return SEC_NO_GPU;
    }
    return SEC_OK;
}

/* ------------------------------------------------------------ schema --- */

void pg_schema(sch_out *o)
{
    pgf_schema_figures(o);
    sch_derived(o);
    pgf_schema_derived(o);
    pgs_schema(o);
}
