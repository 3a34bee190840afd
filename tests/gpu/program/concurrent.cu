// concurrent.cu: the CUDA Programming Guide's lazy-loading concurrency
// hazard, bounded so that it cannot deadlock: a kernel spins for about
// SPIN_MS on stream A, and while it runs a kernel never launched before is
// launched on stream B. Under LAZY that launch loads its kernel; where the
// load waits for the context's work, the launch (or the kernel's end)
// comes after the spin. The program prints its own times as one JSON line:
// {"spin_ms": S, "launch_ms": host time of the consumer's first launch,
//  "done_ms": from that launch to the consumer's end}.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define SPIN_MS 200.0

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

__global__ void consumer(int *x) { *x = 1; }

static double ms_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

int main()
{
    cudaStream_t a, b;
    int *x, khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&x, sizeof *x));
    spin<<<1, 1, 0, a>>>(1000);                 // the first kernel: spin loaded, the context ready
    CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    spin<<<1, 1, 0, a>>>((long long)(SPIN_MS * khz));   // khz cycles a ms
    auto t1 = std::chrono::steady_clock::now();
    consumer<<<1, 1, 0, b>>>(x);                // its first launch, stream A busy
    double launch = ms_since(t1);
    CHECK(cudaStreamSynchronize(b));
    double done = ms_since(t1);
    CHECK(cudaDeviceSynchronize());
    std::printf("{\"spin_ms\": %.3f, \"launch_ms\": %.3f, \"done_ms\": %.3f}\n", ms_since(t0), launch, done);
    return 0;
}
