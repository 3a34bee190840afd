/* pbcupti.c: CUPTI opened and resolved for the probe (pbcupti.h). */
#include "probe/pbcupti.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/precord.h"

#define PBC_LOOKED 990          /* the places tried, said */

void pbc_sym(void *lib, const char *name, void *slot, size_t size)
{
    void *p = dlsym(lib, name);
    memcpy(slot, &p, size);
}

/* Append the place tried to the list in looked (len bytes). */
static void pbc_looked(char *looked, size_t len, const char *where, const char *note)
{
    size_t used = strlen(looked);
    if (used < len)
        snprintf(looked + used, len - used, "%s%s%s", used ? ", " : "", where, note);
}

/* dlopen CUPTI from the first of the places it may be; NULL with
 * "not found: looked in ..." in why. */
static void *pbc_dlopen(char *why, size_t whylen)
{
    char home[PATH_MAX], looked[PBC_LOOKED] = "";
    const char *env = getenv(PRC_ENV_CUPTI), *cuda_home = getenv("CUDA_HOME");
    const char *tries[6], *notes[6];
    size_t n = 0, i;
    void *lib;

    if (env && *env) { tries[n] = env; notes[n++] = " (" PRC_ENV_CUPTI ")"; }
    tries[n] = "libcupti.so.13"; notes[n++] = "";
    tries[n] = "libcupti.so"; notes[n++] = " (the loader's path)";
    if (cuda_home && *cuda_home &&
        snprintf(home, sizeof home, "%s/lib64/libcupti.so", cuda_home) < (int)sizeof home &&
        strcmp(home, "/usr/local/cuda/lib64/libcupti.so") != 0) {
        tries[n] = home; notes[n++] = " ($CUDA_HOME)";
    }
    tries[n] = "/usr/local/cuda/lib64/libcupti.so"; notes[n++] = "";
    tries[n] = "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"; notes[n++] = "";
    for (i = 0; i < n; i++) {
        if ((lib = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL)) != NULL) return lib;
        pbc_looked(looked, sizeof looked, tries[i], notes[i]);
    }
    snprintf(why, whylen, "not found: looked in %s", looked);
    return NULL;
}

int pbc_open(pbc_cupti *c, char *why, size_t whylen)
{
    void *lib = pbc_dlopen(why, whylen);
    if (!lib) return -1;
    pbc_sym(lib, "cuptiSubscribe", &c->subscribe, sizeof c->subscribe);
    pbc_sym(lib, "cuptiEnableCallback", &c->enable_callback, sizeof c->enable_callback);
    pbc_sym(lib, "cuptiUnsubscribe", &c->unsubscribe, sizeof c->unsubscribe);
    pbc_sym(lib, "cuptiGetResultString", &c->result_string, sizeof c->result_string);
    if (c->subscribe && c->enable_callback && c->unsubscribe && c->result_string) return 0;
    snprintf(why, whylen, "failed: the libcupti found lacks %s",
             !c->subscribe ? "cuptiSubscribe" : !c->enable_callback ? "cuptiEnableCallback"
             : !c->unsubscribe ? "cuptiUnsubscribe" : "cuptiGetResultString");
    return -1;
}

void pbc_failed(const pbc_cupti *c, const char *call, CUptiResult r, char *why, size_t whylen)
{
    const char *s = NULL;
    if (c->result_string(r, &s) != CUPTI_SUCCESS || !s) s = "CUPTI error";
    snprintf(why, whylen, "failed: %s %s (%d)", call, s, (int)r);
}
