/* test_fusion.c: the fusion chain on the host: models, reference, check, NVRTC name expressions. */
#include "testhelp.h"
#include "kernels.h"
#include "rtc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three ways to run the chain, as the kernels each launches. */
static const char *const ft_staged[] = { "stageScaleBias", "stageGelu", "stageAddResidual",
                                         "stageClamp" };
static const char *const ft_pair[] = { "pairScaleGelu", "pairResidualClamp" };
static const char *const ft_fused[] = { "chainFused" };
#define FT_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The name expressions of chainFusedWide<K>. */
static const char *const ft_wide[] = { "chainFusedWide<1>", "chainFusedWide<2>",
                                       "chainFusedWide<4>", "chainFusedWide<8>",
                                       "chainFusedWide<16>", "chainFusedWide<32>" };
#define FT_NWIDE ((int)FT_LEN(ft_wide))

static int ft_near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

/* The chain in float on the CPU, the same operations in the same order as
 * kernels/fusion.cu's stage functions (tanhf for tanhf). */
static float ft_chain_float(float x, float r)
{
    float v = x * 1.5f + 0.25f;
    v = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    v = v + r;
    return fminf(fmaxf(v, -3.0f), 3.0f);
}

/* The registry's byte and flop models and what they predict. */
static void ft_models(void)
{
    static const char *const unknown[] = { "chainFused", "nope" };
    double staged = kn_bytes_of(ft_staged, FT_LEN(ft_staged));
    double pair = kn_bytes_of(ft_pair, FT_LEN(ft_pair));
    double fused = kn_bytes_of(ft_fused, FT_LEN(ft_fused));
    char desc[256];

    snprintf(desc, sizeof desc, "fusion: bytes per element: staged 36, pair 20, fused 12 "
             "(got %g, %g, %g)", staged, pair, fused);
    th_check(desc, staged == 36.0 && pair == 20.0 && fused == 12.0);
    th_check("fusion: flops per element are 14 in every version (the same arithmetic)",
             kn_flops_of(ft_staged, FT_LEN(ft_staged)) == 14.0 &&
             kn_flops_of(ft_pair, FT_LEN(ft_pair)) == 14.0 &&
             kn_flops_of(ft_fused, FT_LEN(ft_fused)) == 14.0);
    th_check("fusion: stageGelu counts 9 flops, blockUntil 0 bytes and 0 flops",
             kn_flops_of(ft_staged + 1, 1) == 9.0 && kn_find("blockUntil") != NULL &&
             kn_find("blockUntil")->bytes_per_elem == 0.0 &&
             kn_find("blockUntil")->flops_per_elem == 0.0);
    th_check("fusion: kn_bytes_of/kn_flops_of of an unknown name is NaN, of no names 0",
             isnan(kn_bytes_of(unknown, 2)) && isnan(kn_flops_of(unknown, 2)) &&
             kn_bytes_of(NULL, 0) == 0.0 && kn_flops_of(NULL, 0) == 0.0);
    th_check("fusion: the template chainFusedWide is not in the registry",
             kn_find("chainFusedWide") == NULL);

    snprintf(desc, sizeof desc, "fusion: predicted speed-ups: staged/fused 3.00 (%.4f), "
             "staged/pair 1.8 (%.4f), pair/fused 1.667 (%.4f)",
             staged / fused, staged / pair, pair / fused);
    th_check(desc, ft_near(staged / fused, 3.0, 1e-12) && ft_near(staged / pair, 1.8, 1e-12) &&
             ft_near(pair / fused, 5.0 / 3.0, 1e-12));
    th_check("fusion: launch ratio staged/fused is 4 (4 kernels against 1)",
             (double)FT_LEN(ft_staged) / (double)FT_LEN(ft_fused) == 4.0 &&
             FT_LEN(ft_pair) == 2);
}

/* kn_chain_ref against values computed independently. */
static void ft_reference(void)
{
    /* From Python 3 in double precision with math.tanh:
     *   v = x*1.5 + 0.25
     *   v = 0.5*v*(1.0 + math.tanh(0.7978845608028654*(v + 0.044715*v*v*v)))
     *   print('%.17g' % min(max(v + r, -3.0), 3.0)) */
    static const struct { double x, r, want; } cases[] = {
        { 0.0, 0.0, 0.149675350701685 },
        { 0.5, -0.25, 0.59119199060827676 },
        { -0.3, 0.1, 0.015851429782106297 },
        { 1.0, 0.5, 2.1797953823412515 },
        { -2.0, 1.0, 0.99227685592638204 },
        { -4.0, -0.75, -0.75000000076458173 },  /* gelu of -5.75: about -8e-10 */
        { 0.75, -2.0, -0.74151144716572004 },
        { 1.5, 2.0, 3.0 },                      /* unclamped 4.4849157339100012 */
        { -1.0, -3.5, -3.0 },                   /* unclamped -3.6322857970302853 */
    };
    char desc[256];
    size_t i;

    for (i = 0; i < FT_LEN(cases); i++) {
        double got = kn_chain_ref(cases[i].x, cases[i].r);
        snprintf(desc, sizeof desc, "fusion: kn_chain_ref(%g, %g) = %.17g (want %.17g)",
                 cases[i].x, cases[i].r, got, cases[i].want);
        th_check(desc, fabs(got - cases[i].want) <= 1e-14 * fabs(cases[i].want));
    }
}

