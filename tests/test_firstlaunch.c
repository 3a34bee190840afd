/* test_firstlaunch.c: the first launch taken apart and the stopwatches
 * rows' conclusions (fl_conclude, sw_conclude) on results built by hand for
 * LAZY and EAGER children, with every part worked out by hand; and the
 * printed sentences, which must follow the mode the run measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testhelp.h"
#include "core/results.h"
#include "run/section.h"
#include "run/table.h"
#include "sections/stopwatches/firstlaunch.h"
#include "sections/stopwatches/stopwatches.h"

#define TF_CHILDREN 3

/* One step's figure in mode: v + i * step for child i. */
static void tf_step(results *r, const char *mode, const char *key, double v, double step)
{
    char k[96];
    int i;
    snprintf(k, sizeof k, "first.%s.%s", mode, key);
    for (i = 0; i < TF_CHILDREN; i++)
        res_append(r, "stopwatches", k, k, "by hand", RES_PROCESS, "ms", v + i * step);
}

/* A mode's children, the same in both modes but for what the mode moves.
 * Per child i (ms):  first 0.074 + 0.001 i (EAGER 0.078 + 0.001 i),
 * warm 0.063, once 0.070, module2 0.067, funcload 0.068, unloaded 0.090
 * (EAGER 0.068), runtime 0.096 (EAGER 0.070), second 0.050, second_once
 * 0.047, second_warm 0.042, fresh 0.071. So, LAZY: surplus 0.011 + 0.001 i
 * (median 0.012), alone 0.007, context 0.007 + 0.001 i (median 0.008, the
 * largest), load -0.001, module (0.068 - 0.070) - (0.050 - 0.047) =
 * -0.005, left 0.003 (0.007 + 0.008 - 0.001 - 0.005 + 0.003 = 0.012),
 * load_in_launch 0.022, get_in_launch 0.029, fresh 0.001. The enqueue
 * figures: first 0.019, every other 0.005. */
static void tf_mode(results *r, const char *mode, int eager)
{
    static const char *const once_keys[] = { "once", "module2", "funcload", "unloaded", "runtime",
                                             "second", "second_once", "fresh" };
    char k[64];
    size_t i;

    tf_step(r, mode, "load", eager ? 0.150 : 0.090, 0);
    tf_step(r, mode, "get", eager ? 0.003 : 0.029, 0);
    tf_step(r, mode, "functions", 2, 0);
    tf_step(r, mode, "loaded_load", eager ? 2 : 0, 0);
    tf_step(r, mode, "loaded_get", 1, 0);
    tf_step(r, mode, "loaded_launch", 1, 0);
    tf_step(r, mode, "unloaded_loaded", eager ? 1 : 0, 0);
    tf_step(r, mode, "funcload_loaded", eager ? 1 : 0, 0);
    tf_step(r, mode, "first", eager ? 0.078 : 0.074, 0.001);
    tf_step(r, mode, "first.enqueue", 0.019, 0);
    tf_step(r, mode, "first.sync", 0.090, 0);
    tf_step(r, mode, "warm", 0.063, 0);
    tf_step(r, mode, "second_warm", 0.042, 0);
    tf_step(r, mode, "once", 0.070, 0);
    tf_step(r, mode, "module2", 0.067, 0);
    tf_step(r, mode, "funcload", 0.068, 0);
    tf_step(r, mode, "unloaded", eager ? 0.068 : 0.090, 0);
    tf_step(r, mode, "runtime", eager ? 0.070 : 0.096, 0);
    tf_step(r, mode, "second", 0.050, 0);
    tf_step(r, mode, "second_once", 0.047, 0);
    tf_step(r, mode, "fresh", 0.071, 0);
    for (i = 1; i < sizeof once_keys / sizeof once_keys[0]; i++) {
        snprintf(k, sizeof k, "%s.enqueue", once_keys[i]);
        tf_step(r, mode, k, 0.005, 0);
        snprintf(k, sizeof k, "%s.sync", once_keys[i]);
        tf_step(r, mode, k, 0.080, 0);
    }
    tf_step(r, mode, "once.enqueue", 0.005, 0);
    tf_step(r, mode, "once.sync", 0.080, 0);
}

