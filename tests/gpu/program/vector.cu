// vector.cu: the lesson's first program through the runtime API, built by
// nvcc, for -- CMD: vectorAdd and vectorScale on 16M floats, each checked
// on the host; exit 1 on a wrong element.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void vectorScale(float *c, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] *= s;
}

#define CK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); return 1; } } while (0)

int main(void)
{
    const int n = 1 << 24;
    size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    float *da, *db, *dc;
    int i, bad = 0;
    for (i = 0; i < n; i++) { a[i] = (float)i; b[i] = 2.0f * (float)i; }
    CK(cudaMalloc(&da, bytes));
    CK(cudaMalloc(&db, bytes));
    CK(cudaMalloc(&dc, bytes));
    CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    vectorAdd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CK(cudaGetLastError());
    vectorScale<<<(n + 255) / 256, 256>>>(dc, 0.5f, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    for (i = 0; i < n; i++)
        if (c[i] != 1.5f * (float)i) bad++;
    printf("vectorAdd then vectorScale on %d floats: %d wrong\n", n, bad);
    cudaFree(da); cudaFree(db); cudaFree(dc);
    free(a); free(b); free(c);
    return bad ? 1 : 0;
}
