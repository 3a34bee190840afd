/* sampler.c: the device memory and --ready's lines, watched while a run
 * of the user's program runs (sampler.h). */
#include "sections/program/sampler.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/nvml.h"
#include "os/clock.h"
#include "os/ptree.h"
#include "sections/program/figures.h"

/* --ready: the new whole lines of the run's stdout and stderr matched
 * against the expression; the first match stamps ready_ns. A line longer
 * than the buffer is taken in parts. */
static void pgm_ready_poll(pgm_sampler *m)
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

static void *pgm_loop(void *arg)
{
    pgm_sampler *m = arg;
    nv_sample got[256];
    char why[128];

    while (!atomic_load(&m->stop)) {
        size_t n = 0, i, j;
        pid_t g = (pid_t)atomic_load(&m->pgid);
        double sum = 0;
        int seen = 0;
        if (m->ready && !atomic_load(&m->ready_ns)) pgm_ready_poll(m);
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

void pgm_spawned(int pid, void *arg)
{
    atomic_store(&((pgm_sampler *)arg)->pgid, pid);
}

int pgm_start(pgm_sampler *m, int nvml, regex_t *ready, const char *out, const char *err)
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
    if (!nvml && !ready) return 0;
    return pthread_create(&m->th, NULL, pgm_loop, m) == 0 ? 1 : 0;
}

void pgm_stop(pgm_sampler *m, int started)
{
    atomic_store(&m->stop, 1);
    if (started) pthread_join(m->th, NULL);
    /* A ready line written just before the exit, not polled yet. */
    if (m->ready && !atomic_load(&m->ready_ns)) pgm_ready_poll(m);
}
