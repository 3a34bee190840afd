/* kernels.c: the kernel registry, source loading and CPU references. */
#include "cuda/kernels.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Defined in kernels_src.S. */
extern const char kn_src_vector[], kn_src_empty[], kn_src_copy[], kn_src_fusion[],
    kn_src_launch[];

const char *const kn_files[] = { "vector.cu", "empty.cu", "copy.cu", "fusion.cu", "launch.cu" };
const size_t kn_nfiles = sizeof kn_files / sizeof kn_files[0];

const kn_kernel kn_all[] = {
    /* name          file         bytes  flops */
    { "vectorAdd",   "vector.cu", 12.0,  1.0 },
    { "vectorScale", "vector.cu",  8.0,  1.0 },
    { "doNothing",   "empty.cu",   0.0,  0.0 },
    { "copyFloat",   "copy.cu",    8.0,  0.0 },
    { "copyFloat2",  "copy.cu",    8.0,  0.0 },
    { "copyFloat4",  "copy.cu",    8.0,  0.0 },
    /* The fusion chain y = clamp(gelu(1.5 x + 0.25) + r) (fusion.cu). Flops
     * count each stage's operations: scaleBias 2 (mul, add); gelu 9 (3 muls
     * for 0.044715 x^3, + x, * 0.79788, tanh, 1 +, 0.5 * x, * (..)), tanh
     * counted as one operation although it takes a dozen; addResidual 1;
     * clampRange 2 (max, min). Bytes: 4 per float read or written. */
    { "stageScaleBias",    "fusion.cu",  8.0,  2.0 },
    { "stageGelu",         "fusion.cu",  8.0,  9.0 },
    { "stageAddResidual",  "fusion.cu", 12.0,  1.0 },
    { "stageClamp",        "fusion.cu",  8.0,  2.0 },
    { "pairScaleGelu",     "fusion.cu",  8.0, 11.0 },
    { "pairResidualClamp", "fusion.cu", 12.0,  3.0 },
    { "chainFused",        "fusion.cu", 12.0, 14.0 },
    /* chainFusedWide<K> is a template with no extern "C" name: not here. */
    { "blockUntil",        "launch.cu",  0.0,  0.0 },
    { "smClockMHz",        "launch.cu",  0.0,  0.0 },
};
const size_t kn_count = sizeof kn_all / sizeof kn_all[0];

const kn_kernel *kn_find(const char *name)
{
    size_t i;
    for (i = 0; i < kn_count; i++)
        if (strcmp(kn_all[i].name, name) == 0) return &kn_all[i];
    return NULL;
}

/* Sum bytes_per_elem (flops != 0: flops_per_elem) over the named kernels. */
static double kn_model_sum(const char *const *names, size_t n, int flops)
{
    double sum = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        const kn_kernel *k = names[i] ? kn_find(names[i]) : NULL;
        if (!k) return NAN;
        sum += flops ? k->flops_per_elem : k->bytes_per_elem;
    }
    return sum;
}

double kn_bytes_of(const char *const *names, size_t n)
{
    return kn_model_sum(names, n, 0);
}

double kn_flops_of(const char *const *names, size_t n)
{
    return kn_model_sum(names, n, 1);
}

const char *kn_embedded(const char *file)
{
    if (strcmp(file, "vector.cu") == 0) return kn_src_vector;
    if (strcmp(file, "empty.cu") == 0) return kn_src_empty;
    if (strcmp(file, "copy.cu") == 0) return kn_src_copy;
    if (strcmp(file, "fusion.cu") == 0) return kn_src_fusion;
    if (strcmp(file, "launch.cu") == 0) return kn_src_launch;
    return NULL;
}

/* Open path for reading, refusing what is not a regular file. O_NONBLOCK:
 * opening a FIFO must not wait for a writer (a signal could not end that
 * wait). Returns the stream, or NULL with the reason in why. */
