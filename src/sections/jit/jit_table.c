/* jit_table.c: the jit section's tables: NVRTC's phases, the driver's JIT
 * by cache state, options and levels, and the order children. Reads the
 * results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/jit/jit.h"

#define JT "jit"

/* The NVRTC option sets (key suffix, the option) and the driver JIT's cache
 * states (key prefix, words), in the order printed: for the built-in
 * sources and for --source alike. */
static const char *const sets[][2] = {
    { JT_SET_COMPUTE, "-arch=compute_XY (PTX)" }, { JT_SET_BASE, "-arch=sm_XY (cubin)" },
    { JT_SET_FAST_MATH, "--use_fast_math" }, { JT_SET_LINEINFO, "-lineinfo" },
    { JT_SET_G, "-G" }, { JT_SET_EDV, "--extra-device-vectorization" }, { JT_SET_DOPT, "-dopt=on" },
};
static const char *const states[][2] = {
    { JT_CACHE_DISABLED, "EAGER, cache disabled (CUDA_CACHE_DISABLE=1)" },
    { JT_CACHE_EMPTY, "EAGER, empty private cache" },
    { JT_CACHE_WARM, "EAGER, the same cache, warm" },
    { JT_LAZY_DISABLED, "LAZY, cache disabled" },
};

/* The key prefix + infix + step (any of them "") into buf. */
static const char *jt_key(char *buf, size_t len, const char *prefix, const char *infix, const char *step)
{
    snprintf(buf, len, "%s%s%s", prefix, infix, step);
    return buf;
}

/* The key of a pattern with one <word>, filled with part, into buf. */
static const char *jt_fill(char *buf, size_t len, const char *prefix, const char *pattern, const char *part)
{
    sch_fill(buf, len, prefix, pattern, &part, 1);
    return buf;
}

/* A table of rows labelled label[i] and up to four figures v[i][0..3]
 * (the columns whose head is not NULL; NaN: "-"), each column at its
 * precision, laid out for the width. */
