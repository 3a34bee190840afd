/* test_modfile.c: the module reader on modules built here byte by byte (a
 * fatbin of three entries, a host ELF holding it in .nv_fatbin and
 * __nv_relfatbin, a cubin, PTX): each field as written, and each kind of
 * damage refused with the path, the offset and the reason; the file
 * changed under the reader. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testhelp.h"
#include "cuda/modfile.h"

static void tm_put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void tm_put32(unsigned char *p, uint32_t v) { tm_put16(p, v & 0xffffu); tm_put16(p + 2, v >> 16); }
static void tm_put64(unsigned char *p, uint64_t v) { tm_put32(p, (uint32_t)v); tm_put32(p + 4, (uint32_t)(v >> 32)); }

/* An entry header of hs bytes at p, payload len bytes (zeroed). */
static size_t tm_entry(unsigned char *p, unsigned kind, unsigned hs, uint64_t len, unsigned arch,
                       uint64_t flags, uint32_t csize, uint64_t dsize)
{
    memset(p, 0, hs + len);
    tm_put16(p, kind);
    tm_put16(p + 2, 0x0101);
    tm_put32(p + 4, hs);
    tm_put64(p + 8, len);
    tm_put32(p + 16, csize);
    tm_put16(p + 26, 1);
    tm_put32(p + 28, arch);
    tm_put64(p + 40, flags);
    tm_put64(p + 56, dsize);
    return hs + len;
}

/* The fatbin: ELF sm_80 (64 + 128), ELF sm_90a (64 + 64), PTX compute_90
 * zstd (80 + 48, 40 compressed, 200 raw). Returns its size (464). */
static size_t tm_fatbin(unsigned char *p)
{
    size_t n = 16;
    n += tm_entry(p + n, 2, 64, 128, 80, 0x11, 0, 0);
    n += tm_entry(p + n, 2, 64, 64, 90, 0x100011, 0, 0);
    n += tm_entry(p + n, 1, 80, 48, 90, 0x8011, 40, 200);
    tm_put32(p, 0xBA55ED50u);
    tm_put16(p + 4, 1);
    tm_put16(p + 6, 16);
    tm_put64(p + 8, n - 16);
    return n;
}

/* A host ELF: header, .nv_fatbin (two fatbins), __nv_relfatbin (one), the
 * name table, four section headers. Returns its size. */
static size_t tm_host_elf(unsigned char *p, int with_rel)
{
    static const char names[] = "\0.shstrtab\0.nv_fatbin\0__nv_relfatbin\0";
    size_t fat = 64, f1 = tm_fatbin(p + fat), f2 = tm_fatbin(p + fat + f1);
    size_t rel = fat + f1 + f2, r1 = tm_fatbin(p + rel), str = rel + r1, sh = str + sizeof names;
    unsigned char *s;
    sh = (sh + 7) & ~(size_t)7;
    memset(p, 0, 64);
    memcpy(p, "\177ELF\2\1\1", 7);
    tm_put16(p + 16, 3);            /* ET_DYN */
    tm_put16(p + 18, 62);           /* x86-64 */
    tm_put64(p + 40, sh);
    tm_put16(p + 52, 64);
    tm_put16(p + 58, 64);
    tm_put16(p + 60, with_rel ? 4 : 3);
    tm_put16(p + 62, 1);
    memcpy(p + str, names, sizeof names);
    memset(p + str + sizeof names, 0, sh - str - sizeof names);
    s = p + sh;
    memset(s, 0, 4 * 64);
    tm_put32(s + 64, 1); tm_put32(s + 68, 3); tm_put64(s + 64 + 24, str); tm_put64(s + 64 + 32, sizeof names);
    tm_put32(s + 128, 11); tm_put32(s + 132, 1); tm_put64(s + 128 + 24, fat); tm_put64(s + 128 + 32, f1 + f2);
    tm_put32(s + 192, 22); tm_put32(s + 196, 1); tm_put64(s + 192 + 24, rel); tm_put64(s + 192 + 32, r1);
    return sh + (size_t)(with_rel ? 4 : 3) * 64;
}

