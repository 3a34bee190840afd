/* sig.c: SIGINT and SIGTERM as a flag read at safe points; the stop routine. */
#include "sig.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t sg_caught;
static sg_stop_fn sg_fn;
static void *sg_arg;
static int sg_stopping;

static void sg_handler(int signo)
{
    if (!sg_caught) sg_caught = signo;
}

int sg_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sg_handler;
    sa.sa_flags = (int)(SA_RESETHAND | SA_RESTART);   /* SA_RESETHAND is bit 31 */
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0) return -1;
    return 0;
}

int sg_pending(void)
{
    return (int)sg_caught;
}

void sg_on_stop(sg_stop_fn fn, void *arg)
{
    sg_fn = fn;
    sg_arg = arg;
}

_Noreturn void sg_stop(int code, const char *why)
{
    if (!sg_stopping && sg_fn) {
        sg_stopping = 1;
        sg_fn(code, why, sg_arg);
    }
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

void sg_check(void)
{
    int s = (int)sg_caught;
    char why[64];
    if (!s || sg_stopping) return;
    snprintf(why, sizeof why, "interrupted by %s", s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM"
             : "a signal");
    sg_stop(128 + s, why);
}
