/* table.c: the generic pieces of the human tables on stdout: the
 * configuration block, rows with state and interval, missing figures, the
 * rigor lines, the roofline across sections, the checks. Each section's own
 * tables live beside it (src/sections/X/X_table.c). */
#include "run/table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "run/layout.h"
#include "run/section.h"

const char *tb_env_str(const results *r, const char *key, const char *dflt)
{
    const res_kv *kv = res_env_get(r, key);
    return kv && kv->kind == RES_STR && kv->str ? kv->str : dflt;
}

double tb_env_num(const results *r, const char *key)
{
    const res_kv *kv = res_env_get(r, key);
    return kv && kv->kind == RES_NUM ? kv->num : NAN;
}

/* v with prec decimals into buf, or "?" when it is NaN. */
static void tb_fig(char *buf, size_t len, double v, int prec)
{
    if (isnan(v)) snprintf(buf, len, "?");
    else snprintf(buf, len, "%.*f", prec, v);
}

/* A label of the configuration block and its value, laid out for the
 * width: the value from column 19, continued there. */
static void tb_kv(FILE *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void tb_kv(FILE *f, const char *label, const char *fmt, ...)
{
    char text[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ly_label(f, 2, 19, tb_width(), label, "%s", text);
}

/* The configuration of a -- CMD run: the program is timed whole and from
 * inside; nothing of the sections' sampling applies. */
static void tb_config_program(FILE *f, const results *r, const cli_opts *o)
{
    char squeeze[256] = "";
    size_t at = 0;

    tb_kv(f, "program", "%s", tb_env_str(r, "program_command", "?"));
    if (o->squeeze_auto)
        tb_kv(f, "runs", "those of --squeeze=auto's search (no measured round), %.0f warm-up; %s; "
              "--child-timeout=%.0f s", tb_env_num(r, "program_warmup"),
              tb_env_str(r, "program_sides", "?"), o->child_timeout);
    else if (isnan(tb_env_num(r, "program_rounds_taken")))   /* the program was not run */
        tb_kv(f, "runs", "none made (%.0f to %.0f a side asked), %.0f warm-up; %s; "
              "--child-timeout=%.0f s", tb_env_num(r, "program_rounds"),
              tb_env_num(r, "program_max_rounds"), tb_env_num(r, "program_warmup"),
              tb_env_str(r, "program_sides", "?"), o->child_timeout);
    else
        tb_kv(f, "runs", "%.0f a side (%.0f to %.0f), %.0f warm-up; %s; --child-timeout=%.0f s",
              tb_env_num(r, "program_rounds_taken"), tb_env_num(r, "program_rounds"),
              tb_env_num(r, "program_max_rounds"), tb_env_num(r, "program_warmup"),
              tb_env_str(r, "program_sides", "?"), o->child_timeout);
    if (!o->squeeze_auto && !(o->squeeze_mib >= 0)) return;
    if (o->squeeze_auto)
        at = (size_t)snprintf(squeeze, sizeof squeeze, "auto: each side's smallest margin of "
                              "device 0's free memory, bisected");
    else
        at = (size_t)snprintf(squeeze, sizeof squeeze, "%.0f MiB of device 0 left free before each "
                              "run (a holder takes the rest)", o->squeeze_mib);
    if (res_env_get(r, "program_squeeze_free_mib") && at < sizeof squeeze)
        snprintf(squeeze + at, sizeof squeeze - at, "; it had %.0f MiB free, of %.0f",
                 tb_env_num(r, "program_squeeze_free_mib"), tb_env_num(r, "program_squeeze_total_mib"));
    tb_kv(f, "squeeze", "%s", squeeze);
}

/* The device lines of the configuration: the devices of a node run, the
 * GPU opened, the program's, or why none. */
static void tb_config_gpu(FILE *f, const results *r, const cli_opts *o)
{
    double l2 = tb_env_num(r, "l2_bytes"), mem = tb_env_num(r, "memory_bytes");

    if (r->ndev) {
        size_t k;
        tb_kv(f, "GPUs", "%zu device%s, one child process each, one after the other:", r->ndev,
              r->ndev == 1 ? "" : "s");
        for (k = 0; k < r->ndev; k++)
            tb_kv(f, "", "%d: %s, %s, %s", r->dev[k].ordinal, r->dev[k].name,
                  r->dev[k].pci_bus_id, r->dev[k].uuid);
    } else if (tb_env_str(r, "gpu", NULL)) {
        char sl2[32], smem[32], sbus[32];
        /* A figure the record lacks (a child's device, an older child) is "?". */
        tb_fig(sl2, sizeof sl2, l2 / 1048576.0, 1);
        tb_fig(smem, sizeof smem, mem / 1073741824.0, 1);
        tb_fig(sbus, sizeof sbus, tb_env_num(r, "memory_bus_bits"), 0);
        tb_kv(f, "GPU", "%s, device %.0f (%s): compute capability %s, %.0f SMs, L2 %s MiB, %s GiB, "
              "%s-bit memory bus", tb_env_str(r, "gpu", "?"), tb_env_num(r, "device"),
              tb_env_str(r, "pci_bus_id", "?"), tb_env_str(r, "compute_capability", "?"),
              tb_env_num(r, "sms"), sl2, smem, sbus);
        tb_kv(f, "driver", "%s (CUDA %s); NVRTC %s",
              tb_env_str(r, "driver_version", "version not readable"),
              tb_env_str(r, "driver_cuda_version", "?"), tb_env_str(r, "nvrtc_version", "not loaded"));
        tb_kv(f, "module loading", "requested %s, in effect %s",
              tb_env_str(r, "module_loading_requested", "?"),
              tb_env_str(r, "module_loading_effective", "?"));
        tb_kv(f, "compiled for", "%s (%s)", tb_env_str(r, "arch", "?"),
              o->arch ? "--arch" : "the device's");
    } else if (o->cmd && res_env_known(r, "program_gpu_name")) {
        /* -- CMD alone: the harness opened none; the program's device, as
         * its records and NVML name it. */
        tb_kv(f, "GPU", "%s (the program's, bus %s)", tb_env_str(r, "program_gpu_name", "?"),
              tb_env_str(r, "program_gpu_bus_id", "?"));
        tb_kv(f, "NVRTC", "%s", tb_env_str(r, "nvrtc_version", "not loaded"));
    } else {
        tb_kv(f, "GPU", "%s%s", res_env_get(r, "gpu_unusable") ? "none usable: " : "",
              tb_env_str(r, "gpu_unusable", "not opened (no section run in this process needed one)"));
        tb_kv(f, "NVRTC", "%s", tb_env_str(r, "nvrtc_version", "not loaded"));
    }
}

void tb_config(FILE *f, const results *r, const cli_opts *o)
{
    char names[512];
    size_t at = 0;
    int i;

    fprintf(f, "harness %s: the clock around one CUDA program, taken apart\n",
            tb_env_str(r, "harness_version", "?"));
    tb_config_gpu(f, r, o);
    if (o->cmd) {
        tb_config_program(f, r, o);
        return;
    }
    tb_kv(f, "kernel sources", "%s", o->kernels_dir ? o->kernels_dir : "built in (kernels/*.cu)");
    if (o->profile)
        tb_kv(f, "timing", "--profile: every kernel version once, no warm-up, no flush, no clock "
              "kernel");
    else if (o->reps_given)
        tb_kv(f, "timing", "%d warm-up%s and exactly %d timed samples per measurement; the median "
              "is shown; a region shorter than 10 us (20 event-clock ticks) is batched", o->warmup,
              o->warmup == 1 ? "" : "s", o->reps);
    else
        tb_kv(f, "timing", "%d warm-up%s, then samples until the median's 95%% interval is within "
              "%g%% of it (at least %d samples, at most %g s each; one whose interval, narrowing as "
              "1/sqrt(n), could not get there by the limit stops at a quarter of it; '~' marks a "
              "measurement that stopped noisier); the median is shown; a region shorter than 10 us "
              "(20 event-clock ticks) is batched", o->warmup, o->warmup == 1 ? "" : "s",
              o->max_noise * 100.0, o->min_samples, o->max_time);
    if (!o->profile && res_env_get(r, "l2_cold_flush_bytes"))
        tb_kv(f, "cache states", "%s; L2-cold writes over %.0f MiB (2x the L2) before each sample",
              o->cache == CLI_CACHE_WARM ? "warm" : o->cache == CLI_CACHE_COLD
              ? "L2-cold (and warm)" : "warm and L2-cold", tb_env_num(r, "l2_cold_flush_bytes") / 1048576.0);
    names[0] = '\0';
    for (i = 0; i < CLI_NSECTIONS && at < sizeof names; i++)
        if (o->run[i])
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                                   o->section_names[i]);
    tb_kv(f, "sections", "%s", names);
}

ly_table *tb_rows_new(void)
{
    ly_table *t = ly_new(2, 5);
    ly_column(t, 0, NULL, LY_LEFT, 0);
    ly_column(t, 1, NULL, LY_LEFT, 16);
    ly_column(t, 2, "median (ms)", LY_RIGHT, 0);
    ly_column(t, 3, "state", LY_LEFT, 0);
    ly_column(t, 4, "95% CI of the median", LY_LEFT, 12);
    ly_keys(t, 2);
    return t;
}

void tb_rows_add(ly_table *t, const char *num, const res_meas *m, const char *label)
{
    char med[32], ci[128];
    if (!m) return;
    snprintf(med, sizeof med, "%.3f", m->stats.median);
    if (m->stats.n == 1)
        snprintf(ci, sizeof ci, "1 run");
    else
        snprintf(ci, sizeof ci, "[%.3f, %.3f] of %zu%s%s", m->stats.ci_low, m->stats.ci_high,
                 m->stats.n, m->batch > 1 ? " (batched)" : "", m->noisy ? " ~noisy" : "");
    ly_rowv(t, num, label, med, res_state_name(m->state), ci, NULL);
}

void tb_rows_end(FILE *f, ly_table *t)
{
    ly_print(f, t, tb_width());
    ly_free(t);
}

/* Per section: how many measurements the stopping rule left noisy, and the
 * SM clock read beside the samples (how many, how many low, the median). */
static void tb_rigor(FILE *f, const results *r, const char *section)
{
    size_t i, j, nm = 0, noisy = 0, nclk = 0, low = 0, shown = 0, at;
    double *clk = NULL, med = NAN, lo = NAN, hi = NAN;
    char text[1024];
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, section) != 0) continue;
        nm++;
        if (m->noisy) noisy++;
        if (m->mhz) nclk += m->nsamples;
        low += m->low_clock;
    }
    if (nm == 0) return;
    if (nclk && (clk = malloc(nclk * sizeof *clk)) != NULL) {
        size_t k = 0;
        for (i = 0; i < r->nm; i++) {
            const res_meas *m = &r->m[i];
            if (strcmp(m->section, section) != 0 || !m->mhz) continue;
            for (j = 0; j < m->nsamples; j++)
                if (isfinite(m->mhz[j])) clk[k++] = m->mhz[j];
        }
        if (k) {
            st_summary sm = st_summarize(clk, k);
            med = sm.median;
            lo = sm.min;
            hi = sm.max;
        }
        nclk = k;
        free(clk);
    }
    at = (size_t)snprintf(text, sizeof text, "rigor: %zu measurements, %zu stopped noisier than asked",
                          nm, noisy);
    for (i = 0; i < r->nm && noisy && at < sizeof text; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, section) != 0 || !m->noisy) continue;
        if (shown == 4) {
            at += (size_t)snprintf(text + at, sizeof text - at, ", ...");
            break;
        }
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", shown++ ? ", " : " (", m->key);
    }
    if (shown && at < sizeof text) snprintf(text + at, sizeof text - at, ")");
    ly_para(f, 2, 4, tb_width(), "%s", text);
    if (nclk)
        ly_para(f, 2, 4, tb_width(), "SM clock beside %zu samples: median %.0f MHz (%.0f to %.0f); "
                "%zu below 75%% of %.0f MHz", nclk, med, lo, hi, low,
                tb_env_num(r, "sm_clock_khz") / 1000.0);
}

