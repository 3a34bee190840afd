/* live.c: the live record (live.h): the probe's writer, lock-free and
 * without syscalls after lv_open, and the parent's reader, which checks
 * every size before it reads and keeps only slots that read whole. */
#include "probe/live.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(LV_MAGIC) == 8, "the magic fills its 8 bytes");
_Static_assert(sizeof(lv_file) < (1u << 20), "the file's size fits the header's field");

/* ---- both ---- */

static uint64_t lv_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t lv_check(const lv_header *h)
{
    uint64_t x = 14695981039346656037ull;
    x = lv_fnv(x, h->magic, sizeof h->magic);
    x = lv_fnv(x, &h->version, sizeof h->version);
    x = lv_fnv(x, &h->size, sizeof h->size);
    x = lv_fnv(x, &h->threads, sizeof h->threads);
    x = lv_fnv(x, &h->streams, sizeof h->streams);
    x = lv_fnv(x, &h->events, sizeof h->events);
    return lv_fnv(x, &h->pid, sizeof h->pid);
}

/* ---- the writer ---- */

/* Take a slot's sequence from even to odd: 1, or 0 where another writer
 * holds it (the update is skipped, never waited for). */
static int lv_take(uint64_t *seq)
{
    uint64_t s = __atomic_load_n(seq, __ATOMIC_RELAXED);
    if (s & 1u) return 0;
    if (!__atomic_compare_exchange_n(seq, &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 0;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return 1;
}

/* Give it back, even again: the fields written before are visible first. */
static void lv_give(uint64_t *seq)
{
    __atomic_add_fetch(seq, 1, __ATOMIC_RELEASE);
}

/* src (NULL: "") into a field of len bytes, cut and NUL-ended. */
static void lv_put(char *dst, size_t len, const char *src)
{
    size_t n = src ? strnlen(src, len - 1) : 0;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

void lv_init(lv_file *f, int pid)
{
    memset(f, 0, sizeof *f);
    memcpy(f->h.magic, LV_MAGIC, sizeof f->h.magic);
    f->h.version = LV_VERSION;
    f->h.size = (uint32_t)sizeof *f;
    f->h.threads = LV_THREADS;
    f->h.streams = LV_STREAMS;
    f->h.events = LV_EVENTS;
    f->h.pid = pid;
    f->h.check = lv_check(&f->h);
}

lv_file *lv_open(const char *dir, int pid)
{
    char path[4096];
    lv_file *f;
    int fd, e;

    if (snprintf(path, sizeof path, "%s/%d.live", dir, pid) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return NULL;
    if (ftruncate(fd, (off_t)sizeof *f) != 0) goto fail;
    f = mmap(NULL, sizeof *f, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (f == MAP_FAILED) goto fail;
    close(fd);
    lv_init(f, pid);
    return f;
fail:
    e = errno;
    close(fd);
    unlink(path);
    errno = e;
    return NULL;
}

void lv_close(lv_file *f)
{
    if (f) munmap(f, sizeof *f);
}

lv_thread *lv_thread_slot(lv_file *f, int tid)
{
    uint32_t i = __atomic_fetch_add(&f->h.threads_n, 1u, __ATOMIC_RELAXED);
    lv_thread *t;
    if (i >= LV_THREADS) return NULL;
    t = &f->t[i];
    if (lv_take(&t->seq)) {
        t->tid = tid;
        lv_give(&t->seq);
    }
    return t;
}

void lv_enter(lv_thread *t, const char *call, const char *what, int64_t now_ns)
{
    if (!t || !lv_take(&t->seq)) return;
    t->state = LV_INSIDE;
    t->result = 0;
    t->calls++;
    t->since_ns = now_ns;
    t->end_ns = 0;
    lv_put(t->call, sizeof t->call, call);
    lv_put(t->what, sizeof t->what, what);
    lv_give(&t->seq);
}

void lv_exit(lv_thread *t, int result, const char *what, int64_t now_ns)
{
    if (!t || !lv_take(&t->seq)) return;
    t->state = LV_RETURNED;
    t->result = result;
    t->end_ns = now_ns;
    if (what) lv_put(t->what, sizeof t->what, what);
    lv_give(&t->seq);
}

/* The slot of stream: found, or (claim) claimed at its first launch; NULL
 * where it has none (claim 0) or all are taken. */
static lv_stream *lv_stream_at(lv_file *f, uint64_t stream, int claim)
{
    uint64_t key = stream + 1, h = (stream >> 4) * 0x9e3779b97f4a7c15ull;
    uint32_t i;

    for (i = 0; i < LV_STREAMS; i++) {
        lv_stream *s = &f->s[(h + i) % LV_STREAMS];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE), zero = 0;
        if (k == key) return s;
        if (k != 0) continue;
        if (!claim) return NULL;
        if (__atomic_compare_exchange_n(&s->key, &zero, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            __atomic_fetch_add(&f->h.streams_n, 1u, __ATOMIC_RELAXED);
            return s;
        }
        if (zero == key) return s;
    }
    return NULL;
}

void lv_launch(lv_file *f, uint64_t stream, const char *kernel, int64_t now_ns)
{
    lv_stream *s = f ? lv_stream_at(f, stream, 1) : NULL;
    if (!s || !lv_take(&s->seq)) return;
    s->since_ns = now_ns;
    s->done_ns = 0;
    s->launches++;
    lv_put(s->kernel, sizeof s->kernel, kernel);
    lv_give(&s->seq);
}

/* One stream's work seen to end at now_ns (its writer elsewhere: skipped). */
static void lv_done(lv_stream *s, int64_t now_ns)
{
    if (!__atomic_load_n(&s->key, __ATOMIC_ACQUIRE) || !lv_take(&s->seq)) return;
    if (s->launches && !s->done_ns) s->done_ns = now_ns;
    lv_give(&s->seq);
}

void lv_stream_done(lv_file *f, int all, uint64_t stream, int64_t now_ns)
{
    uint32_t i;
    lv_stream *s;
    if (!f) return;
    if (!all) {
        if ((s = lv_stream_at(f, stream, 0)) != NULL) lv_done(s, now_ns);
        return;
    }
    for (i = 0; i < LV_STREAMS; i++) lv_done(&f->s[i], now_ns);
}

void lv_stream_kernel(lv_file *f, uint64_t stream, char *buf, size_t len)
{
    lv_stream *s = f ? lv_stream_at(f, stream, 0) : NULL;
    uint64_t a;
    buf[0] = '\0';
    if (!s || !len) return;
    a = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
    if (a & 1u) return;
    lv_put(buf, len < sizeof s->kernel ? len : sizeof s->kernel, s->kernel);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != a) buf[0] = '\0';
}

void lv_event_add(lv_file *f, lv_kind kind, int tid, const char *name, const char *call,
                  const char *other, int result, uint64_t stream, double ms, int64_t now_ns)
{
    uint64_t n;
    lv_event *e;

    if (!f) return;
    n = __atomic_add_fetch(&f->h.events_n, 1u, __ATOMIC_RELAXED);
    e = &f->e[(n - 1) % LV_EVENTS];
    if (!lv_take(&e->seq)) return;
    e->n = n;
    e->at_ns = now_ns;
    e->kind = (int32_t)kind;
    e->result = result;
    e->tid = tid;
    e->stream = stream;
    e->ms = ms;
    lv_put(e->name, sizeof e->name, name);
    lv_put(e->call, sizeof e->call, call);
    lv_put(e->other, sizeof e->other, other);
    lv_give(&e->seq);
}

void lv_free_mem(lv_file *f, uint64_t free_bytes, int64_t now_ns)
{
    if (!f || !lv_take(&f->h.seq)) return;
    f->h.free_bytes = free_bytes;
    f->h.free_at_ns = now_ns;
    lv_give(&f->h.seq);
}

/* Set a stamp once: from 0 to now_ns (a stamp already set is kept). */
static void lv_stamp(int64_t *at, int64_t now_ns)
{
    int64_t none = 0;
    if (now_ns > 0) __atomic_compare_exchange_n(at, &none, now_ns, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

void lv_stamp_ready(lv_file *f, int64_t now_ns)
{
    if (f) lv_stamp(&f->h.ready_ns, now_ns);
}

void lv_stamp_first_kernel(lv_file *f, int64_t now_ns)
{
    if (f) lv_stamp(&f->h.first_kernel_ns, now_ns);
}

/* ---- the reader ---- */

/* Copy n bytes of a slot whose sequence is at seq into dst: 1 where it read
 * whole (its sequence even and unchanged), 0 where torn. */
static int lv_copy(void *dst, const void *src, size_t n, const uint64_t *seq)
{
    uint64_t a = __atomic_load_n(seq, __ATOMIC_ACQUIRE), b;
    memcpy(dst, src, n);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    b = __atomic_load_n(seq, __ATOMIC_RELAXED);
    return a == b && !(a & 1u);
}

/* 1 where the field of len bytes holds a NUL. */
static int lv_ended(const char *s, size_t len)
{
    return memchr(s, '\0', len) != NULL;
}

static int lv_thread_ok(const lv_thread *t)
{
    return t->state >= LV_IDLE && t->state <= LV_RETURNED && t->since_ns >= 0 && t->end_ns >= 0 &&
           lv_ended(t->call, sizeof t->call) && lv_ended(t->what, sizeof t->what);
}

static int lv_event_ok(const lv_event *e)
{
    return e->kind >= 1 && e->kind <= LV_EV_KIND_MAX && e->at_ns >= 0 && isfinite(e->ms) &&
           e->ms >= 0 && e->ms < 1e12 && lv_ended(e->name, sizeof e->name) &&
           lv_ended(e->call, sizeof e->call) && lv_ended(e->other, sizeof e->other);
}

/* A header copied out of a record of len bytes, checked against the
 * layout and pid (-1: any): 0, or -1 with why. */
static int lv_header_ok(const lv_header *h, size_t len, int pid, char *why, size_t whylen)
{
    if (memcmp(h->magic, LV_MAGIC, sizeof h->magic) != 0 || h->version != LV_VERSION) {
        snprintf(why, whylen, "not a live record of this harness (its magic or version differs)");
        return -1;
    }
    if (h->size != sizeof(lv_file) || len != sizeof(lv_file) || h->threads != LV_THREADS ||
        h->streams != LV_STREAMS || h->events != LV_EVENTS) {
        snprintf(why, whylen, "the live record is %zu bytes (its header says %u), not %zu", len,
                 (unsigned)h->size, sizeof(lv_file));
        return -1;
    }
    if (h->check != lv_check(h) || (pid >= 0 && h->pid != pid)) {
        snprintf(why, whylen, "the live record's header fails its check (pid %d, expected %d)",
                 (int)h->pid, pid);
        return -1;
    }
    return 0;
}

/* The stamps of the header fh, read each as one word: 0, or -1 where one
 * is negative (forged: both then 0). */
static int lv_stamps(const lv_header *fh, int64_t *ready_ns, int64_t *first_ns)
{
    *ready_ns = __atomic_load_n(&fh->ready_ns, __ATOMIC_ACQUIRE);
    *first_ns = __atomic_load_n(&fh->first_kernel_ns, __ATOMIC_ACQUIRE);
    if (*ready_ns >= 0 && *first_ns >= 0) return 0;
    *ready_ns = *first_ns = 0;
    return -1;
}

/* The header, checked: 0, or -1 with why. */
static int lv_read_header(const lv_file *f, size_t len, int pid, lv_view *v, char *why, size_t whylen)
{
    lv_header h;

    if (len < sizeof h) {
        snprintf(why, whylen, "the live record is %zu bytes, shorter than its header", len);
        return -1;
    }
    memcpy(&h, &f->h, sizeof h);
    if (lv_header_ok(&h, len, pid, why, whylen) != 0) return -1;
    v->pid = h.pid;
    v->events_n = __atomic_load_n(&f->h.events_n, __ATOMIC_ACQUIRE);
    v->threads_n = h.threads_n;
    v->streams_n = h.streams_n;
    if (lv_stamps(&f->h, &v->ready_ns, &v->first_kernel_ns) != 0) v->forged++;
    {
        struct { uint64_t b; int64_t at; } m;
        if (lv_copy(&m, &f->h.free_bytes, sizeof m, &f->h.seq)) {
            v->free_bytes = m.b;
            v->free_at_ns = m.at;
        } else
            v->torn++;
    }
    return 0;
}

static void lv_read_threads(const lv_file *f, lv_view *v)
{
    uint32_t i;
    for (i = 0; i < LV_THREADS && i < v->threads_n; i++) {
        lv_thread *t = &v->t[v->nt];
        if (!lv_copy(t, &f->t[i], sizeof *t, &f->t[i].seq)) { v->torn++; continue; }
        if (!lv_thread_ok(t)) { v->forged++; continue; }
        if (t->calls) v->nt++;
    }
}

static void lv_read_streams(const lv_file *f, lv_view *v)
{
    uint32_t i;
    for (i = 0; i < LV_STREAMS; i++) {
        lv_stream *s = &v->s[v->ns];
        if (!lv_copy(s, &f->s[i], sizeof *s, &f->s[i].seq)) { v->torn++; continue; }
        if (!s->key || !s->launches) continue;
        if (s->since_ns < 0 || s->done_ns < 0 || !lv_ended(s->kernel, sizeof s->kernel)) {
            v->forged++;
            continue;
        }
        v->ns++;
    }
}

static void lv_read_events(const lv_file *f, lv_view *v)
{
    uint64_t first = v->events_n > LV_EVENTS ? v->events_n - LV_EVENTS + 1 : 1, n;
    for (n = first; n <= v->events_n && n >= first; n++) {
        lv_event *e = &v->e[v->ne];
        const lv_event *src = &f->e[(n - 1) % LV_EVENTS];
        if (!lv_copy(e, src, sizeof *e, &src->seq) || e->n != n) { v->torn++; continue; }
        if (!lv_event_ok(e)) { v->forged++; continue; }
        v->ne++;
    }
}

int lv_read(const void *buf, size_t len, int pid, lv_view *v, char *why, size_t whylen)
{
    const lv_file *f = buf;

    memset(v, 0, sizeof *v);
    if (lv_read_header(f, len, pid, v, why, whylen) != 0) return -1;
    lv_read_threads(f, v);
    lv_read_streams(f, v);
    lv_read_events(f, v);
    return 0;
}

int lv_read_file(const char *path, int pid, lv_view *v, char *why, size_t whylen)
{
    static const size_t cap = sizeof(lv_file) + 1;
    char *buf;
    struct stat st;
    size_t got = 0;
    ssize_t r;
    int fd, rc = -1;

    memset(v, 0, sizeof *v);
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(buf = malloc(cap))) {
        snprintf(why, whylen, "%s: %s", path, S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
        close(fd);
        return -1;
    }
    while (got < cap && (r = read(fd, buf + got, cap - got)) > 0) got += (size_t)r;
    if (got > sizeof(lv_file))
        snprintf(why, whylen, "%s: longer than a live record", path);
    else if (lv_read(buf, got, pid, v, why, whylen) == 0)
        rc = 0;
    else {
        char inner[256];
        snprintf(inner, sizeof inner, "%s", why);
        snprintf(why, whylen, "%s: %s", path, inner);
    }
    free(buf);
    close(fd);
    return rc;
}

int lv_read_stamps(const char *path, int pid, int64_t *ready_ns, int64_t *first_ns, char *why,
                   size_t whylen)
{
    lv_header h;
    struct stat st;
    int fd, rc = -1;

    *ready_ns = *first_ns = 0;
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
        snprintf(why, whylen, "%s: not a regular file", path);
    else if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        snprintf(why, whylen, "%s: shorter than a live record's header", path);
    else if (lv_header_ok(&h, (size_t)st.st_size, pid, why, whylen) != 0)
        ;
    else if (lv_stamps(&h, ready_ns, first_ns) != 0)
        snprintf(why, whylen, "%s: a stamp is negative (forged)", path);
    else
        rc = 0;
    close(fd);
    return rc;
}
