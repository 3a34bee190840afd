// fusion.cu: a chain of four elementwise stages as 4 kernels, 2 pairs, 1 fused kernel, K-wide fused.
// y = clampRange(addResidual(gelu(scaleBias(x)), r)). Every kernel calls the
// same four stage functions, so all versions do the same float arithmetic in
// the same order. Not always bit for bit: where gelu and addResidual meet in
// one kernel (chainFused, chainFusedWide) the compiler may contract gelu's
// last multiply and the residual add into one FMA (-fmad=true, the default),
// one rounding fewer than the staged and paired kernels, which store gelu's
// result first. One element per thread (256 threads per block) except
// chainFusedWide<K>, which gives each thread K elements a whole grid apart:
// launch it with ceil(n / (256 K)) blocks of 256.

__device__ __forceinline__ float scaleBias(float x)
{
    return x * 1.5f + 0.25f;
}

// The tanh form of GELU.
__device__ __forceinline__ float gelu(float x)
{
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}

__device__ __forceinline__ float addResidual(float v, float r)
{
    return v + r;
}

__device__ __forceinline__ float clampRange(float v)
{
    return fminf(fmaxf(v, -3.0f), 3.0f);
}

// The four stages, one kernel each: t1, t2 and t3 go through global memory.
extern "C" __global__ void stageScaleBias(const float *__restrict__ x, float *__restrict__ t1,
                                          size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) t1[i] = scaleBias(x[i]);
}

extern "C" __global__ void stageGelu(const float *__restrict__ t1, float *__restrict__ t2, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) t2[i] = gelu(t1[i]);
}

extern "C" __global__ void stageAddResidual(const float *__restrict__ t2,
                                            const float *__restrict__ r,
                                            float *__restrict__ t3, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) t3[i] = addResidual(t2[i], r[i]);
}

extern "C" __global__ void stageClamp(const float *__restrict__ t3, float *__restrict__ y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = clampRange(t3[i]);
}

// Two kernels of two stages each: one intermediate t goes through memory.
extern "C" __global__ void pairScaleGelu(const float *__restrict__ x, float *__restrict__ t,
                                         size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) t[i] = gelu(scaleBias(x[i]));
}

extern "C" __global__ void pairResidualClamp(const float *__restrict__ t,
                                             const float *__restrict__ r,
                                             float *__restrict__ y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = clampRange(addResidual(t[i], r[i]));
}

// The whole chain in one kernel: read x and r, write y, nothing in between.
extern "C" __global__ void chainFused(const float *__restrict__ x, const float *__restrict__ r,
                                      float *__restrict__ y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = clampRange(addResidual(gelu(scaleBias(x[i])), r[i]));
}

// The fused chain with K elements per thread, a whole grid apart (so each
// warp's accesses stay coalesced). Three separate unrolled loops keep all K
// values live at once: the loads of loop 1 are all in flight before the
// first tanh. Not extern "C": instantiate it with the name expressions
// chainFusedWide<1>, <2>, ... and get the lowered (mangled) names from NVRTC.
template <int K>
__global__ void chainFusedWide(const float *__restrict__ x, const float *__restrict__ r,
                               float *__restrict__ y, size_t n)
{
    size_t base = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float v[K];

#pragma unroll
    for (int k = 0; k < K; k++) {
        size_t i = base + (size_t)k * stride;
        v[k] = (i < n) ? scaleBias(x[i]) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        size_t i = base + (size_t)k * stride;
        v[k] = addResidual(gelu(v[k]), (i < n) ? r[i] : 0.0f);
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        size_t i = base + (size_t)k * stride;
        if (i < n) y[i] = clampRange(v[k]);
    }
}
