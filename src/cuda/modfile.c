/* modfile.c: reading modules from disk: the kind from the first bytes, an
 * ELF's section headers, .nv_fatbin and __nv_relfatbin walked fatbin by
 * fatbin and entry by entry, every size checked against what holds it. */
#include "cuda/modfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MF_FATBIN_MAGIC 0xBA55ED50u
#define MF_FATBIN_HEADER 16u        /* magic, version, header size, size */
#define MF_ENTRY_MIN 64u            /* the smallest entry header seen */
#define MF_EM_CUDA 190u             /* e_machine of a cubin */
#define MF_ELF_HEADER 64u           /* ELF64 */
#define MF_SHDR 64u                 /* ELF64 section header */
#define MF_PHDR 56u                 /* ELF64 program header */
#define MF_MAX_SECTIONS 1000000u
#define MF_MAX_SHSTRTAB ((uint64_t)64 << 20)
#define MF_PTX_PROBE 65536u         /* .version must come within this */
/* Entry flags, as nvcc 13 writes them (checked on its output): */
#define MF_FLAG_LZ4 0x2000u
#define MF_FLAG_ZSTD 0x8000u
#define MF_FLAG_ARCH_SPECIFIC 0x100000u   /* sm_90a */
#define MF_FLAG_FAMILY 0x200000u          /* sm_100f */

/* The reader: a file (fd >= 0) or bytes in memory, and where errors go. */
typedef struct mf_rd {
    const char *name;
    int fd;
    const unsigned char *mem;
    uint64_t size;
    struct stat st;
    mf_module *m;
    char *why;
    size_t whylen;
} mf_rd;

const char *mf_kind_name(mf_kind k)
{
    switch (k) {
    case MF_CUBIN: return "cubin";
    case MF_PTX: return "PTX";
    case MF_FATBIN: return "fatbin";
    case MF_HOST_ELF: return "host ELF";
    }
    return "?";
}

const char *mf_comp_name(mf_comp c)
{
    return c == MF_COMP_LZ4 ? "lz4" : c == MF_COMP_ZSTD ? "zstd" : "";
}

static uint16_t mf_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t mf_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t mf_u64(const unsigned char *p)
{
    return (uint64_t)mf_u32(p) | (uint64_t)mf_u32(p + 4) << 32;
}

/* Write "<name>: offset N (0xN): <what>" (has_off) or "<name>: <what>" to
 * why; returns -1. */
