/* fault.c: HARNESS_FAULT's spec, the armed fault and the per-entry-point
 * call counts. */
#include "os/fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FT_MAX_ENTRIES 256

static int ft_armed, ft_counting, ft_pending, ft_fired;
static char ft_target[FT_NAME_MAX];
static long ft_k, ft_code, ft_target_calls;

static struct {
    char name[FT_NAME_MAX];
    long n;
} ft_tab[FT_MAX_ENTRIES];
static size_t ft_ntab;

static int ft_ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_';
}

/* A decimal in lo..hi, the whole of s[0..len). Returns 0 or -1. */
static int ft_number(const char *s, size_t len, long lo, long hi, long *v)
{
    char buf[24], *end;
    long x;
    size_t i;
    if (len == 0 || len >= sizeof buf) return -1;
    for (i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    x = strtol(buf, &end, 10);
    if (errno || *end || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int ft_parse(const char *text, ft_spec *f, char *why, size_t whylen)
{
    const char *c1, *c2, *k, *code;
    size_t nlen, klen, clen, i;

    memset(f, 0, sizeof *f);
    if (!text || !*text) {
        snprintf(why, whylen, "empty; expected NAME:K[:CODE], e.g. cuMemAlloc:1");
        return -1;
    }
    c1 = strchr(text, ':');
    if (!c1) {
        snprintf(why, whylen, "expected NAME:K[:CODE], e.g. cuMemAlloc:1");
        return -1;
    }
    nlen = (size_t)(c1 - text);
    k = c1 + 1;
    c2 = strchr(k, ':');
    klen = c2 ? (size_t)(c2 - k) : strlen(k);
    code = c2 ? c2 + 1 : NULL;
    if (nlen == 0 || nlen >= FT_NAME_MAX ||
        (strncmp(text, "cu", 2) != 0 && strncmp(text, "nvrtc", 5) != 0)) {
        snprintf(why, whylen, "NAME must be a driver (cu...) or NVRTC (nvrtc...) entry point");
        return -1;
    }
    for (i = 0; i < nlen; i++) {
        if (!ft_ident_char(text[i])) {
            snprintf(why, whylen, "NAME holds '%c': expected letters, digits and '_'", text[i]);
            return -1;
        }
    }
    memcpy(f->name, text, nlen);
    f->name[nlen] = '\0';
    if (ft_number(k, klen, 1, 1000000000L, &f->k) != 0) {
        snprintf(why, whylen, "K must be a whole number, 1 to 1000000000 (the K-th call fails)");
        return -1;
    }
    if (!code) return 0;
    clen = strlen(code);
    if (clen == 0) {
        snprintf(why, whylen, "CODE is empty: give a number or a name, or leave out the ':'");
        return -1;
    }
    f->has_code = 1;
    if (code[0] >= '0' && code[0] <= '9') {
        if (ft_number(code, clen, 1, 1000000L, &f->code) != 0) {
            snprintf(why, whylen, "CODE '%.40s' must be an error number, 1 to 1000000 "
                     "(0 is success), or a name", code);
            return -1;
        }
        return 0;
    }
    if (clen >= FT_NAME_MAX) {
        snprintf(why, whylen, "CODE is longer than %d characters", FT_NAME_MAX - 1);
        return -1;
    }
    for (i = 0; i < clen; i++) {
        if (!ft_ident_char(code[i]) || (code[i] >= 'a' && code[i] <= 'z')) {
            snprintf(why, whylen, "CODE '%.40s' is neither a number nor a name like "
                     "CUDA_ERROR_OUT_OF_MEMORY", code);
            return -1;
        }
    }
    memcpy(f->code_name, code, clen + 1);
    return 0;
}

void ft_arm(const ft_spec *f, long code)
{
    snprintf(ft_target, sizeof ft_target, "%s", f->name);
    ft_k = f->k;
    ft_code = code;
    ft_target_calls = 0;
    ft_pending = ft_fired = 0;
    ft_armed = 1;
}

void ft_count_all(void)
{
    ft_counting = 1;
}

void ft_reset(void)
{
    ft_armed = ft_counting = ft_pending = ft_fired = 0;
    ft_target[0] = '\0';
    ft_k = ft_code = ft_target_calls = 0;
    ft_ntab = 0;
}

void ft_call_name(const char *call, char *name, size_t len)
{
    const char *paren = strchr(call, '('), *end, *start;
    size_t n;
    if (len == 0) return;
    end = paren ? paren : call + strlen(call);
    while (end > call && end[-1] == ' ') end--;
    start = end;
    while (start > call && ft_ident_char(start[-1])) start--;
    n = (size_t)(end - start);
    if (n >= len) n = len - 1;
    memcpy(name, start, n);
    name[n] = '\0';
}

long ft_hit(const char *call)
{
    char name[FT_NAME_MAX];
    size_t i;

    if (!ft_armed && !ft_counting) return 0;
    ft_call_name(call, name, sizeof name);
    if (ft_counting) {
        for (i = 0; i < ft_ntab && strcmp(ft_tab[i].name, name) != 0; i++) {}
        if (i == ft_ntab && ft_ntab < FT_MAX_ENTRIES) {
            snprintf(ft_tab[i].name, sizeof ft_tab[i].name, "%s", name);
            ft_tab[i].n = 0;
            ft_ntab++;
        }
        if (i < ft_ntab) ft_tab[i].n++;
    }
    if (ft_armed && strcmp(name, ft_target) == 0 && ++ft_target_calls == ft_k) {
        ft_pending = ft_fired = 1;
        return ft_code;
    }
    return 0;
}

int ft_take_injected(void)
{
    int p = ft_pending;
    ft_pending = 0;
    return p;
}

int ft_unfired(char *name, size_t len, long *k, long *calls)
{
    if (!ft_armed || ft_fired) return 0;
    if (len > 0) snprintf(name, len, "%s", ft_target);
    *k = ft_k;
    *calls = ft_target_calls;
    return 1;
}

long ft_count(const char *name)
{
    size_t i;
    for (i = 0; i < ft_ntab; i++)
        if (strcmp(ft_tab[i].name, name) == 0) return ft_tab[i].n;
    return 0;
}

int ft_log_write(FILE *f)
{
    size_t i;
    for (i = 0; i < ft_ntab; i++)
        if (fprintf(f, "%s %ld\n", ft_tab[i].name, ft_tab[i].n) < 0) return -1;
    return 0;
}
