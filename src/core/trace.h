/* trace.h: where the run is, for people and tools: the current phase as an
 * NVTX range (Nsight Systems shows the harness's own names), as a progress
 * line on a terminal, and as spans of a Chrome trace-event file (--trace;
 * Perfetto and chrome://tracing open it) with the timed device spans on a
 * track of their own, all on one time axis: ms since the process started. */
#ifndef TRACE_H
#define TRACE_H

#include <stdio.h>

/* Start: t0_ns is the process's CLOCK_MONOTONIC at main (the axis's zero);
 * record: keep spans for tr_write; progress: print the phase and elapsed time
 * on stderr (only when it is a terminal). */
void tr_init(long long t0_ns, int record, int progress);

/* A section starts or ends: an outer range around its phases. */
void tr_section_begin(const char *name);
void tr_section_end(void);

/* The current phase within the section (NULL: none): ends the previous
 * phase's range and span and starts this one's. The name is copied. */
void tr_phase(const char *name);

/* A timed device span (an event pair): starts at start_ms on the axis,
 * lasts dur_ms; name is copied (NULL: the current phase's name). Kept only when recording, at most
 * TR_MAX_DEVICE spans (later ones are counted, not kept). */
#define TR_MAX_DEVICE 200000
void tr_device(const char *name, double start_ms, double dur_ms);

/* A host span given by its start and length (a child process, say), on a
 * track of its own. */
void tr_host(const char *name, double start_ms, double dur_ms);

/* A span of another process (a user's program: pid, its thread tid), drawn
 * as a process of its own named pname (the first name given for a pid is
 * kept): a driver call from start_ms on the axis, lasting dur_ms. */
void tr_process_span(int pid, const char *pname, long tid, const char *name, double start_ms,
                     double dur_ms);

/* Milliseconds on the axis now. */
double tr_now(void);

/* 1 when spans are being recorded (tm_events asks before it reads anchors). */
int tr_recording(void);

/* Write the trace-event JSON document to path (atomically, as the other
 * outputs). Returns 0, or -1 after "harness: cannot write ...". */
int tr_write(const char *path);

/* Mark the trace as that of a run stopped early, for why ("interrupted by
 * SIGINT"): tr_write then puts "incomplete": true and "stopped": why in its
 * otherData (copied; at most 255 bytes kept). */
void tr_stopped(const char *why);

/* Free what was recorded. */
void tr_free(void);

#endif