static void tb_skipped(FILE *f, const results *r, const char *section)
{
    size_t i;
    for (i = 0; i < r->nskip; i++)
        if (strcmp(r->skip[i].section, section) == 0) {
            /* The reason the configuration's GPU line gives is said once,
             * there: here its first clause ("no CUDA driver"). */
            const char *gpu = tb_env_str(r, "gpu_unusable", NULL);
            const char *at = gpu && *gpu ? strstr(r->skip[i].reason, gpu) : NULL;
            fprintf(f, "\n");
            if (at)
                ly_para(f, 0, 2, tb_width(), "%s: skipped: %.*s%.*s (the GPU line above)", section,
                        (int)(at - r->skip[i].reason), r->skip[i].reason, (int)strcspn(gpu, ":"), gpu);
            else
                ly_para(f, 0, 2, tb_width(), "%s: skipped: %s", section, r->skip[i].reason);
        }
}

/* The median of "<section>/<key>", or NaN when absent. */
double tb_med(const results *r, const char *section, const char *key)
{
    const res_meas *m = res_find(r, section, key);
    return m ? m->stats.median : NAN;
}

/* A figure that may be missing: "-" in its place. */
void tb_num(FILE *f, int width, int prec, double v)
{
    if (isnan(v)) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*.*f", width, prec, v);
}