/* Fill x and r of n floats, compute the float chain into y, and return the
 * largest error relative to kn_chain_ref (absolute where |want| < 1). */
static double ft_cpu_chain(const float *x, const float *r, float *y, size_t n)
{
    double worst = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double want = kn_chain_ref((double)x[i], (double)r[i]);
        double err;
        y[i] = ft_chain_float(x[i], r[i]);
        err = fabs((double)y[i] - want) / fmax(fabs(want), 1.0);
        if (err > worst) worst = err;
    }
    return worst;
}

/* kn_check_chain passes the CPU's float chain and catches a NaN and an error. */
static void ft_check(void)
{
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x), *r = malloc(N * sizeof *r), *y = malloc(N * sizeof *y);
    char desc[256];
    kn_bad bad;
    size_t i, low = 0, high = 0, bad_n;
    double worst, want;

    if (!x || !r || !y) {
        th_check("fusion: malloc for the kn_check_chain tests", 0);
        goto out;
    }
    kn_fill(x, N, 21);
    kn_fill(r, N, 22);
    worst = ft_cpu_chain(x, r, y, N);
    bad_n = kn_check_chain(x, r, y, N, &bad);
    snprintf(desc, sizeof desc, "fusion: kn_check_chain accepts the float chain on the CPU for "
             "100000 kn_fill inputs (bad %zu, largest error %.2e)", bad_n, worst);
    th_check(desc, bad_n == 0 && bad.count == 0);

    /* Inputs three times as wide: both clamps are hit. */
    for (i = 0; i < N; i++) {
        x[i] *= 3.0f;
        r[i] *= 3.0f;
    }
    worst = ft_cpu_chain(x, r, y, N);
    for (i = 0; i < N; i++) {
        if (y[i] == -3.0f) low++;
        if (y[i] == 3.0f) high++;
    }
    bad_n = kn_check_chain(x, r, y, N, &bad);
    snprintf(desc, sizeof desc, "fusion: ... and for inputs in [-3, 3), clamped %zu times at -3 "
             "and %zu at 3 (bad %zu, largest error %.2e)", low, high, bad_n, worst);
    th_check(desc, bad_n == 0 && low > 0 && high > 0);

    y[4242] = NAN;
    th_check("fusion: kn_check_chain catches one NaN, first == its index",
             kn_check_chain(x, r, y, N, &bad) == 1 && bad.first == 4242 && isnan(bad.got));
    y[4242] = ft_chain_float(x[4242], r[4242]);

    x[600] = 0.5f;
    r[600] = -0.25f;
    want = kn_chain_ref(0.5, -0.25);
    y[600] = (float)(want * (1.0 + 1e-3));
    th_check("fusion: kn_check_chain catches an element off by 1e-3 relative",
             kn_check_chain(x, r, y, N, &bad) == 1 && bad.first == 600 && bad.want == want);

    kn_poison(y, N);
    th_check("fusion: a poisoned output fails every element of kn_check_chain",
             kn_check_chain(x, r, y, N, &bad) == N && bad.first == 0);
out:
    free(x);
    free(r);
    free(y);
}

/* Does the PTX hold an entry named `name`? */
static int ft_has_entry(const char *ptx, const char *name)
{
    char pat[256];
    snprintf(pat, sizeof pat, ".entry %s(", name);
    return strstr(ptx, pat) != NULL;
}

/* Are all n lowered names non-empty and distinct? */
static int ft_distinct(char *const *lowered, int n)
{
    int i, j;
    for (i = 0; i < n; i++) {
        if (!lowered[i] || !lowered[i][0]) return 0;
        for (j = 0; j < i; j++)
            if (strcmp(lowered[i], lowered[j]) == 0) return 0;
    }
    return 1;
}

static int ft_all_null(char *const *lowered, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (lowered[i]) return 0;
    return 1;
}

static void ft_free_names(char **lowered, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        free(lowered[i]);
        lowered[i] = NULL;
    }
}

