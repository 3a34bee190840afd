/* test_visible.c: section visible's pure parts: the counts a node is
 * measured at, the CUDA_VISIBLE_DEVICES of the first k entries, the
 * conclusions (vi_conclude) on results built by hand with every figure
 * worked out by hand, the printed table, and the section's place in the
 * table of sections (first) and its --child word. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testhelp.h"
#include "core/results.h"
#include "run/cli.h"
#include "run/section.h"
#include "run/table.h"
#include "sections/visible/visible.h"

#define TV "visible"

/* 1 when vi_counts(n) is exactly want[0..nw-1]. */
static int tv_counts_are(int n, const int *want, size_t nw)
{
    int k[VI_MAX_COUNTS];
    size_t nk = vi_counts(n, k, VI_MAX_COUNTS);
    return nk == nw && (nw == 0 || memcmp(k, want, nw * sizeof *want) == 0);
}

static void tv_counts(void)
{
    static const int c1[] = { 1 }, c2[] = { 1, 2 }, c3[] = { 1, 2, 3 }, c4[] = { 1, 2, 3, 4 };
    static const int c5[] = { 1, 2, 4, 5 }, c8[] = { 1, 2, 4, 8 }, c9[] = { 1, 2, 4, 8, 9 };
    static const int c16[] = { 1, 2, 4, 8, 16 };
    int k[2];

    th_check("visible: no counts for 0 devices", tv_counts_are(0, NULL, 0));
    th_check("visible: no counts for -1 devices", tv_counts_are(-1, NULL, 0));
    th_check("visible: 1 device: 1", tv_counts_are(1, c1, 1));
    th_check("visible: 2 devices: 1, 2", tv_counts_are(2, c2, 2));
    th_check("visible: 3 devices: 1, 2, 3", tv_counts_are(3, c3, 3));
    th_check("visible: 4 devices: every count, 1..4", tv_counts_are(4, c4, 4));
    th_check("visible: 5 devices: 1, 2, 4, 5", tv_counts_are(5, c5, 4));
    th_check("visible: 8 devices: 1, 2, 4, 8 (8 once)", tv_counts_are(8, c8, 4));
    th_check("visible: 9 devices: 1, 2, 4, 8, 9", tv_counts_are(9, c9, 5));
    th_check("visible: 16 devices: 1, 2, 4, 8, 16", tv_counts_are(16, c16, 5));
    th_check("visible: the counts stop at the room given",
             vi_counts(8, k, 2) == 2 && k[0] == 1 && k[1] == 2);
}

/* 1 when vi_visible_prefix(parent, k) into len bytes gives want (NULL:
 * fails with a reason). */
static int tv_prefix_is(const char *parent, int k, size_t len, const char *want)
{
    char buf[256];
    const char *why = NULL;
    int rc = vi_visible_prefix(parent, k, buf, len, &why);
    if (!want) return rc == -1 && why && *why;
    return rc == 0 && strcmp(buf, want) == 0;
}

static void tv_prefix(void)
{
    th_check("visible: no CUDA_VISIBLE_DEVICES, 1: \"0\"", tv_prefix_is(NULL, 1, 256, "0"));
    th_check("visible: no CUDA_VISIBLE_DEVICES, 3: \"0,1,2\"", tv_prefix_is(NULL, 3, 256, "0,1,2"));
    th_check("visible: no CUDA_VISIBLE_DEVICES, 12: \"0,...,11\"",
             tv_prefix_is(NULL, 12, 256, "0,1,2,3,4,5,6,7,8,9,10,11"));
    th_check("visible: 3,5,6, the first 2: \"3,5\"", tv_prefix_is("3,5,6", 2, 256, "3,5"));
    th_check("visible: 3,5,6, all 3", tv_prefix_is("3,5,6", 3, 256, "3,5,6"));
    th_check("visible: 3,5,6, 4: fewer entries, a reason", tv_prefix_is("3,5,6", 4, 256, NULL));
    th_check("visible: UUIDs are copied as text",
             tv_prefix_is("GPU-8a1b2c3d-0000-1111-2222-333344445555,GPU-ffff", 1, 256,
                          "GPU-8a1b2c3d-0000-1111-2222-333344445555"));
    th_check("visible: MIG names with slashes, two of three",
             tv_prefix_is("MIG-GPU-aa/1/0,MIG-GPU-aa/2/0,7", 2, 256, "MIG-GPU-aa/1/0,MIG-GPU-aa/2/0"));
    th_check("visible: an entry the driver would stop at is copied all the same",
             tv_prefix_is("0,x,2", 3, 256, "0,x,2"));
    th_check("visible: exactly the room: \"3,5\" in 4 bytes", tv_prefix_is("3,5,6", 2, 4, "3,5"));
    th_check("visible: one byte short: too long, a reason", tv_prefix_is("3,5,6", 2, 3, NULL));
    th_check("visible: 0,1,2 in 5 bytes is one short", tv_prefix_is(NULL, 3, 5, NULL));
    th_check("visible: a count of 0: a reason", tv_prefix_is(NULL, 0, 256, NULL));
}

