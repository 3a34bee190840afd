/* test_fusion.c: the fusion chain on the host: models, reference, check,
 * NVRTC name expressions, the stored conclusions and the tables. */
#include "testhelp.h"
#include "cuda/kernels.h"
#include "cuda/rtc.h"
#include "run/section.h"
#include "sections/fusion/fusion.h"

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

/* At most this many fused-wide<K> versions. */
#define FT_MAXWIDE 16

/* The name expressions of chainFusedWide<K> as the section stores them
 * (the text of each version.wideK with a width), into exprs; how many. */
static int ft_wide_exprs(const results *r, const char **exprs)
{
    size_t i;
    int n = 0;
    for (i = 0; i < r->nd && n < FT_MAXWIDE; i++)
        if (strncmp(r->d[i].key, "version.", 8) == 0 && res_derived_num(&r->d[i], "width") > 0)
            exprs[n++] = r->d[i].text;
    return n;
}

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

/* The section's stored facts: each version's model as the registry gives
 * it, the predictions, the sizes. */
static void ft_stored_models(void)
{
    results r;
    const res_derived *p;
    char desc[256];
    res_init(&r);
    th_check("fusion: fs_store_models stores sizes, the versions and the predictions",
             fs_store_models(&r) == 0 && res_derived_find(&r, "fusion", "sizes") != NULL);
    p = res_derived_find(&r, "fusion", "predictions");
    snprintf(desc, sizeof desc, "fusion: version.staged/pair/fused carry the registry's bytes per "
             "element (%g, %g, %g) and 14 flops each",
             res_derived_num(res_derived_find(&r, "fusion", "version.staged"), "bytes_per_elem"),
             res_derived_num(res_derived_find(&r, "fusion", "version.pair"), "bytes_per_elem"),
             res_derived_num(res_derived_find(&r, "fusion", "version.fused"), "bytes_per_elem"));
    th_check(desc,
             res_derived_num(res_derived_find(&r, "fusion", "version.staged"), "bytes_per_elem") ==
                 kn_bytes_of(ft_staged, FT_LEN(ft_staged)) &&
             res_derived_num(res_derived_find(&r, "fusion", "version.pair"), "bytes_per_elem") ==
                 kn_bytes_of(ft_pair, FT_LEN(ft_pair)) &&
             res_derived_num(res_derived_find(&r, "fusion", "version.fused"), "bytes_per_elem") ==
                 kn_bytes_of(ft_fused, FT_LEN(ft_fused)) &&
             res_derived_num(res_derived_find(&r, "fusion", "version.wide4"), "flops_per_elem") == 14.0);
    th_check("fusion: predictions: byte ratio 3, launch ratio 4, staged/pair 1.8, pair/fused 5/3",
             p && ft_near(p->value, 3.0, 1e-12) && res_derived_num(p, "launch_ratio") == 4.0 &&
             ft_near(res_derived_num(p, "staged_pair"), 1.8, 1e-12) &&
             ft_near(res_derived_num(p, "pair_fused"), 5.0 / 3.0, 1e-12) &&
             res_derived_num(p, "extra_bytes") == 24.0);
    th_check("fusion: sizes: the main n and the odd check n of the registry",
             res_derived_num(res_derived_find(&r, "fusion", "sizes"), "main_n") == KN_CHAIN_MAIN_N &&
             res_derived_num(res_derived_find(&r, "fusion", "sizes"), "check_n") == KN_CHAIN_CHECK_N &&
             KN_CHAIN_CHECK_N % 2 == 1);
    {
        char a[32], b[32], c[32], d[32];
        th_check("fusion: sec_commas: 1,049,187, 16,777,216, 999 and -1,024",
                 strcmp(sec_commas(a, sizeof a, KN_CHAIN_CHECK_N), "1,049,187") == 0 &&
                 strcmp(sec_commas(b, sizeof b, KN_CHAIN_MAIN_N), "16,777,216") == 0 &&
                 strcmp(sec_commas(c, sizeof c, 999), "999") == 0 &&
                 strcmp(sec_commas(d, sizeof d, -1024), "-1,024") == 0);
    }
    th_check("fusion: cuMemcpyDtoD is a floor candidate that launches no kernel",
             res_derived_num(res_derived_find(&r, "fusion", "version.dtod"), "floor") == 1 &&
             res_derived_num(res_derived_find(&r, "fusion", "version.dtod"), "kernels") == 0);
    res_free(&r);
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
    double worst, want, *wants;

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

    /* The two-step form: the same answers, from wants computed once. */
    if ((wants = malloc(N * sizeof *wants)) != NULL) {
        kn_chain_wants(x, r, wants, N);
        th_check("fusion: kn_chain_wants is kn_chain_ref element by element",
                 wants[600] == want && wants[17] == kn_chain_ref((double)x[17], (double)r[17]));
        th_check("fusion: kn_check_chain_wants catches the same element, with the same want",
                 kn_check_chain_wants(wants, y, N, &bad) == 1 && bad.first == 600 && bad.want == want);
        y[600] = (float)want;
        th_check("fusion: kn_check_chain_wants accepts the float chain once it is mended",
                 kn_check_chain_wants(wants, y, N, &bad) == 0 && bad.count == 0);
        y[9] = NAN;
        th_check("fusion: kn_check_chain_wants catches a NaN",
                 kn_check_chain_wants(wants, y, N, &bad) == 1 && bad.first == 9 && isnan(bad.got));
        kn_poison(y, N);
        th_check("fusion: a poisoned output fails every element of kn_check_chain_wants",
                 kn_check_chain_wants(wants, y, N, &bad) == N);
        free(wants);
    } else {
        th_check("fusion: malloc for the kn_check_chain_wants tests", 0);
    }

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
    const char *wide[FT_MAXWIDE];
    char *lowered[FT_MAXWIDE], *cubin_names[FT_MAXWIDE];
    char why[512] = "", desc[1024];
    rtc_out out;
    results r;
    int rc, i, ok, nwide;

    res_init(&r);
    fs_store_models(&r);
    nwide = ft_wide_exprs(&r, wide);
    th_check("fusion: the version table has fused-wide<K> versions, each with its name expression",
             nwide >= 2 && strncmp(wide[0], "chainFusedWide<", 15) == 0);
    if (rtc_load(why, sizeof why) != 0) {
        snprintf(desc, sizeof desc, "fusion: rtc_load finds NVRTC: %s", why);
        th_check(desc, 0);
        goto out;
    }
    if (!fusion || !launch) {
        th_check("fusion: fusion.cu and launch.cu are embedded", 0);
        goto out;
    }

    /* PTX: every lowered name is an entry. */
    rc = rtc_compile_named(fusion, "fusion.cu", "sm_90", RTC_PTX, NULL, 0, wide, nwide,
                           lowered, &out);
    ok = rc == RTC_OK && ft_distinct(lowered, nwide);
    for (i = 0; i < nwide && ok; i++)
        if (!ft_has_entry(out.code, lowered[i])) ok = 0;
    snprintf(desc, sizeof desc, "fusion: fusion.cu to PTX for sm_90 with the table's %d "
             "chainFusedWide<K> (%s .. %s): %d distinct lowered names (%s .. %s), each an .entry "
             "of the PTX (rc %d, log: %.200s)", nwide, wide[0], wide[nwide - 1], nwide,
             rc == RTC_OK && lowered[0] ? lowered[0] : "-",
             rc == RTC_OK && lowered[nwide - 1] ? lowered[nwide - 1] : "-", rc,
             out.log ? out.log : "");
    th_check(desc, ok);
    rtc_out_free(&out);

    /* cubin: the same names, each in the ELF's string table. */
    rc = rtc_compile_named(fusion, "fusion.cu", "sm_90", RTC_CUBIN, NULL, 0, wide, nwide,
                           cubin_names, &out);
    ok = rc == RTC_OK && out.size > 4 && memcmp(out.code, "\x7f" "ELF", 4) == 0 &&
         ft_distinct(cubin_names, nwide);
    for (i = 0; i < nwide && ok; i++)
        if (!lowered[i] || strcmp(lowered[i], cubin_names[i]) != 0 ||
            !memmem(out.code, out.size, cubin_names[i], strlen(cubin_names[i]) + 1))
            ok = 0;
    snprintf(desc, sizeof desc, "fusion: fusion.cu to an ELF cubin for sm_90 with the same "
             "name expressions: the same lowered names, each in the cubin (rc %d, log: %.200s)",
             rc, out.log ? out.log : "");
    th_check(desc, ok);
    rtc_out_free(&out);
    ft_free_names(cubin_names, nwide);   /* all NULL after a failure */
    ft_free_names(lowered, nwide);

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
out:
    res_free(&r);
}

