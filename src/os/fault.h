/* fault.h: fault injection at the driver and NVRTC boundary, for tests.
 * HARNESS_FAULT=NAME:K[:CODE] makes the K-th checked call of entry point NAME
 * (counted in each process) return CODE instead of being made;
 * HARNESS_FAULT_LOG=FILE appends to FILE, as each process exits, a line
 * "# process PID" and how many checked calls of each entry point it made
 * (a parent exits after its children: its block is the last). This module parses the spec and
 * counts; the libraries' modules name their entry points and codes. */
#ifndef FAULT_H
#define FAULT_H

#include <stddef.h>
#include <stdio.h>

#define FT_NAME_MAX 64

typedef struct ft_spec {
    char name[FT_NAME_MAX];       /* entry point: "cuMemAlloc", "nvrtcCompileProgram" */
    long k;                       /* which call fails, counted from 1 */
    int has_code;                 /* 0: no CODE given, the library's default */
    long code;                    /* CODE as a number, when code_name is "" */
    char code_name[FT_NAME_MAX];  /* CODE as a name, "CUDA_ERROR_OUT_OF_MEMORY", else "" */
} ft_spec;

/* Parse "NAME:K[:CODE]": NAME an identifier beginning with "cu" or
 * "nvrtc"; K a decimal 1 to 1000000000; CODE a decimal 1 to 1000000 or an
 * upper-case name (letters, digits, '_'). Whether NAME and a named CODE
 * exist is the library's question. Returns 0, or -1 with a one-line reason
 * in why (f then undefined). */
int ft_parse(const char *text, ft_spec *f, char *why, size_t whylen);

/* Arm the fault: from now on the f->k-th ft_hit of entry point f->name
 * returns code (non-zero), once. */
void ft_arm(const ft_spec *f, long code);

/* Count every entry point's calls from now on, for ft_log_write. */
void ft_count_all(void);

/* Forget the armed fault and every count (tests). */
void ft_reset(void);

/* The entry point a call's text names: the identifier just before its first
 * '(' ("drv.cuMemAlloc(&p, n)" -> "cuMemAlloc"), or the whole text when it
 * has no '('. Copies at most len - 1 bytes; "" when there is none. */
void ft_call_name(const char *call, char *name, size_t len);

/* Before every checked call, with its text (#call): counts it, and returns
 * the code the call must fail with instead of being made, or 0 to make it.
 * One test and nothing more while nothing is armed or counted. */
long ft_hit(const char *call);

/* 1 when the last failure ft_hit handed out has not been reported yet, and
 * clears it: the error path adds "(injected by HARNESS_FAULT)". */
int ft_take_injected(void);

/* 1 when a fault is armed and has not fired in this process: then name
 * (len bytes) gets its entry point, *k its K and *calls how many calls of it
 * this process made. 0 otherwise. A run whose fault never fired measured
 * as usual: the call counts of timed code vary with batching. */
int ft_unfired(char *name, size_t len, long *k, long *calls);

/* Calls of entry point name counted so far (0 when not counted). */
long ft_count(const char *name);

/* Write one line "NAME COUNT" per entry point counted, in first-call order.
 * Returns 0, or -1 when a write failed. */
int ft_log_write(FILE *f);

#endif
