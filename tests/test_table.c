/* test_table.c: fitting the report to a width (tb_fit) and the summary
 * (an_summary), on texts and results made here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/answer.h"
#include "run/table.h"
#include "testhelp.h"

/* tb_fit of text at width, into a string (the caller frees it). */
static char *tt_fit(const char *text, size_t width)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    tb_fit(f, text, width);
    fclose(f);
    return out;
}

/* The widest line of s. */
static size_t tt_widest(const char *s)
{
    size_t w = 0, n;
    while (s && *s) {
        n = strcspn(s, "\n");
        if (n > w) w = n;
        s += n + (s[n] == '\n');
    }
    return w;
}

/* The column at which needle starts in the line of s holding it; -1 when none. */
static long tt_col(const char *s, const char *needle)
{
    const char *p = s ? strstr(s, needle) : NULL, *bol;
    if (!p) return -1;
    for (bol = p; bol > s && bol[-1] != '\n'; bol--) {}
    return (long)(p - bol);
}

static void tt_fit_tests(void)
{
    static const char table[] =
        "  step                                                   LAZY [interval]         EAGER\n"
        "  first launch in the process (got before: row 3's way)  0.0732 [0.0722, 0.0735]  0.0729\n"
        "  the same, warm, queued back to back (row 4's way)      0.0619 [0.0619, 0.0622]  0.0623\n";
    static const char verdicts[] =
        "    mod  load       EAGER  0.000  LAZY  0.000  +0.000  p 1.0000  no difference\n"
        "    mod  get        EAGER  0.000  LAZY  0.000  -0.000  p 0.6667  out of reach at 2 a "
        "side: the U test's smallest p is 0.333\n";
    static const char prose[] =
        "  rigor: 174 measurements, 1 stopped noisier than asked (n=262144.copy4.cold, "
        "n=1024.kernel, n=16384.kernel)\n"
        "  FAILED fusion: fused at n = 1,049,187, every element vs the CPU in double: 1049187 "
        "of 1049187 elements wrong\n";
    char *o;

    o = tt_fit(table, 100);
    th_check("fit: a table that fits is printed as it is", o && strcmp(o, table) == 0);
    free(o);
    o = tt_fit(table, 72);
    th_check("fit: a table over the width fits it", o && tt_widest(o) <= 72);
    th_check("fit: its columns stay aligned (the interval column starts at one place)",
             o && tt_col(o, "[0.0722") == tt_col(o, "[0.0619") && tt_col(o, "[0.0722") > 0);
    th_check("fit: the first column (the names) is shortened in the middle",
             o && strstr(o, "...") && strstr(o, "  first launch") && strstr(o, "row 3's way)"));
    free(o);
    o = tt_fit(table, 57);
    th_check("fit: a name that cannot be shortened to 24 characters gets a line of its own, whole",
             o && strstr(o, "\n  first launch in the process (got before: row 3's way)\n") &&
             tt_widest(o) <= 57);
    free(o);
    o = tt_fit(verdicts, 100);
    th_check("fit: a verdict (not the first column) is never cut: a line of its own, whole",
             o && strstr(o, "out of reach at 2 a side: the U test's smallest p is 0.333\n") &&
             tt_widest(o) <= 100 && !strstr(o, "..."));
    free(o);
    o = tt_fit(prose, 80);
    th_check("fit: prose is broken at spaces, its continuation further in",
             o && strstr(o, "  rigor: 174 measurements") && strstr(o, "\n    ") );
    {
        /* Headings off their columns: the first column's span holds the
         * figures; fitting must not cut them to "...". */
        static const char skew[] =
            "  buffers       lock  checkpoint   restore   unlock       sum its pause  cold start\n"
            "  256 MiB         0.1          0.0        0.0       0.0        0.1        0.5        326.0\n"
            "  2048 MiB        0.1          0.0        0.0       0.0        0.1        0.3       2292.4\n"
            "  the child's device memory (NVML, MiB):  before the lock  checkpointed  after the unlock\n"
            "       256 MiB of buffers                         0             0                  0\n"
            "      2048 MiB of buffers                         0             0                  0\n";
        char *k = tt_fit(skew, 80);
        th_check("fit: a column that holds figures is never cut to '...' (every figure stays)",
                 k && !strstr(k, "...") && strstr(k, "326.0") && strstr(k, "2292.4") &&
                 strstr(k, "0.3"));
        free(k);
    }
    th_check("fit: a failed check's line stays whole, for grep",
             o && strstr(o, "\n  FAILED fusion: fused at n = 1,049,187, every element vs the CPU in "
                            "double: 1049187 of 1049187 elements wrong\n"));
    free(o);
}

