/* squeeze_holder.c: the memory holder of --squeeze (squeeze_holder.h): its
 * own life as a child of the harness, and the parent's side: start it,
 * read what it held, watch it, release it. */
#include "sections/program/squeeze_holder.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda/cudadrv.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/proc.h"
#include "os/ptree.h"
#include "os/sig.h"
#include "probe/precord.h"

#define SQ_MIB 1048576.0
#define SQ_MAX_CHUNKS 4096
#define SQ_FD 3                 /* the holder's end of the socket */
#define SQ_LINE 700             /* the longest report line */

/* ------------------------------------------------------- the holder --- */

/* Allocate target bytes: one allocation, or where one fails with
 * CUDA_ERROR_OUT_OF_MEMORY, allocations half as large (down to
 * SQ_MIN_CHUNK_MIB) until target is held or none succeeds. The
 * allocations are kept until the process ends. Returns 0 with the bytes
 * held and the allocations taken, or -1 after drv_report of another error. */
static int sq_allocate(size_t target, size_t *held, size_t *chunks)
{
    static CUdeviceptr ptr[SQ_MAX_CHUNKS];
    size_t chunk = target, min = (size_t)(SQ_MIN_CHUNK_MIB * SQ_MIB);

    *held = *chunks = 0;
    while (target - *held >= min && *chunks < SQ_MAX_CHUNKS) {
        size_t size = chunk < target - *held ? chunk : target - *held;
        CUresult r;
        DRV_CALL(r, drv.cuMemAlloc(&ptr[*chunks], size));
        if (r == CUDA_SUCCESS) {
            *held += size;
            (*chunks)++;
        } else if (r != CUDA_ERROR_OUT_OF_MEMORY) {
            drv_report(r, "drv.cuMemAlloc(&ptr[*chunks], size)", __FILE__, __LINE__);
            return -1;
        } else if (chunk / 2 < min) {
            break;
        } else {
            chunk /= 2;
        }
    }
    return 0;
}

/* The context on device 0, then all its free memory but margin held, into
 * *h. Returns 0, or -1 with the failed call in why. */
