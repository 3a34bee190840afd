/* jit_table.c: the jit section's tables: NVRTC's phases, the driver's JIT
 * by cache state, options and levels, and the order children. Reads the
 * results only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/section.h"
#include "run/table.h"

/* The NVRTC option sets (key suffix, the option) and the driver JIT's cache
 * states (key prefix, words), in the order printed: for the built-in
 * sources and for --source alike. */
static const char *const sets[][2] = {
    { "opt.compute", "-arch=compute_XY (PTX)" }, { "opt.base", "-arch=sm_XY (cubin)" },
    { "opt.fast_math", "--use_fast_math" }, { "opt.lineinfo", "-lineinfo" },
    { "opt.G", "-G" }, { "opt.edv", "--extra-device-vectorization" }, { "opt.dopt", "-dopt=on" },
};
static const char *const states[][2] = {
    { "cache.disabled.", "EAGER, cache disabled (CUDA_CACHE_DISABLE=1)" },
    { "cache.empty.", "EAGER, empty private cache" },
    { "cache.warm.", "EAGER, the same cache, warm" },
    { "lazy.disabled.", "LAZY, cache disabled" },
};

/* --source: each file's NVRTC figures, its first compile in a process and
 * the driver's JIT of its PTX by cache state. */
static void jt_print_sources(FILE *f, const results *r)
{
    char key[128], pre[32];
    size_t i, q;
    const res_derived *d;

    for (i = 0;; i++) {
        snprintf(key, sizeof key, "src.%zu", i);
        if (!(d = res_derived_find(r, "jit", key))) break;
        snprintf(pre, sizeof pre, "src.%zu.", i);
        fprintf(f, "\njit --source %zu: %s (%.0f bytes), NVRTC options: %s; arch %s, medians in ms\n", i,
                d->name, d->value, d->text[0] ? d->text : "none", tb_env_str(r, "jit_arch", "?"));
        snprintf(key, sizeof key, "%sptx", pre);
        fprintf(f, "  to PTX");
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        snprintf(key, sizeof key, "%scubin", pre);
        fprintf(f, "   to cubin");
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        snprintf(key, sizeof key, "%snvrtc.first", pre);
        fprintf(f, "\n  first compile in a fresh process %.2f", tb_med(r, "jit", key));
        snprintf(key, sizeof key, "%snvrtc.second", pre);
        fprintf(f, ", the second %.2f", tb_med(r, "jit", key));
        snprintf(key, sizeof key, "%snvrtc.dlopen", pre);
        fprintf(f, " (loading NVRTC %.2f); children\n", tb_med(r, "jit", key));
        snprintf(key, sizeof key, "%sopt.base", pre);
        if (res_find(r, "jit", key)) {
            fprintf(f, "  options (each after the --nvrtc-option list)\n");
            for (q = 0; q < sizeof sets / sizeof sets[0]; q++) {
                snprintf(key, sizeof key, "%s%s", pre, sets[q][0]);
                fprintf(f, "  %-34s", sets[q][1]);
                tb_num(f, 9, 2, tb_med(r, "jit", key));
                fprintf(f, "\n");
            }
        }
        snprintf(key, sizeof key, "%sphases.", pre);
        fprintf(f, "  NVRTC's own phases (--time), to cubin:");
        for (q = 0; q < r->nm; q++)
            if (strcmp(r->m[q].section, "jit") == 0 && strncmp(r->m[q].key, key, strlen(key)) == 0)
                fprintf(f, " %s %.0f;", r->m[q].key + strlen(key), r->m[q].stats.median);
        fprintf(f, "\n");
        snprintf(key, sizeof key, "%scache.disabled.load", pre);
        if (!res_find(r, "jit", key)) continue;
        fprintf(f, "  driver JIT of its PTX, child processes, median of %zu:\n",
                res_find(r, "jit", key)->stats.n);
        fprintf(f, "  %-48s %9s %9s %11s %9s\n", "", "load", "JIT wall", "cuFuncLoad", "functions");
        for (q = 0; q < sizeof states / sizeof states[0]; q++) {
            static const char *const st[4] = { "load", "jit", "func_load", "functions" };
            int k;
            fprintf(f, "  %-48s", states[q][1]);
            for (k = 0; k < 4; k++) {
                snprintf(key, sizeof key, "%s%s%s", pre, states[q][0], st[k]);
                tb_num(f, k == 2 ? 11 : 9, k == 3 ? 0 : 3, tb_med(r, "jit", key));
            }
            fprintf(f, "\n");
        }
    }
}

