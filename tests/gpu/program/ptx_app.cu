// ptx_app.cu: a program whose only device code is PTX for an older
// architecture (built with -gencode arch=compute_80,code=compute_80), so
// the driver JIT-compiles its kernels at their first use on a newer GPU,
// plus one library call (cuBLAS, which brings its own machine code). It
// times its own first launches (host clock around each launch and its
// synchronize, after the context exists) and prints them as one JSON line:
//   {"first_launch_ms": [k0, k1, k2, k3], "first_total_ms": sum,
//    "second_total_ms": the same launches again, "blas_first_ms": ...}
// so that a test can compare the JIT the harness measures with the one the
// program sees. Exit 1 on a CUDA or cuBLAS error, naming it.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "ptx_app: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// A long unrolled chain of arithmetic per element: a body the JIT takes a
// while to compile, different per instance.
template <int R, int S>
__global__ void chain(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = a * 0.5f + S, c = a - S;
#pragma unroll
    for (int k = 0; k < R; k++) {
        a = fmaf(a, b, c) * 0.999f + __sinf(b + k);
        b = fmaf(b, c, a) * 1.001f - __cosf(c - k * S);
        c = fmaf(c, a, b) + __expf(-fabsf(a)) * (k & 3);
    }
    x[i] = a + b + c;
}

template <int R, int S>
static double first(float *d, int n)
{
    double t = now_ms();
    chain<R, S><<<(n + 255) / 256, 256>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return now_ms() - t;
}

int main()
{
    const int n = 1 << 20;
    float *d;
    double ms[4], again = 0, total = 0, blas;
    CK(cudaFree(0));    // the context, before any timed launch
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemset(d, 0, n * sizeof(float)));
    ms[0] = first<512, 1>(d, n);
    ms[1] = first<768, 2>(d, n);
    ms[2] = first<1024, 3>(d, n);
    ms[3] = first<1280, 4>(d, n);
    for (int i = 0; i < 4; i++) total += ms[i];
    again += first<512, 1>(d, n) + first<768, 2>(d, n) + first<1024, 3>(d, n) + first<1280, 4>(d, n);

    cublasHandle_t h;
    const float one = 1.0f, zero = 0.0f;
    double t = now_ms();
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "ptx_app: cublasCreate failed\n"); return 1; }
    if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 512, 512, 512, &one, d, 512, d, 512, &zero, d + 262144, 512)
        != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "ptx_app: cublasSgemm failed\n"); return 1; }
    CK(cudaDeviceSynchronize());
    blas = now_ms() - t;
    cublasDestroy(h);
    CK(cudaFree(d));
    printf("{\"first_launch_ms\": [%.3f, %.3f, %.3f, %.3f], \"first_total_ms\": %.3f, "
           "\"second_total_ms\": %.3f, \"blas_first_ms\": %.3f}\n", ms[0], ms[1], ms[2], ms[3], total,
           again, blas);
    return 0;
}
