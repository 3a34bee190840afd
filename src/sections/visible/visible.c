/* visible.c: section "visible": the child that times loading libcuda,
 * cuInit, cuDeviceGetCount and the first contexts as it sees devices, the
 * parent's rounds of children over the visible-device counts, and the
 * conclusions (visible.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sections/visible/visible.h"
#include "core/verdict.h"
#include "os/clock.h"
#include "os/phase.h"
#include "run/section.h"
#include "run/section_child.h"

#define VI "visible"
#define VI_CVD_MAX 4096         /* the longest CUDA_VISIBLE_DEVICES a child is given */

/* The child's figures (visible.h): the parts, in the order it times them,
 * then the figures besides them (vi_child_store). */
const sch_key vi_keys[VI_NKEYS] = {
    { "load", "ms", RES_PROCESS, "loading libcuda (dlopen + cuGetProcAddress)",
      "child's host clock from before dlopen of libcuda.so.1 to its last entry point resolved "
      "(cuGetProcAddress)" },
    { "init", "ms", RES_PROCESS, "cuInit", "child's host clock around cuInit(0)" },
    { "count", "ms", RES_PROCESS, "cuDeviceGetCount", "child's host clock around cuDeviceGetCount" },
    { "ctx0", "ms", RES_PROCESS, "the primary context on device 0",
      "child's host clock from before cuDeviceGet(0) to cuCtxSetCurrent returning: "
      "cuDeviceGet + cuDevicePrimaryCtxRetain + cuCtxSetCurrent" },
    { "ctx_others", "ms", RES_PROCESS, "the first contexts on devices 1..k-1",
      "child's host clock from before cuDeviceGet(1) to the last cuCtxSetCurrent returning: the "
      "same three calls on each of devices 1..k-1, one after another" },
    { "ready", "ms", RES_PROCESS, "cold start to device 0's context",
      "child's host clock from before dlopen of libcuda.so.1 to device 0's context current: the "
      "cold start of a process that uses device 0 alone (process start not included)" },
    { "total", "ms", RES_PROCESS, "cold start to the last context",
      "child's host clock from before dlopen of libcuda.so.1 to the last context current: the "
      "sum of the parts (process start and exit not included)" },
    { "devices", "devices", RES_PROCESS, "devices cuDeviceGetCount counted",
      "cuDeviceGetCount's answer in the child" },
};

/* The text of the entries devices and first_child: this process's own
 * visibility (vi_own_words). */
#define VI_OWN_WORDS "\"CUDA_VISIBLE_DEVICES=<this process's>\" or \"CUDA_VISIBLE_DEVICES unset\""
/* The text of a saving (vi_verdict), or a sentence when there is none. */
#define VI_SAVING_WORDS "\"intervals apart\", \"intervals overlap\" or \"one round\"; a " \
    "sentence when N is 1 or a count has no figures"
/* per_device's name, with k, k - 1, k - 1 (vi_per_device). */
#define VI_PER_DEVICE_FMT "the first context per extra device, %d visible: contexts on devices " \
    "1..%d over %d"

/* The conclusions (visible.h); the state is not written for them. */
const sch_key vi_derived[VI_ND] = {
    { "devices", "devices", RES_PROCESS, "devices this process sees (the first child's count)",
      VI_OWN_WORDS },
    { "first_child", "ms", RES_PROCESS, "the first child's cold start, to the last context "
      "current: one process, before the rounds", VI_OWN_WORDS },
    { "per_device", "ms", RES_PROCESS, "the first context per extra device, <k> visible: "
      "contexts on devices 1..<k - 1> over <k - 1>", "" },
    { "saving_one_gpu", "ms", RES_PROCESS, "what restricting to one visible device saves a "
      "process that uses device 0 alone: to its context current, N visible minus one",
      VI_SAVING_WORDS },
    { "saving", "ms", RES_PROCESS, "what restricting to one visible device saves a process that "
      "makes a context on every device it sees: the total, N visible minus one",
      VI_SAVING_WORDS },
};

char *vi_key(char *buf, size_t len, int k, const char *what)
{
    snprintf(buf, len, VI_KP "%d.%s", k, what);
    return buf;
}