/* The roofline's bandwidth roof: the value of the first entry's roof (its
 * sec_roof, in the list's order) that r holds; NaN where none does. */
static double tb_roof(const results *r)
{
    size_t i;
    for (i = 0; i < CLI_NENTRIES; i++) {
        const char *key = sec_table[i].roof->roof;
        const res_derived *d = key ? res_derived_find(r, sec_table[i].name, key) : NULL;
        if (d) return d->value;
    }
    return NAN;
}

/* 1 when m is a point of the roofline: warm, in ms, with a model of bytes
 * and flops, and among its entry's points where its sec_roof names them. */
static int tb_roof_point(const res_meas *m)
{
    size_t i;
    if (!(m->flops > 0) || !(m->bytes > 0) || strcmp(m->unit, "ms") != 0 || m->state != RES_WARM)
        return 0;
    for (i = 0; i < CLI_NENTRIES; i++) {
        const char *points = sec_table[i].roof->points;
        if (points && strcmp(m->section, sec_table[i].name) == 0)
            return strncmp(m->key, points, strlen(points)) == 0;
    }
    return 1;
}

void tb_roofline(FILE *f, const results *r)
{
    static const char *const head[] = { "section", "kernel", "n", "flops/B", "attainable",
                                        "achieved", "%" };
    double peak = tb_env_num(r, "fp32_peak_gflops"), roof = tb_roof(r);
    size_t i;
    ly_table *t;

    if (!(roof > 0) || isnan(peak)) return;
    fprintf(f, "\n");
    ly_para(f, 0, 0, tb_width(), "roofline: every kernel with a byte and flop model (warm, medians); "
            "the roofs are the best copy floor, %.1f GB/s, and the FP32 peak, %.0f GFLOP/s (%s; tanh "
            "counted as one operation)", roof, peak, tb_env_str(r, "fp32_peak_source", "?"));
    t = ly_new(2, 7);
    for (i = 0; i < 7; i++) ly_column(t, i, head[i], i < 2 ? LY_LEFT : LY_RIGHT, i == 1 ? 14 : 0);
    ly_keys(t, 2);
    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        double ai, att, ach;
        char c[5][32];
        if (!tb_roof_point(m)) continue;
        ai = m->flops / m->bytes;
        att = fmin(peak, ai * roof);
        ach = m->flops / m->stats.median / 1e6;
        snprintf(c[0], sizeof c[0], "%ld", m->n);
        snprintf(c[1], sizeof c[1], "%.3f", ai);
        snprintf(c[2], sizeof c[2], "%.1f", att);
        snprintf(c[3], sizeof c[3], "%.1f", ach);
        snprintf(c[4], sizeof c[4], "%.1f", 100.0 * ach / att);
        ly_rowv(t, m->section, m->name, c[0], c[1], c[2], c[3], c[4], NULL);
    }
    ly_print(f, t, tb_width());
    ly_free(t);
    ly_para(f, 2, 2, tb_width(), "attainable = min(peak, intensity x floor), in GFLOP/s; achieved = "
            "the model's flops over the median.");
}

