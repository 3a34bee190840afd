/* clock.h: the host's monotonic clock (CLOCK_MONOTONIC); depends on libc only. */
#ifndef CLOCK_H
#define CLOCK_H

/* CLOCK_MONOTONIC now, in milliseconds and in nanoseconds. Never fails
 * (clock_gettime with CLOCK_MONOTONIC cannot fail on Linux). */
double clk_now_ms(void);
long long clk_now_ns(void);

#endif
