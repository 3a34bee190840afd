/* sampler.c: the device memory and --ready's lines, watched while a run
 * of the user's program runs (sampler.h). */
#include "sections/program/sampler.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/nvml.h"
#include "os/clock.h"
#include "os/ptree.h"
#include "os/sig.h"
#include "sections/program/figures.h"

/* The bytes one read takes. */
#define PGM_READ (1024 * 1024)

/* rx's stop: the sampler asked to stop, or a signal pending. */
static int pgm_halt(void *arg)
{
    const pgm_sampler *m = arg;
    return atomic_load(&m->stop) || sg_pending();
}

/* File i seen holding size bytes now: kept where it grew (when the room
 * is full, every other look is dropped, the older ones alike). */
static void pgm_note(pgm_sampler *m, size_t i, long long size)
{
    int n = m->nseen[i], k;
    if (n && m->seen_size[i][n - 1] >= size) return;
    if (n == PGM_SEEN) {
        for (k = 0; k < n / 2; k++) {
            m->seen_ns[i][k] = m->seen_ns[i][2 * k];
            m->seen_size[i][k] = m->seen_size[i][2 * k];
        }
        n /= 2;
    }
    m->seen_ns[i][n] = clk_now_ns();
    m->seen_size[i][n] = size;
    m->nseen[i] = n + 1;
}

/* The first look that saw file i hold at least end bytes; now where none. */
static long long pgm_dated(const pgm_sampler *m, size_t i, long long end)
{
    int k;
    for (k = 0; k < m->nseen[i]; k++)
        if (m->seen_size[i][k] >= end) return m->seen_ns[i][k];
    return clk_now_ns();
}

/* Output file i read from where its scan stopped to its end, the lines
 * matched; the first match stamps ready_ns (pgm_dated). Returns 1 when the
 * file's end was reached, 0 when the scan matched or was stopped (halt).
 * The program can replace its output files: no link followed, no wait on
 * a FIFO, a regular file only (else nothing is read). */
static int pgm_read_file(pgm_sampler *m, size_t i, int (*halt)(void *))
{
    int fd = open(m->path[i], O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC), rc = 0;
    struct stat st;
    ssize_t got;
    size_t used;

    if (fd < 0) return 1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 1;
    }
    pgm_note(m, i, (long long)st.st_size);
    while ((got = pread(fd, m->buf, PGM_READ, (off_t)m->off[i])) > 0) {
        rc = rx_feed(m->scan[i], m->buf, (size_t)got, halt, m->halt_arg ? m->halt_arg : (void *)m, &used);
        m->off[i] += (long long)used;
        if (rc == 1) atomic_store(&m->ready_ns, pgm_dated(m, i, m->off[i]));
        if (rc != 0) break;
        if (fstat(fd, &st) == 0) pgm_note(m, i, (long long)st.st_size);
    }
    close(fd);
    return rc == 0;
}

/* --ready: what stdout and stderr gained, matched; nothing before the
 * program is spawned (pgm_spawned), when its files are made anew: until
 * then they may hold an earlier harness run's output (--program-output,
 * --json's directory). */
static void pgm_ready_poll(pgm_sampler *m, int (*halt)(void *))
{
    size_t i;
    if (atomic_load(&m->pgid) <= 0) return;
    for (i = 0; i < 2 && !atomic_load(&m->ready_ns); i++)
        if (m->path[i] && m->scan[i] && !pgm_read_file(m, i, halt)) return;
}