/* The "devices" entry the parent stores: N, the text, rounds. */
static void tv_devices(results *r, int n, int rounds, const char *text)
{
    res_derived *d = res_derive(r, TV, "devices", "devices", n, "devices", text);
    res_derived_field(d, "n", n);
    res_derived_field(d, "rounds", rounds);
}

/* Count k's figure, one sample per round: base + step * i in round i. */
static void tv_fig(results *r, int k, const char *fig, double base, double step, int rounds)
{
    char key[64];
    int i;
    snprintf(key, sizeof key, "k%d.%s", k, fig);
    for (i = 0; i < rounds; i++)
        res_append(r, TV, key, key, "by hand", RES_PROCESS, "ms", base + step * i);
}

/* A count's children as the stand-in driver at 3 ms a device would have
 * them, per round i of 3: load 0.2 + 0.05 i, init 3k + 0.1 i, count 0.005,
 * ctx0 3 + 0.1 i, ready (their sum) 3k + 3.205 + 0.25 i, ctx_others
 * 3(k - 1) + 0.3 i, total 6k + 0.5 i. So the medians (round 1's) are init
 * 3k + 0.1, ready 3k + 3.455, ctx_others 3(k - 1) + 0.3 and total 6k +
 * 0.5, each interval [round 0, round 2] (n = 3: [min, max]). */
static void tv_count(results *r, int k, int rounds)
{
    tv_fig(r, k, "load", 0.2, 0.05, rounds);
    tv_fig(r, k, "init", 3.0 * k, 0.1, rounds);
    tv_fig(r, k, "count", 0.005, 0, rounds);
    tv_fig(r, k, "ctx0", 3.0, 0.1, rounds);
    tv_fig(r, k, "ready", 3.0 * k + 3.205, 0.25, rounds);
    if (k > 1) tv_fig(r, k, "ctx_others", 3.0 * (k - 1), 0.3, rounds);
    tv_fig(r, k, "total", 6.0 * k, 0.5, rounds);
}

static int tv_near(double got, double want)
{
    return fabs(got - want) <= 1e-9;
}

static const res_derived *tv_d(const results *r, const char *key)
{
    return res_derived_find(r, TV, key);
}

/* N = 8, 3 rounds: the saving 48.5 - 6.5 = 42 ms, 42 / 48.5 of the cold
 * start, intervals [6, 7] and [48, 49] apart; per extra device: k2 3.3 / 1,
 * k4 9.3 / 3 = 3.1, k8 21.3 / 7. */