/* -------------------------------------------------------------- child --- */

/* The child's state: the clock at the start and at the end of each part
 * (mark i + 1 ends part i), the count, and the devices whose primary
 * context it holds. */
typedef struct vi_child {
    long long mark[VI_NPARTS + 1];
    int nmarks;
    int count;                  /* cuDeviceGetCount's answer, -1 before it */
    CUdevice *dev;              /* room for count */
    int nretained;
    results r;
} vi_child;

static void vi_mark(vi_child *C)
{
    C->mark[C->nmarks++] = clk_now_ns();
}

/* No driver or no usable GPU (why): said on stderr, and kept as the child's
 * skip, which its lines carry to the parent (sec_run_child: the parent's
 * own skips then say "(as above)"). Returns 3, the exit code. */
static int vi_child_skip(vi_child *C, const char *why)
{
    sec_say(why);
    if (res_skip_section(&C->r, VI, why) != 0)
        fprintf(stderr, "harness: error: " VI ": out of memory\n");
    return 3;
}

/* The exit code for a drv_init or drv_device_count answer that is not
 * DRV_OK: 3 for no usable GPU (said: vi_child_skip), 1 for a failed call
 * (reported). */
static int vi_no_device(vi_child *C, int rc, const char *why)
{
    return rc == DRV_NO_GPU ? vi_child_skip(C, why) : 1;
}

/* The steps, in order. Each ends its part with a mark and returns 0, or
 * the exit code to end with: 1 a failed call (reported), 3 no driver or
 * no usable GPU (said). */

static int vi_child_load(vi_child *C)
{
    char why[512], reason[600];

    if (drv_load(why, sizeof why) != 0) {
        snprintf(reason, sizeof reason, "no CUDA driver: %s", why);
        return vi_child_skip(C, reason);
    }
    vi_mark(C);
    return 0;
}

static int vi_child_init(vi_child *C)
{
    char why[512];
    int rc = drv_init(why, sizeof why);

    if (rc != DRV_OK) return vi_no_device(C, rc, why);
    vi_mark(C);
    return 0;
}

/* cuDeviceGetCount; then room for the devices it holds (outside the part). */
static int vi_child_count(vi_child *C)
{
    char why[512];
    int count = 0, rc = drv_device_count(&count, why, sizeof why);

    if (rc != DRV_OK) return vi_no_device(C, rc, why);
    vi_mark(C);
    C->count = count;
    if (!(C->dev = calloc((size_t)count, sizeof *C->dev))) {
        fprintf(stderr, "harness: error: " VI ": out of memory for %d devices\n", count);
        return 1;
    }
    return 0;
}

/* Device d's primary context, retained (and kept for the release) and
 * current. Returns 0, or -1 after reporting a failed call. */
static int vi_retain(vi_child *C, int d)
{
    CUdevice dev;
    CUcontext ctx;

    CK(drv.cuDeviceGet(&dev, d));
    CK(drv.cuDevicePrimaryCtxRetain(&ctx, dev));
    C->dev[C->nretained++] = dev;
    CK(drv.cuCtxSetCurrent(ctx));
    return 0;
fail:
    return -1;
}

static int vi_child_ctx0(vi_child *C)
{
    if (vi_retain(C, 0) != 0) return 1;
    vi_mark(C);
    return 0;
}

/* Devices 1..count-1; no part when the child sees one device. */
static int vi_child_others(vi_child *C)
{
    int d;

    for (d = 1; d < C->count; d++)
        if (vi_retain(C, d) != 0) return 1;
    if (C->count > 1) vi_mark(C);
    return 0;
}

/* The last device still held, forgotten. Written inside the release
 * call's arguments, it is taken exactly when the call is made (an injected
 * fault makes none, cudadrv.h), so vi_child_end releases what is left and
 * nothing twice. */
static CUdevice vi_take(vi_child *C)
{
    return C->dev[--C->nretained];
}

static int vi_child_release(vi_child *C)
{
    while (C->nretained > 0) CK(drv.cuDevicePrimaryCtxRelease(vi_take(C)));
    return 0;
fail:
    return 1;
}

/* Store one sample v of figure i (vi_keys), its name followed by seen
 * when seen is not NULL. Returns 0, or -1 on out of memory. */