void tb_checks(FILE *f, const results *r)
{
    size_t i, failed = res_failed(r);
    if (r->ncheck == 0) return;
    fprintf(f, "\nChecks: %zu passed, %zu failed\n", r->ncheck - failed, failed);
    for (i = 0; i < r->ncheck; i++)
        if (!r->check[i].passed)
            fprintf(f, "  FAILED %s: %s: %s\n", r->check[i].section, r->check[i].what,
                    r->check[i].detail);
}

void tb_section(FILE *f, const results *r, const char *name, void (*print)(FILE *, const results *))
{
    tb_skipped(f, r, name);
    print(f, r);
    tb_rigor(f, r, name);
}

void tb_wrap(FILE *f, const char *first, const char *indent, size_t width, const char *fmt, ...)
{
    char text[4096];
    const char *p = text, *lead = first;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    while (*p) {
        size_t room = width > strlen(lead) ? width - strlen(lead) : 1, n = 0, cut = 0;
        while (*p == ' ') p++;
        if (!*p) break;
        while (p[n] && n <= room) {
            if (p[n] == ' ') cut = n;
            n++;
        }
        if (!p[n] && n <= room) cut = n;       /* the rest fits */
        else if (cut == 0) {                    /* one word longer than the room */
            for (cut = 0; p[cut] && p[cut] != ' '; cut++) {}
        }
        fprintf(f, "%s%.*s\n", lead, (int)cut, p);
        p += cut;
        lead = indent;
    }
}

