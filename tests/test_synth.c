/* test_synth.c: unit tests of the synthetic module (kn_synth_size,
 * kn_synth_source, kn_synth_name, kn_check_synth in src/cuda/kernels.c) and
 * of rtc_phase_times (src/cuda/rtc.c). NVRTC runs on the host; no GPU. */
#include "testhelp.h"
#include "cuda/kernels.h"
#include "cuda/rtc.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Does src define kernel i ("void synth<i>(")? */
static int ts_defines(const char *src, long i)
{
    char name[64], pat[80];
    kn_synth_name(i, name, sizeof name);
    snprintf(pat, sizeof pat, "void %s(", name);
    return strstr(src, pat) != NULL;
}

/* Lines of text holding ".entry". */
static long ts_entries(const char *text)
{
    long n = 0;
    const char *p = text;
    while ((p = strstr(p, ".entry")) != NULL) {
        n++;
        p = strchr(p, '\n');
        if (!p) break;
    }
    return n;
}

/* Write text to path. Returns 0, or -1. */
static int ts_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    size_t len = strlen(text);
    int rc = 0;
    if (!f) return -1;
    if (len > 0 && fwrite(text, 1, len, f) != len) rc = -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

/* kn_synth_size against the generated text, and the text itself. */
static void ts_source(void)
{
    static const long ks[] = { 1, 9, 10, 11, 99, 100, 101, 1000, 12345 };
    static const char kernel0[] =
        "extern \"C\" __global__ void synth0(const float *in, float *out, int n)\n{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (j < n) out[j] = in[j] * 1.0f + 1.0f;\n}\n";
    static const char kernel6[] =
        "extern \"C\" __global__ void synth6(const float *in, float *out, int n)\n{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (j < n) out[j] = in[j] * 7.0f + 1.0f;\n}\n";
    char why[256], desc[256], name[32];
    size_t i;
    char *src;
    long j;
    int all;

    for (i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        src = kn_synth_source(ks[i], why, sizeof why);
        snprintf(desc, sizeof desc, "synth: kn_synth_size(%ld) == strlen(kn_synth_source(%ld))",
                 ks[i], ks[i]);
        th_check(desc, src != NULL && strlen(src) == kn_synth_size(ks[i]));
        free(src);
    }
    th_check("synth: kn_synth_size of k < 1 is 0", kn_synth_size(0) == 0 && kn_synth_size(-1) == 0);

    src = kn_synth_source(10, why, sizeof why);
    th_check("synth: kn_synth_source(10) succeeds", src != NULL);
    if (!src) return;
    for (j = 0, all = 1; j < 10; j++) all &= ts_defines(src, j);
    th_check("synth: k = 10 defines synth0 .. synth9", all);
    th_check("synth: k = 10 does not define synth10", !ts_defines(src, 10));
    th_check("synth: the source opens with one comment line, then kernel 0 verbatim",
             strncmp(src, "//", 2) == 0 && strchr(src, '\n') != NULL &&
             strncmp(strchr(src, '\n') + 1, kernel0, sizeof kernel0 - 1) == 0);
    th_check("synth: kernel 6 is verbatim, with factor 7.0f", strstr(src, kernel6) != NULL);
    th_check("synth: the source ends with kernel 9's closing brace",
             strlen(src) >= 3 && strcmp(src + strlen(src) - 3, "\n}\n") == 0);
    free(src);

    kn_synth_name(17, name, sizeof name);
    th_check("synth: kn_synth_name(17) is synth17", strcmp(name, "synth17") == 0);
    kn_synth_name(12345, name, 6);
    th_check("synth: kn_synth_name truncates to the buffer", strcmp(name, "synth") == 0);
}