/* The device memory of the run's processes, as NVML shows it now. */
static void pgm_memory(pgm_sampler *m)
{
    nv_sample got[256];
    char why[128];
    size_t n = 0, i, j;
    double sum = 0;
    int seen = 0;

    if (nv_processes(got, sizeof got / sizeof got[0], &n, why, sizeof why) != 0) return;
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

/* The thread: --ready's output every PGF_READY_MS, NVML's memory every
 * PGF_SAMPLE_MS, until stopped. */
static void *pgm_loop(void *arg)
{
    pgm_sampler *m = arg;
    long long next_mem = 0;

    while (!atomic_load(&m->stop)) {
        long long now = clk_now_ns();
        if (m->ready && !atomic_load(&m->ready_ns)) pgm_ready_poll(m, pgm_halt);
        if (m->nvml && atomic_load(&m->pgid) > 0 && now >= next_mem) {
            pgm_memory(m);
            next_mem = now + PGF_SAMPLE_MS * 1000000LL;
        }
        usleep((m->ready && !atomic_load(&m->ready_ns) ? PGF_READY_MS : PGF_SAMPLE_MS) * 1000);
    }
    return NULL;
}

void pgm_spawned(int pid, void *arg)
{
    atomic_store(&((pgm_sampler *)arg)->pgid, pid);
}

/* The scans and the buffer of --ready, freed. */
static void pgm_free(pgm_sampler *m)
{
    rx_stream_free(m->scan[0]);
    rx_stream_free(m->scan[1]);
    free(m->buf);
    m->scan[0] = m->scan[1] = NULL;
    m->buf = NULL;
}

int pgm_start(pgm_sampler *m, int nvml, const rx_prog *ready, const char *out, const char *err)
{
    memset(m->pid, 0, sizeof m->pid);
    m->npid = 0;
    m->peak_sum = -1;
    atomic_store(&m->pgid, 0);
    atomic_store(&m->stop, 0);
    atomic_store(&m->ready_ns, 0);
    m->nvml = nvml;
    m->ready = ready;
    m->path[0] = out;
    m->path[1] = err;
    m->off[0] = m->off[1] = 0;
    m->nseen[0] = m->nseen[1] = 0;
    m->halt_arg = NULL;
    m->scan[0] = m->scan[1] = NULL;
    m->buf = NULL;
    if (ready && (!(m->scan[0] = rx_stream_new(ready, 1)) || !(m->scan[1] = rx_stream_new(ready, 1)) ||
                  !(m->buf = malloc(PGM_READ)))) {
        pgm_free(m);
        m->ready = NULL;
    }
    if (!nvml && !m->ready) return 0;
    return pthread_create(&m->th, NULL, pgm_loop, m) == 0 ? 1 : 0;
}

/* How long the look after the run may read and match, in ms: a program
 * can leave an output file of any size (a sparse terabyte of zeros). */
#define PGM_LAST_MS 2000

/* rx's stop after the run: a signal pending, or PGM_LAST_MS spent (*arg,
 * the deadline on clk_now_ms's clock). */
static int pgm_last_halt(void *arg)
{
    return sg_pending() || clk_now_ms() > *(const double *)arg;
}

void pgm_stop(pgm_sampler *m, int started)
{
    size_t i;
    atomic_store(&m->stop, 1);
    if (started) pthread_join(m->th, NULL);
    /* What was written since the last look, to the end; then a last line
     * without a newline. */
    if (m->ready && atomic_load(&m->pgid) > 0 && !atomic_load(&m->ready_ns) && !sg_pending()) {
        double until = clk_now_ms() + PGM_LAST_MS;
        m->halt_arg = &until;
        pgm_ready_poll(m, pgm_last_halt);
        m->halt_arg = NULL;
        if (clk_now_ms() > until && !atomic_load(&m->ready_ns))
            fprintf(stderr, "harness: program: --ready: the output left after the run (%lld and %lld "
                    "bytes read of stdout and stderr) was not matched to its end within %d ms\n",
                    m->off[0], m->off[1], PGM_LAST_MS);
        for (i = 0; i < 2 && !atomic_load(&m->ready_ns) && !sg_pending(); i++)
            if (m->scan[i] && rx_end(m->scan[i])) atomic_store(&m->ready_ns, pgm_dated(m, i, m->off[i]));
    }
    pgm_free(m);
}
