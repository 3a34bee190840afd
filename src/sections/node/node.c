/* node.c: a node run (--device=all|LIST): list the devices, run each
 * device's sections in a child of its own, summarise the node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sections/node/node.h"
#include "core/schema.h"
#include "core/trace.h"
#include "os/phase.h"
#include "os/proc.h"
#include "os/sig.h"
#include "run/section.h"
#include "run/section_child.h"
#include "run/layout.h"
#include "run/table.h"

/* ------------------------------------------------------ the listing --- */

/* The devices into r's environment (device_count, device.K.*). Returns 0,
 * 1 with "no_device" recorded (no usable GPU), or -1 after a failed call. */
static int nd_list(results *r)
{
    char why[512], key[64], name[256], bus[DRV_BUS_ID_LEN], uuid[DRV_UUID_LEN];
    CUdevice d;
    int n = 0, k, rc;

    if (drv_load(why, sizeof why) != 0) {
        char tmp[600];
        snprintf(tmp, sizeof tmp, "no CUDA driver: %s", why);
        return res_env_str(r, "no_device", tmp) ? -1 : 1;
    }
    rc = drv_init(why, sizeof why);
    if (rc == DRV_OK) rc = drv_device_count(&n, why, sizeof why);
    if (rc == DRV_NO_GPU) return res_env_str(r, "no_device", why) ? -1 : 1;
    if (rc != DRV_OK) return -1;
    if (res_env_num(r, "device_count", n)) return -1;
    for (k = 0; k < n; k++) {
        CK(drv.cuDeviceGet(&d, k));
        CK(drv.cuDeviceGetName(name, (int)sizeof name, d));
        if (drv_device_identity(d, bus, uuid) != 0) return -1;
        snprintf(key, sizeof key, "device.%d.name", k);
        if (res_env_str(r, key, name)) return -1;
        snprintf(key, sizeof key, "device.%d.pci_bus_id", k);
        if (res_env_str(r, key, bus)) return -1;
        snprintf(key, sizeof key, "device.%d.uuid", k);
        if (res_env_str(r, key, uuid)) return -1;
    }
    return 0;
fail:
    return -1;
}

int nd_devices_child(const cli_opts *o, long long t_main_ns)
{
    results r;
    int rc;

    (void)o;
    (void)t_main_ns;
    res_init(&r);
    ph_set("node: listing the devices");
    rc = nd_list(&r);       /* 1, no usable GPU: said in the lines, not an error */
    rc = sec_child_end(&r, rc == -1 ? SEC_FAILED : SEC_OK);
    res_free(&r);
    return rc;
}

/* What --device said, as the user wrote it ("all", "0,2,5"). */
static void nd_asked(const cli_opts *o, char *buf, size_t len)
{
    size_t i, at = 0;

    if (o->device_all) {
        snprintf(buf, len, "all");
        return;
    }
    buf[0] = '\0';
    for (i = 0; i < o->ndevices && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "", o->devices[i]);
}

/* A usage error found in planning: one line, the skip, the run incomplete. */
static int nd_usage(sec_ctx *c, const char *asked, const char *why)
{
    char line[800];
    snprintf(line, sizeof line, "--device=%s: %s", asked, why);
    fprintf(stderr, "harness: %s\n", line);
    res_skip_section(c->r, ND_SECTION, line);
    c->r->incomplete = 1;
    return SEC_USAGE;
}

/* Add device k of the listing to c->r. Returns 0 or -1 (out of memory). */
static int nd_add(sec_ctx *c, const results *list, int k)
{
    char kn[64], kb[64], ku[64];
    snprintf(kn, sizeof kn, "device.%d.name", k);
    snprintf(kb, sizeof kb, "device.%d.pci_bus_id", k);
    snprintf(ku, sizeof ku, "device.%d.uuid", k);
    return res_add_device(c->r, k, tb_env_str(list, kn, "?"), tb_env_str(list, kb, "?"),
                          tb_env_str(list, ku, "?")) ? 0 : -1;
}

