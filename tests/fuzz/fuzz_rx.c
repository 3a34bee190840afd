/* fuzz_rx.c: libFuzzer target over --ready's matcher (src/core/rx.h): the
 * input's first line is the pattern, the rest the text. Whatever the
 * pattern, rx_compile may not crash or leak and refuses with a reason; a
 * pattern it takes gives the same answer over the text fed whole and fed
 * in pieces, and, where glibc takes it too (no NUL in the text), the same
 * answer as glibc's regexec on each line (small patterns without counts:
 * glibc's own compile can take minutes on larger ones). */
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether any line of text[0..n) matches, by glibc (lines without a NUL). */
static int fz_glibc(regex_t *re, const char *text, size_t n)
{
    char line[512];
    size_t i = 0;
    while (i <= n) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - text - (ptrdiff_t)i) : n - i;
        memcpy(line, text + i, len);
        line[len] = '\0';
        if (regexec(re, line, 0, NULL, 0) == 0) return 1;
        i += len + 1;
        if (!nl) break;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nl = memchr(data, '\n', size);
    char pat[128], why[200];
    const char *text;
    size_t plen, n, k, step;
    rx_prog *p;
    rx_stream *s;
    int whole, parts = 0, r;
    regex_t re;

    if (!nl || (plen = (size_t)(nl - (const char *)data)) >= sizeof pat || size - plen - 1 > 400) return 0;
    memcpy(pat, data, plen);
    pat[plen] = '\0';
    text = (const char *)data + plen + 1;
    n = size - plen - 1;
    if (rx_compile(pat, &p, why, sizeof why) != 0) {
        if (!why[0] || p) __builtin_trap();
        return 0;
    }
    if (!(s = rx_stream_new(p, 1))) __builtin_trap();
    r = rx_feed(s, text, n, NULL, NULL, NULL);
    whole = r == 1 || (r == 0 && rx_end(s) == 1);
    rx_reset(s);
    step = 1 + (n ? (unsigned char)text[0] % 7 : 0);
    for (k = 0; k < n && !parts; k += step) parts = rx_feed(s, text + k, k + step > n ? n - k : step, NULL, NULL, NULL) == 1;
    if (!parts) parts = rx_end(s) == 1;
    if (whole != parts) __builtin_trap();
    if (!memchr(text, '\0', n) && !strchr(pat, '\\') && !strchr(pat, '{') && rx_states(p) <= 40 &&
        regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0) {
        if (fz_glibc(&re, text, n) != whole) __builtin_trap();
        regfree(&re);
    }
    rx_stream_free(s);
    rx_free(p);
    return 0;
}
