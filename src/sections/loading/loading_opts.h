/* loading_opts.h: section loading's rows of the option table (the columns:
 * run/opt.h; gathered by SEC_OPT_LIST, sections/list.h). Includes
 * nothing. */
#ifndef LOADING_OPTS_H
#define LOADING_OPTS_H

#define LD_OPTS(X, NO_PROFILE)                                                          \
    X(MODULE, "module", "PATH", OPT_LIST(modules, nmodules, "modules"),                 \
      OPT_OWNED(LOADING, "is read by"), OPT_REPEAT | OPT_UNIQUE,                         \
      OPT_COMMON(8, "section loading: your cubin, PTX, fatbin or library"),             \
      "section loading: read PATH (a cubin, PTX, a fatbin, or\n"                        \
      "an executable or shared library with device code),\n"                           \
      "list its fatbins and load each, instead of the\n"                                \
      "harness's own modules; repeatable")

#endif