/* k < 1 and k over the size limit are refused; k just under it is not. */
static void ts_limits(void)
{
    char why[256], desc[512];
    long lo = 1, hi = 1L << 24, kbig;
    char *src;

    why[0] = '\0';
    src = kn_synth_source(0, why, sizeof why);
    th_check("synth: k = 0 is refused with a reason", src == NULL && why[0] != '\0');
    free(src);
    why[0] = '\0';
    src = kn_synth_source(-1, why, sizeof why);
    th_check("synth: k = -1 is refused with a reason", src == NULL && why[0] != '\0');
    free(src);
    why[0] = '\0';
    src = kn_synth_source(LONG_MAX, why, sizeof why);
    th_check("synth: k = LONG_MAX is refused (the size saturates, no overflow)",
             src == NULL && why[0] != '\0' && kn_synth_size(LONG_MAX) > KN_SYNTH_MAX_SOURCE);
    free(src);

    /* The smallest k whose source passes KN_SYNTH_MAX_SOURCE: sizes grow
     * with k, kn_synth_size(lo) <= limit < kn_synth_size(hi). */
    th_check("synth: kn_synth_size(2^24) passes the limit",
             kn_synth_size(hi) > KN_SYNTH_MAX_SOURCE);
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (kn_synth_size(mid) > KN_SYNTH_MAX_SOURCE) hi = mid;
        else lo = mid;
    }
    kbig = hi;

    why[0] = '\0';
    src = kn_synth_source(kbig, why, sizeof why);
    snprintf(desc, sizeof desc, "synth: k = %ld (%zu bytes, the smallest over %u) is refused, "
             "the reason in MiB: %s", kbig, kn_synth_size(kbig), KN_SYNTH_MAX_SOURCE, why);
    th_check(desc, src == NULL && strstr(why, "MiB") != NULL && strstr(why, "64.00") != NULL);
    free(src);

    src = kn_synth_source(kbig - 1, why, sizeof why);
    snprintf(desc, sizeof desc, "synth: k = %ld (%zu bytes, just under the limit) is accepted",
             kbig - 1, kn_synth_size(kbig - 1));
    th_check(desc, src != NULL && strlen(src) == kn_synth_size(kbig - 1) &&
             kn_synth_size(kbig - 1) <= KN_SYNTH_MAX_SOURCE && ts_defines(src, kbig - 2) &&
             !ts_defines(src, kbig - 1));
    free(src);
}

/* NVRTC compiles the generated source to PTX and cubin. Returns whether
 * NVRTC is loaded. */
static int ts_compile(void)
{
    static const long ks[] = { 1, 10, 100 };
    char why[256], desc[320];
    rtc_out out;
    size_t i;
    int rc;

    if (rtc_load(why, sizeof why) != 0) {
        snprintf(desc, sizeof desc, "synth: rtc_load: %s", why);
        th_check(desc, 0);
        return 0;
    }
    for (i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        char *src = kn_synth_source(ks[i], why, sizeof why);
        if (!src) {
            snprintf(desc, sizeof desc, "synth: kn_synth_source(%ld): %s", ks[i], why);
            th_check(desc, 0);
            continue;
        }
        rc = rtc_compile(src, "synth.cu", "sm_90", RTC_PTX, NULL, 0, &out);
        snprintf(desc, sizeof desc, "synth: k = %ld compiles to PTX with %ld .entry lines",
                 ks[i], ks[i]);
        th_check(desc, rc == RTC_OK && out.code != NULL && ts_entries(out.code) == ks[i]);
        if (rc == RTC_COMPILE_ERROR && out.log) printf("%s\n", out.log);
        rtc_out_free(&out);

        rc = rtc_compile(src, "synth.cu", "sm_90", RTC_CUBIN, NULL, 0, &out);
        snprintf(desc, sizeof desc, "synth: k = %ld compiles to an sm_90 cubin (ELF)", ks[i]);
        th_check(desc, rc == RTC_OK && out.size > 4 && memcmp(out.code, "\177ELF", 4) == 0);
        rtc_out_free(&out);
        free(src);
    }
    return 1;
}

