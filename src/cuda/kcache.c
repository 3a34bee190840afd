/* kcache.c: the run's compile cache: one file per compiled image, named by
 * a hash of its key, holding the whole key, checked in full on every read. */
#include "cuda/kcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/atomicfile.h"
#include "os/proc.h"

#define KC_MAGIC "HKCACHE1"
#define KC_HEADER 40                      /* magic, three lengths, checksum */
#define KC_MAX_FILE ((size_t)1 << 30)     /* larger: not read (a miss) */
#define KC_FORMAT "harness kcache 1"

/* ------------------------------------------------------------- the key --- */

static void kc_le64(unsigned char *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t kc_get64(const unsigned char *p)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* FNV-1a, 64 bits, continuing from h. */
static uint64_t kc_fnv(uint64_t h, const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define KC_FNV_START 0xcbf29ce484222325ull

/* Append field s (its length, then its bytes) at k->bytes + *at. */
static void kc_field(kc_key *k, size_t *at, const char *s)
{
    size_t n = strlen(s);
    kc_le64(k->bytes + *at, (uint64_t)n);
    memcpy(k->bytes + *at + 8, s, n);
    *at += 8 + n;
}

int kc_key_make(kc_key *k, const char *src, const char *name, const char *arch,
                const char *target, const char *const *opts, int nopts)
{
    const char *home = getenv("CUDA_HOME"), *ldp = getenv("LD_LIBRARY_PATH");
    const char *fixed[7];
    char count[32];
    size_t len = 0, at = 0, i;

    k->bytes = NULL;
    k->len = 0;
    if (nopts < 0) return -1;
    if (!home || !*home) home = HARNESS_CUDA_HOME;     /* as rtc_load reads it */
    snprintf(count, sizeof count, "%d", nopts);
    fixed[0] = KC_FORMAT;
    fixed[1] = HARNESS_VERSION;
    fixed[2] = home;
    fixed[3] = ldp ? ldp : "";
    fixed[4] = name;
    fixed[5] = arch;
    fixed[6] = target;
    for (i = 0; i < 7; i++) len += 8 + strlen(fixed[i]);
    len += 8 + strlen(count) + 8 + strlen(src);
    for (i = 0; i < (size_t)nopts; i++) len += 8 + strlen(opts[i]);
    if (!(k->bytes = malloc(len))) return -1;
    for (i = 0; i < 7; i++) kc_field(k, &at, fixed[i]);
    kc_field(k, &at, count);
    for (i = 0; i < (size_t)nopts; i++) kc_field(k, &at, opts[i]);
    kc_field(k, &at, src);
    k->len = at;
    return 0;
}

void kc_key_free(kc_key *k)
{
    free(k->bytes);
    k->bytes = NULL;
    k->len = 0;
}

/* ------------------------------------------------------------ the file --- */

const char *kc_dir(void)
{
    const char *d = getenv(KC_ENV);
    struct stat st;

    if (!d || !*d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0)
        return NULL;
    return d;
}

int kc_path(const char *dir, const kc_key *k, char *buf, size_t len)
{
    uint64_t h = kc_fnv(KC_FNV_START, k->bytes, k->len);
    int n = snprintf(buf, len, "%s/%016llx.img", dir, (unsigned long long)h);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

void kc_image_free(kc_image *img)
{
    free(img->code);
    free(img->log);
    memset(img, 0, sizeof *img);
}

int kc_parse(const unsigned char *buf, size_t len, const kc_key *k, int nul_ended,
             kc_image *img)
{
    uint64_t klen, clen, llen, sum;
    const unsigned char *key, *code, *log;

    memset(img, 0, sizeof *img);
    if (len < KC_HEADER || memcmp(buf, KC_MAGIC, 8) != 0) return 0;
    klen = kc_get64(buf + 8);
    clen = kc_get64(buf + 16);
    llen = kc_get64(buf + 24);
    sum = kc_get64(buf + 32);
    /* Each length within what is left, so that their sum cannot wrap. */
    if (klen > len - KC_HEADER || clen > len - KC_HEADER - klen ||
        llen != len - KC_HEADER - klen - clen)
        return 0;
    key = buf + KC_HEADER;
    code = key + klen;
    log = code + clen;
    if (klen != k->len || memcmp(key, k->bytes, k->len) != 0) return 0;
    if (clen == 0 || (nul_ended && code[clen - 1] != '\0')) return 0;
    if (kc_fnv(kc_fnv(kc_fnv(KC_FNV_START, key, klen), code, clen), log, llen) != sum) return 0;
    img->code = malloc(clen);
    img->log = malloc(llen + 1);
    if (!img->code || !img->log) {
        kc_image_free(img);
        return -1;
    }
    memcpy(img->code, code, clen);
    memcpy(img->log, log, llen);
    img->log[llen] = '\0';
    img->size = clen;
    return 1;
}

int kc_get(const char *dir, const kc_key *k, int nul_ended, kc_image *img)
{
    char path[4096];
    unsigned char *buf = NULL;
    struct stat st;
    size_t size, got = 0;
    int fd, rc = 0;

    memset(img, 0, sizeof *img);
    if (kc_path(dir, k, path, sizeof path) != 0) return 0;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < KC_HEADER ||
        (uint64_t)st.st_size > KC_MAX_FILE)
        goto out;
    size = (size_t)st.st_size;
    if (!(buf = malloc(size))) {
        rc = -1;
        goto out;
    }
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) goto out;                   /* short: a miss */
        got += (size_t)n;
    }
    rc = kc_parse(buf, size, k, nul_ended, img);
out:
    free(buf);
    close(fd);
    return rc;
}

