/* clock.c: the host's monotonic clock, read with clock_gettime. */
#include "os/clock.h"

#include <time.h>

double clk_now_ms(void)
{
    return (double)clk_now_ns() / 1e6;
}

long long clk_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