/* kn_check_synth for kernel i on n elements. */
static void ts_check_one(long i)
{
    enum { N = 1000 };
    float in[N], out[N], wrong[N];
    float factor = (float)(i + 1);
    char desc[256];
    kn_bad bad;
    size_t j, count;

    kn_fill(in, N, (unsigned)(i & 0xffff) + 3u);
    for (j = 0; j < N; j++) {
        out[j] = in[j] * factor + 1.0f;
        wrong[j] = in[j] * (2.0f * factor) + 1.0f;   /* twice the factor */
    }
    snprintf(desc, sizeof desc, "synth: kn_check_synth(%ld) accepts the right output", i);
    th_check(desc, kn_check_synth(i, in, out, N, &bad) == 0 && bad.count == 0);

    out[5] = out[5] * 1.001f + 0.01f;
    out[300] = NAN;
    count = kn_check_synth(i, in, out, N, &bad);
    snprintf(desc, sizeof desc, "synth: kn_check_synth(%ld) catches a wrong element and a NaN, "
             "first at 5 with its reference", i);
    th_check(desc, count == 2 && bad.count == 2 && bad.first == 5 &&
             bad.got == (double)out[5] && bad.want == (double)in[5] * (double)factor + 1.0);

    count = kn_check_synth(i, in, wrong, N, &bad);
    snprintf(desc, sizeof desc, "synth: kn_check_synth(%ld) rejects twice the factor", i);
    th_check(desc, count > N / 2);
}

static void ts_check(void)
{
    ts_check_one(0);
    ts_check_one(6);
    ts_check_one(1L << 25);
    /* Above 2^24, i + 1 is not a float: the source's literal 33554433.0f
     * and the reference both round to 2^25. */
    th_check("synth: (float)(2^25 + 1) is 2^25, as the reference uses",
             (double)(float)((1L << 25) + 1) == 33554432.0);
}

