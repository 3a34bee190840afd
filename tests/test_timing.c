/* test_timing.c: unit tests of tm_batch (src/timing.c), the batch a work's
 * calibration regions give, against values worked out by hand. */
#include "testhelp.h"
#include "timing.h"

#include <math.h>

void test_timing(void)
{
    /* One unit of 4.4 us (H200: a launch-bound kernel of a few us, behind
     * one untimed unit): 10 / 4.4 = 2.27, so 3 units a region. */
    static const double steady[] = { 0.0044, 0.0043, 0.0045, 0.0044, 0.0044,
                                     0.0043, 0.0044, 0.0046, 0.0044 };
    /* The same with two slow regions (a glitch, 12 us and 5.2 us): one
     * sample would give 1 or 2, the median of nine still 3. */
    static const double glitch[] = { 0.0120, 0.0043, 0.0045, 0.0052, 0.0044,
                                     0.0043, 0.0044, 0.0046, 0.0044 };
    /* And fast ones: one region of 3.2 us alone would give 4. */
    static const double fast[] = { 0.0032, 0.0044, 0.0045, 0.0044, 0.0031 };
    static const double even[] = { 0.004, 0.006 };      /* median 5 us: exactly 2 */
    static const double one_ms[] = { 1.2 };             /* a long unit: 1 */
    static const double zero[] = { 0.0, 0.0, 0.0 };     /* a clock too coarse */
    static const double tiny[] = { 1e-9 };              /* 0.010 / 1e-9 = 1e7: clamped */
    static const double bad[] = { NAN, NAN, NAN };

    th_check("timing: tm_batch of nine regions near 4.4 us is 3",
             tm_batch(steady, 9) == 3);
    th_check("timing: tm_batch is the median's: two slow regions of nine leave it 3",
             tm_batch(glitch, 9) == 3);
    th_check("timing: tm_batch of the first glitch alone would be 1 (what the median guards against)",
             tm_batch(glitch, 1) == 1);
    th_check("timing: tm_batch: two fast regions of five leave it 3",
             tm_batch(fast, 5) == 3 && tm_batch(fast, 1) == 4);
    th_check("timing: tm_batch of an even count uses the middle two's mean (5 us: 2)",
             tm_batch(even, 2) == 2);
    th_check("timing: tm_batch of a unit of 1.2 ms is 1", tm_batch(one_ms, 1) == 1);
    th_check("timing: tm_batch of regions of 0 is 1000, of NaN 1000",
             tm_batch(zero, 3) == 1000 && tm_batch(bad, 3) == 1000);
    th_check("timing: tm_batch is clamped to 100000", tm_batch(tiny, 1) == 100000);
    th_check("timing: tm_batch of 0 regions or more than TM_CALIBRATE is 1",
             tm_batch(steady, 0) == 1 && tm_batch(steady, TM_CALIBRATE + 1) == 1);
    th_check("timing: tm_batch leaves its input as it was",
             glitch[0] == 0.0120 && glitch[3] == 0.0052 && fast[4] == 0.0031);
}