/* Parse buf and expect failure with text in the reason. */
static int tm_refused(const unsigned char *buf, size_t len, const char *text)
{
    char why[512];
    mf_module m;
    int rc = mf_parse("t.bin", buf, len, &m, why, sizeof why);
    mf_free(&m);
    if (rc == 0) return 0;
    if (!strstr(why, text) || strncmp(why, "t.bin: ", 7) != 0) {
        printf("  reason was: %s\n", why);
        return 0;
    }
    return 1;
}

static const char *tm_path;

static void tm_shrink(const char *path)
{
    (void)path;
    if (truncate(tm_path, 100) != 0) perror("truncate");
}

static void tm_touch(const char *path)
{
    FILE *f = fopen(path, "ab");      /* one byte more: the size differs at the end */
    if (f) {
        fputc(0, f);
        fclose(f);
    }
}

static void tm_fatbin_fields(void)
{
    unsigned char b[1024];
    char why[512], arch[24];
    size_t n = tm_fatbin(b);
    mf_module m;
    int rc = mf_parse("t.fatbin", b, n, &m, why, sizeof why);
    th_check("modfile: a fatbin of three entries reads", rc == 0 && m.kind == MF_FATBIN);
    if (rc != 0) {
        printf("  %s\n", why);
        return;
    }
    th_check("modfile: one fatbin, three entries", m.nfatbins == 1 && m.nloadable == 1 &&
             m.nentries == 3 && m.fatbins[0].bytes == n && m.fatbins[0].offset == 0);
    th_check("modfile: entry kinds, archs and the a variant as written",
             m.entries[0].kind == MF_ENTRY_ELF && m.entries[0].arch == 80 &&
             m.entries[1].variant == 'a' && strcmp(mf_arch_name(&m.entries[1], arch, sizeof arch), "sm_90a") == 0 &&
             m.entries[2].kind == MF_ENTRY_PTX && strcmp(mf_arch_name(&m.entries[2], arch, sizeof arch), "compute_90") == 0);
    th_check("modfile: entry offsets and sizes", m.entries[0].offset == 16 && m.entries[1].offset == 16 + 192 &&
             m.entries[2].offset == 16 + 192 + 128 && m.entries[0].payload_bytes == 128 &&
             m.entries[2].header_bytes == 80);
    th_check("modfile: the zstd entry's compressed and raw sizes", m.entries[2].comp == MF_COMP_ZSTD &&
             m.entries[2].stored_bytes == 40 && m.entries[2].raw_bytes == 200 && m.entries[0].comp == MF_COMP_NONE);
    th_check("modfile: for sm_90 the fatbin has SASS (sm_90a), for sm_80 SASS, for sm_86 SASS (sm_80)",
             mf_image_use(&m, 0, 9, 0) == MF_USE_SASS && mf_image_use(&m, 0, 8, 0) == MF_USE_SASS &&
             mf_image_use(&m, 0, 8, 6) == MF_USE_SASS);
    th_check("modfile: for sm_100 only its compute_90 PTX; for sm_75 nothing",
             mf_image_use(&m, 0, 10, 0) == MF_USE_PTX && mf_image_use(&m, 0, 7, 5) == MF_USE_NONE);
    th_check("modfile: sm_90a SASS is not for sm_100; compute_90 PTX is", mf_entry_use(&m.entries[1], 10, 0) == MF_USE_NONE &&
             mf_entry_use(&m.entries[2], 10, 0) == MF_USE_PTX);
    {
        size_t len = 0;
        const void *img = mf_image(&m, 0, &len);
        th_check("modfile: the image is the whole fatbin", img == m.data && len == n && !mf_image(&m, 1, &len));
    }
    mf_free(&m);
}

