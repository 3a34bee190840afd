/* test_precord.c: the program record's reader (precord.h) on a record
 * written out by hand here: read back whole; every shorter prefix refused
 * (truncated); forged copies refused, each with its reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe/precord.h"
#include "testhelp.h"

#define REC_HEAD                                                                        \
    "env\trecord\ts\tharness-probe 1\n"                                                 \
    "env\tversion\ts\t" HARNESS_VERSION "\n"                                            \
    "env\tpid\tn\t4242\n"                                                               \
    "env\tppid\tn\t4200\n"                                                              \
    "env\tcommand\ts\tpython3 app.py\n"                                                 \
    "env\twritten\ts\texit\n"                                                           \
    "env\tcupti\ts\tok\n"                                                               \
    "env\tloading_mode\ts\tLAZY\n"

#define REC_FIGS                                                                        \
    "m\tprogram\tat.probe\tp\tr\tprocess\tms\t1\t0\t0\t0\t120.5\t0\t0\t0\t\n"           \
    "m\tprogram\tat.first_kernel\tf\tr\tprocess\tms\t1\t0\t0\t0\t330.25\t0\t0\t0\t\n"   \
    "m\tprogram\tlibrary_load.n\tn\tr\tprocess\tcount\t1\t0\t0\t0\t11\t0\t0\t0\t\n"     \
    "m\tprogram\tmem.first_kernel\tm\tr\tprocess\tMiB\t1\t0\t0\t0\t909\t0\t0\t0\t\n"

#define REC_SLOW                                                                        \
    "d\tprogram\tslowest.1\tvoid k(float*)\t3.5\tms\t\tget_ms=2.5,launch_ms=1\n"        \
    "d\tprogram\tslowest.2\tk2\t1\tms\t\tget_ms=0.5,launch_ms=0.5\n"

#define REC_SPAN "span\t4243\tcuLibraryLoadData\t121\t5.5\n"

static const char good[] = REC_HEAD REC_FIGS REC_SLOW REC_SPAN "end\t4242\t14\n";

/* 1 when text is refused and the reason holds want. */
static int refused(const char *text, long pid, const char *want)
{
    prc_record rec;
    char why[300];
    int rc = prc_read(text, strlen(text), pid, &rec, why, sizeof why);
    if (rc == 0) {
        prc_free(&rec);
        return 0;
    }
    if (!strstr(why, want)) printf("  (why: %s)\n", why);
    return strstr(why, want) != NULL;
}

/* good with the first occurrence of from replaced by to, into buf. */
static const char *forge(char *buf, size_t len, const char *from, const char *to)
{
    const char *at = strstr(good, from);
    if (!at) return good;
    snprintf(buf, len, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
    return buf;
}

#define REC_FAIL "d\tprogram\tfail.1\tlibcusolver.so.11\t400\tms\tcuLibraryLoadData " \
                 "CUDA_ERROR_OUT_OF_MEMORY\terror=2,free_mib=212\n"

/* A record with one failed call (fail.1) is read back, its text taken
 * apart; a forged one is refused: an unknown call, an error name of other
 * characters, no error or a fractional one, no name, a fail before a load. */
static void check_fails(void)
{
    static const char with[] = REC_HEAD REC_FIGS REC_SLOW REC_FAIL "end\t4242\t15\n";
    static const struct { const char *from, *to; } bad[] = {
        { "cuLibraryLoadData CUDA", "cuMemAlloc CUDA" },
        { "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
        { "CUDA_ERROR_OUT_OF_MEMORY", "" },
        { "error=2,", "" },
        { "error=2,", "error=2.5," },
        { "error=2,", "error=0," },
        { "libcusolver.so.11", "" },
        { "free_mib=212", "free_mib=-1" },
        { "fail.1", "fail.2" },
    };
    prc_record rec;
    char why[300], buf[4096], call[48], err[64];
    const char *at;
    size_t i, refused_all = 1;

    th_check("precord: a record with a failed call reads back, its text \"<call> <error>\"",
             prc_read(with, strlen(with), 4242, &rec, why, sizeof why) == 0 &&
             res_derived_find(&rec.r, PRC_SECTION, "fail.1") &&
             prc_fail_text(res_derived_find(&rec.r, PRC_SECTION, "fail.1")->text, call, sizeof call,
                           err, sizeof err) == 0 &&
             strcmp(call, "cuLibraryLoadData") == 0 && strcmp(err, "CUDA_ERROR_OUT_OF_MEMORY") == 0);
    prc_free(&rec);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at = strstr(with, bad[i].from);
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - with), with, bad[i].to, at + strlen(bad[i].from));
        if (!refused(buf, 4242, i == 8 ? "is not" : "failed call")) {
            printf("  (accepted: %s -> %s)\n", bad[i].from, bad[i].to);
            refused_all = 0;
        }
    }
    th_check("precord: a forged failed call is refused (a call not of the list, an error name of "
             "other characters or none, no error or not a whole one, no name, free memory below 0, "
             "out of order)", refused_all);
    th_check("precord: a fail entry before a load's is out of order",
             refused(REC_HEAD REC_FIGS REC_SLOW REC_FAIL
                     "d\tprogram\tload.1\tlibrary\t500\tms\t\tn=1,ms=2\n" "end\t4242\t16\n", 4242,
                     "is not"));
    th_check("precord: \"? \" is the error name where the driver gave none; a call alone is not a text",
             prc_fail_text("cuLaunchKernel ?", call, sizeof call, err, sizeof err) == 0 &&
             strcmp(err, "?") == 0 && prc_fail_text("cuLaunchKernel", call, sizeof call, err, sizeof err) != 0);
}

