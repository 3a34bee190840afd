/* program_table.c: the tables of the user's own program (-- CMD): each
 * figure per side with its interval and the verdict, the probe's own cost,
 * each process where there are several, the slowest first uses and the
 * sentences. Reads the results only. */
#include <math.h>
#include <string.h>

#include "core/answer.h"
#include "cuda/demangle.h"
#include "probe/precord.h"
#include "run/table.h"
#include "sections/program/program.h"
#include "sections/program/figures.h"
#include "sections/program/program_device.h"
#include "sections/program/setting.h"

/* The sides the table shows (the env fields program_side<i>_key and
 * _label): the first program_settings ones (probed where the probe was,
 * else bare), at most PG_MAX_SIDES; the count. */
static size_t ptb_sides(const results *r, const char **key, const char **label)
{
    size_t n = (size_t)tb_env_num(r, "program_settings"), i, got = 0;
    if (!(n >= 1 && n <= PG_MAX_SIDES / 2)) return 0;
    for (i = 0; i < n; i++) {
        char k[64], l[64];
        snprintf(k, sizeof k, "program_side%zu_key", i + 1);
        snprintf(l, sizeof l, "program_side%zu_label", i + 1);
        key[got] = tb_env_str(r, k, NULL);
        label[got] = tb_env_str(r, l, "?");
        if (key[got]) got++;
    }
    return got;
}

/* A value in its unit's format into buf. */
static const char *ptb_fmt(char *buf, size_t len, double v, const char *unit)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else if (strcmp(unit, "count") == 0 || strcmp(unit, "MiB") == 0 || fabs(v) >= 100)
        snprintf(buf, len, "%.0f", v);
    else snprintf(buf, len, "%.2f", v);
    return buf;
}

/* One cell: the median and its interval, "330 [321, 345]"; padded to its
 * column unless it ends the line. */
static void ptb_cell(FILE *f, const res_meas *m, int pad)
{
    char a[32], b[32], c[32], cell[100];
    if (!m)
        snprintf(cell, sizeof cell, "-");
    else if (m->stats.n < 2)
        snprintf(cell, sizeof cell, "%s", ptb_fmt(a, sizeof a, m->stats.median, m->unit));
    else
        snprintf(cell, sizeof cell, "%s [%s, %s]", ptb_fmt(a, sizeof a, m->stats.median, m->unit),
                 ptb_fmt(b, sizeof b, m->stats.ci_low, m->unit),
                 ptb_fmt(c, sizeof c, m->stats.ci_high, m->unit));
    fprintf(f, pad ? " %-26s" : " %s", cell);
}

/* The verdict of side i against the first: with two sides
 * "compare.<prefix><key>" ("bare." for bare sides), with more
 * "compare.<side>.<key>"; NULL where there is none. */
static const res_derived *ptb_verdict(const results *r, const char *prefix, const char **sides,
                                      size_t n, size_t i, const char *key)
{
    char k[160];
    if (n == 2)
        snprintf(k, sizeof k, "compare.%s%s%s", prefix[0] == 'p' ? prefix : "",
                 strncmp(sides[0], "bare.", 5) == 0 ? "bare." : "", key);
    else
        snprintf(k, sizeof k, "compare.%s.%s", sides[i], key);
    return res_derived_find(r, PG, k);
}

/* One figure's row over the sides, and its verdicts when there are (each
 * later side against the first); no line ends in spaces. */
static void ptb_row(FILE *f, const results *r, const char *prefix, const char **sides, size_t n,
                   const char *key, const char *name, const char *unit)
{
    char k[160];
    const res_meas *cell[PG_MAX_SIDES];
    const res_derived *verdict[PG_MAX_SIDES] = { NULL };
    size_t i, any = 0, verdicts = 0;
    for (i = 0; i < n && i < PG_MAX_SIDES; i++) {
        snprintf(k, sizeof k, "%s%s.%s", prefix, sides[i], key);
        any |= (cell[i] = res_find(r, PG, k)) != NULL;
        if (i > 0) verdicts += (verdict[i] = ptb_verdict(r, prefix, sides, n, i, key)) != NULL;
    }
    if (!any) return;
    fprintf(f, "  %-*s %-5s", PRC_NAME_WIDTH, name, unit);
    for (i = 0; i < n && i < PG_MAX_SIDES; i++) ptb_cell(f, cell[i], verdicts > 0 || i + 1 < n);
    for (i = 1; i < n && i < PG_MAX_SIDES; i++) {
        if (verdict[i]) fprintf(f, " %s", verdict[i]->text);
        if (n > 2 && i + 1 < n) fprintf(f, ";");
    }
    fprintf(f, "\n");
}