static int mf_fail(mf_rd *r, int has_off, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int mf_fail(mf_rd *r, int has_off, uint64_t off, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (has_off)
        snprintf(r->why, r->whylen, "%s: offset %llu (0x%llx): %s", r->name,
                 (unsigned long long)off, (unsigned long long)off, msg);
    else
        snprintf(r->why, r->whylen, "%s: %s", r->name, msg);
    return -1;
}

/* len bytes at off, checked against the file's size, into a new buffer of
 * len + 1 bytes (the last 0); what names them in an error. NULL on
 * failure (why written). A file that holds fewer bytes than its size said
 * at the start has shrunk. */
static unsigned char *mf_fetch(mf_rd *r, uint64_t off, uint64_t len, const char *what)
{
    unsigned char *b;
    uint64_t got = 0;

    if (off > r->size || len > r->size - off) {
        mf_fail(r, 1, off, "%s (%llu bytes) runs past the end of the file (%llu bytes)", what,
                (unsigned long long)len, (unsigned long long)r->size);
        return NULL;
    }
    if (len > MF_MAX_IMAGE + MF_PTX_PROBE || !(b = malloc((size_t)len + 1))) {
        mf_fail(r, 1, off, "out of memory for %s (%llu bytes)", what, (unsigned long long)len);
        return NULL;
    }
    if (r->fd < 0) {
        memcpy(b, r->mem + off, (size_t)len);
        got = len;
    }
    while (got < len) {
        ssize_t n = pread(r->fd, b + got, (size_t)(len - got), (off_t)(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            mf_fail(r, 1, off + got, "reading %s: %s", what, strerror(errno));
            free(b);
            return NULL;
        }
        if (n == 0) {
            mf_fail(r, 1, off + got, "the file ended %llu bytes into %s (%llu bytes): it shrank "
                    "while it was read", (unsigned long long)got, what, (unsigned long long)len);
            free(b);
            return NULL;
        }
        got += (uint64_t)n;
    }
    b[len] = 0;
    return b;
}

/* ------------------------------------------------------------ fatbins --- */

/* Append an entry or a fatbin to the module's arrays. 0 or -1 (why). */
static int mf_grow(mf_rd *r, void **arr, size_t n, size_t *cap, size_t elem)
{
    void *p;
    size_t nc;
    if (n < *cap) return 0;
    nc = *cap ? *cap * 2 : 16;
    if (nc > ((size_t)-1) / elem || !(p = realloc(*arr, nc * elem)))
        return mf_fail(r, 0, 0, "out of memory listing the fatbins");
    *arr = p;
    *cap = nc;
    return 0;
}

/* The entry header at q (in buf, at file offset file_off + q), inside a
 * fatbin that ends at end. Returns 0 with *e filled, or -1 (why). */
static int mf_entry_at(mf_rd *r, const unsigned char *buf, uint64_t q, uint64_t end,
                       uint64_t file_off, mf_entry *e)
{
    const unsigned char *h = buf + q;
    uint64_t at = file_off + q, left = end - q, name_off, name_len;

    if (left < MF_ENTRY_MIN)
        return mf_fail(r, 1, at, "a fatbin entry header needs %u bytes; its fatbin has %llu left "
                       "(it ends at offset %llu)", MF_ENTRY_MIN, (unsigned long long)left,
                       (unsigned long long)(file_off + end));
    memset(e, 0, sizeof *e);
    e->offset = at;
    e->kind = mf_u16(h);
    e->header_bytes = mf_u32(h + 4);
    e->payload_bytes = mf_u64(h + 8);
    e->version_minor = mf_u16(h + 24);
    e->version_major = mf_u16(h + 26);
    e->arch = mf_u32(h + 28);
    name_off = mf_u32(h + 32);
    name_len = mf_u32(h + 36);
    e->flags = mf_u64(h + 40);
    if (e->header_bytes < MF_ENTRY_MIN || e->header_bytes % 8 != 0)
        return mf_fail(r, 1, at, "fatbin entry header size %u: not a multiple of 8 of at least %u",
                       e->header_bytes, MF_ENTRY_MIN);
    if (e->header_bytes > left)
        return mf_fail(r, 1, at, "fatbin entry header of %u bytes runs past the end of its fatbin "
                       "at offset %llu", e->header_bytes, (unsigned long long)(file_off + end));
    if (e->payload_bytes > left - e->header_bytes)
        return mf_fail(r, 1, at, "fatbin entry of %llu bytes (header %u, payload %llu) runs past "
                       "the end of its fatbin at offset %llu",
                       (unsigned long long)(e->header_bytes + e->payload_bytes), e->header_bytes,
                       (unsigned long long)e->payload_bytes, (unsigned long long)(file_off + end));
    if (name_len && (name_off > e->header_bytes + e->payload_bytes ||
                     name_len > e->header_bytes + e->payload_bytes - name_off))
        return mf_fail(r, 1, at, "the entry's name (%llu bytes at %llu) runs past the entry",
                       (unsigned long long)name_len, (unsigned long long)name_off);
    e->comp = e->flags & MF_FLAG_ZSTD ? MF_COMP_ZSTD : e->flags & MF_FLAG_LZ4 ? MF_COMP_LZ4
              : MF_COMP_NONE;
    e->variant = e->flags & MF_FLAG_ARCH_SPECIFIC ? 'a' : e->flags & MF_FLAG_FAMILY ? 'f' : 0;
    e->stored_bytes = e->raw_bytes = e->payload_bytes;
    if (e->comp != MF_COMP_NONE) {
        e->stored_bytes = mf_u32(h + 16);
        e->raw_bytes = mf_u64(h + 56);
        if (e->stored_bytes > e->payload_bytes)
            return mf_fail(r, 1, at, "compressed entry: compressed size %llu is larger than its "
                           "payload of %llu bytes", (unsigned long long)e->stored_bytes,
                           (unsigned long long)e->payload_bytes);
    }
    return 0;
}

/* The fatbin at p in buf (file offset file_off + p), within len: its
 * header and every entry. Returns its total size, or 0 (why written). */
static uint64_t mf_fatbin_at(mf_rd *r, const unsigned char *buf, uint64_t p, uint64_t len,
                             uint64_t file_off, int reloc, const char *where)
{
    mf_module *m = r->m;
    uint64_t at = file_off + p, hs, size, q, end;
    unsigned version;
    mf_fatbin fb;

    hs = mf_u16(buf + p + 6);
    version = mf_u16(buf + p + 4);
    size = mf_u64(buf + p + 8);
    if (hs < MF_FATBIN_HEADER) {
        mf_fail(r, 1, at, "fatbin header size %llu, below the %u bytes of its fields",
                (unsigned long long)hs, MF_FATBIN_HEADER);
        return 0;
    }
    if (hs > len - p || size > len - p - hs) {
        mf_fail(r, 1, at, "a fatbin (version %u, header %llu bytes, size %llu) runs past the end "
                "of %s at offset %llu", version, (unsigned long long)hs,
                (unsigned long long)size, where, (unsigned long long)(file_off + len));
        return 0;
    }
    memset(&fb, 0, sizeof fb);
    fb.offset = at;
    fb.bytes = hs + size;
    fb.first = m->nentries;
    fb.relocatable = reloc;
    end = p + hs + size;
    for (q = p + hs; q < end;) {
        mf_entry e;
        if (mf_entry_at(r, buf, q, end, file_off, &e) != 0) return 0;
        if (mf_grow(r, (void **)&m->entries, m->nentries, &m->cap_entries, sizeof e) != 0) return 0;
        m->entries[m->nentries++] = e;
        q += e.header_bytes + e.payload_bytes;
    }
    fb.n = m->nentries - fb.first;
    if (mf_grow(r, (void **)&m->fatbins, m->nfatbins, &m->cap_fatbins, sizeof fb) != 0) return 0;
    m->fatbins[m->nfatbins++] = fb;
    return hs + size;
}

/* Walk len bytes of fatbins, one after another, at file offset file_off
 * (where: "the .nv_fatbin section" in messages). Zero bytes to the next
 * 16-byte boundary between fatbins are padding. Returns 0 or -1 (why). */
static int mf_walk(mf_rd *r, const unsigned char *buf, uint64_t len, uint64_t file_off,
                   int reloc, const char *where)
{
    uint64_t p = 0;
    while (p < len) {
        uint64_t n;
        if (buf[p] == 0) {
            uint64_t pad = p;
            while (pad < len && buf[pad] == 0 && (pad == p || pad % 16 != 0)) pad++;
            if (pad == len || pad % 16 == 0) {
                p = pad;
                continue;
            }
        }
        if (len - p < MF_FATBIN_HEADER)
            return mf_fail(r, 1, file_off + p, "%llu bytes left at the end of %s: too few for a "
                           "fatbin header (%u)", (unsigned long long)(len - p), where,
                           MF_FATBIN_HEADER);
        if (mf_u32(buf + p) != MF_FATBIN_MAGIC)
            return mf_fail(r, 1, file_off + p, "expected a fatbin header (magic 0x%08x) in %s, "
                           "found 0x%08x", MF_FATBIN_MAGIC, where, mf_u32(buf + p));
        n = mf_fatbin_at(r, buf, p, len, file_off, reloc, where);
        if (n == 0) return -1;
        p += n;
    }
    return 0;
}

/* ---------------------------------------------------------------- ELF --- */

/* The fields of an ELF64 header the reader needs. */
typedef struct mf_ehdr {
    uint16_t type, machine, phentsize, shentsize;
    uint64_t phoff, shoff, shnum, phnum, shstrndx;
    uint32_t flags;
    unsigned abiversion;
} mf_ehdr;

typedef struct mf_shdr {
    uint32_t name, type;
    uint64_t offset, size, link;
} mf_shdr;

#define MF_SHT_NOBITS 8u
#define MF_SHN_XINDEX 0xffffu

static void mf_shdr_at(const unsigned char *p, mf_shdr *s)
{
    s->name = mf_u32(p);
    s->type = mf_u32(p + 4);
    s->offset = mf_u64(p + 24);
    s->size = mf_u64(p + 32);
    s->link = mf_u32(p + 40);
}

/* The ELF header in h (MF_ELF_HEADER bytes): 64-bit little-endian only. */
static int mf_ehdr_read(mf_rd *r, const unsigned char *h, mf_ehdr *e)
{
    if (h[4] != 2 || h[5] != 1)
        return mf_fail(r, 1, 4, "an ELF that is not 64-bit little-endian (class %u, data %u): "
                       "not a module the driver loads", h[4], h[5]);
    e->abiversion = h[8];
    e->type = mf_u16(h + 16);
    e->machine = mf_u16(h + 18);
    e->phoff = mf_u64(h + 32);
    e->shoff = mf_u64(h + 40);
    e->flags = mf_u32(h + 48);
    e->phentsize = mf_u16(h + 54);
    e->phnum = mf_u16(h + 56);
    e->shentsize = mf_u16(h + 58);
    e->shnum = mf_u16(h + 60);
    e->shstrndx = mf_u16(h + 62);
    return 0;
}

/* The section header table: shnum headers (extended numbering read from
 * header 0), every section's bytes within the file, into *sh (malloc'd).
 * Returns 0 or -1 (why). */
static int mf_sections(mf_rd *r, mf_ehdr *e, mf_shdr **sh)
{
    unsigned char *tab;
    uint64_t i;

    *sh = NULL;
    if (e->shoff == 0)
        return mf_fail(r, 1, 40, "no section headers (e_shoff is 0)");
    if (e->shentsize != MF_SHDR)
        return mf_fail(r, 1, 58, "section header size %u, expected %u", e->shentsize, MF_SHDR);
    if (e->shnum == 0 || e->shstrndx == MF_SHN_XINDEX) {
        mf_shdr s0;
        if (!(tab = mf_fetch(r, e->shoff, MF_SHDR, "section header 0"))) return -1;
        mf_shdr_at(tab, &s0);
        free(tab);
        if (e->shnum == 0) e->shnum = s0.size;
        if (e->shstrndx == MF_SHN_XINDEX) e->shstrndx = s0.link;
    }
    if (e->shnum == 0 || e->shnum > MF_MAX_SECTIONS)
        return mf_fail(r, 1, 60, "%llu sections: expected 1 to %u", (unsigned long long)e->shnum,
                       MF_MAX_SECTIONS);
    if (e->shoff > r->size || e->shnum * MF_SHDR > r->size - e->shoff)
        return mf_fail(r, 1, e->shoff, "the section headers (%llu headers of %u bytes) run past "
                       "the end of the file (%llu bytes)", (unsigned long long)e->shnum, MF_SHDR,
                       (unsigned long long)r->size);
    if (e->phnum && (e->phentsize != MF_PHDR || e->phoff > r->size ||
                     e->phnum * MF_PHDR > r->size - e->phoff))
        return mf_fail(r, 1, e->phoff, "the program headers (%llu headers of %u bytes) run past "
                       "the end of the file (%llu bytes), or have the wrong size", (unsigned long long)e->phnum,
                       e->phentsize, (unsigned long long)r->size);
    if (!(tab = mf_fetch(r, e->shoff, e->shnum * MF_SHDR, "the section headers"))) return -1;
    if (!(*sh = calloc((size_t)e->shnum, sizeof **sh))) {
        free(tab);
        return mf_fail(r, 0, 0, "out of memory for %llu section headers", (unsigned long long)e->shnum);
    }
    for (i = 0; i < e->shnum; i++) {
        mf_shdr *s = &(*sh)[i];
        mf_shdr_at(tab + i * MF_SHDR, s);
        if (s->type == MF_SHT_NOBITS || s->type == 0) continue;
        if (s->offset > r->size || s->size > r->size - s->offset) {
            mf_fail(r, 1, e->shoff + i * MF_SHDR, "section %llu's bytes (%llu at offset %llu) run "
                    "past the end of the file (%llu bytes)", (unsigned long long)i,
                    (unsigned long long)s->size, (unsigned long long)s->offset,
                    (unsigned long long)r->size);
            free(tab);
            free(*sh);
            *sh = NULL;
            return -1;
        }
    }
    free(tab);
    if (e->shstrndx >= e->shnum) {
        free(*sh);
        *sh = NULL;
        return mf_fail(r, 1, 62, "the section name table's index %llu is not below the %llu sections",
                       (unsigned long long)e->shstrndx, (unsigned long long)e->shnum);
    }
    return 0;
}

/* The section called name (in the name table strtab of strlen bytes), or
 * -1 when there is none; a name offset past the table is an error (-2). */
static long mf_find_section(mf_rd *r, const mf_ehdr *e, const mf_shdr *sh, const char *strtab,
                            uint64_t strlen_, const char *name)
{
    uint64_t i;
    for (i = 0; i < e->shnum; i++) {
        const char *s;
        if (sh[i].name >= strlen_) {
            mf_fail(r, 1, e->shoff + i * MF_SHDR, "section %llu's name offset %u is past the "
                    "section name table (%llu bytes)", (unsigned long long)i, sh[i].name,
                    (unsigned long long)strlen_);
            return -2;
        }
        s = strtab + sh[i].name;
        if (memchr(s, 0, (size_t)(strlen_ - sh[i].name)) && strcmp(s, name) == 0) return (long)i;
    }
    return -1;
}

/* The arch of a cubin from e_flags: bits 8..15 from ABI version 8 on (CUDA
 * 12.8's cubins), the low byte before. */
static unsigned mf_cubin_arch(const mf_ehdr *e)
{
    return e->abiversion >= 8 ? (e->flags >> 8) & 0xffu : e->flags & 0xffu;
}

/* A section's fatbins: read, walked, kept in data when loadable. */
static int mf_fatbin_section(mf_rd *r, const mf_shdr *s, long idx, int reloc)
{
    const char *where = reloc ? "the __nv_relfatbin section" : "the .nv_fatbin section";
    unsigned char *b;
    int rc;

    if (s->type == MF_SHT_NOBITS)
        return mf_fail(r, 0, 0, "section %ld (%s) holds no bytes in the file (SHT_NOBITS)", idx,
                       reloc ? "__nv_relfatbin" : ".nv_fatbin");
    if (s->size > MF_MAX_IMAGE)
        return mf_fail(r, 1, s->offset, "%s is %llu bytes, over the %llu the harness loads", where,
                       (unsigned long long)s->size, (unsigned long long)MF_MAX_IMAGE);
    if (!(b = mf_fetch(r, s->offset, s->size, where))) return -1;
    rc = mf_walk(r, b, s->size, s->offset, reloc, where);
    if (rc == 0 && !reloc) {
        r->m->data = b;
        r->m->data_offset = s->offset;
        r->m->data_bytes = s->size;
        r->m->section_offset = s->offset;
        r->m->section_bytes = s->size;
    } else {
        if (reloc) {
            r->m->rel_offset = s->offset;
            r->m->rel_bytes = s->size;
        }
        free(b);
    }
    return rc;
}

/* An ELF: its sections checked; a cubin read whole, a host ELF's
 * .nv_fatbin and __nv_relfatbin walked. */
static int mf_elf(mf_rd *r, const unsigned char *h)
{
    mf_module *m = r->m;
    mf_ehdr e;
    mf_shdr *sh = NULL;
    char *strtab = NULL;
    long fat, rel;
    int rc = -1;

    memset(&e, 0, sizeof e);
    if (mf_ehdr_read(r, h, &e) != 0 || mf_sections(r, &e, &sh) != 0) return -1;
    if (e.machine == MF_EM_CUDA) {
        m->kind = MF_CUBIN;
        m->arch = mf_cubin_arch(&e);
        if (r->size > MF_MAX_IMAGE) {
            mf_fail(r, 0, 0, "a cubin of %llu bytes, over the %llu the harness loads",
                    (unsigned long long)r->size, (unsigned long long)MF_MAX_IMAGE);
            goto out;
        }
        if (!(m->data = mf_fetch(r, 0, r->size, "the cubin"))) goto out;
        m->data_bytes = r->size;
        rc = 0;
        goto out;
    }
    m->kind = MF_HOST_ELF;
    if (sh[e.shstrndx].type == MF_SHT_NOBITS || sh[e.shstrndx].size > MF_MAX_SHSTRTAB) {
        mf_fail(r, 1, e.shoff + e.shstrndx * MF_SHDR, "the section name table is empty or over %llu bytes",
                (unsigned long long)MF_MAX_SHSTRTAB);
        goto out;
    }
    if (!(strtab = (char *)mf_fetch(r, sh[e.shstrndx].offset, sh[e.shstrndx].size,
                                    "the section name table")))
        goto out;
    fat = mf_find_section(r, &e, sh, strtab, sh[e.shstrndx].size, ".nv_fatbin");
    if (fat == -2) goto out;
    rel = mf_find_section(r, &e, sh, strtab, sh[e.shstrndx].size, "__nv_relfatbin");
    if (rel == -2) goto out;
    if (fat < 0 && rel < 0) {
        mf_fail(r, 0, 0, "a host ELF (e_machine %u) with no .nv_fatbin section: no device code "
                "that nvcc embeds", e.machine);
        goto out;
    }
    if (fat >= 0 && mf_fatbin_section(r, &sh[fat], fat, 0) != 0) goto out;
    m->nloadable = m->nfatbins;
    m->nloadable_entries = m->nentries;
    if (rel >= 0 && mf_fatbin_section(r, &sh[rel], rel, 1) != 0) goto out;
    rc = 0;
out:
    free(sh);
    free(strtab);
    return rc;
}

/* ---------------------------------------------------------------- PTX --- */

/* Skip white space and comments from p (NUL-terminated); returns where
 * the next token starts. */
static const char *mf_skip(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            if (!end) return p + strlen(p);
            p = end + 2;
        } else {
            return p;
        }
    }
}

