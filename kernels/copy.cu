// copy.cu: device-to-device copy kernels, the floor that bandwidth figures are
// judged against. copyFloat moves one float per thread per step, copyFloat2
// eight bytes, copyFloat4 sixteen; all loop over the array with a grid-wide
// stride.
extern "C" __global__ void copyFloat(const float *in, float *out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

// n2 counts float2s: the caller copies a trailing odd float with copyFloat.
extern "C" __global__ void copyFloat2(const float2 *in, float2 *out, size_t n2)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += stride)
        out[i] = in[i];
}

// n4 counts float4s: the caller copies n % 4 trailing floats with copyFloat.
extern "C" __global__ void copyFloat4(const float4 *in, float4 *out, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
        out[i] = in[i];
}
