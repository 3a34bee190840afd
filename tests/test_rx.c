/* test_rx.c: --ready's matcher (src/core/rx.h) against glibc's regexec on
 * generated patterns and lines, its refusals, its bounds in time, and a
 * stream's lines in pieces. */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rx.h"
#include "testhelp.h"

static uint32_t trx_state = 12345;
static uint32_t trx_rand(void)
{
    trx_state ^= trx_state << 13;
    trx_state ^= trx_state >> 17;
    trx_state ^= trx_state << 5;
    return trx_state;
}

/* 1, 0 or -1 (did not compile) by rx alone. */
static int trx_one(const char *pat, const char *text, size_t n)
{
    char why[200];
    rx_prog *p;
    rx_stream *s;
    int m;
    if (rx_compile(pat, &p, why, sizeof why) != 0) return -1;
    s = rx_stream_new(p, 0);
    m = s ? rx_match(s, text, n, NULL, NULL) : -1;
    rx_stream_free(s);
    rx_free(p);
    return m;
}

/* Generated patterns over a few tokens, each matched against generated
 * lines by both: the count of disagreements, and of cases compared. */
static void trx_against_glibc(int *bad, int *cases)
{
    static const char *tok[] = { "a", "b", ".", "[ab]", "[^a]", "(", ")", "|", "*", "+", "?", "{1,2}",
                                 "{2}", "^", "$", "\\b", "\\w", "[[:digit:]]", "1" };
    int k, t;
    *bad = *cases = 0;
    for (k = 0; k < 4000; k++) {
        char pat[64] = "", text[16];
        int nt = 1 + (int)(trx_rand() % 7), i;
        regex_t re;
        for (i = 0; i < nt; i++) strcat(pat, tok[trx_rand() % (sizeof tok / sizeof tok[0])]);
        if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0) continue;
        for (t = 0; t < 12; t++) {
            int len = (int)(trx_rand() % 9), want, got;
            for (i = 0; i < len; i++) text[i] = "ab1 "[trx_rand() % 4];
            text[len] = '\0';
            want = regexec(&re, text, 0, NULL, 0) == 0;
            got = trx_one(pat, text, (size_t)len);
            if (got < 0) break;     /* refused where glibc takes it: counted below */
            ++*cases;
            if (got != want) {
                if (++*bad <= 5) printf("  rx and glibc differ: /%s/ on \"%s\": %d, %d\n", pat, text, got, want);
            }
        }
        regfree(&re);
    }
}

static int trx_refused(const char *pat, const char *words)
{
    char why[200];
    rx_prog *p;
    int rc = rx_compile(pat, &p, why, sizeof why);
    rx_free(p);
    if (rc == 0) return 0;
    if (!strstr(why, words)) printf("  /%.40s/: \"%s\"\n", pat, why);
    return strstr(why, words) != NULL;
}

static int trx_calls;
static int trx_stop_after(void *arg)
{
    (void)arg;
    return ++trx_calls > 3;
}

static double trx_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The factor a timed check's bound is scaled by: HARNESS_TEST_SLOWDOWN
 * (1 to 1000), else 1. */
static double trx_slowdown(void)
{
    const char *e = getenv("HARNESS_TEST_SLOWDOWN");
    double f = e ? atof(e) : 1.0;
    return f >= 1.0 && f <= 1000.0 ? f : 1.0;
}

/* The worst pattern found (every state live at every byte) over 1 MiB of
 * one line: whole, and stopped. */