/* The rows of this process (row 3's surplus 0.021 ms), n = 1,000,003. */
static void tf_rows(results *r, const char *mode)
{
    static const double row1[] = { 550, 560, 540 }, w1[] = { 100, 100, 100 },
                        w2[] = { 170, 170, 170 }, w3[] = { 95, 95, 95 }, w4[] = { 1, 1, 1 };
    static const double row4[] = { 0.063, 0.063, 0.063 };
    res_meas *m;
    double v;

    res_env_str(r, "module_loading_effective", mode);
    res_add(r, "stopwatches", "row1", "wall clock, whole process", "by hand", RES_PROCESS, "ms", row1, 3);
    res_add(r, "stopwatches", "waterfall.context", "context", "by hand", RES_PROCESS, "ms", w1, 3);
    res_add(r, "stopwatches", "waterfall.host", "host setup", "by hand", RES_PROCESS, "ms", w2, 3);
    res_add(r, "stopwatches", "waterfall.init", "cuInit", "by hand", RES_PROCESS, "ms", w3, 3);
    res_add(r, "stopwatches", "waterfall.check", "check", "by hand", RES_PROCESS, "ms", w4, 3);
    v = 0.004;
    res_add(r, "stopwatches", "row2", "row 2", "by hand", RES_WARM, "ms", &v, 1);
    v = 0.068;
    res_add(r, "stopwatches", "row2sync", "row 2 sync", "by hand", RES_WARM, "ms", &v, 1);
    v = 0.019;
    res_add(r, "stopwatches", "row2.first", "row 2 first", "by hand", RES_FIRST_LAUNCH, "ms", &v, 1);
    v = 0.084;
    res_add(r, "stopwatches", "row3", "row 3", "by hand", RES_FIRST_LAUNCH, "ms", &v, 1);
    if ((m = res_add(r, "stopwatches", "row4", "row 4", "by hand", RES_WARM, "ms", row4, 3)) != NULL) {
        m->n = 1000003;
        m->bytes = 12.0 * 1000003;
    }
    v = 19.7;
    res_add(r, "stopwatches", "row5", "row 5", "by hand", RES_WARM, "ms", &v, 1);
    v = 3.7;
    res_add(r, "stopwatches", "row5pinned", "row 5 pinned", "by hand", RES_WARM, "ms", &v, 1);
}

static int tf_near(double got, double want)
{
    return fabs(got - want) <= 1e-12;
}

static const res_derived *tf_d(const results *r, const char *key)
{
    return res_derived_find(r, "stopwatches", key);
}

/* The stopwatches table of r, as text (the caller frees it), each line
 * break and the indentation after it made one space, so that a sentence
 * reads the same however the table wrapped it. */
