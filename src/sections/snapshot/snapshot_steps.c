/* snapshot_steps.c: one child of section snapshot, from the parent's side:
 * started with a socket on its descriptor 3, waited for until ready, then
 * locked, checkpointed, restored and unlocked through the driver's
 * checkpoint API on its pid, each step timed; its device memory read from
 * NVML around them; told to go on; its results read back. Whatever goes
 * wrong is one sentence, and the child is never left locked or
 * checkpointed: restored and unlocked on the way out (a signal included),
 * or killed where that fails. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda/ckpt.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/proc.h"
#include "os/sig.h"
#include "run/section.h"
#include "sections/snapshot/snapshot.h"

#define SN_NARGS 9      /* the child's arguments */

_Static_assert(SN_NSTEPS == CKP_NSTEPS, "the section's steps are the driver's four");

/* One child, as the parent sees it. */
typedef struct sn_run {
    sec_ctx *c;
    long mib;
    int pid;                /* 0 once reaped */
    int spid;               /* its pid, kept after it is reaped */
    int killed;             /* 1 when this process killed it (said) */
    int fd;                 /* the parent's end of the socket */
    int status;             /* waitpid's, once reaped */
    char *text;             /* what the child sent after its ready line */
    size_t len, cap;
    ckp_proc P;             /* its pid and where the steps left it */
    char busy[64];          /* the kernel it said it left running, "" for none */
    double mem_before;      /* its device memory before the lock, MiB (NaN: unknown) */
    int failed_check;       /* 1 when a check it sent failed (said) */
    char said[300];         /* why it never got ready, to say after its own lines */
} sn_run;

/* Append what fd holds now to R->text. Returns bytes read, 0 at EOF, -1
 * on an error or out of memory. */
static ssize_t sn_take(sn_run *R)
{
    ssize_t got;
    if (R->cap - R->len < 4097) {
        size_t cap = R->cap ? R->cap * 2 : 8192;
        char *t = realloc(R->text, cap);
        if (!t) return -1;
        R->text = t;
        R->cap = cap;
    }
    do got = read(R->fd, R->text + R->len, R->cap - R->len - 1);
    while (got < 0 && errno == EINTR);
    if (got > 0) R->len += (size_t)got;
    R->text[R->len] = '\0';
    return got;
}

/* The child's ready line in text (a line of its own that begins with
 * SN_READY and a space, and ends), or NULL while there is none. */
static const char *sn_ready_line(const char *text)
{
    const char *p;
    for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, SN_READY " ", sizeof SN_READY) == 0 && strchr(p, '\n')) return p;
    return NULL;
}

/* Kill the child (SIGKILL) and reap it, where it is still there. */
static void sn_kill(sn_run *R)
{
    if (R->pid <= 0) return;
    kill(R->pid, SIGKILL);
    while (waitpid(R->pid, &R->status, 0) < 0 && errno == EINTR) {}
    R->pid = 0;
}

/* 1 once the child has ended (reaped, R->status), else 0. */
static int sn_ended(sn_run *R)
{
    if (R->pid <= 0) return 1;
    if (waitpid(R->pid, &R->status, WNOHANG) != R->pid) return 0;
    R->pid = 0;
    return 1;
}

/* Wait up to wait_s seconds for the child to end (reaped), then kill it.
 * Returns 1 when it ended by itself, 0 when it was killed. */
static int sn_wait_end(sn_run *R, double wait_s)
{
    double end = clk_now_ms() + wait_s * 1e3;
    while (!sn_ended(R)) {
        struct timespec ts = { 0, 2000000L };
        if (clk_now_ms() > end) {
            sn_kill(R);
            return 0;
        }
        nanosleep(&ts, NULL);
    }
    return 1;
}

