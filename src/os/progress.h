/* progress.h: the parent's line of progress while runs go on, on a
 * terminal only (stderr a tty; never in a file or a pipe, never in a
 * child): rounds done of the most the rule may take, runs done of the
 * most, the side running now, and an estimate of the time left from the
 * runs so far. While it is on, the phase line (core/trace.h) leaves the
 * line to it. */
#ifndef PROGRESS_H
#define PROGRESS_H

/* Whether this process may draw at all (main: not a child, not --quiet);
 * off until called. The line is drawn only where stderr is a terminal. */
void pl_allow(int on);

/* Runs begin: what runs them ("program", "loading, eager against lazy"),
 * the most rounds the rule may take and the most runs those hold. */
void pl_begin(const char *what, int max_rounds, int max_runs);

/* A run begins: its round (from 0) and its side's label. */
void pl_run(int round, const char *side);

/* The run begun last ended (drawn with the next run): the estimate is the time per run so far
 * (the gaps between runs included) times the runs the rule may still
 * take. */
void pl_run_done(void);

/* The runs are over: the line cleared. Fine when pl_begin was not called. */
void pl_end(void);

/* 1 while the line is drawn (between pl_begin and pl_end on a terminal). */
int pl_active(void);

/* The line for the state given, into buf (for the tests and the drawing):
 * "[  12.3 s] program: 14 of at most 160 runs done, round 4 of at most
 * 40; at most 2 min 10 s left; now LAZY bare"; where that is wider than
 * width, the short form "[  12.3 s] program: runs 14/160, round 4/40; at
 * most 2 min 10 s left; now LAZY bare" (the drawing cuts what is still
 * wider). eta_s < 0: not known yet (no run done): no estimate. Returns buf. */
char *pl_format(char *buf, unsigned long len, unsigned long width, double elapsed_s, const char *what,
                int round, int max_rounds, int done, int max_runs, const char *side, double eta_s);

#endif
