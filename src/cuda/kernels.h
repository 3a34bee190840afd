/* kernels.h: the kernel registry: each kernel's source file (embedded at
 * build time, or read from --kernels-dir), its byte and flop model per
 * element, and its CPU reference in double precision. */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>

/* The largest kernel source accepted from disk. */
#define KN_MAX_SOURCE (16u << 20)

typedef struct kn_kernel {
    const char *name;        /* extern "C" name in the source */
    const char *file;        /* source file under kernels/ */
    double bytes_per_elem;   /* bytes the kernel names per element (reads + writes) */
    double flops_per_elem;   /* floating-point operations per element */
} kn_kernel;

/* The registry; kn_find returns NULL for an unknown name. */
extern const kn_kernel kn_all[];
extern const size_t kn_count;
const kn_kernel *kn_find(const char *name);

/* Source files, in a fixed order; kn_files[i] for i < kn_nfiles. */
extern const char *const kn_files[];
extern const size_t kn_nfiles;

/* The byte (flop) model of a sequence of launches: the sum of
 * bytes_per_elem (flops_per_elem) over the n named kernels, a name counted
 * once per appearance. NaN when a name is not in the registry; 0 for n = 0. */
double kn_bytes_of(const char *const *names, size_t n);
double kn_flops_of(const char *const *names, size_t n);

/* The embedded text of a source file, or NULL for an unknown file. */
const char *kn_embedded(const char *file);

/* The source of `file`: read from kernels_dir/file when kernels_dir is not
 * NULL, else a copy of the embedded text. Returns a malloc'd NUL-terminated
 * string; NULL with a one-line reason in why when the file is unknown,
 * missing, unreadable, not a regular file (a FIFO is refused at once, not
 * waited on), empty, or larger than KN_MAX_SOURCE. */
char *kn_source(const char *file, const char *kernels_dir, char *why, size_t whylen);

/* The synthetic module of part `loading`: K distinct kernels of one shape
 * in one source, named synth0 .. synth{K-1}; kernel i computes
 *   extern "C" __global__ void synth<i>(const float *in, float *out, int n)
 *   { out[j] = in[j] * (float)(i + 1) + 1.0f } for each j < n
 * (one float per thread, bounds check). */
#define KN_SYNTH_MAX_SOURCE (64u << 20)

/* The most kernels a synthetic module may have: NVRTC's time for one
 * compile of it grows about as K squared (to cubin, on a test host of two
 * shared cores: 500 kernels 1.5 s, 4000 32 s, 8000 105 s, 10000 185 s), and
 * 10000 stays within the default --child-timeout (300 s), the limit each
 * child that compiles it runs under. */
#define KN_SYNTH_MAX_K 10000

/* Bytes of the source kn_synth_source(k) returns (without the NUL). */
size_t kn_synth_size(long k);

/* Generate the source for k >= 1 kernels. Returns a malloc'd NUL-terminated
 * string; NULL with a reason in why when k < 1, the source would exceed
 * KN_SYNTH_MAX_SOURCE, or memory runs out. */
char *kn_synth_source(long k, char *why, size_t whylen);

/* The name of synthetic kernel i ("synth17") into buf. */
void kn_synth_name(long i, char *buf, size_t len);

/* The first element that failed a check, for the error line. */
typedef struct kn_bad {
    size_t count;            /* elements that failed */
    size_t first;            /* index of the first failure */
    double got, want;        /* its values */
} kn_bad;

/* Compare a float result with a double-precision CPU reference on every
 * element: |got - want| <= 1e-6 |want| (NaN never passes). Fills *bad and
 * returns the number of failures. */
size_t kn_check_add(const float *a, const float *b, const float *out, size_t n, kn_bad *bad);
size_t kn_check_scale(const float *a, float s, const float *out, size_t n, kn_bad *bad);
/* Synthetic kernel i: out = in * (i + 1) + 1. */
size_t kn_check_synth(long i, const float *in, const float *out, size_t n, kn_bad *bad);

/* vectorAdd's n, the lesson's: 64 MiB per buffer, an odd count so the
 * last block's bounds check fires. Section stopwatches times it at this n
 * (SW_N), and crossover's sizes end at it. */
#define KN_VECADD_N 16777827u

/* The fusion chain's sizes: the main n every version is timed at (64 MiB
 * per buffer; section launch times an empty kernel on its grid too) and
 * the odd n every version is validated at, so every bounds check fires. */
#define KN_CHAIN_MAIN_N 16777216u
#define KN_CHAIN_CHECK_N 1049187u

/* The fusion chain of kernels/fusion.cu in double precision:
 *   clamp(gelu(1.5 x + 0.25) + r, -3, 3), gelu(v) = 0.5 v (1 + tanh(0.7978845608028654
 *   (v + 0.044715 v^3))), with tanh from math.h. */
double kn_chain_ref(double x, double r);

/* Compare the output y of any version of the chain (staged, paired, fused,
 * wide) with kn_chain_ref on every element: |got - want| <= 1e-5 |want| +
 * 1e-6 (NaN never passes). Looser than kn_check_add's 1e-6 |want| because
 * the float chain rounds about ten times and the GPU's tanhf is not
 * correctly rounded (2 ulp in the CUDA guide), so float and double differ by
 * a few ulp of the intermediates: up to a few 1e-7 relative. The 1e-6
 * absolute term covers results near zero, where gelu(..) + r cancels and
 * the rounding of gelu's value (~1e-7 for |gelu| < 2) is large relative to
 * the sum. A real error (a wrong stage, constant or index) is off by far
 * more. Fills *bad and returns the number of failures. */
size_t kn_check_chain(const float *x, const float *r, const float *y, size_t n, kn_bad *bad);

/* The same check in two steps, for several outputs of one input: want[i] =
 * kn_chain_ref(x[i], r[i]) once (kn_chain_wants), then each y against it
 * (kn_check_chain_wants: the same tolerance, the same *bad and count). */
void kn_chain_wants(const float *x, const float *r, double *want, size_t n);
size_t kn_check_chain_wants(const double *want, const float *y, size_t n, kn_bad *bad);

/* The CPU versions the GPU is compared with: one thread, float, in order. */
void kn_cpu_add(const float *a, const float *b, float *out, size_t n);

/* Deterministic non-trivial inputs (never all zeros): x[i] in [-1, 1),
 * each from its index i and the seed alone. */
void kn_fill(float *x, size_t n, unsigned seed);

/* Poison an output with NaN, so an unwritten element fails its check. */
void kn_poison(float *x, size_t n);

/* dst[0..n) = src[0..n) (the two do not overlap). */
void kn_copy(float *dst, const float *src, size_t n);

/* 1 when a[0..n) and b[0..n) are equal bit for bit, else 0. */
int kn_same(const float *a, const float *b, size_t n);

/* The checks, kn_chain_wants, kn_fill, kn_poison, kn_copy and kn_same split an n of
 * at least two parts of 2^20 elements over up to t threads (1 to 8; the
 * default 8, never more than the CPUs online), the calling thread one of
 * them; their results are those of one pass in index order. A thread that
 * cannot be started leaves its part to the caller. kn_cpu_add is always
 * one thread. Not thread-safe itself: set it before any check runs. */
void kn_host_threads(unsigned t);

#endif
