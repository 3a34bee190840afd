/* phase.h: the run's phase: what this process is doing now, by name
 * ("stopwatches: first launch"), set by whoever starts a part of the work
 * and named in the error lines of driver and NVRTC calls; with
 * HARNESS_PHASE_LOG, a line per change in a file every process of the run
 * appends to (where the time went, inside the children too). Depends on
 * the host clock alone. */
#ifndef PHASE_H
#define PHASE_H

/* Set the phase: a string the caller keeps alive, NULL for none. With
 * HARNESS_PHASE_LOG set to a file, every process of the run (children
 * inherit it) appends one line per call: pid, CLOCK_MONOTONIC in ms
 * (clk_now_ms), the phase ("-" for none). Then calls the hook (ph_on_set). */
void ph_set(const char *phase);

/* The phase set last; "setup" when none is set. */
const char *ph_get(void);

/* One line in HARNESS_PHASE_LOG's file, the phase left as it is. */
void ph_mark(const char *what);

/* Call fn(phase) on every ph_set (NULL phase: none), e.g. to trace the
 * phases; fn NULL: no hook. */
void ph_on_set(void (*fn)(const char *));

#endif