static int vi_child_one(vi_child *C, int i, const char *seen, double v)
{
    const sch_key *k = &vi_keys[i];
    char name[192];

    snprintf(name, sizeof name, "%s, %s", k->name, seen ? seen : "");
    return res_add(&C->r, VI, k->key, seen ? name : k->name, k->desc, k->state, k->unit, &v, 1)
           ? 0 : -1;
}

/* Store one sample of every part that ended, of the cold start to device
 * 0's context (ready) once it is current, of the total when every part
 * did, and of the count when it was answered. Returns 0, or -1 on out of
 * memory. */
static int vi_child_store(vi_child *C)
{
    char seen[64];
    double v;
    int i, all = C->count > 0 && C->nmarks == (C->count > 1 ? VI_NPARTS + 1 : VI_NPARTS);

    if (C->count > 0)
        snprintf(seen, sizeof seen, "%d visible device%s", C->count, C->count == 1 ? "" : "s");
    else
        snprintf(seen, sizeof seen, "before the device count");
    for (i = 0; i + 1 < C->nmarks; i++) {
        v = (double)(C->mark[i + 1] - C->mark[i]) / 1e6;
        if (vi_child_one(C, i, seen, v) != 0) return -1;
    }
    v = (double)(C->mark[VI_NPARTS - 1] - C->mark[0]) / 1e6;
    if (C->nmarks >= VI_NPARTS && vi_child_one(C, VI_K_READY, seen, v) != 0) return -1;
    v = (double)(C->mark[C->nmarks - 1] - C->mark[0]) / 1e6;
    if (all && vi_child_one(C, VI_K_TOTAL, seen, v) != 0) return -1;
    v = C->count;
    if (C->count > 0 && vi_child_one(C, VI_K_DEVICES, NULL, v) != 0) return -1;
    return 0;
}

/* Release what is still held (nothing after a whole release), unchecked. */
static void vi_child_end(vi_child *C)
{
    while (C->nretained > 0) drv.cuDevicePrimaryCtxRelease(C->dev[--C->nretained]);
    free(C->dev);
    C->dev = NULL;
}

int sec_visible_child(const cli_opts *o, long long t_main_ns)
{
    static int (*const steps[])(vi_child *) = {
        vi_child_load, vi_child_init, vi_child_count, vi_child_ctx0, vi_child_others,
        vi_child_release
    };
    size_t i;
    vi_child C;
    int rc = 0;

    (void)o;
    (void)t_main_ns;
    memset(&C, 0, sizeof C);
    C.count = -1;
    res_init(&C.r);
    ph_set(VI ": child");
    vi_mark(&C);
    for (i = 0; rc == 0 && i < sizeof steps / sizeof steps[0]; i++) rc = steps[i](&C);
    vi_child_end(&C);
    if (vi_child_store(&C) != 0) {
        fprintf(stderr, "harness: error: " VI ": out of memory storing the child's figures\n");
        if (rc == 0) rc = 1;
    }
    rc = sec_child_end(&C.r, rc);
    res_free(&C.r);
    ph_set(NULL);
    return rc;
}

/* ------------------------------------------------------- pure helpers --- */

size_t vi_counts(int n, int *k, size_t cap)
{
    size_t m = 0;
    long p;

    if (n < 1) return 0;
    if (n <= 4) {
        for (p = 1; p <= n && m < cap; p++) k[m++] = (int)p;
        return m;
    }
    for (p = 1; p < n && m < cap; p *= 2) k[m++] = (int)p;
    if (m < cap) k[m++] = n;
    return m;
}

int vi_visible_prefix(const char *parent, int k, char *buf, size_t len, const char **why)
{
    const char *p = parent, *end, *entry;
    char num[16];
    size_t at = 0, n;
    int i;

    if (k < 1 || len == 0) {
        *why = "a count below 1";
        return -1;
    }
    for (i = 0; i < k; i++) {
        if (!parent) {
            snprintf(num, sizeof num, "%d", i);
            entry = num;
            n = strlen(num);
        } else if (!p) {
            *why = "it has fewer entries";
            return -1;
        } else {
            entry = p;
            end = strchr(p, ',');
            n = end ? (size_t)(end - p) : strlen(p);
            p = end ? end + 1 : NULL;
        }
        if (at + (i > 0) + n + 1 > len) {
            *why = "the list is too long";
            return -1;
        }
        if (i > 0) buf[at++] = ',';
        memcpy(buf + at, entry, n);
        at += n;
    }
    buf[at] = '\0';
    return 0;
}