/* 1 when the text starts, after white space and comments, with .version. */
static int mf_is_ptx(const char *text)
{
    const char *p = mf_skip(text);
    return strncmp(p, ".version", 8) == 0 && (p[8] == ' ' || p[8] == '\t');
}

/* The PTX file: read whole, NUL-terminated, .version and .target parsed. */
static int mf_ptx(mf_rd *r)
{
    mf_module *m = r->m;
    const char *p, *nul;
    unsigned a = 0, b = 0;
    int n = 0;

    m->kind = MF_PTX;
    if (r->size > MF_MAX_IMAGE)
        return mf_fail(r, 0, 0, "PTX of %llu bytes, over the %llu the harness loads",
                       (unsigned long long)r->size, (unsigned long long)MF_MAX_IMAGE);
    if (!(m->data = mf_fetch(r, 0, r->size, "the PTX text"))) return -1;
    m->data_bytes = r->size;
    nul = memchr(m->data, 0, (size_t)r->size);
    if (nul) {
        uint64_t at = (uint64_t)(nul - (const char *)m->data), i;
        for (i = at; i < r->size; i++)
            if (m->data[i] != 0)
                return mf_fail(r, 1, at, "a NUL byte inside the PTX text (the driver would stop "
                               "reading there)");
    }
    p = mf_skip((const char *)m->data) + 8;
    if (sscanf(p, " %u.%u%n", &a, &b, &n) != 2 || a > 99 || b > 99)
        return mf_fail(r, 1, (uint64_t)(p - (const char *)m->data), "the PTX's .version is not "
                       "MAJOR.MINOR");
    m->ptx_major = a;
    m->ptx_minor = b;
    p = mf_skip(p + n);
    if (strncmp(p, ".target", 7) != 0)
        return mf_fail(r, 1, (uint64_t)(p - (const char *)m->data), "no .target after the PTX's "
                       ".version");
    p = mf_skip(p + 7);
    if (sscanf(p, "sm_%u%n", &a, &n) != 1 && sscanf(p, "compute_%u%n", &a, &n) != 1)
        return mf_fail(r, 1, (uint64_t)(p - (const char *)m->data), "the PTX's .target names no "
                       "sm_XY");
    m->arch = a;
    m->variant = p[n] == 'a' || p[n] == 'f' ? p[n] : 0;
    return 0;
}

