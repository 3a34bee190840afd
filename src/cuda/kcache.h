/* kcache.h: the run's compile cache: compiled kernel images that one
 * process of a run writes and the others read instead of compiling the
 * same bytes again, in one directory private to the run. */
#ifndef KCACHE_H
#define KCACHE_H

#include <stddef.h>

/* The variable that names the cache directory. The parent of a run makes
 * the directory (kc_begin) and sets it for itself and every child it
 * starts; a child needs nothing else. A value the parent inherits is
 * replaced (or removed, when no cache can be made). A process where it is
 * unset, or names a directory that is not this user's alone (mode 0700),
 * has no cache. */
#define KC_ENV "HARNESS_RTC_CACHE"

/* What determines a compile's output, in bytes: the cache's format
 * version, the harness version, where NVRTC is looked for (CUDA_HOME and
 * LD_LIBRARY_PATH: every process of a run loads the same library), the
 * program's name, the arch, the target, each option in order, and the
 * source. Each field is its length (8 bytes) and its bytes, so no two
 * different compiles have the same key. */
typedef struct kc_key {
    unsigned char *bytes;
    size_t len;
} kc_key;

/* Make the key of a compile (rtc_compile's arguments; target "ptx" or
 * "cubin"). Returns 0, or -1 when out of memory (k empty). Free with
 * kc_key_free. */
int kc_key_make(kc_key *k, const char *src, const char *name, const char *arch,
                const char *target, const char *const *opts, int nopts);
void kc_key_free(kc_key *k);

/* A compiled image as the cache holds it (rtc_out's code, size and log). */
typedef struct kc_image {
    char *code;             /* the image's bytes (PTX: including its NUL) */
    size_t size;
    char *log;              /* NVRTC's log, NUL-terminated, possibly "" */
} kc_image;

void kc_image_free(kc_image *img);

/* The cache directory of this process: KC_ENV's value when it names a
 * directory of this user with no access for others, else NULL. Read from the
 * environment on every call. */
const char *kc_dir(void);

/* The file of key k in dir, into buf: "<dir>/<hash>.img", the hash a
 * 64-bit FNV-1a of the key (two keys may share a file: the reader compares
 * the whole key). Returns 0, or -1 when the name does not fit. */
int kc_path(const char *dir, const kc_key *k, char *buf, size_t len);

/* Look key up in dir. Returns 1 with *img filled (code and size exactly as
 * stored, the log NUL-terminated; free with kc_image_free); 0 when the cache
 * does not hold it (img zeroed): no file, a file that cannot be read, one of
 * another key (a hash collision), or one that is short, long or corrupt, or
 * (nul_ended: a PTX image) whose code does not end in a NUL; -1 when out of
 * memory. */
int kc_get(const char *dir, const kc_key *k, int nul_ended, kc_image *img);

/* Store img (a successful compile; a NULL log is "") under key in dir: the
 * file written whole beside its name and renamed over it
 * (af_write_private), so that a reader never trusts half a file and a bad
 * file is replaced. Returns 0, or -1 (nothing stored; nothing printed: the
 * cache only saves time). */
int kc_put(const char *dir, const kc_key *k, const kc_image *img);

/* A cache file's bytes against key: the reader's checks, apart from any
 * file (for kc_get and the fuzzer). The file is, in this order: the magic
 * "HKCACHE1", the key's, the code's and the log's lengths and an FNV-1a
 * checksum of the key, code and log (8 bytes each, little-endian), then
 * the key, the code (at least one byte) and the log. Every length is checked
 * against the buffer before it is used; the whole buffer must be used.
 * Returns as kc_get. */
int kc_parse(const unsigned char *buf, size_t len, const kc_key *k, int nul_ended,
             kc_image *img);

/* The parent's side. Make the run's cache directory (pr_mkdtemp
 * "rtc-cache", removed with the others by pr_cleanup when the run is
 * stopped, by pr_cleanup_now when it ends at once) and set KC_ENV to it.
 * Returns 0, or -1 with the reason in why and KC_ENV unset (the run then
 * compiles as it would without a cache). */
int kc_begin(char *why, size_t whylen);

/* Remove the directory kc_begin made and unset KC_ENV (nothing when there
 * is none). Returns 0, or -1 after printing "harness: could not remove DIR"
 * when it could not all be removed. */
int kc_end(void);

#endif
