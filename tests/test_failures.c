/* test_failures.c: the failed runs' default bound and diagnoses
 * (src/sections/program/failures.h) against values worked out by hand:
 * the bound is 10 times the slowest run that exited 0, at least 30 s,
 * never past --child-timeout, and none before a run exited 0 or where
 * --child-timeout was given; a diagnosis picks the longest wait beside
 * running work over 100 ms, else a failed call, and adds a hang's or a
 * signal's details. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "os/proc.h"
#include "run/cli.h"
#include "sections/program/failures.h"
#include "testhelp.h"

static void failures_bound(void)
{
    pgx_tally *t = calloc(1, sizeof *t);
    cli_opts o;
    int b;

    if (!t) return;
    memset(&o, 0, sizeof o);
    o.child_timeout = 300;
    th_check("failures: no bound before a run exited 0: --child-timeout's 300 s",
             pgx_limit(t, &o, &b) == 300 && b == 0);
    pgx_ran(t, 0, 1, 1, 370);
    th_check("failures: the slowest run 0.37 s: the floor, 30 s", pgx_limit(t, &o, &b) == 30 && b == 1);
    pgx_ran(t, 1, 1, 0, 15000);
    th_check("failures: a failed run of 15 s is not the bound's base", pgx_limit(t, &o, &b) == 30 && b == 1);
    pgx_ran(t, 1, 0, 1, 5000);
    th_check("failures: a warm-up of 5 s that exited 0 is: 50 s", pgx_limit(t, &o, &b) == 50 && b == 1);
    pgx_ran(t, 0, 1, 1, 40000);
    th_check("failures: 10 x 40 s is past --child-timeout's default: 300 s, no bound",
             pgx_limit(t, &o, &b) == 300 && b == 0);
    o.child_timeout_given = 1;
    o.child_timeout = 20;
    th_check("failures: --child-timeout given: it alone", pgx_limit(t, &o, &b) == 20 && b == 0);
    th_check("failures: measured runs counted a side", t->side[0].runs == 2 && t->side[1].runs == 1);
    free(t);
}

static void failures_diagnose(void)
{
    lv_view *v = calloc(1, sizeof *v);
    pr_program p;
    pgx_seen s;
    char buf[PGX_WHY];
    double w;

    if (!v) return;
    memset(&p, 0, sizeof p);
    p.t0_ns = 1000000000;
    p.ms = 2000;
    p.exit_code = 5;
    v->pid = 42;
    v->ne = 2;
    v->e[0].kind = LV_EV_FIRST_USE;
    v->e[0].at_ns = p.t0_ns + 500000000;    /* 0.5 s */
    v->e[0].stream = 0xb0;
    strcpy(v->e[0].name, "setter");
    strcpy(v->e[0].call, "cuLaunchKernel");
    strcpy(v->e[0].other, "spinner");
    v->e[1] = v->e[0];
    v->e[1].kind = LV_EV_WAIT;
    v->e[1].ms = 99;
    v->e[1].at_ns = v->e[0].at_ns + 99000000;     /* a WAIT is stamped at its end */
    s = (pgx_seen){ &p, 300, 0, v, 1, NULL, 0, "LAZY" };
    th_check("failures: a wait of 99 ms is no cause: a non-zero exit",
             pgx_diagnose(&s, buf, sizeof buf, &w) == PGX_EXIT && isnan(w));
    v->e[1].ms = 1200;
    v->e[1].at_ns = v->e[0].at_ns + 1200000000;
    th_check("failures: a wait of 1.2 s is the cause, named with the kernel in flight",
             pgx_diagnose(&s, buf, sizeof buf, &w) == PGX_WAIT && w == 1200 &&
             strstr(buf, "setter's first use (cuLaunchKernel) began 0.50 s into the run while spinner "
                         "ran on stream 0xb0, and it waited 1.20 s") != NULL);
    v->ne = 1;
    th_check("failures: a first use beside work with no wait after it: open until the run's end (1.5 s)",
             pgx_diagnose(&s, buf, sizeof buf, &w) == PGX_WAIT && fabs(w - 1500) < 1e-6 &&
             strstr(buf, "still waiting 1.50 s later") != NULL);
    v->ne = 0;
    v->nt = 1;
    v->t[0].tid = 7;
    v->t[0].state = LV_INSIDE;
    v->t[0].since_ns = p.t0_ns + 1000000000;
    strcpy(v->t[0].call, "cuStreamSynchronize");
    p.timed_out = 1;
    p.signal = 9;
    th_check("failures: a hang: the thread inside cuStreamSynchronize for 1.00 s at the kill",
             pgx_diagnose(&s, buf, sizeof buf, &w) == PGX_HANG &&
             strstr(buf, "thread 7 (pid 42) inside cuStreamSynchronize for 1.00 s") != NULL &&
             strstr(buf, "no kernel in flight") != NULL);
    p.timed_out = 0;
    p.signal = 11;
    v->t[0].state = LV_RETURNED;
    v->t[0].end_ns = p.t0_ns + 250000000;
    th_check("failures: a signal: each thread's last call and its result",
             pgx_diagnose(&s, buf, sizeof buf, &w) == PGX_SIGNAL &&
             strstr(buf, "cuStreamSynchronize returned CUDA_SUCCESS 0.25 s into the run") != NULL);
    s.nlive = 0;
    th_check("failures: no record at all: said so", pgx_diagnose(&s, buf, sizeof buf, &w) == PGX_EXIT &&
             strstr(buf, "no CUDA process left a record") != NULL);
    free(v);
}

void test_failures(void)
{
    failures_bound();
    failures_diagnose();
}
