/* section_ctx.c: the context sections share: GPU and NVRTC on first need,
 * modules, timing's set-up, skips, checks, stored measurements. */
#include "run/section_ctx.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/devices.h"
#include "cuda/kcache.h"
#include "os/clock.h"
#include "os/phase.h"
#include "os/proc.h"

/* Append the GPU's fields to the environment record, with its datasheet's
 * memory bandwidth where the table of known devices has it
 * (datasheet_memory_gbs, datasheet_source), and device_opened "this
 * process". Returns 0, or -1 when out of memory. */
static int sec_gpu_env(const drv_gpu *g, results *r)
{
    const dv_device *known = dv_find(g->name);
    char cc[16];
    char drvv[16];
    snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
    snprintf(drvv, sizeof drvv, "%d.%d", g->driver_version / 1000,
             g->driver_version % 1000 / 10);
    if (res_env_str(r, "gpu", g->name) || res_env_num(r, "device", g->ordinal) ||
        res_env_str(r, "pci_bus_id", g->pci_bus_id) || res_env_str(r, "uuid", g->uuid) ||
        res_env_str(r, "compute_capability", cc) ||
        res_env_str(r, "arch", g->arch) ||
        res_env_num(r, "sms", g->sms) ||
        res_env_num(r, "l2_bytes", g->l2_bytes) ||
        res_env_num(r, "memory_bus_bits", g->bus_width_bits) ||
        res_env_num(r, "memory_clock_khz", g->mem_clock_khz) ||
        res_env_num(r, "sm_clock_khz", g->sm_clock_khz) ||
        res_env_num(r, "memory_bytes", (double)g->total_mem) ||
        res_env_str(r, "driver_cuda_version", drvv) ||
        res_env_str(r, "module_loading_effective", drv_loading_name(g->loading)) ||
        res_env_num(r, "context_flags", g->ctx_flags) ||
        res_env_str(r, "device_opened", "this process"))
        return -1;
    if (known && (res_env_num(r, "datasheet_memory_gbs", known->memory_gbs) ||
                  res_env_str(r, "datasheet_source", known->source)))
        return -1;
    return 0;
}

int sec_need_gpu(sec_ctx *c)
{
    if (c->gpu_state == SEC_GPU_UNTRIED) {
        int rc = drv_gpu_open(&c->gpu, c->o->device, c->gpu_why, sizeof c->gpu_why);
        c->gpu_state = rc == DRV_OK ? SEC_GPU_OPEN : rc == DRV_BAD_DEVICE ? SEC_GPU_BAD_DEVICE
                     : rc == DRV_FAILED ? SEC_GPU_FAILED : SEC_GPU_NONE;
        if (rc == DRV_OK) {
            c->arch = c->o->arch ? c->o->arch : c->gpu.arch;
            if (sec_gpu_env(&c->gpu, c->r) != 0) return SEC_FAILED;
            if (c->o->loading != CLI_LOAD_DEFAULT &&
                strcmp(cli_loading_name(c->o->loading), drv_loading_name(c->gpu.loading)) != 0) {
                snprintf(c->gpu_why, sizeof c->gpu_why,
                         "--module-loading=%s was asked for, but the driver reports %s",
                         cli_loading_name(c->o->loading), drv_loading_name(c->gpu.loading));
                fprintf(stderr, "harness: error: %s\n", c->gpu_why);
                res_check_add(c->r, "environment", "module loading mode in effect", 0, c->gpu_why);
            }
        } else if (rc == DRV_BAD_DEVICE) {
            fprintf(stderr, "harness: %s\n", c->gpu_why);
        }
    }
    switch (c->gpu_state) {
    case SEC_GPU_OPEN: return SEC_OK;
    case SEC_GPU_FAILED: return SEC_FAILED;
    case SEC_GPU_BAD_DEVICE: return SEC_USAGE;
    case SEC_GPU_UNTRIED: case SEC_GPU_NONE: break;
    }
    return SEC_NO_GPU;
}

/* --arch, where given, against what the loaded NVRTC compiles for:
 * SEC_RTC_LOADED (usable), SEC_RTC_BAD_ARCH (a usage error, printed,
 * reason in c->rtc_why) or SEC_RTC_FAILED (the check's call failed:
 * reported). */
