/* live.h: the live record: what a CUDA process of the user's program is
 * doing now, kept by the probe in a file mapped shared ("<dir>/<pid>.live"),
 * so that the parent can read it at any moment, also after the process was
 * killed (the pages stay in the file). The probe writes it; the parent
 * reads, checks and refuses it when it is torn, truncated or forged. One
 * layout, here, for both.
 *
 * What it holds:
 *   - per thread (the first LV_THREADS to make a driver call): the call it
 *     is inside now, or its last one: the call's name, what it works on (a
 *     kernel or a library), since when, and its result once it returned;
 *   - per stream (the first LV_STREAMS launched on): the last kernel
 *     launched there, and when;
 *   - the last LV_EVENTS events (loads, first uses, failures) in a ring;
 *   - the free device memory at the last load;
 *   - two stamps, each set once: when an NVTX mark first matched --ready,
 *     and when the process launched its first kernel (the parent acts at
 *     the program's ready point while it runs: -- CMD --snapshot).
 *
 * Writing costs no syscall and never blocks: each slot is a sequence lock
 * of its own (odd while its writer is inside), written by one thread at a
 * time (a writer takes a slot by moving its sequence from even to odd with
 * one compare-and-swap, and where another writer holds it, skips that
 * update rather than wait). A reader copies a slot and keeps it only where
 * its sequence was even and the same before and after: a slot whose writer
 * was killed mid-write reads as torn, never as half of two states.
 *
 * Times are CLOCK_MONOTONIC ns, the clock the parent and the record read. */
#ifndef LIVE_H
#define LIVE_H

#include <stddef.h>
#include <stdint.h>

#define LV_MAGIC     "hlive\n1"     /* 8 bytes with its NUL */
#define LV_VERSION   2u
#define LV_THREADS   64u
#define LV_STREAMS   64u
#define LV_EVENTS    256u
#define LV_NAME      96u            /* a kernel's or library's name, NUL included */
#define LV_CALL      40u            /* a driver call's name, NUL included */

/* What a thread's slot says of its call. */
typedef enum lv_state { LV_IDLE = 0, LV_INSIDE = 1, LV_RETURNED = 2 } lv_state;

/* The kinds of event in the ring. */
typedef enum lv_kind {
    LV_EV_LOAD = 1,         /* a module or library load returned: name the call */
    LV_EV_FIRST_USE = 2,    /* a kernel's first get or launch began: name the kernel */
    LV_EV_FAILURE = 3,      /* a driver call returned an error: result, name the call */
    LV_EV_WAIT = 4,         /* a first use that began while another stream's work was
                               in flight ended: ms its wait, stream the busy one */
    LV_EV_KIND_MAX = 4
} lv_kind;

typedef struct lv_header {
    char magic[8];
    uint32_t version, size;         /* size: the whole file's bytes */
    uint32_t threads, streams, events;
    int32_t pid;
    uint64_t check;                 /* lv_check of the fields above */
    uint64_t seq;                   /* sequence of the fields below */
    uint64_t free_bytes;            /* free device memory at the last load (0: unread) */
    int64_t free_at_ns;             /* when it was read */
    uint64_t events_n;              /* events written so far (the ring holds the last) */
    uint32_t threads_n, streams_n;  /* slots claimed (may exceed the slots: the rest untold) */
    int64_t ready_ns;               /* an NVTX mark first matched --ready (0: not yet); set
                                       once, atomically, outside any sequence */
    int64_t first_kernel_ns;        /* the process's first kernel launch entered (0: none) */
} lv_header;

typedef struct lv_thread {
    uint64_t seq;
    int32_t tid;
    int32_t state;                  /* lv_state */
    int32_t result;                 /* the call's CUresult once returned */
    uint32_t calls;                 /* driver calls this thread made */
    int64_t since_ns;               /* the call's entry */
    int64_t end_ns;                 /* its exit (LV_RETURNED) */
    char call[LV_CALL];
    char what[LV_NAME];             /* its kernel or library; "" where none */
} lv_thread;

typedef struct lv_stream {
    uint64_t seq;
    uint64_t key;                   /* the CUstream's value plus 1; 0: a free slot */
    int64_t since_ns;               /* the last launch there */
    int64_t done_ns;                /* its work was seen to end after that launch (a
                                       synchronize returned); 0: not seen */
    uint32_t launches;
    uint32_t pad;
    char kernel[LV_NAME];
} lv_stream;

typedef struct lv_event {
    uint64_t seq;
    uint64_t n;                     /* its number among all events, from 1 */
    int64_t at_ns;
    int32_t kind;                   /* lv_kind */
    int32_t result;
    int32_t tid;
    uint32_t pad;
    uint64_t stream;                /* LV_EV_WAIT: the busy stream */
    double ms;                      /* LV_EV_WAIT: the wait; LV_EV_LOAD: the load's time */
    char name[LV_NAME];
    char call[LV_CALL];
    char other[LV_NAME];            /* LV_EV_FIRST_USE, LV_EV_WAIT: the kernel last launched
                                       on the busy stream; "" where none was busy */
} lv_event;