/* A fusion measurement of version `ver` (a stored version.<key>) at n:
 * "<prefix><key>" (warm) or "<prefix><key>.cold", three samples of ms,
 * with the version's byte and flop model. */
static void ft_meas(results *r, const res_derived *ver, const char *prefix, long n, double ms, int cold)
{
    double s[3] = { ms, ms, ms };
    char key[96];
    res_meas *m;
    snprintf(key, sizeof key, "%s%s%s", prefix, ver->key + strlen("version."), cold ? ".cold" : "");
    m = res_add(r, "fusion", key, ver->name, "by hand", cold ? RES_L2_COLD : RES_WARM, "ms", s, 3);
    if (!m) return;
    m->n = n;
    m->bytes = res_derived_num(ver, "bytes_per_elem") * (double)n;
    m->flops = res_derived_num(ver, "flops_per_elem") * (double)n;
}

/* Made-up times: 3 us per kernel launched plus the bytes at 3 TB/s; L2
 * cold 1.5 times as long. */
static double ft_ms(const res_derived *ver, long n)
{
    double k = res_derived_num(ver, "kernels");
    return 0.003 * (k > 1 ? k : 1) + res_derived_num(ver, "bytes_per_elem") * (double)n / 3e9;
}

/* A results object as a run of the section leaves it, built by hand: the
 * stored facts, every version at the main size and the sweep's versions
 * at each n, warm and L2-cold, the width figures; then the conclusions. */
