/* marks.c: the probe's NVTX marks (marks.h): NVTX's injection entry point,
 * three mark handlers, the count and the first match. */
#include "probe/marks.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/rx.h"
#include "os/clock.h"
#include "probe/precord.h"

static struct {
    pthread_mutex_t lock;
    rx_prog *re;            /* PRC_ENV_READY compiled, or NULL */
    rx_stream *scan;        /* its scan of one mark's text at a time */
    double n;               /* marks seen */
    long long ready_ns;     /* the first match's clock reading */
    int ready;              /* one matched */
} pm = { .lock = PTHREAD_MUTEX_INITIALIZER };

static long long (*pm_now)(void) = clk_now_ns;
static void (*_Atomic pm_told)(long long ns);

void pm_on_ready(void (*fn)(long long ns))
{
    pm_told = fn;
}

void pm_mark_now(const char *text)
{
    long long ns = pm_now();
    void (*tell)(long long) = NULL;

    if (!text) return;
    pthread_mutex_lock(&pm.lock);
    pm.n++;
    if (pm.scan && !pm.ready && rx_match(pm.scan, text, strlen(text), NULL, NULL) == 1) {
        pm.ready = 1;
        pm.ready_ns = ns;
        tell = pm_told;
    }
    pthread_mutex_unlock(&pm.lock);
    if (tell) tell(ns);
}

int pm_ready(double *n, long long *ns)
{
    int ready;
    pthread_mutex_lock(&pm.lock);
    *n = pm.n;
    if ((ready = pm.ready)) *ns = pm.ready_ns;
    pthread_mutex_unlock(&pm.lock);
    return ready;
}

/* ------------------------------------------------------------- NVTX --- */

/* An event's ASCII message, or NULL (no attributes, too small a struct to
 * hold one, or another kind of message: wide, registered). */
static const char *pm_ascii(const nvtxEventAttributes_t *a)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message ||
        a->messageType != NVTX_MESSAGE_TYPE_ASCII)
        return NULL;
    return a->message.ascii;
}

static void NVTX_API pm_mark_a(const char *message) { pm_mark_now(message); }
static void NVTX_API pm_mark_ex(const nvtxEventAttributes_t *a) { pm_mark_now(pm_ascii(a)); }
static void NVTX_API pm_domain_mark_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *a)
{
    (void)domain;
    pm_mark_now(pm_ascii(a));
}

/* Point slot cbid of module's table at fn; 1, or 0 where NVTX's table has
 * no such module or slot. */
static int pm_route(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, unsigned cbid,
                    NvtxFunctionPointer fn)
{
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;

    if (!cb->GetModuleFunctionTable(module, &table, &size) || !table || cbid >= size || !table[cbid])
        return 0;
    *table[cbid] = fn;
    return 1;
}

/* PRC_ENV_READY compiled into pm.re, its scan made; 1, or 0 (absent,
 * empty, not an expression rx takes, or memory short: the harness compiled
 * it first, so only a stray variable). */
static int pm_compile(void)
{
    const char *expr = getenv(PRC_ENV_READY);
    char why[200];
    int on;
    pthread_mutex_lock(&pm.lock);
    if (!pm.scan && expr && *expr && rx_compile(expr, &pm.re, why, sizeof why) == 0 &&
        !(pm.scan = rx_stream_new(pm.re, 0))) {
        rx_free(pm.re);
        pm.re = NULL;
    }
    on = pm.scan != NULL;
    pthread_mutex_unlock(&pm.lock);
    return on;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb;
    NvtxFunctionPointer a, ex, dex;
    int routed;

    if (!get || !(cb = get(NVTX_ETID_CALLBACKS)) ||
        cb->struct_size < offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable) +
                          sizeof cb->GetModuleFunctionTable ||
        !cb->GetModuleFunctionTable || !pm_compile())
        return 0;
    /* Function pointers of other types, as NVTX's table holds them. */
    memcpy(&a, &(nvtxMarkA_impl_fntype){ pm_mark_a }, sizeof a);
    memcpy(&ex, &(nvtxMarkEx_impl_fntype){ pm_mark_ex }, sizeof ex);
    memcpy(&dex, &(nvtxDomainMarkEx_impl_fntype){ pm_domain_mark_ex }, sizeof dex);
    routed = pm_route(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, a);
    routed |= pm_route(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, ex);
    routed |= pm_route(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, dex);
    return routed;
}

/* ------------------------------------------------------------- tests --- */

void pm_reset_for_test(long long (*now)(void))
{
    pthread_mutex_lock(&pm.lock);
    rx_stream_free(pm.scan);
    rx_free(pm.re);
    pm.scan = NULL;
    pm.re = NULL;
    pm.ready = 0;
    pm.n = 0;
    pm.ready_ns = 0;
    pthread_mutex_unlock(&pm.lock);
    pm_now = now ? now : clk_now_ns;
}
