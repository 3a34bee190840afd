/* test_kernels.c: unit tests of src/cuda/kernels.c (registry, embedded and
 * on-disk sources, CPU checks) and src/cuda/rtc.c (NVRTC compiles; no GPU is
 * needed: NVRTC runs on the host). */
#include "testhelp.h"
#include "cuda/kernels.h"
#include "cuda/rtc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write len bytes of data to dir/name. Returns 0, or -1. */
static int kt_write(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4096];
    FILE *f;
    int rc = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((f = fopen(path, "wb")) == NULL) return -1;
    if (len > 0 && fwrite(data, 1, len, f) != len) rc = -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

/* Write n spaces to dir/name. Returns 0, or -1. */
static int kt_write_spaces(const char *dir, const char *name, size_t n)
{
    static char spaces[1 << 16];
    char path[4096];
    FILE *f;
    int rc = 0;
    memset(spaces, ' ', sizeof spaces);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((f = fopen(path, "wb")) == NULL) return -1;
    while (n > 0 && rc == 0) {
        size_t k = n < sizeof spaces ? n : sizeof spaces;
        if (fwrite(spaces, 1, k, f) != k) rc = -1;
        n -= k;
    }
    if (fclose(f) != 0) rc = -1;
    return rc;
}

static void kt_unlink(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* Does the text name kernel `name` as a whole word followed by '('? (So
 * "copyFloat" is not found in "copyFloat4(".) */
static int kt_names(const char *text, const char *name)
{
    char pat[128];
    snprintf(pat, sizeof pat, "%s(", name);
    return strstr(text, pat) != NULL;
}

/* The embedded sources and the registry. */
static void kt_registry(void)
{
    char desc[256];
    size_t i, j;

    for (i = 0; i < kn_nfiles; i++) {
        const char *t = kn_embedded(kn_files[i]);
        snprintf(desc, sizeof desc, "kernels: %s is embedded, non-empty and NUL-terminated",
                 kn_files[i]);
        /* the text ends at a NUL within a sane length; a source never holds NULs */
        th_check(desc, t != NULL && t[0] != '\0' && strnlen(t, KN_MAX_SOURCE + 1) <= KN_MAX_SOURCE);
    }
    th_check("kernels: kn_embedded of an unknown file is NULL", kn_embedded("nope.cu") == NULL);

    for (i = 0; i < kn_count; i++) {
        const kn_kernel *k = &kn_all[i];
        const char *t;
        int infiles = 0;
        for (j = 0; j < kn_nfiles; j++)
            if (strcmp(kn_files[j], k->file) == 0) infiles = 1;
        t = kn_embedded(k->file);
        snprintf(desc, sizeof desc, "kernels: %s: its file %s is in kn_files and names it",
                 k->name, k->file);
        th_check(desc, infiles && t != NULL && kt_names(t, k->name) && kn_find(k->name) == k);
    }
    th_check("kernels: kn_find of an unknown kernel is NULL", kn_find("nope") == NULL);
}

/* NVRTC: every embedded file to PTX and cubin, and a compile error. */
static void kt_rtc(void)
{
    static const char bad_src[] = "extern \"C\" __global__ void k(float *a) { a[0] = b; }\n";
    char why[512] = "", desc[768];
    rtc_out out;
    size_t i, j;
    int rc, loaded;

    loaded = rtc_load(why, sizeof why) == 0;
    snprintf(desc, sizeof desc, "rtc: rtc_load finds NVRTC%s%s", loaded ? "" : ": ", loaded ? "" : why);
    th_check(desc, loaded);
    if (!loaded) return;
    th_check("rtc: rtc_load a second time is a no-op returning 0", rtc_load(why, sizeof why) == 0);
    {
        int major = 0, minor = 0;
        th_check("rtc: rtc_version gives a version and rtc_loaded_from a path",
                 rtc_version(&major, &minor) == 0 && major >= 12 &&
                 strstr(rtc_loaded_from(), "libnvrtc.so.") != NULL);
    }

    for (i = 0; i < kn_nfiles; i++) {
        const char *file = kn_files[i];
        const char *src = kn_embedded(file);
        int names = 1;

        rc = rtc_compile(src, file, "sm_90", RTC_PTX, NULL, 0, &out);
        if (rc == RTC_OK) {
            names = out.code != NULL && out.size > 0 && out.code[out.size - 1] == '\0' &&
                    strstr(out.code, ".entry") != NULL;
            for (j = 0; j < kn_count && names; j++)
                if (strcmp(kn_all[j].file, file) == 0 && !kt_names(out.code, kn_all[j].name))
                    names = 0;
        }
        snprintf(desc, sizeof desc, "rtc: %s compiles to PTX for sm_90 with .entry and each "
                 "kernel's name (rc %d, log: %.200s)", file, rc, out.log ? out.log : "");
        th_check(desc, rc == RTC_OK && out.size > 0 && names && out.ms >= 0.0 &&
                 out.total_ms >= out.ms);
        rtc_out_free(&out);

        rc = rtc_compile(src, file, "sm_90", RTC_CUBIN, NULL, 0, &out);
        snprintf(desc, sizeof desc, "rtc: %s compiles to an ELF cubin for sm_90 (rc %d, log: %.200s)",
                 file, rc, out.log ? out.log : "");
        th_check(desc, rc == RTC_OK && out.code != NULL && out.size > 4 &&
                 memcmp(out.code, "\x7f" "ELF", 4) == 0);
        rtc_out_free(&out);
    }

    {
        static const char *const opts[] = { "-lineinfo" };
        rc = rtc_compile(kn_embedded("vector.cu"), "vector.cu", "sm_90", RTC_PTX, opts, 1, &out);
        th_check("rtc: an extra option (-lineinfo) is passed and accepted",
                 rc == RTC_OK && out.code != NULL && strstr(out.code, ".loc") != NULL);
        rtc_out_free(&out);
    }

    rc = rtc_compile(bad_src, "bad.cu", "sm_90", RTC_PTX, NULL, 0, &out);
    snprintf(desc, sizeof desc, "rtc: a syntax error is RTC_COMPILE_ERROR with \"bad.cu(1)\" in "
             "the log and no code (rc %d, log: %.300s)", rc, out.log ? out.log : "(none)");
    for (j = 0; desc[j]; j++)
        if (desc[j] == '\n') desc[j] = ' ';
    th_check(desc, rc == RTC_COMPILE_ERROR && out.log != NULL &&
             strstr(out.log, "bad.cu(1)") != NULL && out.code == NULL && out.size == 0);
    rtc_out_free(&out);
    th_check("rtc: rtc_out_free leaves the struct empty",
             out.code == NULL && out.log == NULL && out.size == 0);
}

/* kn_source from a --kernels-dir and from the embedded copies. */
static void kt_source(void)
{
    static const char good[] = "extern \"C\" __global__ void mine(void) {}\n";
    static const char nul[] = "// a\0b\n";
    char dir[] = "/tmp/test_kernels.XXXXXX";
    char why[8192], path[4096];
    char *s;
    int wrote;

    if (mkdtemp(dir) == NULL) {
        th_check("kernels: mkdtemp for the kn_source tests", 0);
        return;
    }

    why[0] = '\0';
    s = kn_source("missing.cu", dir, why, sizeof why);
    snprintf(path, sizeof path, "%s/missing.cu", dir);
    th_check("kernels: kn_source of a missing file is NULL and names the path",
             s == NULL && strstr(why, path) != NULL);
    free(s);

    why[0] = '\0';
    wrote = kt_write(dir, "empty.cu", "", 0) == 0;
    s = wrote ? kn_source("empty.cu", dir, why, sizeof why) : NULL;
    th_check("kernels: kn_source of an empty file is NULL, \"empty\"",
             wrote && s == NULL && strstr(why, "empty") != NULL);
    free(s);
    kt_unlink(dir, "empty.cu");

    why[0] = '\0';
    wrote = kt_write_spaces(dir, "big.cu", (size_t)KN_MAX_SOURCE + 1) == 0;
    s = wrote ? kn_source("big.cu", dir, why, sizeof why) : NULL;
    th_check("kernels: kn_source of a file of KN_MAX_SOURCE + 1 bytes is NULL, \"larger\"",
             wrote && s == NULL && strstr(why, "larger") != NULL);
    free(s);
    kt_unlink(dir, "big.cu");

    why[0] = '\0';
    wrote = kt_write(dir, "nul.cu", nul, sizeof nul - 1) == 0;
    s = wrote ? kn_source("nul.cu", dir, why, sizeof why) : NULL;
    th_check("kernels: kn_source of a file holding a NUL byte is NULL, \"NUL\"",
             wrote && s == NULL && strstr(why, "NUL") != NULL);
    free(s);
    kt_unlink(dir, "nul.cu");

    why[0] = '\0';
    wrote = kt_write(dir, "good.cu", good, sizeof good - 1) == 0;
    s = wrote ? kn_source("good.cu", dir, why, sizeof why) : NULL;
    th_check("kernels: kn_source of a good file returns its text",
             s != NULL && strcmp(s, good) == 0);
    free(s);
    kt_unlink(dir, "good.cu");

    th_check("kernels: temp dir removed", rmdir(dir) == 0);

    why[0] = '\0';
    s = kn_source("nope.cu", NULL, why, sizeof why);
    th_check("kernels: kn_source(NULL dir) of an unknown file is NULL with a reason",
             s == NULL && strstr(why, "nope.cu") != NULL);
    free(s);

    s = kn_source("vector.cu", NULL, why, sizeof why);
    th_check("kernels: kn_source(NULL dir) copies the embedded text",
             s != NULL && s != kn_embedded("vector.cu") && strcmp(s, kn_embedded("vector.cu")) == 0);
    free(s);
}

/* The CPU side: inputs, references, checks, poison. */
static void kt_cpu(void)
{
    enum { N = 1000 };
    static float a[N], b[N], out[N];
    kn_bad bad;
    size_t i, zeros = 0, outside = 0, differ = 0;
    int all_nan = 1;

    kn_fill(a, N, 1);
    kn_fill(b, N, 2);
    for (i = 0; i < N; i++) {
        if (a[i] == 0.0f) zeros++;
        if (!(a[i] >= -1.0f && a[i] < 1.0f)) outside++;
        if (a[i] != b[i]) differ++;
    }
    th_check("kernels: kn_fill gives no zeros among the first 1000", zeros == 0);
    th_check("kernels: kn_fill values are in [-1, 1)", outside == 0);
    th_check("kernels: kn_fill with another seed gives other values", differ > N / 2);

    kn_cpu_add(a, b, out, N);
    th_check("kernels: kn_check_add of kn_cpu_add's output: 0 bad",
             kn_check_add(a, b, out, N, &bad) == 0 && bad.count == 0);

    out[417] = NAN;
    th_check("kernels: kn_check_add catches one NaN, first == its index",
             kn_check_add(a, b, out, N, &bad) == 1 && bad.count == 1 && bad.first == 417 &&
             isnan(bad.got));

    kn_cpu_add(a, b, out, N);
    a[600] = 0.5f;
    b[600] = 0.25f;
    out[600] = (float)(0.75 * (1.0 + 1e-3));
    th_check("kernels: kn_check_add catches an element off by 1e-3 relative",
             kn_check_add(a, b, out, N, &bad) == 1 && bad.first == 600 && bad.want == 0.75);

    for (i = 0; i < N; i++) out[i] = 2.5f * a[i];
    th_check("kernels: kn_check_scale of a correct output: 0 bad",
             kn_check_scale(a, 2.5f, out, N, &bad) == 0);
    out[9] = (float)((double)out[9] * (1.0 + 1e-3));
    out[700] = NAN;
    th_check("kernels: kn_check_scale catches an off element and a NaN, first the lower",
             kn_check_scale(a, 2.5f, out, N, &bad) == 2 && bad.first == 9);

    kn_poison(out, N);
    for (i = 0; i < N; i++)
        if (!isnan(out[i])) all_nan = 0;
    th_check("kernels: kn_poison makes every element NaN", all_nan);
    th_check("kernels: a poisoned output fails every element of kn_check_add",
             kn_check_add(a, b, out, N, &bad) == N && bad.first == 0);
}

/* The same work in parts on several threads: the answers of one pass.
 * N spans four parts of 2^20 elements and a few over; the expectations
 * are planted by hand, and one thread's answers are the other reference. */
static void kt_parts(void)
{
    const size_t N = 4 * 1048576 + 7, late = 3 * 1048576 + 11, early = 1048576 + 3;
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    float *one = malloc(N * sizeof *one), *out = malloc(N * sizeof *out);
    kn_bad bad;
    size_t i, nan = 0;
    int ok;

    if (!a || !b || !one || !out) {
        th_check("kernels: parts: memory for 4 x 2^20 floats", 0);
        goto out;
    }
    kn_host_threads(1);
    kn_fill(one, N, 7);
    kn_host_threads(8);
    kn_fill(a, N, 7);
    th_check("kernels: parts: kn_fill on 8 threads equals one thread's, bit for bit",
             memcmp(a, one, N * sizeof *a) == 0);
    th_check("kernels: parts: kn_same of equal arrays is 1", kn_same(a, one, N) == 1);
    kn_poison(out, N);
    kn_copy(out, one, N);
    th_check("kernels: parts: kn_copy copies every element",
             memcmp(out, one, N * sizeof *out) == 0);
    one[N - 1] = nextafterf(one[N - 1], 2.0f);
    ok = kn_same(a, one, N) == 0;
    one[N - 1] = a[N - 1];
    one[0] = nextafterf(one[0], 2.0f);
    ok = ok && kn_same(a, one, N) == 0;
    th_check("kernels: parts: kn_same finds one ulp in the last element and in the first", ok);

    kn_fill(b, N, 8);
    kn_cpu_add(a, b, out, N);
    out[late] = NAN;
    out[early] = out[early] * 1.01f;
    ok = kn_check_add(a, b, out, N, &bad) == 2 && bad.count == 2 && bad.first == early &&
         bad.got == (double)out[early];
    th_check("kernels: parts: kn_check_add counts failures in two parts, first the earlier "
             "one with its values", ok);
    kn_host_threads(1);
    th_check("kernels: parts: ... as one thread does",
             kn_check_add(a, b, out, N, &bad) == 2 && bad.first == early);
    kn_host_threads(8);

    kn_poison(out, N);
    for (i = 0; i < N; i++) nan += isnan(out[i]) != 0;
    th_check("kernels: parts: kn_poison on 8 threads makes every element NaN", nan == N);
out:
    kn_host_threads(8);
    free(a);
    free(b);
    free(one);
    free(out);
}

void test_kernels(void)
{
    kt_registry();
    kt_rtc();
    kt_source();
    kt_cpu();
    kt_parts();
}
