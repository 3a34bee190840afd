/* rtc.c: NVRTC through dlopen: load, version, compile with timing. */
#include "cuda/rtc.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvrtc.h>

#include "cuda/kcache.h"
#include "os/clock.h"
#include "os/fault.h"
#include "os/phase.h"
#include "os/sig.h"

#define RTC_FUNCS(X)                                                        \
    X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram)            \
    X(nvrtcDestroyProgram) X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize) \
    X(nvrtcGetProgramLog) X(nvrtcGetPTXSize) X(nvrtcGetPTX)                 \
    X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcAddNameExpression)         \
    X(nvrtcGetLoweredName) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)

static struct {
#define RTC_MEMBER(name) __typeof__(&name) name;
    RTC_FUNCS(RTC_MEMBER)
#undef RTC_MEMBER
} rtc;

static void *rtc_lib;
static char rtc_from[600];
static long rtc_nerrors;

/* nvrtcResult names, ours: the library may be absent when a spec is read. */
#define E(x) { x, #x },
static const struct { nvrtcResult code; const char *name; } rtc_names[] = {
    E(NVRTC_SUCCESS)
    E(NVRTC_ERROR_OUT_OF_MEMORY)
    E(NVRTC_ERROR_PROGRAM_CREATION_FAILURE)
    E(NVRTC_ERROR_INVALID_INPUT)
    E(NVRTC_ERROR_INVALID_PROGRAM)
    E(NVRTC_ERROR_INVALID_OPTION)
    E(NVRTC_ERROR_COMPILATION)
    E(NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)
    E(NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION)
    E(NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION)
    E(NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID)
    E(NVRTC_ERROR_INTERNAL_ERROR)
};
#undef E

int rtc_result_code(const char *name, long *code)
{
    size_t i;
    for (i = 0; i < sizeof rtc_names / sizeof rtc_names[0]; i++) {
        if (strcmp(rtc_names[i].name, name) == 0) {
            *code = (long)rtc_names[i].code;
            return 0;
        }
    }
    return -1;
}

/* The name of a result: ours, else NVRTC's own words, else a placeholder. */
static const char *rtc_result_name(nvrtcResult r)
{
    size_t i;
    for (i = 0; i < sizeof rtc_names / sizeof rtc_names[0]; i++)
        if (rtc_names[i].code == r) return rtc_names[i].name;
    return rtc_lib ? rtc.nvrtcGetErrorString(r) : "NVRTC_ERROR_UNKNOWN_CODE";
}

int rtc_entry_known(const char *name)
{
    /* nvrtcGetErrorString only names codes for error lines: never checked. */
    if (strcmp(name, "nvrtcGetErrorString") == 0) return 0;
#define RTC_KNOWN(fn) if (strcmp(name, #fn) == 0) return 1;
    RTC_FUNCS(RTC_KNOWN)
#undef RTC_KNOWN
    return 0;
}

long rtc_fault_default(const char *name)
{
    if (strcmp(name, "nvrtcCreateProgram") == 0) return NVRTC_ERROR_OUT_OF_MEMORY;
    if (strcmp(name, "nvrtcCompileProgram") == 0) return NVRTC_ERROR_COMPILATION;
    if (strcmp(name, "nvrtcAddNameExpression") == 0) return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    if (strcmp(name, "nvrtcGetLoweredName") == 0) return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
    if (strcmp(name, "nvrtcDestroyProgram") == 0) return NVRTC_ERROR_INVALID_PROGRAM;
    return NVRTC_ERROR_INVALID_INPUT;
}

long rtc_errors(void)
{
    return rtc_nerrors;
}

/* Report a failed NVRTC call on one line, naming the phase and what was
 * being compiled, and count it. */
static void rtc_report(nvrtcResult r, const char *what, const char *call, const char *file,
                       int line, int injected)
{
    rtc_nerrors++;
    fprintf(stderr, "harness: error: %s: %s%s%s%s failed: %s (%d)%s at %s:%d\n",
            ph_get(), what ? "compiling " : "", what ? what : "", what ? ": " : "",
            call, rtc_result_name(r), (int)r,
            injected ? " (injected by HARNESS_FAULT)" : "", file, line);
}