/* What kc_put writes. */
typedef struct kc_entry {
    const kc_key *k;
    const kc_image *img;
    size_t loglen;
} kc_entry;

static int kc_emit(FILE *f, const void *arg)
{
    const kc_entry *e = arg;
    unsigned char h[KC_HEADER];
    uint64_t sum = kc_fnv(KC_FNV_START, e->k->bytes, e->k->len);

    sum = kc_fnv(sum, (const unsigned char *)e->img->code, e->img->size);
    if (e->loglen) sum = kc_fnv(sum, (const unsigned char *)e->img->log, e->loglen);
    memcpy(h, KC_MAGIC, 8);
    kc_le64(h + 8, (uint64_t)e->k->len);
    kc_le64(h + 16, (uint64_t)e->img->size);
    kc_le64(h + 24, (uint64_t)e->loglen);
    kc_le64(h + 32, sum);
    if (fwrite(h, 1, sizeof h, f) != sizeof h ||
        fwrite(e->k->bytes, 1, e->k->len, f) != e->k->len ||
        fwrite(e->img->code, 1, e->img->size, f) != e->img->size ||
        (e->loglen && fwrite(e->img->log, 1, e->loglen, f) != e->loglen))
        return -1;
    return 0;
}

int kc_put(const char *dir, const kc_key *k, const kc_image *img)
{
    char path[4096];
    kc_entry e;

    if (!img->code || img->size == 0 || kc_path(dir, k, path, sizeof path) != 0) return -1;
    e.k = k;
    e.img = img;
    e.loglen = img->log ? strlen(img->log) : 0;
    if (KC_HEADER + k->len + img->size + e.loglen > KC_MAX_FILE) return -1;
    return af_write_private(path, kc_emit, &e);
}

/* ------------------------------------------------ the run's directory --- */

/* The directory kc_begin made; kc_live is 1 from when it is made until
 * kc_end has removed it. */
static char kc_made[512];
static int kc_live;

int kc_begin(char *why, size_t whylen)
{
    char dir[sizeof kc_made];

    if (kc_live) return 0;
    if (pr_mkdtemp("rtc-cache", dir, sizeof dir, why, whylen) != 0) {
        unsetenv(KC_ENV);
        return -1;
    }
    if (setenv(KC_ENV, dir, 1) != 0) {
        snprintf(why, whylen, "setenv %s: %s", KC_ENV, strerror(errno));
        pr_rmtree(dir);
        unsetenv(KC_ENV);
        return -1;
    }
    memcpy(kc_made, dir, sizeof dir);
    kc_live = 1;
    return 0;
}

int kc_end(void)
{
    int rc;

    if (!kc_live) return 0;
    unsetenv(KC_ENV);
    rc = pr_rmtree(kc_made);
    kc_live = 0;
    if (rc != 0) fprintf(stderr, "harness: could not remove %s\n", kc_made);
    return rc;
}

