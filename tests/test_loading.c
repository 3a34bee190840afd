/* test_loading.c: --compare-loading's verdicts (ld_compare_verdicts) on
 * samples whose verdict and U-test p are worked out by hand, as stored
 * derived entries, in the JSON and in the printed table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testhelp.h"
#include "core/report.h"
#include "core/results.h"
#include "run/section.h"
#include "run/table.h"
#include "sections/loading/loading.h"

/* One eager-against-lazy pair of measurements of a step (n samples each;
 * nl == 0: eager only). */
static void tl_pair(results *r, const char *step, const double *e, size_t ne,
                    const double *l, size_t nl)
{
    char key[96];
    snprintf(key, sizeof key, "eager.%s", step);
    res_add(r, "loading", key, key, "host clock", RES_PROCESS, "ms", e, ne);
    if (nl == 0) return;
    snprintf(key, sizeof key, "lazy.%s", step);
    res_add(r, "loading", key, key, "host clock", RES_PROCESS, "ms", l, nl);
}

/* The run by hand: --threshold=15, max_noise 0.01 (a floor of 2% of the
 * lower median), five rounds (six lazy children for ptx.total, three and two
 * for cubin.total and cubin.mem_all). The noise of a mode is half its
 * central 95% (st_half_band): five values spaced 0.1 apart give positions
 * 0.1 and 3.9, half of 0.38 = 0.19; {1, 2, 3, 10, 11}: (10.9 - 1.1) / 2 = 4.9;
 * {4..8} and {1..5}: 1.9; three spaced 0.1: 0.095. p values, all exact
 * (fewer than 8 samples a side, no ties across the sets but get_first's):
 *   all 5 eager below all 5 lazy: U = 0, one split of C(10,5) = 252 as far
 *     out on each side: p = 2/252;
 *   5 eager below 6 lazy: p = 2/C(11,5) = 2/462;
 *   eager {1,2,3,10,11} against lazy {4..8}: U = 10, P(U <= 10) =
 *     (1+1+2+3+5+7+9+11+14+16+18)/252 = 87/252 (the counts of U = 0..10 for
 *     5 and 5), p = 174/252;
 *   the same five values on both sides: every value in a tie of two,
 *     U = 12.5 = its mean: p = 1;
 *   eager {1.0 .. 1.4} against lazy {1.05, 1.8, 1.9, 2.0, 2.1}: U = 4 (four
 *     eager values above 1.05), P(U <= 4) = (1+1+2+3+5)/252: p = 24/252 =
 *     0.095, reachable at 5 a side (2/252) but not reached: unclear; the
 *     lazy noise (2.09 - 1.125) / 2 = 0.4825, below the +0.7;
 *   three against three, two against two: the smallest p there is 2/20 =
 *     0.1 and 2/6, never below 0.01: out of reach. */
static void tl_build(results *r)
{
    static const double lo[] = { 1.0, 1.1, 1.2, 1.3, 1.4 }, hi[] = { 2.0, 2.1, 2.2, 2.3, 2.4 };
    static const double hi6[] = { 2.0, 2.1, 2.2, 2.3, 2.4, 2.5 };
    static const double same[] = { 1, 2, 3, 4, 5 }, out[] = { 1, 2, 3, 10, 11 };
    static const double mid[] = { 4, 5, 6, 7, 8 };
    static const double ten[] = { 10.0, 10.1, 10.2, 10.3, 10.4 };
    static const double eleven[] = { 11.0, 11.1, 11.2, 11.3, 11.4 };

    static const double lo3[] = { 1.0, 1.1, 1.2 }, hi3[] = { 2.0, 2.1, 2.2 };
    static const double near5[] = { 1.05, 1.8, 1.9, 2.0, 2.1 };

    res_init(r);
    res_env_num(r, "compare_loading_rounds", 5);
    res_env_num(r, "compare_threshold_pct", 15);
    res_env_num(r, "max_noise", 0.01);
    tl_pair(r, "harness.cubin.load", lo, 5, hi, 5);          /* LAZY higher */
    tl_pair(r, "harness.cubin.jit", hi, 5, lo, 5);           /* EAGER higher */
    tl_pair(r, "harness.cubin.get_first", same, 5, same, 5); /* identical */
    tl_pair(r, "harness.cubin.launch_host", out, 5, mid, 5); /* +100%, within the noise 4.9 */
    tl_pair(r, "harness.cubin.get_others", ten, 5, eleven, 5); /* p small, +9.8% < 15% */
    tl_pair(r, "harness.cubin.total", lo3, 3, hi3, 3);      /* past the noise, p = 0.1: out of reach */
    tl_pair(r, "harness.cubin.mem_all", lo3, 2, hi3, 2);    /* two a mode: out of reach */
    tl_pair(r, "harness.cubin.func_load", lo, 5, NULL, 0);  /* no lazy figure */
    tl_pair(r, "harness.cubin.launch_events", lo, 5, hi, 5); /* not a compare step */
    tl_pair(r, "harness.ptx.total", lo, 5, hi6, 6);         /* LAZY higher, 5 and 6 */
    tl_pair(r, "harness.ptx.mem_all", lo, 5, near5, 5);     /* p = 24/252 at 5 a side: unclear */
    tl_pair(r, "library.cubin.load", lo, 5, hi, 5);         /* the library path */
}