static FILE *kn_open_regular(const char *path, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f;

    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file (%s); a kernel source must be one", path,
                 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                 : S_ISCHR(st.st_mode) ? "a character device" : "a special file");
        close(fd);
        return NULL;
    }
    if (!(f = fdopen(fd, "rb"))) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

/* Read a whole file of at most KN_MAX_SOURCE bytes. */
static char *kn_read(const char *path, char *why, size_t whylen)
{
    FILE *f = kn_open_regular(path, why, whylen);
    char *buf = NULL;
    long size;

    if (!f) return NULL;
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

/* ------------------------------------------- the host's side, in parts --- */

/* The checks, fills and poisons below cover every element of buffers of up
 * to 1 GiB; on a large n they run in parts on up to kn_threads threads
 * (kn_host_threads), each part at least KN_PART elements, the caller's
 * thread taking the first. A part's failures are merged in index order, so
 * the result is the one a single pass gives. */
#define KN_PART 1048576u
#define KN_MAX_THREADS 8

static unsigned kn_threads = KN_MAX_THREADS;

void kn_host_threads(unsigned t)
{
    kn_threads = t < 1 ? 1 : t > KN_MAX_THREADS ? KN_MAX_THREADS : t;
}

typedef void (*kn_part_fn)(const void *ctx, size_t lo, size_t hi, kn_bad *bad);

typedef struct kn_part {
    kn_part_fn fn;
    const void *ctx;
    size_t lo, hi;
    kn_bad bad;
} kn_part;

static void *kn_part_run(void *arg)
{
    kn_part *p = arg;
    memset(&p->bad, 0, sizeof p->bad);
    p->fn(p->ctx, p->lo, p->hi, &p->bad);
    return NULL;
}

/* fn over [0, n) in parts; their failures merged into *bad (may be NULL).
 * A thread that cannot be started leaves its part to the caller's thread.
 * Returns the failures counted. */
static size_t kn_parts(size_t n, kn_part_fn fn, const void *ctx, kn_bad *bad)
{
    kn_part part[KN_MAX_THREADS];
    pthread_t tid[KN_MAX_THREADS];
    int started[KN_MAX_THREADS];
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = n / KN_PART, i, each;
    sigset_t all_signals, was;
    kn_bad all;

    if (k > kn_threads) k = kn_threads;
    if (online > 0 && k > (size_t)online) k = (size_t)online;
    if (k < 1) k = 1;
    each = (n + k - 1) / k;
    /* The workers take no signal: they inherit a full mask (sig.c's own
     * thread takes SIGINT and SIGTERM for the process). */
    sigfillset(&all_signals);
    if (k > 1) pthread_sigmask(SIG_SETMASK, &all_signals, &was);
    for (i = 0; i < k; i++) {
        part[i].fn = fn;
        part[i].ctx = ctx;
        part[i].lo = i * each < n ? i * each : n;
        part[i].hi = part[i].lo + each < n ? part[i].lo + each : n;
        started[i] = i > 0 && pthread_create(&tid[i], NULL, kn_part_run, &part[i]) == 0;
    }
    if (k > 1) pthread_sigmask(SIG_SETMASK, &was, NULL);
    kn_part_run(&part[0]);
    for (i = 1; i < k; i++) {
        if (started[i]) pthread_join(tid[i], NULL);
        else kn_part_run(&part[i]);
    }
    memset(&all, 0, sizeof all);
    for (i = 0; i < k; i++) {
        if (part[i].bad.count && !all.count) {
            all.first = part[i].bad.first;
            all.got = part[i].bad.got;
            all.want = part[i].bad.want;
        }
        all.count += part[i].bad.count;
    }
    if (bad) *bad = all;
    return all.count;
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

/* The arrays a part reads and writes, and the scalars it needs. */
typedef struct kn_args {
    const float *a, *b, *out;
    const double *want;
    double *w;
    float *x;
    float s;
    unsigned seed;
    const unsigned char *p, *q;
} kn_args;

static void kn_add_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    size_t i;
    for (i = lo; i < hi; i++) {
        double want = (double)A->a[i] + (double)A->b[i];
        if (kn_bad_elem(A->out[i], want)) kn_note(bad, i, A->out[i], want);
    }
}

size_t kn_check_add(const float *a, const float *b, const float *out, size_t n, kn_bad *bad)
{
    kn_args A = { .a = a, .b = b, .out = out };
    return kn_parts(n, kn_add_part, &A, bad);
}

static void kn_scale_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    size_t i;
    for (i = lo; i < hi; i++) {
        double want = (double)A->s * (double)A->a[i];
        if (kn_bad_elem(A->out[i], want)) kn_note(bad, i, A->out[i], want);
    }
}