/* The table's name column holds every name of a figure, calls and times
 * inside them included (a longer one pushes its row's cells right). */
static void test_names_fit(void)
{
    size_t i, widest = 0;
    const char *name = "";
    for (i = 0; i < PRC_NFIGS; i++)
        if (strlen(prc_figs[i].name) > widest) {
            widest = strlen(prc_figs[i].name);
            name = prc_figs[i].name;
        }
    th_check("precord: every figure's name fits the table's name column", widest <= PRC_NAME_WIDTH);
    if (widest > PRC_NAME_WIDTH) fprintf(stderr, "  widest: \"%s\", %zu\n", name, widest);
}

void test_precord(void)
{
    prc_record rec;
    char why[300], buf[4096];
    size_t len = strlen(good), cut, bad = 0;
    const res_meas *m;

    test_names_fit();

    th_check("precord: the hand-written record reads back",
             prc_read(good, len, 4242, &rec, why, sizeof why) == 0);
    m = res_find(&rec.r, PRC_SECTION, "at.first_kernel");
    th_check("precord: its figures as written (at.first_kernel 330.25, 11 library loads)",
             m && m->samples[0] == 330.25 && res_find(&rec.r, PRC_SECTION, "library_load.n") &&
             res_find(&rec.r, PRC_SECTION, "library_load.n")->samples[0] == 11);
    th_check("precord: pid and ppid", rec.pid == 4242 && rec.ppid == 4200);
    th_check("precord: its span (thread 4243, cuLibraryLoadData, 121 + 5.5 ms)",
             rec.nspans == 1 && rec.spans[0].tid == 4243 &&
             strcmp(rec.spans[0].name, "cuLibraryLoadData") == 0 && rec.spans[0].start_ms == 121 &&
             rec.spans[0].ms == 5.5);
    th_check("precord: the slowest first use, named",
             rec.r.nd == 2 && strcmp(rec.r.d[0].name, "void k(float*)") == 0);
    prc_free(&rec);
    th_check("precord: the pid of the file taken from the record with -1",
             prc_read(good, len, -1, &rec, why, sizeof why) == 0 && rec.pid == 4242);
    prc_free(&rec);
    /* Every prefix short of the last newline lacks the end line, or cuts it. */
    for (cut = 0; cut + 1 < len; cut++) {
        if (prc_read(good, cut, 4242, &rec, why, sizeof why) == 0) {
            prc_free(&rec);
            bad++;
        }
    }
    th_check("precord: every truncation of the record is refused", bad == 0);
    th_check("precord: truncated before the end line: says so", refused(REC_HEAD REC_FIGS, 4242,
                                                                         "truncated: no end line"));
    th_check("precord: a record line lost: the end line's count disagrees",
             refused(REC_HEAD REC_FIGS REC_SLOW "end\t4242\t15\n", 4242, "truncated: 14 records"));
    th_check("precord: another process's file", refused(good, 4243, "end line's pid 4242 is not the file's"));
    th_check("precord: the end line's pid forged",
             refused(forge(buf, sizeof buf, "end\t4242", "end\t4243"), 4243, "its pid is not the file's"));
    th_check("precord: another format", refused(forge(buf, sizeof buf, "harness-probe 1", "harness-probe 2"),
                                                4242, "not a record of format"));
    th_check("precord: another version", refused(forge(buf, sizeof buf, "\tversion\ts\t", "\tversion\ts\t9"),
                                                 4242, "written by probe version 9"));
    th_check("precord: a figure the schema does not have",
             refused(forge(buf, sizeof buf, "\tat.probe\t", "\tat.prob\t"), 4242, "not one of the record's"));
    th_check("precord: an env field the schema does not have",
             refused(forge(buf, sizeof buf, "\tcupti\t", "\tcuptix\t"), 4242, "env field cuptix"));
    th_check("precord: a negative time", refused(forge(buf, sizeof buf, "\t330.25\t", "\t-330.25\t"), 4242,
                                                 "out of its bounds"));
    th_check("precord: a count that is not whole", refused(forge(buf, sizeof buf, "\t11\t0", "\t11.5\t0"),
                                                           4242, "out of its bounds"));
    th_check("precord: a time beyond 1e9 ms", refused(forge(buf, sizeof buf, "\t330.25\t", "\t2e9\t"), 4242,
                                                      "out of its bounds"));
    th_check("precord: not a number", refused(forge(buf, sizeof buf, "\t330.25\t", "\tnan\t"), 4242, ""));
    th_check("precord: the first kernel before the probe's load",
             refused(forge(buf, sizeof buf, "\t330.25\t", "\t100\t"), 4242, "comes before an earlier moment"));
    th_check("precord: a figure in another unit", refused(forge(buf, sizeof buf, "\tMiB\t1", "\tGiB\t1"), 4242,
                                                          "expected one sample in MiB"));
    th_check("precord: two samples", refused(forge(buf, sizeof buf, "\t909\t", "\t909,910\t"), 4242,
                                            "expected one sample"));
    th_check("precord: a figure of another section",
             refused(forge(buf, sizeof buf, "m\tprogram\tat.probe", "m\tloading\tat.probe"), 4242,
                     "figure loading/at.probe"));
    th_check("precord: the slowest out of order", refused(forge(buf, sizeof buf, "\t3.5\tms", "\t0.5\tms"),
                                                          4242, "out-of-order"));
    th_check("precord: a nameless first use", refused(forge(buf, sizeof buf, "\tk2\t", "\t\t"), 4242,
                                                      "nameless"));
    th_check("precord: a line of another kind", refused(forge(buf, sizeof buf, "span\t", "spam\t"), 4242,
                                                        "neither a record"));
    th_check("precord: a check line (results' kind, never the probe's)",
             refused(forge(buf, sizeof buf, "span\t4243\tcuLibraryLoadData\t121\t5.5\n",
                           "check\tprogram\tx\t1\tok\n"), 4242, "neither a record"));
    th_check("precord: a line after the end", refused(REC_HEAD REC_FIGS REC_SLOW "end\t4242\t14\nenv\tx\ts\ty\n",
                                                      4242, "after the end line"));
    th_check("precord: a malformed span", refused(forge(buf, sizeof buf, "\t121\t5.5", "\t121\tx"), 4242,
                                                  "span 1: malformed"));
    th_check("precord: the line form's own \"incomplete 0\" line, uncounted",
             prc_read(REC_HEAD REC_FIGS REC_SLOW "incomplete\t0\n" "end\t4242\t14\n",
                      strlen(REC_HEAD REC_FIGS REC_SLOW "incomplete\t0\n" "end\t4242\t14\n"), 4242,
                      &rec, why, sizeof why) == 0);
    prc_free(&rec);
    th_check("precord: \"incomplete 1\" refused",
             refused(REC_HEAD REC_FIGS REC_SLOW "incomplete\t1\n" "end\t4242\t14\n", 4242,
                     "an incomplete line other than"));
    th_check("precord: a NUL byte", prc_read("env\0x", 5, 1, &rec, why, sizeof why) == -1 &&
                                        strstr(why, "NUL") != NULL);
    check_fails();
}
