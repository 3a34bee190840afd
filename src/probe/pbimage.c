/* pbimage.c: whether an image handed to a load is PTX the driver must
 * JIT-compile (pbimage.h). */
#include "probe/pbimage.h"

#include <stdint.h>
#include <string.h>

#include <fatbinary_section.h>

#define PBI_FATBIN_MAGIC 0xBA55ED50u
#define PBI_MAX_FATBIN   ((uint64_t)4 << 30)  /* a fatbin that says it is larger: not read */
#define PBI_TEXT_SCAN    4096     /* whitespace skipped before a PTX text's first word */

static unsigned pbi_u16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint64_t pbi_u32(const unsigned char *p) { return pbi_u16(p) | (uint64_t)pbi_u16(p + 2) << 16; }
static uint64_t pbi_u64(const unsigned char *p) { return pbi_u32(p) | pbi_u32(p + 4) << 32; }

/* 1 when b starts with the little-endian magic m, compared byte by byte
 * (a shorter NUL-terminated text stops at its first difference). */
static int pbi_has_magic(const unsigned char *b, uint32_t m)
{
    return b[0] == (m & 0xff) && b[1] == (m >> 8 & 0xff) && b[2] == (m >> 16 & 0xff) &&
           b[3] == (m >> 24);
}

/* 1 when the fatbin at b holds a PTX entry and no ELF one. Its header is
 * u32 magic, u16 version, u16 header size, u64 size of its entries; each
 * entry starts u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 payload
 * size. Every size is checked against the fatbin's own (itself at most
 * PBI_MAX_FATBIN); one that does not fit counts as no PTX. */
static int pbi_fatbin_ptx_only(const unsigned char *b)
{
    uint64_t hs = pbi_u16(b + 6), size = pbi_u64(b + 8), end, q;
    int ptx = 0;

    if (hs < 16 || size > PBI_MAX_FATBIN) return 0;
    end = hs + size;
    for (q = hs; end - q >= 16;) {
        unsigned kind = pbi_u16(b + q);
        uint64_t eh = pbi_u32(b + q + 4), payload = pbi_u64(b + q + 8);
        if (eh < 16 || eh > end - q || payload > end - q - eh || kind == 2) return 0;
        ptx |= kind == 1;
        q += eh + payload;
    }
    return ptx;
}

/* 1 when s is PTX text: after whitespace, a comment or ".version". */
static int pbi_ptx_text(const char *s)
{
    size_t i = 0;
    while (i < PBI_TEXT_SCAN && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return strncmp(s + i, ".version", 8) == 0 || strncmp(s + i, "//", 2) == 0 ||
           strncmp(s + i, "/*", 2) == 0;
}

int pbi_image_ptx(const void *image)
{
    const unsigned char *b = image;
    if (pbi_has_magic(b, PBI_FATBIN_MAGIC)) return pbi_fatbin_ptx_only(b);
    if (pbi_has_magic(b, FATBINC_MAGIC)) {
        const __fatBinC_Wrapper_t *w = image;
        const unsigned char *fb = (const unsigned char *)w->data;
        return fb && pbi_has_magic(fb, PBI_FATBIN_MAGIC) && pbi_fatbin_ptx_only(fb);
    }
    return pbi_ptx_text(image);
}