size_t kn_check_scale(const float *a, float s, const float *out, size_t n, kn_bad *bad)
{
    kn_args A = { .a = a, .out = out, .s = s };
    return kn_parts(n, kn_scale_part, &A, bad);
}

double kn_chain_ref(double x, double r)
{
    double v = x * 1.5 + 0.25;
    v = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    v += r;
    return fmin(fmax(v, -3.0), 3.0);
}

/* The chain's tolerance (kernels.h, kn_check_chain): 1 when got fails. */
static int kn_chain_bad(double got, double want)
{
    return !(fabs(got - want) <= 1e-5 * fabs(want) + 1e-6);
}

static void kn_chain_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    size_t i;
    for (i = lo; i < hi; i++) {
        double want = kn_chain_ref((double)A->a[i], (double)A->b[i]);
        if (kn_chain_bad((double)A->out[i], want)) kn_note(bad, i, (double)A->out[i], want);
    }
}

size_t kn_check_chain(const float *x, const float *r, const float *y, size_t n, kn_bad *bad)
{
    kn_args A = { .a = x, .b = r, .out = y };
    return kn_parts(n, kn_chain_part, &A, bad);
}

static void kn_wants_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    size_t i;
    (void)bad;
    for (i = lo; i < hi; i++) A->w[i] = kn_chain_ref((double)A->a[i], (double)A->b[i]);
}

void kn_chain_wants(const float *x, const float *r, double *want, size_t n)
{
    kn_args A = { .a = x, .b = r, .w = want };
    kn_parts(n, kn_wants_part, &A, NULL);
}

static void kn_chain_wants_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    size_t i;
    for (i = lo; i < hi; i++)
        if (kn_chain_bad((double)A->out[i], A->want[i])) kn_note(bad, i, (double)A->out[i], A->want[i]);
}

size_t kn_check_chain_wants(const double *want, const float *y, size_t n, kn_bad *bad)
{
    kn_args A = { .want = want, .out = y };
    return kn_parts(n, kn_chain_wants_part, &A, bad);
}

void kn_cpu_add(const float *a, const float *b, float *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) out[i] = a[i] + b[i];
}

/* splitmix64's finaliser: a 64-bit mix in which every input bit moves
 * about half the output bits. */
static uint64_t kn_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void kn_fill_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    uint64_t key = kn_mix(0x9E3779B97F4A7C15ULL ^ A->seed);
    size_t i;
    (void)bad;
    /* Each element from its own index, not from the one before it (no
     * chain to wait on, and parts need no start state). The top 24 bits,
     * as -1 + k / 2^23, are exact in float. */
    for (i = lo; i < hi; i++) {
        uint64_t z = kn_mix(key + (uint64_t)i * 0x9E3779B97F4A7C15ULL);
        A->x[i] = (float)(uint32_t)(z >> 40) * (1.0f / 8388608.0f) - 1.0f;
    }
}

void kn_fill(float *x, size_t n, unsigned seed)
{
    kn_args A = { .x = x, .seed = seed };
    kn_parts(n, kn_fill_part, &A, NULL);
}

static void kn_poison_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    size_t i;
    (void)bad;
    for (i = lo; i < hi; i++) A->x[i] = NAN;
}