/* Make a checked NVRTC call: r = its result, or the fault HARNESS_FAULT
 * injects in its place (the call then not made). */
#define RTC_CALL(r, call) RTC_CALL_AS(r, call, #call)
#define RTC_CALL_AS(r, call, text) do {                                     \
        (r) = (nvrtcResult)ft_hit(text);                                    \
        if ((r) == NVRTC_SUCCESS) (r) = (call);                             \
    } while (0)

int rtc_load(char *why, size_t whylen)
{
    static const char *const sonames[] = { "libnvrtc.so.13", "libnvrtc.so.12" };
    const char *home = getenv("CUDA_HOME");
    char path[600];
    void *p;
    size_t i;
    int pass;

    if (rtc_lib) return 0;
    if (!home || !*home) home = HARNESS_CUDA_HOME;
    for (pass = 0; pass < 2 && !rtc_lib; pass++) {
        for (i = 0; i < sizeof sonames / sizeof sonames[0] && !rtc_lib; i++) {
            if (pass == 0) snprintf(path, sizeof path, "%s/lib64/%s", home, sonames[i]);
            else snprintf(path, sizeof path, "%s", sonames[i]);
            rtc_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!rtc_lib) {
        snprintf(why, whylen, "libnvrtc.so.13 or .12 not found in %s/lib64 or on "
                 "the loader path", home);
        return -1;
    }
    snprintf(rtc_from, sizeof rtc_from, "%s", path);
#define RTC_RESOLVE(name)                                                   \
    p = dlsym(rtc_lib, #name);                                              \
    memcpy(&rtc.name, &p, sizeof p);                                        \
    if (!p) {                                                        \
        snprintf(why, whylen, "%.400s has no %s", path, #name);                 \
        dlclose(rtc_lib);                                                   \
        rtc_lib = NULL;                                                     \
        return -1;                                                          \
    }
    RTC_FUNCS(RTC_RESOLVE)
#undef RTC_RESOLVE
    return 0;
}

int rtc_unload(void)
{
    int rc = 0;
    if (rtc_lib) rc = dlclose(rtc_lib) == 0 ? 0 : -1;
    rtc_lib = NULL;
    memset(&rtc, 0, sizeof rtc);
    return rc;
}

const char *rtc_loaded_from(void)
{
    return rtc_from;
}

int rtc_version(int *major, int *minor)
{
    nvrtcResult r;
    if (!rtc_lib) return -1;
    RTC_CALL(r, rtc.nvrtcVersion(major, minor));
    if (r != NVRTC_SUCCESS) {
        rtc_report(r, NULL, "rtc.nvrtcVersion(major, minor)", __FILE__, __LINE__,
                   ft_take_injected());
        return -1;
    }
    return 0;
}

int rtc_arch_check(const char *arch, char *why, size_t whylen)
{
    int archs[128], n = 0, i, want = 0, found = 0;
    size_t at = 0;
    nvrtcResult r;

    if (!rtc_lib) return -1;
    RTC_CALL(r, rtc.nvrtcGetNumSupportedArchs(&n));
    if (r != NVRTC_SUCCESS || n < 0 || n > (int)(sizeof archs / sizeof archs[0])) {
        if (r != NVRTC_SUCCESS)
            rtc_report(r, NULL, "rtc.nvrtcGetNumSupportedArchs(&n)", __FILE__, __LINE__, ft_take_injected());
        else
            fprintf(stderr, "harness: error: NVRTC names %d architectures, more than the harness reads\n", n);
        return -1;
    }
    RTC_CALL(r, rtc.nvrtcGetSupportedArchs(archs));
    if (r != NVRTC_SUCCESS) {
        rtc_report(r, NULL, "rtc.nvrtcGetSupportedArchs(archs)", __FILE__, __LINE__, ft_take_injected());
        return -1;
    }
    if (strncmp(arch, "sm_", 3) == 0) want = atoi(arch + 3);
    for (i = 0; i < n; i++) found |= archs[i] == want;
    if (found) return 0;
    at = (size_t)snprintf(why, whylen, "this NVRTC compiles for");
    for (i = 0; i < n && at < whylen; i++)
        at += (size_t)snprintf(why + at, whylen - at, "%s sm_%d", i ? "," : "", archs[i]);
    if (at < whylen) snprintf(why + at, whylen - at, "; not %s", arch);
    return 1;
}

/* The one error path for NVRTC calls: report and jump to fail. */
#define RK(call) do {                                                       \
        nvrtcResult rk_r_;                                                  \
        RTC_CALL_AS(rk_r_, call, #call);                                    \
        if (rk_r_ != NVRTC_SUCCESS) {                                       \
            rtc_report(rk_r_, name, #call, __FILE__, __LINE__, ft_take_injected()); \
            goto fail;                                                      \
        }                                                                   \
    } while (0)

/* Free lowered[0 .. n) and set them to NULL. */
static void rtc_free_names(char **lowered, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        free(lowered[i]);
        lowered[i] = NULL;
    }
}

int rtc_compile(const char *src, const char *name, const char *arch,
                rtc_target target, const char *const *opts, int nopts,
                rtc_out *out)
{
    return rtc_compile_named(src, name, arch, target, opts, nopts, NULL, 0, NULL, out);
}

int rtc_compile_named(const char *src, const char *name, const char *arch,
                      rtc_target target, const char *const *opts, int nopts,
                      const char *const *exprs, int nexprs, char **lowered,
                      rtc_out *out)
{
    nvrtcProgram prog = NULL;
    const char **all = NULL;
    char archopt[64];
    size_t logsize = 0;
    nvrtcResult cr;
    double t0, t1;
    int rc = RTC_API_ERROR, i;

    memset(out, 0, sizeof *out);
    if (nexprs < 0 || nopts < 0 || (nexprs > 0 && (!exprs || !lowered))) {
        fprintf(stderr, "harness: error: compiling %s: bad arguments to rtc_compile_named\n",
                name);
        return RTC_API_ERROR;
    }
    for (i = 0; i < nexprs; i++) lowered[i] = NULL;
    if (!rtc_lib) return RTC_API_ERROR;
    if (strncmp(arch, "sm_", 3) != 0) {
        fprintf(stderr, "harness: error: compiling %s: arch '%s' is not sm_XY\n", name, arch);
        return RTC_API_ERROR;
    }
    snprintf(archopt, sizeof archopt, "-arch=%s%s",
             target == RTC_PTX ? "compute_" : "sm_", arch + 3);
    all = malloc((size_t)(nopts + 2) * sizeof *all);
    if (!all) return RTC_API_ERROR;
    all[0] = archopt;
    all[1] = "-std=c++17";
    for (i = 0; i < nopts; i++) all[i + 2] = opts[i];

    t0 = clk_now_ms();
    RK(rtc.nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL));
    for (i = 0; i < nexprs; i++) RK(rtc.nvrtcAddNameExpression(prog, exprs[i]));
    /* A compile can take minutes: a signal meanwhile stops the run at once,
     * without waiting for NVRTC, whatever handlers NVRTC installs. */
    sg_call_begin();
    t1 = clk_now_ms();
    RTC_CALL(cr, rtc.nvrtcCompileProgram(prog, nopts + 2, all));
    out->ms = clk_now_ms() - t1;
    sg_call_end();
    if (cr != NVRTC_SUCCESS && ft_take_injected()) {
        /* Not compiled at all: say so, rather than show an empty log. */
        rtc_report(cr, name, "rtc.nvrtcCompileProgram(prog, nopts + 2, all)", __FILE__, __LINE__, 1);
        goto fail;
    }
    RK(rtc.nvrtcGetProgramLogSize(prog, &logsize));
    out->log = malloc(logsize + 1);
    if (!out->log) goto fail;
    out->log[0] = '\0';
    if (logsize > 0) RK(rtc.nvrtcGetProgramLog(prog, out->log));
    out->log[logsize] = '\0';
    if (cr == NVRTC_ERROR_COMPILATION) {
        rc = RTC_COMPILE_ERROR;
        goto fail;
    }
    if (cr != NVRTC_SUCCESS) {
        rtc_report(cr, name, "rtc.nvrtcCompileProgram(prog, nopts + 2, all)", __FILE__, __LINE__, 0);
        goto fail;
    }
    if (target == RTC_PTX) {
        RK(rtc.nvrtcGetPTXSize(prog, &out->size));
        out->code = malloc(out->size);
        if (!out->code) goto fail;
        RK(rtc.nvrtcGetPTX(prog, out->code));
    } else {
        RK(rtc.nvrtcGetCUBINSize(prog, &out->size));
        out->code = malloc(out->size);
        if (!out->code) goto fail;
        RK(rtc.nvrtcGetCUBIN(prog, out->code));
    }
    /* The lowered names live in the program: copy them before destroying it. */
    for (i = 0; i < nexprs; i++) {
        const char *low = NULL;
        RK(rtc.nvrtcGetLoweredName(prog, exprs[i], &low));
        if (!low || !(lowered[i] = strdup(low))) {
            fprintf(stderr, "harness: error: compiling %s: no lowered name for %s\n",
                    name, exprs[i]);
            goto fail;
        }
    }
    RK(rtc.nvrtcDestroyProgram(&prog));
    out->total_ms = clk_now_ms() - t0;
    free(all);
    return RTC_OK;
fail:
    if (prog) rtc.nvrtcDestroyProgram(&prog);
    rtc_free_names(lowered, nexprs);
    free(all);
    free(out->code);
    out->code = NULL;
    out->size = 0;
    if (rc != RTC_COMPILE_ERROR) {
        free(out->log);
        out->log = NULL;
    }
    return rc;
}

int rtc_cache_lookup(const char *src, const char *name, const char *arch,
                     rtc_target target, const char *const *opts, int nopts, rtc_out *out)
{
    const char *dir = kc_dir();
    kc_image img;
    kc_key k;
    int rc;

    memset(out, 0, sizeof *out);
    if (!dir || kc_key_make(&k, src, name, arch, target == RTC_PTX ? "ptx" : "cubin", opts,
                            nopts) != 0)
        return 0;
    rc = kc_get(dir, &k, target == RTC_PTX, &img);
    kc_key_free(&k);
    if (rc != 1) return 0;
    out->code = img.code;
    out->size = img.size;
    out->log = img.log;
    out->ms = out->total_ms = NAN;       /* nothing was compiled here */
    return 1;
}

void rtc_cache_store(const char *src, const char *name, const char *arch,
                     rtc_target target, const char *const *opts, int nopts,
                     const rtc_out *out)
{
    const char *dir = kc_dir();
    kc_image img;
    kc_key k;

    if (!dir || kc_key_make(&k, src, name, arch, target == RTC_PTX ? "ptx" : "cubin", opts,
                            nopts) != 0)
        return;
    img.code = out->code;
    img.size = out->size;
    img.log = out->log;
    kc_put(dir, &k, &img);
    kc_key_free(&k);
}

int rtc_compile_shared(const char *src, const char *name, const char *arch,
                       rtc_target target, const char *const *opts, int nopts,
                       rtc_out *out)
{
    int rc;

    if (rtc_cache_lookup(src, name, arch, target, opts, nopts, out)) {
        sg_check();             /* a safe point, as a compile is */
        return RTC_OK;
    }
    rc = rtc_compile(src, name, arch, target, opts, nopts, out);
    if (rc == RTC_OK) rtc_cache_store(src, name, arch, target, opts, nopts, out);
    return rc;
}

void rtc_out_free(rtc_out *out)
{
    free(out->code);
    free(out->log);
    memset(out, 0, sizeof *out);
}

#include <errno.h>

#define RTC_CSV_HEADER "File name, phase name, metric, unit"

/* Split off the last ", "-separated field of line[0 .. *len): returns it
 * (NUL-terminated in place) and shortens *len to the text before the
 * separator; NULL when there is no separator. */
static char *rtc_last_field(char *line, size_t *len)
{
    size_t i;
    for (i = *len; i >= 2; i--) {
        if (line[i - 2] == ',' && line[i - 1] == ' ') {
            line[i - 2] = '\0';
            *len = i - 2;
            return line + i;
        }
    }
    return NULL;
}

/* A metric: digits with at most one '.', starting with a digit. Stores its
 * value; returns 0, or -1 when it is not of that form. */
static int rtc_metric(const char *s, double *v)
{
    const char *p;
    char *end;
    int dots = 0;

    if (*s < '0' || *s > '9') return -1;
    for (p = s; *p; p++) {
        if (*p == '.') dots++;
        else if (*p < '0' || *p > '9') return -1;
    }
    if (dots > 1) return -1;
    errno = 0;
    *v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(*v)) return -1;
    return 0;
}

/* Parse one data line (no newline) into a phase name and milliseconds.
 * Returns 0, or -1 with the reason in why. */
static int rtc_phase_line(char *line, const char **phase, double *ms, char *why, size_t whylen)
{
    size_t len = strlen(line);
    char *unit = rtc_last_field(line, &len);
    char *metric = unit ? rtc_last_field(line, &len) : NULL;
    char *name = metric ? rtc_last_field(line, &len) : NULL;
    double v;

    if (!name) {
        snprintf(why, whylen, "expected 4 fields \"file, phase, metric, unit\" separated by \", \"");
        return -1;
    }
    if (*name == '\0') {
        snprintf(why, whylen, "the phase name is empty");
        return -1;
    }
    if (rtc_metric(metric, &v) != 0) {
        snprintf(why, whylen, "metric '%.40s' is not a non-negative number", metric);
        return -1;
    }
    if (strcmp(unit, "ms") == 0) *ms = v;
    else if (strcmp(unit, "us") == 0) *ms = v / 1000.0;
    else if (strcmp(unit, "s") == 0) *ms = v * 1000.0;
    else {
        snprintf(why, whylen, "unit '%.40s' is not ms, us or s", unit);
        return -1;
    }
    *phase = name;
    return 0;
}

int rtc_phase_times(const char *csv_path, char names[][RTC_PHASE_NAME], double *ms,
                    int max, char *why, size_t whylen)
{
    FILE *f = fopen(csv_path, "r");
    char *line = NULL, reason[160];
    size_t cap = 0;
    ssize_t got;
    long lineno = 0;
    int n = 0, rc = -1;

    if (!f) {
        snprintf(why, whylen, "%s: %s", csv_path, strerror(errno));
        return -1;
    }
    while ((got = getline(&line, &cap, f)) >= 0) {
        size_t len = (size_t)got;
        const char *phase;
        double v;

        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (len == 0) continue;
        if (strlen(line) != len) {
            snprintf(why, whylen, "%s:%ld: the line holds a NUL byte", csv_path, lineno);
            goto done;
        }
        /* NVRTC writes the header only when it creates the file, and
         * appends to an existing one; accept it on any line. */
        if (strcmp(line, RTC_CSV_HEADER) == 0) continue;
        if (rtc_phase_line(line, &phase, &v, reason, sizeof reason) != 0) {
            snprintf(why, whylen, "%s:%ld: malformed line: %s", csv_path, lineno, reason);
            goto done;
        }
        if (n < max) {
            snprintf(names[n], RTC_PHASE_NAME, "%s", phase);
            ms[n] = v;
            n++;
        }
    }
    if (ferror(f)) {
        snprintf(why, whylen, "%s: read error: %s", csv_path, strerror(errno));
        goto done;
    }
    rc = n;
done:
    free(line);
    fclose(f);
    return rc;
}