/* ------------------------------------------------------------- parent --- */

/* Store the section's entry i of vi_derived (its key, name and unit), of
 * value and text. Returns it, or NULL on out of memory. */
static res_derived *vi_derive(results *r, int i, double value, const char *text)
{
    const sch_key *k = &vi_derived[i];
    return res_derive(r, VI, k->key, k->name, value, k->unit, text);
}

/* The parent's rounds: what the first child found and the plan. */
typedef struct vi_run {
    sec_ctx *c;
    const char *own;            /* this process's CUDA_VISIBLE_DEVICES; NULL when unset */
    int n;                      /* N: the devices the first child counted */
    int k[VI_MAX_COUNTS];
    size_t nk;
    int failed;                 /* a child failed or miscounted (recorded) */
} vi_run;

/* The count a child's results report, or -1 when they hold none. */
static int vi_seen(const results *child)
{
    const res_meas *m = res_find(child, VI, vi_keys[VI_K_DEVICES].key);
    return m && m->nsamples == 1 && m->samples[0] >= 1 ? (int)m->samples[0] : -1;
}

/* Run one child: with CUDA_VISIBLE_DEVICES cvd, or this process's own
 * visibility when cvd is NULL. Returns as sec_run_child (SEC_OK ran,
 * SEC_FAILED did not: detail says why, SEC_ERROR the section stops);
 * *seen the count it reported (-1 none), even when it failed after
 * counting. */
static sec_status vi_spawn(vi_run *R, const char *cvd, int *seen, results *child, char *detail,
                    size_t detaillen)
{
    char arg[64], env[VI_CVD_MAX + 32];
    const char *args[1] = { arg }, *set[1] = { env };
    sec_status st;

    snprintf(arg, sizeof arg, "--child=%s", cli_child_name(CLI_CHILD_VISIBLE));
    snprintf(env, sizeof env, "CUDA_VISIBLE_DEVICES=%s", cvd ? cvd : "");
    st = sec_run_child(R->c, args, 1, set, cvd ? 1 : 0, child, detail, detaillen);
    *seen = st == SEC_ERROR ? -1 : vi_seen(child);
    return st;
}

/* "CUDA_VISIBLE_DEVICES=..." or "CUDA_VISIBLE_DEVICES unset", for this
 * process's own visibility, into buf. */
static const char *vi_own_words(const vi_run *R, char *buf, size_t len)
{
    if (R->own) snprintf(buf, len, "CUDA_VISIBLE_DEVICES=%.300s", R->own);
    else snprintf(buf, len, "CUDA_VISIBLE_DEVICES unset");
    return buf;
}

/* The invariant the section rests on, recorded as a check: this process
 * has not loaded libcuda (so it holds no device while the children start).
 * Returns 0, or -1 on out of memory (said). */
static int vi_parent_clean(vi_run *R)
{
    int clean = drv.cuInit == NULL;

    if (res_check_add(R->c->r, VI, "this process had not loaded libcuda when the children ran",
                      clean, clean ? "libcuda not loaded in the parent" : "libcuda was loaded "
                      "in the parent before the section ran") != 0) {
        fprintf(stderr, "harness: error: " VI ": out of memory\n");
        return -1;
    }
    if (!clean) {
        fprintf(stderr, "harness: " VI ": libcuda was loaded in this process before the section ran\n");
        R->failed = 1;
    }
    return 0;
}

/* The first child's figures as derived "first_child" (its total, and each
 * of its figures in ms as a field): one process, before the rounds, with
 * this process's own visibility, so a figure of one sample that row N of
 * the rounds measures --rounds times; kept for what it shows, not as a
 * measurement to compare. Returns 0, or -1 on out of memory. */
