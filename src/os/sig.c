/* sig.c: SIGINT, SIGTERM, SIGHUP and SIGQUIT taken by a thread of their own;
 * the stop routine. */
#include "os/sig.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int sg_caught;      /* the first signal; 0 until one comes */
static atomic_int sg_taken;       /* how many signals have come */
static atomic_int sg_begun;       /* 1 once a stop has begun */
static pthread_mutex_t sg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t sg_owner;        /* the thread running the stop (under sg_mu) */
static int sg_in_call;            /* inside sg_call_begin/end (under sg_mu) */
static int sg_pipe[2] = { -1, -1 };
static sigset_t sg_set, sg_old_mask;
static int sg_installed;
/* Set before sg_install, read by the signal thread: its start orders them. */
static void (*sg_kill_fn)(void);
static sg_stop_fn sg_fn;
static void *sg_arg;

/* The name of one of the signals taken ("SIGINT"), for the messages. */
static const char *sg_name(int s)
{
    return s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : s == SIGHUP ? "SIGHUP"
         : s == SIGQUIT ? "SIGQUIT" : "a signal";
}

/* The process ends now, on a second signal: async-signal-safe (the
 * message is put together by hand: no snprintf). */
static _Noreturn void sg_end_now(int signo)
{
    char m[128];
    const char *parts[4] = { "harness: a second signal (", sg_name(signo),
                             "): ended at once, exit code ", NULL };
    size_t at = 0, i, k;
    int code = 128 + signo;
    ssize_t n;
    if (sg_kill_fn) sg_kill_fn();
    for (i = 0; i < 3; i++)
        for (k = 0; parts[i][k] && at < sizeof m - 8; k++) m[at++] = parts[i][k];
    m[at++] = (char)('0' + code / 100);
    m[at++] = (char)('0' + code / 10 % 10);
    m[at++] = (char)('0' + code % 10);
    m[at++] = '\n';
    n = write(STDERR_FILENO, m, at);
    (void)n;
    _exit(code);
}

/* A signal has come: the first is recorded and wakes the waits that poll
 * sg_wake_fd; a later one ends the process. Async-signal-safe. */
static void sg_take(int signo)
{
    ssize_t n;
    if (atomic_fetch_add(&sg_taken, 1) != 0) sg_end_now(signo);
    atomic_store(&sg_caught, signo);
    n = sg_pipe[1] >= 0 ? write(sg_pipe[1], "!", 1) : 0;
    (void)n;   /* the pipe is only a wake-up: the flag is what counts */
}

/* For a thread that has the signals unblocked. */
static void sg_handler(int signo)
{
    sg_take(signo);
}

/* Run the stop routine and end the process; the caller owns the stop. */
static _Noreturn void sg_finish(int code, const char *why)
{
    if (sg_fn) sg_fn(code, why, sg_arg);
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

/* Wait for another thread's stop to end the process. */
static _Noreturn void sg_park(void)
{
    for (;;) pause();
}

static void sg_why(int s, char *why, size_t len)
{
    snprintf(why, len, "interrupted by %s", sg_name(s));
}

/* The stop of a run that is inside sg_call_begin/end, on its own thread. */
static void *sg_stop_thread(void *unused)
{
    char why[64];
    int s = atomic_load(&sg_caught);
    (void)unused;
    pthread_mutex_lock(&sg_mu);
    sg_owner = pthread_self();
    pthread_mutex_unlock(&sg_mu);
    sg_why(s, why, sizeof why);
    sg_finish(128 + s, why);
}

/* The first signal came: when the run is inside a call, stop it now, on a
 * thread of its own, so that the signal thread stays free for a second. */
static void sg_stop_in_call(void)
{
    pthread_attr_t at;
    pthread_t t;
    pthread_mutex_lock(&sg_mu);
    if (sg_in_call && !atomic_load(&sg_begun) && pthread_attr_init(&at) == 0) {
        atomic_store(&sg_begun, 1);
        if (pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) != 0 ||
            pthread_create(&t, &at, sg_stop_thread, NULL) != 0)
            atomic_store(&sg_begun, 0);   /* the run stops when the call returns */
        pthread_attr_destroy(&at);
    }
    pthread_mutex_unlock(&sg_mu);
}