sec_status nd_plan(sec_ctx *c)
{
    static const char *const args[] = { "--child=devices" };
    const cli_opts *o = c->o;
    char asked[CLI_MAX_DEVICES * 6], detail[600], why[300];
    results list;
    size_t i;
    int n, rc = SEC_OK;

    nd_asked(o, asked, sizeof asked);
    res_env_str(c->r, "devices_requested", asked);
    if (sec_run_child(c, args, 1, NULL, 0, &list, detail, sizeof detail) != SEC_OK) {
        if (c->child_usage || c->child_no_gpu) rc = SEC_USAGE;
        else {
            fprintf(stderr, "harness: --device=%s: listing the devices failed: %s\n", asked, detail);
            res_check_add(c->r, ND_SECTION, "the devices listed", 0, detail);
            rc = SEC_FAILED;
        }
        res_free(&list);
        return rc;
    }
    n = (int)tb_env_num(&list, "device_count");
    if (res_env_get(&list, "no_device") || !(n > 0)) {
        rc = nd_usage(c, asked, res_env_get(&list, "no_device") ? tb_env_str(&list, "no_device", "?")
                      : "no CUDA device here");
        res_free(&list);
        return rc;
    }
    res_env_num(c->r, "device_count", n);
    for (i = 0; rc == SEC_OK && i < o->ndevices; i++)
        if (o->devices[i] >= n) {
            snprintf(why, sizeof why, "device %d does not exist: this machine has %d CUDA device%s "
                     "(0..%d)", o->devices[i], n, n == 1 ? "" : "s", n - 1);
            rc = nd_usage(c, asked, why);
        }
    for (i = 0; rc == SEC_OK && i < (o->device_all ? (size_t)n : o->ndevices); i++)
        if (nd_add(c, &list, o->device_all ? (int)i : o->devices[i]) != 0) {
            fprintf(stderr, "harness: --device=%s: out of memory\n", asked);
            rc = SEC_FAILED;
        }
    res_free(&list);
    return rc;
}

/* ---------------------------------------------------- the device runs --- */

/* A device child's time limit: none in practice (100 days). */
#define ND_NO_LIMIT_S 8.64e6

/* The answers of the devices' children, so far. */
typedef struct nd_tally {
    int usage, failed, no_gpu, ran;
} nd_tally;

/* Run device d's child and read its results into d->own; record its
 * outcome as a check of section node. */
static void nd_run_device(sec_ctx *c, res_device *d, nd_tally *t)
{
    const cli_opts *o = c->o;
    const char *args[CLI_MAX_ARGS + 2];
    char dev[32], why[512], detail[1200], what[200], span[32];
    double start;
    pr_result pr;
    size_t i, n = 0;
    int ok;

    for (i = 0; i < o->nchild_args; i++) args[n++] = o->child_args[i];
    snprintf(dev, sizeof dev, "--device=%d", d->ordinal);
    args[n++] = dev;
    args[n++] = "--child=device";
    snprintf(what, sizeof what, "device %d (%s) ran its sections", d->ordinal, d->pci_bus_id);
    /* A whole run of the sections: no time limit of its own (every wait on
     * the device and every child inside it has one). */
    start = tr_now();
    if (pr_run_self(args, n, NULL, 0, ND_NO_LIMIT_S, &pr, why, sizeof why) != 0) {
        snprintf(detail, sizeof detail, "its child could not be started: %s", why);
        res_check_add(c->r, ND_SECTION, what, 0, detail);
        t->failed = 1;
        return;
    }
    snprintf(span, sizeof span, "device %d", d->ordinal);
    tr_host(span, start, tr_now() - start);
    ok = sec_child_outcome(c, &pr, "--child=device", detail, sizeof detail);
    if (!pr.signal && pr.exit_code == 2) {
        t->usage = 1;               /* printed by the child; the same for every device */
    } else if (!pr.signal && pr.exit_code == 3) {
        t->no_gpu = 1;
        res_check_add(c->r, ND_SECTION, what, 0, "no usable GPU on this device (its message is above)");
    } else {
        if (pr.out && !pr.signal && (pr.exit_code == 0 || pr.exit_code == 1) &&
            res_read_lines(d->own, pr.out, why, sizeof why) < 0) {
            snprintf(detail, sizeof detail, "its child printed a malformed result: %.300s", why);
            ok = 0;
        }
        if (!ok && res_failed(d->own) > 0) {
            size_t at = strlen(detail);
            snprintf(detail + at, sizeof detail - at, "; %zu of its checks failed",
                     res_failed(d->own));
        }
        if (!ok && res_env_get(d->own, "first_error")) {
            size_t at = strlen(detail);
            snprintf(detail + at, sizeof detail - at, "; its first error: %s",
                     tb_env_str(d->own, "first_error", "?"));
        }
        if (ok && res_failed(d->own) > 0) {
            ok = 0;
            snprintf(detail, sizeof detail, "%zu of its checks failed", res_failed(d->own));
        }
        res_check_add(c->r, ND_SECTION, what, ok, detail);
        if (!ok) t->failed = 1;
        t->ran++;
    }
    if (!ok || d->own->incomplete) c->r->incomplete = 1;
    free(pr.out);
}

