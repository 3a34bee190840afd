/* stopwatches.c: section "stopwatches": one vectorAdd over the lesson's n
 * timed five ways (lesson "Why your GPU code looks slower than your CPU"),
 * the child process that is row 1, the first launch taken apart
 * (firstlaunch.c) and the rows' conclusions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "sections/stopwatches/stopwatches.h"
#include "core/answer.h"
#include "cuda/rtc.h"
#include "cuda/timing.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/proc.h"
#include "run/section.h"
#include "run/section_child.h"
#include "run/section_vec.h"
#include "sections/stopwatches/firstlaunch.h"

/* A part of row 1's waterfall, as the parent keeps it: the child's name
 * of it (sw_child's lines) is both its name and, after SW_WF_REGION, its
 * region. */
#define SW_WF_REGION "child: "
#define SW_WF(part, name) \
    { SW_WATERFALL part, "ms", RES_PROCESS, name, SW_WF_REGION name }

/* ------------------------------------------------------------- child --- */

/* The child's waterfall: consecutive regions on one clock, from the
 * parent's spawn to the end of teardown. */
typedef struct sw_fall {
    long long last_ns;
    FILE *out;
} sw_fall;

/* The clock where the last part ended, and the stream the parts go to, for
 * the exit handler. */
static long long sw_exit_from;
static FILE *sw_out;

/* Runs inside exit(), after the handlers the driver and NVRTC registered
 * (those run first: they were registered later), so the child can name the
 * time its libraries' exit handlers took. stdio is flushed after this. */
/* A part's line for the parent: its name in the waterfall (what follows
 * SW_WATERFALL in its key), its name, its ms. */
static void sw_part_line(FILE *out, const char *part, const char *name, double ms)
{
    fprintf(out, "part\t%s\t%s\t%.6f\n", part, name, ms);
}

/* Part i's name in the waterfall (sw_keys). */
static const char *sw_part_of(int i)
{
    return sw_keys[i].key + strlen(SW_WATERFALL);
}

static void sw_at_exit(void)
{
    sw_part_line(sw_out, sw_part_of(SW_K_WF_EXIT), sw_keys[SW_K_WF_EXIT].name,
                 (double)(clk_now_ns() - sw_exit_from) / 1e6);
}

/* Part i (sw_keys), named name (NULL: as declared), from the last part's
 * end to now. */
static void sw_part_as(sw_fall *w, int i, const char *name)
{
    long long now = clk_now_ns();
    sw_part_line(w->out, sw_part_of(i), name ? name : sw_keys[i].name,
                 (double)(now - w->last_ns) / 1e6);
    w->last_ns = now;
}

static void sw_part(sw_fall *w, int i)
{
    sw_part_as(w, i, NULL);
}

/* Under --module-format=ptx: the compile's name, and the module load split
 * at the driver's JIT (sw_child_module; the JIT's part is SW_K_WF_JIT). */
#define SW_PTX_COMPILE "compile vector.cu to PTX (NVRTC)"
#define SW_PTX_MODULE "module load, apart from the JIT (cuModuleLoadDataEx)"

/* Move the pipe to the parent from stdout to descriptor 0. At exit the
 * kernel closes descriptors in ascending order but releases them last-closed
 * first, so the pipe on the lowest descriptor is released after the driver's
 * own files, and the parent's EOF marks the end of that teardown. stdout goes
 * to /dev/null. Falls back to stdout. */
static FILE *sw_low_stdout(void)
{
    int nul = open("/dev/null", O_WRONLY);
    FILE *f;
    if (nul < 0) return stdout;
    if (dup2(STDOUT_FILENO, STDIN_FILENO) < 0 || !(f = fdopen(STDIN_FILENO, "w"))) {
        close(nul);
        return stdout;
    }
    if (dup2(nul, STDOUT_FILENO) < 0) {
        close(nul);
        return stdout;
    }
    close(nul);
    return f;
}

/* The whole-process child's state: every handle it holds, so that one
 * cleanup (sw_child_end) releases what is left on every path. */
typedef struct sw_child {
    const cli_opts *o;
    sw_fall w;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr da, db, dout;
    float *a, *b, *out;
    char *src;
    rtc_out code;
    kn_bad bad;
} sw_child;

/* The handle to release, cleared. Written inside the release call's
 * arguments, it is cleared exactly when the call is made (an injected fault
 * makes none, cudadrv.h), so a failed release is not repeated by
 * sw_child_end and one never made is made there. */
static CUdeviceptr sw_take_mem(CUdeviceptr *p)
{
    CUdeviceptr d = *p;
    *p = 0;
    return d;
}

static CUmodule sw_take_module(CUmodule *m)
{
    CUmodule d = *m;
    *m = NULL;
    return d;
}

/* The device whose primary context C holds; the context cleared. */
static CUdevice sw_take_context(sw_child *C)
{
    C->ctx = NULL;
    return C->dev;
}

/* Start the waterfall: the pipe to the parent, the exit handler, exec to
 * main, then libcuda. Returns 0, or the exit code to return at once
 * (nothing is held yet): 1 when the exit handler cannot be registered, 3
 * when there is no driver. */
static int sw_child_start(sw_child *C, const cli_opts *o, long long t_main_ns)
{
    char why[512];

    memset(C, 0, sizeof *C);
    C->o = o;
    C->w.last_ns = o->child_t0_ns;
    C->w.out = sw_out = sw_low_stdout();
    ph_set(SW ": whole-process child");
    /* Row 1's program is the lesson's: its fill and check on one thread. */
    kn_host_threads(1);
    if (atexit(sw_at_exit) != 0) return 1;
    /* exec to main: posix_spawn, exec, the dynamic linker, libc start. */
    sw_part_line(C->w.out, sw_part_of(SW_K_WF_EXEC), sw_keys[SW_K_WF_EXEC].name,
                 (double)(t_main_ns - C->w.last_ns) / 1e6);
    C->w.last_ns = t_main_ns;
    if (drv_load(why, sizeof why) != 0) {
        fprintf(stderr, "harness: no CUDA driver: %s\n", why);
        return 3;
    }
    sw_part(&C->w, SW_K_WF_LIBCUDA);
    return 0;
}

/* The steps after libcuda, in order. Each appends its parts of the
 * waterfall and returns 0, or the exit code to end with: 1 a failed call
 * (reported) or a failed check, 2 a --device this machine lacks, 3 no
 * usable GPU or no NVRTC. */