static void tm_fatbin_damage(void)
{
    unsigned char b[1024], c[1024];
    size_t n = tm_fatbin(b);
    memcpy(c, b, n);
    th_check("modfile: empty input refused", tm_refused(b, 0, "an empty file"));
    th_check("modfile: a fatbin cut short: runs past the end, with its offset",
             tm_refused(b, n - 1, "offset 0 (0x0): a fatbin (version 1, header 16 bytes, size 448) runs past the end of the file at offset 463"));
    tm_put64(c + 16 + 8, 100000);
    th_check("modfile: an entry whose size runs past its fatbin",
             tm_refused(c, n, "offset 16 (0x10): fatbin entry of 100064 bytes (header 64, payload 100000) runs past the end of its fatbin at offset 464"));
    memcpy(c, b, n);
    tm_put32(c + 16 + 4, 40);
    th_check("modfile: an entry header below 64 bytes", tm_refused(c, n, "fatbin entry header size 40"));
    memcpy(c, b, n);
    tm_put32(c + 16 + 192 + 128 + 16, 49);
    th_check("modfile: a compressed size beyond the payload", tm_refused(c, n, "compressed size 49 is larger than its payload of 48"));
    memcpy(c, b, n);
    tm_put16(c + 6, 8);
    th_check("modfile: a fatbin header size below 16", tm_refused(c, n, "fatbin header size 8"));
    memcpy(c, b, n);
    memcpy(c + n, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11", 17);
    th_check("modfile: bytes after the fatbin that are no fatbin",
             tm_refused(c, n + 17, "offset 464 (0x1d0): expected a fatbin header (magic 0xba55ed50) in the file, found 0x04030201"));
    memcpy(c, b, n);
    memset(c + n, 0, 8);
    {
        char why[256];
        mf_module m;
        th_check("modfile: zero padding to 16 bytes after a fatbin is accepted",
                 mf_parse("t", c, n + 8, &m, why, sizeof why) == 0 && m.nfatbins == 1);
        mf_free(&m);
    }
    th_check("modfile: text that is none of the kinds", tm_refused((const unsigned char *)"hello", 5,
             "not a cubin, PTX, fatbin or host ELF: it starts with bytes 68 65 6c 6c"));
}

static void tm_host(void)
{
    static unsigned char b[8192], c[8192];
    char why[512];
    size_t n = tm_host_elf(b, 1);
    mf_module m;
    int rc = mf_parse("t.so", b, n, &m, why, sizeof why);
    th_check("modfile: a host ELF with .nv_fatbin and __nv_relfatbin reads", rc == 0 && m.kind == MF_HOST_ELF);
    if (rc != 0) {
        printf("  %s\n", why);
        return;
    }
    th_check("modfile: .nv_fatbin's two fatbins loadable, __nv_relfatbin's one listed after them",
             m.nfatbins == 3 && m.nloadable == 2 && m.nloadable_entries == 6 && m.fatbins[2].relocatable &&
             m.section_offset == 64 && m.section_bytes == 2 * 464 && m.rel_bytes == 464 &&
             m.fatbins[1].offset == 64 + 464 && m.entries[3].offset == 64 + 464 + 16);
    {
        size_t len;
        th_check("modfile: a host ELF's images are its loadable fatbins", mf_nimages(&m) == 2 &&
                 mf_image(&m, 1, &len) == m.data + 464 && len == 464 && !mf_image(&m, 2, &len));
    }
    mf_free(&m);
    memcpy(c, b, n);
    tm_put64(c + 40, n - 10);
    th_check("modfile: section headers past the end", tm_refused(c, n, "the section headers (4 headers of 64 bytes) run past the end of the file"));
    memcpy(c, b, n);
    tm_put64(c + (n - 2 * 64) + 32, 10000);
    th_check("modfile: a section past the end", tm_refused(c, n, "section 2's bytes (10000 at offset 64) run past the end of the file"));
    memcpy(c, b, n);
    tm_put64(c + 64 + 8, 1000);
    th_check("modfile: a fatbin whose size runs past .nv_fatbin",
             tm_refused(c, n, "offset 64 (0x40): a fatbin (version 1, header 16 bytes, size 1000) runs past the end of the .nv_fatbin section at offset 992"));
    n = tm_host_elf(c, 0);
    memcpy(c + n - 64, c + n - 128, 64);     /* no .nv_fatbin: its header becomes the name table's */
    tm_put64(c + n - 64 + 24, 0);
    memset(c + n - 64, 0, 64);
    tm_put32(c + n - 64, 1);
    tm_put32(c + n - 60, 3);
    tm_put64(c + n - 64 + 24, 0);
    tm_put64(c + n - 64 + 32, 1);
    th_check("modfile: a host ELF with no .nv_fatbin", tm_refused(c, n, "a host ELF (e_machine 62) with no .nv_fatbin section"));
    memcpy(c, b, 40);
    th_check("modfile: a truncated ELF header", tm_refused(c, 40, "a truncated ELF header: 40 of 64 bytes"));
    memcpy(c, b, 64);
    c[4] = 1;
    th_check("modfile: a 32-bit ELF", tm_refused(c, 64, "not 64-bit little-endian"));
}

static void tm_ptx_cubin(void)
{
    static const char ptx[] = "//\n// comment\n/* block */\n.version 8.5\n.target sm_90a\n.address_size 64\n";
    static const char bad[] = ".version 8.5\n.target sm_90\n\0junk";
    static unsigned char cub[256];
    char why[256];
    mf_module m;
    int rc = mf_parse("t.ptx", (const unsigned char *)ptx, sizeof ptx - 1, &m, why, sizeof why);
    th_check("modfile: PTX after comments: .version 8.5, .target sm_90a",
             rc == 0 && m.kind == MF_PTX && m.ptx_major == 8 && m.ptx_minor == 5 && m.arch == 90 &&
             m.variant == 'a' && m.data[m.data_bytes] == 0 && mf_nimages(&m) == 1);
    mf_free(&m);
    th_check("modfile: a NUL inside PTX text", tm_refused((const unsigned char *)bad, sizeof bad - 1,
             "offset 27 (0x1b): a NUL byte inside the PTX text"));
    th_check("modfile: PTX with no .target", tm_refused((const unsigned char *)".version 8.5\n.address_size 64\n", 30,
             "no .target after the PTX's .version"));
    memset(cub, 0, sizeof cub);
    memcpy(cub, "\177ELF\2\1\1\x41\x08", 9);
    tm_put16(cub + 18, 190);
    tm_put32(cub + 48, 0x6005a04);
    tm_put64(cub + 40, 64);
    tm_put16(cub + 58, 64);
    tm_put16(cub + 60, 1);
    rc = mf_parse("t.cubin", cub, 128, &m, why, sizeof why);
    th_check("modfile: a cubin (e_machine 190): arch 90 from e_flags of ABI version 8",
             rc == 0 && m.kind == MF_CUBIN && m.arch == 90 && mf_image_use(&m, 0, 9, 0) == MF_USE_SASS &&
             mf_image_use(&m, 0, 8, 0) == MF_USE_NONE);
    if (rc) printf("  %s\n", why);
    mf_free(&m);
}

static void tm_file(void)
{
    static unsigned char b[1024];
    const char *dir = getenv("TMPDIR");
    char path[600], why[512];
    size_t n = tm_fatbin(b);
    mf_module m;
    int fd, rc;

    snprintf(path, sizeof path, "%s/harness-test-modfile-XXXXXX", dir && *dir ? dir : P_tmpdir);
    fd = mkstemp(path);
    if (fd < 0 || write(fd, b, n) != (ssize_t)n) {
        th_check("modfile: a temporary file", 0);
        return;
    }
    close(fd);
    tm_path = path;
    rc = mf_read(path, &m, why, sizeof why);
    th_check("modfile: the fatbin read from a file", rc == 0 && m.nentries == 3);
    mf_free(&m);
    mf_set_read_hook(tm_shrink);
    rc = mf_read(path, &m, why, sizeof why);
    th_check("modfile: a file that shrinks while it is read: refused, says so",
             rc != 0 && strstr(why, "it shrank while it was read") && strstr(why, path));
    mf_set_read_hook(NULL);
    fd = open(path, O_WRONLY | O_TRUNC);
    if (fd >= 0 && write(fd, b, n) == (ssize_t)n) close(fd);
    mf_set_read_hook(tm_touch);
    rc = mf_read(path, &m, why, sizeof why);
    th_check("modfile: a file written while it is read: refused as changed",
             rc != 0 && strstr(why, "the file changed while it was read"));
    mf_set_read_hook(NULL);
    if (rc == 0) mf_free(&m);
    unlink(path);
}

void test_modfile(void)
{
    tm_fatbin_fields();
    tm_fatbin_damage();
    tm_host();
    tm_ptx_cubin();
    tm_file();
}
