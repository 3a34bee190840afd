/* test_nvml.c: unit tests of src/cuda/nvml.c that need no NVML: where
 * libnvidia-ml.so.1 is absent, every call says so and fills nothing;
 * where it is there, the answers are at least consistent. */
#include "testhelp.h"
#include "cuda/nvml.h"

#include <string.h>
#include <unistd.h>

/* Without NVML, nv_gpu_info names nothing, and every field says why. */
static void test_nvml_gpu_absent(const char *why)
{
    nv_gpu g;
    char w[512] = "";
    int f, all = 1;

    memset(&g, 'x', sizeof g);
    th_check("nvml: without NVML, nv_gpu_info fails with nv_open's reason",
             nv_gpu_info("0000:19:00.0", &g, w, sizeof w) == -1 && strcmp(w, why) == 0);
    for (f = 0; f < NV_GPU_NFIELDS; f++) all &= strcmp(g.why[f], why) == 0;
    th_check("nvml: without NVML, every field of nv_gpu empty and its reason NVML's absence",
             all && !g.name[0] && !g.uuid[0] && !g.bus_id[0] && !g.driver[0] && g.cuda_driver == 0);
    th_check("nvml: without NVML, nv_gpu_info with no bus id and no why room still answers -1",
             nv_gpu_info(NULL, &g, NULL, 0) == -1);
}

/* Without NVML: one clear reason, the same from every call. */
static void test_nvml_absent(const char *why)
{
    char why2[512] = "", why3[512] = "";
    double mib = 42;
    nv_sample s[2] = { { 7, 7 }, { 7, 7 } };
    size_t n = 99;

    th_check("nvml: without libnvidia-ml.so.1, nv_open says NVML is not available",
             strncmp(why, "NVML not available: ", 20) == 0 && strstr(why, "libnvidia-ml.so.1"));
    th_check("nvml: without NVML, nv_process_mib fails with nv_open's reason, *mib untouched",
             nv_process_mib(NULL, (long)getpid(), &mib, why2, sizeof why2) == -1 &&
             strcmp(why2, why) == 0 && mib == 42);
    th_check("nvml: without NVML, nv_processes fails with the reason, *n 0, out untouched",
             nv_processes(s, 2, &n, why3, sizeof why3) == -1 && strcmp(why3, why) == 0 &&
             n == 0 && s[0].pid == 7 && s[1].mib == 7);
    test_nvml_gpu_absent(why);
}

/* With NVML (a GPU machine): this test process has no context, so NVML
 * lists it nowhere. */
static void test_nvml_present(void)
{
    char why[512] = "";
    double mib = 42;
    nv_sample s[64];
    size_t n = 0;

    th_check("nvml: with NVML, this process (no context) is listed on no device",
             nv_process_mib(NULL, (long)getpid(), &mib, why, sizeof why) == -1 &&
             strstr(why, "lists no compute process") && mib == 42);
    th_check("nvml: with NVML, nv_processes answers",
             nv_processes(s, 64, &n, why, sizeof why) == 0);
}

void test_nvml(void)
{
    char why[512] = "", again[512] = "";
    int rc = nv_open(why, sizeof why);

    th_check("nvml: nv_open gives the first call's answer again",
             nv_open(again, sizeof again) == rc && strcmp(why, again) == 0);
    if (rc != 0) test_nvml_absent(why);
    else test_nvml_present();
}
