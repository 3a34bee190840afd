/* test_lines.c: the results line form (res_write_lines / res_read_lines) round trip and its rejections. */
#include "testhelp.h"
#include "core/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Strings equal, NULL only as NULL. */
static int same_str(const char *a, const char *b)
{
    if (a == NULL || b == NULL) return a == b;
    return strcmp(a, b) == 0;
}

/* Doubles bitwise equal; any NaN equals any NaN. */
static int same_num(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof(a)) == 0;
}

static int same_stats(const st_summary *a, const st_summary *b)
{
    return a->n == b->n && same_num(a->min, b->min) && same_num(a->max, b->max) &&
           same_num(a->median, b->median) && same_num(a->mean, b->mean) &&
           same_num(a->stdev, b->stdev) && same_num(a->cv, b->cv) &&
           same_num(a->ci_low, b->ci_low) && same_num(a->ci_high, b->ci_high) &&
           same_num(a->ci_level, b->ci_level);
}

static int same_env(const results *a, size_t ia, const results *b, size_t ib)
{
    const res_kv *x = &a->env[ia], *y = &b->env[ib];

    if (!same_str(x->key, y->key) || x->kind != y->kind) return 0;
    return x->kind == RES_STR ? same_str(x->str, y->str) : same_num(x->num, y->num);
}

static int same_meas(const res_meas *x, const res_meas *y)
{
    size_t i;

    if (!same_str(x->section, y->section) || !same_str(x->name, y->name) ||
        !same_str(x->key, y->key) || !same_str(x->region, y->region) ||
        x->state != y->state || !same_str(x->unit, y->unit) ||
        x->nsamples != y->nsamples || x->batch != y->batch || x->n != y->n ||
        !same_num(x->bytes, y->bytes) || !same_num(x->flops, y->flops) ||
        !same_stats(&x->stats, &y->stats)) return 0;
    for (i = 0; i < x->nsamples; i++)
        if (!same_num(x->samples[i], y->samples[i])) return 0;
    return 1;
}

/* The results object the round trip writes. 0, or -1 on out of memory. */
static int build(results *r)
{
    static const double v[] = { 5e-324, 1e300, 0.1, 2.5, -0.0 };
    res_meas *m;

    res_init(r);
    if (res_env_str(r, "text", "a\tb\nc\\d\re \\t") != 0 ||
        res_env_str(r, "key\twith\\tab", "plain") != 0 ||
        res_env_str(r, "none", NULL) != 0 ||
        res_env_str(r, "empty", "") != 0 ||
        res_env_num(r, "tiny", 1e-300) != 0 ||
        res_env_num(r, "tenth", 0.1) != 0 ||
        res_env_num(r, "nan", NAN) != 0 ||
        res_env_num(r, "ninf", -INFINITY) != 0 ||
        res_env_num(r, "negzero", -0.0) != 0 ||
        res_skip_section(r, "launch", "no GPU\there") != 0 ||
        res_check_add(r, "sec", "passed one", 1, "all 10 match") != 0 ||
        res_check_add(r, "sec", "failed\none", 0, "element 3:\t1 vs 2") != 0)
        return -1;
    if (res_add(r, "sec", "row0", "empty one", "none", RES_FIRST_LAUNCH, "ms",
                NULL, 0) == NULL) return -1;
    m = res_add(r, "sec\\x", "row1", "events,\tkernel", "a\r\nb", RES_L2_COLD,
                "GB/s", v, sizeof(v) / sizeof(v[0]));
    if (m == NULL) return -1;
    m->batch = 7;
    m->n = 123;
    m->bytes = 12.5;
    m->flops = 1;
    m->noisy = 1;
    m->low_clock = 2;
    m->host_only = 1;
    {
        static const float mhz[] = { 1980, 1755.5f, NAN, 1980, 345 };
        if (res_set_clock(m, mhz) != 0) return -1;
    }
    r->incomplete = 1;
    return 0;
}