static void jt_table4(FILE *f, const char *head0, const char *const head[4], const char *const *label,
                      size_t n, double (*v)[4], const int prec[4])
{
    size_t i, nc = 0;
    int q;
    ly_table *t;

    while (nc < 4 && head[nc]) nc++;
    t = ly_new(2, nc + 1);
    ly_column(t, 0, head0, LY_LEFT, 16);
    for (q = 0; q < (int)nc; q++) ly_column(t, (size_t)q + 1, head[q], LY_RIGHT, 0);
    for (i = 0; i < n; i++) {
        char c[4][32];
        const char *cell[5];
        cell[0] = label[i];
        for (q = 0; q < (int)nc; q++) {
            if (isnan(v[i][q])) snprintf(c[q], sizeof c[q], "-");
            else snprintf(c[q], sizeof c[q], "%.*f", prec[q], v[i][q]);
            cell[q + 1] = c[q];
        }
        ly_row(t, cell, nc + 1);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* --source: each file's NVRTC figures, its first compile in a process and
 * the driver's JIT of its PTX by cache state. */
static void jt_print_sources(FILE *f, const results *r)
{
    char key[128], pre[32];
    size_t i, q;
    const res_derived *d;

    for (i = 0;; i++) {
        char n[32];
        snprintf(n, sizeof n, "%zu", i);
        jt_fill(key, sizeof key, NULL, JT_D_SRC, n);
        if (!(d = res_derived_find(r, JT, key))) break;
        jt_fill(pre, sizeof pre, JT_SRC_PRE, "", n);
        fprintf(f, "\n");
        ly_para(f, 0, 2, tb_width(), "jit --source %zu: %s (%.0f bytes), NVRTC options: %s; arch %s, "
                "medians in ms", i, d->name, d->value, d->text[0] ? d->text : "none",
                tb_env_str(r, "jit_arch", "?"));
        fprintf(f, "  to PTX");
        tb_num(f, 10, 2, tb_med(r, JT, jt_key(key, sizeof key, pre, "", JT_SRC_PTX)));
        fprintf(f, "   to cubin");
        tb_num(f, 10, 2, tb_med(r, JT, jt_key(key, sizeof key, pre, "", JT_SRC_CUBIN)));
        fprintf(f, "\n");
        {
            double a = tb_med(r, JT, jt_key(key, sizeof key, pre, JT_NVRTC_PRE, JT_FIRST_FIRST));
            double b = tb_med(r, JT, jt_key(key, sizeof key, pre, JT_NVRTC_PRE, JT_FIRST_SECOND));
            double c = tb_med(r, JT, jt_key(key, sizeof key, pre, JT_NVRTC_PRE, JT_FIRST_DLOPEN));
            ly_para(f, 2, 4, tb_width(), "first compile in a fresh process %.2f, the second %.2f "
                    "(loading NVRTC %.2f); children", a, b, c);
        }
        if (res_find(r, JT, jt_key(key, sizeof key, pre, "", JT_SET_BASE))) {
            fprintf(f, "  options (each after the --nvrtc-option list)\n");
            for (q = 0; q < sizeof sets / sizeof sets[0]; q++) {
                fprintf(f, "  %-34s", sets[q][1]);
                tb_num(f, 9, 2, tb_med(r, JT, jt_key(key, sizeof key, pre, "", sets[q][0])));
                fprintf(f, "\n");
            }
        }
        jt_key(key, sizeof key, pre, JT_PHASES, "");
        {
            char text[1024];
            size_t at = (size_t)snprintf(text, sizeof text, "NVRTC's own phases (--time), to cubin:");
            for (q = 0; q < r->nm && at < sizeof text; q++)
                if (strcmp(r->m[q].section, JT) == 0 && strncmp(r->m[q].key, key, strlen(key)) == 0)
                    at += (size_t)snprintf(text + at, sizeof text - at, " %s %.0f;",
                                           r->m[q].key + strlen(key), r->m[q].stats.median);
            ly_para(f, 2, 4, tb_width(), "%s", text);
        }
        jt_key(key, sizeof key, pre, JT_CACHE_DISABLED, JT_LOAD);
        if (!res_find(r, JT, key)) continue;
        ly_para(f, 2, 4, tb_width(), "driver JIT of its PTX, child processes, median of %zu:",
                res_find(r, JT, key)->stats.n);
        {
            static const char *const head[4] = { "load", "JIT wall", "cuFuncLoad", "functions" };
            static const char *const st[4] = { JT_LOAD, JT_JIT, JT_FUNC_LOAD, JT_FUNCTIONS };
            static const int prec[4] = { 3, 3, 3, 0 };
            const char *label[sizeof states / sizeof states[0]];
            double v[sizeof states / sizeof states[0]][4];
            int k;
            for (q = 0; q < sizeof states / sizeof states[0]; q++) {
                label[q] = states[q][1];
                for (k = 0; k < 4; k++)
                    v[q][k] = tb_med(r, JT, jt_key(key, sizeof key, pre, states[q][0], st[k]));
            }
            jt_table4(f, NULL, head, label, sizeof states / sizeof states[0], v, prec);
        }
    }
}

/* The built-in sources' NVRTC times, the first compile in a fresh process,
 * the option sets and NVRTC's own phases of vector.cu. */
static void jt_print_compile(FILE *f, const results *r)
{
    size_t i;
    char key[128];

    char text[1024];
    size_t at;

    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "jit: what compiling at run time costs (arch %s); NVRTC in this "
            "process, medians in ms", tb_env_str(r, "jit_arch", "?"));
    fprintf(f, "  %-22s %10s %10s\n", "source", "to PTX", "to cubin");
    for (i = 0; i < kn_nfiles; i++) {
        fprintf(f, "  %-22s", kn_files[i]);
        tb_num(f, 10, 2, tb_med(r, JT, jt_fill(key, sizeof key, NULL, JT_COMPILE_PTX, kn_files[i])));
        tb_num(f, 10, 2, tb_med(r, JT, jt_fill(key, sizeof key, NULL, JT_COMPILE_CUBIN, kn_files[i])));
        fprintf(f, "\n");
    }
    ly_para(f, 2, 4, tb_width(), "first compile in a fresh process %.2f, the second %.2f (loading "
            "NVRTC %.2f); children, median of %zu", tb_med(r, JT, JT_NVRTC_PRE JT_FIRST_FIRST),
            tb_med(r, JT, JT_NVRTC_PRE JT_FIRST_SECOND), tb_med(r, JT, JT_NVRTC_PRE JT_FIRST_DLOPEN),
            res_find(r, JT, JT_NVRTC_PRE JT_FIRST_FIRST) ? res_find(r, JT, JT_NVRTC_PRE JT_FIRST_FIRST)->stats.n
                                                        : (size_t)0);
    fprintf(f, "\n");
    if (res_find(r, JT, JT_SET_BASE)) {              /* not in --quick */
        fprintf(f, "  options, vector.cu\n");
        for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
            fprintf(f, "  %-34s", sets[i][1]);
            tb_num(f, 9, 2, tb_med(r, JT, sets[i][0]));
            fprintf(f, "\n");
        }
    }
    at = (size_t)snprintf(text, sizeof text, "NVRTC's own phases (--time), vector.cu to cubin:");
    for (i = 0; i < r->nm && at < sizeof text; i++)
        if (strcmp(r->m[i].section, JT) == 0 &&
            strncmp(r->m[i].key, JT_PHASES_VECTOR, strlen(JT_PHASES_VECTOR)) == 0)
            at += (size_t)snprintf(text + at, sizeof text - at, " %s %.0f;",
                                   r->m[i].key + strlen(JT_PHASES_VECTOR), r->m[i].stats.median);
    ly_para(f, 2, 4, tb_width(), "%s", text);
}