static void tt_summary_tests(void)
{
    static const char *const secs[] = { "stopwatches", "launch" };
    results r;
    an_run run = { 12.5, 0, 100, NULL, 0 };
    char *out = NULL, key[32];
    size_t len = 0, lines = 0, i;
    const char *p;
    FILE *f;

    res_init(&r);
    an_store(&r, "stopwatches", "row1_row4", "row 1 / row 4", 8051, "x", "%dx [%d, %d]", 8051, 7720, 8990);
    an_store(&r, "launch", "launch", "empty launch", 3.0, "us", "submit %.2f us", 3.01);
    res_check_add(&r, "launch", "a check", 1, "");
    f = open_memstream(&out, &len);
    if (f) {
        an_summary(f, &r, secs, 2, &run);
        fclose(f);
    }
    th_check("summary: a blank line, the heading, then each answer with its page",
             out && strncmp(out, "\nAnswers (each line's page is in docs/):\n", 41) == 0 &&
             strstr(out, "  row 1 / row 4: 8051x [7720, 8990]") && strstr(out, "stopwatches.md\n") &&
             strstr(out, "  empty launch: submit 3.01 us") && strstr(out, "launch.md\n"));
    th_check("summary: its last line has the run time, the exit code and the checks",
             out && strstr(out, "\nRun time 12.5 s; exit code 0; checks: 1 passed, 0 failed.\n"));
    free(out);
    /* Twenty sentences: the summary stays within 15 lines and counts the rest. */
    for (i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "s%zu", i);
        an_store(&r, "launch", key, "a sentence", NAN, "", "Sentence %zu is long enough to take "
                 "more than one line of the summary when it is wrapped at forty columns.", i);
    }
    out = NULL;
    run.width = 40;
    f = open_memstream(&out, &len);
    if (f) {
        an_summary(f, &r, secs, 2, &run);
        fclose(f);
    }
    for (p = out; p && *p; p++) lines += *p == '\n';
    th_check("summary: many answers stay within 15 lines and the width, the rest counted",
             out && lines <= AN_MAX_LINES && tt_widest(out) <= 40 &&
             strstr(out, " more, above and in the JSON\n"));
    free(out);
    res_free(&r);
}

/* One warm measurement of one sample in ms, with a model of bytes and flops. */
static void tt_point(results *r, const char *section, const char *key, res_state state,
                     const char *unit)
{
    double v = 2.0;
    res_meas *m = res_add(r, section, key, key, "by hand", state, unit, &v, 1);
    if (!m) return;
    m->n = 1000;
    m->bytes = 8e9;
    m->flops = 4e9;
}

/* The roofline (tb_roofline), printed into a string (the caller frees it). */
static char *tt_roofline(const results *r)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    tb_roofline(f, r);
    fclose(f);
    return out;
}

static void tt_roofline_tests(void)
{
    results r;
    char *o;
    long n = 0;
    double ai = 0, att = 0, ach = 0, pct = 0;

    res_init(&r);
    res_env_num(&r, "fp32_peak_gflops", 60000);
    res_env_str(&r, "fp32_peak_source", "by hand");
    tt_point(&r, "stopwatches", "row4", RES_WARM, "ms");
    tt_point(&r, "fusion", "main.staged", RES_WARM, "ms");
    tt_point(&r, "fusion", "n=1024.staged", RES_WARM, "ms");
    tt_point(&r, "fusion", "main.fused.cold", RES_L2_COLD, "ms");
    tt_point(&r, "launch", "device.grid", RES_WARM, "us");
    /* A derived entry of that key in another section is not the roof. */
    res_derive(&r, "launch", "copy_floor", "not a roof", 10.0, "GB/s", "");
    o = tt_roofline(&r);
    th_check("roofline: nothing without section fusion's copy floor", o && !*o);
    free(o);
    res_derive(&r, "fusion", "copy_floor", "the copy floor", 3000.0, "GB/s", "main.copy4");
    o = tt_roofline(&r);
    th_check("roofline: the roofs are fusion's copy floor and the FP32 peak",
             o && strstr(o, "the roofs are the best copy\nfloor, 3000.0 GB/s, and the FP32 peak, 60000 GFLOP/s (by hand;"));
    th_check("roofline: a warm ms row of any section with a model, fusion's at the main size only",
             o && strstr(o, "  stopwatches  row4 ") && strstr(o, "  fusion       main.staged ") &&
             !strstr(o, "n=1024.staged") && !strstr(o, "main.fused.cold") && !strstr(o, "device.grid"));
    th_check("roofline: attainable is min(peak, intensity x floor), achieved the flops over the median",
             o && strstr(o, "  stopwatches  row4 ") &&
             sscanf(strstr(o, "  stopwatches  row4 "), " stopwatches row4 %ld %lf %lf %lf %lf", &n, &ai,
                    &att, &ach, &pct) == 5 && n == 1000 && ai == 0.5 && att == 1500.0 &&
             ach == 2000.0 && pct == 133.3);
    free(o);
    res_free(&r);
}

void test_table(void)
{
    tt_fit_tests();
    tt_summary_tests();
    tt_roofline_tests();
}
