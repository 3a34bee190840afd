/* section.c: the table of sections. */
#include "section.h"

/* ---------------------------------------------------------- the table --- */

/* visible first: its children must start before this process loads libcuda
 * (every other section does). */
const sec_def sec_table[CLI_NSECTIONS] = {
    { "visible", sec_visible, vi_print, { CLI_CHILD_VISIBLE }, sec_visible_child, 1, NULL },
    { "stopwatches", sec_stopwatches, sw_print, { CLI_CHILD_WATERFALL, CLI_CHILD_FIRST },
      sec_stopwatches_child, 0, sw_answers },
    { "crossover", sec_crossover, xo_print, { CLI_CHILD_NONE }, NULL, 0, NULL },
    { "loading", sec_loading, ld_print, { CLI_CHILD_NONE }, NULL, 0, ld_answers },
    { "jit", sec_jit, jt_print,
      { CLI_CHILD_JIT_FIRST, CLI_CHILD_JIT_LOAD, CLI_CHILD_JIT_OPT, CLI_CHILD_ORDER_INIT,
        CLI_CHILD_ORDER_COMPILE }, sec_jit_child, 0, jt_answers },
    { "launch", sec_launch, la_print,
      { CLI_CHILD_SCHED_SPIN, CLI_CHILD_SCHED_YIELD, CLI_CHILD_SCHED_BLOCKING }, sec_launch_child, 0,
      la_answers },
    { "fusion", sec_fusion, fs_print, { CLI_CHILD_NONE }, NULL, 0, fs_answers },
};

const char *const *sec_names(void)
{
    static const char *names[CLI_NSECTIONS];
    size_t i;

    for (i = 0; i < CLI_NSECTIONS; i++) names[i] = sec_table[i].name;
    return names;
}

const sec_def *sec_of_child(cli_child k)
{
    size_t i, j;

    if (k == CLI_CHILD_NONE) return NULL;
    for (i = 0; i < CLI_NSECTIONS; i++)
        for (j = 0; j < SEC_MAX_CHILDREN && sec_table[i].children[j] != CLI_CHILD_NONE; j++)
            if (sec_table[i].children[j] == k) return &sec_table[i];
    return NULL;
}
