/* test_kcache.c: unit tests of the run's compile cache (src/cuda/kcache.c) and
 * of rtc_compile_shared (src/cuda/rtc.c): a hit gives the bytes a fresh compile
 * gives and makes no NVRTC call; another option, arch, source, name or
 * target misses; a truncated or corrupt file is a miss and is replaced;
 * without the variable, or with a directory that is not private, it is
 * rtc_compile; kc_parse on every cut and on altered buffers; writers racing
 * a reader; the parent's directory made and removed; sec_compile loading
 * NVRTC only for a miss. NVRTC runs on the host; no GPU. */
#include "testhelp.h"
#include "cuda/kcache.h"
#include "cuda/kernels.h"
#include "cuda/rtc.h"
#include "os/fault.h"
#include "os/proc.h"
#include "run/section.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static long tk_compiles(void)
{
    return ft_count("nvrtcCompileProgram");
}

/* Files in dir whose name holds part. */
static int tk_files(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, part)) n++;
    closedir(d);
    return n;
}

/* The cache file of a compile, into path. */
static void tk_path(const char *dir, const char *src, const char *name, const char *arch,
                    rtc_target t, const char *const *opts, int nopts, char *path, size_t len)
{
    kc_key k;
    path[0] = '\0';
    if (kc_key_make(&k, src, name, arch, t == RTC_PTX ? "ptx" : "cubin", opts, nopts) != 0) return;
    if (kc_path(dir, &k, path, len) != 0) path[0] = '\0';
    kc_key_free(&k);
}

/* Read path whole (malloc'd) into *buf, its size into *len. */
static int tk_read(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    *buf = malloc(n > 0 ? (size_t)n : 1);
    *len = n > 0 ? (size_t)n : 0;
    if (!*buf || fread(*buf, 1, *len, f) != *len) {
        fclose(f);
        free(*buf);
        return -1;
    }
    fclose(f);
    return 0;
}

static int tk_write(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    int rc = 0;
    if (!f) return -1;
    if (len && fwrite(buf, 1, len, f) != len) rc = -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

static int tk_same(const rtc_out *a, const rtc_out *b)
{
    return a->code && b->code && a->size == b->size && memcmp(a->code, b->code, a->size) == 0;
}

/* A hit against a fresh compile, PTX and cubin; no NVRTC call on the hit. */
static void tk_hit(const char *dir, const char *src)
{
    static const rtc_target ts[2] = { RTC_PTX, RTC_CUBIN };
    char desc[256];
    int t;

    for (t = 0; t < 2; t++) {
        const char *tn = ts[t] == RTC_PTX ? "PTX" : "cubin";
        rtc_out fresh, first, hit;
        long n0;
        int rc1, rc2;

        rtc_compile(src, "vector.cu", "sm_90", ts[t], NULL, 0, &fresh);
        n0 = tk_compiles();
        rc1 = rtc_compile_shared(src, "vector.cu", "sm_90", ts[t], NULL, 0, &first);
        snprintf(desc, sizeof desc, "kcache: vector.cu to %s: the first rtc_compile_shared compiles "
                 "(one NVRTC compile) and stores one file", tn);
        th_check(desc, rc1 == RTC_OK && tk_compiles() == n0 + 1 && tk_files(dir, ".img") == t + 1 &&
                 tk_same(&first, &fresh));
        n0 = tk_compiles();
        rc2 = rtc_compile_shared(src, "vector.cu", "sm_90", ts[t], NULL, 0, &hit);
        snprintf(desc, sizeof desc, "kcache: vector.cu to %s: the second is a hit: the bytes of a "
                 "fresh compile, its log, no NVRTC compile, times NaN", tn);
        th_check(desc, rc2 == RTC_OK && tk_compiles() == n0 && tk_same(&hit, &fresh) &&
                 hit.log && fresh.log && strcmp(hit.log, fresh.log) == 0 &&
                 isnan(hit.ms) && isnan(hit.total_ms));
        if (ts[t] == RTC_PTX)
            th_check("kcache: a PTX hit is NUL-terminated text, as compiled",
                     hit.size > 0 && hit.code[hit.size - 1] == '\0' && strstr(hit.code, ".entry"));
        rtc_out_free(&fresh);
        rtc_out_free(&first);
        rtc_out_free(&hit);
    }
}

/* Each part of the key on its own makes a miss, and a file of its own. */
static void tk_misses(const char *dir, const char *src)
{
    static const char *const lineinfo[] = { "-lineinfo" };
    static const char *const two[] = { "-lineinfo", "-DX=1" };
    static const char *const swapped[] = { "-DX=1", "-lineinfo" };
    char *other = malloc(strlen(src) + 32);
    struct { const char *what, *src, *name, *arch; rtc_target t; const char *const *opts; int n; } v[] = {
        { "an option (-lineinfo)", src, "vector.cu", "sm_90", RTC_PTX, lineinfo, 1 },
        { "another arch (sm_80)", src, "vector.cu", "sm_80", RTC_PTX, NULL, 0 },
        { "another source (a comment more)", NULL, "vector.cu", "sm_90", RTC_PTX, NULL, 0 },
        { "another name", src, "other.cu", "sm_90", RTC_PTX, NULL, 0 },
        { "two options", src, "vector.cu", "sm_90", RTC_PTX, two, 2 },
        { "the same options in another order", src, "vector.cu", "sm_90", RTC_PTX, swapped, 2 },
    };
    char desc[256];
    size_t i;

    if (!other) return;
    sprintf(other, "%s// another\n", src);
    v[2].src = other;
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        rtc_out out;
        int files = tk_files(dir, ".img"), hit, rc;
        long n0;
        hit = rtc_cache_lookup(v[i].src, v[i].name, v[i].arch, v[i].t, v[i].opts, v[i].n, &out);
        rtc_out_free(&out);
        n0 = tk_compiles();
        rc = rtc_compile_shared(v[i].src, v[i].name, v[i].arch, v[i].t, v[i].opts, v[i].n, &out);
        snprintf(desc, sizeof desc, "kcache: %s misses, compiles and adds a file", v[i].what);
        th_check(desc, !hit && rc == RTC_OK && tk_compiles() == n0 + 1 &&
                 tk_files(dir, ".img") == files + 1);
        rtc_out_free(&out);
    }
    {
        kc_key a, b;
        const char *home = getenv("CUDA_HOME");
        char *saved = home ? strdup(home) : NULL;
        kc_key_make(&a, src, "vector.cu", "sm_90", "ptx", NULL, 0);
        setenv("CUDA_HOME", "/elsewhere/cuda", 1);
        kc_key_make(&b, src, "vector.cu", "sm_90", "ptx", NULL, 0);
        if (saved) setenv("CUDA_HOME", saved, 1);
        else unsetenv("CUDA_HOME");
        free(saved);
        th_check("kcache: the key names where NVRTC is looked for (another CUDA_HOME, another key)",
                 a.len != b.len || memcmp(a.bytes, b.bytes, a.len) != 0);
        kc_key_free(&a);
        kc_key_free(&b);
    }
    free(other);
}