static void ptb_header(FILE *f, const char **label, size_t n, int verdict)
{
    size_t i;
    fprintf(f, "  %-*s %-5s", PRC_NAME_WIDTH, "figure", "unit");
    for (i = 0; i < n; i++)
        fprintf(f, i + 1 < n || (verdict && n >= 2) ? " %-26.26s" : " %.26s", label[i]);
    if (verdict && n >= 2) {
        fprintf(f, " ");
        for (i = 1; i < n; i++) fprintf(f, "%s%s against %s", i > 1 ? "; " : "", label[i], label[0]);
    }
    fprintf(f, "\n");
}

/* Every figure of the runs, per side. */
static void ptb_figures(FILE *f, const results *r, const char **side, const char **label, size_t n,
                       const char *prefix)
{
    size_t i;
    ptb_header(f, label, n, n >= 2);
    for (i = 0; i < PGF_N; i++)
        ptb_row(f, r, prefix, side, n, pgf_figs[i].key, pgf_figs[i].name, pgf_figs[i].unit);
    for (i = 0; i < PRC_NFIGS; i++)
        ptb_row(f, r, prefix, side, n, prc_figs[i].key, prc_figs[i].name, prc_figs[i].unit);
}

/* The probe's own cost: bare against probed per mode. */
static void ptb_cost(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    static const char *const says[PGF_NCOST] = { "whole process, ms", "host CPU time, ms",
                                                  "device memory peak, MiB" };
    size_t i, j, shown = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < PGF_NCOST; j++) {
            char k[128], a[32], b[32];
            const res_derived *d;
            snprintf(k, sizeof k, PGF_COST_PREFIX "%s.%s", side[i], pgf_figs[pgf_cost[j]].key);
            if (!(d = res_derived_find(r, PG, k))) continue;
            if (!shown++) fprintf(f, "\n  the probe's own cost: the same program bare (no probe) "
                                  "against probed, medians\n");
            fprintf(f, "  %-8s %-26s bare %10s  probed %10s  %+8.2f%%  %s\n", label[i], says[j],
                    ptb_fmt(a, sizeof a, res_derived_num(d, "bare_median"), pgf_figs[pgf_cost[j]].unit),
                    ptb_fmt(b, sizeof b, res_derived_num(d, "probed_median"), pgf_figs[pgf_cost[j]].unit),
                    res_derived_num(d, "pct_of_bare"), d->text);
        }
}

/* The figure of place k among the rows per process (prc_fig's and
 * pgf_fig's proc) into key, name and unit; 0 when no figure has it. */
static int ptb_proc_fig(int k, const char **key, const char **name, const char **unit)
{
    size_t i;
    for (i = 0; i < PRC_NFIGS; i++)
        if (prc_figs[i].proc == k) {
            *key = prc_figs[i].key, *name = prc_figs[i].name, *unit = prc_figs[i].unit;
            return 1;
        }
    for (i = 0; i < PGF_N; i++)
        if (pgf_figs[i].proc == k) {
            *key = pgf_figs[i].key, *name = pgf_figs[i].name, *unit = pgf_figs[i].unit;
            return 1;
        }
    return 0;
}

/* Each process where a run had several: the figures with a place among
 * the rows per process, in that order. */
static void ptb_processes(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    size_t p, i;
    for (p = 1; p <= PG_MAX_PROCS; p++) {
        char prefix[32], env[64], k[128];
        const char *key, *name, *unit;
        int any = 0, place;
        snprintf(prefix, sizeof prefix, "proc%zu.", p);
        for (i = 0; i < n && !any; i++) {
            snprintf(k, sizeof k, "proc%zu.%s.%s", p, side[i], PRC_KEY(AT_PROBE));
            any = res_find(r, PG, k) != NULL;
        }
        if (!any) break;
        snprintf(env, sizeof env, "program_proc%zu_command", p);
        fprintf(f, "\n  process %zu (%s), in the runs that had several CUDA processes\n", p,
                tb_env_str(r, env, "?"));
        ptb_header(f, label, n, n >= 2);
        for (place = 1; ptb_proc_fig(place, &key, &name, &unit); place++)
            ptb_row(f, r, prefix, side, n, key, name, unit);
    }
}