/* The synthetic sources of K kernels: their size and compile times. */
static void jt_print_synth(FILE *f, const results *r)
{
    size_t i;
    char key[128];

    fprintf(f, "\n  %-10s %12s %10s %10s\n", "kernels K", "source B", "to PTX", "to cubin");
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        long k;
        size_t head = strcspn(JT_SYNTH_PTX, "<");
        char n[32];
        if (strcmp(m->section, JT) != 0 || strncmp(m->key, JT_SYNTH_PTX, head) != 0) continue;
        if (!strstr(m->key, ".ptx")) continue;
        k = strtol(m->key + head, NULL, 10);
        snprintf(n, sizeof n, "%ld", k);
        fprintf(f, "  %-10ld %12ld %10.2f", k, m->n, m->stats.median);
        tb_num(f, 10, 2, tb_med(r, JT, jt_fill(key, sizeof key, NULL, JT_SYNTH_CUBIN, n)));
        fprintf(f, "\n");
    }
}

/* The driver's JIT of the K-kernel PTX module by cache state, and what the
 * warm cache and LAZY change; nothing where it was not measured. */
static void jt_print_driver_jit(FILE *f, const results *r)
{
    size_t i;
    char key[128], k2[128];
    double dis, warm, ej, lj, ll, la;

    if (!res_find(r, JT, jt_key(k2, sizeof k2, "", JT_CACHE_DISABLED, JT_LOAD))) return;
    fprintf(f, "\n");
    ly_para(f, 2, 4, tb_width(), "driver JIT of the %.0f-kernel PTX module, child processes, median "
            "of %zu:", tb_env_num(r, "jit_cache_k"), res_find(r, JT, k2)->stats.n);
    {
        static const char *const head[4] = { "load", "JIT wall", "get 1st", "1st launch" };
        static const char *const st[4] = { JT_LOAD, JT_JIT, JT_GET, JT_LAUNCH };
        static const int prec[4] = { 3, 3, 3, 3 };
        const char *label[sizeof states / sizeof states[0]];
        double v[sizeof states / sizeof states[0]][4];
        int q;
        for (i = 0; i < sizeof states / sizeof states[0]; i++) {
            label[i] = states[i][1];
            for (q = 0; q < 4; q++) v[i][q] = tb_med(r, JT, jt_key(key, sizeof key, "", states[i][0], st[q]));
        }
        jt_table4(f, NULL, head, label, sizeof states / sizeof states[0], v, prec);
    }
    dis = tb_med(r, JT, JT_CACHE_DISABLED JT_LOAD);
    warm = tb_med(r, JT, JT_CACHE_WARM JT_LOAD);
    ej = tb_med(r, JT, JT_CACHE_DISABLED JT_JIT);
    lj = tb_med(r, JT, JT_LAZY_DISABLED JT_JIT);
    ll = tb_med(r, JT, JT_LAZY_DISABLED JT_LOAD);
    la = tb_med(r, JT, JT_LAZY_DISABLED JT_LAUNCH);
    ly_para(f, 2, 2, tb_width(), "The warm cache saves %.3f ms of the %.3f ms load.", dis - warm, dis);
    if (!isnan(lj) && !isnan(ej) && ej > 0)
        ly_para(f, 2, 2, tb_width(), "Under LAZY the JIT %s: the driver reports %.3f ms of JIT inside "
                "the load (EAGER %.3f ms); the load takes %.3f ms and the first launch %.3f ms.",
                lj >= 0.5 * ej ? "is not deferred" : "is deferred", lj, ej, ll, la);
}