/* A file cut short, or altered, is a miss; the next shared compile
 * replaces it with a whole one. */
static void tk_damage(const char *dir, const char *src)
{
    static const char *const kinds[] = {
        "a file truncated to half", "a file cut to its header", "an empty file",
        "a file with a byte of its image changed", "a file with a byte of its key changed",
        "a file with a byte more at its end", "a directory in the file's place"
    };
    char path[4096], desc[256];
    unsigned char *good = NULL;
    size_t len = 0, i;

    tk_path(dir, src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, path, sizeof path);
    if (tk_read(path, &good, &len) != 0 || len < 100) {
        th_check("kcache: the PTX file of vector.cu is there to damage", 0);
        return;
    }
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        rtc_out out;
        unsigned char *bad = malloc(len + 1);
        size_t blen = len;
        int hit, rc, again;
        long n0;
        if (!bad) return;
        memcpy(bad, good, len);
        switch (i) {
        case 0: blen = len / 2; break;
        case 1: blen = 40; break;
        case 2: blen = 0; break;
        case 3: bad[len - 20] ^= 0x20; break;
        case 4: bad[60] ^= 0x01; break;
        case 5: bad[len] = 'x'; blen = len + 1; break;
        default: break;
        }
        unlink(path);
        if (i == 6) mkdir(path, 0700);
        else tk_write(path, bad, blen);
        free(bad);
        hit = rtc_cache_lookup(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &out);
        rtc_out_free(&out);
        if (i == 6) rmdir(path);             /* a directory is not replaced by rename */
        n0 = tk_compiles();
        rc = rtc_compile_shared(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &out);
        rtc_out_free(&out);
        again = rtc_cache_lookup(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &out);
        rtc_out_free(&out);
        {
            unsigned char *now = NULL;
            size_t nlen = 0;
            int whole = tk_read(path, &now, &nlen) == 0 && nlen == len && memcmp(now, good, len) == 0;
            free(now);
            snprintf(desc, sizeof desc, "kcache: %s is a miss; the compile that follows "
                     "replaces it with a whole one, a hit", kinds[i]);
            th_check(desc, !hit && rc == RTC_OK && tk_compiles() == n0 + 1 && again && whole);
        }
    }
    th_check("kcache: no temporary file is left beside the entries", tk_files(dir, ".tmp.") == 0);
    free(good);
}

