/* trace.c: NVTX ranges, progress lines and the Chrome trace of the run. */
#include "core/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "core/report.h"
#include "os/atomicfile.h"
#include "os/clock.h"
#include "os/progress.h"

/* One span: a host range (track 1: sections; 2: phases; 4: child processes)
 * or a device span (3). */
typedef struct tr_span {
    char *name;
    double start, dur;   /* ms on the axis */
    int track;           /* 5: a span of another process (pid, tid); 6: that process's name */
    int pid;
    long tid;
} tr_span;

static struct {
    long long t0_ns;
    int record, progress, in_section, in_phase;
    tr_span *s;
    size_t n, cap, ndevice, dropped;
    size_t open_section, open_phase;   /* indexes of the open spans */
    char section[64], phase[128];
    char stopped[256];   /* why the run stopped early; "" when it did not */
} T;

/* The progress line: the elapsed time and name, the cursor put back at the
 * start of the line, so that a message written next (an error, a skip)
 * starts there and covers it, instead of running on after it. */
static void tr_progress(const char *name)
{
    if (pl_active()) return;      /* the runs' line (os/progress.h) has it */
    fprintf(stderr, "\r\033[K[%6.1f s] %s\r", tr_now() / 1000.0, name);
}

void tr_init(long long t0_ns, int record, int progress)
{
    memset(&T, 0, sizeof T);
    T.t0_ns = t0_ns;
    T.record = record;
    T.progress = progress && isatty(STDERR_FILENO);
}

double tr_now(void)
{
    return (double)(clk_now_ns() - T.t0_ns) / 1e6;
}

int tr_recording(void)
{
    return T.record;
}

/* Append a span; returns its index, or (size_t)-1 when not kept. */
static size_t tr_add(const char *name, double start, double dur, int track)
{
    tr_span *grown;
    if (!T.record) return (size_t)-1;
    if (T.n == T.cap) {
        size_t cap = T.cap ? 2 * T.cap : 256;
        if (!(grown = realloc(T.s, cap * sizeof *grown))) return (size_t)-1;
        T.s = grown;
        T.cap = cap;
    }
    if (!(T.s[T.n].name = strdup(name))) return (size_t)-1;
    T.s[T.n].start = start;
    T.s[T.n].dur = dur;
    T.s[T.n].track = track;
    T.s[T.n].pid = 1;
    T.s[T.n].tid = track;
    return T.n++;
}

static void tr_close(size_t i)
{
    if (i != (size_t)-1 && i < T.n) T.s[i].dur = tr_now() - T.s[i].start;
}

void tr_section_begin(const char *name)
{
    tr_section_end();
    snprintf(T.section, sizeof T.section, "%s", name);
    nvtxRangePushA(name);
    T.in_section = 1;
    T.open_section = tr_add(name, tr_now(), 0, 1);
    if (T.progress) tr_progress(name);
}

void tr_section_end(void)
{
    tr_phase(NULL);
    if (!T.in_section) return;
    nvtxRangePop();
    tr_close(T.open_section);
    T.in_section = 0;
    if (T.progress) fprintf(stderr, "\r\033[K");
}

void tr_phase(const char *name)
{
    if (T.in_phase) {
        nvtxRangePop();
        tr_close(T.open_phase);
        T.in_phase = 0;
    }
    T.phase[0] = '\0';
    if (!name) return;
    snprintf(T.phase, sizeof T.phase, "%s", name);
    nvtxRangePushA(name);
    T.in_phase = 1;
    T.open_phase = tr_add(name, tr_now(), 0, 2);
    if (T.progress) tr_progress(name);
}

void tr_device(const char *name, double start_ms, double dur_ms)
{
    char label[160];
    if (!T.record) return;
    if (!name) {
        snprintf(label, sizeof label, "%s", T.phase[0] ? T.phase : T.section[0] ? T.section : "timed region");
        name = label;
    }
    if (T.ndevice >= TR_MAX_DEVICE) {
        T.dropped++;
        return;
    }
    if (tr_add(name, start_ms, dur_ms, 3) != (size_t)-1) T.ndevice++;
}

void tr_host(const char *name, double start_ms, double dur_ms)
{
    tr_add(name, start_ms, dur_ms, 4);
}

void tr_process_span(int pid, const char *pname, long tid, const char *name, double start_ms,
                     double dur_ms)
{
    size_t i, at;
    int named = 0;
    if (!T.record) return;
    for (i = 0; i < T.n && !named; i++) named = T.s[i].track == 6 && T.s[i].pid == pid;
    if (!named && (at = tr_add(pname, 0, 0, 6)) != (size_t)-1) T.s[at].pid = pid;
    if ((at = tr_add(name, start_ms, dur_ms, 5)) != (size_t)-1) {
        T.s[at].pid = pid;
        T.s[at].tid = tid;
    }
}

/* One JSON string, escaped (rp_json_str). */
static void tr_str(FILE *f, const char *s)
{
    rp_json_str(f, s ? s : "");
}

static int tr_emit(FILE *f, const void *unused)
{
    static const char *const tracks[5] = { "", "sections", "phases (host)", "timed device spans",
                                           "child processes" };
    size_t i;
    int t;
    (void)unused;
    fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"axis\": \"ms since the harness "
          "process started; device spans placed by an event recorded on an idle stream\"", f);
    fprintf(f, ", \"device_spans_dropped\": %zu", T.dropped);
    if (T.stopped[0]) {
        fputs(", \"incomplete\": true, \"stopped\": ", f);
        tr_str(f, T.stopped);
    }
    fputs("},\n\"traceEvents\": [\n", f);
    fputs("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": "
          "\"harness\"}}", f);
    for (t = 1; t <= 4; t++)
        fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
                "\"args\": {\"name\": \"%s\"}}", t, tracks[t]);
    for (i = 0; i < T.n; i++) {
        const tr_span *s = &T.s[i];
        if (s->track == 6) {
            fprintf(f, ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": "
                    "{\"name\": ", s->pid);
            tr_str(f, s->name);
            fputs("}}", f);
            continue;
        }
        fputs(",\n{\"name\": ", f);
        tr_str(f, s->name);
        fprintf(f, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %ld, \"ts\": %.3f, "
                "\"dur\": %.3f}", s->track == 3 ? "device" : s->track == 5 ? "driver" : "host",
                s->pid, s->tid, s->start * 1000.0, (s->dur > 0 ? s->dur : 0) * 1000.0);
    }
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}

int tr_write(const char *path)
{
    /* Close what is still open, so every span has its length. */
    if (T.in_phase) tr_close(T.open_phase);
    if (T.in_section) tr_close(T.open_section);
    return af_write(path, tr_emit, NULL);
}

void tr_stopped(const char *why)
{
    snprintf(T.stopped, sizeof T.stopped, "%s", why);
}

void tr_free(void)
{
    size_t i;
    for (i = 0; i < T.n; i++) free(T.s[i].name);
    free(T.s);
    T.s = NULL;
    T.n = T.cap = 0;
}