static sec_rtc_state sec_arch_ok(sec_ctx *c)
{
    char why[400];
    int rc;

    if (!c->o->arch) return SEC_RTC_LOADED;
    rc = rtc_arch_check(c->o->arch, why, sizeof why);
    if (rc < 0) {
        snprintf(c->rtc_why, sizeof c->rtc_why, "NVRTC's list of architectures could not be read");
        return SEC_RTC_FAILED;
    }
    if (rc == 0) return SEC_RTC_LOADED;
    snprintf(c->rtc_why, sizeof c->rtc_why, "--arch=%s: %s", c->o->arch, why);
    fprintf(stderr, "harness: %s\n", c->rtc_why);
    return SEC_RTC_BAD_ARCH;
}

int sec_need_rtc(sec_ctx *c)
{
    if (c->rtc_state == SEC_RTC_LATER) c->rtc_state = SEC_RTC_UNTRIED;     /* put off until now */
    if (c->rtc_state == SEC_RTC_UNTRIED) {
        int major = 0, minor = 0;
        char v[32];
        c->rtc_state = rtc_load(c->rtc_why, sizeof c->rtc_why) == 0 ? SEC_RTC_LOADED : SEC_RTC_NONE;
        if (c->rtc_state == SEC_RTC_LOADED) {
            if (rtc_version(&major, &minor) != 0) {
                /* Loaded, but failing: an error (reported), not a missing NVRTC. */
                snprintf(c->rtc_why, sizeof c->rtc_why, "nvrtcVersion failed (see the error above)");
                c->rtc_state = SEC_RTC_FAILED;
            } else {
                snprintf(v, sizeof v, "%d.%d", major, minor);
                res_env_str(c->r, "nvrtc_version", v);
                c->rtc_state = sec_arch_ok(c);
            }
        }
    }
    switch (c->rtc_state) {
    case SEC_RTC_LOADED: return SEC_OK;
    case SEC_RTC_FAILED: return SEC_FAILED;
    case SEC_RTC_BAD_ARCH: return SEC_USAGE;
    case SEC_RTC_NONE: case SEC_RTC_UNTRIED: case SEC_RTC_LATER: break;
    }
    return SEC_NO_GPU;
}

int sec_need_rtc_later(sec_ctx *c)
{
    if (c->rtc_state != SEC_RTC_UNTRIED || !kc_dir()) return sec_need_rtc(c);
    c->rtc_state = SEC_RTC_LATER;
    return SEC_OK;
}

int sec_compile(sec_ctx *c, const char *src, const char *name, const char *arch,
                rtc_target target, const char *const *opts, int nopts, rtc_out *out)
{
    if (c->rtc_state == SEC_RTC_LATER) {
        if (rtc_cache_lookup(src, name, arch, target, opts, nopts, out)) return RTC_OK;
        if (sec_need_rtc(c) != SEC_OK) {
            fprintf(stderr, "harness: error: compiling %s: %s%s\n", name,
                    c->rtc_state == SEC_RTC_NONE ? "no NVRTC: " : "", c->rtc_why);
            memset(out, 0, sizeof *out);
            return RTC_API_ERROR;
        }
    }
    return rtc_compile_shared(src, name, arch, target, opts, nopts, out);
}

void sec_timing_plan(const cli_opts *o)
{
    tm_setup t = *tm_config();
    t.fixed = o->reps_given ? (size_t)o->reps : 0;
    t.profile = o->profile;
    t.rule.min_samples = (size_t)o->min_samples;
    t.rule.max_samples = CLI_MAX_SAMPLES;
    t.rule.max_noise = o->max_noise;
    t.rule.max_time_s = o->max_time;
    tm_configure(&t);
}

/* The L2-cold buffer (2x the L2) and the SM clock kernel, once per process
 * (not under --profile: nothing else is queued then). A failure here is
 * reported and leaves timing without them; the section goes on. */