/* "in 7 runs", or "in 7 runs, 28 times" where the name came more than
 * once a run (bursts of loads, several processes); times absent in a file
 * from before it was kept. */
static const char *ptb_runs(const res_derived *d, char *buf, size_t len)
{
    double runs = res_derived_num(d, "runs"), times = res_derived_num(d, "times");
    if (!isnan(times) && times > runs)
        snprintf(buf, len, "in %.0f run%s, %.0f times", runs, runs == 1 ? "" : "s", times);
    else
        snprintf(buf, len, "in %.0f run%s", runs, runs == 1 ? "" : "s");
    return buf;
}

/* The slowest first uses per side, each kernel's name demangled and cut to
 * PTB_NAME_WIDTH (demangle.h says how). */
#define PTB_NAME_WIDTH 72
static void ptb_slowest(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    size_t i, k;
    for (i = 0; i < n; i++)
        for (k = 1; k <= PRC_SLOWEST; k++) {
            char key[64], name[PTB_NAME_WIDTH + 1], runs[48];
            const res_derived *d;
            pgf_rank_key(PGF_D_SLOWEST, side[i], k, key, sizeof key);
            if (!(d = res_derived_find(r, PG, key))) break;
            if (k == 1) fprintf(f, "\n  %s: the slowest first uses (get + first launch, host time; "
                                "median over the times it came)\n", label[i]);
            /* text: the name demangled (a file before it: empty, the name itself). */
            dm_shorten(d->text && d->text[0] ? d->text : d->name, PTB_NAME_WIDTH, name, sizeof name);
            fprintf(f, "  %2zu. %8.3f ms = %.3f + %.3f  %s  %s\n", k, d->value,
                    res_derived_num(d, "get_ms"), res_derived_num(d, "launch_ms"),
                    ptb_runs(d, runs, sizeof runs), name);
        }
}

/* The first uses after the program was ready, per side. */
static void ptb_ready(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    size_t i, k;
    for (i = 0; i < n; i++)
        for (k = 1; k <= 10; k++) {
            char key[96], name[PTB_NAME_WIDTH + 1], runs[48];
            const res_derived *d;
            pgf_rank_key(PGF_D_READY_RANK, side[i], k, key, sizeof key);
            if (!(d = res_derived_find(r, PG, key))) break;
            if (k == 1) fprintf(f, "\n  %s: first uses after ready (stall: get + first launch, host "
                                "time; when: ms after ready; medians over the times it came)\n", label[i]);
            dm_shorten(d->text && d->text[0] ? d->text : d->name, PTB_NAME_WIDTH, name, sizeof name);
            fprintf(f, "  %2zu. %8.3f ms stall  %9.1f ms after ready  %s  %s\n", k, d->value,
                    res_derived_num(d, "after_ms"), ptb_runs(d, runs, sizeof runs), name);
        }
}

/* "N runs a side" into buf: the rounds taken where the run recorded them
 * (sequential stopping can take more than --rounds), else --rounds; the bare
 * sides run in the first --rounds only (the probe's cost), said so. */
static void pg_runs_a_side(char *buf, size_t len, const results *r)
{
    double taken = tb_env_num(r, "program_rounds_taken"), rounds = tb_env_num(r, "program_rounds");
    int bare = strstr(tb_env_str(r, "program_sides", ""), "bare") != NULL;

    if (isnan(taken)) taken = rounds;
    if (bare && taken > rounds)
        snprintf(buf, len, "%.0f runs a side (the bare sides in the first %.0f)", taken, rounds);
    else
        snprintf(buf, len, "%.0f runs a side", taken);
}