static size_t tb_fixed_width;

void tb_set_width(size_t w)
{
    tb_fixed_width = w;
}

size_t tb_width(void)
{
    const char *c = getenv("COLUMNS");
    struct winsize w;
    char *end;
    long n;

    if (tb_fixed_width) return tb_fixed_width;
    if (c && *c) {
        n = strtol(c, &end, 10);
        if (!*end && n >= 40 && n <= 1000) return (size_t)n;
    }
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 40)
        return w.ws_col;
    return 100;
}

char *tb_shorten(char *out, size_t len, const char *in, size_t width)
{
    size_t n = strlen(in), head, tail;

    if (!len) return out;
    if (n <= width || width < 5) {
        snprintf(out, len, "%s", in);
        return out;
    }
    head = (width - 3 + 1) / 2;
    tail = width - 3 - head;
    snprintf(out, len, "%.*s...%s", (int)head, in, in + n - tail);
    return out;
}

/* ---------------------------------------------------- fitting a width --- */

/* The narrowest a shortened column may get ("abcdefghij...qrstuvwxyz"). */
#define TB_MIN_CELL 24

/* The lines of a text being fitted: each its own allocation. */
typedef struct tb_lines {
    char **l;
    size_t n, cap;
} tb_lines;

static int tb_push(tb_lines *L, const char *s, size_t len)
{
    char **grown, *copy;
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 64;
        if (!(grown = realloc(L->l, cap * sizeof *grown))) return -1;
        L->l = grown;
        L->cap = cap;
    }
    if (!(copy = malloc(len + 1))) return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    L->l[L->n++] = copy;
    return 0;
}

/* A row of a table: a run of two spaces after its first word. */
static int tb_tabular(const char *s)
{
    const char *p = s + strspn(s, " ");
    return *p && strstr(p, "  ") != NULL;
}

static size_t tb_indent(const char *s)
{
    return strspn(s, " ");
}

/* 1 when column c is blank (a space, or past the end) in every line of
 * b[0..n), and so are the columns c - back .. c + ahead. */
static int tb_blank(char *const *b, size_t n, size_t c, size_t back, size_t ahead)
{
    size_t i, k;
    for (i = 0; i < n; i++) {
        size_t len = strlen(b[i]);
        for (k = c - back; k <= c + ahead; k++)
            if (k < len && b[i][k] != ' ') return 0;
    }
    return 1;
}

