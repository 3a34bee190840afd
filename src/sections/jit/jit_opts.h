/* jit_opts.h: section jit's rows of the option table (the columns:
 * run/opt.h; gathered by SEC_OPT_LIST, sections/list.h). Includes
 * nothing. */
#ifndef JIT_OPTS_H
#define JIT_OPTS_H

#define JT_OPTS(X, NO_PROFILE)                                                          \
    X(SOURCE, "source", "FILE.cu", OPT_LIST(sources, nsources, "sources"),              \
      OPT_OWNED(JIT, "is compiled by"), OPT_REPEAT,                                     \
      OPT_COMMON(9, "section jit: your kernel source"),                                 \
      "section jit: compile FILE.cu with NVRTC as the built-in\n"                       \
      "sources are, then the driver's JIT of its PTX, instead\n"                        \
      "of the built-in sources; repeatable")                                            \
    X(NVRTC_OPTION, "nvrtc-option", "OPT", OPT_LIST(nvrtc_opts, nnvrtc_opts, "options"), \
      OPT_NEEDS(SOURCE, "applies to --source compiles"), OPT_REPEAT, OPT_RARE,          \
      "an NVRTC option for every --source compile (-I, -D,\n"                          \
      "-std=); repeatable")

#endif