/* ------------------------------------------------------------- module --- */

/* A fatbin file: its fatbins, one after another, kept whole in data. */
static int mf_fatbin_file(mf_rd *r)
{
    mf_module *m = r->m;
    m->kind = MF_FATBIN;
    if (r->size > MF_MAX_IMAGE)
        return mf_fail(r, 0, 0, "a fatbin of %llu bytes, over the %llu the harness loads",
                       (unsigned long long)r->size, (unsigned long long)MF_MAX_IMAGE);
    if (!(m->data = mf_fetch(r, 0, r->size, "the fatbin"))) return -1;
    m->data_bytes = r->size;
    if (mf_walk(r, m->data, r->size, 0, 0, "the file") != 0) return -1;
    m->nloadable = m->nfatbins;
    m->nloadable_entries = m->nentries;
    return 0;
}

static void (*mf_hook)(const char *path);

void mf_set_read_hook(void (*fn)(const char *path))
{
    mf_hook = fn;
}

/* What the first bytes say the file is, and the reading of that kind. */
static int mf_dispatch(mf_rd *r)
{
    unsigned char head[MF_ELF_HEADER];
    uint64_t n = r->size < MF_ELF_HEADER ? r->size : MF_ELF_HEADER;
    unsigned char *b;

    if (r->size == 0) return mf_fail(r, 0, 0, "an empty file");
    if (!(b = mf_fetch(r, 0, n, "the first bytes"))) return -1;
    memset(head, 0, sizeof head);
    memcpy(head, b, (size_t)n);
    free(b);
    if (mf_hook && r->fd >= 0) mf_hook(r->name);
    if (n >= 4 && memcmp(head, "\177ELF", 4) == 0) {
        if (n < MF_ELF_HEADER)
            return mf_fail(r, 0, 0, "a truncated ELF header: %llu of %u bytes",
                           (unsigned long long)n, MF_ELF_HEADER);
        return mf_elf(r, head);
    }
    if (n >= 4 && mf_u32(head) == MF_FATBIN_MAGIC) return mf_fatbin_file(r);
    {
        uint64_t pn = r->size < MF_PTX_PROBE ? r->size : MF_PTX_PROBE;
        int ptx;
        if (!(b = mf_fetch(r, 0, pn, "the first bytes"))) return -1;
        ptx = mf_is_ptx((const char *)b);
        free(b);
        if (ptx) return mf_ptx(r);
    }
    return mf_fail(r, 0, 0, "not a cubin, PTX, fatbin or host ELF: it starts with bytes "
                   "%02x %02x %02x %02x", head[0], n > 1 ? head[1] : 0, n > 2 ? head[2] : 0,
                   n > 3 ? head[3] : 0);
}