static int ft_results(results *r, const long *ns, size_t nn)
{
    static const double one = 1.0;
    size_t i, j;
    char prefix[48], key[64];
    res_init(r);
    if (fs_store_models(r) != 0) return -1;
    for (i = 0; i < r->nd; i++) {
        const res_derived *v = &r->d[i];
        if (strncmp(v->key, "version.", 8) != 0) continue;
        ft_meas(r, v, "main.", KN_CHAIN_MAIN_N, ft_ms(v, KN_CHAIN_MAIN_N), 0);
        ft_meas(r, v, "main.", KN_CHAIN_MAIN_N, 1.5 * ft_ms(v, KN_CHAIN_MAIN_N), 1);
        for (j = 0; j < nn && res_derived_num(v, "sweep") == 1; j++) {
            snprintf(prefix, sizeof prefix, "n=%ld.", ns[j]);
            ft_meas(r, v, prefix, ns[j], ft_ms(v, ns[j]), 0);
            ft_meas(r, v, prefix, ns[j], 1.5 * ft_ms(v, ns[j]), 1);
        }
        if (res_derived_num(v, "width") > 0) {
            snprintf(key, sizeof key, "width.%.0f.regs", res_derived_num(v, "width"));
            res_add(r, "fusion", key, key, "by hand", RES_WARM, "registers", &one, 1);
        }
    }
    return fs_conclude(r, 52428800.0);
}

/* fs_print into a string (malloc'd), NULL on failure. */
static char *ft_print(const results *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fs_print(f, r);
    fclose(f);
    if (getenv("TABLE_SHOW")) fputs(text, stdout);
    return text;
}

/* How many lines of text start with `start`. */
/* Does text hold want, with each line break and the indent after it read
 * as one space (a sentence laid out over several lines)? */