static size_t tb_widest(char *const *b, size_t n)
{
    size_t i, w = 0;
    for (i = 0; i < n; i++)
        if (strlen(b[i]) > w) w = strlen(b[i]);
    return w;
}

/* Delete column c of every line of b[0..n) that reaches it. */
static void tb_drop(char **b, size_t n, size_t c)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (c < strlen(b[i])) memmove(b[i] + c, b[i] + c + 1, strlen(b[i] + c + 1) + 1);
}

/* Narrow the gutters of a table (columns blank in every row) until its
 * widest row fits width or each gutter is keep spaces wide, the widest
 * gutter first: every row loses the same columns, so columns stay aligned. */
static void tb_squeeze(char **b, size_t n, size_t width, size_t keep)
{
    size_t ind = (size_t)-1, i, c, w;

    for (i = 0; i < n; i++)
        if (tb_indent(b[i]) < ind) ind = tb_indent(b[i]);
    while ((w = tb_widest(b, n)) > width) {
        size_t best = 0, run = 0, bestrun = 0;
        for (c = ind + keep; c < w; c++) {
            if (tb_blank(b, n, c, keep, 0)) {
                if (++run > bestrun) {
                    bestrun = run;
                    best = c;
                }
            } else run = 0;
        }
        if (!bestrun) return;
        tb_drop(b, n, best);
    }
}

/* 1 when a row of b[1..n) (the first is the heading) holds, between
 * columns bs and be, a word of figures alone ("0.0", "12,345", "+3%"):
 * that span is not a column of names, and cutting it would lose them. */
static int tb_figures_in(char *const *b, size_t n, size_t bs, size_t be)
{
    size_t i, k;
    for (i = 1; i < n; i++) {
        size_t len = strlen(b[i]), end = len < be ? len : be;
        int fig = 0, word = 0;
        for (k = bs; k <= end; k++) {
            char ch = k < end ? b[i][k] : ' ';
            if (ch == ' ') {
                if (word && fig) return 1;
                word = 0;
                continue;
            }
            if (!word) word = fig = 1;
            if (!strchr("0123456789.,+-%", ch)) fig = 0;
        }
    }
    return 0;
}

/* Shorten the first column of a table (the rows' names; columns lie
 * between gutters two blanks wide) in the middle, in every row, by what the
 * widest row is over width, while it keeps at least TB_MIN_CELL
 * characters. Returns 0 when it did (or there was no need), -1 when it
 * cannot: the widest column's bounds are then in *sbs and *sbe (none
 * found: both 0), for a line of its own. */
static int tb_shorten_column(char **b, size_t n, size_t width, size_t *sbs, size_t *sbe)
{
    size_t w = tb_widest(b, n), ind = (size_t)-1, c, start, bs = 0, be = 0, fe = 0, i;
    char cell[512], cut[512];

    if (w <= width) return 0;
    for (i = 0; i < n; i++)
        if (tb_indent(b[i]) < ind) ind = tb_indent(b[i]);
    /* The widest column, and the first (the rows' names: the only one
     * shortened; another is given a line of its own instead). */
    for (c = start = ind; c <= w; c++) {
        if (c == w || tb_blank(b, n, c, 0, 1)) {
            if (c > start && c - start > be - bs) {
                bs = start;
                be = c;
            }
            if (start == ind && c > start) fe = c;
            while (c < w && tb_blank(b, n, c, 0, 0)) c++;
            start = c;
        }
    }
    if (bs != ind) {
        /* The widest is not the first: shortening the first must do it all. */
        size_t over = w - width;
        for (c = ind + 1; c < w; c++)
            if (tb_blank(b, n, c, 1, 0) && over > 1) over--;
        if (fe - ind >= TB_MIN_CELL + over) {
            bs = ind;
            be = fe;
        }
    }
    *sbs = bs;
    *sbe = be;
    /* What gutters of one space will save later need not come from it. */
    for (c = ind + 1; c < w; c++)
        if (tb_blank(b, n, c, 1, 0) && w - width > 0) {
            if (w - width <= 1) break;
            w--;
        }
    if (bs != ind || be - bs < TB_MIN_CELL + (w - width) || be - bs >= sizeof cell ||
        tb_figures_in(b, n, bs, be))
        return -1;
    for (i = 0; i < n; i++) {
        size_t len = strlen(b[i]), k, nw = be - bs - (w - width);
        size_t have = len > bs ? (len < be ? len : be) - bs : 0;
        if (!have) continue;
        memcpy(cell, b[i] + bs, have);
        cell[have] = '\0';
        for (k = have; k > 0 && cell[k - 1] == ' '; k--) cell[k - 1] = '\0';
        tb_shorten(cut, sizeof cut, cell, nw);
        if (len <= be) {
            /* The row ends inside the column: no padding after it. */
            memcpy(b[i] + bs, cut, strlen(cut) + 1);
            continue;
        }
        snprintf(cell, sizeof cell, "%-*s", (int)nw, cut);
        memcpy(b[i] + bs, cell, nw);
        memmove(b[i] + bs + nw, b[i] + be, len - be + 1);
    }
    return 0;
}

