/* program_device.c: the device, driver, CUPTI and demangler of a program
 * run named in its env fields (NVML and the library files; no context),
 * and the header line that prints them. */
#include "sections/program/program_device.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/demangle.h"
#include "cuda/nvml.h"
#include "run/table.h"

/* One env field; out of memory is said. */
static void pgd_put(results *r, const char *key, const char *val)
{
    if (res_env_str(r, key, val) != 0)
        fprintf(stderr, "harness: program: out of memory storing %s\n", key);
}

/* "unknown: <why>" or val into r's key. */
static void pgd_field(results *r, const char *key, const char *val, const char *why)
{
    char buf[700];
    if (val && *val) {
        pgd_put(r, key, val);
        return;
    }
    snprintf(buf, sizeof buf, "unknown: %s", why && *why ? why : "not answered");
    pgd_put(r, key, buf);
}

/* The CUPTI API version of the library file path, and the file it is,
 * into buf; "unknown: ..." when it does not answer. */
static void pgd_cupti(const char *path, char *buf, size_t len)
{
    char real[PATH_MAX];
    const char *base;
    void *h, *p;
    int (*get)(uint32_t *) = NULL;
    uint32_t v = 0;

    if (!path || !*path) {
        snprintf(buf, len, "none found");
        return;
    }
    base = realpath(path, real) ? real : path;
    base = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
    if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *e = dlerror();
        snprintf(buf, len, "unknown: %.300s (%.200s)", e ? e : "dlopen failed", base);
        return;
    }
    if ((p = dlsym(h, "cuptiGetVersion"))) memcpy(&get, &p, sizeof get);
    if (get && get(&v) == 0) snprintf(buf, len, "CUPTI API %u, %.200s", (unsigned)v, base);
    else snprintf(buf, len, "unknown: cuptiGetVersion did not answer (%.200s)", base);
    /* Left open: a library's unloading is not worth the risk here. */
}

void pgd_env(results *r, const char *bus, const char *cupti)
{
    nv_gpu g;
    char why[512] = "", buf[700];
    int given = bus && *bus;

    nv_gpu_info(bus, &g, why, sizeof why);
    pgd_field(r, "program_gpu_name", g.name, g.why[NV_GPU_NAME]);
    pgd_field(r, "program_gpu_uuid", g.uuid, g.why[NV_GPU_UUID]);
    pgd_field(r, "program_gpu_bus_id", g.bus_id, g.why[NV_GPU_BUS]);
    pgd_put(r, "program_gpu_source", given ? "the first CUDA process's device (its record), "
            "named by NVML" : "no CUDA process reported its device: the one device NVML counts, "
            "where it counts one");
    pgd_field(r, "program_driver_version", g.driver, g.why[NV_GPU_DRIVER]);
    if (g.cuda_driver > 0) {
        snprintf(buf, sizeof buf, "%d.%d", g.cuda_driver / 1000, g.cuda_driver % 1000 / 10);
        pgd_put(r, "program_cuda_driver_version", buf);
    } else {
        pgd_field(r, "program_cuda_driver_version", NULL, g.why[NV_GPU_CUDA]);
    }
    pgd_cupti(cupti, buf, sizeof buf);
    pgd_put(r, "program_cupti_version", buf);
    if (dm_open(why, sizeof why) == 0) {
        pgd_put(r, "program_demangler", "__cxa_demangle of libstdc++.so.6");
    } else {
        pgd_put(r, "program_demangler", why);
        fprintf(stderr, "harness: program: kernel names stay as they are (%s)\n", why);
    }
}

void pgd_print(FILE *f, const results *r)
{
    static const char *const keys[5] = { "program_gpu_name", "program_gpu_uuid", "program_gpu_bus_id",
                                         "program_driver_version", "program_cuda_driver_version" };
    const char *v[5];
    size_t i, same = 1;
    if (!res_env_get(r, "program_gpu_name")) return;
    for (i = 0; i < 5; i++) {
        v[i] = tb_env_str(r, keys[i], "?");
        same &= strcmp(v[i], v[0]) == 0;
    }
    /* One reason for all five (NVML not there): said once. */
    if (same && strncmp(v[0], "unknown: ", 9) == 0)
        tb_wrap(f, "  ", "  ", tb_width(), "Device: unknown, its name, UUID, bus, driver and CUDA alike (%s); "
                "CUPTI: %s.", v[0] + 9, tb_env_str(r, "program_cupti_version", "?"));
    else
        tb_wrap(f, "  ", "  ", tb_width(), "Device: %s (%s, bus %s); driver %s, CUDA %s; CUPTI: %s.", v[0], v[1],
                v[2], v[3], v[4], tb_env_str(r, "program_cupti_version", "?"));
}