static void *sg_watch(void *unused)
{
    (void)unused;
    for (;;) {
        int s = sigwaitinfo(&sg_set, NULL);
        if (s != SIGINT && s != SIGTERM && s != SIGHUP && s != SIGQUIT) continue;
        sg_take(s);
        sg_stop_in_call();
    }
    return NULL;
}

int sg_install(void)
{
    struct sigaction sa;
    pthread_attr_t at;
    pthread_t t;
    int err;

    sigemptyset(&sg_set);
    sigaddset(&sg_set, SIGINT);
    sigaddset(&sg_set, SIGTERM);
    sigaddset(&sg_set, SIGHUP);
    sigaddset(&sg_set, SIGQUIT);
    if (pipe2(sg_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    /* The action matters only to a thread that unblocks them, and it must
     * not be SIG_IGN (which would discard them, blocked or not). */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sg_handler;
    sa.sa_mask = sg_set;
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
        sigaction(SIGHUP, &sa, NULL) != 0 || sigaction(SIGQUIT, &sa, NULL) != 0)
        return -1;
    if ((err = pthread_sigmask(SIG_BLOCK, &sg_set, &sg_old_mask)) != 0) goto fail;
    sg_installed = 1;
    if ((err = pthread_attr_init(&at)) != 0) goto fail;
    if ((err = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED)) == 0)
        err = pthread_create(&t, &at, sg_watch, NULL);
    pthread_attr_destroy(&at);
    if (err == 0) return 0;
fail:
    if (sg_installed) pthread_sigmask(SIG_SETMASK, &sg_old_mask, NULL);
    sg_installed = 0;
    errno = err;
    return -1;
}

int sg_pending(void)
{
    return atomic_load(&sg_caught);
}

int sg_wake_fd(void)
{
    return sg_pipe[0];
}

void sg_child_mask(sigset_t *mask)
{
    if (sg_installed) *mask = sg_old_mask;
    else pthread_sigmask(SIG_BLOCK, NULL, mask);
}

void sg_on_kill(void (*fn)(void))
{
    sg_kill_fn = fn;
}

void sg_call_begin(void)
{
    pthread_mutex_lock(&sg_mu);
    sg_in_call = !atomic_load(&sg_caught);
    pthread_mutex_unlock(&sg_mu);
    sg_check();
}

void sg_call_end(void)
{
    int park;
    pthread_mutex_lock(&sg_mu);
    sg_in_call = 0;
    park = atomic_load(&sg_begun) && !pthread_equal(sg_owner, pthread_self());
    pthread_mutex_unlock(&sg_mu);
    if (park) sg_park();
}

void sg_on_stop(sg_stop_fn fn, void *arg)
{
    sg_fn = fn;
    sg_arg = arg;
}

_Noreturn void sg_stop(int code, const char *why)
{
    int mine;
    pthread_mutex_lock(&sg_mu);
    mine = !atomic_load(&sg_begun);
    if (mine) {
        atomic_store(&sg_begun, 1);
        sg_owner = pthread_self();
    } else if (!pthread_equal(sg_owner, pthread_self())) {
        pthread_mutex_unlock(&sg_mu);
        sg_park();
    }
    pthread_mutex_unlock(&sg_mu);
    if (mine) sg_finish(code, why);
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

int sg_stopping(void)
{
    return atomic_load(&sg_begun);
}

void sg_check(void)
{
    int s = atomic_load(&sg_caught);
    char why[64];
    if (!s || atomic_load(&sg_begun)) return;
    sg_why(s, why, sizeof why);
    sg_stop(128 + s, why);
}