/* kc_parse on a good file's bytes: accepted whole; every shorter cut, a
 * byte more, every length field made larger or smaller, another target or
 * key: refused, never read past the buffer (make sanitize). */
static void tk_parse(const char *dir, const char *src)
{
    char path[4096];
    unsigned char *good = NULL, *b;
    size_t len = 0, i;
    kc_key k, other;
    kc_image img;
    int ok = 1, f;

    tk_path(dir, src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, path, sizeof path);
    if (tk_read(path, &good, &len) != 0 || kc_key_make(&k, src, "vector.cu", "sm_90", "ptx", NULL, 0) != 0) {
        th_check("kcache: a good file to parse", 0);
        return;
    }
    th_check("kcache: kc_parse accepts a whole file of its key",
             kc_parse(good, len, &k, 1, &img) == 1 && img.size > 0);
    kc_image_free(&img);
    for (i = 0; i < len && ok; i++) {
        b = malloc(i ? i : 1);
        memcpy(b, good, i);
        if (kc_parse(b, i, &k, 1, &img) != 0 || img.code || img.log) ok = 0;
        kc_image_free(&img);
        free(b);
    }
    th_check("kcache: kc_parse refuses every cut of a good file (each in a buffer of its size)", ok);
    for (f = 0, ok = 1; f < 3; f++) {
        static const long long d[] = { 1, -1, 1LL << 40, -(1LL << 40) };
        size_t j;
        for (j = 0; j < 4; j++) {
            unsigned long long v = 0;
            int byte;
            b = malloc(len);
            memcpy(b, good, len);
            for (byte = 7; byte >= 0; byte--) v = (v << 8) | b[8 + 8 * f + byte];
            v += (unsigned long long)d[j];
            for (byte = 0; byte < 8; byte++) b[8 + 8 * f + byte] = (unsigned char)(v >> (8 * byte));
            if (kc_parse(b, len, &k, 1, &img) != 0) ok = 0;
            kc_image_free(&img);
            free(b);
        }
    }
    th_check("kcache: kc_parse refuses a key, image or log length off by one or by 2^40", ok);
    kc_key_make(&other, src, "vector.cu", "sm_90", "cubin", NULL, 0);
    th_check("kcache: kc_parse refuses the file for another key (the full key compared)",
             kc_parse(good, len, &other, 0, &img) == 0);
    kc_image_free(&img);
    b = malloc(len);
    memcpy(b, good, len);
    {
        /* The image's last byte (PTX's NUL) changed, and the checksum made to match. */
        unsigned long long klen = 0, clen = 0, h = 0xcbf29ce484222325ull;
        int byte;
        for (byte = 7; byte >= 0; byte--) {
            klen = (klen << 8) | b[8 + byte];
            clen = (clen << 8) | b[16 + byte];
        }
        b[40 + klen + clen - 1] = 'x';
        for (i = 40; i < len; i++) {
            h ^= b[i];
            h *= 0x100000001b3ull;
        }
        for (byte = 0; byte < 8; byte++) b[32 + byte] = (unsigned char)(h >> (8 * byte));
        th_check("kcache: kc_parse refuses PTX without its final NUL, checksum and all",
                 kc_parse(b, len, &k, 1, &img) == 0);
        kc_image_free(&img);
        th_check("kcache: ... which a cubin may lack (the same bytes as a cubin's file accepted)",
                 kc_parse(b, len, &k, 0, &img) == 1);
        kc_image_free(&img);
    }
    free(b);
    kc_key_free(&other);
    kc_key_free(&k);
    free(good);
}

/* Writers racing a reader: every read is a whole hit or a miss. */
static void tk_race(const char *dir)
{
    static const char src[] = "extern \"C\" __global__ void race(float *a) { a[0] = 1; }\n";
    enum { WRITERS = 4, PUTS = 100 };
    kc_image img, got;
    kc_key k;
    pid_t pids[WRITERS];
    int i, bad = 0, status, clean = 1;
    char *code = malloc(200000);

    if (!code) return;
    for (i = 0; i < 199999; i++) code[i] = (char)('a' + i % 26);
    code[199999] = '\0';
    img.code = code;
    img.size = 200000;
    img.log = NULL;
    kc_key_make(&k, src, "race.cu", "sm_90", "ptx", NULL, 0);
    for (i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            int j;
            for (j = 0; j < PUTS; j++) kc_put(dir, &k, &img);
            _exit(0);
        }
    }
    for (i = 0; i < 400; i++) {
        int r = kc_get(dir, &k, 1, &got);
        if (r == 1 && (got.size != img.size || memcmp(got.code, img.code, img.size) != 0 ||
                       strcmp(got.log, "") != 0))
            bad++;
        else if (r != 1 && r != 0)
            bad++;
        kc_image_free(&got);
    }
    for (i = 0; i < WRITERS; i++)
        if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status)) clean = 0;
    th_check("kcache: four writers racing a reader: every read a miss or the whole image, never half",
             bad == 0 && clean);
    th_check("kcache: after the race: one entry, whole, and no temporary file left",
             kc_get(dir, &k, 1, &got) == 1 && tk_files(dir, ".tmp.") == 0);
    kc_image_free(&got);
    kc_key_free(&k);
    free(code);
}