void pg_print(FILE *f, const results *r)
{
    const char *side[PG_MAX_SIDES], *label[PG_MAX_SIDES];
    size_t n = ptb_sides(r, side, label), i;
    const char *out = tb_env_str(r, "program_output", NULL), *nvml;
    const char *sq = tb_env_str(r, "program_squeeze", NULL);
    int search = sq && strcmp(sq, "auto") == 0;

    if (!res_env_get(r, "program_command")) return;
    fprintf(f, "\nprogram: %s\n", tb_env_str(r, "program_command", "?"));
    nvml = tb_env_str(r, "program_nvml", "?");
    /* The reason NVML gives names it already ("NVML not available: ..."). */
    if (search)
        tb_wrap(f, "  ", "  ", tb_width(), "The runs are --squeeze=auto's search, each a fresh process "
                "(sides %s), one run a margin; no figure is measured. Probe: %s; CUPTI: %s; device "
                "memory: %s%s.", tb_env_str(r, "program_sides", "?"),
                tb_env_str(r, "program_probe", "not found"), tb_env_str(r, "program_cupti", "not found"),
                strncmp(nvml, "NVML", 4) == 0 ? "" : "NVML ", nvml);
    else {
        char runs[96];
        pg_runs_a_side(runs, sizeof runs, r);
        tb_wrap(f, "  ", "  ", tb_width(), "%s, each a fresh process, every side once a round (%s), "
                "in an order where each side follows every other equally often; medians over the runs that exited 0 [95%% interval, or the "
                "range below 6 runs]. Probe: %s; CUPTI: %s; device memory: %s%s.",
                runs, tb_env_str(r, "program_sides", "?"),
                tb_env_str(r, "program_probe", "not found"), tb_env_str(r, "program_cupti", "not found"),
                strncmp(nvml, "NVML", 4) == 0 ? "" : "NVML ", nvml);
    }
    pgd_print(f, r);
    if (tb_env_str(r, "program_setting", NULL))
        fprintf(f, "  the sides set %s\n", tb_env_str(r, "program_setting", ""));
    for (i = 0; i < n; i++) {
        char k[64];
        snprintf(k, sizeof k, "program_side%zu_command", i + 1);
        if (tb_env_str(r, k, NULL)) fprintf(f, "  %s: %s\n", label[i], tb_env_str(r, k, ""));
    }
    if (tb_env_str(r, "program_stop", NULL) && n >= 2 && !search)
    {
        char level[120];
        double a = tb_env_num(r, "program_alpha");
        if (a > 0) snprintf(level, sizeof level, "verdicts at p < %.4f", a);
        else snprintf(level, sizeof level, "no difference can be called at this count (the U "
                      "test cannot reach its level)");
        tb_wrap(f, "  ", "  ", tb_width(), "Rounds: %.0f taken (--rounds=%.0f, --max-rounds=%.0f, warm-up "
                "runs a side: %.0f): %s; %s. Clocks: \"from cuInit\" starts at the probe's load "
                "inside the process, \"from the spawn\" at the parent's spawn.",
                tb_env_num(r, "program_rounds_taken"), tb_env_num(r, "program_rounds"),
                tb_env_num(r, "program_max_rounds"), tb_env_num(r, "program_warmup"),
                tb_env_str(r, "program_stop", "?"), level);
    }
    if (n && !search) ptb_figures(f, r, side, label, n, "");
    ptb_cost(f, r, side, label, n);
    ptb_processes(f, r, side, label, n);
    ptb_slowest(f, r, side, label, n);
    ptb_ready(f, r, side, label, n);
    pgk_print(f, r);
    fprintf(f, "\n");
    for (i = 0; i < r->nd; i++)
        if (strcmp(r->d[i].section, PG) == 0 && strncmp(r->d[i].key, AN_PREFIX, strlen(AN_PREFIX)) == 0)
            tb_wrap(f, "  ", "  ", tb_width(), "%s", r->d[i].text);
    tb_wrap(f, "  ", "  ", tb_width(), "The program's output: %s.", out ? out
            : "not kept (--program-output=DIR keeps every run's, --show-output prints the first)");
    pg_print_output(f, r);
}

void pg_print_output(FILE *f, const results *r)
{
    if (!res_env_get(r, "program_first_stdout_text") && !res_env_get(r, "program_first_stderr_text"))
        return;
    fprintf(f, "\n--- the first run's stdout ---\n%s", tb_env_str(r, "program_first_stdout_text", ""));
    fprintf(f, "--- the first run's stderr ---\n%s", tb_env_str(r, "program_first_stderr_text", ""));
    fprintf(f, "--- end of the first run's output ---\n");
}
