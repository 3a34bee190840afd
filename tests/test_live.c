/* test_live.c: the live record (src/probe/live.h): what the writer puts is
 * what the reader gets, values set here; a slot whose writer died inside
 * reads as torn; forged headers and fields are refused; the ring keeps the
 * last events; a process killed by SIGKILL inside a call leaves that call
 * readable; a reader beside a writer never sees half of two states. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/live.h"
#include "testhelp.h"

static void live_roundtrip(lv_file *f, lv_view *v)
{
    char why[256] = "";
    lv_thread *t;

    lv_init(f, 4242);
    t = lv_thread_slot(f, 4243);
    lv_enter(t, "cuModuleLoadData", "libcufft.so.12", 1000);
    lv_exit(t, 0, NULL, 3500);
    lv_enter(t, "cuLaunchKernel", "spinner", 5000);
    lv_launch(f, 0x7f00, "spinner", 5000);
    lv_launch(f, 0, "setter", 6000);
    lv_launch(f, 0x7f00, "spinner2", 7000);
    lv_event_add(f, LV_EV_LOAD, 4243, "libcufft.so.12", "cuModuleLoadData", "", 0, 0, 2.5, 3500);
    lv_event_add(f, LV_EV_WAIT, 4243, "setter", "cuLaunchKernel", "spinner", 0, 0x7f00, 15000.0, 9000);
    lv_free_mem(f, 123u << 20, 3500);
    th_check("live: a record written here reads back", lv_read(f, sizeof *f, 4242, v, why, sizeof why) == 0);
    th_check("live: the pid, free memory at the last load and when",
             v->pid == 4242 && v->free_bytes == (123u << 20) && v->free_at_ns == 3500);
    th_check("live: one thread, inside cuLaunchKernel on spinner since 5000, its second call",
             v->nt == 1 && v->t[0].tid == 4243 && v->t[0].state == LV_INSIDE &&
             strcmp(v->t[0].call, "cuLaunchKernel") == 0 && strcmp(v->t[0].what, "spinner") == 0 &&
             v->t[0].since_ns == 5000 && v->t[0].calls == 2);
    th_check("live: two streams, the busy one's last kernel spinner2 at 7000 after 2 launches",
             v->ns == 2 && v->streams_n == 2 &&
             ((v->s[0].key == 0x7f01 && strcmp(v->s[0].kernel, "spinner2") == 0 && v->s[0].launches == 2 &&
               v->s[0].since_ns == 7000) ||
              (v->s[1].key == 0x7f01 && strcmp(v->s[1].kernel, "spinner2") == 0 && v->s[1].launches == 2 &&
               v->s[1].since_ns == 7000)));
    th_check("live: the events in order: the load, then setter's wait of 15 s on stream 0x7f00",
             v->ne == 2 && v->e[0].kind == LV_EV_LOAD && v->e[0].ms == 2.5 && v->e[1].kind == LV_EV_WAIT &&
             strcmp(v->e[1].name, "setter") == 0 && v->e[1].stream == 0x7f00 && v->e[1].ms == 15000.0);
    th_check("live: the wait names the kernel in flight on the busy stream",
             strcmp(v->e[1].other, "spinner") == 0 && v->e[0].other[0] == '\0');
    th_check("live: nothing torn or forged", v->torn == 0 && v->forged == 0);
    {
        char k[LV_NAME];
        size_t i, done = 0, open = 0;
        lv_stream_kernel(f, 0x7f00, k, sizeof k);
        th_check("live: the kernel last launched on a stream, spinner2", strcmp(k, "spinner2") == 0);
        lv_stream_kernel(f, 0x1234, k, sizeof k);
        th_check("live: a stream never launched on has no kernel", k[0] == '\0');
        lv_stream_done(f, 0, 0x7f00, 8000);
        lv_read(f, sizeof *f, 4242, v, why, sizeof why);
        for (i = 0; i < v->ns; i++) {
            done += v->s[i].key == 0x7f01 && v->s[i].done_ns == 8000;
            open += v->s[i].key == 0x1 && v->s[i].done_ns == 0;
        }
        th_check("live: one stream's synchronize marks it alone done", done == 1 && open == 1);
        lv_stream_done(f, 1, 0, 8500);
        lv_launch(f, 0x7f00, "spinner3", 9000);
        lv_read(f, sizeof *f, 4242, v, why, sizeof why);
        for (i = 0, done = open = 0; i < v->ns; i++) {
            done += v->s[i].key == 0x1 && v->s[i].done_ns == 8500;
            open += v->s[i].key == 0x7f01 && v->s[i].done_ns == 0;
        }
        th_check("live: a context's synchronize marks every stream; a later launch opens one again",
                 done == 1 && open == 1);
    }
}

static void live_refused(lv_file *f, lv_view *v)
{
    char why[256] = "";
    lv_file *g = malloc(sizeof *g);

    if (!g) { th_check("live: memory for the forged copies", 0); return; }
    th_check("live: another pid refused", lv_read(f, sizeof *f, 99, v, why, sizeof why) == -1 &&
             strstr(why, "check"));
    th_check("live: a short file refused, by its length",
             lv_read(f, sizeof *f - 1, 4242, v, why, sizeof why) == -1 && strstr(why, "bytes"));
    th_check("live: 10 bytes refused (shorter than its header)",
             lv_read(f, 10, 4242, v, why, sizeof why) == -1 && strstr(why, "header"));
    memcpy(g, f, sizeof *g);
    g->h.magic[0] = 'X';
    th_check("live: another magic refused", lv_read(g, sizeof *g, 4242, v, why, sizeof why) == -1);
    memcpy(g, f, sizeof *g);
    g->h.pid = 99;
    th_check("live: a pid changed without its check refused", lv_read(g, sizeof *g, 99, v, why, sizeof why) == -1);
    memcpy(g, f, sizeof *g);
    g->h.threads = 1000;
    g->h.check = lv_check(&g->h);
    th_check("live: a capacity not the layout's refused, check and all",
             lv_read(g, sizeof *g, 4242, v, why, sizeof why) == -1);
    memcpy(g, f, sizeof *g);
    memset(g->t[0].call, 'A', sizeof g->t[0].call);
    g->e[1].kind = 77;
    th_check("live: a call without its NUL and an unknown event kind skipped as forged",
             lv_read(g, sizeof *g, 4242, v, why, sizeof why) == 0 && v->forged == 2 && v->nt == 0 && v->ne == 1);
    memcpy(g, f, sizeof *g);
    g->t[0].seq |= 1u;
    g->e[0].seq |= 1u;
    th_check("live: slots whose writer is inside read as torn, the rest kept",
             lv_read(g, sizeof *g, 4242, v, why, sizeof why) == 0 && v->torn == 2 && v->nt == 0 &&
             v->ne == 1 && v->e[0].kind == LV_EV_WAIT);
    th_check("live: a writer meets a torn slot and skips it, never waits",
             (lv_enter(&g->t[0], "cuInit", NULL, 1), strcmp(g->t[0].call, "cuLaunchKernel") == 0));
    free(g);
}

static void live_ring(lv_file *f, lv_view *v)
{
    char why[256] = "", name[32];
    int i;

    lv_init(f, 7);
    for (i = 1; i <= 300; i++) {
        snprintf(name, sizeof name, "k%d", i);
        lv_event_add(f, LV_EV_FIRST_USE, 8, name, "cuLaunchKernel", "", 0, 0, 0, i);
    }
    th_check("live: 300 events: the ring keeps the last 256, oldest first (k45 to k300)",
             lv_read(f, sizeof *f, 7, v, why, sizeof why) == 0 && v->ne == LV_EVENTS && v->events_n == 300 &&
             strcmp(v->e[0].name, "k45") == 0 && strcmp(v->e[LV_EVENTS - 1].name, "k300") == 0);
    for (i = 0; i < (int)LV_THREADS + 3; i++) lv_enter(lv_thread_slot(f, i), "cuInit", NULL, 1);
    th_check("live: threads beyond the slots counted, not kept",
             lv_read(f, sizeof *f, 7, v, why, sizeof why) == 0 && v->nt == LV_THREADS &&
             v->threads_n == LV_THREADS + 3);
}

/* A child maps a live file, enters cuLaunchKernel and is SIGKILLed there. */
static void live_killed(lv_view *v)
{
    char dir[] = "/tmp/test_live.XXXXXX", path[128], why[256] = "";
    int st = 0;
    pid_t pid;

    if (!mkdtemp(dir)) { th_check("live: a temporary directory", 0); return; }
    pid = fork();
    if (pid == 0) {
        lv_file *f = lv_open(dir, (int)getpid());
        if (!f) _exit(2);
        lv_launch(f, 0x10, "spinner", 10);
        lv_enter(lv_thread_slot(f, (int)getpid()), "cuLaunchKernel", "setter", 20);
        for (;;) pause();
    }
    snprintf(path, sizeof path, "%s/%d.live", dir, (int)pid);
    {
        int tries;
        for (tries = 0; tries < 500; tries++) {
            if (lv_read_file(path, (int)pid, v, why, sizeof why) == 0 && v->nt == 1) break;
            usleep(10000);
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    th_check("live: after SIGKILL the file says the thread was inside cuLaunchKernel of setter, "
             "spinner in flight on its stream",
             WIFSIGNALED(st) && lv_read_file(path, (int)pid, v, why, sizeof why) == 0 && v->nt == 1 &&
             v->t[0].state == LV_INSIDE && strcmp(v->t[0].what, "setter") == 0 && v->ns == 1 &&
             strcmp(v->s[0].kernel, "spinner") == 0);
    th_check("live: a missing file refused, named", lv_read_file("/nonexistent/1.live", 1, v, why, sizeof why) == -1 &&
             strstr(why, "/nonexistent/1.live"));
    unlink(path);
    rmdir(dir);
}

struct live_race { lv_file *f; lv_thread *t; int stop; long written; };

static void *live_writer(void *arg)
{
    struct live_race *r = arg;
    long i;
    for (i = 0; !__atomic_load_n(&r->stop, __ATOMIC_RELAXED); i++) {
        const char *x = (i & 1) ? "cuLaunchKernel" : "cuModuleGetFunction";
        lv_enter(r->t, x, x, i);
        __atomic_store_n(&r->written, i + 1, __ATOMIC_RELEASE);
        sched_yield();  /* a writer between calls, as the probe's are (and a point where
                           a scheduler of one thread at a time, valgrind's, switches) */
    }
    return NULL;
}

/* A reader beside a writer: every thread slot it keeps is one whole state
 * (call and what written together are equal). */
static void live_race(lv_file *f, lv_view *v)
{
    struct live_race r = { f, NULL, 0, 0 };
    pthread_t w;
    char why[256];
    int i, mixed = 0, kept = 0;

    lv_init(f, 5);
    r.t = lv_thread_slot(f, 6);
    if (pthread_create(&w, NULL, live_writer, &r) != 0) { th_check("live: a writer thread", 0); return; }
    /* The writer's first state written before the reads (a scheduler that
     * runs one thread at a time, valgrind's, may start it late). */
    for (i = 0; i < 5000 && !__atomic_load_n(&r.written, __ATOMIC_ACQUIRE); i++) usleep(1000);
    for (i = 0; i < 20000; i++) {
        if (lv_read(f, sizeof *f, 5, v, why, sizeof why) != 0) { mixed++; continue; }
        if (v->nt == 1) {
            kept++;
            if (strcmp(v->t[0].call, v->t[0].what) != 0) mixed++;
        } else
            sched_yield();      /* torn: let the writer end its write */
    }
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
    pthread_join(w, NULL);
    th_check("live: 20,000 reads beside a writer: none mixes two states, some kept whole",
             mixed == 0 && kept > 0);
}

void test_live(void)
{
    lv_file *f = malloc(sizeof *f);
    lv_view *v = malloc(sizeof *v);

    if (!f || !v) { th_check("live: memory for the tests", 0); free(f); free(v); return; }
    live_roundtrip(f, v);
    live_refused(f, v);
    live_ring(f, v);
    live_killed(v);
    live_race(f, v);
    free(f);
    free(v);
}