static char *tf_print(const results *r)
{
    char *text = NULL, *o, *p;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    tb_section(f, r, sec_table[CLI_SEC_STOPWATCHES].name, sec_table[CLI_SEC_STOPWATCHES].print);
    fclose(f);
    if (getenv("TABLE_SHOW")) fputs(text, stdout);
    for (o = p = text; *p; p++) {
        if (*p == '\n') {
            while (p[1] == ' ') p++;
            *o++ = ' ';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return text;
}

/* The conclusions, value by value. */
static void tf_conclusions(void)
{
    results r;
    const res_derived *d;
    int ok;

    res_init(&r);
    tf_mode(&r, "lazy", 0);
    tf_mode(&r, "eager", 1);
    th_check("first launch: fl_conclude stores its conclusions", fl_conclude(&r) == 0);
    d = tf_d(&r, "first.lazy.part.surplus");
    th_check("first launch: LAZY surplus = first - warm, median of 3 children, [min, max], above zero",
             d && tf_near(d->value, 0.012) && tf_near(res_derived_num(d, "ci_low"), 0.011) &&
             tf_near(res_derived_num(d, "ci_high"), 0.013) && res_derived_num(d, "n") == 3 &&
             strcmp(d->text, "above zero") == 0);
    th_check("first launch: the largest part of LAZY's surplus is the context's (0.008 ms)",
             d && res_derived_num(d, "largest") == 2 && tf_near(res_derived_num(d, "largest_ms"), 0.008));
    d = tf_d(&r, "first.lazy.part.context");
    ok = d && tf_near(d->value, 0.008) && tf_near(res_derived_num(d, "share"), 0.008 / 0.012) &&
         tf_near(res_derived_num(d, "enqueue"), 0.014);
    th_check("first launch: context = first - module2, its share and its enqueue difference", ok);
    d = tf_d(&r, "first.lazy.part.alone");
    th_check("first launch: alone = once - warm; no enqueue figure (warm has none)",
             d && tf_near(d->value, 0.007) && isnan(res_derived_num(d, "enqueue")));
    d = tf_d(&r, "first.lazy.part.load");
    th_check("first launch: load = module2 - funcload, below zero",
             d && tf_near(d->value, -0.001) && strcmp(d->text, "below zero") == 0);
    d = tf_d(&r, "first.lazy.part.module");
    th_check("first launch: module = (funcload - once) - (second - second_once)",
             d && tf_near(d->value, -0.005));
    d = tf_d(&r, "first.lazy.part.left");
    th_check("first launch: left = second - second_once", d && tf_near(d->value, 0.003));
    d = tf_d(&r, "first.lazy.part.load_in_launch");
    th_check("first launch: outside the surplus: load_in_launch = unloaded - funcload, no share",
             d && tf_near(d->value, 0.022) && isnan(res_derived_num(d, "share")));
    d = tf_d(&r, "first.eager.part.load_in_launch");
    th_check("first launch: EAGER's enumerated handle was loaded: load_in_launch 0, spans zero",
             d && tf_near(d->value, 0.0) && strcmp(d->text, "spans zero") == 0);
    d = tf_d(&r, "first.lazy.part.get_in_launch");
    th_check("first launch: get_in_launch = runtime - module2", d && tf_near(d->value, 0.029));
    d = tf_d(&r, "first.lazy.loading");
    th_check("first launch: LAZY: vectorAdd loaded by cuModuleGetFunction (0 of 2 after the load)",
             d && strcmp(d->text, "cuModuleGetFunction") == 0 && d->value == 0 &&
             res_derived_num(d, "functions") == 2);
    d = tf_d(&r, "first.eager.loading");
    th_check("first launch: EAGER: vectorAdd loaded by the module load (2 of 2)",
             d && strcmp(d->text, "the module load") == 0 && d->value == 2);
    d = tf_d(&r, "first.where.get");
    th_check("first launch: where the cost went: the get, LAZY higher by 0.026 ms",
             d && strcmp(d->text, "LAZY higher") == 0 && tf_near(d->value, 0.003 - 0.029));
    d = tf_d(&r, "first.where.load");
    th_check("first launch: where the cost went: the load, EAGER higher",
             d && strcmp(d->text, "EAGER higher") == 0);
    d = tf_d(&r, "first.where.surplus");
    th_check("first launch: where the cost went: the surplus, EAGER's interval above LAZY's",
             d && strcmp(d->text, "EAGER higher") == 0 && tf_near(d->value, 0.004));
    res_free(&r);

    /* A child that loaded differently from the others. */
    res_init(&r);
    tf_mode(&r, "lazy", 0);
    {
        res_meas *m = NULL;
        size_t i;
        for (i = 0; i < r.nm; i++)
            if (strcmp(r.m[i].key, "first.lazy.loaded_load") == 0) m = &r.m[i];
        if (m) m->samples[1] = 2;
        if (m) m->stats = st_summarize(m->samples, m->nsamples);
    }
    fl_conclude(&r);
    d = tf_d(&r, "first.lazy.loading");
    th_check("first launch: children that loaded differently are said to differ",
             d && strcmp(d->text, "differs between children") == 0);
    th_check("first launch: one mode alone stores no EAGER-against-LAZY comparison",
             !tf_d(&r, "first.where.get") && !tf_d(&r, "first.eager.part.surplus"));
    res_free(&r);
}

/* The printed sentences follow the mode and the run. */
static void tf_tables(void)
{
    static const char *const modes[2] = { "LAZY", "EAGER" };
    results r;
    char *text;
    int k;

    for (k = 0; k < 2; k++) {
        char want[160];
        res_init(&r);
        tf_mode(&r, "lazy", 0);
        tf_mode(&r, "eager", 1);
        tf_rows(&r, modes[k]);
        fl_conclude(&r);
        sw_conclude(&r);
        text = tf_print(&r);
        snprintf(want, sizeof want, "In %s's children", modes[k]);
        th_check(k ? "stopwatches table, EAGER: row 3 names EAGER's children"
                   : "stopwatches table, LAZY: row 3 names LAZY's children",
                 text && strstr(text, want));
        th_check(k ? "stopwatches table, EAGER: vectorAdd was loaded by the module load"
                   : "stopwatches table, LAZY: vectorAdd was loaded by cuModuleGetFunction",
                 text && strstr(text, k ? "vectorAdd was loaded by the module load, before the launch"
                                        : "vectorAdd was loaded by cuModuleGetFunction, before the launch"));
        th_check("stopwatches table: row 3's fixed sentence on lazy loading is gone",
                 text && !strstr(text, "loading the function (lazy loading)"));
        th_check("stopwatches table: row 3 names its surplus and the largest part, from the run",
                 text && strstr(text, "surplus over row 4: 0.0210 ms in this") &&
                 strstr(text, k ? "of their 0.0160 ms surplus" : "of their 0.0120 ms surplus") &&
                 strstr(text, "is the process's first launch (first - module2)"));
        th_check("stopwatches table: the header's n is the run's (1,000,003), not the lesson's",
                 text && strstr(text, "one vectorAdd over 1,000,003 floats") &&
                 !strstr(text, "16,777,827"));
        th_check("stopwatches table: row 1 names the largest parts of the waterfall",
                 text && strstr(text, "the largest: host setup; context; cuInit"));
        th_check("stopwatches table: where the cost went, from both modes",
                 text && strstr(text, "vectorAdd was loaded by the module load under EAGER and by "
                                      "cuModuleGetFunction under LAZY") &&
                 strstr(text, "EAGER had 2 of 2 functions loaded, LAZY 0 of 2"));
        free(text);
        res_free(&r);
    }

    /* --quick: no experiment; row 3 says so. */
    res_init(&r);
    tf_rows(&r, "LAZY");
    res_env_str(&r, "first_launch", "is not run under --quick");
    sw_conclude(&r);
    text = tf_print(&r);
    th_check("stopwatches table, --quick: row 3 says the experiment did not run, and why",
             text && strstr(text, "the first-launch experiment is not run under --quick") &&
             !strstr(text, "children (the first launch taken apart"));
    th_check("stopwatches table, --quick: no first-launch table",
             text && !strstr(text, "The first launch taken apart"));
    free(text);
    res_free(&r);
}

void test_firstlaunch(void)
{
    tf_conclusions();
    tf_tables();
}
