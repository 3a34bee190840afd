/* test_squeeze.c: --squeeze=auto's search (sections/program/setting_squeeze.h)
 * against programs whose smallest margin is known: the margins it tries,
 * in order, worked out by hand; a device with less free than the first
 * try; a program that fails with nothing held; the cap on runs; a run
 * whose holder did not hold. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sections/program/setting_squeeze.h"
#include "testhelp.h"

/* A search of one side on a device of free_mib, the program running at
 * any margin of need MiB or more (need < 0: never), its tries' margins
 * into got (at most max). Returns how many, q filled. */
static size_t search(pgs_state *q, double free_mib, double need, double *got, size_t max)
{
    static const char *const key[1] = { "lazy" }, *const label[1] = { "LAZY" };
    sq_held first, held;
    cli_opts o;
    char why[200];
    size_t n = 0;
    double m;

    memset(&o, 0, sizeof o);
    o.squeeze_auto = 1;
    o.squeeze_mib = -1;
    memset(&first, 0, sizeof first);
    first.free_mib = free_mib;
    first.total_mib = 81920;
    if (pgs_begin(q, &o, key, label, 1, 1, 1, &first, why, sizeof why) != 0) return 0;
    while ((m = pgs_next(q, 0)) >= 0 && n < max) {
        int ran = need >= 0 && m >= need;
        got[n++] = m;
        held.free_mib = free_mib;
        held.held_mib = free_mib - m;
        held.left_mib = m;
        pgs_note_run(q, 0, m, &held, ran, ran ? "ran" : "exited with 1", NULL, 0);
    }
    return n;
}

static int same(const double *got, size_t n, const double *want, size_t nwant)
{
    size_t i;
    if (n != nwant) return 0;
    for (i = 0; i < n; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}

void test_squeeze(void)
{
    static pgs_state q;
    double got[64];
    size_t n;

    /* Needs 300 of 1000: 256 fails, 512 runs, then halving: 384, 320, 288
     * (fails), 304: 304 MiB, failed at 288, step 16. */
    {
        static const double want[] = { 256, 512, 384, 320, 288, 304 };
        n = search(&q, 1000, 300, got, 64);
        th_check("squeeze: needs 300 of 1000 MiB: 256, 512, 384, 320, 288, 304; margin 304, failed at 288",
                 same(got, n, want, 6) && q.side[0].hi == 304 && q.side[0].lo == 288 && q.side[0].done);
    }
    /* Needs 100: 256 runs at once; the halving goes down from 0..256: 128,
     * 64 (fails), 96 (fails), 112: 112 MiB, failed at 96 (16 apart: done). */
    {
        static const double want[] = { 256, 128, 64, 96, 112 };
        n = search(&q, 1000, 100, got, 64);
        th_check("squeeze: needs 100: 256, 128, 64, 96, 112; margin 112, failed at 96",
                 same(got, n, want, 5) && q.side[0].hi == 112 && q.side[0].lo == 96);
    }
    /* A device with 200 MiB free: the first try is all of it. */
    {
        static const double want[] = { 200, 100, 150, 125, 137 };
        n = search(&q, 200.5, 130, got, 64);
        th_check("squeeze: 200.5 MiB free, needs 130: the first try is 200 (the free memory, rounded "
                 "down), then 100, 150, 125, 137 (12 apart: done)",
                 same(got, n, want, 5) && q.side[0].hi == 137 && q.side[0].lo == 125);
    }
    /* Fails with nothing held: 256, 512, 1000, and done, no margin. */
    {
        static const double want[] = { 256, 512, 1000 };
        n = search(&q, 1000, -1, got, 64);
        th_check("squeeze: fails with nothing held: 256, 512, 1000, then no margin",
                 same(got, n, want, 3) && q.side[0].hi < 0 && q.side[0].lo == 1000 && q.side[0].done);
    }
    /* 16 MiB or less apart is an answer at once: needs 0, 256 runs, ..., the
     * last interval 0..16. */
    {
        static const double want[] = { 256, 128, 64, 32, 16 };
        n = search(&q, 1000, 0, got, 64);
        th_check("squeeze: needs nothing: 256, 128, 64, 32, 16, and done (0 to 16 is one step)",
                 same(got, n, want, 5) && q.side[0].hi == 16 && q.side[0].lo < 0);
    }
    /* A huge device and a program that needs almost all of it: the doubling
     * and the halving together stop at CLI_SQUEEZE_TRIES runs. */
    n = search(&q, 16777216, 16000000, got, 64);
    th_check("squeeze: at most CLI_SQUEEZE_TRIES runs a side", n == CLI_SQUEEZE_TRIES && q.side[0].done);
    /* A run whose holder did not hold ends the search, said. */
    {
        static const char *const key[2] = { "lazy", "eager" }, *const label[2] = { "LAZY", "EAGER" };
        sq_held first;
        cli_opts o;
        char why[200];
        double m, cm = -1;
        size_t cs = 9;
        memset(&o, 0, sizeof o);
        o.squeeze_auto = 1;
        memset(&first, 0, sizeof first);
        first.free_mib = 1000;
        pgs_begin(&q, &o, key, label, 2, 2, 1, &first, why, sizeof why);
        m = pgs_next(&q, 0);
        pgs_note_run(&q, 0, m, NULL, 0, "the memory holder ended", NULL, 0);
        th_check("squeeze: a run whose holder did not hold ends that side's search, said",
                 pgs_next(&q, 0) < 0 && strstr(q.side[0].broken, "at 256 MiB: the memory holder ended"));
        first.held_mib = 700;
        first.left_mib = 300;
        pgs_note_run(&q, 1, 300, &first, 0, "exited with 1", NULL, 0);
        q.side[1].done = 1;
        th_check("squeeze: a side whose search broke is not run at the other's failing margin",
                 pgs_next_cross(&q, &cs, &cm) == 0 && q.side[1].lo == 300);
        q.side[0].broken[0] = '\0';
        th_check("squeeze: otherwise it is, once: LAZY at EAGER's 300 MiB",
                 pgs_next_cross(&q, &cs, &cm) == 1 && cs == 0 && cm == 300);
        pgs_note_run(&q, 0, 300, &first, 1, "ran", NULL, 0);
        th_check("squeeze: ... and then not again (it was tried there)",
                 pgs_next_cross(&q, &cs, &cm) == 0 && q.side[0].tries[0].cross == 1);
    }
    /* --squeeze=MiB above the free memory: refused, said. */
    {
        static const char *const key[1] = { "lazy" }, *const label[1] = { "LAZY" };
        sq_held first;
        cli_opts o;
        char why[200];
        memset(&o, 0, sizeof o);
        o.squeeze_mib = 1001;
        memset(&first, 0, sizeof first);
        first.free_mib = 1000;
        first.total_mib = 81920;
        th_check("squeeze: a margin above the free memory is refused, with the free memory named",
                 pgs_begin(&q, &o, key, label, 1, 1, 1, &first, why, sizeof why) == -1 &&
                 strcmp(why, "--squeeze=1001: above the free memory of device 0 (1000 MiB free once a "
                        "context is made on it, of 81920 MiB)") == 0);
        o.squeeze_mib = 1000;
        th_check("squeeze: a margin of all the free memory is taken (it holds nothing)",
                 pgs_begin(&q, &o, key, label, 1, 1, 1, &first, why, sizeof why) == 0);
    }
}