/* NVRTC: fusion.cu with the six chainFusedWide<K> instances; launch.cu. */
static void ft_rtc(void)
{
    static const char *const bad_exprs[] = { "chainFusedWide<4>", "noSuchKernel<1>" };
    const char *fusion = kn_embedded("fusion.cu"), *launch = kn_embedded("launch.cu");
    char *lowered[FT_NWIDE], *cubin_names[FT_NWIDE];
    char why[512] = "", desc[1024];
    rtc_out out;
    int rc, i, ok;

    if (rtc_load(why, sizeof why) != 0) {
        snprintf(desc, sizeof desc, "fusion: rtc_load finds NVRTC: %s", why);
        th_check(desc, 0);
        return;
    }
    if (!fusion || !launch) {
        th_check("fusion: fusion.cu and launch.cu are embedded", 0);
        return;
    }

    /* PTX: every lowered name is an entry. */
    rc = rtc_compile_named(fusion, "fusion.cu", "sm_90", RTC_PTX, NULL, 0, ft_wide, FT_NWIDE,
                           lowered, &out);
    ok = rc == RTC_OK && ft_distinct(lowered, FT_NWIDE);
    for (i = 0; i < FT_NWIDE && ok; i++)
        if (!ft_has_entry(out.code, lowered[i])) ok = 0;
    snprintf(desc, sizeof desc, "fusion: fusion.cu to PTX for sm_90 with chainFusedWide<1,2,4,8,"
             "16,32>: 6 distinct lowered names (%s .. %s), each an .entry of the PTX (rc %d, "
             "log: %.200s)", rc == RTC_OK && lowered[0] ? lowered[0] : "-",
             rc == RTC_OK && lowered[FT_NWIDE - 1] ? lowered[FT_NWIDE - 1] : "-", rc,
             out.log ? out.log : "");
    th_check(desc, ok);
    rtc_out_free(&out);

    /* cubin: the same names, each in the ELF's string table. */
    rc = rtc_compile_named(fusion, "fusion.cu", "sm_90", RTC_CUBIN, NULL, 0, ft_wide, FT_NWIDE,
                           cubin_names, &out);
    ok = rc == RTC_OK && out.size > 4 && memcmp(out.code, "\x7f" "ELF", 4) == 0 &&
         ft_distinct(cubin_names, FT_NWIDE);
    for (i = 0; i < FT_NWIDE && ok; i++)
        if (!lowered[i] || strcmp(lowered[i], cubin_names[i]) != 0 ||
            !memmem(out.code, out.size, cubin_names[i], strlen(cubin_names[i]) + 1))
            ok = 0;
    snprintf(desc, sizeof desc, "fusion: fusion.cu to an ELF cubin for sm_90 with the same six "
             "name expressions: the same lowered names, each in the cubin (rc %d, log: %.200s)",
             rc, out.log ? out.log : "");
    th_check(desc, ok);
    rtc_out_free(&out);
    ft_free_names(cubin_names, FT_NWIDE);   /* all NULL after a failure */
    ft_free_names(lowered, FT_NWIDE);

    /* Without name expressions the template is never instantiated: the
     * module holds exactly the extern "C" kernels of the registry. */
    rc = rtc_compile(fusion, "fusion.cu", "sm_90", RTC_PTX, NULL, 0, &out);
    th_check("fusion: without name expressions the PTX has no chainFusedWide",
             rc == RTC_OK && strstr(out.code, "chainFusedWide") == NULL &&
             ft_has_entry(out.code, "chainFused"));
    rtc_out_free(&out);

    /* A name expression naming nothing: an error, and no names left. */
    for (i = 0; i < 2; i++) lowered[i] = (char *)(size_t)1;   /* must be overwritten */
    rc = rtc_compile_named(fusion, "fusion.cu", "sm_90", RTC_PTX, NULL, 0, bad_exprs, 2,
                           lowered, &out);
    snprintf(desc, sizeof desc, "fusion: a name expression naming no template fails "
             "(rc %d), every lowered[i] NULL (log: %.200s)", rc, out.log ? out.log : "");
    for (i = 0; desc[i]; i++)
        if (desc[i] == '\n') desc[i] = ' ';
    th_check(desc, rc != RTC_OK && ft_all_null(lowered, 2) && out.code == NULL);
    rtc_out_free(&out);
    if (rc == RTC_OK) ft_free_names(lowered, 2);

    /* launch.cu: PTX reads %globaltimer and sleeps; the cubin is an ELF. */
    rc = rtc_compile(launch, "launch.cu", "sm_90", RTC_PTX, NULL, 0, &out);
    th_check("fusion: launch.cu to PTX for sm_90 reads globaltimer and has nanosleep",
             rc == RTC_OK && strstr(out.code, "globaltimer") != NULL &&
             strstr(out.code, "nanosleep") != NULL && ft_has_entry(out.code, "blockUntil"));
    rtc_out_free(&out);
    rc = rtc_compile(launch, "launch.cu", "sm_90", RTC_CUBIN, NULL, 0, &out);
    th_check("fusion: launch.cu to an ELF cubin for sm_90",
             rc == RTC_OK && out.size > 4 && memcmp(out.code, "\x7f" "ELF", 4) == 0);
    rtc_out_free(&out);
}

void test_fusion(void)
{
    ft_models();
    ft_reference();
    ft_check();
    ft_rtc();
}
