/* precord.c: the program record's schema (precord.h) and its reader. */
#include <string.h>
#include "precord.h"

#define CALLS(k, call, what)                                                        \
    { k ".n", "count", what ", calls", "each " call " call, counted" },             \
    { k ".ms", "ms", what ", time inside", "the host clock from the entry to the exit of " \
      "each " call " call, summed" }

const prc_fig prc_figs[PRC_NFIGS] = {
    { "at.probe", "ms", "probe loaded (first cuInit)",
      "from the spawn of the process to the driver's loading of the probe, inside its first cuInit" },
    { "at.context", "ms", "first context created",
      "from the spawn to the driver's report of the process's first context" },
    { "at.first_kernel", "ms", "before the first kernel",
      "from the spawn to the entry of the process's first kernel launch" },
    { "at.exit", "ms", "exit handler",
      "from the spawn to the probe's exit handler" },
    { "contexts.n", "count", "contexts created", "contexts the driver reported created" },
    CALLS("module_load", "cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx or cuModuleLoadFatBinary",
          "module loads"),
    CALLS("library_load", "cuLibraryLoadData or cuLibraryLoadFromFile", "library loads"),
    { "loaded.n", "count", "modules the driver loaded",
      "modules CUPTI's resource callback reported loaded (under LAZY, those loaded so far)" },
    { "loaded.mib", "MiB", "their images", "the images' bytes (cubinSize) of the modules loaded, summed" },
    { "ptx.n", "count", "images JIT-compiled from PTX",
      "images handed to a load that hold PTX and no machine code the device runs as it is" },
    CALLS("get_function", "cuModuleGetFunction", "function gets"),
    CALLS("get_kernel", "cuLibraryGetKernel", "kernel gets"),
    CALLS("kernel_function", "cuKernelGetFunction", "kernel-to-function gets"),
    CALLS("func_load", "cuFuncLoad", "function loads"),
    CALLS("launch_first", "kernel's first launch (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel)",
          "first launches"),
    CALLS("launch_later", "later launch of a kernel already launched once", "later launches"),
    { "mem.first_kernel", "MiB", "device memory at the first kernel",
      "the process's device memory (env mem_source says whose figure) when its first kernel launch returned" },
    { "mem.exit", "MiB", "device memory at exit",
      "the process's device memory when the probe's exit handler ran, where it still answered" },
    { "rss.peak", "MiB", "host peak RSS", "the process's peak resident set (getrusage) at its exit handler" },
};

const prc_fig *prc_fig_find(const char *key)
{
    size_t i;
    for (i = 0; i < PRC_NFIGS; i++)
        if (strcmp(prc_figs[i].key, key) == 0) return &prc_figs[i];
    return NULL;
}