sec_status nd_run(sec_ctx *c)
{
    nd_tally t = { 0, 0, 0, 0 };
    size_t i;

    for (i = 0; i < c->r->ndev && !t.usage; i++) {
        res_device *d = &c->r->dev[i];
        sg_check();
        if (!c->o->quiet)
            fprintf(stderr, "harness: device %d (%s, %s): %zu of %zu\n", d->ordinal, d->name,
                    d->pci_bus_id, i + 1, c->r->ndev);
        nd_run_device(c, d, &t);
    }
    if (nd_summarize(c->r, c->o->node_threshold) != 0) {
        fprintf(stderr, "harness: node summary: out of memory\n");
        t.failed = 1;
    }
    if (t.usage) return SEC_USAGE;
    if (t.failed) return SEC_FAILED;
    if (t.no_gpu && !t.ran) return SEC_NO_GPU;
    return t.no_gpu ? SEC_FAILED : SEC_OK;
}

/* --------------------------------------------------------- the summary --- */

/* One figure across the devices that measured it. */
typedef struct nd_fig {
    size_t n;
    int ordinal[CLI_MAX_DEVICES];
    const char *bus[CLI_MAX_DEVICES];
    double med[CLI_MAX_DEVICES], lo[CLI_MAX_DEVICES], hi[CLI_MAX_DEVICES];
} nd_fig;

/* Gather figure section/key from every device of r. */
static void nd_gather(const results *r, const char *section, const char *key, nd_fig *g)
{
    size_t i;

    g->n = 0;
    for (i = 0; i < r->ndev && g->n < CLI_MAX_DEVICES; i++) {
        const res_meas *m = res_find(r->dev[i].own, section, key);
        if (!m || m->stats.n == 0 || !isfinite(m->stats.median)) continue;
        g->ordinal[g->n] = r->dev[i].ordinal;
        g->bus[g->n] = r->dev[i].pci_bus_id;
        g->med[g->n] = m->stats.median;
        g->lo[g->n] = m->stats.ci_low;
        g->hi[g->n] = m->stats.ci_high;
        g->n++;
    }
}

/* 1 when a device whose median has the interval [lo, hi] lies more than
 * thr percent from the node's median mid even at the near end of that
 * interval: beyond the threshold and beyond its own noise. */
static int nd_outlier(double mid, double lo, double hi, double thr)
{
    double band = fabs(mid) * thr / 100.0;
    return lo > mid + band || hi < mid - band;
}

/* Store the conclusion of one figure; counts each outlier in per[] (by
 * position in r->dev). Returns 1 when it names an outlier, 0 when not, -1
 * on out of memory. */
/* The node run's derived entries: one a figure across the devices
 * ("<section>/<key>", ND_FIG_KEY), and the summary. */
#define ND_FIG_KEY "<word>/<file>"
enum { ND_D_FIG, ND_D_SUMMARY, ND_NDERIVED };
static const sch_key nd_derived[ND_NDERIVED] = {
    [ND_D_FIG] = { ND_FIG_KEY, "", RES_WARM, "the figure across the node's devices",
                   "the median of the devices' medians; text: the devices off it; fields devices, min, "
                   "max, spread_pct, outliers, worst_ordinal, worst_pct" },
    [ND_D_SUMMARY] = { "summary", "", RES_WARM, "figures with a device off the node's median",
                       "text: each device off in some figure; fields figures, devices, threshold_pct, "
                       "dev<i>_outliers" },
};

