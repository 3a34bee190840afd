// copy.cu: device-to-device copy kernels, the floor that bandwidth figures are
// judged against. copyFloat moves one float per thread per step, copyFloat4
// sixteen bytes; both loop over the array with a grid-wide stride.
extern "C" __global__ void copyFloat(const float *in, float *out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

// n4 counts float4s: the caller copies n % 4 trailing floats with copyFloat.
extern "C" __global__ void copyFloat4(const float4 *in, float4 *out, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
        out[i] = in[i];
}