static int vi_first_child(vi_run *R, const results *child)
{
    const res_meas *t = res_find(child, VI, vi_keys[VI_K_TOTAL].key);
    char words[400];
    res_derived *d;
    size_t i;

    d = vi_derive(R->c->r, VI_D_FIRST_CHILD, t ? t->stats.median : NAN,
                  vi_own_words(R, words, sizeof words));
    if (!d) return -1;
    for (i = 0; i < child->nm; i++) {
        const res_meas *m = &child->m[i];
        if (strcmp(m->unit, "ms") == 0 && res_derived_field(d, m->key, m->stats.median) != 0)
            return -1;
    }
    return 0;
}

/* The first child, with this process's own visibility: N, and its figures
 * (vi_first_child). Returns 0, or -1 when the section stops (no count:
 * recorded). */
static int vi_discover(vi_run *R)
{
    char detail[512], what[512], words[400];
    results child;
    sec_status st;
    int ok, seen;

    st = vi_spawn(R, NULL, &seen, &child, detail, sizeof detail);
    ok = st == SEC_ERROR ? -1 : st == SEC_OK;
    snprintf(what, sizeof what, "the first child, with this process's own visibility (%s), ran "
             "and counted its devices", vi_own_words(R, words, sizeof words));
    if (ok > 0 && seen < 1) {
        ok = 0;
        snprintf(detail, sizeof detail, "the child %s reported no device count",
                 cli_child_name(CLI_CHILD_VISIBLE));
        R->c->r->incomplete = 1;
    }
    if (ok > 0) {
        snprintf(detail, sizeof detail, "it counted %d device%s", seen, seen == 1 ? "" : "s");
        if (vi_first_child(R, &child) != 0) {
            fprintf(stderr, "harness: error: " VI ": out of memory storing the first child's figures\n");
            ok = -1;
        }
    }
    if (ok >= 0) res_check_add(R->c->r, VI, what, ok, detail);
    if (ok == 0) {
        fprintf(stderr, "harness: " VI ": %s: %s\n", what, detail);
        R->failed = 1;
    }
    res_free(&child);
    R->n = seen;
    return ok < 0 || seen < 1 ? -1 : 0;
}

/* The counts, and the "devices" entry that names N. Returns 0 or -1. */
static int vi_plan(vi_run *R)
{
    char words[400];
    res_derived *d;

    R->nk = vi_counts(R->n, R->k, VI_MAX_COUNTS);
    d = vi_derive(R->c->r, VI_D_DEVICES, R->n, vi_own_words(R, words, sizeof words));
    if (!d || res_derived_field(d, "n", R->n) != 0 ||
        res_derived_field(d, "rounds", R->c->o->rounds) != 0 ||
        res_derived_field(d, "counts", (double)R->nk) != 0) {
        fprintf(stderr, "harness: error: " VI ": out of memory\n");
        return -1;
    }
    return 0;
}

/* A child of count k that did not run or did not count k: named in a
 * failed check and on stderr; the count is not measured in this round. */
static void vi_failed(vi_run *R, const char *what, const char *detail)
{
    res_check_add(R->c->r, VI, what, 0, detail);
    fprintf(stderr, "harness: " VI ": %s: %s\n", what, detail);
    R->c->r->incomplete = 1;
    R->failed = 1;
}

/* One child of count k in round (from 0); its figures kept as one more
 * sample of k<k>.*. Returns 0 (a failure recorded), or -1 when the section
 * stops (a child that could not start, or exited 2 or 3; out of memory). */