/* cuInit, then the device's primary context, current. */
static int sw_child_context(sw_child *C)
{
    char why[512];
    int count = 0, rc;

    if ((rc = drv_init(why, sizeof why)) != DRV_OK) goto no_device;
    sw_part(&C->w, SW_K_WF_INIT);
    if ((rc = drv_device_count(&count, why, sizeof why)) != DRV_OK) goto no_device;
    if (C->o->device >= count) {
        fprintf(stderr, "harness: --device=%d: this machine has %d CUDA device%s (0..%d)\n",
                C->o->device, count, count == 1 ? "" : "s", count - 1);
        return 2;
    }
    CK(drv.cuDeviceGet(&C->dev, C->o->device));
    CK(drv.cuDevicePrimaryCtxRetain(&C->ctx, C->dev));
    CK(drv.cuCtxSetCurrent(C->ctx));
    sw_part(&C->w, SW_K_WF_CONTEXT);
    return 0;
no_device:
    /* No usable GPU: exit 3 with the answer; a failed call was reported. */
    if (rc == DRV_NO_GPU) sec_say(why);
    return rc == DRV_NO_GPU ? 3 : 1;
fail:
    return 1;
}

static int sw_child_nvrtc(sw_child *C)
{
    char why[512];

    if (rtc_load(why, sizeof why) != 0) {
        fprintf(stderr, "harness: no NVRTC: %s\n", why);
        return 3;
    }
    sw_part(&C->w, SW_K_WF_LIBNVRTC);
    return 0;
}

/* vector.cu to cubin or PTX (--module-format) for --arch, else the device's. */
static int sw_child_compile(sw_child *C)
{
    const cli_opts *o = C->o;
    char why[512], arch[16], path[4096];
    int major = 0, minor = 0;

    if (o->arch) {
        snprintf(arch, sizeof arch, "%s", o->arch);
    } else {
        CK(drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, C->dev));
        CK(drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, C->dev));
        snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
    }
    C->src = kn_source("vector.cu", o->kernels_dir, why, sizeof why);
    if (!C->src) {
        fprintf(stderr, "harness: error: kernel source: %s\n", why);
        return 1;
    }
    snprintf(path, sizeof path, "%s/vector.cu", o->kernels_dir ? o->kernels_dir : "kernels");
    if (rtc_compile(C->src, path, arch, o->format == CLI_FMT_PTX ? RTC_PTX : RTC_CUBIN, NULL, 0,
                    &C->code) != RTC_OK) {
        fprintf(stderr, "harness: error: %s does not compile for %s:\n%s", path, arch,
                C->code.log ? C->code.log : "");
        return 1;
    }
    sw_part_as(&C->w, SW_K_WF_COMPILE, o->format == CLI_FMT_PTX ? SW_PTX_COMPILE : NULL);
    return 0;
fail:
    return 1;
}

/* The module load (for PTX split at the driver's JIT wall time: the JIT is
 * its own part), then vectorAdd. */
static int sw_child_module(sw_child *C)
{
    double load_ms, jit_ms;

    if (drv_load_image(C->code.code, -1, &C->mod, &load_ms, &jit_ms) != 0) return 1;
    if (C->o->format == CLI_FMT_PTX) {
        long long end = C->w.last_ns + (long long)((load_ms - jit_ms) * 1e6);
        long long now = clk_now_ns();
        sw_part_line(C->w.out, sw_part_of(SW_K_WF_MODULE), SW_PTX_MODULE,
                     (double)(end - C->w.last_ns) / 1e6);
        sw_part_line(C->w.out, sw_part_of(SW_K_WF_JIT), sw_keys[SW_K_WF_JIT].name,
                     (double)(now - end) / 1e6);
        C->w.last_ns = now;
    } else {
        sw_part(&C->w, SW_K_WF_MODULE);
    }
    CK(drv.cuModuleGetFunction(&C->fn, C->mod, "vectorAdd"));
    sw_part(&C->w, SW_K_WF_FUNCTION);
    return 0;
fail:
    return 1;
}

/* The device buffers, then the host's, inputs filled and the output
 * poisoned. */
static int sw_child_buffers(sw_child *C)
{
    size_t bytes = SW_N * sizeof(float);

    CK(drv.cuMemAlloc(&C->da, bytes));
    CK(drv.cuMemAlloc(&C->db, bytes));
    CK(drv.cuMemAlloc(&C->dout, bytes));
    sw_part(&C->w, SW_K_WF_ALLOC);
    C->a = malloc(bytes);
    C->b = malloc(bytes);
    C->out = malloc(bytes);
    if (!C->a || !C->b || !C->out) {
        fprintf(stderr, "harness: error: out of host memory\n");
        return 1;
    }
    kn_fill(C->a, SW_N, 1);
    kn_fill(C->b, SW_N, 2);
    kn_poison(C->out, SW_N);
    sw_part(&C->w, SW_K_WF_HOST);
    return 0;
fail:
    return 1;
}

/* The program's work: copies in, the kernel's first launch, the copy back,
 * the check on the CPU (its outcome kept for sw_child_verdict). */
static int sw_child_run(sw_child *C)
{
    size_t bytes = SW_N * sizeof(float);
    unsigned blocks = (unsigned)((SW_N + SEC_BLOCK - 1) / SEC_BLOCK);
    int ni = (int)SW_N;
    void *params[4];

    CK(drv.cuMemcpyHtoD(C->da, C->a, bytes));
    CK(drv.cuMemcpyHtoD(C->db, C->b, bytes));
    sw_part(&C->w, SW_K_WF_COPYIN);
    params[0] = &C->da;
    params[1] = &C->db;
    params[2] = &C->dout;
    params[3] = &ni;
    CK(drv.cuLaunchKernel(C->fn, blocks, 1, 1, SEC_BLOCK, 1, 1, 0, NULL, params, NULL));
    CK(drv.cuStreamSynchronize(NULL));
    sw_part(&C->w, SW_K_WF_KERNEL);
    CK(drv.cuMemcpyDtoH(C->out, C->dout, bytes));
    sw_part(&C->w, SW_K_WF_COPYOUT);
    kn_check_add(C->a, C->b, C->out, SW_N, &C->bad);
    sw_part(&C->w, SW_K_WF_CHECK);
    return 0;
fail:
    return 1;
}

/* Release everything, each handle once (sw_take_*), then unload the
 * libraries. */
