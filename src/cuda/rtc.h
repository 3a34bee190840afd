/* rtc.h: NVRTC loaded with dlopen; compiling one source to PTX or cubin
 * with its time, log and options. */
#ifndef RTC_H
#define RTC_H

#include <stddef.h>

/* Load NVRTC: libnvrtc.so.13, then .12, first from CUDA_HOME/lib64 (the
 * environment's CUDA_HOME, else the build's), then from the loader path.
 * Returns 0, or -1 with a one-line reason in why. Idempotent. */
int rtc_load(char *why, size_t whylen);

/* Unload NVRTC (dlclose). Returns 0, or -1 when dlclose failed. */
int rtc_unload(void);

/* NVRTC's version; 0, or -1 (not loaded, or the call failed: reported). */
int rtc_version(int *major, int *minor);

/* Whether NVRTC compiles for arch ("sm_90", "sm_90a": the number counts):
 * 0 yes; 1 no, with the architectures it does compile for in why; -1 not
 * loaded, or a call failed (reported). */
int rtc_arch_check(const char *arch, char *why, size_t whylen);

/* For HARNESS_FAULT: 1 when name is an NVRTC entry point the harness checks. */
int rtc_entry_known(const char *name);

/* The nvrtcResult whose name is name ("NVRTC_ERROR_COMPILATION") into
 * *code: 0, or -1 when none has that name. */
int rtc_result_code(const char *name, long *code);

/* The error an injected failure of entry point name returns when
 * HARNESS_FAULT gives no CODE: one that call can really return. */
long rtc_fault_default(const char *name);

/* How many NVRTC call failures have been reported in this process (a
 * kernel that does not compile is not one: its caller reports that). */
long rtc_errors(void);

/* The path NVRTC was loaded from ("libnvrtc.so.13" when the loader found it). */
const char *rtc_loaded_from(void);

typedef enum rtc_target { RTC_PTX, RTC_CUBIN } rtc_target;

typedef struct rtc_out {
    char *code;        /* PTX text (NUL-terminated) or cubin bytes */
    size_t size;       /* bytes of code (PTX: including the NUL) */
    char *log;         /* NVRTC's log, NUL-terminated, possibly "" */
    double ms;         /* host time of nvrtcCompileProgram alone */
    double total_ms;   /* create program + compile + get code + destroy */
} rtc_out;

enum { RTC_OK = 0, RTC_COMPILE_ERROR = -1, RTC_API_ERROR = -2 };

/* Compile `src` (named `name` in NVRTC's log, so errors read as
 * name(line): error ...) for arch "sm_XY": PTX with -arch=compute_XY,
 * cubin with -arch=sm_XY, plus nopts extra options. Returns RTC_OK with *out
 * filled; RTC_COMPILE_ERROR with out->log holding the log; RTC_API_ERROR
 * after printing the failed NVRTC call (an injected NVRTC_ERROR_COMPILATION
 * is one: nothing was compiled). Free with rtc_out_free. The compile is a
 * safe point, and a signal during it stops the run at once (sg_call_begin in
 * sig.h): call it only where the run's results are consistent. */
int rtc_compile(const char *src, const char *name, const char *arch,
                rtc_target target, const char *const *opts, int nopts,
                rtc_out *out);

/* rtc_compile through the run's compile cache (kcache.h), for a compile
 * whose time is not what is measured (a child that needs the module, not
 * the compile): when the cache holds this compile (the same source, name,
 * arch, target and options), its image, with no NVRTC call (out->ms and
 * out->total_ms NaN: nothing was compiled here); otherwise rtc_compile, and
 * a successful result stored for the run's other processes. Without a
 * cache (KC_ENV unset, or a directory that cannot be used) it is
 * rtc_compile. NVRTC must be loaded for a miss, as for rtc_compile. A hit is
 * a safe point (sg_check), as a compile is. Never use it where the compile
 * is timed: a hit times nothing. */
int rtc_compile_shared(const char *src, const char *name, const char *arch,
                       rtc_target target, const char *const *opts, int nopts,
                       rtc_out *out);

/* The cache's two halves, for a caller that loads NVRTC only when the
 * cache cannot answer, or that compiles for a measurement of its own and
 * stores an untimed compile for the others. rtc_cache_lookup: 1 with *out
 * filled as rtc_compile_shared's hit fills it, else 0 (out zeroed; also
 * when there is no cache, or memory ran out). rtc_cache_store: keep out,
 * an RTC_OK result of these arguments, for the run's other processes
 * (nothing when there is no cache or it cannot be written). */
int rtc_cache_lookup(const char *src, const char *name, const char *arch,
                     rtc_target target, const char *const *opts, int nopts, rtc_out *out);
void rtc_cache_store(const char *src, const char *name, const char *arch,
                     rtc_target target, const char *const *opts, int nopts,
                     const rtc_out *out);

/* rtc_compile for templates: before compiling, nvrtcAddNameExpression of
 * each of the nexprs name expressions (e.g. "chainFusedWide<4>"), which makes
 * NVRTC instantiate them; after, nvrtcGetLoweredName of each, a malloc'd
 * copy in lowered[i] (the mangled name to pass to cuModuleGetFunction; the
 * caller frees each). Returns as rtc_compile; on any failure every
 * lowered[i] is NULL (none left allocated). nexprs = 0 is rtc_compile
 * (exprs and lowered may then be NULL). */
int rtc_compile_named(const char *src, const char *name, const char *arch,
                      rtc_target target, const char *const *opts, int nopts,
                      const char *const *exprs, int nexprs, char **lowered,
                      rtc_out *out);

void rtc_out_free(rtc_out *out);

/* NVRTC's own phase times, from the CSV its --time=FILE option writes:
 *   File name, phase name, metric, unit
 *   t.cu, CUDA C++ Frontend, 14, ms
 * Up to max phases go into names (copied, at most RTC_PHASE_NAME bytes each
 * including the NUL) and ms (converted to milliseconds from the unit
 * column: ms, us or s). Returns the number of phases, or -1 with a reason in
 * why when the file cannot be read or a line is malformed. */
#define RTC_PHASE_NAME 64
int rtc_phase_times(const char *csv_path, char names[][RTC_PHASE_NAME], double *ms,
                    int max, char *why, size_t whylen);

#endif