static int vi_count_once(vi_run *R, int k, int round)
{
    char cvd[VI_CVD_MAX], what[512], detail[512], prefix[32];
    const char *why;
    results child;
    sec_status st;
    int ok, seen;

    if (vi_visible_prefix(R->own, k, cvd, sizeof cvd, &why) != 0) {
        snprintf(what, sizeof what, "%d visible, round %d: CUDA_VISIBLE_DEVICES of the first %d "
                 "entries", k, round + 1, k);
        snprintf(detail, sizeof detail, "the first %d entries of CUDA_VISIBLE_DEVICES=%.300s: %s", k,
                 R->own ? R->own : "", why);
        vi_failed(R, what, detail);
        return 0;
    }
    snprintf(what, sizeof what, "%d visible, round %d: the child with CUDA_VISIBLE_DEVICES=%.300s "
             "ran and counted %d", k, round + 1, cvd, k);
    st = vi_spawn(R, cvd, &seen, &child, detail, sizeof detail);
    ok = st == SEC_ERROR ? -1 : st == SEC_OK;
    if (ok < 0) {
        res_free(&child);
        return -1;
    }
    if (ok && seen != k)
        snprintf(detail, sizeof detail, "it counted %d device%s, not %d: CUDA_VISIBLE_DEVICES not "
                 "honoured", seen, seen == 1 ? "" : "s", k);
    if (ok && seen == k) {
        vi_key(prefix, sizeof prefix, k, "");
        snprintf(detail, sizeof detail, "it counted %d", k);
        res_check_add(R->c->r, VI, what, 1, detail);
        ok = sec_accumulate(R->c->r, VI, prefix, &child) == 0 ? 1 : -1;
    } else {
        vi_failed(R, what, detail);
    }
    res_free(&child);
    return ok < 0 ? -1 : 0;
}

/* --rounds rounds of one child per count, in vd_order's balanced order
 * (each count right after every other equally often). Returns 0, or -1
 * when the section stops. */
static int vi_rounds(vi_run *R)
{
    size_t i;
    int round;

    for (round = 0; round < R->c->o->rounds; round++)
        for (i = 0; i < R->nk; i++)
            if (vi_count_once(R, R->k[vd_order(R->nk, (size_t)round, i)], round) != 0) return -1;
    return 0;
}

/* The section's code after a child stopped it: the missing GPU or usage
 * error a child found (printed by it; the skip recorded here), else a
 * failure. */
static int vi_stopped(vi_run *R)
{
    if (R->c->child_usage) return SEC_USAGE;
    if (!R->c->child_no_gpu) return SEC_FAILED;
    res_skip_section(R->c->r, VI, "its child found no CUDA driver or no usable GPU (its message "
                     "is above)");
    fprintf(stderr, "harness: " VI ": skipped: its child found no CUDA driver or no usable GPU "
            "(the line above)\n");
    return R->failed ? SEC_FAILED : SEC_NO_GPU;
}

static int vi_measure(vi_run *R)
{
    if (vi_parent_clean(R) != 0) return SEC_FAILED;
    if (vi_discover(R) != 0) return vi_stopped(R);
    if (vi_plan(R) != 0) return SEC_FAILED;
    if (vi_rounds(R) != 0) return vi_stopped(R);
    return R->failed ? SEC_FAILED : SEC_OK;
}

sec_status sec_visible(sec_ctx *c)
{
    vi_run R;
    int rc;

    memset(&R, 0, sizeof R);
    R.c = c;
    R.own = getenv("CUDA_VISIBLE_DEVICES");
    ph_set(VI ": children");
    rc = vi_measure(&R);
    if (vi_conclude(c->r) != 0) {
        fprintf(stderr, "harness: error: " VI ": out of memory storing the conclusions\n");
        rc = SEC_FAILED;
    }
    ph_set(NULL);
    return rc;
}

/* -------------------------------------------------------- conclusions --- */

/* The measurement "k<k>.<figure>" (vi_keys), or NULL. */
static const res_meas *vi_m(const results *r, int k, int figure)
{
    char key[64];
    return res_find(r, VI, vi_key(key, sizeof key, k, vi_keys[figure].key));
}

/* k<k>.per_device for each count k > 1 with its contexts measured. */
static int vi_per_device(results *r, const int *k, size_t nk)
{
    char key[64], name[128];
    res_derived *d;
    size_t i;

    for (i = 0; i < nk; i++) {
        const res_meas *m = vi_m(r, k[i], VI_K_CTX_OTHERS);
        if (k[i] < 2 || !m) continue;
        vi_key(key, sizeof key, k[i], vi_derived[VI_D_PER_DEVICE].key);
        snprintf(name, sizeof name, VI_PER_DEVICE_FMT, k[i], k[i] - 1, k[i] - 1);
        d = res_derive(r, VI, key, name, m->stats.median / (k[i] - 1),
                       vi_derived[VI_D_PER_DEVICE].unit, vi_derived[VI_D_PER_DEVICE].desc);
        if (!d || res_derived_field(d, "k", k[i]) != 0 ||
            res_derived_field(d, vi_keys[VI_K_CTX_OTHERS].key, m->stats.median) != 0)
            return -1;
    }
    return 0;
}