/* What became of an ended child, into buf. */
static const char *sn_outcome(const sn_run *R, char *buf, size_t len)
{
    if (WIFSIGNALED(R->status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(R->status),
                 strsignal(WTERMSIG(R->status)));
    else
        snprintf(buf, len, "exited with %d", WEXITSTATUS(R->status));
    return buf;
}

static void sn_release(sn_run *R, const char *why);

/* A signal pending: the child restored and unlocked (or killed), then the
 * run stops (sg_check does not return). */
static void sn_stop_point(sn_run *R)
{
    if (!sg_pending()) return;
    sn_release(R, "before stopping");
    sn_kill(R);
    sg_check();
}

/* Read until the ready line (ready 1) or EOF (ready 0), within
 * --child-timeout. Returns 0, or -1 when the time ran out or a read
 * failed (said in why). A signal stops the run. */
static int sn_read(sn_run *R, int ready, char *why, size_t whylen)
{
    double end = clk_now_ms() + R->c->o->child_timeout * 1e3;
    for (;;) {
        struct pollfd p[2] = { { R->fd, POLLIN, 0 }, { sg_wake_fd(), POLLIN, 0 } };
        double left = end - clk_now_ms();
        ssize_t got;
        if (ready && sn_ready_line(R->text)) return 0;
        if (left <= 0) {
            snprintf(why, whylen, "ran past --child-timeout=%.0f s and was killed",
                     R->c->o->child_timeout);
            return -1;
        }
        if (poll(p, p[1].fd >= 0 ? 2 : 1, (int)(left < 100 ? left + 1 : 100)) < 0 && errno != EINTR) {
            snprintf(why, whylen, "poll: %s", strerror(errno));
            return -1;
        }
        sn_stop_point(R);
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if ((got = sn_take(R)) < 0) {
            snprintf(why, whylen, "reading its socket: %s", strerror(errno));
            return -1;
        }
        if (got == 0) return 0;
    }
}

/* Start the child of R->mib MiB and wait until it is ready; its cold
 * start, spawn to ready, into *cold_ms. Returns 0, 1 when it ended or
 * hung before it was ready (said), -1 when it could not be started. */
static int sn_start(sn_run *R, double *cold_ms)
{
    const cli_opts *o = R->c->o;
    char a[SN_NARGS][64], why[512] = "", out[160];
    const char *args[SN_NARGS];
    const char *ready;
    int sv[2], i;
    double t0;

    snprintf(a[0], sizeof a[0], "--child=snapshot");
    snprintf(a[1], sizeof a[1], "--section=" SN);
    snprintf(a[2], sizeof a[2], "--snapshot-mib=%ld", R->mib);
    snprintf(a[3], sizeof a[3], "--device=%d", o->device);
    snprintf(a[4], sizeof a[4], "--reps=%d", o->reps);
    snprintf(a[5], sizeof a[5], "--warmup=%d", o->warmup);
    snprintf(a[6], sizeof a[6], "--kernel-timeout=%.0f", o->kernel_timeout);
    snprintf(a[7], sizeof a[7], "--arch=%.50s", R->c->arch);
    snprintf(a[8], sizeof a[8], "--module-format=%s", o->format == CLI_FMT_PTX ? "ptx" : "cubin");
    for (i = 0; i < SN_NARGS; i++) args[i] = a[i];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fprintf(stderr, "harness: " SN ": socketpair: %s\n", strerror(errno));
        return -1;
    }
    t0 = clk_now_ms();
    R->pid = pr_start_self(args, SN_NARGS, NULL, 0, sv[1], why, sizeof why);
    R->spid = R->pid;
    close(sv[1]);
    R->fd = sv[0];
    if (R->pid < 0) {
        R->pid = 0;
        fprintf(stderr, "harness: " SN ": cannot start a child: %s\n", why);
        return -1;
    }
    if (sn_read(R, 1, why, sizeof why) != 0 || !(ready = sn_ready_line(R->text))) {
        if (!why[0] && sn_wait_end(R, 5.0)) sn_outcome(R, why, sizeof why);
        else {
            sn_kill(R);
            if (!why[0]) snprintf(why, sizeof why, "closed its socket and did not exit");
        }
        snprintf(out, sizeof out, "%.150s", why);
        snprintf(R->said, sizeof R->said, "the child of %ld MiB ended before it was ready: it %s",
                 R->mib, out);
        return 1;
    }
    *cold_ms = clk_now_ms() - t0;
    sscanf(ready, SN_READY " %63s", R->busy);
    if (strcmp(R->busy, "-") == 0) R->busy[0] = '\0';
    /* What came before the ready line is the child's stderr: kept. */
    return 0;
}

/* Whatever state the child is in, bring it back to RUNNING: restore where
 * it is checkpointed, unlock where it is locked; kill it where that fails
 * (a process that is gone holds nothing). Says what it did. */
static void sn_release(sn_run *R, const char *why)
{
    CUprocessState was = R->P.state;
    char code[96];

    if (R->pid <= 0 || sn_ended(R) || R->P.state == CU_PROCESS_STATE_RUNNING) return;
    if (ckp_release(&R->P, (unsigned)R->c->o->snapshot_lock_ms, code, sizeof code) == 0) {
        fprintf(stderr, "harness: " SN ": the child of %ld MiB (pid %d), left %s, was %sunlocked %s\n",
                R->mib, R->pid, ckp_state_name(was),
                was == CU_PROCESS_STATE_CHECKPOINTED ? "restored and " : "", why);
        return;
    }
    fprintf(stderr, "harness: " SN ": the child of %ld MiB (pid %d) could not be brought back "
            "from %s (%s): killed, so that nothing is left %s\n", R->mib, R->pid,
            ckp_state_name(was), code, ckp_state_name(R->P.state));
    sn_kill(R);
    R->killed = 1;
}