/* rtc_phase_times on NVRTC's real --time output and on crafted files. */
static void ts_phases(int loaded)
{
    char dir[] = "/tmp/test_synth.XXXXXX";
    char csv[128], opt[160], why[512], desc[640];
    char names[16][RTC_PHASE_NAME];
    double ms[16];
    char *src = NULL;
    rtc_out out;
    int n, n2, i, ok;

    if (mkdtemp(dir) == NULL) {
        th_check("synth: mkdtemp for the rtc_phase_times tests", 0);
        return;
    }
    snprintf(csv, sizeof csv, "%s/time.csv", dir);

    if (loaded && (src = kn_synth_source(10, why, sizeof why)) != NULL) {
        const char *opts[1];
        snprintf(opt, sizeof opt, "--time=%s", csv);
        opts[0] = opt;
        th_check("synth: k = 10 compiles to cubin with --time=FILE",
                 rtc_compile(src, "synth.cu", "sm_90", RTC_CUBIN, opts, 1, &out) == RTC_OK);
        rtc_out_free(&out);
        n = rtc_phase_times(csv, names, ms, 16, why, sizeof why);
        for (i = 0, ok = n >= 1; i < n; i++) ok &= names[i][0] != '\0' && ms[i] >= 0.0;
        snprintf(desc, sizeof desc, "synth: rtc_phase_times reads NVRTC's CSV: %d phases, "
                 "the first %s (%.3g ms)%s%s", n, n >= 1 ? names[0] : "-", n >= 1 ? ms[0] : 0.0,
                 n < 0 ? ": " : "", n < 0 ? why : "");
        th_check(desc, ok && strcmp(names[0], "CUDA C++ Frontend") == 0);

        /* NVRTC appends to an existing file, without a second header. */
        th_check("synth: a second compile with --time=FILE succeeds",
                 rtc_compile(src, "synth.cu", "sm_90", RTC_CUBIN, opts, 1, &out) == RTC_OK);
        rtc_out_free(&out);
        n2 = rtc_phase_times(csv, names, ms, 16, why, sizeof why);
        th_check("synth: rtc_phase_times reads the appended CSV: twice the phases",
                 n >= 1 && n2 == 2 * n && strcmp(names[n], "CUDA C++ Frontend") == 0);
        th_check("synth: rtc_phase_times stores at most max phases",
                 n >= 1 && rtc_phase_times(csv, names, ms, 1, why, sizeof why) == 1);
        free(src);
        unlink(csv);
    }

    /* Units, decimals, CRLF, blank lines, a file name holding ", ". */
    ts_write(csv, "File name, phase name, metric, unit\n"
                  "a.cu, Phase A, 1500, us\r\n"
                  "a.cu, Phase B, 2, s\n"
                  "\n"
                  "my, file.cu, Phase C, 3.25, ms\n");
    n = rtc_phase_times(csv, names, ms, 16, why, sizeof why);
    th_check("synth: rtc_phase_times converts us and s, reads decimals, CRLF and odd file names",
             n == 3 && strcmp(names[0], "Phase A") == 0 && fabs(ms[0] - 1.5) < 1e-12 &&
             strcmp(names[1], "Phase B") == 0 && ms[1] == 2000.0 &&
             strcmp(names[2], "Phase C") == 0 && ms[2] == 3.25);

    ts_write(csv, "File name, phase name, metric, unit\n");
    th_check("synth: rtc_phase_times of a header alone is 0 phases",
             rtc_phase_times(csv, names, ms, 16, why, sizeof why) == 0);
    ts_write(csv, "");
    th_check("synth: rtc_phase_times of an empty file is 0 phases",
             rtc_phase_times(csv, names, ms, 16, why, sizeof why) == 0);

    ts_write(csv, "t.cu, A phase name well over sixty-four bytes long so that it is cut short "
                  "there, 7, ms\n");
    n = rtc_phase_times(csv, names, ms, 16, why, sizeof why);
    th_check("synth: rtc_phase_times cuts a long phase name to RTC_PHASE_NAME - 1 bytes",
             n == 1 && strlen(names[0]) == RTC_PHASE_NAME - 1 && ms[0] == 7.0);

    {
        static const char *const bad[] = {
            "t.cu, CUDA C++ Frontend, 14 ms\n",       /* three fields */
            "t.cu, CUDA C++ Frontend, 14, h\n",        /* unknown unit */
            "t.cu, CUDA C++ Frontend, fast, ms\n",     /* not a number */
            "t.cu, CUDA C++ Frontend, -1, ms\n",       /* negative */
            "t.cu, CUDA C++ Frontend, 1.2.3, ms\n",    /* two dots */
            "t.cu, , 14, ms\n",                        /* empty phase */
            "t.cu, CUDA C++ Frontend, 14, ms, extra\n", /* unit "extra" */
        };
        size_t b;
        for (b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            char text[256];
            snprintf(text, sizeof text, "File name, phase name, metric, unit\n"
                     "t.cu, NVVM Optimizer, 7, ms\n%s", bad[b]);
            ts_write(csv, text);
            why[0] = '\0';
            n = rtc_phase_times(csv, names, ms, 16, why, sizeof why);
            snprintf(desc, sizeof desc, "synth: rtc_phase_times refuses line 3 '%.*s': %s",
                     (int)strlen(bad[b]) - 1, bad[b], why);
            th_check(desc, n == -1 && strstr(why, ":3: malformed line") != NULL);
        }
    }

    unlink(csv);
    why[0] = '\0';
    n = rtc_phase_times(csv, names, ms, 16, why, sizeof why);
    th_check("synth: rtc_phase_times of a missing file is -1 naming the file",
             n == -1 && strstr(why, csv) != NULL);
    rmdir(dir);
}

void test_synth(void)
{
    int loaded;
    ts_source();
    ts_limits();
    loaded = ts_compile();
    ts_check();
    ts_phases(loaded);
}