static void trx_time(void)
{
    size_t n = 1 << 20, used = 0;
    char *line = malloc(n), why[200];
    rx_prog *p = NULL;
    rx_stream *s = NULL;
    double t0, t1;
    int rc;
    if (!line || rx_compile("(a|a?|.){1,150}(a*)*b{0,40}x", &p, why, sizeof why) != 0 || !(s = rx_stream_new(p, 1))) {
        th_check("test_rx: the worst pattern compiles", 0);
        free(line);
        rx_free(p);
        return;
    }
    memset(line, 'a', n);
    t0 = trx_secs();
    trx_calls = 0;
    rc = rx_feed(s, line, n, trx_stop_after, NULL, &used);
    t1 = trx_secs();
    /* Under 1 s; HARNESS_TEST_SLOWDOWN scales it where the build runs slowed
     * on purpose (make valgrind: about 50 times). */
    th_check("test_rx: the worst pattern over 1 MiB: a stop asked every 4 KiB, answered in under 1 s",
             rc == -1 && used <= 4 * 4096 && t1 - t0 < trx_slowdown());
    printf("  %zu states; stopped after %zu bytes in %.3f ms\n", rx_states(p), used, (t1 - t0) * 1e3);
    rx_reset(s);
    t0 = trx_secs();
    rc = rx_feed(s, line, 64 << 10, NULL, NULL, &used);
    t1 = trx_secs();
    printf("  64 KiB of it whole: %.1f ms (%.1f ns a byte)\n", (t1 - t0) * 1e3, (t1 - t0) * 1e9 / 65536.0);
    th_check("test_rx: the worst pattern over 64 KiB of one line: no match, in under 20 s",
             rc == 0 && t1 - t0 < 20);
    rx_stream_free(s);
    rx_free(p);
    free(line);
}

/* A stream: a line in pieces, after a NUL, the last one without '\n'. */
static void trx_stream(void)
{
    char why[200];
    rx_prog *p;
    rx_stream *s;
    size_t used;
    int a, b, c, d, e;
    if (rx_compile("^READY [0-9]+$", &p, why, sizeof why) != 0 || !(s = rx_stream_new(p, 1))) {
        th_check("test_rx: a stream's pattern compiles", 0);
        return;
    }
    a = rx_feed(s, "noise\nREA", 9, NULL, NULL, NULL);
    b = rx_feed(s, "DY 42\nmore", 10, NULL, NULL, &used);
    th_check("test_rx: a line across two pieces matches, and the rest is not read", a == 0 && b == 1 && used == 6);
    rx_reset(s);
    c = rx_feed(s, "x\0y\nREADY 1", 11, NULL, NULL, NULL);
    d = rx_end(s);
    th_check("test_rx: a NUL is a byte; the last line without '\\n' matches at the end", c == 0 && d == 1);
    e = rx_feed(s, "READY 1 \nREADY\n", 15, NULL, NULL, NULL);
    th_check("test_rx: '$' and '^' hold at each line's ends only", e == 0 && rx_end(s) == 0);
    rx_stream_free(s);
    rx_free(p);
    th_check("test_rx: the literal prefilter skips lines, and a line holding it is matched",
             trx_one("port [0-9]+ open", "on port 80 open", 15) == 1 &&
             trx_one("port [0-9]+ open", "on port x open", 14) == 0);
}

void test_rx(void)
{
    int bad, cases;
    char big[RX_MAX_PATTERN + 2], deep[2 * RX_MAX_DEPTH + 8];
    trx_against_glibc(&bad, &cases);
    printf("  %d cases compared with glibc\n", cases);
    th_check("test_rx: generated patterns and lines: the same answers as glibc's regexec", bad == 0 && cases > 10000);
    th_check("test_rx: a back-reference refused", trx_refused("(a)\\1", "back-references"));
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    th_check("test_rx: a pattern over RX_MAX_PATTERN bytes refused", trx_refused(big, "more than 4000"));
    th_check("test_rx: 32,767 repetitions refused at once", trx_refused("a{32767}", "a count over 255"));
    th_check("test_rx: nested counts refused by their expanded size",
             trx_refused("((a{1,255}){1,255}){1,255}", "more than 2000 states"));
    memset(deep, '(', RX_MAX_DEPTH + 1);
    deep[RX_MAX_DEPTH + 1] = '\0';
    th_check("test_rx: groups nested too deep refused", trx_refused(deep, "nested more than"));
    th_check("test_rx: a repetition of nothing, an unmatched ')', an open count refused",
             trx_refused("*a", "repeats nothing") && trx_refused("a)", "unmatched ')'") &&
             trx_refused("a{x", "opens no count") && trx_refused("[a", "unclosed"));
    trx_stream();
    trx_time();
}