/* The reading, started with r filled: *m initialised, read, or cleared
 * again on failure. */
static int mf_run(mf_rd *r, const char *name, mf_module *m)
{
    memset(m, 0, sizeof *m);
    r->m = m;
    if (!(m->path = strdup(name))) return mf_fail(r, 0, 0, "out of memory");
    m->file_bytes = r->size;
    if (mf_dispatch(r) != 0) {
        mf_free(m);
        return -1;
    }
    return 0;
}

int mf_parse(const char *name, const unsigned char *buf, size_t len, mf_module *m,
             char *why, size_t whylen)
{
    mf_rd r;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.fd = -1;
    r.mem = buf;
    r.size = len;
    r.why = why;
    r.whylen = whylen;
    return mf_run(&r, name, m);
}

int mf_read(const char *path, mf_module *m, char *why, size_t whylen)
{
    struct stat end;
    mf_rd r;
    int rc;

    memset(&r, 0, sizeof r);
    memset(m, 0, sizeof *m);
    r.name = path;
    r.why = why;
    r.whylen = whylen;
    /* O_NONBLOCK: a FIFO named here must not hang the open. */
    r.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (r.fd < 0) return mf_fail(&r, 0, 0, "cannot open: %s", strerror(errno));
    if (fstat(r.fd, &r.st) != 0) {
        rc = mf_fail(&r, 0, 0, "cannot stat: %s", strerror(errno));
        close(r.fd);
        return rc;
    }
    if (S_ISDIR(r.st.st_mode) || !S_ISREG(r.st.st_mode)) {
        rc = mf_fail(&r, 0, 0, "%s", S_ISDIR(r.st.st_mode) ? "a directory, not a module file"
                     : "not a regular file");
        close(r.fd);
        return rc;
    }
    r.size = (uint64_t)r.st.st_size;
    rc = mf_run(&r, path, m);
    if (rc == 0 && (fstat(r.fd, &end) != 0 || end.st_size != r.st.st_size ||
                    end.st_ino != r.st.st_ino || end.st_mtim.tv_sec != r.st.st_mtim.tv_sec ||
                    end.st_mtim.tv_nsec != r.st.st_mtim.tv_nsec)) {
        mf_free(m);
        rc = mf_fail(&r, 0, 0, "the file changed while it was read (size %llu, then %llu; or its "
                     "modification time moved)", (unsigned long long)r.st.st_size,
                     (unsigned long long)end.st_size);
    }
    close(r.fd);
    return rc;
}