void jt_print(FILE *f, const results *r)
{
    static const char *const orders[][2] = {
        { "order.init_first.", "cuInit first" },
        { "order.compile_first.", "first compile first" },
        { "order.init_first.nopreload.", "cuInit first, CUDA_FORCE_PRELOAD_LIBRARIES=0" },
        { "order.compile_first.nopreload.", "compile first, CUDA_FORCE_PRELOAD_LIBRARIES=0" },
    };
    size_t i;
    char key[128];
    int any = 0;

    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, "jit") == 0) any = 1;
    if (!any) return;
    jt_print_sources(f, r);
    if (!res_find(r, "jit", "compile.vector.cu.ptx")) return;     /* --source alone */
    fprintf(f, "\njit: what compiling at run time costs (arch %s); NVRTC in this process, medians in ms\n",
            tb_env_str(r, "jit_arch", "?"));
    fprintf(f, "  %-22s %10s %10s\n", "source", "to PTX", "to cubin");
    for (i = 0; i < kn_nfiles; i++) {
        fprintf(f, "  %-22s", kn_files[i]);
        snprintf(key, sizeof key, "compile.%s.ptx", kn_files[i]);
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        snprintf(key, sizeof key, "compile.%s.cubin", kn_files[i]);
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        fprintf(f, "\n");
    }
    fprintf(f, "  first compile in a fresh process %.2f, the second %.2f (loading NVRTC %.2f); "
            "children, median of %zu\n", tb_med(r, "jit", "nvrtc.first"),
            tb_med(r, "jit", "nvrtc.second"), tb_med(r, "jit", "nvrtc.dlopen"),
            res_find(r, "jit", "nvrtc.first") ? res_find(r, "jit", "nvrtc.first")->stats.n : (size_t)0);
    fprintf(f, "\n");
    if (res_find(r, "jit", "opt.base")) {              /* not in --quick */
        fprintf(f, "  options, vector.cu\n");
        for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
            fprintf(f, "  %-34s", sets[i][1]);
            tb_num(f, 9, 2, tb_med(r, "jit", sets[i][0]));
            fprintf(f, "\n");
        }
    }
    fprintf(f, "  NVRTC's own phases (--time), vector.cu to cubin:");
    for (i = 0; i < r->nm; i++)
        if (strcmp(r->m[i].section, "jit") == 0 && strncmp(r->m[i].key, "phases.vector.cubin.", 20) == 0)
            fprintf(f, " %s %.0f;", r->m[i].key + 20, r->m[i].stats.median);
    fprintf(f, "\n\n  %-10s %12s %10s %10s\n", "kernels K", "source B", "to PTX", "to cubin");
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        long k;
        if (strcmp(m->section, "jit") != 0 || strncmp(m->key, "synth.", 6) != 0) continue;
        if (!strstr(m->key, ".ptx")) continue;
        k = strtol(m->key + 6, NULL, 10);
        snprintf(key, sizeof key, "synth.%ld.cubin", k);
        fprintf(f, "  %-10ld %12ld %10.2f", k, m->n, m->stats.median);
        tb_num(f, 10, 2, tb_med(r, "jit", key));
        fprintf(f, "\n");
    }
    if (res_find(r, "jit", "cache.disabled.load")) {
        fprintf(f, "\n  driver JIT of the %.0f-kernel PTX module, child processes, median of %zu:\n",
                tb_env_num(r, "jit_cache_k"), res_find(r, "jit", "cache.disabled.load")->stats.n);
        fprintf(f, "  %-48s %9s %9s %9s %11s\n", "", "load", "JIT wall", "get 1st", "1st launch");
        for (i = 0; i < sizeof states / sizeof states[0]; i++) {
            static const char *const st[4] = { "load", "jit", "get", "launch" };
            int q;
            fprintf(f, "  %-48s", states[i][1]);
            for (q = 0; q < 4; q++) {
                snprintf(key, sizeof key, "%s%s", states[i][0], st[q]);
                tb_num(f, q == 3 ? 11 : 9, 3, tb_med(r, "jit", key));
            }
            fprintf(f, "\n");
        }
        {
            double dis = tb_med(r, "jit", "cache.disabled.load"), warm = tb_med(r, "jit", "cache.warm.load");
            double ej = tb_med(r, "jit", "cache.disabled.jit"), lj = tb_med(r, "jit", "lazy.disabled.jit");
            double ll = tb_med(r, "jit", "lazy.disabled.load"), la = tb_med(r, "jit", "lazy.disabled.launch");
            fprintf(f, "  The warm cache saves %.3f ms of the %.3f ms load.\n", dis - warm, dis);
            if (!isnan(lj) && !isnan(ej) && ej > 0)
                fprintf(f, "  Under LAZY the JIT %s: the driver reports %.3f ms of JIT inside the load "
                        "(EAGER %.3f ms);\n  the load takes %.3f ms and the first launch %.3f ms.\n",
                        lj >= 0.5 * ej ? "is not deferred" : "is deferred", lj, ej, ll, la);
        }
    }
    if (res_find(r, "jit", "jitopt.O0.load")) {
        fprintf(f, "\n  CU_JIT_OPTIMIZATION_LEVEL (vector.cu PTX, cache disabled): %9s %9s %12s\n",
                "load", "JIT wall", "vectorAdd");
        for (i = 0; i <= 4; i++) {
            fprintf(f, "  %-56s", "");
            snprintf(key, sizeof key, "jitopt.O%zu.load", i);
            fprintf(f, "%zu", i);
            tb_num(f, 8, 3, tb_med(r, "jit", key));
            snprintf(key, sizeof key, "jitopt.O%zu.jit", i);
            tb_num(f, 9, 3, tb_med(r, "jit", key));
            snprintf(key, sizeof key, "jitopt.O%zu.warm", i);
            tb_num(f, 12, 4, tb_med(r, "jit", key));
            fprintf(f, "\n");
        }
    }
    if (res_find(r, "jit", "order.init_first.init")) {
        fprintf(f, "\n  who pays what cuInit and NVRTC share (children):  %9s %9s %9s %9s\n",
                "libcuda", "cuInit", "NVRTC", "compile");
        for (i = 0; i < sizeof orders / sizeof orders[0]; i++) {
            static const char *const st[4] = { "libcuda", "init", "nvrtc", "compile" };
            int q;
            fprintf(f, "  %-49s", orders[i][1]);
            for (q = 0; q < 4; q++) {
                snprintf(key, sizeof key, "%s%s", orders[i][0], st[q]);
                tb_num(f, 9, 2, tb_med(r, "jit", key));
            }
            fprintf(f, "\n");
        }
        {
            double ci = tb_med(r, "jit", "order.init_first.init"), cc = tb_med(r, "jit", "order.compile_first.init");
            double pi = tb_med(r, "jit", "order.init_first.compile"), pc = tb_med(r, "jit", "order.compile_first.compile");
            double lc = tb_med(r, "jit", "order.compile_first.libcuda");
            fprintf(f, "  Compiling first moves %.2f ms out of cuInit (%.2f -> %.2f) and adds %.2f ms to "
                    "the first compile\n  (%.2f -> %.2f)%s\n", ci - cc, ci, cc, pc - pi, pi, pc,
                    lc < 0.1 ? "; libcuda was already loaded when the harness asked for it: NVRTC's "
                               "first compile\n  had loaded the driver and initialised it itself" : ".");
        }
    }
}
