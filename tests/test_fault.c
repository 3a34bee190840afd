/* test_fault.c: unit tests of src/os/fault.c: HARNESS_FAULT's spec, the
 * armed fault firing once on the K-th call, and the per-entry-point counts;
 * and the libraries' names for entry points and codes. */
#include "testhelp.h"
#include "cuda/cudadrv.h"
#include "cuda/rtc.h"
#include "os/fault.h"

#include <stdio.h>
#include <string.h>

/* ft_parse rejects text, with a reason that holds `word`. */
static int rejects(const char *text, const char *word)
{
    ft_spec f;
    char why[256] = "";
    return ft_parse(text, &f, why, sizeof why) == -1 && strstr(why, word) != NULL;
}

static int name_of(const char *call, const char *want)
{
    char name[FT_NAME_MAX];
    ft_call_name(call, name, sizeof name);
    return strcmp(name, want) == 0;
}

void test_fault(void)
{
    ft_spec f;
    char why[256], text[256];
    FILE *tmp;
    long code = 0, first, second, third;
    CUresult r = CUDA_SUCCESS;
    int ok;

    /* Valid specs. */
    ok = ft_parse("cuMemAlloc:1", &f, why, sizeof why) == 0;
    th_check("fault: NAME:K parses", ok && strcmp(f.name, "cuMemAlloc") == 0 && f.k == 1 &&
             !f.has_code);
    ok = ft_parse("cuLaunchKernel:250:719", &f, why, sizeof why) == 0;
    th_check("fault: NAME:K:number", ok && f.k == 250 && f.has_code && f.code == 719 &&
             f.code_name[0] == '\0');
    ok = ft_parse("nvrtcCompileProgram:2:NVRTC_ERROR_OUT_OF_MEMORY", &f, why, sizeof why) == 0;
    th_check("fault: NAME:K:name", ok && f.k == 2 && f.has_code &&
             strcmp(f.code_name, "NVRTC_ERROR_OUT_OF_MEMORY") == 0);
    ok = ft_parse("cuInit:1000000000", &f, why, sizeof why) == 0;
    th_check("fault: K up to 10^9", ok && f.k == 1000000000L);

    /* Bad specs: each with a reason. */
    th_check("fault: empty spec", rejects("", "empty"));
    th_check("fault: no K", rejects("cuMemAlloc", "NAME:K"));
    th_check("fault: K empty", rejects("cuMemAlloc:", "K must be"));
    th_check("fault: K = 0", rejects("cuMemAlloc:0", "K must be"));
    th_check("fault: K negative", rejects("cuMemAlloc:-1", "K must be"));
    th_check("fault: K too large", rejects("cuMemAlloc:1000000001", "K must be"));
    th_check("fault: K not a number", rejects("cuMemAlloc:1x", "K must be"));
    th_check("fault: NAME of another library", rejects("malloc:1", "NAME must be"));
    th_check("fault: NAME empty", rejects(":1", "NAME must be"));
    th_check("fault: NAME with a space", rejects("cuMem Alloc:1", "NAME holds ' '"));
    th_check("fault: CODE empty", rejects("cuMemAlloc:1:", "CODE is empty"));
    th_check("fault: CODE 0 is success", rejects("cuMemAlloc:1:0", "0 is success"));
    th_check("fault: CODE neither number nor name", rejects("cuMemAlloc:1:oops", "neither"));
    th_check("fault: CODE number with junk", rejects("cuMemAlloc:1:2x", "error number"));
    th_check("fault: a fourth field", rejects("cuMemAlloc:1:2:3", "error number"));

    /* The entry point a call's text names. */
    th_check("fault: name of drv.cuMemAlloc(...)", name_of("drv.cuMemAlloc(&v->a, bytes)", "cuMemAlloc"));
    th_check("fault: name of rtc.nvrtcGetPTX(...)", name_of("rtc.nvrtcGetPTX(prog, out->code)", "nvrtcGetPTX"));
    th_check("fault: name of a bare identifier", name_of("cuInit", "cuInit"));
    th_check("fault: name of p->fn (x)", name_of("p->fn (x)", "fn"));

    /* Armed: the K-th call of that entry point only, once. */
    ft_reset();
    th_check("fault: nothing armed, nothing fails", ft_hit("drv.cuMemAlloc(&p, 4)") == 0 &&
             !ft_take_injected());
    ok = ft_parse("cuMemAlloc:2", &f, why, sizeof why) == 0;
    ft_arm(&f, 2);
    first = ft_hit("drv.cuMemAlloc(&p, 4)");
    th_check("fault: other entry points pass", ft_hit("drv.cuMemAllocHost(&h, 4)") == 0 &&
             ft_hit("drv.cuMemFree(p)") == 0);
    second = ft_hit("drv.cuMemAlloc(&q, 4)");
    th_check("fault: the first call passes, the second fails with the code",
             ok && first == 0 && second == 2);
    th_check("fault: the failure is flagged as injected, once",
             ft_take_injected() == 1 && ft_take_injected() == 0);
    third = ft_hit("drv.cuMemAlloc(&r, 4)");
    th_check("fault: it fires once", third == 0 && !ft_take_injected());
    {
        char nm[FT_NAME_MAX];
        long k = 0, calls = 0;
        th_check("fault: a fault that fired is not reported unfired", ft_unfired(nm, sizeof nm, &k, &calls) == 0);
        ok = ft_parse("cuMemAlloc:5", &f, why, sizeof why) == 0;
        ft_arm(&f, 2);
        ft_hit("drv.cuMemAlloc(&p, 4)");
        ft_hit("drv.cuMemAlloc(&q, 4)");
        th_check("fault: one not reached yet is reported unfired, with its K and the calls made",
                 ok && ft_unfired(nm, sizeof nm, &k, &calls) == 1 && strcmp(nm, "cuMemAlloc") == 0 &&
                 k == 5 && calls == 2);
        ft_reset();
        th_check("fault: nothing armed, nothing unfired", ft_unfired(nm, sizeof nm, &k, &calls) == 0);
    }

    /* Counting every entry point. */
    ft_reset();
    ft_count_all();
    ft_hit("drv.cuInit(0)");
    ft_hit("drv.cuMemAlloc(&p, 4)");
    ft_hit("drv.cuMemAlloc(&q, 4)");
    ft_hit("rtc.nvrtcCompileProgram(prog, 2, all)");
    th_check("fault: counts per entry point", ft_count("cuInit") == 1 &&
             ft_count("cuMemAlloc") == 2 && ft_count("nvrtcCompileProgram") == 1 &&
             ft_count("cuMemFree") == 0);
    tmp = tmpfile();
    text[0] = '\0';
    if (tmp && ft_log_write(tmp) == 0) {
        size_t n;
        rewind(tmp);
        n = fread(text, 1, sizeof text - 1, tmp);
        text[n] = '\0';
    }
    if (tmp) fclose(tmp);
    th_check("fault: the log lists NAME COUNT in first-call order",
             strcmp(text, "cuInit 1\ncuMemAlloc 2\nnvrtcCompileProgram 1\n") == 0);
    ft_reset();
    th_check("fault: reset forgets the counts", ft_count("cuMemAlloc") == 0);

    /* The libraries' side: names of entry points and codes, defaults. */
    th_check("fault: the driver table knows cuMemAlloc, not cuFoo or cuGetErrorString",
             drv_entry_known("cuMemAlloc") && drv_entry_known("cuLaunchKernel") &&
             !drv_entry_known("cuFoo") && !drv_entry_known("cuGetErrorString"));
    th_check("fault: CUresult names resolve",
             drv_result_code("CUDA_ERROR_OUT_OF_MEMORY", &r) == 0 && r == CUDA_ERROR_OUT_OF_MEMORY &&
             drv_result_code("CUDA_ERROR_NOPE", &r) == -1);
    th_check("fault: defaults are errors the call can return",
             drv_fault_default("cuMemAlloc") == CUDA_ERROR_OUT_OF_MEMORY &&
             drv_fault_default("cuInit") == CUDA_ERROR_NO_DEVICE &&
             drv_fault_default("cuMemcpyHtoD") == CUDA_ERROR_INVALID_VALUE);
    th_check("fault: NVRTC entry points and codes",
             rtc_entry_known("nvrtcCompileProgram") && !rtc_entry_known("nvrtcGetErrorString") &&
             !rtc_entry_known("nvrtcNope") &&
             rtc_result_code("NVRTC_ERROR_COMPILATION", &code) == 0 && code == 6 &&
             rtc_result_code("CUDA_ERROR_OUT_OF_MEMORY", &code) == -1 &&
             rtc_fault_default("nvrtcCompileProgram") == 6 &&
             rtc_fault_default("nvrtcCreateProgram") == 1);
}
