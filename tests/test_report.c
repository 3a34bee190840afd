/* test_report.c: the results object and its JSON and CSV files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testhelp.h"
#include "core/report.h"
#include "core/results.h"
#include "cuda/devices.h"
#include "os/atomicfile.h"
#include "run/section.h"
#include "run/table.h"

/* Read a whole file into a NUL-terminated buffer; NULL on error. */
static char *slurp(const char *path)
{
    FILE *f = NULL;
    char *buf = NULL, *nb;
    size_t len = 0, cap = 0, got;

    if ((f = fopen(path, "rb")) == NULL) goto err;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            if ((nb = realloc(buf, cap)) == NULL) goto err;
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) goto err;
    fclose(f);
    buf[len] = '\0';
    return buf;

err:
    if (f != NULL) fclose(f);
    free(buf);
    return NULL;
}

/* 1 when `dir` holds an entry whose name contains ".tmp.". */
static int has_temp(const char *dir)
{
    DIR *d;
    struct dirent *de;
    int found = 0;

    if ((d = opendir(dir)) == NULL) return 0;
    while ((de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".tmp.") != NULL) found = 1;
    closedir(d);
    return found;
}

/* Exit status of a shell command, or -1 when it did not exit normally. */
static int run(const char *cmd)
{
    int st = system(cmd);

    if (st == -1 || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

/* Call rp_write_json with stderr sent to `errpath`; returns its result. */
static int write_json_quiet(const results *r, const char *path,
                            const char *errpath)
{
    int saved, fd, rc;

    fflush(stderr);
    if ((saved = dup(2)) == -1) return -2;
    if ((fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1) {
        close(saved);
        return -2;
    }
    dup2(fd, 2);
    close(fd);
    rc = rp_write_json(r, path);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void fill(results *r)
{
    static const double a[] = {1.5, 1.25, 1.75, 1.5, 1.0, 2.0, 1.5};
    static const double b[] = {1e300, 5e-324, 3.0, 2.5, 1e-300, 4.0};
    res_meas *m;

    res_init(r);
    res_env_str(r, "gpu", "NVIDIA H200");
    res_env_str(r, "odd", "say \"hi\"\\path\nnext\tcol");
    res_env_str(r, "driver", NULL);
    res_env_str(r, "utf8", "caf\xc3\xa9");
    res_env_num(r, "sm_count", 132);
    res_env_num(r, "clock_ghz", 1.98);
    res_skip_section(r, "graphs", "needs CUDA 12.4");
    if ((m = res_add(r, "stopwatches", "row4", "events, kernel \"warm\"",
                     "cudaEventRecord around the launch", RES_WARM, "ms",
                     a, sizeof(a) / sizeof(a[0]))) != NULL) {
        m->batch = 4;
        m->n = 1 << 20;
        m->bytes = 8.0 * (1 << 20);
    }
    res_add(r, "stopwatches", "row5", "extremes", "clock()\nto clock()",
            RES_L2_COLD, "us", b, sizeof(b) / sizeof(b[0]));
}

/* The loading table of a --compare-loading run: eager.* and lazy.* rows, the
 * library path on lines of its own (a row of nan before). */
static void test_loading_table(void)
{
    static const double one[] = { 0.2, 0.3 }, k[] = { 14, 14 };
    static const char *const mode[] = { "eager.", "lazy." };
    static const char *const key[] = { "harness.cubin.load", "library.cubin.load",
                                       "library.cubin.get_kernel", "library.cubin.get_function",
                                       "library.cubin.launch_host", "library.cubin.launch_events" };
    results r;
    char *text = NULL, name[64];
    size_t len = 0, i, j;
    FILE *f;

    res_init(&r);
    res_env_num(&r, "compare_loading_rounds", 2);
    for (i = 0; i < 2; i++) {
        for (j = 0; j < sizeof key / sizeof key[0]; j++) {
            snprintf(name, sizeof name, "%s%s", mode[i], key[j]);
            res_add(&r, "loading", name, name, "host clock", RES_WARM, "ms", one, 2);
        }
        snprintf(name, sizeof name, "%sharness.cubin.k", mode[i]);
        res_add(&r, "loading", name, name, "count", RES_WARM, "", k, 2);
    }
    if ((f = open_memstream(&text, &len)) == NULL) {
        th_check("table: open_memstream", 0);
        res_free(&r);
        return;
    }
    tb_section(f, &r, sec_table[CLI_SEC_LOADING].name, sec_table[CLI_SEC_LOADING].print);
    fclose(f);
    if (getenv("TABLE_SHOW")) fputs(text, stdout);
    th_check("table: compare-loading: the header names both modes' children",
             strstr(text, "medians of 2 child processes per mode") != NULL);
    th_check("table: compare-loading: a row per mode and module",
             strstr(text, "eager.harness") != NULL && strstr(text, "lazy.harness") != NULL);
    {
        const char *e = strstr(text, "eager.library"), *l = strstr(text, "lazy.library");
        const char *eol = e ? strchr(e, '\n') : NULL;
        th_check("table: compare-loading: the library path on a line per mode, not a row",
                 e && l && strncmp(e, "eager.library path:", 19) == 0 &&
                 strncmp(l, "lazy.library path:", 18) == 0 && !strstr(e + 1, "eager.library") &&
                 !strstr(l + 1, "lazy.library"));
        th_check("table: compare-loading: the library lines hold the figures (no nan)",
                 eol && !memmem(e, (size_t)(eol - e), "nan", 3) && strstr(e, "load 0.250, get kernel"));
    }
    free(text);
    res_free(&r);
}

/* tb_wrap: lines of at most the width, words kept whole. */
static void test_wrap(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return;
    tb_wrap(f, "> ", "  ", 12, "aaaa bbbb cccc %s dd", "eeeeeeeeeeeeeee");
    fclose(f);
    th_check("tb_wrap: breaks at spaces within the width; a long word stands alone",
             text && strcmp(text, "> aaaa bbbb\n  cccc\n  eeeeeeeeeeeeeee\n  dd\n") == 0);
    free(text);
}

void test_report(void)
{
    char dir[] = "/tmp/harness-test-report.XXXXXX";
    char path[256], bad[256], rodir[256], keep[256], csv[256], errp[256];
    static const char header[] = "section,key,name,state,unit,n,batch,samples,"
        "min,median,mean,max,stdev,cv,ci_low,ci_high,ci_level,bytes,flops,region,noisy,low_clock,device\n";
    char cmd[600], num[64];
    char *text = NULL, *before = NULL, *after = NULL;
    const res_kv *kv;
    const res_meas *m;
    results r;
    struct stat sb;
    size_t nenv;
    int rc;

    /* res_append: a new measurement, then more samples of it, stats kept. */
    {
        results a;
        res_meas *p;
        res_init(&a);
        p = res_append(&a, "loading", "x.load", "load", "around it", RES_PROCESS, "ms", 3.0);
        th_check("report: res_append makes a measurement of one sample",
                 p && a.nm == 1 && p->nsamples == 1 && p->stats.median == 3.0);
        res_append(&a, "loading", "x.load", "ignored", "ignored", RES_WARM, "us", 1.0);
        p = res_append(&a, "loading", "x.load", "ignored", "ignored", RES_WARM, "us", 2.0);
        th_check("report: res_append adds samples in order, stats recomputed, name kept",
                 p && a.nm == 1 && p->nsamples == 3 && p->samples[1] == 1.0 &&
                 p->stats.median == 2.0 && p->stats.min == 1.0 && p->stats.max == 3.0 &&
                 strcmp(p->name, "load") == 0 && strcmp(p->unit, "ms") == 0 &&
                 p->state == RES_PROCESS);
        p = res_append(&a, "jit", "x.load", "other section", "r", RES_PROCESS, "ms", 9.0);
        th_check("report: res_append keeps sections apart", p && a.nm == 2 && p->nsamples == 1);
        res_free(&a);
    }
    /* res_add_copy: another's samples bit for bit under a name of its own,
     * copied from r's own measurements while r->m grows (and moves). */
    {
        static const double s[] = { 0.1, 1.0 / 3.0, 5e-324, 2.5 };
        static const float mhz[] = { 1980, 1755.5f, 1980, 345 };
        results a;
        res_meas *p;
        int i, same = 1;
        res_init(&a);
        p = res_add(&a, "stopwatches", "row4", "events", "event to event", RES_L2_COLD, "ms", s, 4);
        if (p) {
            p->batch = 8;
            p->n = 16777827;
            p->bytes = 2e8;
            p->flops = 1.6e7;
            p->noisy = 1;
            p->host_only = 1;
            p->low_clock = 1;
            res_set_clock(p, mhz);
        }
        for (i = 0; p && i < 40 && same; i++) {
            char key[32];
            const res_meas *o, *c;
            snprintf(key, sizeof key, "n=%d.kernel", i);
            c = res_add_copy(&a, &a.m[0], "crossover", key, "kernel", "events; the samples of row4");
            o = &a.m[0];
            same = c && strcmp(c->section, "crossover") == 0 && strcmp(c->key, key) == 0 &&
                   strcmp(c->name, "kernel") == 0 && strcmp(c->region, "events; the samples of row4") == 0 &&
                   c->nsamples == 4 && memcmp(c->samples, s, sizeof s) == 0 && c->samples != o->samples &&
                   c->state == RES_L2_COLD && strcmp(c->unit, "ms") == 0 && c->batch == 8 &&
                   c->n == 16777827 && c->bytes == 2e8 && c->flops == 1.6e7 && c->noisy == 1 &&
                   c->host_only == 1 && c->low_clock == 1 && c->mhz && c->mhz != o->mhz &&
                   c->mhz[1] == 1755.5 && c->mhz[3] == 345 &&
                   memcmp(&c->stats, &o->stats, sizeof c->stats) == 0;
        }
        th_check("report: res_add_copy: samples, stats, state, unit, batch, model, clocks and flags "
                 "copied, the names its own (40 copies of the first while the array grows)",
                 p && same && a.nm == 41);
        res_free(&a);
    }

    fill(&r);
    th_check("report: results hold 6 env fields, 2 measurements, 1 skip",
             r.nenv == 6 && r.nm == 2 && r.nskip == 1);
    th_check("report: res_add defaults batch to 1",
             r.nm == 2 && r.m[1].batch == 1 && r.m[1].n == 0 &&
             r.m[1].bytes == 0 && r.m[1].flops == 0);
    th_check("report: res_add computes stats",
             r.nm == 2 && r.m[0].stats.n == 7 && r.m[0].nsamples == 7);
    th_check("report: res_state_name",
             strcmp(res_state_name(RES_FIRST_LAUNCH), "first-launch") == 0 &&
             strcmp(res_state_name(RES_L2_COLD), "L2-cold") == 0 &&
             strcmp(res_state_name(RES_WARM), "warm") == 0 &&
             strcmp(res_state_name(RES_PROCESS), "process") == 0);

    m = res_find(&r, "stopwatches", "row5");
    th_check("report: res_find finds", m != NULL && strcmp(m->name, "extremes") == 0);
    th_check("report: res_find misses a key",
             res_find(&r, "stopwatches", "row9") == NULL);
    th_check("report: res_find misses a section",
             res_find(&r, "graphs", "row4") == NULL);

    nenv = r.nenv;
    res_env_str(&r, "gpu", "NVIDIA H100");
    kv = res_env_get(&r, "gpu");
    th_check("report: res_env_str replaces",
             r.nenv == nenv && kv != NULL && kv->kind == RES_STR &&
             strcmp(kv->str, "NVIDIA H100") == 0);
    res_env_num(&r, "clock_ghz", 1.755);
    kv = res_env_get(&r, "clock_ghz");
    th_check("report: res_env_num replaces",
             r.nenv == nenv && kv != NULL && kv->kind == RES_NUM &&
             kv->num == 1.755);
    th_check("report: res_env_get misses", res_env_get(&r, "nope") == NULL);

    if (mkdtemp(dir) == NULL) {
        th_check("report: mkdtemp", 0);
        res_free(&r);
        return;
    }
    snprintf(path, sizeof(path), "%s/run.json", dir);
    snprintf(bad, sizeof(bad), "%s/missing/run.json", dir);
    snprintf(rodir, sizeof(rodir), "%s/ro", dir);
    snprintf(keep, sizeof(keep), "%s/ro/keep.json", dir);
    snprintf(csv, sizeof(csv), "%s/run.csv", dir);
    snprintf(errp, sizeof(errp), "%s/stderr.txt", dir);

    /* JSON: written, well-formed, escaped. */
    rc = rp_write_json(&r, path);
    th_check("report: rp_write_json returns 0", rc == 0);
    th_check("report: JSON file exists", stat(path, &sb) == 0 && S_ISREG(sb.st_mode));
    th_check("report: JSON file is mode 0644", (sb.st_mode & 0777) == 0644);
    th_check("report: no temporary file left", !has_temp(dir));
    snprintf(cmd, sizeof(cmd),
             "python3 tests/check_json.py --no-provenance %s --expect-measurements 2 "
             "--expect-skipped graphs", path);
    th_check("report: check_json.py accepts the JSON", run(cmd) == 0);
    text = slurp(path);
    th_check("report: JSON reads back", text != NULL);
    if (text != NULL) {
        th_check("report: schema_version", strstr(text, "\"schema_version\": 1,") != NULL);
        th_check("report: incomplete false", strstr(text, "\"incomplete\": false") != NULL);
        th_check("report: quote, backslash, newline, tab escaped",
                 strstr(text, "\"say \\\"hi\\\"\\\\path\\u000anext\\u0009col\"") != NULL);
        th_check("report: NULL string is null", strstr(text, "\"driver\": null") != NULL);
        th_check("report: UTF-8 passed through", strstr(text, "\"caf\xc3\xa9\"") != NULL);
        th_check("report: integer env number", strstr(text, "\"sm_count\": 132") != NULL);
        th_check("report: integers as integers",
                 strstr(text, "\"batch\": 4, \"n\": 1048576") != NULL &&
                 strstr(text, "\"stats\": {\"n\": 7,") != NULL);
        snprintf(num, sizeof(num), "%.17g", 1e300);
        th_check("report: huge sample round-trips",
                 strstr(text, num) != NULL && strtod(num, NULL) == 1e300);
        snprintf(num, sizeof(num), "%.17g", 5e-324);
        th_check("report: tiny sample round-trips",
                 strstr(text, num) != NULL && strtod(num, NULL) == 5e-324);
        th_check("report: skipped section",
                 strstr(text, "{\"section\": \"graphs\", \"reason\": \"needs CUDA 12.4\"}") != NULL);
        th_check("report: measurement state", strstr(text, "\"state\": \"L2-cold\"") != NULL);
    }
    free(text);
    text = NULL;

    /* The checker does reject a broken document. */
    snprintf(cmd, sizeof(cmd),
             "sed 's/\"schema_version\": 1/\"schema_version\": 2/' %s > %s/bad.json && "
             "python3 tests/check_json.py %s/bad.json > /dev/null", path, dir, dir);
    th_check("report: check_json.py rejects schema_version 2", run(cmd) == 1);
    snprintf(cmd, sizeof(cmd),
             "python3 tests/check_json.py %s --expect-measurements 3 > /dev/null", path);
    th_check("report: check_json.py rejects a wrong count", run(cmd) == 1);

    /* A directory that does not exist: -1, one line on stderr, no temp. */
    rc = write_json_quiet(&r, bad, errp);
    th_check("report: nonexistent directory gives -1", rc == -1);
    text = slurp(errp);
    snprintf(cmd, sizeof(cmd), "harness: cannot write %s: %s\n", bad, strerror(ENOENT));
    th_check("report: one line on stderr", text != NULL && strcmp(text, cmd) == 0);
    free(text);
    text = NULL;
    th_check("report: nonexistent directory left no file",
             stat(bad, &sb) != 0 && !has_temp(dir));

    /* A failed write leaves the earlier file untouched. */
    mkdir(rodir, 0700);
    th_check("report: first write of keep.json", rp_write_json(&r, keep) == 0);
    before = slurp(keep);
    if (geteuid() == 0) {
        printf("SKIPPED report: read-only directory check (root ignores permissions)\n");
    } else {
        res_env_str(&r, "gpu", "changed");
        chmod(rodir, 0500);
        rc = write_json_quiet(&r, keep, errp);
        chmod(rodir, 0700);
        th_check("report: write into read-only directory gives -1", rc == -1);
        after = slurp(keep);
        th_check("report: earlier file untouched",
                 before != NULL && after != NULL && strcmp(before, after) == 0);
        th_check("report: read-only directory has no temp", !has_temp(rodir));
    }
    free(before);
    free(after);

    /* A rename that fails (the target is a non-empty directory): -1 and the
     * temporary file, written in full, is removed. Works as root too. */
    th_check("report: rename onto a directory gives -1",
             write_json_quiet(&r, rodir, errp) == -1);
    th_check("report: failed rename removed its temporary file", !has_temp(dir));
    th_check("report: directory target untouched",
             stat(keep, &sb) == 0 && S_ISREG(sb.st_mode));

    /* af_check_target: what a write can be tried on, before a run. */
    {
        char why[600], p1[600], p2[600];
        th_check("atomicfile: af_check_target: a new file in a directory that is there: 0",
                 snprintf(p1, sizeof p1, "%s/new.json", dir) > 0 &&
                 af_check_target(p1, why, sizeof why) == 0 && stat(p1, &sb) != 0);
        th_check("atomicfile: af_check_target: a directory that is not there: -1, named with ENOENT",
                 af_check_target("/nonexistent-dir/x.json", why, sizeof why) == -1 &&
                 strcmp(why, "/nonexistent-dir: No such file or directory") == 0);
        snprintf(p1, sizeof p1, "%s/x.json", keep);
        snprintf(p2, sizeof p2, "%s: Not a directory", keep);
        th_check("atomicfile: af_check_target: a file where its directory should be: ENOTDIR",
                 af_check_target(p1, why, sizeof why) == -1 && strcmp(why, p2) == 0);
        th_check("atomicfile: af_check_target: a device, written in place: 0; a bare name: 0",
                 af_check_target("/dev/null", why, sizeof why) == 0 &&
                 af_check_target("bare-name.json", why, sizeof why) == 0);
        snprintf(p1, sizeof p1, "%s/dangling", dir);
        th_check("atomicfile: af_check_target: a dangling link into a missing directory: that directory",
                 symlink("/nonexistent-dir/t.json", p1) == 0 &&
                 af_check_target(p1, why, sizeof why) == -1 &&
                 strcmp(why, "/nonexistent-dir: No such file or directory") == 0 && unlink(p1) == 0);
    }

    /* CSV: header and RFC 4180 quoting. */
    th_check("report: rp_write_csv returns 0", rp_write_csv(&r, csv) == 0);
    text = slurp(csv);
    th_check("report: CSV reads back", text != NULL);
    if (text != NULL) {
        th_check("report: CSV header", strncmp(text, header, strlen(header)) == 0);
        th_check("report: CSV quotes comma and quote",
                 strstr(text, "\nstopwatches,row4,\"events, kernel \"\"warm\"\"\",warm,ms,"
                        "1048576,4,7,1,1.5,") != NULL);
        th_check("report: CSV quotes newline",
                 strstr(text, ",\"clock()\nto clock()\",0,0,\n") != NULL);
        th_check("report: CSV unquoted plain field",
                 strstr(text, "\nstopwatches,row5,extremes,L2-cold,us,0,1,6,") != NULL);
    }
    free(text);

    res_free(&r);
    th_check("report: res_free resets", r.nm == 0 && r.m == NULL && r.nenv == 0 &&
             r.env == NULL && r.nskip == 0 && r.skip == NULL);

    nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    th_check("report: temporary directory removed", stat(dir, &sb) != 0);
    test_loading_table();
    test_wrap();
    {
        const dv_device *h200 = dv_find("NVIDIA H200"), *pcie = dv_find("NVIDIA H100 PCIe");
        th_check("devices: the H200 by its name: 4800 GB/s, with its source",
                 h200 && h200->memory_gbs == 4800 && strstr(h200->source, "H200"));
        th_check("devices: H100 PCIe is not taken for the SXM part (2000 GB/s, not 3350)",
                 pcie && pcie->memory_gbs == 2000);
        th_check("devices: an unknown name, or none, finds nothing",
                 dv_find("Fake GPU") == NULL && dv_find(NULL) == NULL);
    }
}