/* A table whose widest column cannot be shortened enough: that column
 * gets a line of its own in each row, in full, above the rest of the row
 * (below it, further in, when it is the last column), and the rest is
 * fitted as a table. Prints the rows to f. */
static void tb_split_column(FILE *f, char **b, size_t n, size_t width, size_t bs, size_t be)
{
    size_t i, k, ind = (size_t)-1;
    int last = 1;
    char **cell = calloc(n, sizeof *cell);

    for (i = 0; i < n; i++) {
        if (strlen(b[i]) > be && b[i][be + strspn(b[i] + be, " ")] != '\0') last = 0;
        if (tb_indent(b[i]) < ind) ind = tb_indent(b[i]);
    }
    for (i = 0; i < n && cell; i++) {
        size_t len = strlen(b[i]), have = len > bs ? (len < be ? len : be) - bs : 0;
        if (!(cell[i] = malloc(have + 1))) break;
        memcpy(cell[i], b[i] + bs, have);
        cell[i][have] = '\0';
        for (k = have; k > 0 && cell[i][k - 1] == ' '; k--) cell[i][k - 1] = '\0';
        if (len > be) memmove(b[i] + bs, b[i] + be, len - be + 1);
        else if (len > bs) b[i][bs] = '\0';
        for (k = strlen(b[i]); k > 0 && b[i][k - 1] == ' '; k--) b[i][k - 1] = '\0';
    }
    if (!cell || i < n) {
        /* Out of memory: the rows as they are now. */
        for (i = 0; i < n; i++) fprintf(f, "%s\n", b[i]);
    } else {
        tb_squeeze(b, n, width, 1);
        char in[64], in2[64];
        size_t at = last ? ind + 4 : bs;
        snprintf(in, sizeof in, "%*s", (int)(at < sizeof in ? at : sizeof in - 1), "");
        snprintf(in2, sizeof in2, "%*s", (int)(at + 2 < sizeof in2 ? at + 2 : sizeof in2 - 1), "");
        for (i = 0; i < n; i++) {
            if (!last && cell[i][0]) tb_wrap(f, in, in2, width, "%s", cell[i]);
            if (b[i][strspn(b[i], " ")]) fprintf(f, "%s\n", b[i]);
            if (last && cell[i][0]) tb_wrap(f, in, in2, width, "%s", cell[i]);
        }
    }
    for (i = 0; cell && i < n; i++) free(cell[i]);
    free(cell);
}

/* Print a line broken at spaces to width: its continuation lines start at
 * the column after its first run of two spaces or more (a label's value:
 * "  GPU              NVIDIA H200, ..."), else two spaces further in than
 * the line. */
