// fails.cu MODE: programs that fail or hang the way lazy loading's public
// reports do, each bounded so that none holds the GPU for long. MODE:
//   flag   a kernel spins on stream A until a second kernel, launched just
//          after it on stream B (both non-blocking), sets a flag; the spin is
//          bounded by the device's own clock (%globaltimer) to SPIN_S seconds.
//          Where the two never run together (the setter's first launch waits
//          for the spinner to end), the program exits 5 after SPIN_S.
//   hang   the same pair with the bound at HANG_S: a harness's --child-timeout
//          ends it first.
//   oom    takes all free device memory but MARGIN_MIB, then launches for the
//          first time a kernel whose module holds a BIG_MIB __device__ array:
//          under LAZY its load needs the memory then, and fails; under EAGER
//          it was loaded at start. Exits 2 on the failed launch.
//   segv   one CUDA call (a cudaMemset), then a write through a null pointer.
// Each prints its own times as one JSON line on stdout before it ends (flag:
// {"mode", "spin_s": the spinner's own time, "setter_launch_ms": the host
// time of the setter's first launch call, "released": 0 or 1}).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define SPIN_S 15.0
#define HANG_S 120.0
#define MARGIN_MIB 64
#define BIG_MIB 512

__device__ char big[(size_t)BIG_MIB << 20];

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// spinner: waits until *flag is set or limit_ns have passed; *took_ns the
// time it spun.
__global__ void spinner(volatile int *flag, unsigned long long limit_ns, unsigned long long *took_ns)
{
    unsigned long long t0 = now_ns();
    while (!*flag && now_ns() - t0 < limit_ns) {
    }
    *took_ns = now_ns() - t0;
}

__global__ void setter(volatile int *flag) { *flag = 1; }

__global__ void touch_big(int i) { big[i] = (char)i; }

static double ms_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

static int spin_pair(const char *mode, double limit_s)
{
    cudaStream_t a, b;
    int *flag;
    unsigned long long *took, took_h = 0;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&flag, sizeof *flag));
    CHECK(cudaMalloc(&took, sizeof *took));
    CHECK(cudaMemset(flag, 0, sizeof *flag));
    CHECK(cudaDeviceSynchronize());
    spinner<<<1, 1, 0, a>>>(flag, (unsigned long long)(limit_s * 1e9), took);
    auto t1 = std::chrono::steady_clock::now();
    setter<<<1, 1, 0, b>>>(flag);               // its first launch, stream A busy
    double launch = ms_since(t1);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(&took_h, took, sizeof took_h, cudaMemcpyDeviceToHost));
    int released = (double)took_h < limit_s * 1e9;
    std::printf("{\"mode\": \"%s\", \"spin_s\": %.3f, \"setter_launch_ms\": %.3f, \"released\": %d}\n",
                mode, (double)took_h / 1e9, launch, released);
    return released ? 0 : 5;
}

static int oom(void)
{
    size_t free_b = 0, total = 0;
    void *hold;
    CHECK(cudaFree(0));
    CHECK(cudaMemGetInfo(&free_b, &total));
    size_t take = free_b - ((size_t)MARGIN_MIB << 20);
    CHECK(cudaMalloc(&hold, take));
    touch_big<<<1, 1>>>(1);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    std::printf("{\"mode\": \"oom\", \"held_mib\": %zu, \"result\": \"%s\"}\n", take >> 20,
                cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 2;
}

static int segv(void)
{
    int *x;
    CHECK(cudaMalloc(&x, sizeof *x));
    CHECK(cudaMemset(x, 0, sizeof *x));
    std::printf("{\"mode\": \"segv\"}\n");
    std::fflush(stdout);
    volatile int *null = nullptr;
    *null = 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "flag";
    if (!std::strcmp(mode, "flag"))
        return spin_pair(mode, SPIN_S);
    if (!std::strcmp(mode, "hang"))
        return spin_pair(mode, HANG_S);
    if (!std::strcmp(mode, "oom"))
        return oom();
    if (!std::strcmp(mode, "segv"))
        return segv();
    std::fprintf(stderr, "fails: no mode %s (flag, hang, oom, segv)\n", mode);
    return 2;
}
