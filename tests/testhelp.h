/* testhelp.h: a tiny check runner in the style of sds's testhelp.h. Each
 * check prints PASSED or FAILED with its description; tests/run.sh counts
 * those lines and prints the final "N passed, N failed". */
#ifndef TESTHELP_H
#define TESTHELP_H

#include <stdio.h>

extern int th_passed, th_failed;

#define th_check(desc, cond) do {                                          \
        if (cond) { th_passed++; printf("PASSED %s\n", (desc)); }          \
        else { th_failed++;                                                \
               printf("FAILED %s (%s:%d)\n", (desc), __FILE__, __LINE__); }\
        fflush(stdout);                                                    \
    } while (0)

/* Each test file exposes one entry point, called by tests/unit.c. */
void test_stats(void);
void test_verdict(void);
void test_report(void);
void test_cli(void);
void test_kernels(void);
void test_lines(void);
void test_synth(void);
void test_fusion(void);
void test_fault(void);
void test_loading(void);
void test_firstlaunch(void);
void test_modfile(void);
void test_visible(void);
void test_table(void);
void test_layout(void);
void test_timing(void);
void test_timing_rounds(void);
void test_precord(void);
void test_nvml(void);
void test_probe(void);
void test_kcache(void);
void test_untrusted(void);
void test_demangle(void);
void test_live(void);
void test_failures(void);
void test_squeeze(void);
void test_rx(void);

#endif