/* CU_JIT_OPTIMIZATION_LEVEL 0 to 4; nothing where it was not measured. */
static void jt_print_levels(FILE *f, const results *r)
{
    size_t i;
    char key[128];

    if (!res_find(r, JT, jt_fill(key, sizeof key, JT_JITOPT_PRE, JT_OPT_LOAD, "0"))) return;
    {
        static const char *const head[4] = { "load", "JIT wall", "vectorAdd", NULL };
        static const int prec[4] = { 3, 3, 4, 0 };
        static const char *const label[5] = { "0", "1", "2", "3", "4" };
        double v[5][4];
        for (i = 0; i <= 4; i++) {
            v[i][0] = tb_med(r, JT, jt_fill(key, sizeof key, JT_JITOPT_PRE, JT_OPT_LOAD, label[i]));
            v[i][1] = tb_med(r, JT, jt_fill(key, sizeof key, JT_JITOPT_PRE, JT_OPT_JIT, label[i]));
            v[i][2] = tb_med(r, JT, jt_fill(key, sizeof key, JT_JITOPT_PRE, JT_OPT_WARM, label[i]));
            v[i][3] = NAN;
        }
        fprintf(f, "\n");
        jt_table4(f, "CU_JIT_OPTIMIZATION_LEVEL (vector.cu PTX, cache disabled)", head, label, 5, v,
                  prec);
    }
}

/* Who pays what cuInit and NVRTC share, by the order children; nothing
 * where it was not measured. */
static void jt_print_orders(FILE *f, const results *r)
{
    static const char *const orders[][2] = {
        { JT_ORDER_INIT, "cuInit first" },
        { JT_ORDER_COMPILE, "first compile first" },
        { JT_ORDER_INIT_NOPRELOAD, "cuInit first, CUDA_FORCE_PRELOAD_LIBRARIES=0" },
        { JT_ORDER_COMPILE_NOPRELOAD, "compile first, CUDA_FORCE_PRELOAD_LIBRARIES=0" },
    };
    static const char *const st[4] = { JT_ORDER_LIBCUDA, JT_ORDER_CUINIT, JT_ORDER_NVRTC,
                                       JT_ORDER_COMPILE_STEP };
    size_t i;
    int q;
    char key[128];
    double ci, cc, pi, pc, lc;
    static const char *const heads[4] = { "libcuda", "cuInit", "NVRTC", "compile" };
    ly_table *t;

    if (!res_find(r, JT, JT_ORDER_INIT JT_ORDER_CUINIT)) return;
    t = ly_new(2, 5);
    ly_column(t, 0, "who pays what cuInit and NVRTC share (children):", LY_LEFT, 16);
    for (q = 0; q < 4; q++) ly_column(t, (size_t)q + 1, heads[q], LY_RIGHT, 0);
    for (i = 0; i < sizeof orders / sizeof orders[0]; i++) {
        char c[4][32];
        for (q = 0; q < 4; q++) {
            double v = tb_med(r, JT, jt_key(key, sizeof key, orders[i][0], "", st[q]));
            if (isnan(v)) snprintf(c[q], sizeof c[q], "-");
            else snprintf(c[q], sizeof c[q], "%.2f", v);
        }
        ly_rowv(t, orders[i][1], c[0], c[1], c[2], c[3], NULL);
    }
    fprintf(f, "\n");
    ly_print(f, t, tb_width());
    ly_free(t);
    ci = tb_med(r, JT, JT_ORDER_INIT JT_ORDER_CUINIT);
    cc = tb_med(r, JT, JT_ORDER_COMPILE JT_ORDER_CUINIT);
    pi = tb_med(r, JT, JT_ORDER_INIT JT_ORDER_COMPILE_STEP);
    pc = tb_med(r, JT, JT_ORDER_COMPILE JT_ORDER_COMPILE_STEP);
    lc = tb_med(r, JT, JT_ORDER_COMPILE JT_ORDER_LIBCUDA);
    ly_para(f, 2, 2, tb_width(), "Compiling first moves %.2f ms out of cuInit (%.2f -> %.2f) and "
            "adds %.2f ms to the first compile (%.2f -> %.2f)%s", ci - cc, ci, cc, pc - pi, pi, pc,
            lc < 0.1 ? "; libcuda was already loaded when the harness asked for it: NVRTC's "
                       "first compile had loaded the driver and initialised it itself" : ".");
}

void jt_print(FILE *f, const results *r)
{
    size_t i;
    char key[128];
    int any = 0;

    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, JT) == 0) any = 1;
    if (!any) return;
    jt_print_sources(f, r);
    if (!res_find(r, JT, jt_fill(key, sizeof key, NULL, JT_COMPILE_PTX, JT_VECTOR)))
        return;     /* --source alone */
    jt_print_compile(f, r);
    jt_print_synth(f, r);
    jt_print_driver_jit(f, r);
    jt_print_levels(f, r);
    jt_print_orders(f, r);
}
