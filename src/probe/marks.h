/* marks.h: the probe's NVTX marks. The probe is also an NVTX injection
 * library: with --ready the harness sets NVTX_INJECTION64_PATH to the probe
 * and PRC_ENV_READY to the expression, and NVTX v3 (nvtx3/nvToolsExt.h,
 * compiled into the program: torch, nvcc programs) loads the probe at the
 * program's first NVTX call and calls InitializeInjectionNvtx2, which routes
 * the marks (nvtxMarkA, nvtxMarkEx and nvtxDomainMarkEx with an ASCII
 * message) here. No CUPTI is involved: the callbacks are NVTX's own
 * (nvtxInit.h's load sequence, nvtxTypes.h's export table). Every other
 * NVTX call stays a no-op, and without PRC_ENV_READY so do the marks. */
#ifndef MARKS_H
#define MARKS_H

#define NVTX_NO_IMPL    /* NVTX's types only: the probe is the tool, not a client */
#include <nvtx3/nvToolsExt.h>

/* NVTX's entry point (nvtxInit.h: the symbol the NVTX loader looks up in
 * the library NVTX_INJECTION64_PATH names). Compiles PRC_ENV_READY (POSIX
 * extended, as src/core/rx.h takes it: the harness refuses a pattern over
 * RX_MAX_PATTERN bytes, so the variable holds it whole), routes the marks to the probe and returns 1; returns 0 (every
 * NVTX call stays a no-op) without the variable, where it does not
 * compile, or where the export table is not NVTX's. */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

/* A mark made now with text (NULL, or a wide or registered message: not
 * counted): counted, and where it is the first to match the expression its
 * time kept: in time bounded by the text's length times the pattern's
 * states (rx.h). Thread-safe; allocates nothing. */
void pm_mark_now(const char *text);

/* The marks counted so far into *n, and the probe clock's reading
 * (clk_now_ns) at the first that matched into *ns; returns 1 when one
 * matched, else 0 (*ns untouched). Thread-safe. */
int pm_ready(double *n, long long *ns);

/* Who is told, outside the marks' lock, of the first mark that matched
 * (its clock reading): the probe's live record (pblive.h). NULL: none. */
void pm_on_ready(void (*fn)(long long ns));

/* For tests: forget the marks and the expression, and take the clock from
 * now (NULL: the probe's clock). */
void pm_reset_for_test(long long (*now)(void));

#endif
