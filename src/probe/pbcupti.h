/* pbcupti.h: CUPTI for the probe, opened with dlopen from the first place
 * it may be (HARNESS_PROBE_CUPTI, the loader's libcupti.so.13 and
 * libcupti.so, $CUDA_HOME/lib64, /usr/local/cuda/lib64 and
 * /usr/local/cuda/extras/CUPTI/lib64) and its four entry points resolved. */
#ifndef PBCUPTI_H
#define PBCUPTI_H

#include <stddef.h>
#include <cupti.h>

typedef struct pbc_cupti {
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                   CUpti_CallbackId);
    CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
    CUptiResult (*result_string)(CUptiResult, const char **);
} pbc_cupti;

/* Open CUPTI and resolve *c: 0, or -1 with why ("not found: looked in
 * ...", "failed: the libcupti found lacks cuptiSubscribe"). */
int pbc_open(pbc_cupti *c, char *why, size_t whylen);

/* dlsym of name in lib into *slot (a function pointer's storage, size
 * bytes; NULL where absent): the probe's one way to take an entry point. */
void pbc_sym(void *lib, const char *name, void *slot, size_t size);

/* "failed: <call> <CUPTI's name of r> (<r>)" into why. */
void pbc_failed(const pbc_cupti *c, const char *call, CUptiResult r, char *why, size_t whylen);

#endif