void mf_free(mf_module *m)
{
    free(m->path);
    free(m->data);
    free(m->fatbins);
    free(m->entries);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------- questions --- */

size_t mf_nimages(const mf_module *m)
{
    return m->kind == MF_CUBIN || m->kind == MF_PTX ? 1 : m->nloadable;
}

const void *mf_image(const mf_module *m, size_t i, size_t *len)
{
    if (m->kind == MF_CUBIN || m->kind == MF_PTX) {
        if (i != 0 || !m->data) return NULL;
        *len = (size_t)m->data_bytes;
        return m->data;
    }
    if (i >= m->nloadable || !m->data) return NULL;
    *len = (size_t)m->fatbins[i].bytes;
    return m->data + (m->fatbins[i].offset - m->data_offset);
}

/* The use of code of kind (ELF or PTX), arch and variant on major.minor. */
static mf_use mf_use_of(unsigned kind, unsigned arch, char variant, int major, int minor)
{
    unsigned dev = (unsigned)(major * 10 + minor);
    if (kind == MF_ENTRY_ELF) {
        if (variant == 'a') return arch == dev ? MF_USE_SASS : MF_USE_NONE;
        return arch / 10 == (unsigned)major && arch % 10 <= (unsigned)minor ? MF_USE_SASS
               : MF_USE_NONE;
    }
    if (kind == MF_ENTRY_PTX) {
        if (variant == 'a') return arch == dev ? MF_USE_PTX : MF_USE_NONE;
        if (variant == 'f')
            return arch / 10 == (unsigned)major && arch % 10 <= (unsigned)minor ? MF_USE_PTX
                   : MF_USE_NONE;
        return arch <= dev ? MF_USE_PTX : MF_USE_NONE;
    }
    return MF_USE_NONE;
}

mf_use mf_entry_use(const mf_entry *e, int major, int minor)
{
    return mf_use_of(e->kind, e->arch, e->variant, major, minor);
}

mf_use mf_image_use(const mf_module *m, size_t i, int major, int minor)
{
    mf_use best = MF_USE_NONE;
    size_t j;
    if (m->kind == MF_CUBIN) return mf_use_of(MF_ENTRY_ELF, m->arch, 0, major, minor);
    if (m->kind == MF_PTX) return mf_use_of(MF_ENTRY_PTX, m->arch, m->variant, major, minor);
    if (i >= m->nfatbins) return MF_USE_NONE;
    for (j = 0; j < m->fatbins[i].n; j++) {
        mf_use u = mf_entry_use(&m->entries[m->fatbins[i].first + j], major, minor);
        if (u > best) best = u;
    }
    return best;
}

char *mf_arch_name(const mf_entry *e, char *buf, size_t len)
{
    char v[2] = { e->variant, 0 };
    snprintf(buf, len, "%s_%u%s", e->kind == MF_ENTRY_PTX ? "compute" : "sm", e->arch, v);
    return buf;
}

const char *mf_entry_kind(const mf_entry *e, char *buf, size_t len)
{
    if (e->kind == MF_ENTRY_ELF) return "ELF";
    if (e->kind == MF_ENTRY_PTX) return "PTX";
    snprintf(buf, len, "kind %u", e->kind);
    return buf;
}