/* The saving's verdict on two medians' intervals. */
static const char *vi_verdict(const st_summary *one, const st_summary *all)
{
    if (one->n < 2 || all->n < 2) return "one round";
    return all->ci_low > one->ci_high || one->ci_low > all->ci_high ? "intervals apart"
                                                                    : "intervals overlap";
}

/* The two savings: of a process that uses device 0 alone (to its context
 * current) and of one that makes a context on every device it sees (the
 * total). */
static const struct {
    int entry, figure;          /* vi_derived's, vi_keys' */
} vi_savings[2] = {
    { VI_D_SAVING_ONE_GPU, VI_K_READY },
    { VI_D_SAVING, VI_K_TOTAL },
};

/* Saving i when N is 1, or a count of the two is not measured: a text. */
static int vi_saving_text(results *r, int n, int i)
{
    int missing = vi_m(r, 1, vi_savings[i].figure) ? n : 1;
    char text[512];
    res_derived *d;

    if (n == 1)
        snprintf(text, sizeof text, "Only one device is visible to this process, so there is "
                 "nothing to restrict. On a node of several, this section measures each count "
                 "with CUDA_VISIBLE_DEVICES, which the driver respects.");
    else
        snprintf(text, sizeof text, "No saving: %d visible has no figures (its children failed, "
                 "or did not count %d: see the checks).", missing, missing);
    d = vi_derive(r, vi_savings[i].entry, NAN, text);
    return d && res_derived_field(d, "n", n) == 0 ? 0 : -1;
}

/* Field "<figure><suffix>" of d. */
static int vi_field(res_derived *d, const char *figure, const char *suffix, double v)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", figure, suffix);
    return res_derived_field(d, name, v);
}

/* Saving i: the figure's median with N visible minus with one. */
static int vi_saving(results *r, int n, int i)
{
    const char *fig = vi_keys[vi_savings[i].figure].key;
    const res_meas *one = vi_m(r, 1, vi_savings[i].figure), *all = vi_m(r, n, vi_savings[i].figure);
    double save;
    res_derived *d;

    if (n == 1 || !one || !all) return vi_saving_text(r, n, i);
    save = all->stats.median - one->stats.median;
    d = vi_derive(r, vi_savings[i].entry, save, vi_verdict(&one->stats, &all->stats));
    if (!d || res_derived_field(d, "n", n) != 0 ||
        res_derived_field(d, "pct", 100.0 * save / all->stats.median) != 0 ||
        vi_field(d, fig, "_1", one->stats.median) != 0 ||
        vi_field(d, fig, "_n", all->stats.median) != 0 ||
        vi_field(d, fig, "_1_low", one->stats.ci_low) != 0 ||
        vi_field(d, fig, "_1_high", one->stats.ci_high) != 0 ||
        vi_field(d, fig, "_n_low", all->stats.ci_low) != 0 ||
        vi_field(d, fig, "_n_high", all->stats.ci_high) != 0)
        return -1;
    return 0;
}

int vi_conclude(results *r)
{
    const res_derived *dev = res_derived_find(r, VI, vi_derived[VI_D_DEVICES].key);
    int k[VI_MAX_COUNTS], n;
    size_t nk;

    if (!dev) return 0;
    n = (int)res_derived_num(dev, "n");
    nk = vi_counts(n, k, VI_MAX_COUNTS);
    if (nk == 0) return 0;
    if (vi_per_device(r, k, nk) != 0) return -1;
    return vi_saving(r, n, 0) != 0 || vi_saving(r, n, 1) != 0 ? -1 : 0;
}

void vi_schema(sch_out *o)
{
    int i;
    sch_put_table(o, VI_KP "<i>.", vi_keys, VI_NKEYS);
    sch_derived(o);
    for (i = 0; i < VI_ND; i++) sch_put(o, i == VI_D_PER_DEVICE ? VI_KP "<i>." : NULL, &vi_derived[i], NULL);
}