void nd_schema(sch_out *o)
{
    sch_derived(o);
    sch_put_table(o, NULL, nd_derived, ND_NDERIVED);
}

/* The key of section's figure key across the devices, into buf. */
static void nd_fig_key(char *buf, size_t len, const char *section, const char *key)
{
    const char *const parts[2] = { section, key };
    sch_fill(buf, len, NULL, nd_derived[ND_D_FIG].key, parts, 2);
}

static int nd_figure(results *r, const char *section, const char *key, const nd_fig *g,
                     double thr, size_t *per)
{
    char dkey[300], text[2048];
    double mid = st_median(g->med, g->n), lo = g->med[0], hi = g->med[0], worst = 0;
    int worst_ord = -1;
    size_t i, j, out = 0, at = 0;
    res_derived *d;

    text[0] = '\0';
    for (i = 0; i < g->n; i++) {
        double dev = mid != 0 ? (g->med[i] - mid) / fabs(mid) * 100.0 : 0;
        if (g->med[i] < lo) lo = g->med[i];
        if (g->med[i] > hi) hi = g->med[i];
        if (!nd_outlier(mid, g->lo[i], g->hi[i], thr)) continue;
        out++;
        for (j = 0; j < r->ndev; j++)
            if (r->dev[j].ordinal == g->ordinal[i]) per[j]++;
        if (fabs(dev) > fabs(worst)) {
            worst = dev;
            worst_ord = g->ordinal[i];
        }
        if (at < sizeof text)
            at += (size_t)snprintf(text + at, sizeof text - at, "%sdevice %d (%s) %+.1f%%",
                                   at ? "; " : "", g->ordinal[i], g->bus[i], dev);
    }
    nd_fig_key(dkey, sizeof dkey, section, key);
    d = sch_derive(r, ND_SECTION, &nd_derived[ND_D_FIG], dkey, NULL, mid, text);
    if (!d || res_derived_field(d, "devices", (double)g->n) || res_derived_field(d, "min", lo) ||
        res_derived_field(d, "max", hi) ||
        res_derived_field(d, "spread_pct", mid != 0 ? (hi - lo) / fabs(mid) * 100.0 : NAN) ||
        res_derived_field(d, "outliers", (double)out) ||
        res_derived_field(d, "worst_ordinal", worst_ord) ||
        res_derived_field(d, "worst_pct", out ? worst : NAN))
        return -1;
    return out > 0;
}

/* The summary conclusion: figures, devices, threshold, each named device. */
static int nd_overall(results *r, size_t figures, size_t flagged, const size_t *per, double thr)
{
    char text[2048], name[40];
    size_t j, at = 0;
    res_derived *d;

    text[0] = '\0';
    for (j = 0; j < r->ndev; j++)
        if (per[j] && at < sizeof text)
            at += (size_t)snprintf(text + at, sizeof text - at, "%sdevice %d (%s) is off in %zu of "
                                   "%zu figures", at ? "; " : "", r->dev[j].ordinal,
                                   r->dev[j].pci_bus_id, per[j], figures);
    d = sch_derive(r, ND_SECTION, &nd_derived[ND_D_SUMMARY], NULL, NULL, (double)flagged, text);
    if (!d || res_derived_field(d, "figures", (double)figures) ||
        res_derived_field(d, "devices", (double)r->ndev) ||
        res_derived_field(d, "threshold_pct", thr))
        return -1;
    for (j = 0; j < r->ndev; j++) {
        if (!per[j]) continue;
        snprintf(name, sizeof name, "dev%d_outliers", r->dev[j].ordinal);
        if (res_derived_field(d, name, (double)per[j])) break;  /* full: the text has them all */
    }
    return 0;
}

/* 1 when figure section/key already has its conclusion in r. */
static int nd_done(const results *r, const char *section, const char *key)
{
    char dkey[300];
    nd_fig_key(dkey, sizeof dkey, section, key);
    return res_derived_find(r, ND_SECTION, dkey) != NULL;
}