/* The child's device memory now, MiB: NVML's figure for its pid, 0 when
 * it is not among the compute processes, NaN when NVML cannot say (the
 * reason kept once in the environment, snapshot_nvml). */
static double sn_mem(sn_run *R)
{
    char why[512];
    double mib = ckp_mem(R->pid, why, sizeof why);
    if (isnan(mib) && !res_env_get(R->c->r, "snapshot_nvml")) res_env_str(R->c->r, "snapshot_nvml", why);
    return mib;
}

/* Store one sample of the parent's key k for this size. */
static int sn_put(sn_run *R, int k, double v)
{
    char key[128], name[256], num[SCH_NUM];
    const char *part = sch_num(num, R->mib);
    sn_key(key, sizeof key, k, R->mib, NULL);
    sch_fill(name, sizeof name, NULL, sn_keys[k].name, &part, 1);
    return res_append(R->c->r, SN, key, name, sn_keys[k].desc, sn_keys[k].state, sn_keys[k].unit,
                      v) ? 0 : -1;
}

/* Step k failed with r: the one sentence that says why, on stderr and as
 * the failed check. */
static void sn_said(sn_run *R, int k, CUresult r)
{
    char s[900], out[128], what[128], who[96], option[64], buffers[64];
    ckp_failed f;

    snprintf(who, sizeof who, "the child of %ld MiB (pid %d)", R->mib, R->spid);
    snprintf(option, sizeof option, "--snapshot-lock-timeout=%d", R->c->o->snapshot_lock_ms);
    snprintf(buffers, sizeof buffers, "%ld MiB of buffers", R->mib);
    f = (ckp_failed){ who, sn_ended(R) ? sn_outcome(R, out, sizeof out) : NULL, R->busy, option,
                      (unsigned)R->c->o->snapshot_lock_ms, R->mem_before, buffers, 1 };
    ckp_sentence(s, sizeof s, &R->P, (ckp_step)k, r, &f);
    fprintf(stderr, "harness: " SN ": %s\n", s);
    snprintf(what, sizeof what, "the child of %ld MiB: %s", R->mib, ckp_step_words[k]);
    res_check_add(R->c->r, SN, what, 0, s);
}

/* The four steps, each timed and stored, with NVML's figure before the
 * lock, while checkpointed and after the unlock. Returns 0, 1 after a
 * failed step (said), -1 out of memory. */
static int sn_steps(sn_run *R, double *sum)
{
    double ms, mem_ckpt = NAN;
    int k;

    *sum = 0;
    R->mem_before = sn_mem(R);
    ckp_init(&R->P, R->pid);
    for (k = 0; k < SN_NSTEPS; k++) {
        CUresult r = ckp_step_on(&R->P, (ckp_step)k, (unsigned)R->c->o->snapshot_lock_ms);
        if (r != CUDA_SUCCESS) {
            sn_said(R, k, r);
            return 1;
        }
        ms = R->P.ms[k];
        *sum += ms;
        if (sn_put(R, SN_K_LOCK + k, ms) != 0) return -1;
        if (k == 1) mem_ckpt = sn_mem(R);
        sn_stop_point(R);
    }
    if (sn_put(R, SN_K_MEM_BEFORE, R->mem_before) != 0 || sn_put(R, SN_K_MEM_CKPT, mem_ckpt) != 0 ||
        sn_put(R, SN_K_MEM_AFTER, sn_mem(R)) != 0)
        return -1;
    return 0;
}

/* The child's results into the run's: every sample of each figure, and
 * its checks; the lines of its stderr printed. Returns the child's pause
 * (NaN when it sent none). */
static double sn_merge(sn_run *R)
{
    results ch;
    char why[256], key[128];
    const char *p, *nl;
    const res_meas *pause;
    double v = NAN;
    size_t i, j;

    for (p = R->text; p && *p; p = nl + 1) {
        if (!(nl = strchr(p, '\n'))) break;
        if (strncmp(p, "harness: ", 9) == 0) fprintf(stderr, "%.*s\n", (int)(nl - p), p);
    }
    res_init(&ch);
    if (R->text && res_read_lines(&ch, R->text, why, sizeof why) < 0)
        fprintf(stderr, "harness: " SN ": the child of %ld MiB sent a malformed result: %s\n",
                R->mib, why);
    for (i = 0; i < ch.nm; i++) {
        const res_meas *m = &ch.m[i];
        for (j = 0; j < m->nsamples; j++) {
            res_meas *a = res_append(R->c->r, SN, m->key, m->name, m->region, m->state, m->unit,
                                     m->samples[j]);
            if (a) a->bytes = m->bytes;
        }
    }
    for (i = 0; i < ch.ncheck; i++) {
        res_check_add(R->c->r, SN, ch.check[i].what, ch.check[i].passed, ch.check[i].detail);
        if (!ch.check[i].passed) {
            R->failed_check = 1;
            fprintf(stderr, "harness: " SN ": %s: %s\n", ch.check[i].what, ch.check[i].detail);
        }
    }
    if ((pause = res_find(&ch, SN, sn_key(key, sizeof key, SN_K_PAUSE, R->mib, NULL))))
        v = pause->samples[0];
    res_free(&ch);
    return v;
}

