/* progress.c: the parent's line of progress while runs go on, on a
 * terminal only (progress.h). */
#include "os/progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "os/clock.h"

static struct {
    int allowed, on;
    char what[64], side[64];
    int round, max_rounds, done, max_runs;
    double t0_ms;               /* when the runs began */
} P;

void pl_allow(int on)
{
    P.allowed = on;
}

int pl_active(void)
{
    return P.on;
}

/* A time left in words: "45 s", "2 min 10 s", "1 h 5 min". */
static void pl_time(char *buf, size_t len, double s)
{
    long t = (long)(s + 0.5);
    if (t < 60) snprintf(buf, len, "%ld s", t);
    else if (t < 3600) snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
    else snprintf(buf, len, "%ld h %ld min", t / 3600, (t % 3600) / 60);
}

char *pl_format(char *buf, unsigned long len, unsigned long width, double elapsed_s, const char *what,
                int round, int max_rounds, int done, int max_runs, const char *side, double eta_s)
{
    char eta[48];
    if (eta_s >= 0) {
        char t[32];
        pl_time(t, sizeof t, eta_s);
        snprintf(eta, sizeof eta, "; at most %s left", t);
    } else
        eta[0] = '\0';
    snprintf(buf, len, "[%6.1f s] %s: %d of at most %d runs done, round %d of at most %d%s; now %s",
             elapsed_s, what, done, max_runs, round + 1, max_rounds, eta, side);
    /* One form for every line of a run: the short one where the long one
     * would not fit with an estimate of the longest common kind. */
    if (strlen(buf) + (eta[0] ? 0 : sizeof "; at most 59 min 59 s left" - 1) > width)
        snprintf(buf, len, "[%6.1f s] %s: runs %d/%d, round %d/%d%s; now %s", elapsed_s, what, done,
                 max_runs, round + 1, max_rounds, eta, side);
    return buf;
}

/* Draw the line: the cursor back at its start after it, so that a message
 * written next covers it (as the phase line does). Cut to the terminal's
 * width: a line that wraps cannot be drawn over. */
static void pl_draw(void)
{
    char line[512];
    double now = clk_now_ms(), eta = -1;
    int cols = 80;
    struct winsize w;

    if (!P.on) return;
    /* The time a run took so far, gaps between runs included, times the
     * runs the rule may still take. */
    if (P.done > 0) eta = (now - P.t0_ms) / P.done * (P.max_runs - P.done) / 1e3;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 20) cols = w.ws_col;
    pl_format(line, sizeof line, (unsigned long)cols - 1, (now - P.t0_ms) / 1e3, P.what, P.round,
              P.max_rounds, P.done, P.max_runs, P.side, eta);
    fprintf(stderr, "\r\033[K%.*s\r", cols - 1, line);
    fflush(stderr);
}

void pl_begin(const char *what, int max_rounds, int max_runs)
{
    memset(P.what, 0, sizeof P.what);
    P.on = P.allowed && isatty(STDERR_FILENO);
    snprintf(P.what, sizeof P.what, "%s", what);
    P.side[0] = '\0';
    P.round = 0;
    P.max_rounds = max_rounds;
    P.done = 0;
    P.max_runs = max_runs;
    P.t0_ms = clk_now_ms();
}

void pl_run(int round, const char *side)
{
    P.round = round;
    snprintf(P.side, sizeof P.side, "%s", side);
    pl_draw();
}

void pl_run_done(void)
{
    P.done++;
    if (P.done > P.max_runs) P.max_runs = P.done;
}

void pl_end(void)
{
    if (P.on) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    P.on = 0;
}