/* The file: a header, then the slots, in this order. */
typedef struct lv_file {
    lv_header h;
    lv_thread t[LV_THREADS];
    lv_stream s[LV_STREAMS];
    lv_event e[LV_EVENTS];
} lv_file;

/* The header's check: a hash of the magic, version, sizes, capacities and
 * pid (a file of another layout or a forged header fails it). */
uint64_t lv_check(const lv_header *h);

/* ---- The writer (the probe) ---- */

/* Make "<dir>/<pid>.live" (created, sized, mapped shared) and its header.
 * Returns the mapping, or NULL (errno set) where it cannot be made: the
 * probe then keeps no live record. Not async-signal-safe. */
lv_file *lv_open(const char *dir, int pid);

/* For tests: a header for a file in memory (no mapping). */
void lv_init(lv_file *f, int pid);

/* Unmap it (the file stays: the parent reads and removes it). */
void lv_close(lv_file *f);

/* A thread's slot, claimed at its first call (NULL beyond LV_THREADS):
 * keep it thread-local. */
lv_thread *lv_thread_slot(lv_file *f, int tid);

/* The thread enters call (name) on what ("" or NULL: none), at now_ns. */
void lv_enter(lv_thread *t, const char *call, const char *what, int64_t now_ns);

/* The thread's call returned result at now_ns; what replaced where not
 * NULL (a get learns its kernel's name only at its exit). */
void lv_exit(lv_thread *t, int result, const char *what, int64_t now_ns);

/* A kernel launched on stream at now_ns (the slot claimed at the stream's
 * first launch; nothing beyond LV_STREAMS streams). */
void lv_launch(lv_file *f, uint64_t stream, const char *kernel, int64_t now_ns);

/* One event into the ring (name, call, other: "" or NULL where none). */
void lv_event_add(lv_file *f, lv_kind kind, int tid, const char *name, const char *call,
                  const char *other, int result, uint64_t stream, double ms, int64_t now_ns);

/* The work launched on stream was seen to end at now_ns (all = 1: every
 * stream's, as a context's synchronize says). */
void lv_stream_done(lv_file *f, int all, uint64_t stream, int64_t now_ns);

/* The kernel last launched on stream into buf (len bytes; "" where the
 * stream has no slot, or its slot is being written). */
void lv_stream_kernel(lv_file *f, uint64_t stream, char *buf, size_t len);

/* The free device memory read at a load, at now_ns. */
void lv_free_mem(lv_file *f, uint64_t free_bytes, int64_t now_ns);

/* The stamps: the process became ready (an NVTX mark matched), its first
 * kernel launched, at now_ns. Each keeps its first value (a later call
 * does nothing); a store of one word, readable at any moment. */
void lv_stamp_ready(lv_file *f, int64_t now_ns);
void lv_stamp_first_kernel(lv_file *f, int64_t now_ns);

/* ---- The reader (the parent) ---- */

/* A live record as read: the slots that read whole, each string NUL-ended
 * within its field. torn counts the slots whose writer was inside (or that
 * changed during the read); forged the slots whose fields were out of
 * bounds (skipped). */
typedef struct lv_view {
    int pid;
    uint64_t free_bytes;
    int64_t free_at_ns;
    uint64_t events_n;
    uint32_t threads_n, streams_n;
    int64_t ready_ns, first_kernel_ns;  /* the stamps, 0: not set (or forged: negative) */
    size_t nt, ns, ne;              /* slots kept below */
    lv_thread t[LV_THREADS];
    lv_stream s[LV_STREAMS];
    lv_event e[LV_EVENTS];          /* oldest first */
    size_t torn, forged;
} lv_view;

/* Read the live record in buf (len bytes, a copy of the file or the
 * mapping) into v, for the process pid (-1: any). Checks every size before
 * it reads: the length against the header's size and the layout's, the
 * magic, version, capacities and check, the pid. Returns 0, or -1 with why
 * ("the live record of 123 is 100 bytes, not 81984", ...) set and v
 * untouched beyond reset. Thread-safe on a stable buffer; on a buffer being
 * written it still reads only whole slots. */
int lv_read(const void *buf, size_t len, int pid, lv_view *v, char *why, size_t whylen);

/* Read "<path>" (at most one layout's size and a byte) and lv_read it.
 * Returns 0 or -1 with why (the file named). */
int lv_read_file(const char *path, int pid, lv_view *v, char *why, size_t whylen);

/* The stamps alone, from the header of "<path>" (the header's bytes read,
 * checked as lv_read checks them, the size the header names against the
 * file's), for a reader that looks often: *ready_ns and *first_ns, 0 where
 * not set (a negative value is forged: 0). Returns 0, or -1 with why. */
int lv_read_stamps(const char *path, int pid, int64_t *ready_ns, int64_t *first_ns, char *why,
                   size_t whylen);

#endif