/* One stored verdict: its text, p (within 1e-12 of want_p), the noise it
 * was judged against, and fields (min_p: the smallest p at its counts). */
static void tl_expect(const results *r, const char *key, const char *text, double want_p,
                      double noise, double eager_n, double lazy_n, double min_p)
{
    const res_derived *d = res_derived_find(r, "loading", key);
    char desc[200];
    snprintf(desc, sizeof desc, "loading verdicts: %s is \"%s\"", key, text);
    th_check(desc, d && strcmp(d->text, text) == 0);
    snprintf(desc, sizeof desc, "loading verdicts: %s: value and field p = %.6f", key, want_p);
    th_check(desc, d && fabs(d->value - want_p) < 1e-12 &&
             fabs(res_derived_num(d, "p") - want_p) < 1e-12);
    snprintf(desc, sizeof desc, "loading verdicts: %s: threshold 15, alpha 0.01, sample counts, "
             "smallest p %.6f", key, min_p);
    th_check(desc, d && res_derived_num(d, "threshold_pct") == 15 &&
             res_derived_num(d, "alpha") == 0.01 && res_derived_num(d, "eager_n") == eager_n &&
             res_derived_num(d, "lazy_n") == lazy_n && d->nfields == 12 &&
             fabs(res_derived_num(d, "min_p") - min_p) < 1e-12);
    snprintf(desc, sizeof desc, "loading verdicts: %s: judged against the noise %.3f", key, noise);
    th_check(desc, d && fabs(res_derived_num(d, "noise") - noise) < 1e-12);
}

static void tl_stored(results *r)
{
    const res_derived *d;
    size_t nd;

    th_check("loading verdicts: ld_compare_verdicts returns 0", ld_compare_verdicts(r) == 0);
    tl_expect(r, "compare.harness.cubin.load", "LAZY higher", 2.0 / 252, 0.19, 5, 5, 2.0 / 252);
    tl_expect(r, "compare.harness.cubin.jit", "EAGER higher", 2.0 / 252, 0.19, 5, 5, 2.0 / 252);
    tl_expect(r, "compare.harness.cubin.get_first", "no difference", 1.0, 1.9, 5, 5, 2.0 / 252);
    tl_expect(r, "compare.harness.cubin.launch_host", "no difference", 174.0 / 252, 4.9, 5, 5, 2.0 / 252);
    /* The floor, 2% of 10.2 = 0.204, is above both modes' 0.19. */
    tl_expect(r, "compare.harness.cubin.get_others", "no difference", 2.0 / 252, 0.204, 5, 5, 2.0 / 252);
    /* Six lazy values 2.0..2.5: positions 0.125 and 4.875, (2.4875 - 2.0125) / 2. */
    tl_expect(r, "compare.harness.ptx.total", "LAZY higher", 2.0 / 462, 0.2375, 5, 6, 2.0 / 462);
    tl_expect(r, "compare.harness.ptx.mem_all", "unclear", 24.0 / 252, 0.4825, 5, 5, 2.0 / 252);
    /* Three against three, all apart: p = 2/20, the least 3 a side can give;
     * the floor 0.02 < 0.095. */
    tl_expect(r, "compare.harness.cubin.total",
              "out of reach at 3 a side: the U test's smallest p is 0.100", 0.1, 0.095, 3, 3, 0.1);
    /* Two against two: 2/6; no noise of either mode, the floor 2% of 1.05. */
    tl_expect(r, "compare.harness.cubin.mem_all",
              "out of reach at 2 a side: the U test's smallest p is 0.333", 2.0 / 6, 0.021, 2, 2,
              2.0 / 6);
    d = res_derived_find(r, "loading", "compare.harness.cubin.load");
    th_check("loading verdicts: medians and lazy - eager stored",
             d && fabs(res_derived_num(d, "eager_median") - 1.2) < 1e-12 &&
             fabs(res_derived_num(d, "lazy_median") - 2.2) < 1e-12 &&
             fabs(res_derived_num(d, "diff") - 1.0) < 1e-12);
    d = res_derived_find(r, "loading", "compare.harness.cubin.jit");
    th_check("loading verdicts: lazy - eager is negative when eager is higher",
             d && fabs(res_derived_num(d, "diff") + 1.0) < 1e-12);
    th_check("loading verdicts: each mode's noise as a percentage of its median",
             d && fabs(res_derived_num(d, "eager_noise_pct") - 0.19 / 2.2 * 100) < 1e-9 &&
             fabs(res_derived_num(d, "lazy_noise_pct") - 0.19 / 1.2 * 100) < 1e-9);
    d = res_derived_find(r, "loading", "compare.harness.cubin.mem_all");
    th_check("loading verdicts: no noise of a mode of two children (0%)",
             d && res_derived_num(d, "eager_noise_pct") == 0 && res_derived_num(d, "lazy_noise_pct") == 0);
    th_check("loading verdicts: none without both modes, off the compare steps, or for the library",
             !res_derived_find(r, "loading", "compare.harness.cubin.func_load") &&
             !res_derived_find(r, "loading", "compare.harness.cubin.launch_events") &&
             !res_derived_find(r, "loading", "compare.library.cubin.load") && r->nd == 9);
    nd = r->nd;
    th_check("loading verdicts: computed again, each replaces its own",
             ld_compare_verdicts(r) == 0 && r->nd == nd);
}