void kn_poison(float *x, size_t n)
{
    kn_args A = { .x = x };
    kn_parts(n, kn_poison_part, &A, NULL);
}

static void kn_copy_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    (void)bad;
    memcpy(A->x + lo, A->a + lo, (hi - lo) * sizeof *A->x);
}

void kn_copy(float *dst, const float *src, size_t n)
{
    kn_args A = { .x = dst, .a = src };
    kn_parts(n, kn_copy_part, &A, NULL);
}

/* A part of kn_same: its bytes [4 lo, 4 hi), one failure when they differ. */
static void kn_same_part(const void *ctx, size_t lo, size_t hi, kn_bad *bad)
{
    const kn_args *A = ctx;
    if (memcmp(A->p + 4 * lo, A->q + 4 * lo, 4 * (hi - lo)) != 0) kn_note(bad, lo, 0, 0);
}

int kn_same(const float *a, const float *b, size_t n)
{
    kn_args A = { .p = (const unsigned char *)a, .q = (const unsigned char *)b };
    return kn_parts(n, kn_same_part, &A, NULL) == 0;
}

#include <limits.h>
#include <stdint.h>

/* The synthetic module. Its text, piece by piece: the header line, then for
 * each kernel i: KN_SYN_A <i> KN_SYN_B <i+1> KN_SYN_C. kn_synth_size counts
 * the same pieces, so the two cannot drift apart without kn_synth_source
 * noticing (it checks the bytes it wrote against kn_synth_size). */
#define KN_SYN_HEAD_A "// synthetic module: k = "
#define KN_SYN_HEAD_B ", kernels synth0 .. synth"
#define KN_SYN_HEAD_C ", out[j] = in[j] * (i + 1) + 1\n"
#define KN_SYN_A "extern \"C\" __global__ void synth"
#define KN_SYN_B "(const float *in, float *out, int n)\n{\n" \
                 "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n" \
                 "    if (j < n) out[j] = in[j] * "
#define KN_SYN_C ".0f + 1.0f;\n}\n"
#define KN_SLEN(s) (sizeof(s) - 1)

