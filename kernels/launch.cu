// launch.cu: blockUntil, a kernel that holds its stream until the host sets a flag or time runs out.
// Launch it with one block of one thread. It spins until *flag != 0, with a
// short __nanosleep between reads (sm_70 and later), or until the GPU's
// %globaltimer has passed its start by limit_ns; then it writes
// *timed_out = 1 if the limit ended the wait, else 0. The flag lives in
// host memory mapped into the device (volatile: read afresh each time).

__device__ __forceinline__ unsigned long long globalTimerNs()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void blockUntil(volatile const int *__restrict__ flag,
                                      unsigned long long limit_ns, int *__restrict__ timed_out)
{
    unsigned long long start = globalTimerNs();
    int late = 0;

    while (*flag == 0) {
        if (globalTimerNs() - start > limit_ns) {
            late = 1;
            break;
        }
        __nanosleep(100);
    }
    *timed_out = late;
}

// smClockMHz: the SM clock where it runs, in MHz, into out[slot]. One block
// of one thread. It waits for an edge of %globaltimer (which advances in
// steps of up to 1 us on some GPUs), counts clock64() cycles until the timer
// has moved window_ns past that edge to another edge, and divides. Both ends
// sit on timer edges, so the step size does not bias the figure.
extern "C" __global__ void smClockMHz(float *__restrict__ out, unsigned slot,
                                      unsigned long long window_ns)
{
    unsigned long long g0 = globalTimerNs(), g1, g2;
    long long c0, c1;

    do { g1 = globalTimerNs(); } while (g1 == g0);
    c0 = clock64();
    do { g2 = globalTimerNs(); } while (g2 - g1 < window_ns);
    c1 = clock64();
    out[slot] = (float)((double)(c1 - c0) * 1000.0 / (double)(g2 - g1));
}
