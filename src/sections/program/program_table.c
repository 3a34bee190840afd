/* program_table.c: the tables of the user's own program (-- CMD): each
 * figure per side with its interval and the verdict, the probe's own cost,
 * each process where there are several, the slowest first uses and the
 * sentences. Reads the results only. */
#include <math.h>
#include <string.h>

#include "core/answer.h"
#include "cuda/demangle.h"
#include "probe/precord.h"
#include "run/layout.h"
#include "run/table.h"
#include "sections/program/program.h"
#include "sections/program/failures.h"
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

/* One cell: the median and its interval, "330 [321, 345]", into cell. */
static const char *ptb_cell(char *cell, size_t len, const res_meas *m)
{
    char a[32], b[32], c[32];
    if (!m)
        snprintf(cell, len, "-");
    else if (m->stats.n < 2)
        snprintf(cell, len, "%s", ptb_fmt(a, sizeof a, m->stats.median, m->unit));
    else
        snprintf(cell, len, "%s [%s, %s]", ptb_fmt(a, sizeof a, m->stats.median, m->unit),
                 ptb_fmt(b, sizeof b, m->stats.ci_low, m->unit),
                 ptb_fmt(c, sizeof c, m->stats.ci_high, m->unit));
    return cell;
}

/* The verdict of side i against the one it is compared with: with two
 * sides "compare.<prefix><key>" ("bare." for bare sides), with more
 * "compare.<side>.<key>" (a process's own, prefix "proc<j>.", is judged
 * with two sides only); NULL where there is none. */
static const res_derived *ptb_verdict(const results *r, const char *prefix, const char **sides,
                                      size_t n, size_t i, const char *key)
{
    char k[160];
    if (n == 2)
        snprintf(k, sizeof k, "compare.%s%s%s", prefix[0] == 'p' ? prefix : "",
                 strncmp(sides[0], "bare.", 5) == 0 ? "bare." : "", key);
    else if (prefix[0] == 'p')
        return NULL;
    else
        snprintf(k, sizeof k, "compare.%s.%s", sides[i], key);
    return res_derived_find(r, PG, k);
}

/* One figure's row over the sides, and its verdicts when there are (each
 * later side against the side the heading names, in its order; the same
 * words for every one said once, "each: no difference"), into t
 * (ptb_table's columns). */
static void ptb_row(ly_table *t, const results *r, const char *prefix, const char **sides, size_t n,
                    const char *key, const char *name, const char *unit)
{
    char k[160], cells[PG_MAX_SIDES][100], verdicts[512] = "";
    const char *c[PG_MAX_SIDES + 3], *said[PG_MAX_SIDES] = { NULL };
    const res_meas *cell[PG_MAX_SIDES];
    const res_derived *verdict;
    size_t i, any = 0, at = 0, same = n > 2, heard = 0;
    for (i = 0; i < n && i < PG_MAX_SIDES; i++) {
        snprintf(k, sizeof k, "%s%s.%s", prefix, sides[i], key);
        any |= (cell[i] = res_find(r, PG, k)) != NULL;
        c[i + 2] = ptb_cell(cells[i], sizeof cells[i], cell[i]);
        if (i == 0) continue;
        verdict = ptb_verdict(r, prefix, sides, n, i, key);
        said[i] = verdict ? verdict->text : "";
        heard |= said[i][0] != '\0';
        same &= said[i][0] && strcmp(said[i], said[1]) == 0;
    }
    if (same) snprintf(verdicts, sizeof verdicts, "each: %s", said[1]);
    else if (heard)
        for (i = 1; i < n && i < PG_MAX_SIDES && at < sizeof verdicts; i++)
            at += (size_t)snprintf(verdicts + at, sizeof verdicts - at, "%s%s%s", at ? " " : "",
                                   said[i], n > 2 && i + 1 < n ? ";" : "");
    if (!any) return;
    c[0] = name;
    c[1] = unit;
    c[n + 2] = verdicts;
    ly_row(t, c, n + 3);
}

/* The table of figures over the sides: figure and unit (the keys), a
 * group per side, then (verdicts 1) the verdicts, each side against the
 * first or the side the environment names (program_side<i>_against), laid
 * out as layout.h says. */