/* Saturating size_t arithmetic: SIZE_MAX stands for "too large to count". */
static size_t kn_sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t kn_sat_mul(size_t a, size_t b)
{
    return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* Decimal digits of v >= 0. */
static size_t kn_digits(long v)
{
    size_t d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* Total decimal digits of 1, 2, .., m (0 when m < 1). */
static size_t kn_digits_upto(long m)
{
    size_t total = 0, d = 1;
    long lo = 1;   /* the smallest number of d digits */
    while (lo <= m) {
        long hi = lo > LONG_MAX / 10 ? LONG_MAX : lo * 10 - 1;   /* the largest */
        if (hi >= m) return kn_sat_add(total, kn_sat_mul((size_t)(m - lo + 1), d));
        total = kn_sat_add(total, kn_sat_mul((size_t)(hi - lo + 1), d));
        lo = hi + 1;
        d++;
    }
    return total;
}

size_t kn_synth_size(long k)
{
    size_t size, per;
    if (k < 1) return 0;
    size = KN_SLEN(KN_SYN_HEAD_A) + kn_digits(k) + KN_SLEN(KN_SYN_HEAD_B) + kn_digits(k - 1) +
           KN_SLEN(KN_SYN_HEAD_C);
    per = KN_SLEN(KN_SYN_A) + KN_SLEN(KN_SYN_B) + KN_SLEN(KN_SYN_C);
    size = kn_sat_add(size, kn_sat_mul((size_t)k, per));
    /* the digits of i for i = 0 .. k-1: "0" plus those of 1 .. k-1 */
    size = kn_sat_add(size, kn_sat_add(1, kn_digits_upto(k - 1)));
    /* the digits of i + 1: those of 1 .. k */
    return kn_sat_add(size, kn_digits_upto(k));
}

/* Append n bytes of s at *pos in buf of cap bytes. Like snprintf, *pos
 * advances even when the bytes do not fit, and those are dropped. */
static void kn_put(char *buf, size_t cap, size_t *pos, const char *s, size_t n)
{
    if (*pos <= cap && n <= cap - *pos) memcpy(buf + *pos, s, n);
    *pos += n;
}

/* Append the decimal form of v. */
static void kn_put_long(char *buf, size_t cap, size_t *pos, long v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%ld", v);
    kn_put(buf, cap, pos, tmp, (size_t)n);
}

char *kn_synth_source(long k, char *why, size_t whylen)
{
    size_t size, pos = 0;
    char *buf;
    long i;

    if (k < 1) {
        snprintf(why, whylen, "synthetic module: k = %ld kernels; k must be at least 1", k);
        return NULL;
    }
    size = kn_synth_size(k);
    if (size > KN_SYNTH_MAX_SOURCE) {
        if (size == SIZE_MAX)
            snprintf(why, whylen, "synthetic module: k = %ld kernels would need a source too "
                     "large to count, over the %u MiB limit", k, KN_SYNTH_MAX_SOURCE >> 20);
        else
            snprintf(why, whylen, "synthetic module: k = %ld kernels would need %.2f MiB "
                     "(%zu bytes) of source, over the %u MiB (%u bytes) limit", k,
                     (double)size / (1024.0 * 1024.0), size, KN_SYNTH_MAX_SOURCE >> 20,
                     KN_SYNTH_MAX_SOURCE);
        return NULL;
    }
    buf = malloc(size + 1);
    if (!buf) {
        snprintf(why, whylen, "synthetic module: out of memory for %zu bytes of source", size + 1);
        return NULL;
    }
    /* The pieces add up to `size` by construction; kn_put drops what would
     * pass the buffer, and the count is checked after. */
    kn_put(buf, size, &pos, KN_SYN_HEAD_A, KN_SLEN(KN_SYN_HEAD_A));
    kn_put_long(buf, size, &pos, k);
    kn_put(buf, size, &pos, KN_SYN_HEAD_B, KN_SLEN(KN_SYN_HEAD_B));
    kn_put_long(buf, size, &pos, k - 1);
    kn_put(buf, size, &pos, KN_SYN_HEAD_C, KN_SLEN(KN_SYN_HEAD_C));
    for (i = 0; i < k && pos <= size; i++) {
        kn_put(buf, size, &pos, KN_SYN_A, KN_SLEN(KN_SYN_A));
        kn_put_long(buf, size, &pos, i);
        kn_put(buf, size, &pos, KN_SYN_B, KN_SLEN(KN_SYN_B));
        kn_put_long(buf, size, &pos, i + 1);
        kn_put(buf, size, &pos, KN_SYN_C, KN_SLEN(KN_SYN_C));
    }
    if (pos != size) {
        snprintf(why, whylen, "synthetic module: internal error: wrote %zu bytes, expected %zu",
                 pos, size);
        free(buf);
        return NULL;
    }
    buf[size] = '\0';
    return buf;
}

void kn_synth_name(long i, char *buf, size_t len)
{
    snprintf(buf, len, "synth%ld", i);
}

size_t kn_check_synth(long i, const float *in, const float *out, size_t n, kn_bad *bad)
{
    /* The source writes the factor as the literal "<i+1>.0f", which rounds
     * to the float nearest i + 1 (inexact above 2^24); so does this.
     * (float)LONG_MAX is already 2^63, the float nearest LONG_MAX + 1.) */
    double factor = (double)(i < LONG_MAX ? (float)(i + 1) : (float)i);
    size_t j;
    memset(bad, 0, sizeof *bad);
    for (j = 0; j < n; j++) {
        double want = (double)in[j] * factor + 1.0;
        if (kn_bad_elem(out[j], want)) kn_note(bad, j, out[j], want);
    }
    return bad->count;
}
