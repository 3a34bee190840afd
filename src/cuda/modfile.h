/* modfile.h: reading CUDA modules from disk (a cubin, PTX text, a fatbin,
 * or a host ELF executable, shared object or object file with .nv_fatbin),
 * every offset and size checked before it is read; no driver calls. */
#ifndef MODFILE_H
#define MODFILE_H

#include <stddef.h>
#include <stdint.h>

/* The largest image the reader takes: a cubin, PTX or fatbin file, one
 * fatbin, or a .nv_fatbin section (a host ELF itself may be larger). */
#define MF_MAX_IMAGE ((uint64_t)4 << 30)

/* What the file named is. */
typedef enum mf_kind { MF_CUBIN, MF_PTX, MF_FATBIN, MF_HOST_ELF } mf_kind;

/* Name of a kind: "cubin", "PTX", "fatbin", "host ELF". */
const char *mf_kind_name(mf_kind k);

/* The fatbin's kinds of entry (the entry header's first field). */
enum { MF_ENTRY_PTX = 1, MF_ENTRY_ELF = 2 };

/* How an entry's payload is stored. */
typedef enum mf_comp { MF_COMP_NONE, MF_COMP_LZ4, MF_COMP_ZSTD } mf_comp;

/* One entry of a fatbin, as its header says (header sizes vary: 64, 80,
 * 96 and 112 bytes seen; the size field is read, no struct assumed). */
typedef struct mf_entry {
    unsigned kind;          /* MF_ENTRY_PTX, MF_ENTRY_ELF, or another value as read */
    unsigned arch;          /* 90 for sm_90 / compute_90 */
    char variant;           /* 'a' (arch-specific, sm_90a), 'f' (family), or 0 */
    unsigned version_major, version_minor; /* the entry's format version (PTX: ISA) */
    uint32_t header_bytes;
    uint64_t offset;        /* of the entry header, in the file */
    uint64_t payload_bytes; /* what follows the header (the size field) */
    uint64_t stored_bytes;  /* compressed: the compressed size; else payload_bytes */
    uint64_t raw_bytes;     /* compressed: the size once decompressed; else payload_bytes */
    uint64_t flags;         /* as read */
    mf_comp comp;
} mf_entry;

/* One fatbin: a header (magic 0xBA55ED50, version, header size, size of
 * what follows) and its entries. */
typedef struct mf_fatbin {
    uint64_t offset;        /* in the file */
    uint64_t bytes;         /* header and entries */
    size_t first, n;        /* its entries: entries[first .. first + n - 1] */
    int relocatable;        /* from __nv_relfatbin: listed, never loaded */
} mf_fatbin;

/* A module read from disk. The image the driver takes sits in data: the
 * cubin, the PTX (NUL-terminated), the fatbin file, or a host ELF's
 * .nv_fatbin section, each fatbin at fatbins[i].offset - data_offset. */
typedef struct mf_module {
    char *path;
    mf_kind kind;
    uint64_t file_bytes;
    unsigned char *data;
    uint64_t data_offset;   /* file offset of data[0] */
    uint64_t data_bytes;    /* the PTX's bytes without the NUL added */
    unsigned arch;          /* cubin: from e_flags; PTX: .target; else 0 */
    char variant;           /* PTX: 'a' or 'f' after .target sm_XY; else 0 */
    unsigned ptx_major, ptx_minor; /* PTX: .version */
    uint64_t section_offset, section_bytes; /* host ELF: .nv_fatbin (0 when none) */
    uint64_t rel_offset, rel_bytes;         /* host ELF: __nv_relfatbin (0 when none) */
    mf_fatbin *fatbins;     /* .nv_fatbin's (or the fatbin file's) first, then the relocatable */
    size_t nfatbins, nloadable;   /* nloadable: those not relocatable (they come first) */
    mf_entry *entries;
    size_t nentries, nloadable_entries; /* the loadable fatbins' entries come first */
    size_t cap_fatbins, cap_entries;  /* the arrays' room (the reader's) */
} mf_module;

/* Read the module at path into *m (initialised here). Returns 0, or -1
 * with one line in why naming the path, the offset where it applies and
 * what was wrong: no such file, a directory, not a regular file, empty,
 * none of the four kinds, a truncated or corrupt header, section headers
 * or sections past the end, no .nv_fatbin nor __nv_relfatbin in a host
 * ELF, a fatbin past its section, an entry past its fatbin, an image over
 * MF_MAX_IMAGE, or a file that shrank or changed while it was read (its
 * size, inode or modification time differ at the end from the start). On
 * failure *m holds nothing (mf_free is still safe). */
int mf_read(const char *path, mf_module *m, char *why, size_t whylen);

/* The same over len bytes in memory, named name in messages (the fuzz
 * target's entry point). buf is copied where the module keeps data. */
int mf_parse(const char *name, const unsigned char *buf, size_t len, mf_module *m,
             char *why, size_t whylen);

/* For tests: fn(path) is called by mf_read once the first bytes are read,
 * before the rest (to change the file under the reader); NULL: none. */
void mf_set_read_hook(void (*fn)(const char *path));

/* Free what *m holds; *m may be read into again. */
void mf_free(mf_module *m);

/* The image of loadable fatbin i (i < nloadable), or of the whole module
 * for a cubin or PTX (i = 0); its length in *len. NULL when i is out of
 * range. The pointer is 8-byte aligned. */
const void *mf_image(const mf_module *m, size_t i, size_t *len);

/* How many images the driver is handed: nloadable for a fatbin or host
 * ELF, 1 for a cubin or PTX. */
size_t mf_nimages(const mf_module *m);

/* What an entry holds for a GPU of compute capability major.minor. */
typedef enum mf_use { MF_USE_NONE, MF_USE_PTX, MF_USE_SASS } mf_use;

/* The entry's use on that GPU, by the compatibility rules: SASS of the
 * same major and a minor not above it (an 'a' entry only for exactly that
 * GPU); PTX of an architecture not above it (an 'a' entry exactly, an
 * 'f' one within its major). */
mf_use mf_entry_use(const mf_entry *e, int major, int minor);

/* The best of a fatbin's entries for that GPU (SASS before PTX); for a
 * cubin or PTX module (i = 0) its own arch. What the driver should
 * pick: the driver's answer is the measurement. */
mf_use mf_image_use(const mf_module *m, size_t i, int major, int minor);

/* The entry's architecture as nvcc spells it: "sm_90a" for an ELF,
 * "compute_90" for PTX, into buf; returns buf. */
char *mf_arch_name(const mf_entry *e, char *buf, size_t len);

/* The entry's kind: "ELF", "PTX", or "kind N". buf holds the last. */
const char *mf_entry_kind(const mf_entry *e, char *buf, size_t len);

/* Name of a compression: "", "lz4", "zstd". */
const char *mf_comp_name(mf_comp c);

#endif