/* Without the variable, or with a directory others may enter: rtc_compile. */
static void tk_no_cache(const char *dir, const char *src)
{
    rtc_out a, b;
    int files = tk_files(dir, ".img"), rc;
    long n0;

    unsetenv(KC_ENV);
    n0 = tk_compiles();
    rc = rtc_compile_shared(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &a);
    rtc_compile(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &b);
    th_check("kcache: no HARNESS_RTC_CACHE: rtc_compile_shared compiles, as rtc_compile, and "
             "stores nothing", rc == RTC_OK && tk_compiles() == n0 + 2 && tk_same(&a, &b) &&
             !isnan(a.ms) && tk_files(dir, ".img") == files && kc_dir() == NULL);
    rtc_out_free(&a);
    rtc_out_free(&b);

    setenv(KC_ENV, dir, 1);
    chmod(dir, 0755);
    n0 = tk_compiles();
    rc = rtc_compile_shared(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &a);
    th_check("kcache: a cache directory others may enter (0755) is not used: a compile",
             rc == RTC_OK && tk_compiles() == n0 + 1 && kc_dir() == NULL);
    rtc_out_free(&a);
    chmod(dir, 0700);
    setenv(KC_ENV, "/nonexistent-dir/cache", 1);
    n0 = tk_compiles();
    rc = rtc_compile_shared(src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &a);
    th_check("kcache: a cache directory that is not there is not used: a compile",
             rc == RTC_OK && tk_compiles() == n0 + 1 && kc_dir() == NULL);
    rtc_out_free(&a);
    setenv(KC_ENV, dir, 1);
}

/* sec_compile after sec_need_rtc_later: NVRTC's state touched only by a miss. */
static void tk_later(const char *dir, const char *src)
{
    cli_opts o;
    results r;
    sec_ctx c;
    rtc_out out;
    int rc;

    (void)dir;
    memset(&o, 0, sizeof o);
    memset(&c, 0, sizeof c);
    res_init(&r);
    c.o = &o;
    c.r = &r;
    th_check("kcache: sec_need_rtc_later with a cache puts NVRTC off (SEC_OK, nothing loaded yet)",
             sec_need_rtc_later(&c) == SEC_OK && c.rtc_state == 2 && !res_env_get(&r, "nvrtc_version"));
    rc = sec_compile(&c, src, "vector.cu", "sm_90", RTC_PTX, NULL, 0, &out);
    th_check("kcache: sec_compile of a compile the cache holds: the image, NVRTC still put off",
             rc == RTC_OK && out.code && c.rtc_state == 2);
    rtc_out_free(&out);
    rc = sec_compile(&c, src, "later.cu", "sm_90", RTC_PTX, NULL, 0, &out);
    th_check("kcache: sec_compile of one it does not hold: NVRTC loaded (its version recorded), "
             "compiled", rc == RTC_OK && out.code && c.rtc_state == 1 &&
             res_env_get(&r, "nvrtc_version"));
    rtc_out_free(&out);
    res_free(&r);
    memset(&c, 0, sizeof c);
    res_init(&r);
    c.o = &o;
    c.r = &r;
    unsetenv(KC_ENV);
    th_check("kcache: sec_need_rtc_later without a cache is sec_need_rtc (loaded now)",
             sec_need_rtc_later(&c) == SEC_OK && c.rtc_state == 1);
    setenv(KC_ENV, dir, 1);
    res_free(&r);
}

/* The parent's directory: made under TMPDIR, named in the variable (an
 * inherited value replaced), removed with the variable; the kill hook's
 * removal; no directory where TMPDIR cannot hold one. */