static int sw_child_teardown(sw_child *C)
{
    CK(drv.cuMemFree(sw_take_mem(&C->da)));
    CK(drv.cuMemFree(sw_take_mem(&C->db)));
    CK(drv.cuMemFree(sw_take_mem(&C->dout)));
    CK(drv.cuModuleUnload(sw_take_module(&C->mod)));
    CK(drv.cuDevicePrimaryCtxRelease(sw_take_context(C)));
    free(C->a);
    free(C->b);
    free(C->out);
    C->a = C->b = C->out = NULL;
    rtc_out_free(&C->code);
    free(C->src);
    C->src = NULL;
    sw_part(&C->w, SW_K_WF_TEARDOWN);
    rtc_unload();
    drv_unload();
    sw_part(&C->w, SW_K_WF_DLCLOSE);
    return 0;
fail:
    return 1;
}

/* The check's line for the parent; 0 when every element matched, else 1. */
static int sw_child_verdict(sw_child *C)
{
    const kn_bad *bad = &C->bad;
    size_t n = SW_N;

    if (bad->count == 0) {
        fprintf(C->w.out, "check\t1\t%zu of %zu elements match\n", n, n);
        return 0;
    }
    fprintf(C->w.out, "check\t0\t%zu of %zu elements wrong; first at %zu: got %.9g, "
            "expected %.9g\n", bad->count, n, bad->first, bad->got, bad->want);
    return 1;
}

/* Release what is still held (nothing after a whole teardown), flush the
 * parts, and hand the exit handler its starting clock. Returns rc, or 1
 * when the flush failed. */
static int sw_child_end(sw_child *C, int rc)
{
    if (C->da) drv.cuMemFree(C->da);
    if (C->db) drv.cuMemFree(C->db);
    if (C->dout) drv.cuMemFree(C->dout);
    if (C->mod) drv.cuModuleUnload(C->mod);
    if (C->ctx) drv.cuDevicePrimaryCtxRelease(C->dev);
    free(C->a);
    free(C->b);
    free(C->out);
    free(C->src);
    rtc_out_free(&C->code);
    if (fflush(C->w.out) != 0) rc = 1;
    sw_exit_from = C->w.last_ns;
    return rc;
}

static int sw_waterfall_child(const cli_opts *o, long long t_main_ns)
{
    static int (*const steps[])(sw_child *) = {
        sw_child_context, sw_child_nvrtc, sw_child_compile, sw_child_module,
        sw_child_buffers, sw_child_run, sw_child_teardown, sw_child_verdict
    };
    sw_child C;
    size_t i;
    int rc;

    if ((rc = sw_child_start(&C, o, t_main_ns)) != 0) return rc;
    for (i = 0; rc == 0 && i < sizeof steps / sizeof steps[0]; i++) rc = steps[i](&C);
    return sw_child_end(&C, rc);
}

int sec_stopwatches_child(const cli_opts *o, long long t_main_ns)
{
    return o->child == CLI_CHILD_FIRST ? fl_child(o) : sw_waterfall_child(o, t_main_ns);
}

/* ------------------------------------------------------------ parent --- */

/* Append v as one more sample of figure i (sw_keys); NULL on out of
 * memory. */
static res_meas *sw_append(sec_ctx *c, int i, double v)
{
    const sch_key *k = &sw_keys[i];
    return res_append(c->r, SW, k->key, k->name, k->desc, k->state, k->unit, v);
}

/* Row 1, one round: run the child once, append its total and its waterfall
 * as one more sample of each (a cold figure is one sample per process). */
