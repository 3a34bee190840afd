/* rx.h: --ready's matcher. POSIX extended regular expressions, less
 * back-references, compiled to a small automaton that is run over the
 * text one byte at a time (a set of states, never backtracking): the time
 * a byte takes is bounded by the automaton's size, which is bounded at
 * compile time, and a long scan asks a stop function every few KiB. One
 * engine for the three places that match: the options' check, the output's
 * lines (src/sections/program/sampler.c) and the probe's NVTX marks
 * (src/probe/marks.c).
 *
 * The syntax: literals; '.'; bracket expressions with ranges, [:class:],
 * [.c.] and [=c=] of one byte, '^' negating; '(' ')'; '|'; '*', '+', '?',
 * {n}, {n,}, {n,m} (n, m at most RX_MAX_REPEAT); '^' and '$' anchor at the
 * line's (the text's) start and end wherever they stand; GNU's \w \W \s \S
 * \b \B \< \> \` \'; a backslash before any other byte makes it literal.
 * Bytes are bytes (no locale, no case folding); '.' and a negated bracket
 * match any byte. Refused: back-references (\1 to \9), a pattern over
 * RX_MAX_PATTERN bytes, over RX_MAX_STATES states (a state a byte, bracket
 * or anchor, each count's copies included), groups and repetitions nested over RX_MAX_DEPTH deep, and the
 * forms POSIX leaves undefined (a repetition with nothing before it, an
 * unmatched ')', a '{' after an atom that opens no count). */
#ifndef RX_H
#define RX_H

#include <stddef.h>

#define RX_MAX_PATTERN 4000  /* bytes of a pattern */
#define RX_MAX_STATES  2000  /* states once repetitions are expanded */
#define RX_MAX_REPEAT  255   /* a count of {n,m} (POSIX's RE_DUP_MAX at least) */
#define RX_MAX_DEPTH   100   /* groups and repetitions nested */

typedef struct rx_prog rx_prog;

/* Compile pat (a C string). Returns 0 and *out (free with rx_free), or -1
 * with the reason in why ("back-references (\\1) are not taken ...") and
 * *out NULL. Allocates; -1 with "out of memory" where that fails. */
int rx_compile(const char *pat, rx_prog **out, char *why, size_t whylen);

/* Free a compiled pattern (NULL: nothing). */
void rx_free(rx_prog *p);

/* The count of states of p (at most RX_MAX_STATES + 1): the bound on the
 * work of one byte. */
size_t rx_states(const rx_prog *p);

/* The state of a scan: lines of a stream that arrives in pieces, or one
 * text at a time. Made by rx_stream_new; one thread at a time. */
typedef struct rx_stream rx_stream;

/* A scan of p (which must outlive it). lines 1: '\n' ends a line and each
 * line is matched on its own (a line may arrive across any number of
 * rx_feed calls); lines 0: '\n' is a byte like any other. Returns NULL
 * where memory is short. Allocates all it will ever use. */
rx_stream *rx_stream_new(const rx_prog *p, int lines);

/* Free a scan (NULL: nothing). */
void rx_stream_free(rx_stream *s);

/* Start again at the start of a line (forget a partial line). */
void rx_reset(rx_stream *s);

/* Feed n bytes of the stream. Returns 1 as soon as a line holds a match
 * (the rest of buf is not read; *used, where not NULL, says how many bytes
 * were), 0 when every byte was read and no line matched yet (a partial
 * line is kept for the next call), -1 when stop (where not NULL) returned
 * non-zero: it is asked about every 4 KiB and between lines, so a scan
 * answers it within microseconds whatever the pattern. */
int rx_feed(rx_stream *s, const char *buf, size_t n, int (*stop)(void *), void *arg, size_t *used);

/* The end of the text: a partial line (no '\n' after it) is matched as a
 * line. Returns 1 when it matched, else 0; the scan is then at a line's
 * start. */
int rx_end(rx_stream *s);

/* Whether text[0..n) matches as one text ('\n' a byte like others: s made
 * with lines 0, else the text's lines each): 1, 0, or -1 when stopped.
 * Allocates nothing. */
int rx_match(rx_stream *s, const char *text, size_t n, int (*stop)(void *), void *arg);

#endif