int nd_summarize(results *r, double threshold_pct)
{
    size_t per[CLI_MAX_DEVICES] = { 0 }, figures = 0, flagged = 0, i, j;
    nd_fig *g = malloc(sizeof *g);
    int rc;

    if (!g) return -1;
    for (i = 0; i < r->ndev; i++) {
        const results *own = r->dev[i].own;
        for (j = 0; j < own->nm; j++) {
            const res_meas *m = &own->m[j];
            if (m->host_only || nd_done(r, m->section, m->key)) continue;
            nd_gather(r, m->section, m->key, g);
            if (g->n < 2) continue;
            rc = nd_figure(r, m->section, m->key, g, threshold_pct, per);
            if (rc < 0) goto fail;
            figures++;
            flagged += (size_t)rc;
        }
    }
    free(g);
    return nd_overall(r, figures, flagged, per, threshold_pct);
fail:
    free(g);
    return -1;
}

/* ---------------------------------------------------------- printing --- */

/* The most figures with an outlier the summary table lists (all are in
 * the JSON). */
#define ND_MAX_ROWS 30

static void nd_print_summary(FILE *f, const results *r)
{
    const res_derived *s = res_derived_find(r, ND_SECTION, nd_derived[ND_D_SUMMARY].key);
    size_t i, rows = 0, flagged;
    ly_table *t;

    if (!s || r->ndev == 0) return;
    fprintf(f, "\nnode summary: %zu device%s, %.0f figures measured on more than one\n", r->ndev,
            r->ndev == 1 ? "" : "s", res_derived_num(s, "figures"));
    if (r->ndev < 2) {
        fprintf(f, "  one device: nothing to compare it with\n");
        return;
    }
    tb_wrap(f, "  ", "  ", tb_width(), "A device is named when its median lies more than %g%% from the "
            "median across the devices even at the near end of its own interval.",
            res_derived_num(s, "threshold_pct"));
    flagged = (size_t)s->value;
    if (flagged == 0) {
        fprintf(f, "  every device within %g%% of the node's median (or within its own noise) in "
                "every figure\n", res_derived_num(s, "threshold_pct"));
        return;
    }
    tb_wrap(f, "  ", "  ", tb_width(), "%s.", s->text);
    /* The devices named wrap in their own column, beside their figure. */
    t = ly_new(2, 4);
    ly_column(t, 0, "figure (section/key)", LY_LEFT, 16);
    ly_column(t, 1, "node median", LY_RIGHT, 0);
    ly_column(t, 2, "spread", LY_RIGHT, 0);
    ly_column(t, 3, "devices named", LY_LEFT, 20);
    for (i = 0; i < r->nd && rows < ND_MAX_ROWS; i++) {
        const res_derived *d = &r->d[i];
        char med[32], spread[32];
        if (strcmp(d->section, ND_SECTION) != 0 || !d->text[0] || strcmp(d->key, nd_derived[ND_D_SUMMARY].key) == 0)
            continue;
        snprintf(med, sizeof med, "%.4g", d->value);
        snprintf(spread, sizeof spread, "%.1f%%", res_derived_num(d, "spread_pct"));
        ly_rowv(t, d->key, med, spread, d->text, NULL);
        rows++;
    }
    ly_print(f, t, tb_width());
    ly_free(t);
    if (flagged > rows)
        ly_para(f, 2, 4, tb_width(), "... and %zu more (every figure is in the JSON, section node)",
                flagged - rows);
}

void nd_print(FILE *f, const results *r, const cli_opts *o,
              void (*tables)(FILE *f, const results *own, const cli_opts *o))
{
    size_t i;

    for (i = 0; i < r->ndev; i++) {
        const res_device *d = &r->dev[i];
        fprintf(f, "\n======== device %d: %s (%s) ========\n", d->ordinal, d->name, d->pci_bus_id);
        tb_config(f, d->own, o);
        tables(f, d->own, o);
        tb_roofline(f, d->own);
        tb_checks(f, d->own);
    }
    nd_print_summary(f, r);
}