static int ft_has(const char *text, const char *want)
{
    char *flat = text ? strdup(text) : NULL, *w = want ? strdup(want) : NULL;
    int found = 0;
    size_t i, j;
    char *bufs[2] = { flat, w };
    int b;
    for (b = 0; b < 2; b++) {
        char *q = bufs[b];
        if (!q) continue;
        for (i = j = 0; q[i]; i++) {
            if (q[i] == '\n') {
                while (q[i + 1] == ' ') i++;
                if (j == 0 || q[j - 1] != ' ') q[j++] = ' ';
                continue;
            }
            q[j++] = q[i];
        }
        q[j] = '\0';
    }
    found = flat && w && strstr(flat, w) != NULL;
    free(flat);
    free(w);
    return found;
}

static int ft_lines(const char *text, const char *start)
{
    const char *p = text;
    int n = 0;
    size_t len = strlen(start);
    while (p && *p) {
        if (strncmp(p, start, len) == 0) n++;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return n;
}

/* The n sweep of a stored result with warm and L2-cold figures: one row
 * per n (the L2-cold staged chain was a second, unlabelled row, divided by
 * the warm fused time), the L2-cold figures in labelled columns of their
 * own; the conclusions the rows print; section launch's grid where it ran. */
static void ft_table(void)
{
    static const long ns[] = { 1024, 4194304, 67108864 };
    results r;
    char *text = NULL, want[160];
    const char *row;
    double st = NAN, fu = NAN, stc = NAN, fuc = NAN;
    const res_derived *sw, *cf;

    /* The GPU's name alone picks no datasheet figure: only the table of
     * known devices does, through the environment (below). */
    if (ft_results(&r, ns, FT_LEN(ns)) != 0 || res_env_str(&r, "gpu", "NVIDIA H200") != 0 ||
        (text = ft_print(&r)) == NULL) {
        th_check("fusion table: results built by hand and concluded", 0);
        goto out;
    }
    th_check("fusion table: the n sweep prints one row per n (3 sizes, 3 rows)",
             ft_lines(text, "      1024 ") == 1 && ft_lines(text, "   4194304 ") == 1 &&
             ft_lines(text, "  67108864 ") == 1);
    th_check("fusion table: the sweep's header labels its L2-cold columns",
             strstr(text, "L2-cold  L2-cold") != NULL);
    row = strstr(text, "\n      1024 ");
    th_check("fusion table: the n = 1024 row holds warm staged and fused, then L2-cold staged and fused",
             row && sscanf(row, " %*f %lf %lf %*f %*f %*f %*f %*f %lf %lf", &st, &fu, &stc, &fuc) == 4 &&
             fabs(st - 0.0120) < 6e-5 && fabs(fu - 0.0030) < 6e-5 && fabs(stc - 0.0180) < 6e-5 &&
             fabs(fuc - 0.0045) < 6e-5);
    sw = res_derived_find(&r, "fusion", "sweep.n=1024");
    snprintf(want, sizeof want, "fusion table: sweep.n=1024 stored: ratio %.3f (want 4.0), reading '%s'",
             sw ? sw->value : NAN, sw ? sw->text : "-");
    th_check(want, sw && fabs(sw->value - 4.0) < 0.01 && strncmp(sw->text, "launch:", 7) == 0 &&
             res_derived_num(sw, "us_per_launch") > 2.99 && res_derived_num(sw, "us_per_launch") < 3.01);
    cf = res_derived_find(&r, "fusion", "copy_floor");
    th_check("fusion table: the copy floor at the n with buffers of 4x the L2, no fallback",
             cf && res_derived_num(cf, "n") == 67108864 && res_derived_num(cf, "fallback") == 0 &&
             res_derived_find(&r, "fusion", "floor.main") && res_derived_find(&r, "fusion", "floor.n=1024"));
    th_check("fusion table: the stages' sum prints below stage 4",
             strstr(text, "stage 4, clamp") && strstr(text, "four stages, summed") >
             strstr(text, "stage 4, clamp"));
    {
        const res_derived *w = res_derived_find(&r, "fusion", "held.wide");
        snprintf(want, sizeof want, "fused-wide<%.0f>, moves %.0f GB/s: %.2fx the copy floor at this n",
                 res_derived_num(w, "width"), res_derived_num(w, "gbs"), w ? w->value : NAN);
        th_check("fusion table: the fastest fused-wide<K> and its share of the floor, stored and printed "
                 "(no fixed 'reach the floor')", w && ft_has(text, want) && !strstr(text, "(fused-wide<K>) reach the floor"));
    }
    th_check("fusion table: the smallest n's reading is the stored one, not a fixed sentence",
             ft_has(text, "the reading there: launch: the time is a launch's fixed cost.") &&
             !strstr(text, "launches, not bytes, set both times there"));
    th_check("fusion table: no datasheet figure without the environment's (not from the GPU's name)",
             strstr(text, "datasheet") == NULL &&
             isnan(res_derived_num(res_derived_find(&r, "fusion", "copy_floor"), "datasheet_pct")));
    th_check("fusion table: without section launch the sentence says it did not run",
             ft_has(text, "; section launch did not run in this run, so what its 3 extra grids take") &&
             isnan(res_derived_num(res_derived_find(&r, "fusion", "held"), "grid_us")));
    free(text);
    {
        static const double grid[] = { 40.0, 40.0, 40.0 }, one[] = { 1.25, 1.25, 1.25 };
        res_add(&r, "launch", "device.grid", "grid", "by hand", RES_WARM, "us", grid, 3);
        res_add(&r, "launch", "device.1x1", "one", "by hand", RES_WARM, "us", one, 3);
    }
    res_env_num(&r, "datasheet_memory_gbs", 4000);
    res_env_str(&r, "datasheet_source", "a sheet by hand");
    text = fs_conclude(&r, 52428800.0) == 0 ? ft_print(&r) : NULL;
    cf = res_derived_find(&r, "fusion", "copy_floor");
    snprintf(want, sizeof want, "%.1f%% of the 4000 GB/s its datasheet gives (a sheet by hand)",
             cf ? cf->value / 40.0 : NAN);
    th_check("fusion table: the datasheet's figure and source from the environment, its share stored",
             text && cf && ft_has(text, want) && res_derived_num(cf, "datasheet_gbs") == 4000 &&
             fabs(res_derived_num(cf, "datasheet_pct") - cf->value / 40.0) < 1e-9);
    th_check("fusion table: with section launch: the grid's empty kernel and its 3 extra grids",
             text && ft_has(text, "grid of 65,536 blocks takes 40.0 us (on one block 1.2 us), so its 3 "
                            "extra grids can take up to 120.0 us"));
    th_check("fusion table: no sweep row is said to be the main size's without shared.n=N",
             text && strstr(text, "the main size's samples") == NULL);
    free(text);
    {
        char key[48], n[32];
        snprintf(key, sizeof key, "shared.n=%u", KN_CHAIN_MAIN_N);
        res_derive(&r, "fusion", key, "by hand", KN_CHAIN_MAIN_N, "elements", "main");
        snprintf(want, sizeof want, "\n  At n = %s the rows are the main size's samples (the same "
                 "versions at the same n), not timed again.",
                 sec_commas(n, sizeof n, KN_CHAIN_MAIN_N));
    }
    text = ft_print(&r);
    th_check("fusion table: shared.n=N says under the sweep that its rows at N are the main size's",
             text && ft_has(text, want) && strstr(text, "  At n = 16,777,216 the rows") &&
             strstr(text, "  At n = 16,777,216 the rows") > strstr(text, "  67108864 ") &&
             strstr(text, "  At n = 16,777,216 the rows") < strstr(text, "  From n = 4194304 on, staged/fused stays within"));
out:
    free(text);
    res_free(&r);
}

void test_fusion(void)
{
    ft_models();
    ft_stored_models();
    ft_reference();
    ft_check();
    ft_table();
    ft_rtc();
}