/* The four steps within the child's own pause: a check of containment. */
static void sn_contained(sn_run *R, double sum, double pause)
{
    char what[160], detail[200];
    snprintf(what, sizeof what, "the child of %ld MiB: lock + checkpoint + restore + unlock within "
             "its own pause", R->mib);
    snprintf(detail, sizeof detail, "%.3f ms of the %.3f ms it paused (%.1f%%)", sum, pause,
             100.0 * sum / pause);
    res_check_add(R->c->r, SN, what, !(sum > pause), detail);
}

/* After the steps: go, then the child's results until it closes its end,
 * then it is reaped. Returns 0, 1 when it failed (said), -1 out of memory. */
static int sn_finish(sn_run *R, int stepped, double sum, double held_ms)
{
    char why[300] = "", out[128], what[96];
    double pause;
    int ok, gone = R->pid <= 0;     /* ended before the go: said with the failed step */

    if (R->pid > 0 && write(R->fd, SN_GO, strlen(SN_GO)) != (ssize_t)strlen(SN_GO))
        snprintf(why, sizeof why, "the go could not be written: %s", strerror(errno));
    R->len = 0;
    if (R->text) R->text[0] = '\0';
    if (!why[0] && R->pid > 0 && sn_read(R, 0, why, sizeof why) != 0) sn_kill(R);
    if (R->pid > 0 && !sn_wait_end(R, 10.0) && !why[0])
        snprintf(why, sizeof why, "closed its socket and did not exit within 10 s: killed");
    pause = sn_merge(R);
    ok = WIFEXITED(R->status) && WEXITSTATUS(R->status) == 0 && !why[0];
    /* Said already: a child this process killed, a check the child failed. */
    if (!ok && (R->killed || gone || (R->failed_check && WIFEXITED(R->status) && WEXITSTATUS(R->status) == 1)))
        return 1;
    if (!ok) {
        snprintf(what, sizeof what, "the child of %ld MiB ran to the end", R->mib);
        snprintf(out, sizeof out, "%s", why[0] ? why : "");
        if (!why[0]) sn_outcome(R, out, sizeof out);
        fprintf(stderr, "harness: " SN ": the child of %ld MiB %s after the %s\n", R->mib, out,
                stepped ? "restore" : "failed step");
        res_check_add(R->c->r, SN, what, 0, out);
        return 1;
    }
    if (stepped) {
        if (sn_put(R, SN_K_HELD, held_ms) != 0) return -1;
        if (!isnan(pause)) sn_contained(R, sum, pause);
    }
    return 0;
}

int sn_one(sec_ctx *c, long mib)
{
    sn_run R;
    double cold = 0, sum = 0, t_ready;
    int rc;

    memset(&R, 0, sizeof R);
    R.c = c;
    R.mib = mib;
    R.fd = -1;
    ckp_init(&R.P, 0);
    ph_set(SN ": starting a child");
    rc = sn_start(&R, &cold);
    if (rc == 1) {
        char what[96];
        sn_merge(&R);               /* its own lines first, and any check it made */
        fprintf(stderr, "harness: " SN ": %s\n", R.said);
        snprintf(what, sizeof what, "the child of %ld MiB: its cold start, to ready", mib);
        res_check_add(c->r, SN, what, 0, R.said);
    }
    if (rc == 0) {
        ph_set(SN ": the steps on the child");
        if (sn_put(&R, SN_K_COLD, cold) != 0) rc = -1;
        t_ready = clk_now_ms();
        if (rc == 0) rc = sn_steps(&R, &sum);
        if (rc != 0) sn_release(&R, "after the failed step");
        if (rc >= 0) {
            int f = sn_finish(&R, rc == 0, sum, clk_now_ms() - t_ready);
            if (f != 0) rc = f;
        }
    }
    sn_kill(&R);
    if (R.fd >= 0) close(R.fd);
    free(R.text);
    ph_set(SN);
    return rc;
}
