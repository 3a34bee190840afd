/* kernels.c: the kernel registry, source loading and CPU references. */
#include "kernels.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined in kernels_src.S. */
extern const char kn_src_vector[], kn_src_empty[], kn_src_copy[];

const char *const kn_files[] = { "vector.cu", "empty.cu", "copy.cu" };
const size_t kn_nfiles = sizeof kn_files / sizeof kn_files[0];

const kn_kernel kn_all[] = {
    /* name          file         bytes  flops */
    { "vectorAdd",   "vector.cu", 12.0,  1.0 },
    { "vectorScale", "vector.cu",  8.0,  1.0 },
    { "doNothing",   "empty.cu",   0.0,  0.0 },
    { "copyFloat",   "copy.cu",    8.0,  0.0 },
    { "copyFloat4",  "copy.cu",    8.0,  0.0 },
};
const size_t kn_count = sizeof kn_all / sizeof kn_all[0];

const kn_kernel *kn_find(const char *name)
{
    size_t i;
    for (i = 0; i < kn_count; i++)
        if (strcmp(kn_all[i].name, name) == 0) return &kn_all[i];
    return NULL;
}

const char *kn_embedded(const char *file)
{
    if (strcmp(file, "vector.cu") == 0) return kn_src_vector;
    if (strcmp(file, "empty.cu") == 0) return kn_src_empty;
    if (strcmp(file, "copy.cu") == 0) return kn_src_copy;
    return NULL;
}

/* Read a whole file of at most KN_MAX_SOURCE bytes. */
static char *kn_read(const char *path, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;

    if (!f) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (size == 0) {
        snprintf(why, whylen, "%s: the file is empty", path);
        goto fail;
    }
    if ((unsigned long)size > KN_MAX_SOURCE) {
        snprintf(why, whylen, "%s: %ld bytes, larger than the %u MiB a kernel source may have",
                 path, size, KN_MAX_SOURCE >> 20);
        goto fail;
    }
    buf = malloc((size_t)size + 1);
    if (!buf) {
        snprintf(why, whylen, "%s: out of memory", path);
        goto fail;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        snprintf(why, whylen, "%s: short read", path);
        free(buf);
        buf = NULL;
        goto fail;
    }
    buf[size] = '\0';
    if (strlen(buf) != (size_t)size) {
        snprintf(why, whylen, "%s: the file holds a NUL byte; not a source file", path);
        free(buf);
        buf = NULL;
    }
fail:
    fclose(f);
    return buf;
}

char *kn_source(const char *file, const char *kernels_dir, char *why, size_t whylen)
{
    const char *text = kn_embedded(file);
    char *copy;

    if (kernels_dir) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", kernels_dir, file) >= sizeof path) {
            snprintf(why, whylen, "--kernels-dir: path too long");
            return NULL;
        }
        return kn_read(path, why, whylen);
    }
    if (!text) {
        snprintf(why, whylen, "no kernel source named %s", file);
        return NULL;
    }
    copy = strdup(text);
    if (!copy) snprintf(why, whylen, "out of memory");
    return copy;
}

/* One element's verdict. */
static int kn_bad_elem(float got, double want)
{
    double g = (double)got;
    return !(fabs(g - want) <= 1e-6 * fabs(want));
}

static void kn_note(kn_bad *bad, size_t i, double got, double want)
{
    if (bad->count++ == 0) {
        bad->first = i;
        bad->got = got;
        bad->want = want;
    }
}

size_t kn_check_add(const float *a, const float *b, const float *out, size_t n, kn_bad *bad)
{
    size_t i;
    memset(bad, 0, sizeof *bad);
    for (i = 0; i < n; i++) {
        double want = (double)a[i] + (double)b[i];
        if (kn_bad_elem(out[i], want)) kn_note(bad, i, out[i], want);
    }
    return bad->count;
}

size_t kn_check_scale(const float *a, float s, const float *out, size_t n, kn_bad *bad)
{
    size_t i;
    memset(bad, 0, sizeof *bad);
    for (i = 0; i < n; i++) {
        double want = (double)s * (double)a[i];
        if (kn_bad_elem(out[i], want)) kn_note(bad, i, out[i], want);
    }
    return bad->count;
}

void kn_cpu_add(const float *a, const float *b, float *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) out[i] = a[i] + b[i];
}

void kn_fill(float *x, size_t n, unsigned seed)
{
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ seed;
    size_t i;
    for (i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (float)((double)(s >> 40) / (double)(1ULL << 23) - 1.0);
    }
}

void kn_poison(float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = NAN;
}