static int sw_row1_once(sec_ctx *c, int round)
{
    const char *args[8];
    char dev[32], arch[64], kdir[4200], why[512], kt[64], what[96], detail[160];
    size_t nargs = 0;
    pr_result pr;
    double sum = 0, total;
    char *line, *save = NULL;
    int ok = 0, checked = 0, ran;

    args[nargs++] = "--child=waterfall";
    snprintf(dev, sizeof dev, "--device=%d", c->o->device);
    args[nargs++] = dev;
    if (c->o->arch) {
        snprintf(arch, sizeof arch, "--arch=%s", c->o->arch);
        args[nargs++] = arch;
    }
    if (c->o->kernels_dir) {
        snprintf(kdir, sizeof kdir, "--kernels-dir=%s", c->o->kernels_dir);
        args[nargs++] = kdir;
    }
    if (c->o->format == CLI_FMT_PTX) args[nargs++] = "--module-format=ptx";
    snprintf(kt, sizeof kt, "--kernel-timeout=%.0f", c->o->kernel_timeout);
    args[nargs++] = kt;
    if (pr_run_self(args, nargs, NULL, 0, c->o->child_timeout, &pr, why, sizeof why) != 0) {
        fprintf(stderr, "harness: " SW ": cannot run the whole-process child: %s\n", why);
        return SEC_FAILED;
    }
    if (!pr.signal && (pr.exit_code == 3 || pr.exit_code == 2)) {
        if (pr.exit_code == 2) c->child_usage = 1;
        else c->child_no_gpu = 1;
        free(pr.out);
        return pr.exit_code == 3 ? SEC_NO_GPU : SEC_USAGE;
    }
    if (c->o->rounds > 1)
        snprintf(what, sizeof what, "whole-process child %d of %d: vectorAdd vs CPU, all elements",
                 round + 1, c->o->rounds);
    else
        snprintf(what, sizeof what, "whole-process child: vectorAdd vs CPU, all elements");
    total = pr.ms;
    if (!sw_append(c, SW_K_ROW1, total)) goto fail;
    for (line = strtok_r(pr.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f1 = strtok(line, "\t"), *f2 = strtok(NULL, "\t"), *f3 = strtok(NULL, "\t");
        char *f4 = strtok(NULL, "\t");
        if (f1 && f2 && f3 && f4 && strcmp(f1, "part") == 0) {
            char key[64], region[256];
            double ms = atof(f4);
            snprintf(key, sizeof key, SW_WATERFALL "%s", f2);
            snprintf(region, sizeof region, SW_WF_REGION "%s", f3);
            if (!res_append(c->r, SW, key, f3, region, RES_PROCESS, "ms", ms)) goto fail;
            sum += ms;
        } else if (f1 && f2 && strcmp(f1, "check") == 0) {
            checked = 1;
            ok = strcmp(f2, "1") == 0;
            res_check_add(c->r, SW, what, ok, f3 ? f3 : "");
        }
    }
    {
        double kexit = pr.eof_ms - sum, reap = total - pr.eof_ms;
        if (!sw_append(c, SW_K_WF_KEXIT, kexit) || !sw_append(c, SW_K_WF_REAP, reap)) goto fail;
    }
    /* Its check is its last line: a child that printed it did every step,
     * and exits 1 only because the check failed (recorded above). */
    ran = sec_child_outcome(c, &pr, args[0], detail, sizeof detail) ||
          (checked && !ok && !pr.signal && !pr.timed_out && pr.exit_code == 1);
    if (!ran || !checked) {
        if (ran) snprintf(detail, sizeof detail, "the child %s exited 0 without its check", args[0]);
        else if (!checked) snprintf(detail + strlen(detail), sizeof detail - strlen(detail), " before its check");
        fprintf(stderr, "harness: " SW ": whole-process child: %s\n", detail);
        res_check_add(c->r, SW, "whole-process child ran to the end", 0, detail);
        c->r->incomplete = 1;
        free(pr.out);
        return SEC_FAILED;
    }
    free(pr.out);
    return ok ? SEC_OK : SEC_FAILED;
fail:
    free(pr.out);
    return SEC_FAILED;
}

/* Row 1: --rounds children, one after the other; each part of the waterfall
 * gets one sample per child. Stops at the first child that does not run. */
static int sw_row1(sec_ctx *c)
{
    int round, rc, failed = 0;
    for (round = 0; round < c->o->rounds; round++) {
        rc = sw_row1_once(c, round);
        if (rc == SEC_NO_GPU || rc == SEC_USAGE) return rc;
        if (rc != SEC_OK) {
            failed = 1;
            if (c->r->incomplete) break;
        }
    }
    return failed ? SEC_FAILED : SEC_OK;
}

/* The buffers plus vectorScale. */
typedef struct sw_bufs {
    sec_vec v;
    CUfunction scale;
} sw_bufs;

/* Launch vectorScale: out = SW_SCALE * a. */
static int sw_scale(void *arg, CUstream s)
{
    sw_bufs *B = arg;
    int n = (int)B->v.n;
    float k = SW_SCALE;
    void *params[] = { &B->v.a, &B->v.out, &k, &n };
    unsigned blocks = (unsigned)((B->v.n + SEC_BLOCK - 1) / SEC_BLOCK);
    CK(drv.cuLaunchKernel(B->scale, blocks, 1, 1, SEC_BLOCK, 1, 1, 0, s, params, NULL));
    return 0;
fail:
    return -1;
}

static int sw_verify_scale(sec_ctx *c, const char *what, sec_vec *v)
{
    kn_bad bad;
    kn_poison(v->pout, v->n);
    CK(drv.cuMemcpyDtoHAsync(v->pout, v->out, v->n * sizeof(float), v->s));
    CK(drv.cuStreamSynchronize(v->s));
    kn_check_scale(v->ha, SW_SCALE, v->pout, v->n, &bad);
    return sec_check_elems(c, SW, what, v->n, &bad);
fail:
    return -1;
}

/* Store n samples as figure i (sw_keys; its unit is sec_store's "ms");
 * NULL on out of memory. */
static res_meas *sw_keep(sec_ctx *c, int i, const double *samples, size_t n)
{
    const sch_key *k = &sw_keys[i];
    return sec_store(c, SW, k->key, k->name, k->desc, k->state, samples, n, 1);
}

/* Store the timed work w as figure i (sw_keys); NULL on out of memory. */
static res_meas *sw_keep_work(sec_ctx *c, int i, const tm_work *w)
{
    const sch_key *k = &sw_keys[i];
    return sec_store_work(c, SW, k->key, k->name, k->desc, k->state, w);
}

/* Check one containment: figure outer >= figure inner (sw_keys), by
 * median. */
static int sw_contains(sec_ctx *c, int outer, int inner, const char *what)
{
    const res_meas *o = res_find(c->r, SW, sw_keys[outer].key);
    const res_meas *i = res_find(c->r, SW, sw_keys[inner].key);
    char detail[256];
    int ok;
    if (!o || !i) return 1;
    ok = o->stats.median >= i->stats.median;
    snprintf(detail, sizeof detail, "%.4f ms %s %.4f ms", o->stats.median, ok ? ">=" : "<",
             i->stats.median);
    res_check_add(c->r, SW, what, ok, detail);
    if (!ok) fprintf(stderr, "harness: " SW ": invariant failed: %s: %s\n", what, detail);
    return ok;
}

/* What sw_whole_process and sw_open_gpu return to go on with the rows
 * this process times (the SEC_ codes are 0 to 3). */
#define SW_GO_ON (-1)

/* The first launch taken apart (firstlaunch.h): its children, both modes,
 * before this process touches the GPU, as row 1's; not under --quick (its
 * 2 x --rounds children would take about as long as the rest of a quick
 * run), which the environment record says. Returns 0, or 1 when it failed
 * (recorded). */
static int sw_first_launch_apart(sec_ctx *c)
{
    if (c->o->quick) {
        res_env_str(c->r, "first_launch", "is not run under --quick");
        return 0;
    }
    return fl_rounds(c) != 0;
}

/* Row 1 first, before this process touches the GPU: the driver, NVRTC,
 * then row 1's children, then the first-launch experiment's. Returns
 * SW_GO_ON (*failed set when row 1 or the experiment failed), or the SEC_
 * code to return, the section recorded as skipped where it did not run. */
static int sw_whole_process(sec_ctx *c, int *failed)
{
    char why[512];
    int rc;

    if (drv_load(why, sizeof why) != 0) {
        snprintf(c->gpu_why, sizeof c->gpu_why, "no CUDA driver: %.480s", why);
        c->gpu_state = SEC_GPU_NONE;
        sec_skip(c, SW, c->gpu_why);
        return SEC_NO_GPU;
    }
    if ((rc = sec_begin(c, SW, 0, 1)) != SEC_OK) return rc;
    ph_set(SW ": whole process");
    rc = sw_row1(c);
    if (rc == SEC_USAGE) return rc;
    if (rc == SEC_NO_GPU) {
        rc = sec_need_gpu(c);
        if (rc == SEC_USAGE) return SEC_USAGE;
        sec_skip(c, SW, c->gpu_why[0] ? c->gpu_why : "the whole-process child found no usable GPU");
        return rc == SEC_FAILED ? SEC_FAILED : SEC_NO_GPU;
    }
    if (rc != SEC_OK) *failed = 1;
    if (sw_first_launch_apart(c) != 0) *failed = 1;
    return SW_GO_ON;
}

/* Open the GPU for the rows this process times. Returns SW_GO_ON, or the
 * SEC_ code to return (SEC_FAILED for no GPU when row 1 failed). */
static int sw_open_gpu(sec_ctx *c, int failed)
{
    int rc = sec_need_gpu(c);

    if (rc == SEC_OK) return SW_GO_ON;
    if (rc == SEC_NO_GPU || rc == SEC_FAILED) sec_skip(c, SW, c->gpu_why);
    return failed && rc == SEC_NO_GPU ? SEC_FAILED : rc;
}

/* The rows this process times: the module, the buffers, the works being
 * timed and row 2's samples, released by sw_rows_end on every path. */
typedef struct sw_rows {
    sec_ctx *c;
    CUmodule mod;
    sw_bufs B;
    tm_work w[2];
    double *s1, *s2;        /* row 2, warm: around the launch; plus a sync */
    int failed;             /* a check failed */
} sw_rows;

/* The phases, in order. Each times and stores its rows and checks their
 * results (S->failed set when a check failed); returns 0, or -1 on an error
 * (reported) that ends the section. */

/* Row 2's sample arrays, the module, vectorAdd and vectorScale, buffers. */
static int sw_setup(sw_rows *S)
{
    sec_ctx *c = S->c;
    CUfunction add;

    ph_set(SW ": setup");
    S->s1 = calloc((size_t)c->o->reps, sizeof *S->s1);
    S->s2 = calloc((size_t)c->o->reps, sizeof *S->s2);
    if (!S->s1 || !S->s2) return -1;
    if (sec_module(c, "vector.cu", &S->mod, NULL, NULL) != 0) return -1;
    CK(drv.cuModuleGetFunction(&add, S->mod, "vectorAdd"));
    CK(drv.cuModuleGetFunction(&S->B.scale, S->mod, "vectorScale"));
    if (sec_vec_alloc(c, SW, &S->B.v, SW_N, add) != 0) return -1;
    return 0;
fail:
    return -1;
}

/* A timed kernel's model: n, and the bytes and flops of one launch. */
static void sw_model(res_meas *m, const char *kernel)
{
    m->n = SW_N;
    m->bytes = kn_find(kernel)->bytes_per_elem * SW_N;
    m->flops = kn_find(kernel)->flops_per_elem * SW_N;
}

/* Rows 2 and 3 on the first launch of vectorAdd in this process: one
 * launch, three clocks (events around it; host clock around the enqueue;
 * host clock around enqueue + sync). */
static int sw_first_launch(sw_rows *S)
{
    sec_ctx *c = S->c;
    double ev, enq, sync;

    ph_set(SW ": first launch");
    if (tm_once(S->B.v.s, sec_vec_kernel, &S->B.v, &ev, &enq, &sync) != 0) return -1;
    if (!sw_keep(c, SW_K_ROW2_FIRST, &enq, 1) || !sw_keep(c, SW_K_ROW2SYNC_FIRST, &sync, 1) ||
        !sw_keep(c, SW_K_ROW3, &ev, 1))
        return -1;
    if (sec_vec_verify(c, SW, "vectorAdd, first launch, all elements vs CPU", &S->B.v) != 1)
        S->failed = 1;
    return 0;
}

/* Row 4: the warm kernel (and L2-cold, interleaved). The flush buffer and
 * the clock kernel are set up only now, after the first launches. */
static int sw_warm_kernel(sw_rows *S)
{
    sec_ctx *c = S->c;
    size_t k = 0, j;
    int states;

    ph_set(SW ": warm kernel");
    sec_timing_gpu(c);
    if (sec_vec_poison(&S->B.v) != 0) return -1;
    states = sec_cache_states(c);
    if ((states & 1) && tm_work_init(&S->w[k++], sec_vec_kernel, &S->B.v, 0) != 0) return -1;
    if ((states & 2) && tm_work_init(&S->w[k++], sec_vec_kernel, &S->B.v, 1) != 0) return -1;
    if (tm_events(S->B.v.s, S->w, k, c->o->warmup) != 0) return -1;
    for (j = 0; j < k; j++) {
        res_meas *m = sw_keep_work(c, S->w[j].cold ? SW_K_ROW4_COLD : SW_K_ROW4, &S->w[j]);
        if (!m) return -1;
        sw_model(m, "vectorAdd");
        tm_work_free(&S->w[j]);
    }
    if (sec_vec_verify(c, SW, "vectorAdd, after warm-up, all elements vs CPU", &S->B.v) != 1)
        S->failed = 1;
    return 0;
}

/* Row 2, warm: the host clock around the launch, and plus a sync. */
static int sw_host_clock(sw_rows *S)
{
    sec_ctx *c = S->c;
    sec_vec *v = &S->B.v;
    int i, reps = c->o->reps;

    ph_set(SW ": host clock");
    for (i = 0; i < reps; i++) {
        double a;
        CK(drv.cuStreamSynchronize(v->s));
        a = clk_now_ms();
        if (sec_vec_kernel(v, v->s) != 0) return -1;
        S->s1[i] = clk_now_ms() - a;
        CK(drv.cuStreamSynchronize(v->s));
        S->s2[i] = clk_now_ms() - a;
    }
    if (!sw_keep(c, SW_K_ROW2, S->s1, (size_t)reps) || !sw_keep(c, SW_K_ROW2SYNC, S->s2, (size_t)reps))
        return -1;
    return 0;
fail:
    return -1;
}

/* Row 5: copies + kernel + copy back, pageable and pinned, A B A B. */
static int sw_round_trip(sw_rows *S)
{
    sec_ctx *c = S->c;
    sec_vec *v = &S->B.v;
    kn_bad bad;

    ph_set(SW ": round trip");
    if (sec_vec_poison(v) != 0) return -1;
    kn_poison(v->hout, v->n);
    kn_poison(v->pout, v->n);
    if (tm_work_init(&S->w[0], sec_vec_round_pageable, v, 0) != 0 ||
        tm_work_init(&S->w[1], sec_vec_round_pinned, v, 0) != 0 ||
        tm_events(v->s, S->w, 2, c->o->warmup) != 0) return -1;
    if (!sw_keep_work(c, SW_K_ROW5, &S->w[0]) || !sw_keep_work(c, SW_K_ROW5PINNED, &S->w[1]))
        return -1;
    tm_work_free(&S->w[0]);
    tm_work_free(&S->w[1]);
    kn_check_add(v->ha, v->hb, v->hout, v->n, &bad);
    if (!sec_check_elems(c, SW, "round trip, pageable, all elements vs CPU", v->n, &bad)) S->failed = 1;
    kn_check_add(v->ha, v->hb, v->pout, v->n, &bad);
    if (!sec_check_elems(c, SW, "round trip, pinned, all elements vs CPU", v->n, &bad)) S->failed = 1;
    return 0;
}

/* The CPU, one thread, same n. */
static int sw_cpu(sw_rows *S)
{
    sec_ctx *c = S->c;
    sec_vec *v = &S->B.v;
    res_meas *m;
    kn_bad bad;

    ph_set(SW ": CPU");
    kn_poison(v->hout, v->n);
    if (tm_work_init(&S->w[0], sec_vec_cpu, v, 0) != 0 || tm_host(&S->w[0], c->o->warmup) != 0)
        return -1;
    if ((m = sw_keep_work(c, SW_K_CPU, &S->w[0])) == NULL) return -1;
    m->host_only = 1;
    tm_work_free(&S->w[0]);
    kn_check_add(v->ha, v->hb, v->hout, v->n, &bad);
    if (!sec_check_elems(c, SW, "CPU loop, all elements vs double reference", v->n, &bad)) S->failed = 1;
    return 0;
}

/* A second kernel is cold too: vectorScale's first launch, then warm. */
static int sw_second_kernel(sw_rows *S)
{
    sec_ctx *c = S->c;
    sec_vec *v = &S->B.v;
    double ev, enq, sync;
    res_meas *m;

    ph_set(SW ": vectorScale");
    if (sec_vec_poison(v) != 0) return -1;
    if (tm_once(v->s, sw_scale, &S->B, &ev, &enq, &sync) != 0) return -1;
    if (!sw_keep(c, SW_K_SCALE_FIRST, &ev, 1)) return -1;
    if (sw_verify_scale(c, "vectorScale, first launch, all elements vs CPU", v) != 1) S->failed = 1;
    if (sec_vec_poison(v) != 0) return -1;
    if (tm_work_init(&S->w[0], sw_scale, &S->B, 0) != 0 || tm_events(v->s, S->w, 1, c->o->warmup) != 0)
        return -1;
    m = sw_keep_work(c, SW_K_SCALE_WARM, &S->w[0]);
    tm_work_free(&S->w[0]);
    if (!m) return -1;
    sw_model(m, "vectorScale");
    if (sw_verify_scale(c, "vectorScale, after warm-up, all elements vs CPU", v) != 1) S->failed = 1;
    return 0;
}

/* Containment: each region holds the next. */
static int sw_containment(sw_rows *S)
{
    sec_ctx *c = S->c;

    if (!sw_contains(c, SW_K_ROW1, SW_K_ROW5, "row 1 (whole process) >= row 5 (round trip)"))
        S->failed = 1;
    if (!sw_contains(c, SW_K_ROW5, SW_K_ROW4, "row 5 (round trip, pageable) >= row 4 (kernel)"))
        S->failed = 1;
    if (!sw_contains(c, SW_K_ROW5PINNED, SW_K_ROW4, "row 5 (round trip, pinned) >= row 4 (kernel)"))
        S->failed = 1;
    return 0;
}

/* Release the rows' state (after an error, once the stream has drained).
 * Returns the section's code: SEC_OK when every phase ran (completed) and
 * every check passed, else SEC_FAILED. */
static int sw_rows_end(sw_rows *S, int completed)
{
    tm_work_free(&S->w[0]);
    tm_work_free(&S->w[1]);
    if (!completed && S->B.v.s) drv.cuStreamSynchronize(S->B.v.s);
    sec_vec_free(&S->B.v);
    if (S->mod) drv.cuModuleUnload(S->mod);
    free(S->s1);
    free(S->s2);
    ph_set(NULL);
    return completed && !S->failed ? SEC_OK : SEC_FAILED;
}

/* The section's measurements: row 1 and the first-launch experiment in
 * children, then the rows this process times, phase by phase. */
static int sw_measure(sec_ctx *c)
{
    static int (*const phases[])(sw_rows *) = {
        sw_setup, sw_first_launch, sw_warm_kernel, sw_host_clock, sw_round_trip, sw_cpu,
        sw_second_kernel, sw_containment
    };
    size_t i, n = sizeof phases / sizeof phases[0];
    int rc, failed = 0;
    sw_rows S;

    if ((rc = sw_whole_process(c, &failed)) != SW_GO_ON) return rc;
    if ((rc = sw_open_gpu(c, failed)) != SW_GO_ON) return rc;
    memset(&S, 0, sizeof S);
    S.c = c;
    S.failed = failed;
    for (i = 0; i < n && phases[i](&S) == 0; i++) {}
    return sw_rows_end(&S, i == n);
}

sec_status sec_stopwatches(sec_ctx *c)
{
    int rc = sw_measure(c);

    if (sw_conclude(c->r) != 0) {
        fprintf(stderr, "harness: error: " SW ": out of memory storing the rows' conclusions\n");
        rc = SEC_FAILED;
    }
    return rc;
}

/* -------------------------------------------------------- conclusions --- */

/* The median of the section's figure i (sw_keys), NaN when absent. */
static double sw_med(const results *r, int i)
{
    const res_meas *m = res_find(r, SW, sw_keys[i].key);
    return m ? m->stats.median : NAN;
}

/* Store entry e (sw_derived: its key, name and unit) with the named
 * fields; nothing when value is NaN. */
static int sw_store(results *r, int e, double value, const char *text, const char *const *names,
                    const double *vals, size_t n)
{
    const sch_key *k = &sw_derived[e];
    res_derived *d;
    size_t i;

    if (isnan(value)) return 0;
    if (!(d = res_derive(r, SW, k->key, k->name, value, k->unit, text))) return -1;
    for (i = 0; i < n; i++)
        if (res_derived_field(d, names[i], vals[i]) != 0) return -1;
    return 0;
}

/* "setup": the n row 4 was timed at, and the launch over it. */
static int sw_conclude_setup(results *r)
{
    static const char *const names[] = { "n", "threads", "blocks", "buffer_bytes" };
    const res_meas *m = res_find(r, SW, sw_keys[SW_K_ROW4].key);
    double n = m && m->n > 0 ? (double)m->n : NAN;
    double vals[] = { n, SEC_BLOCK, ceil(n / SEC_BLOCK), n * sizeof(float) };
    return sw_store(r, SW_D_SETUP, n, "", names, vals, 4);
}

/* "row1": the three largest parts of the waterfall, by median. */
static int sw_conclude_row1(results *r)
{
    static const char *const names[] = { "parts", "top1_pct", "top2_pct", "top3_pct" };
    const res_meas *top[3] = { NULL, NULL, NULL };
    double row1 = sw_med(r, SW_K_ROW1), vals[4] = { 0, NAN, NAN, NAN };
    char text[512];
    size_t i, len = 0;
    int j, k;

    for (i = 0; i < r->nm; i++) {
        const res_meas *m = &r->m[i];
        if (strcmp(m->section, SW) != 0 || strncmp(m->key, SW_WATERFALL, strlen(SW_WATERFALL)) != 0)
            continue;
        vals[0]++;
        for (j = 0; j < 3; j++)
            if (!top[j] || m->stats.median > top[j]->stats.median) {
                for (k = 2; k > j; k--) top[k] = top[k - 1];
                top[j] = m;
                break;
            }
    }
    text[0] = '\0';
    for (j = 0; j < 3 && top[j]; j++) {
        vals[1 + j] = 100.0 * top[j]->stats.median / row1;
        if (len < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", j ? "; " : "", top[j]->name);
    }
    return sw_store(r, SW_D_ROW1, row1, text, names, vals, 4);
}

/* "row2" to "row5": each row against the kernel (row 4); "row3" with the
 * first-launch experiment's conclusions for this process's mode. */
static int sw_conclude_rows(results *r)
{
    static const char *const n2[] = { "enqueue", "sync", "kernel" };
    static const char *const n3[] = { "first", "warm", "enqueue_first", "enqueue_warm", "experiment" };
    static const char *const n4[] = { "bytes", "ms" };
    static const char *const n5[] = { "pinned", "pageable_ms", "pinned_ms" };
    const res_meas *m4 = res_find(r, SW, sw_keys[SW_K_ROW4].key);
    const res_kv *mode = res_env_get(r, "module_loading_effective");
    const char *mname = mode && mode->kind == RES_STR && mode->str ? mode->str : "";
    double k = sw_med(r, SW_K_ROW4), row3 = sw_med(r, SW_K_ROW3), p = sw_med(r, SW_K_ROW5PINNED);
    double experiment = 0;
    char key[64];
    int i;

    for (i = 0; i < FL_NMODES; i++)
        if (strcmp(mname, fl_mode_names[i]) == 0)
            experiment = res_derived_find(r, SW, fl_part_key(key, sizeof key, i, FL_P_SURPLUS)) != NULL;
    {
        double v2[] = { sw_med(r, SW_K_ROW2), sw_med(r, SW_K_ROW2SYNC), k };
        double v3[] = { row3, k, sw_med(r, SW_K_ROW2_FIRST), sw_med(r, SW_K_ROW2), experiment };
        double v4[] = { m4 ? m4->bytes : NAN, k };
        double v5[] = { p - k, sw_med(r, SW_K_ROW5), p };
        if (sw_store(r, SW_D_ROW2, v2[1] - k, "", n2, v2, 3) != 0 ||
            sw_store(r, SW_D_ROW3, row3 - k, mname, n3, v3, 5) != 0 ||
            sw_store(r, SW_D_ROW4, sec_gbs(m4), "", n4, v4, 2) != 0 ||
            sw_store(r, SW_D_ROW5, v5[1] - k, "", n5, v5, 3) != 0)
            return -1;
    }
    return 0;
}

int sw_conclude(results *r)
{
    if (sw_conclude_setup(r) != 0 || sw_conclude_row1(r) != 0 || sw_conclude_rows(r) != 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------ answers --- */

/* "answer.row1_row4": the whole process over the kernel, with the ratio's
 * range from the two intervals; "answer.first_launch": the first launch's
 * surplus in this process's mode, from the children's experiment (its
 * interval and sign), else row 3 over row 4; "answer.lazy_eager": the
 * first.where verdicts, where both modes ran. */
/* The answers, as --schema declares them (an_store prefixes AN_PREFIX to
 * the key); the descriptions are the texts' words. */
enum { SW_A_ROW1_ROW4, SW_A_FIRST_LAUNCH, SW_A_LAZY_EAGER, SW_NA };
static const sch_key sw_answer_keys[SW_NA] = {
    { "row1_row4", "x", RES_PROCESS, "row 1 / row 4",
      "<ratio>x [<low>, <high>]: process <row 1> ms, kernel <row 4> ms" },
    { "first_launch", "ms", RES_PROCESS, "first launch",
      "+<surplus> ms [<low>, <high>] over a warm one (<mode>): <its verdict>; without the "
      "first-launch experiment in this mode, +<row 3 - row 4> ms over a warm one (row 3 - row 4, "
      "one sample, <mode>)" },
    { "lazy_eager", "ms", RES_PROCESS, "EAGER - LAZY",
      "load <EAGER - LAZY> ms (<verdict>), get <EAGER - LAZY> ms (<verdict>)" },
};

/* Store answer i (sw_answer_keys: its key, name, unit) of value, the text
 * printf-formatted. */
#define SW_ANSWER(r, i, value, ...)                                                           \
    an_store(r, SW, sw_answer_keys[i].key, sw_answer_keys[i].name, value, sw_answer_keys[i].unit, \
             __VA_ARGS__)

void sw_answers(results *r)
{
    const res_meas *m1 = res_find(r, SW, sw_keys[SW_K_ROW1].key);
    const res_meas *m4 = res_find(r, SW, sw_keys[SW_K_ROW4].key);
    const res_kv *mode = res_env_get(r, "module_loading_effective");
    const char *mname = mode && mode->kind == RES_STR && mode->str ? mode->str : "";
    const res_derived *d = NULL, *row3 = res_derived_find(r, SW, sw_derived[SW_D_ROW3].key);
    char a[32], b[32], c[32], e[32], g[32], key[64];
    int i;

    if (m1 && m4 && m4->stats.median > 0) {
        double ratio = m1->stats.median / m4->stats.median;
        SW_ANSWER(r, SW_A_ROW1_ROW4, ratio, "%sx [%s, %s]: process %s ms, kernel %s ms", an_num(a, sizeof a, ratio),
                 an_num(b, sizeof b, m1->stats.ci_low / m4->stats.ci_high),
                 an_num(c, sizeof c, m1->stats.ci_high / m4->stats.ci_low),
                 an_num(e, sizeof e, m1->stats.median), an_num(g, sizeof g, m4->stats.median));
    }
    for (i = 0; i < FL_NMODES; i++)
        if (strcmp(mname, fl_mode_names[i]) == 0)
            d = res_derived_find(r, SW, fl_part_key(key, sizeof key, i, FL_P_SURPLUS));
    if (d)
        SW_ANSWER(r, SW_A_FIRST_LAUNCH, d->value, "+%s ms [%s, %s] over a warm one (%s): %s",
                  an_num(a, sizeof a, d->value), an_num(b, sizeof b, res_derived_num(d, "ci_low")),
                  an_num(c, sizeof c, res_derived_num(d, "ci_high")), mname, d->text);
    else if (row3)
        SW_ANSWER(r, SW_A_FIRST_LAUNCH, row3->value,
                  "+%s ms over a warm one (row 3 - row 4, one sample, %s)",
                 an_num(a, sizeof a, row3->value), mname);
    {
        char kg[64];
        const res_derived *wl = res_derived_find(r, SW, fl_where_key(key, sizeof key,
                                                                     fl_keys[FL_K_LOAD].key));
        const res_derived *wg = res_derived_find(r, SW, fl_where_key(kg, sizeof kg,
                                                                     fl_keys[FL_K_GET].key));
        if (wl && wg)
            SW_ANSWER(r, SW_A_LAZY_EAGER, wl->value, "load %+.3f ms (%s), get %+.3f ms (%s)",
                      wl->value, wl->text, wg->value, wg->text);
    }
}

/* ------------------------------------------------------------ schema --- */

/* The keys the section writes (stopwatches.h): unit, state, name and
 * region. */
const sch_key sw_keys[SW_NKEYS] = {
    { "row1", "ms", RES_PROCESS,
      "wall clock, whole process",
      "parent: posix_spawn of the harness as a child that runs the whole program once, "
      "to waitpid returning; one sample per child" },
    SW_WF("exec", "exec to main"),
    SW_WF("libcuda", "loading libcuda (dlopen + cuGetProcAddress)"),
    SW_WF("init", "cuInit"),
    SW_WF("context", "context (primary, retain + set current)"),
    SW_WF("libnvrtc", "loading NVRTC (dlopen)"),
    SW_WF("compile", "compile vector.cu to cubin (NVRTC)"),
    SW_WF("module", "module load (cuModuleLoadDataEx)"),
    SW_WF("jit", "driver JIT of the PTX (CU_JIT_WALL_TIME)"),     /* --module-format=ptx only */
    SW_WF("function", "get function (cuModuleGetFunction)"),
    SW_WF("alloc", "allocations (3 x cuMemAlloc)"),
    SW_WF("host", "host setup (malloc, fill inputs)"),
    SW_WF("copyin", "copies in (2 x cuMemcpyHtoD, pageable)"),
    SW_WF("kernel", "kernel (first launch + cuStreamSynchronize)"),
    SW_WF("copyout", "copy back (cuMemcpyDtoH, pageable)"),
    SW_WF("check", "check all elements against the CPU"),
    SW_WF("teardown", "teardown (free, unload, release context)"),
    SW_WF("dlclose", "unloading NVRTC and libcuda (dlclose)"),
    SW_WF("exit", "exit handlers (atexit, library destructors)"),
    { SW_WATERFALL "kexit", "ms", RES_PROCESS,
      "process exit, until its last file closed",
      "parent: from the end of the child's last part to its pipe (descriptor 0, "
      "released last) closing" },
    { SW_WATERFALL "reap", "ms", RES_PROCESS,
      "process exit, driver state released, reaped",
      "parent: from the child's pipe closing to waitpid returning; the kernel releases "
      "what cuInit set up (a process that only calls cuInit pays it too)" },
    { "row2.first", "ms", RES_FIRST_LAUNCH,
      "wall clock, around the launch (first launch)",
      "host clock around cuLaunchKernel alone: the enqueue" },
    { "row2sync.first", "ms", RES_FIRST_LAUNCH,
      "the same clock, plus a sync (first launch)",
      "host clock from before cuLaunchKernel to cuStreamSynchronize returning" },
    { "row3", "ms", RES_FIRST_LAUNCH,
      "events, kernel, first launch",
      "event recorded before the first cuLaunchKernel to event after it" },
    { "row4", "ms", RES_WARM,
      "events, kernel, after warm-up",
      "event before to event after one launch, after warm-up; launches queued back to "
      "back" },
    { "row4.cold", "ms", RES_L2_COLD,
      "events, kernel, L2 cold",
      "event before to event after one launch, the L2 written over before each" },
    { "row2", "ms", RES_WARM,
      "wall clock, around the launch",
      "host clock around cuLaunchKernel alone, after warm-up" },
    { "row2sync", "ms", RES_WARM,
      "the same clock, plus a sync",
      "host clock from before cuLaunchKernel to cuStreamSynchronize returning, after "
      "warm-up" },
    { "row5", "ms", RES_WARM,
      "events, copies + kernel + copy back",
      "event before the two host-to-device copies to event after the copy back; "
      "pageable host memory" },
    { "row5pinned", "ms", RES_WARM,
      "the same, pinned host memory",
      "event before the two host-to-device copies to event after the copy back; pinned "
      "host memory (cuMemAllocHost)" },
    { "cpu", "ms", RES_WARM,
      "CPU, same n, one thread",
      "host clock around one C loop over n floats (the compiler's -O2 code)" },
    { "scale.first", "ms", RES_FIRST_LAUNCH,
      "vectorScale, first launch",
      "event before the first cuLaunchKernel of vectorScale to event after it" },
    { "scale.warm", "ms", RES_WARM,
      "vectorScale, after warm-up",
      "event before to event after one launch, after warm-up" },
};

/* The rows' conclusions (stopwatches.h); the descriptions are their texts. */
const sch_key sw_derived[SW_ND] = {
    { "setup", "elements", RES_PROCESS, "the vectorAdd the rows time", "" },
    { "row1", "ms", RES_PROCESS, "row 1, and the largest parts of its waterfall",
      "the names of its three largest waterfall parts, largest first, joined by \"; \"" },
    { "row2", "ms", RES_PROCESS, "row 2 with the sync over row 4: the launch and the wait", "" },
    { "row3", "ms", RES_PROCESS, "row 3 over row 4: this process's first launch's surplus",
      "the loading mode this process ran in (\"LAZY\", \"EAGER\")" },
    { "row4", "GB/s", RES_PROCESS, "row 4's rate over its byte model", "" },
    { "row5", "ms", RES_PROCESS, "row 5 over row 4: what the copies add", "" },
};

void sw_schema(sch_out *o)
{
    sch_put_table(o, NULL, sw_keys, SW_K_ROW2_FIRST);
    fl_schema(o);
    sch_put_table(o, NULL, sw_keys + SW_K_ROW2_FIRST, SW_NKEYS - SW_K_ROW2_FIRST);
    sch_derived(o);
    sch_put_table(o, NULL, sw_derived, SW_ND);
    fl_schema(o);
    sch_put_table(o, AN_PREFIX, sw_answer_keys, SW_NA);
}