static void tv_conclude_eight(void)
{
    static const int k[] = { 1, 2, 4, 8 };
    const res_derived *d;
    results r;
    size_t i;

    res_init(&r);
    tv_devices(&r, 8, 3, "CUDA_VISIBLE_DEVICES unset");
    for (i = 0; i < 4; i++) tv_count(&r, k[i], 3);
    th_check("visible: vi_conclude stores its conclusions (N = 8)", vi_conclude(&r) == 0);
    d = tv_d(&r, "saving");
    th_check("visible: N = 8: the saving is total(8) - total(1) = 48.5 - 6.5 = 42 ms",
             d && tv_near(d->value, 42.0) && strcmp(d->unit, "ms") == 0);
    th_check("visible: N = 8: the saving's fields: the two medians, N, the percent",
             d && tv_near(res_derived_num(d, "total_1"), 6.5) &&
             tv_near(res_derived_num(d, "total_n"), 48.5) && res_derived_num(d, "n") == 8 &&
             tv_near(res_derived_num(d, "pct"), 100.0 * 42.0 / 48.5));
    th_check("visible: N = 8: intervals [6, 7] and [48, 49]: apart",
             d && strcmp(d->text, "intervals apart") == 0 &&
             tv_near(res_derived_num(d, "total_1_low"), 6.0) &&
             tv_near(res_derived_num(d, "total_n_high"), 49.0));
    d = tv_d(&r, "saving_one_gpu");
    th_check("visible: N = 8: a process that uses device 0 alone saves ready(8) - ready(1) = 27.455 "
             "- 6.455 = 21 ms (7 devices' cuInit), intervals apart",
             d && tv_near(d->value, 21.0) && tv_near(res_derived_num(d, "ready_1"), 6.455) &&
             tv_near(res_derived_num(d, "ready_n"), 27.455) &&
             tv_near(res_derived_num(d, "pct"), 100.0 * 21.0 / 27.455) &&
             strcmp(d->text, "intervals apart") == 0);
    d = tv_d(&r, "k4.per_device");
    th_check("visible: k4: the contexts on devices 1..3 (9.3 ms) over 3: 3.1 ms",
             d && tv_near(d->value, 3.1) && res_derived_num(d, "k") == 4 &&
             tv_near(res_derived_num(d, "ctx_others"), 9.3));
    d = tv_d(&r, "k8.per_device");
    th_check("visible: k8: 21.3 ms over 7", d && tv_near(d->value, 21.3 / 7));
    d = tv_d(&r, "k2.per_device");
    th_check("visible: k2: 3.3 ms over 1", d && tv_near(d->value, 3.3));
    th_check("visible: no per-device entry for k1 (no other device)", !tv_d(&r, "k1.per_device"));
    res_free(&r);
}

/* The other readings: one device, one round, overlapping intervals, a
 * count without figures, no devices entry. */
static void tv_conclude_cases(void)
{
    const res_derived *d;
    results r;

    res_init(&r);
    tv_devices(&r, 1, 3, "CUDA_VISIBLE_DEVICES unset");
    tv_count(&r, 1, 3);
    th_check("visible: N = 1: concluded", vi_conclude(&r) == 0);
    d = tv_d(&r, "saving");
    th_check("visible: N = 1: no figure, the text says there is nothing to restrict",
             d && isnan(d->value) && strstr(d->text, "Only one device is visible") &&
             strstr(d->text, "nothing to restrict") && strstr(d->text, "CUDA_VISIBLE_DEVICES"));
    d = tv_d(&r, "saving_one_gpu");
    th_check("visible: N = 1: the one-device saving says the same",
             d && isnan(d->value) && strstr(d->text, "nothing to restrict"));
    res_free(&r);

    res_init(&r);
    tv_devices(&r, 2, 1, "CUDA_VISIBLE_DEVICES=0,1");
    tv_count(&r, 1, 1);
    tv_count(&r, 2, 1);
    vi_conclude(&r);
    d = tv_d(&r, "saving");
    th_check("visible: one round: 12 - 6 = 6 ms, \"one round\"",
             d && tv_near(d->value, 6.0) && strcmp(d->text, "one round") == 0);
    res_free(&r);

    res_init(&r);
    tv_devices(&r, 2, 3, "CUDA_VISIBLE_DEVICES unset");
    tv_fig(&r, 1, "total", 5.0, 1.0, 3);
    tv_fig(&r, 2, "total", 6.5, 0.5, 3);
    vi_conclude(&r);
    d = tv_d(&r, "saving");
    th_check("visible: [5, 7] against [6.5, 7.5]: 7 - 6 = 1 ms, the intervals overlap",
             d && tv_near(d->value, 1.0) && strcmp(d->text, "intervals overlap") == 0);
    res_free(&r);

    res_init(&r);
    tv_devices(&r, 4, 3, "CUDA_VISIBLE_DEVICES unset");
    tv_count(&r, 1, 3);
    tv_count(&r, 2, 3);
    vi_conclude(&r);
    d = tv_d(&r, "saving");
    th_check("visible: N = 4 without k4's figures: no figure, the text names the count",
             d && isnan(d->value) && strstr(d->text, "No saving: 4 visible has no figures"));
    res_free(&r);

    res_init(&r);
    tv_count(&r, 1, 3);
    th_check("visible: without the devices entry nothing is concluded",
             vi_conclude(&r) == 0 && r.nd == 0);
    res_free(&r);
}

/* The section's table of r, as text (the caller frees it), every run of
 * spaces and line breaks made one space, so that a row or a sentence reads
 * the same however the table aligned or wrapped it. */