static void tk_lifecycle(const char *top)
{
    char tmp[4096], why[512], entry[4200];
    const char *d;
    const char *saved = getenv("TMPDIR");
    char *keep = saved ? strdup(saved) : NULL;
    struct stat st;
    FILE *f;
    int ok;

    snprintf(tmp, sizeof tmp, "%s/tmpdir", top);
    mkdir(tmp, 0700);
    setenv("TMPDIR", tmp, 1);
    setenv(KC_ENV, "/inherited/from/outside", 1);
    ok = kc_begin(why, sizeof why) == 0;
    d = getenv(KC_ENV);
    th_check("kcache: kc_begin makes a private directory under TMPDIR and names it in "
             "HARNESS_RTC_CACHE, replacing an inherited value",
             ok && d && strncmp(d, tmp, strlen(tmp)) == 0 && strstr(d, "harness-rtc-cache-") &&
             stat(d, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 &&
             kc_dir() != NULL);
    snprintf(entry, sizeof entry, "%s/x.img", d ? d : "/nonexistent");
    if ((f = fopen(entry, "w")) != NULL) fclose(f);
    th_check("kcache: kc_end removes it, entries and all, and unsets the variable",
             kc_end() == 0 && getenv(KC_ENV) == NULL && tk_files(tmp, "harness-") == 0);
    ok = kc_begin(why, sizeof why) == 0;
    d = getenv(KC_ENV);
    snprintf(entry, sizeof entry, "%s/y.img.tmp.abcdef", d ? d : "/nonexistent");
    if ((f = fopen(entry, "w")) != NULL) fclose(f);
    {   /* another of the run's directories, as section jit's NVRTC --time one, with
         * a file and a directory two levels deep */
        char other[600], deep[700], why2[256];
        int made = pr_mkdtemp("nvrtc-time", other, sizeof other, why2, sizeof why2) == 0;
        snprintf(entry, sizeof entry, "%s/time.csv", made ? other : "/nonexistent");
        if ((f = fopen(entry, "w")) != NULL) fclose(f);
        snprintf(deep, sizeof deep, "%s/a", other);
        mkdir(deep, 0700);
        snprintf(deep, sizeof deep, "%s/a/b", other);
        mkdir(deep, 0700);
        snprintf(entry, sizeof entry, "%s/a/b/c", other);
        if ((f = fopen(entry, "w")) != NULL) fclose(f);
        th_check("kcache: two of the run's directories to remove (the cache and another, "
                 "with files two levels down)", made && tk_files(tmp, "harness-") == 2);
    }
    pr_cleanup_now();
    th_check("kcache: pr_cleanup_now (a second signal) removes both, a half-written file and "
             "nested directories too", ok && tk_files(tmp, "harness-") == 0);
    th_check("kcache: kc_end after pr_cleanup_now has nothing left to do", kc_end() == 0);
    pr_cleanup_now();
    th_check("kcache: pr_cleanup_now again: nothing to do, nothing made",
             tk_files(tmp, "harness-") == 0);
    unsetenv(KC_ENV);
    setenv("TMPDIR", "/nonexistent-dir", 1);
    setenv(KC_ENV, "/inherited/from/outside", 1);
    th_check("kcache: where TMPDIR cannot hold it, kc_begin fails with a reason and unsets "
             "an inherited variable", kc_begin(why, sizeof why) != 0 && why[0] &&
             getenv(KC_ENV) == NULL);
    if (keep) setenv("TMPDIR", keep, 1);
    else unsetenv("TMPDIR");
    free(keep);
    rmdir(tmp);
}

void test_kcache(void)
{
    char top[] = "/tmp/harness-test-kcache-XXXXXX", dir[4096], why[256];
    const char *src = kn_embedded("vector.cu");
    const char *old = getenv(KC_ENV);
    char *keep = old ? strdup(old) : NULL;

    if (rtc_load(why, sizeof why) != 0) {
        th_check("kcache: NVRTC loads (needed to compile)", 0);
        free(keep);
        return;
    }
    if (!mkdtemp(top)) {
        th_check("kcache: a temporary directory", 0);
        free(keep);
        return;
    }
    snprintf(dir, sizeof dir, "%s/cache", top);
    mkdir(dir, 0700);
    setenv(KC_ENV, dir, 1);
    ft_reset();
    ft_count_all();
    tk_hit(dir, src);
    tk_misses(dir, src);
    tk_damage(dir, src);
    tk_parse(dir, src);
    tk_race(dir);
    tk_no_cache(dir, src);
    tk_later(dir, src);
    tk_lifecycle(top);
    ft_reset();
    {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
        if (system(cmd) != 0) printf("test_kcache: could not remove %s\n", top);
    }
    if (keep) setenv(KC_ENV, keep, 1);
    else unsetenv(KC_ENV);
    free(keep);
}
