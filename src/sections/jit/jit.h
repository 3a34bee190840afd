/* jit.h: the keys section jit's measurement (jit.c) and its printer
 * (jit_table.c) share: the prefixes its children's figures are gathered
 * under and the words after them. The declarations (key, unit, state, name,
 * region) are jit.c's tables; a <word> is filled in with sch_fill
 * (core/schema.h). */
#ifndef JIT_H
#define JIT_H

#include "core/schema.h"

/* --source: every key of file <i> is the built-in one after this. */
#define JT_SRC_PRE "src.<i>."

/* NVRTC's first and second compile in a process (children jit-first). */
#define JT_NVRTC_PRE "nvrtc."
#define JT_FIRST_DLOPEN "dlopen"
#define JT_FIRST_FIRST "first"
#define JT_FIRST_SECOND "second"

/* The driver's JIT of a PTX module (children jit-load): the cache states,
 * EAGER, and the cache disabled under LAZY; the steps after them. */
#define JT_CACHE_PRE "cache.<word>."
#define JT_CACHE_DISABLED "cache.disabled."
#define JT_CACHE_EMPTY "cache.empty."
#define JT_CACHE_WARM "cache.warm."
#define JT_LAZY_DISABLED "lazy.disabled."
#define JT_LOAD "load"
#define JT_JIT "jit"
#define JT_GET "get"
#define JT_LAUNCH "launch"
#define JT_LAUNCH_SYNC "launch_sync"
#define JT_FUNC_LOAD "func_load"
#define JT_FUNCTIONS "functions"

/* Which of cuInit and NVRTC's first compile pays what they share
 * (children order-init, order-compile), and their steps. */
#define JT_ORDER_INIT "order.init_first."
#define JT_ORDER_COMPILE "order.compile_first."
#define JT_ORDER_INIT_NOPRELOAD "order.init_first.nopreload."
#define JT_ORDER_COMPILE_NOPRELOAD "order.compile_first.nopreload."
#define JT_ORDER_LIBCUDA "libcuda"
#define JT_ORDER_CUINIT "init"
#define JT_ORDER_NVRTC "nvrtc"
#define JT_ORDER_COMPILE_STEP "compile"

/* CU_JIT_OPTIMIZATION_LEVEL (child jit-opt): "jitopt.O<N>.<step>". */
#define JT_JITOPT_PRE "jitopt."
#define JT_OPT_LOAD "O<N>.load"
#define JT_OPT_JIT "O<N>.jit"
#define JT_OPT_WARM "O<N>.warm"

/* The built-in source of the option sets, the phases, the answer and jit-opt. */
#define JT_VECTOR "vector.cu"

/* NVRTC in the parent: the built-in sources, the option sets, the phases. */
#define JT_COMPILE_PTX "compile.<file>.ptx"
#define JT_COMPILE_CUBIN "compile.<file>.cubin"
#define JT_SYNTH_PTX "synth.<N>.ptx"
#define JT_SYNTH_CUBIN "synth.<N>.cubin"
#define JT_SRC_PTX "ptx"
#define JT_SRC_CUBIN "cubin"
#define JT_SET_COMPUTE "opt.compute"
#define JT_SET_BASE "opt.base"
#define JT_SET_FAST_MATH "opt.fast_math"
#define JT_SET_LINEINFO "opt.lineinfo"
#define JT_SET_G "opt.G"
#define JT_SET_EDV "opt.edv"
#define JT_SET_DOPT "opt.dopt"
#define JT_PHASES "phases."
#define JT_PHASES_VECTOR JT_PHASES "vector.cubin."    /* the built-in: vector.cu to cubin */

/* The derived entries: each --source file, and the answers. */
#define JT_D_SRC "src.<i>"
#define JT_ANSWER_NVRTC "nvrtc"            /* answer.nvrtc (an_store) */
#define JT_ANSWER_DRIVER "driver_jit"      /* answer.driver_jit */

/* JT_SRC_PRE filled in for file i, then suffix, into buf. */
void jt_src_key(char *buf, size_t len, size_t i, const char *suffix);

#endif