static char *tv_print(const results *r)
{
    char *text = NULL, *o, *p;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    tb_section(f, r, sec_table[CLI_SEC_VISIBLE].name, sec_table[CLI_SEC_VISIBLE].print);
    fclose(f);
    if (getenv("TABLE_SHOW")) fputs(text, stdout);
    for (o = p = text; *p; p++) {
        if (*p == '\n' || *p == ' ') {
            while (p[1] == ' ' || p[1] == '\n') p++;
            *o++ = ' ';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return text;
}

static void tv_table(void)
{
    static const int k[] = { 1, 2, 4, 8 };
    results r;
    char *t;
    size_t i;

    res_init(&r);
    tv_devices(&r, 8, 3, "CUDA_VISIBLE_DEVICES unset");
    for (i = 0; i < 4; i++) tv_count(&r, k[i], 3);
    vi_conclude(&r);
    t = tv_print(&r);
    th_check("visible table: the header names N and the visibility",
             t && strstr(t, "this process sees 8 (CUDA_VISIBLE_DEVICES unset)"));
    th_check("visible table: k = 8's row: cuInit 24.100, others 21.300, total 48.500, 21.3/7, 3 runs",
             t && strstr(t, " 8 0.250 24.100 0.005 3.100 21.300 48.500 3.043 3 "));
    th_check("visible table: k = 1's row: no others, no per-device figure",
             t && strstr(t, " 1 0.250 3.100 0.005 3.100 - 6.500 - 3 "));
    th_check("visible table: each median's interval below it",
             t && strstr(t, "[3.00, 3.20] [21.0, 21.6] [48.0, 49.0]"));
    th_check("visible table: both savings in words, from their entries",
             t && strstr(t, "Restricting CUDA_VISIBLE_DEVICES from 8 devices to the one a process "
                            "uses saves a process that uses only that device 21.000 ms of its "
                            "27.455 ms to that device's context (76%; 6.455 ms with 1 visible; "
                            "intervals apart), and one that makes a context on every device it "
                            "sees 42.000 ms of its 48.500 ms total (87%; 6.500 ms with 1 visible; "
                            "intervals apart)."));
    th_check("visible table: the region of the cold start to context 0", t && strstr(t, "to context 0 by hand"));
    th_check("visible table: each region named", t && strstr(t, "cuInit by hand"));
    free(t);
    res_free(&r);

    res_init(&r);
    tv_devices(&r, 1, 3, "CUDA_VISIBLE_DEVICES unset");
    tv_count(&r, 1, 3);
    vi_conclude(&r);
    t = tv_print(&r);
    th_check("visible table: one device: one row and the sentence that there is nothing to restrict",
             t && strstr(t, " 1 0.250 3.100 ") && !strstr(t, " 2 0.250 ") &&
             strstr(t, "Only one device is visible to this process, so there is nothing to restrict."));
    free(t);
    res_free(&r);

    res_init(&r);
    t = tv_print(&r);
    th_check("visible table: nothing stored, nothing printed", t && t[0] == '\0');
    free(t);
    res_free(&r);
}

/* First in the table of sections, its child word, its owner. */
static void tv_place(void)
{
    char a0[] = "harness", a1[] = "--child=visible";
    char *argv[] = { a0, a1, NULL };
    FILE *out = fopen("/dev/null", "w"), *err = fopen("/dev/null", "w");
    cli_opts o;
    int rc = out && err ? cli_parse(2, argv, sec_names(), &o, out, err) : -1;

    if (out) fclose(out);
    if (err) fclose(err);
    th_check("visible: section 0 of the table, before stopwatches",
             CLI_SEC_VISIBLE == 0 && strcmp(sec_table[CLI_SEC_VISIBLE].name, "visible") == 0 &&
             strcmp(sec_table[CLI_SEC_STOPWATCHES].name, "stopwatches") == 0);
    th_check("visible: --child=visible parses to its child kind",
             rc == CLI_OK && o.child == CLI_CHILD_VISIBLE &&
             strcmp(cli_child_name(CLI_CHILD_VISIBLE), "visible") == 0);
    th_check("visible: the section owns its child kind",
             sec_of_child(CLI_CHILD_VISIBLE) == &sec_table[CLI_SEC_VISIBLE]);
}

void test_visible(void)
{
    tv_counts();
    tv_prefix();
    tv_conclude_eight();
    tv_conclude_cases();
    tv_table();
    tv_place();
}
