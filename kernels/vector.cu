// vector.cu: the lesson's two kernels, one float per thread, launched with
// 256 threads per block; the bounds check keeps the last block inside n.
extern "C" __global__ void vectorAdd(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

extern "C" __global__ void vectorScale(const float *a, float *out, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * a[i];
}
