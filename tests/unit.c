/* unit.c: the CPU unit tests: runs every test file's entry point. */
#include <stdlib.h>
#include "testhelp.h"

int th_passed, th_failed;

int main(void)
{
    /* The tables are laid out for COLUMNS (tb_width): the width these
     * tests' expected lines were written for, whatever the caller's. */
    setenv("COLUMNS", "100", 1);
    test_stats();
    test_verdict();
    test_report();
    test_cli();
    test_kernels();
    test_lines();
    test_synth();
    test_fusion();
    test_fault();
    test_loading();
    test_firstlaunch();
    test_modfile();
    test_visible();
    test_timing();
    test_timing_rounds();
    test_precord();
    test_nvml();
    test_probe();
    test_kcache();
    test_untrusted();
    test_demangle();
    test_table();
    test_layout();
    test_squeeze();
    test_live();
    test_failures();
    test_rx();
    printf("unit: %d passed, %d failed\n", th_passed, th_failed);
    return th_failed ? 1 : 0;
}
