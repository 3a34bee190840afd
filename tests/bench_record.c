/* bench_record.c: how long the program record's reader (prc_read) takes on
 * records at the size cap (PRC_MAX_BYTES), of the shapes a program could
 * leave: a whole record whose spans and command fill the cap, and records
 * of many short lines of each kind (figures, env fields, slowest entries,
 * spans past their count), which are refused. Prints one line per shape;
 * exits 1 when one takes LIMIT seconds or more (argv[1], default 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe/precord.h"

/* The header of a record of pid 77 with the schema's fields; its "command"
 * field cmdlen bytes long. */
static size_t bench_head(char *b, size_t cap, size_t cmdlen)
{
    size_t n = (size_t)snprintf(b, cap, "env\trecord\ts\t%s\nenv\tversion\ts\t%s\nenv\tpid\tn\t77\n"
                                "env\tppid\tn\t1\nenv\tcommand\ts\t", PRC_FORMAT, HARNESS_VERSION);
    memset(b + n, 'x', cmdlen);
    n += cmdlen;
    n += (size_t)snprintf(b + n, cap - n, "\nm\tprogram\tat.probe\tp\tr\tprocess\tms\t1\t0\t0\t0\t"
                          "1.5\t0\t0\t0\t\n");
    return n;
}

static double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    static const char *const shapes[] = {
        "a whole record: 100000 spans, the command filling the rest",
        "figure lines (m), each a new key", "env lines, each a new field",
        "slowest entries (d)", "span lines past their count", "one line",
        "one figure line of millions of samples",
    };
    double limit = argc > 1 ? atof(argv[1]) : 1.0, worst = 0;
    size_t cap = PRC_MAX_BYTES, k;
    char *b = malloc(cap + 256), why[300];
    int bad = 0;

    if (!b) return 2;
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t n = 0, lines = 0, i = 0;
        prc_record rec;
        double t0, t;
        int rc;
        if (k == 0) {
            n = bench_head(b, cap, cap - 100000 * 40 - 2000);
            for (i = 0; i < PRC_MAX_SPANS; i++)
                n += (size_t)snprintf(b + n, cap + 256 - n, "span\t77\tcuLaunchKernel\t%zu.5\t0.25\n",
                                      i % 100000);
            n += (size_t)snprintf(b + n, cap + 256 - n, "end\t77\t6\n");
            lines = PRC_MAX_SPANS + 7;
        } else if (k == 5) {
            memset(b, 'm', cap);
            n = cap;
            lines = 1;
        } else if (k == 6) {
            n = bench_head(b, cap, 10);
            n += (size_t)snprintf(b + n, cap - n, "m\tprogram\tat.exit\tp\tr\tprocess\tms\t1\t0\t0\t0\t1");
            while (n + 64 < cap) {
                memcpy(b + n, ",1", 2);
                n += 2;
            }
            n += (size_t)snprintf(b + n, cap + 256 - n, "\t0\t0\t0\t\nend\t77\t7\n");
            lines = 8;
        } else {
            n = bench_head(b, cap, 10);
            while (n + 128 < cap) {
                n += (size_t)(k == 1 ? snprintf(b + n, 128, "m\tprogram\tk%zu\tp\tr\tprocess\tms\t1\t0\t0\t"
                                                "0\t1\t0\t0\t0\t\n", i)
                            : k == 2 ? snprintf(b + n, 128, "env\tf%zu\tn\t1\n", i)
                            : k == 3 ? snprintf(b + n, 128, "d\tprogram\tslowest.%zu\tk\t1\tms\t\t\n", i)
                                     : snprintf(b + n, 128, "span\t77\tcuInit\t1\t1\n"));
                i++;
            }
            n += (size_t)snprintf(b + n, cap + 256 - n, "end\t77\t%zu\n", k == 4 ? 6 : i + 6);
            lines = i + 7;
        }
        t0 = bench_now();
        rc = prc_read(b, n, 77, &rec, why, sizeof why);
        t = bench_now() - t0;
        if (rc == 0) prc_free(&rec);
        printf("%-62s %8.1f MiB %8zu lines  %7.3f s  %s%s\n", shapes[k], (double)n / 1048576.0, lines,
               t, rc == 0 ? "read" : "refused: ", rc == 0 ? "" : why);
        if (t > worst) worst = t;
        if (t >= limit) bad = 1;
    }
    printf("slowest %.3f s (limit %.1f s)\n", worst, limit);
    free(b);
    return bad;
}
