/* section_child.h: running this binary again as a child process for one
 * job (--child=KIND), reading back the results it prints as lines, and a
 * private JIT cache for children. */
#ifndef SECTION_CHILD_H
#define SECTION_CHILD_H

#include <stddef.h>
#include "core/results.h"
#include "os/proc.h"
#include "run/section_ctx.h"

/* A private, empty JIT cache for children: a new temporary directory
 * (pr_mkdtemp "what") into dir, and env[0..1] set to "CUDA_CACHE_DISABLE=0"
 * and "CUDA_CACHE_PATH=<dir>" (pathvar holds the second). Remove dir with
 * pr_rmtree. Returns 0, or -1 after printing "harness: SECTION: <why>". */
int sec_private_cache(const char *section, const char *what, char *dir, size_t dirlen,
                      char *pathvar, size_t pvlen, const char **env);

/* What became of a child run by pr_run_self (name: its --child=KIND word),
 * into detail: "the child NAME ran past --child-timeout=S s and was killed",
 * "... died of signal N (description)", "... exited with N", or "... ran to
 * the end". Returns 1 when it exited 0, else 0. */
int sec_child_outcome(const sec_ctx *c, const pr_result *pr, const char *name,
                      char *detail, size_t detaillen);

/* Run this binary as a child with args (after argv[0]) and set_env
 * ("NAME=VALUE", or "NAME" to remove NAME), within --child-timeout, and read
 * the results it prints as lines (res_write_lines) into *out (initialised
 * here). Returns SEC_OK when it exited 0 and its lines read back;
 * SEC_FAILED when not, with what happened in detail (exit code, signal or
 * timeout), and the run marked incomplete (a child that exited 1 leaves in
 * *out what of its lines read back, such as the check that failed);
 * SEC_ERROR when it could not be started (reported), or when it exited 2
 * or 3, a usage error or no usable GPU, which it printed itself
 * (c->child_usage or c->child_no_gpu set, the run marked incomplete; for 3,
 * the reasons of the skips in its lines noted as said, sec_said): the
 * section starts no more children and stops.
 * Where this process has opened no device, the child's (its name, ordinal,
 * PCI bus id, UUID, arch, compute capability, SMs, memory, driver version)
 * goes into c->r's environment, device_opened "child processes" (not for a
 * child with a CUDA_VISIBLE_DEVICES of its own, nor in a node run's parent);
 * sec_need_gpu's own, device_opened "this process", replaces it. */
sec_status sec_run_child(sec_ctx *c, const char *const *args, size_t nargs,
                         const char *const *set_env, size_t nset, results *out,
                         char *detail, size_t detaillen);

/* The end of a child process (--child=KIND): r's lines on stdout
 * (res_write_lines) and flushed, for the parent to read back (sec_run_child);
 * returns the process's exit code for rc, the child's answer: 0 for SEC_OK,
 * 2 and 3 for SEC_USAGE and SEC_NO_GPU (the child printed why), 1 for
 * anything else; and 1 when the lines could not be written. Every kind of
 * child that answers in lines ends here; waterfall (row 1: the whole
 * program once, its own lines) and hold (--squeeze's holder, which answers
 * on descriptor 3) do not. */
int sec_child_end(const results *r, int rc);

/* For each measurement of `child`, append its median as one more sample of
 * the measurement "<prefix><key>" in section `section` of dst (created, state
 * process, on first sight). Returns 0 or -1 (out of memory). */
int sec_accumulate(results *dst, const char *section, const char *prefix,
                   const results *child);

#endif