static int sq_hold(double margin_mib, sq_held *h, char *why, size_t whylen)
{
    size_t free_b = 0, total_b = 0, left_b = 0, held = 0, chunks = 0, margin;
    CUdevice dev;
    CUcontext ctx;

    ph_set("the memory holder of --squeeze");
    if (drv_load(why, whylen) != 0) return -1;
    CK(drv.cuInit(0));
    CK(drv.cuDeviceGet(&dev, 0));
    CK(drv.cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(drv.cuCtxSetCurrent(ctx));
    CK(drv.cuMemGetInfo(&free_b, &total_b));
    margin = (size_t)(margin_mib * SQ_MIB);
    if (margin < free_b && sq_allocate(free_b - margin, &held, &chunks) != 0) goto fail;
    CK(drv.cuMemGetInfo(&left_b, &total_b));
    h->free_mib = (double)free_b / SQ_MIB;
    h->held_mib = (double)held / SQ_MIB;
    h->left_mib = (double)left_b / SQ_MIB;
    h->total_mib = (double)total_b / SQ_MIB;
    h->chunks = (double)chunks;
    return 0;
fail:
    snprintf(why, whylen, "%s", drv_first_error() ? drv_first_error() : "a driver call failed");
    return -1;
}

/* Write all of s to fd. Returns 0, or -1. */
static int sq_write_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

int sq_hold_child(const cli_opts *o, long long t_main_ns)
{
    char why[SQ_LINE - 16], line[SQ_LINE], c;
    sq_held h;
    ssize_t n;
    int rc;

    (void)t_main_ns;
    memset(&h, 0, sizeof h);
    rc = o->squeeze_mib >= 0 ? sq_hold(o->squeeze_mib, &h, why, sizeof why) : -1;
    if (o->squeeze_mib < 0) snprintf(why, sizeof why, "no --squeeze=MiB given");
    if (rc != 0) {
        /* One line: the error's own newlines become spaces. */
        for (n = 0; why[n]; n++)
            if (why[n] == '\n') why[n] = ' ';
        snprintf(line, sizeof line, "error %s\n", why);
    } else {
        snprintf(line, sizeof line, "held %.17g %.17g %.17g %.17g %.17g\n", h.free_mib, h.held_mib,
                 h.left_mib, h.total_mib, h.chunks);
    }
    if (sq_write_all(SQ_FD, line) != 0 || rc != 0) return 1;
    /* Held until the other end closes (the harness released it, or ended). */
    while ((n = read(SQ_FD, &c, 1)) != 0)
        if (n < 0 && errno != EINTR && errno != EAGAIN) break;
    return 0;
}

/* ------------------------------------------------------- the parent --- */

/* A wait status in words ("exited with 1", "killed by signal 9 (Killed)"). */
static void sq_status(int status, char *why, size_t whylen)
{
    if (WIFSIGNALED(status))
        snprintf(why, whylen, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(why, whylen, "exited with %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Send SIGKILL to the holder, by its pidfd where the kernel has them (never
 * to a pid used again after the tree's reader reaped it). */
static void sq_kill(const sq_holder *h, int pidfd)
{
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        return;
    }
#endif
    (void)pidfd;
    if (h->pid > 0) kill(h->pid, SIGKILL);
}

/* 1 when process pid is stopped by a signal (SIGSTOP, SIGTSTP: state
 * 'T'): it cannot end by itself until continued. A tracing stop ('t') is
 * not one: a tracer holds it for a moment and lets it go (LeakSanitizer
 * stops a process's threads so at its exit, and the holder then ends). */
static int sq_stopped(int pid)
{
    char path[64], buf[512], *close_paren;
    ssize_t n;
    int fd;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return 0;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    if (!(close_paren = strrchr(buf, ')')) || close_paren[1] != ' ') return 0;
    return close_paren[2] == 'T';
}

/* Reap the holder, which has ended or is ending: up to wait_ms, then
 * killed (SIGKILL) and reaped; killed at once where it is stopped (it
 * would wait out wait_ms for nothing) or a signal is pending (the run
 * stops). Its status in words into why; the tree's reader may have reaped
 * it first (pt_spared has its status then). Returns 1 when it was killed
 * (*stopped 1 where it was found stopped), else 0. */
static int sq_reap(sq_holder *h, double wait_ms, char *why, size_t whylen, int *stopped)
{
    double until = clk_now_ms() + wait_ms;
    int status = 0, pidfd = -1, killed = 0;
    struct timespec ms = { 0, 1000000L };

    *stopped = 0;
    pid_t r;

#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
#endif
    for (;;) {
        r = waitpid(h->pid, &status, WNOHANG);
        if (r == h->pid) break;
        if (r < 0 && errno == EINTR) continue;
        if (pt_spared(h->pid, &status)) break;     /* the tree's reader reaped it */
        if (r < 0) {
            snprintf(why, whylen, "ended (its status was not kept)");
            goto out;
        }
        if (!killed && !*stopped) *stopped = sq_stopped(h->pid);
        if (!killed && (clk_now_ms() >= until || *stopped || sg_pending())) {
            sq_kill(h, pidfd);
            killed = 1;
        }
        nanosleep(&ms, NULL);
    }
    sq_status(status, why, whylen);
out:
    if (pidfd >= 0) close(pidfd);
    return killed;
}

/* poll fd and the signal's wake-up descriptor for at most ms; returns
 * what poll returns, *revents fd's. */
static int sq_poll(int fd, int ms, short *revents)
{
    struct pollfd p[2] = { { fd, POLLIN, 0 }, { sg_wake_fd(), POLLIN, 0 } };
    int rc = poll(p, p[1].fd >= 0 ? 2 : 1, ms);
    *revents = p[0].revents;
    return rc;
}

/* Read the holder's one line into line (NUL-terminated, without its
 * newline) within timeout_s. Returns 0; or -1 with why: the holder ended
 * without it (reaped), it took too long, or a signal came (the run then
 * stops at the caller's sg_check). */
static int sq_read_line(sq_holder *h, double timeout_s, char *line, size_t len, char *why,
                        size_t whylen)
{
    double until = clk_now_ms() + timeout_s * 1e3;
    size_t at = 0;
    char said[200];
    int stopped;

    for (;;) {
        double left = until - clk_now_ms();
        short rev = 0;
        ssize_t n;
        if (sg_pending()) {
            snprintf(why, whylen, "a signal came while it started");
            return -1;
        }
        if (left <= 0) {
            snprintf(why, whylen, "it did not say what it held within %.0f s (--child-timeout)", timeout_s);
            return -1;
        }
        if (sq_poll(h->fd, left > 1000 ? 1000 : (int)left + 1, &rev) <= 0 || !rev) continue;
        n = read(h->fd, line + at, len - 1 - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            sq_reap(h, 1000, said, sizeof said, &stopped);
            h->pid = 0;
            snprintf(why, whylen, "it %s before it said what it held", said);
            return -1;
        }
        at += (size_t)n;
        line[at] = '\0';
        if (strchr(line, '\n')) {
            *strchr(line, '\n') = '\0';
            return 0;
        }
        if (at == len - 1) {
            snprintf(why, whylen, "it said more than a line of %zu bytes", len - 1);
            return -1;
        }
    }
}

/* The holder's line: "held" and five figures into h->held, or its error.
 * Returns 0, or -1 with why. */
static int sq_parse(sq_holder *h, const char *line, char *why, size_t whylen)
{
    sq_held *d = &h->held;
    double v[5];
    char end;
    size_t i;

    if (strncmp(line, "error ", 6) == 0) {
        snprintf(why, whylen, "%s", line + 6);
        return -1;
    }
    if (sscanf(line, "held %lg %lg %lg %lg %lg %c", &v[0], &v[1], &v[2], &v[3], &v[4], &end) != 5) {
        snprintf(why, whylen, "it said \"%.100s\", not what it held", line);
        return -1;
    }
    for (i = 0; i < 5; i++)
        if (!isfinite(v[i]) || v[i] < 0 || v[i] > 1e9) {
            snprintf(why, whylen, "it said \"%.100s\": a figure out of bounds", line);
            return -1;
        }
    d->free_mib = v[0];
    d->held_mib = v[1];
    d->left_mib = v[2];
    d->total_mib = v[3];
    d->chunks = v[4];
    return 0;
}

int sq_start(double margin_mib, const char *const *set_env, size_t nset, double timeout_s,
             sq_holder *h, char *why, size_t whylen)
{
    static const char *const drop[] = { "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
                                        PRC_ENV_DIR, PRC_ENV_T0, PRC_ENV_CUPTI, PRC_ENV_SPANS,
                                        PRC_ENV_ONLY_SUBSCRIBE, PRC_ENV_READY };
    const char *env[16], *args[2];
    char arg[64], line[SQ_LINE];
    size_t n = 0, i;
    int sv[2], pid;

    memset(h, 0, sizeof *h);
    h->fd = -1;
    for (i = 0; i < nset && n < 16 - sizeof drop / sizeof drop[0]; i++) env[n++] = set_env[i];
    for (i = 0; i < sizeof drop / sizeof drop[0]; i++) env[n++] = drop[i];
    snprintf(arg, sizeof arg, "--squeeze=%.0f", margin_mib);
    args[0] = "--child=hold";
    args[1] = arg;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(why, whylen, "socketpair: %s", strerror(errno));
        return -1;
    }
    pid = pr_start_self(args, 2, env, n, sv[1], why, whylen);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -1;
    }
    h->pid = pid;
    h->fd = sv[0];
    pt_spare(pid);
    if (sq_read_line(h, timeout_s, line, sizeof line, why, whylen) != 0 ||
        sq_parse(h, line, why, whylen) != 0) {
        sq_release(h);
        return -1;
    }
    return 0;
}

int sq_alive(sq_holder *h, char *why, size_t whylen)
{
    struct pollfd p;
    char buf[64];
    ssize_t n;
    int stopped;

    if (h->pid <= 0) {
        snprintf(why, whylen, "it was not running");
        return 0;
    }
    p.fd = h->fd;
    p.events = POLLIN;
    p.revents = 0;
    if (poll(&p, 1, 0) <= 0 || !p.revents) return 1;
    n = recv(h->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) return 1;
    sq_reap(h, 1000, why, whylen, &stopped);
    h->pid = 0;
    return 0;
}

void sq_release(sq_holder *h)
{
    char why[200];
    int stopped = 0, pid = h->pid;
    if (h->fd >= 0) close(h->fd);
    if (pid > 0 && sq_reap(h, 10000, why, sizeof why, &stopped) && !sg_pending())
        fprintf(stderr, "harness: --squeeze: the memory holder (pid %d) %s; it was killed (SIGKILL)\n",
                pid, stopped ? "was stopped (SIGSTOP: by the program?) when released, so it could not end"
                             : "did not end within 10 s of its release");
    pt_spare(0);
    memset(h, 0, sizeof *h);
    h->fd = -1;
}