/* The JSON holds the verdicts, and check_json.py accepts them. */
static void tl_json(const results *r)
{
    char dir[] = "/tmp/harness-test-loading.XXXXXX", path[128], cmd[512];
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int st;

    if ((f = open_memstream(&text, &len)) == NULL) {
        th_check("loading verdicts: open_memstream", 0);
        return;
    }
    rp_json(f, r);
    fclose(f);
    th_check("loading verdicts: the JSON holds the verdict and its fields",
             strstr(text, "{\"section\": \"loading\", \"key\": \"compare.harness.cubin.load\", ") &&
             strstr(text, "\"text\": \"LAZY higher\", \"fields\": {\"p\": ") &&
             strstr(text, "\"threshold_pct\": 15, \"alpha\": 0.01, \"min_p\": 0.00793650793650") &&
             strstr(text, "\"eager_median\": 1.2") &&
             strstr(text, "\"eager_n\": 5, \"lazy_n\": 6}"));
    free(text);
    if (!mkdtemp(dir)) {
        th_check("loading verdicts: mkdtemp", 0);
        return;
    }
    snprintf(path, sizeof path, "%s/v.json", dir);
    th_check("loading verdicts: rp_write_json returns 0", rp_write_json(r, path) == 0);
    snprintf(cmd, sizeof cmd,
             "python3 tests/check_json.py --no-provenance %s --expect-measurements 23 >/dev/null",
             path);
    st = system(cmd);
    th_check("loading verdicts: check_json.py accepts the derived entries",
             st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    snprintf(cmd, sizeof cmd, "sed 's/\"threshold_pct\"/\"Threshold\"/' %s >%s/bad.json && "
             "python3 tests/check_json.py --no-provenance %s/bad.json >/dev/null", path, dir, dir);
    st = system(cmd);
    th_check("loading verdicts: check_json.py rejects a field name outside [a-z0-9_.]",
             st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) th_check("loading verdicts: temporary directory removed", 0);
}

/* The table prints the stored verdicts, one row each. */
static void tl_table(const results *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    if ((f = open_memstream(&text, &len)) == NULL) {
        th_check("loading verdicts: open_memstream", 0);
        return;
    }
    /* Wide enough that no cell wraps: the rows as they are. */
    tb_set_width(1000);
    ld_print(f, r);
    tb_set_width(0);
    fclose(f);
    if (getenv("TABLE_SHOW")) fputs(text, stdout);
    th_check("loading verdicts: the table prints each verdict with its noise and p",
             strstr(text, "    load            1.200 [1.000, 1.400]     2.200 [2.000, 2.400]"
                    "  +1.000, 0.190, 0.0079  LAZY higher\n") &&
             strstr(text, "    jit             2.200 [2.000, 2.400]     1.200 [1.000, 1.400]"
                    "  -1.000, 0.190, 0.0079  EAGER higher\n") &&
             strstr(text, "    launch_host    3.000 [1.000, 11.000]     6.000 [4.000, 8.000]"
                    "  +3.000, 4.900, 0.6905  no difference\n") &&
             strstr(text, "  +0.000, 1.900, 1.0000  no difference\n") &&
             strstr(text, "  +1.000, 0.095, 0.1000  out of reach at 3 a side: the U test's smallest "
                    "p is 0.100\n") &&
             strstr(text, "  +0.700, 0.482, 0.0952  unclear\n"));
    th_check("loading verdicts: a module heads its rows, also without a load row",
             strstr(text, "\n  harness (ptx)\n    total           1.200 [1.000, 1.400]"));
    th_check("loading verdicts: the footer names the noise, alpha and the threshold",
             strstr(text, "noise: half the central 95% of the noisier mode's children") &&
             strstr(text, "p < 0.01 and its median is at least 15% above the other's") &&
             strstr(text, "fewer than 3 children a mode") &&
             strstr(text, "'out of reach' where the counts cannot give p < 0.01") &&
             strstr(text, "5 a side are the fewest that can"));
    free(text);
}

/* Where the functions were loaded, in each mode: a module of 14 kernels
 * and one of 100, three children each; ld_loaded_by's verdicts and the
 * table's sentence per format. */
static void tl_loaded_by(void)
{
    static const char *const steps[] = { "load", "k", "loaded_load", "loaded_get", "loaded_launch",
                                         "loaded_others", "loaded_all" };
    static const int eager = 1, lazy = 0;
    int mode;

    for (mode = lazy; mode <= eager; mode++) {
        static const double kk[2] = { 14, 100 };
        static const char *const label[2] = { "harness", "synth100" };
        results r;
        char key[96], *text = NULL;
        size_t len = 0, s;
        int m, c;
        FILE *f;

        res_init(&r);
        res_env_num(&r, "loading_rounds", 3);
        for (m = 0; m < 2; m++)
            for (s = 0; s < sizeof steps / sizeof steps[0]; s++)
                for (c = 0; c < 3; c++) {
                    double v = s == 0 ? 0.1 : s == 1 || s >= 5 ? kk[m] : s == 2 ? (mode == eager ? kk[m] : 0) : 1;
                    snprintf(key, sizeof key, "%s.cubin.%s", label[m], steps[s]);
                    res_append(&r, "loading", key, key, "by hand", RES_PROCESS, "", v);
                }
        th_check("loaded_by: stored for every module", ld_loaded_by(&r) == 0);
        ld_loaded_by_key(key, sizeof key, "synth100", "cubin");
        {
            const res_derived *d = res_derived_find(&r, "loading", key);
            th_check(mode == eager ? "loaded_by, EAGER: the module load (100 of 100 after it)"
                                   : "loaded_by, LAZY: cuModuleGetFunction (0 of 100 after the load)",
                     d && strcmp(d->text, mode == eager ? "the module load" : "cuModuleGetFunction") == 0 &&
                     d->value == (mode == eager ? 100 : 0) && res_derived_num(d, "k") == 100);
        }
        if ((f = open_memstream(&text, &len)) != NULL) {
            tb_section(f, &r, sec_table[CLI_SEC_LOADING].name, sec_table[CLI_SEC_LOADING].print);
            fclose(f);
        }
        if (getenv("TABLE_SHOW") && text) fputs(text, stdout);
        th_check(mode == eager ? "loading table, EAGER: every module's functions loaded by the module load"
                               : "loading table, LAZY: every module's functions loaded by cuModuleGetFunction",
                 text && strstr(text, mode == eager ? "cubin: every module's functions were loaded by the "
                                                      "module load"
                                                    : "cubin: every module's functions were loaded by "
                                                      "cuModuleGetFunction"));
        th_check("loading table: a module's line gives the counts after each step, the load's first",
                 text && strstr(text, "loaded after each step ") &&
                 strstr(text, mode == eager ? "14/1/1/14/14" : "0/1/1/14/14"));
        free(text);
        res_free(&r);
    }
}

void test_loading(void)
{
    results r;

    tl_build(&r);
    tl_stored(&r);
    tl_json(&r);
    tl_table(&r);
    res_free(&r);
    tl_loaded_by();
}