void sec_timing_gpu(sec_ctx *c)
{
    tm_setup t = *tm_config();
    size_t bytes = 2 * (size_t)(c->gpu.l2_bytes > 0 ? c->gpu.l2_bytes : 64 << 20);
    CUfunction f;
    if (c->timing_state != SEC_TIMING_UNSET) return;
    c->timing_state = SEC_TIMING_FAILED;
    if (c->o->profile) return;
    bytes = (bytes + 4095) & ~(size_t)4095;
    CK(drv.cuMemAlloc(&c->flush, bytes));
    CK(drv.cuMemsetD32(c->flush, 0, bytes / 4));
    t.flush = c->flush;
    t.flush_bytes = bytes;
    if (sec_module(c, "launch.cu", &c->clock_mod, NULL, NULL) != 0) goto fail;
    CK(drv.cuModuleGetFunction(&f, c->clock_mod, "smClockMHz"));
    CK(drv.cuMemAlloc(&c->clock_out, TM_CLOCK_SLOTS * sizeof(float)));
    /* NaN in every slot: a slot no clock kernel wrote reads as "no reading". */
    CK(drv.cuMemsetD32(c->clock_out, 0x7fc00000u, TM_CLOCK_SLOTS));
    {   /* its first launch (lazy loading) here, not inside a timed chunk */
        CUdeviceptr out = c->clock_out;
        unsigned slot = 0;
        unsigned long long window = TM_CLOCK_WINDOW_NS;
        void *params[] = { &out, &slot, &window };
        CK(drv.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, c->gpu.stream, params, NULL));
        CK(drv.cuStreamSynchronize(c->gpu.stream));
    }
    t.clock = f;
    t.clock_out = c->clock_out;
    t.max_mhz = c->gpu.sm_clock_khz / 1000.0;
    tm_configure(&t);
    res_env_num(c->r, "l2_cold_flush_bytes", (double)bytes);
    c->timing_state = SEC_TIMING_READY;
    return;
fail:
    fprintf(stderr, "harness: timing: no L2-cold state or clock readings in this run\n");
    if (c->flush && t.flush_bytes) { t.clock = NULL; tm_configure(&t); }
}

void sec_end(sec_ctx *c)
{
    tm_setup t = *tm_config();
    if (c->gpu_state != SEC_GPU_OPEN) return;
    t.flush = 0;
    t.flush_bytes = 0;
    t.clock = NULL;
    t.clock_out = 0;
    tm_configure(&t);
    if (c->flush) drv.cuMemFree(c->flush);
    if (c->clock_out) drv.cuMemFree(c->clock_out);
    if (c->clock_mod) drv.cuModuleUnload(c->clock_mod);
    c->flush = c->clock_out = 0;
    c->clock_mod = NULL;
}

int sec_cache_states(const sec_ctx *c)
{
    if (!tm_config()->flush_bytes) return 1;
    return c->o->cache == CLI_CACHE_WARM ? 1 : c->o->cache == CLI_CACHE_COLD ? 2 : 3;
}

res_meas *sec_store_work(sec_ctx *c, const char *section, const char *key,
                         const char *name, const char *region, res_state state,
                         const tm_work *w)
{
    res_meas *m = res_add(c->r, section, key, name, region, state, "ms", w->samples, w->n);
    if (!m) return NULL;
    m->batch = w->batch < 1 ? 1 : w->batch;
    m->noisy = w->noisy;
    m->low_clock = w->low_clock;
    if (w->mhz && res_set_clock(m, w->mhz) != 0) return NULL;
    return m;
}

int sec_begin(sec_ctx *c, const char *name, int need_gpu, int need_rtc)
{
    int rc;
    ph_set(name);
    if (need_gpu && (rc = sec_need_gpu(c)) != SEC_OK) {
        if (rc == SEC_USAGE) res_skip_section(c->r, name, c->gpu_why);     /* printed already */
        else sec_skip(c, name, c->gpu_why);
        return rc;
    }
    if (need_rtc && (rc = sec_need_rtc(c)) != SEC_OK) {
        char r[600];
        snprintf(r, sizeof r, "%s%.500s", rc == SEC_NO_GPU ? "no NVRTC: " : "", c->rtc_why);
        if (rc == SEC_USAGE) res_skip_section(c->r, name, r);              /* printed already */
        else sec_skip(c, name, r);
        return rc;
    }
    if (need_gpu && need_rtc) sec_timing_gpu(c);
    return SEC_OK;
}