static ly_table *ptb_table(const results *r, const char **label, size_t n, int verdicts)
{
    char head[512] = "";
    size_t i, at = 0;
    ly_table *t = ly_new(2, n + 2 + (verdicts != 0));

    ly_column(t, 0, "figure", LY_LEFT, 14);
    ly_column(t, 1, "unit", LY_LEFT, 0);
    for (i = 0; i < n; i++) {
        ly_column(t, i + 2, label[i], LY_LEFT, 0);
        ly_group(t, i + 2);
    }
    for (i = 1; i < n && at < sizeof head; i++) {
        char k[64];
        snprintf(k, sizeof k, "program_side%zu_against", i + 1);
        at += (size_t)snprintf(head + at, sizeof head - at, "%s%s against %s", i > 1 ? "; " : "",
                               label[i], tb_env_str(r, k, label[0]));
    }
    if (verdicts) {
        ly_column(t, n + 2, head, LY_LEFT, 12);
        ly_group(t, n + 2);
    }
    ly_keys(t, 2);
    return t;
}

/* Every figure of the runs, per side. */
static void ptb_figures(FILE *f, const results *r, const char **side, const char **label, size_t n,
                       const char *prefix)
{
    size_t i;
    ly_table *t = ptb_table(r, label, n, 1);
    for (i = 0; i < PGF_N; i++)
        ptb_row(t, r, prefix, side, n, pgf_figs[i].key, pgf_figs[i].name, pgf_figs[i].unit);
    for (i = 0; i < PRC_NFIGS; i++)
        ptb_row(t, r, prefix, side, n, prc_figs[i].key, prc_figs[i].name, prc_figs[i].unit);
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* The probe's own cost: bare against probed per mode. */
static void ptb_cost(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    static const char *const says[PGF_NCOST] = { "whole process, ms", "host CPU time, ms",
                                                  "device memory peak, MiB" };
    static const char *const head[7] = { "side", "figure", "bare", "probed", "probed - bare",
                                         "verdict", NULL };
    size_t i, j, shown = 0;
    ly_table *t = ly_new(2, 6);
    for (i = 0; i < 6; i++)
        ly_column(t, i, head[i], i >= 2 && i <= 4 ? LY_RIGHT : LY_LEFT, i == 1 || i == 5 ? 10 : 0);
    for (i = 0; i < n; i++)
        for (j = 0; j < PGF_NCOST; j++) {
            char k[128], a[32], b[32], pct[32];
            const res_derived *d;
            snprintf(k, sizeof k, PGF_COST_PREFIX "%s.%s", side[i], pgf_figs[pgf_cost[j]].key);
            if (!(d = res_derived_find(r, PG, k))) continue;
            shown++;
            snprintf(pct, sizeof pct, "%+.2f%%", res_derived_num(d, "pct_of_bare"));
            ly_rowv(t, label[i], says[j],
                    ptb_fmt(a, sizeof a, res_derived_num(d, "bare_median"), pgf_figs[pgf_cost[j]].unit),
                    ptb_fmt(b, sizeof b, res_derived_num(d, "probed_median"), pgf_figs[pgf_cost[j]].unit),
                    pct, d->text, NULL);
        }
    if (shown) {
        fprintf(f, "\n");
        ly_para(f, 2, 4, tb_width(), "the probe's own cost: the same program bare (no probe) against "
                "probed, medians");
        ly_print(f, t, tb_width());
    }
    ly_free(t);
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
        ly_table *t;
        snprintf(prefix, sizeof prefix, "proc%zu.", p);
        for (i = 0; i < n && !any; i++) {
            snprintf(k, sizeof k, "proc%zu.%s.%s", p, side[i], PRC_KEY(AT_PROBE));
            any = res_find(r, PG, k) != NULL;
        }
        if (!any) break;
        snprintf(env, sizeof env, "program_proc%zu_command", p);
        fprintf(f, "\n");
        ly_para(f, 2, 4, tb_width(), "process %zu (%s), in the runs that had several CUDA processes",
                p, tb_env_str(r, env, "?"));
        /* A process's own verdicts are judged with two sides only. */
        t = ptb_table(r, label, n, n == 2);
        for (place = 1; ptb_proc_fig(place, &key, &name, &unit); place++)
            ptb_row(t, r, prefix, side, n, key, name, unit);
        ly_print(f, t, tb_width());
        ly_free(t);
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
 * PTB_NAME_WIDTH (demangle.h says how), the name wrapping in its column. */
#define PTB_NAME_WIDTH 72
static void ptb_slowest(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    size_t i, k;
    for (i = 0; i < n; i++) {
        ly_table *t = ly_new(2, 4);
        ly_column(t, 0, NULL, LY_RIGHT, 0);
        ly_column(t, 1, NULL, LY_LEFT, 0);
        ly_column(t, 2, NULL, LY_LEFT, 8);
        ly_column(t, 3, NULL, LY_LEFT, 16);
        for (k = 1; k <= PRC_SLOWEST; k++) {
            char key[64], name[PTB_NAME_WIDTH + 1], runs[48], rank[16], ms[96];
            const res_derived *d;
            pgf_rank_key(PGF_D_SLOWEST, side[i], k, key, sizeof key);
            if (!(d = res_derived_find(r, PG, key))) break;
            if (k == 1) {
                fprintf(f, "\n");
                ly_para(f, 2, 4, tb_width(), "%s: the slowest first uses (get + first launch, host "
                        "time; median over the times it came)", label[i]);
            }
            /* text: the name demangled (a file before it: empty, the name itself). */
            dm_shorten(d->text && d->text[0] ? d->text : d->name, PTB_NAME_WIDTH, name, sizeof name);
            snprintf(rank, sizeof rank, "%zu.", k);
            snprintf(ms, sizeof ms, "%8.3f ms = %.3f + %.3f", d->value, res_derived_num(d, "get_ms"),
                     res_derived_num(d, "launch_ms"));
            ly_rowv(t, rank, ms, ptb_runs(d, runs, sizeof runs), name, NULL);
        }
        ly_print(f, t, tb_width());
        ly_free(t);
    }
}

/* The first uses after the program was ready, per side. */
static void ptb_ready(FILE *f, const results *r, const char **side, const char **label, size_t n)
{
    size_t i, k;
    for (i = 0; i < n; i++) {
        ly_table *t = ly_new(2, 5);
        ly_column(t, 0, NULL, LY_RIGHT, 0);
        ly_column(t, 1, NULL, LY_RIGHT, 0);
        ly_column(t, 2, NULL, LY_RIGHT, 0);
        ly_column(t, 3, NULL, LY_LEFT, 8);
        ly_column(t, 4, NULL, LY_LEFT, 16);
        for (k = 1; k <= 10; k++) {
            char key[96], name[PTB_NAME_WIDTH + 1], runs[48], rank[16], stall[48], after[48];
            const res_derived *d;
            pgf_rank_key(PGF_D_READY_RANK, side[i], k, key, sizeof key);
            if (!(d = res_derived_find(r, PG, key))) break;
            if (k == 1) {
                fprintf(f, "\n");
                ly_para(f, 2, 4, tb_width(), "%s: every first use after ready over the runs, by name "
                        "(stall: get + first launch, host time; when: ms after ready; medians over the "
                        "times it came)", label[i]);
            }
            dm_shorten(d->text && d->text[0] ? d->text : d->name, PTB_NAME_WIDTH, name, sizeof name);
            snprintf(rank, sizeof rank, "%zu.", k);
            snprintf(stall, sizeof stall, "%.3f ms stall", d->value);
            snprintf(after, sizeof after, "%.1f ms after ready", res_derived_num(d, "after_ms"));
            ly_rowv(t, rank, stall, after, ptb_runs(d, runs, sizeof runs), name, NULL);
        }
        ly_print(f, t, tb_width());
        ly_free(t);
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
    fprintf(f, "\n");
    ly_para(f, 0, 2, tb_width(), "program: %s", tb_env_str(r, "program_command", "?"));
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
        ly_para(f, 2, 4, tb_width(), "the sides set %s", tb_env_str(r, "program_setting", ""));
    for (i = 0; i < n; i++) {
        char k[64];
        snprintf(k, sizeof k, "program_side%zu_command", i + 1);
        if (tb_env_str(r, k, NULL)) ly_para(f, 2, 4, tb_width(), "%s: %s", label[i], tb_env_str(r, k, ""));
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
    pgx_print(f, r, side, label, n);
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