/* Write r into a new NUL-terminated string; NULL on failure. */
static char *to_text(const results *r, int *wrc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    *wrc = -1;
    if (f == NULL) return NULL;
    *wrc = res_write_lines(f, r);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* res_read_lines on text into a fresh object; returns its result, why filled. */
static int read_fresh(const char *text, char *why, size_t whylen, results *out)
{
    res_init(out);
    return res_read_lines(out, text, why, whylen);
}

/* A malformed text is rejected with -1 and a reason naming line `line`. */
static int rejects(const char *text, const char *line)
{
    results r;
    char why[200];
    int rc;

    memset(why, 0, sizeof(why));
    rc = read_fresh(text, why, sizeof(why), &r);
    res_free(&r);
    return rc == -1 && why[0] != '\0' && strstr(why, line) == why &&
           strchr(why, '\n') == NULL;
}

/* Conclusions (d records): stored, replaced, their fields, the line form. */
static void test_lines_derived(void)
{
    results a, b;
    res_derived *d;
    const res_derived *e;
    char *text;
    char why[200];
    int wrc = -1, rc, ok;

    res_init(&a);
    d = res_derive(&a, "fusion", "copy_floor", "the best\tcopy", 4012.5, "GB/s", "main.copy4");
    ok = d && res_derived_field(d, "n", 16777216) == 0 && res_derived_field(d, "dtod_gbs", NAN) == 0 &&
         res_derived_field(d, "n", 1024) == 0;
    th_check("derived: stored with fields; a field set twice is replaced",
             ok && a.nd == 1 && d->nfields == 2 && res_derived_num(d, "n") == 1024 &&
             isnan(res_derived_num(d, "dtod_gbs")) && isnan(res_derived_num(d, "absent")));
    th_check("derived: a field name outside [a-z0-9_.] is refused",
             d && res_derived_field(d, "N", 1) == -1 && res_derived_field(d, "a=b", 1) == -1 &&
             res_derived_field(d, "", 1) == -1 && d->nfields == 2);
    d = res_derive(&a, "loading", "compare.x", "verdict", NAN, NULL, NULL);
    th_check("derived: a text-only entry (NaN value, NULL unit and text stored as \"\")",
             d && isnan(d->value) && same_str(d->unit, "") && same_str(d->text, "") && a.nd == 2);
    d = res_derive(&a, "fusion", "copy_floor", "again", 1.0, "GB/s", "main.dtod");
    th_check("derived: the same section and key replaces the entry",
             d && a.nd == 2 && d->nfields == 0 && same_str(res_derived_find(&a, "fusion", "copy_floor")->text,
                                                           "main.dtod"));
    d = res_derive(&a, "fusion", "copy_floor", "the best\tcopy", 4012.5, "GB/s", "main.copy4");
    if (d) {
        res_derived_field(d, "n", 16777216);
        res_derived_field(d, "pct", 0.1);
    }
    text = to_text(&a, &wrc);
    th_check("derived: one d line, name escaped, fields as name=value",
             wrc == 0 && text && strstr(text, "d\tfusion\tcopy_floor\tthe best\\tcopy\t4012.5\tGB/s\t"
                                               "main.copy4\tn=16777216,pct=0.10000000000000001\n") != NULL &&
             strstr(text, "d\tloading\tcompare.x\tverdict\tnan\t\t\t\n") != NULL);
    rc = text ? (res_init(&b), res_read_lines(&b, text, why, sizeof why)) : -1;
    e = rc > 0 ? res_derived_find(&b, "fusion", "copy_floor") : NULL;
    th_check("derived: the line form reads back exactly",
             rc == 3 && b.nd == 2 && e && same_str(e->name, "the best\tcopy") && e->value == 4012.5 &&
             e->nfields == 2 && res_derived_num(e, "pct") == 0.1 && res_derived_num(e, "n") == 16777216 &&
             res_derived_find(&b, "loading", "compare.x") &&
             isnan(res_derived_find(&b, "loading", "compare.x")->value));
    if (text) res_free(&b);
    th_check("derived: rejects a bad field list, a repeated field, a bad value, a field count",
             rejects("d\ts\tk\tn\t1\tu\tt\tn=\n", "line 1:") &&
             rejects("d\ts\tk\tn\t1\tu\tt\tn=1,\n", "line 1:") &&
             rejects("d\ts\tk\tn\t1\tu\tt\t=1\n", "line 1:") &&
             rejects("d\ts\tk\tn\t1\tu\tt\tn=1,n=2\n", "line 1:") &&
             rejects("d\ts\tk\tn\t1\tu\tt\tN=1\n", "line 1:") &&
             rejects("d\ts\tk\tn\tx\tu\tt\t\n", "line 1:") &&
             rejects("d\ts\tk\tn\t1\tu\tt\n", "line 1:"));
    res_init(&b);
    rc = res_read_lines(&b, "d\ts\tk\tn\t1\tu\tt\tn=1,n=2\n", why, sizeof why);
    th_check("derived: a rejected record leaves no entry behind", rc == -1 && b.nd == 0);
    res_free(&b);
    free(text);
    res_free(&a);
}

void test_lines(void)
{
    results a, b, c;
    char *text = NULL, why[200];
    int wrc = -1, rc, ok;
    size_t i, nrec;
    FILE *ro;

    if (build(&a) != 0) {
        th_check("lines: build the results object", 0);
        res_free(&a);
        return;
    }
    text = to_text(&a, &wrc);
    th_check("lines: res_write_lines returns 0", wrc == 0 && text != NULL);
    if (text == NULL) {
        res_free(&a);
        return;
    }
    th_check("lines: one line per record, strings escaped",
             strstr(text, "env\ttext\ts\ta\\tb\\nc\\\\d\\re \\\\t\n") != NULL &&
             strstr(text, "env\tnone\t-\t\n") != NULL &&
             strstr(text, "env\tnan\tn\tnan\n") != NULL &&
             strstr(text, "env\tninf\tn\t-inf\n") != NULL &&
             strstr(text, "incomplete\t1\n") != NULL);

    nrec = a.nenv + a.nskip + a.ncheck + a.nm + 1;
    memset(why, 'x', sizeof(why));
    rc = read_fresh(text, why, sizeof(why), &b);
    th_check("lines: res_read_lines returns the number of records", rc == (int)nrec);
    th_check("lines: why is empty on success", why[0] == '\0');

    ok = b.nenv == a.nenv;
    for (i = 0; ok && i < a.nenv; i++) ok = same_env(&a, i, &b, i);
    th_check("lines: every env field round-trips in order", ok);
    th_check("lines: env string with tab, newline, backslash, CR",
             res_env_get(&b, "text") != NULL &&
             same_str(res_env_get(&b, "text")->str, "a\tb\nc\\d\re \\t") &&
             res_env_get(&b, "key\twith\\tab") != NULL);
    th_check("lines: NULL env string stays NULL, empty stays empty",
             res_env_get(&b, "none") != NULL &&
             res_env_get(&b, "none")->kind == RES_STR &&
             res_env_get(&b, "none")->str == NULL &&
             res_env_get(&b, "empty") != NULL &&
             same_str(res_env_get(&b, "empty")->str, ""));
    th_check("lines: 1e-300, 0.1 and -0 bitwise, NaN as NaN, -inf",
             res_env_get(&b, "tiny") && same_num(res_env_get(&b, "tiny")->num, 1e-300) &&
             res_env_get(&b, "tenth") && same_num(res_env_get(&b, "tenth")->num, 0.1) &&
             res_env_get(&b, "negzero") && signbit(res_env_get(&b, "negzero")->num) &&
             res_env_get(&b, "nan") && isnan(res_env_get(&b, "nan")->num) &&
             res_env_get(&b, "ninf") && same_num(res_env_get(&b, "ninf")->num, -INFINITY));

    th_check("lines: skip round-trips",
             b.nskip == 1 && same_str(b.skip[0].section, "launch") &&
             same_str(b.skip[0].reason, "no GPU\there"));
    ok = b.ncheck == a.ncheck;
    for (i = 0; ok && i < a.ncheck; i++)
        ok = same_str(a.check[i].section, b.check[i].section) &&
             same_str(a.check[i].what, b.check[i].what) &&
             a.check[i].passed == b.check[i].passed &&
             same_str(a.check[i].detail, b.check[i].detail);
    th_check("lines: checks round-trip (passed, failed, detail with a tab)", ok);
    th_check("lines: one failed check read back", res_failed(&b) == 1);

    th_check("lines: measurement count", b.nm == 2);
    th_check("lines: measurement with 0 samples, stats of none",
             b.nm == 2 && b.m[0].nsamples == 0 && b.m[0].samples == NULL &&
             same_meas(&a.m[0], &b.m[0]) && isnan(b.m[0].stats.median));
    th_check("lines: samples 5e-324, 1e300, 0.1, -0 bitwise, stats recomputed",
             b.nm == 2 && same_meas(&a.m[1], &b.m[1]));
    th_check("lines: batch 7, n 123, bytes 12.5, flops 1, state L2-cold",
             b.nm == 2 && b.m[1].batch == 7 && b.m[1].n == 123 &&
             b.m[1].bytes == 12.5 && b.m[1].flops == 1.0 &&
             b.m[1].state == RES_L2_COLD && b.m[0].batch == 1 && b.m[0].n == 0);
    th_check("lines: noisy, low_clock 2, host_only and the five clock readings (NaN kept)",
             b.nm == 2 && b.m[1].noisy == 1 && b.m[1].low_clock == 2 && b.m[1].host_only == 1 &&
             b.m[1].mhz && b.m[1].mhz[1] == 1755.5f && isnan(b.m[1].mhz[2]) &&
             b.m[1].mhz[4] == 345.0f && b.m[0].mhz == NULL && b.m[0].noisy == 0 &&
             b.m[0].host_only == 0);
    th_check("lines: incomplete flag read back", b.incomplete == 1);

    /* Appending to an object that already holds records. */
    res_init(&c);
    ok = res_env_num(&c, "text", 1.0) == 0 && res_env_str(&c, "own", "x") == 0 &&
         res_add(&c, "pre", "p0", "before", "r", RES_WARM, "us", NULL, 0) != NULL &&
         res_check_add(&c, "pre", "earlier", 1, "") == 0;
    c.incomplete = 1;
    rc = ok ? res_read_lines(&c, "incomplete\t0\n", why, sizeof(why)) : -1;
    th_check("lines: incomplete 0 does not clear a set flag", rc == 1 && c.incomplete == 1);
    rc = ok ? res_read_lines(&c, text, why, sizeof(why)) : -1;
    th_check("lines: reading appends to a non-empty object",
             rc == (int)nrec && c.nm == 3 && same_str(c.m[0].key, "p0") &&
             same_meas(&a.m[1], &c.m[2]) && c.ncheck == 3 && c.nskip == 1 &&
             same_str(c.check[0].what, "earlier"));
    th_check("lines: env fields set (replaced, new ones appended)",
             c.nenv == a.nenv + 1 && same_str(c.env[0].key, "text") &&
             c.env[0].kind == RES_STR &&
             same_str(c.env[0].str, "a\tb\nc\\d\re \\t") &&
             same_str(c.env[1].key, "own"));
    res_free(&c);

    /* Lines that are not records. */
    rc = read_fresh("hello world\n\nenvironment\tx\n\tenv\nM\ta\n"
                    "skip\ts\tr\nnot a record", why, sizeof(why), &c);
    th_check("lines: unknown and empty lines ignored, last line without newline",
             rc == 1 && c.nskip == 1 && same_str(c.skip[0].reason, "r"));
    res_free(&c);
    rc = read_fresh("", why, sizeof(why), &c);
    th_check("lines: empty text reads 0 records", rc == 0 && c.nm == 0);
    res_free(&c);

    /* Malformed records. */
    th_check("lines: rejects an unknown state",
             rejects("m\ts\tk\tn\tr\thot\tms\t1\t0\t0\t0\t1\t0\t0\t0\t\n", "line 1:"));
    th_check("lines: rejects a non-numeric sample",
             rejects("skip\ta\tb\nm\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1,x\t0\t0\t0\t\n", "line 2:"));
    th_check("lines: rejects a sample with trailing garbage or an empty item",
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1.5e\t0\t0\t0\t\n", "line 1:") &&
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1,,2\t0\t0\t0\t\n", "line 1:") &&
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1,\t0\t0\t0\t\n", "line 1:"));
    th_check("lines: rejects a wrong field count",
             rejects("\nskip\ta\n", "line 2:") &&
             rejects("check\ts\tw\t1\td\textra\n", "line 1:") &&
             rejects("incomplete\n", "line 1:"));
    th_check("lines: rejects a bad escape",
             rejects("skip\ta\\q\tb\n", "line 1:") &&
             rejects("env\tk\ts\tends in \\\n", "line 1:"));
    th_check("lines: rejects batch 1.5 and n with a leading space",
             rejects("m\ts\tk\tn\tr\twarm\tms\t1.5\t0\t0\t0\t1\t0\t0\t0\t\n", "line 1:") &&
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t 5\t0\t0\t1\t0\t0\t0\t\n", "line 1:"));
    th_check("lines: rejects noisy 2, host_only x, low_clock above the samples, a clock "
             "reading count unlike the samples'",
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1\t2\t0\t0\t\n", "line 1:") &&
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1\t0\t0\tx\t\n", "line 1:") &&
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1\t0\t2\t0\t\n", "line 1:") &&
             rejects("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1,2\t0\t0\t0\t1500\n", "line 1:"));
    th_check("lines: a well-formed m record with every mark is read",
             read_fresh("m\ts\tk\tn\tr\twarm\tms\t1\t0\t0\t0\t1,2\t1\t1\t1\t1500,nan\n", why,
                        sizeof(why), &c) == 1 && c.m[0].low_clock == 1 && c.m[0].mhz &&
             c.m[0].mhz[0] == 1500.0f);
    res_free(&c);
    th_check("lines: rejects a bad env kind, passed flag, incomplete value",
             rejects("env\tk\tx\tv\n", "line 1:") &&
             rejects("env\tk\tn\t\n", "line 1:") &&
             rejects("check\ts\tw\t2\td\n", "line 1:") &&
             rejects("incomplete\tyes\n", "line 1:"));

    /* What came before a malformed record stays; nothing after it is read. */
    memset(why, 0, sizeof(why));
    rc = read_fresh("skip\ta\tb\nm\tbad\nskip\tc\td\n", why, sizeof(why), &c);
    th_check("lines: records before a bad one stay, later ones are not read",
             rc == -1 && c.nskip == 1 && same_str(c.skip[0].section, "a") &&
             strncmp(why, "line 2: ", 8) == 0 && strstr(why, "fields") != NULL);
    res_free(&c);

    /* A stream that cannot be written. */
    ro = fopen("/dev/null", "r");
    th_check("lines: res_write_lines returns -1 when a write fails",
             ro != NULL && res_write_lines(ro, &a) == -1);
    if (ro != NULL) fclose(ro);

    free(text);
    res_free(&a);
    res_free(&b);
    test_lines_derived();
}