static void tb_fit_prose(FILE *f, const char *s, size_t width)
{
    char first[64], lead[64];
    size_t ind = tb_indent(s), cont = ind + 2;
    const char *gap = strstr(s + ind, "  ");

    if (gap && (size_t)(gap - s) + strspn(gap, " ") < width / 2)
        cont = (size_t)(gap - s) + strspn(gap, " ");
    snprintf(first, sizeof first, "%*s", (int)(ind < sizeof first ? ind : sizeof first - 1), "");
    snprintf(lead, sizeof lead, "%*s", (int)(cont < sizeof lead ? cont : sizeof lead - 1), "");
    tb_wrap(f, first, lead, width, "%s", s + ind);
}

/* A prose line too wide, l[i], with the lines after it that continue its
 * paragraph (prose, not empty, as far in as its second line, each after a
 * line broken near the old width: at least width - 20 long, and not at the
 * end of a sentence), joined and
 * broken again at width; continuations as far in as its second line was.
 * Returns the index of the first line after the paragraph. */
static size_t tb_fit_paragraph(FILE *f, char *const *l, size_t n, size_t i, size_t width)
{
    char text[4096], first[64], lead[64];
    size_t j = i + 1, at, ind = tb_indent(l[i]), cont = ind + 2;

    at = (size_t)snprintf(text, sizeof text, "%s", l[i] + ind);
    if (j < n && l[j][0] && !tb_tabular(l[j]) && tb_indent(l[j]) >= ind &&
        strlen(l[i]) + 20 >= width)
        cont = tb_indent(l[j]);
    while (j < n && l[j][0] && !tb_tabular(l[j]) && tb_indent(l[j]) == cont &&
           strlen(l[j - 1]) + 20 >= width && at < sizeof text &&
           l[j - 1][strlen(l[j - 1]) - 1] != '.' &&
           strncmp(l[j] + cont, "FAILED ", 7) != 0) {
        at += (size_t)snprintf(text + at, sizeof text - at, " %s", l[j] + cont);
        j++;
    }
    if (j == i + 1) {
        tb_fit_prose(f, l[i], width);
        return j;
    }
    snprintf(first, sizeof first, "%*s", (int)(ind < sizeof first ? ind : sizeof first - 1), "");
    snprintf(lead, sizeof lead, "%*s", (int)(cont < sizeof lead ? cont : sizeof lead - 1), "");
    tb_wrap(f, first, lead, width, "%s", text);
    return j;
}

int tb_fit(FILE *f, const char *text, size_t width)
{
    tb_lines L = { NULL, 0, 0 };
    const char *p = text, *nl;
    size_t i, j;
    int rc = 0;

    while (*p && rc == 0) {
        nl = strchr(p, '\n');
        if (tb_push(&L, p, nl ? (size_t)(nl - p) : strlen(p)) != 0) rc = -1;
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (rc != 0) fputs(text, f);
    for (i = 0; i < L.n && rc == 0; i = j) {
        for (j = i; j < L.n && tb_tabular(L.l[j]); j++) {}
        if (j == i + 1) {
            /* One row alone is a label and its value: wrapped as prose. */
            if (strlen(L.l[i]) > width) tb_fit_prose(f, L.l[i], width);
            else fprintf(f, "%s\n", L.l[i]);
            continue;
        }
        if (j > i) {
            /* A table: narrower gutters, then the widest column shortened,
             * then gutters of one space. */
            if (tb_widest(L.l + i, j - i) > width) {
                size_t bs = 0, be = 0;
                tb_squeeze(L.l + i, j - i, width, 2);
                if (tb_shorten_column(L.l + i, j - i, width, &bs, &be) != 0 && be > bs) {
                    tb_split_column(f, L.l + i, j - i, width, bs, be);
                    i = j;
                    continue;
                }
                tb_squeeze(L.l + i, j - i, width, 1);
            }
            for (; i < j; i++) fprintf(f, "%s\n", L.l[i]);
            continue;
        }
        /* A failed check stays one line, whole, for grep. */
        if (strlen(L.l[i]) > width && strncmp(L.l[i] + tb_indent(L.l[i]), "FAILED ", 7) != 0) {
            j = tb_fit_paragraph(f, L.l, L.n, i, width);
            continue;
        }
        fprintf(f, "%s\n", L.l[i]);
        j = i + 1;
    }
    for (i = 0; i < L.n; i++) free(L.l[i]);
    free(L.l);
    return rc;
}