int sec_need_driver(sec_ctx *c, const char *section, const char *part)
{
    char why[512], reason[800];

    if (drv_load(why, sizeof why) == 0) return 0;
    snprintf(reason, sizeof reason, "%s%sno CUDA driver: %s", part ? part : "", part ? ": " : "", why);
    sec_skip(c, section, reason);
    return -1;
}

/* 1 when stdout and stderr are the same terminal: the report on stdout
 * then gives a skip's reason, and a line on stderr would say it twice. */
static int sec_one_terminal(void)
{
    struct stat a, b;
    return isatty(STDOUT_FILENO) && isatty(STDERR_FILENO) && fstat(STDOUT_FILENO, &a) == 0 &&
           fstat(STDERR_FILENO, &b) == 0 && a.st_rdev == b.st_rdev;
}

/* The want of a driver or a GPU said on stderr whole ("no CUDA driver:
 * <why>"), by this process, a child (sec_said) or the parent
 * (sec_said_inherit), or "". */
static char sec_said_cause[800];

void sec_said(const char *reason)
{
    char kv[sizeof sec_said_cause + sizeof SEC_SAID_ENV + 1];
    const char *cause;

    if (!(cause = strstr(reason, "no CUDA driver")) && !(cause = strstr(reason, "no usable GPU")))
        return;
    snprintf(sec_said_cause, sizeof sec_said_cause, "%s", cause);
    /* The copies of this program started from now on know it (one too
     * long for pr_self_env is said again by them). */
    snprintf(kv, sizeof kv, SEC_SAID_ENV "=%s", sec_said_cause);
    if (pr_self_env(kv) != 0) pr_self_env(NULL);
}

void sec_said_inherit(int child)
{
    const char *v = getenv(SEC_SAID_ENV);

    if (v && child) sec_said(v);
    unsetenv(SEC_SAID_ENV);
}

void sec_say(const char *why)
{
    if (!sec_said_cause[0] || !strstr(why, sec_said_cause)) fprintf(stderr, "harness: %s\n", why);
    sec_said(why);
}

/* A reason on stderr once: the first skip for want of a driver or a GPU
 * says it whole; a later one that holds the same words says their first
 * clause and "(as above)": "no CUDA driver (as above)", "the driver JIT
 * part: no CUDA driver (as above)". Into out. */
static void sec_reason_once(const char *reason, char *out, size_t len)
{
    const char *said = sec_said_cause, *at = said[0] ? strstr(reason, said) : NULL;

    if (at) {
        snprintf(out, len, "%.*s%.*s (as above)", (int)(at - reason), reason,
                 (int)strcspn(said, ":"), said);
        return;
    }
    snprintf(out, len, "%s", reason);
    sec_said(reason);
}

void sec_skip(sec_ctx *c, const char *name, const char *reason)
{
    char text[1024];

    res_skip_section(c->r, name, reason);
    /* Said at once on stderr, unless the report will say it on the same
     * terminal (--quiet's summary names the section, not the reason). */
    if (c->o->quiet || c->o->child != CLI_CHILD_NONE || !sec_one_terminal()) {
        sec_reason_once(reason, text, sizeof text);
        fprintf(stderr, "harness: %s: skipped: %s\n", name, text);
    }
}

int sec_count_loaded(const CUfunction *fn, size_t n, size_t *count)
{
    CUfunctionLoadingState st;
    size_t i;

    *count = 0;
    for (i = 0; i < n; i++) {
        CK(drv.cuFuncIsLoaded(&st, fn[i]));
        if (st == CU_FUNCTION_LOADING_STATE_LOADED) (*count)++;
    }
    return 0;
fail:
    return -1;
}

int sec_load_rest(const CUfunction *fn, size_t n, double *ms)
{
    CUfunctionLoadingState st;
    size_t i;
    double t0;

    for (i = 0; i < n; i++) {
        CK(drv.cuFuncIsLoaded(&st, fn[i]));
        if (st == CU_FUNCTION_LOADING_STATE_LOADED) continue;
        t0 = clk_now_ms();
        CK(drv.cuFuncLoad(fn[i]));
        *ms += clk_now_ms() - t0;
    }
    return 0;
fail:
    return -1;
}

