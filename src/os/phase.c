/* phase.c: the run's phase, its log (HARNESS_PHASE_LOG) and its hook. */
#include "os/phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "os/clock.h"

static const char *ph_now = "setup";
static void (*ph_hook)(const char *);

void ph_on_set(void (*fn)(const char *))
{
    ph_hook = fn;
}

/* HARNESS_PHASE_LOG: the file every process of the run appends its phases
 * to (opened once per process; NULL when unset or it cannot be opened). */
static FILE *ph_file(void)
{
    static FILE *f;
    static int tried;
    const char *path;
    if (tried) return f;
    tried = 1;
    if ((path = getenv("HARNESS_PHASE_LOG")) != NULL && *path && (f = fopen(path, "a")) != NULL)
        setvbuf(f, NULL, _IOLBF, 0);
    return f;
}

void ph_mark(const char *what)
{
    FILE *log = ph_file();
    if (log) fprintf(log, "%ld\t%.3f\t%s\n", (long)getpid(), clk_now_ms(), what);
}

void ph_set(const char *phase)
{
    FILE *log = ph_file();
    ph_now = phase ? phase : "setup";
    if (log) fprintf(log, "%ld\t%.3f\t%s\n", (long)getpid(), clk_now_ms(), phase ? phase : "-");
    if (ph_hook) ph_hook(phase);
}

const char *ph_get(void)
{
    return ph_now;
}