int sec_check_elems(sec_ctx *c, const char *section, const char *what,
                    size_t n, const kn_bad *bad)
{
    char detail[256];
    if (bad->count == 0)
        snprintf(detail, sizeof detail, "%zu of %zu elements match the CPU reference", n, n);
    else
        snprintf(detail, sizeof detail, "%zu of %zu elements wrong; first at index %zu: "
                 "got %.9g, expected %.9g", bad->count, n, bad->first, bad->got, bad->want);
    res_check_add(c->r, section, what, bad->count == 0, detail);
    if (bad->count) fprintf(stderr, "harness: %s: %s: %s\n", section, what, detail);
    return bad->count == 0;
}

/* The image sec_module loads for file, compiled for arch (measured: not
 * from the run's cache; else sec_compile); its path in *path for messages.
 * Returns as rtc_compile, or RTC_API_ERROR when the source cannot be read
 * (printed). */
static int sec_module_image(sec_ctx *c, const char *file, const char *arch, int measured,
                            char *path, size_t pathlen, rtc_out *out)
{
    char why[512];
    char *src = kn_source(file, c->o->kernels_dir, why, sizeof why);
    rtc_target t = c->o->format == CLI_FMT_PTX ? RTC_PTX : RTC_CUBIN;
    int rc;

    memset(out, 0, sizeof *out);
    if (!src) {
        fprintf(stderr, "harness: error: kernel source: %s\n", why);
        return RTC_API_ERROR;
    }
    /* NVRTC names the program in its log: file(line): error ... */
    snprintf(path, pathlen, "%s/%s", c->o->kernels_dir ? c->o->kernels_dir : "kernels", file);
    rc = measured ? rtc_compile(src, path, arch, t, NULL, 0, out)
                  : sec_compile(c, src, path, arch, t, NULL, 0, out);
    free(src);
    return rc;
}

void sec_module_fill(sec_ctx *c, const char *file, const char *arch)
{
    char path[4096];
    rtc_out out;
    sec_module_image(c, file, arch, 0, path, sizeof path, &out);
    rtc_out_free(&out);
}

int sec_module(sec_ctx *c, const char *file, CUmodule *mod,
               double *compile_ms, double *load_ms)
{
    char path[4096];
    rtc_out out;
    double ms, jit_ms;
    int rc;

    *mod = NULL;
    rc = sec_module_image(c, file, c->arch, compile_ms != NULL, path, sizeof path, &out);
    if (rc == RTC_COMPILE_ERROR) {
        fprintf(stderr, "harness: error: %s does not compile for %s:\n%s", path, c->arch, out.log);
        rtc_out_free(&out);
        return -1;
    }
    if (rc != RTC_OK) {
        rtc_out_free(&out);
        return -1;
    }
    if (compile_ms) *compile_ms = out.ms;
    rc = drv_load_image(out.code, -1, mod, &ms, &jit_ms);
    if (load_ms) *load_ms = ms;
    rtc_out_free(&out);
    return rc == 0 ? 0 : -1;
}

char *sec_commas(char *buf, size_t len, double v)
{
    char digits[32];
    size_t nd, i, o = 0;
    int neg = v < 0;

    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    nd = strlen(digits);
    if (len == 0) return buf;
    if (neg && o + 1 < len) buf[o++] = '-';
    for (i = 0; i < nd && o + 1 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0 && isdigit((unsigned char)digits[0])) {
            buf[o++] = ',';
            if (o + 1 >= len) break;
        }
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

double sec_gbs(const res_meas *m)
{
    return m && m->bytes > 0 && m->stats.median > 0 ? m->bytes / m->stats.median / 1e6 : NAN;
}

res_meas *sec_store(sec_ctx *c, const char *section, const char *key,
                    const char *name, const char *region, res_state state,
                    const double *samples, size_t n, long batch)
{
    res_meas *m = res_add(c->r, section, key, name, region, state, "ms", samples, n);
    if (m) m->batch = batch < 1 ? 1 : batch;
    return m;
}
