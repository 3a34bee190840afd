/* ptree.c: the process tree of a user's program: a child subreaper, /proc
 * read for new processes, every descendant killed and named at the end. */
#include "os/ptree.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every process seen since pt_begin, by pid (open addressing, on the
 * heap, doubled as the tree grows): its start time, its /proc entry's
 * inode, and whether it is of the tree. Processes not of the tree are
 * noted so that /proc/PID/stat is read once per process, not once per
 * pass. A pid is used again once its process is gone (pid_max is often
 * 32,768: a busy machine wraps it in seconds), and a process on it gets a
 * /proc entry of another inode: where the inode read differs from the
 * slot's, the stat is read again, and a start time that differs too is a
 * new process, classified afresh (the same inode for a new process would
 * take about 2^32 entries made between two reads). */
#define PT_HASH0 65536
enum { PT_EMPTY, PT_TREE, PT_OTHER };
typedef struct pt_slot {
    int pid;
    int cls;
    unsigned long long start;
    unsigned long ino;       /* 0: not known (noted from a stat, not /proc's listing) */
    int was_tree;            /* 1: a process of the tree had this pid (pt_known) */
} pt_slot;

/* A descendant: its pid, start time, whether it was named as killed. */
typedef struct pt_desc {
    int pid;
    unsigned long long start;
    int named;
} pt_desc;

static pthread_mutex_t pt_mu = PTHREAD_MUTEX_INITIALIZER;
static pt_slot *pt_tab;
static size_t pt_cap, pt_used, pt_ntree;
static pt_desc *pt_desc_of;
static size_t pt_n, pt_ndesc;
static int pt_over;
static pid_t pt_first, pt_self;
static unsigned long long pt_first_start;   /* its start time: its pid may be used again */
static int pt_initial;            /* 1 while pt_begin notes what runs already */
/* The descendants' pids again, for pt_kill_now (a signal handler) and the
 * sentinel (below), in memory shared with the sentinel: whether a tree is
 * running ('r') or ended ('d'), its first process's group, the pids (room
 * for PT_MAX in a mapping whose pages are touched only as pids come; where
 * it cannot be made, PT_LOCAL in this process alone). */
#define PT_LOCAL 4096
typedef struct pt_shared {
    atomic_int group;
    atomic_size_t n;
    size_t cap;
    atomic_int *pid;
} pt_shared;
static atomic_int pt_local_pid[PT_LOCAL];
static pt_shared pt_local = { .cap = PT_LOCAL, .pid = pt_local_pid };
static pt_shared *pt_sh = &pt_local;
/* The sentinel: a process of this one, started at the first pt_begin,
 * that outlives it: it reads a pipe whose other end only this process
 * holds; at its end of file (this process ended, SIGKILL included) with a
 * tree running, it kills every process of the tree it was told of, and
 * its group, and the registered directories go (pt_on_abandon). */
static pid_t pt_sentinel_pid;
static int pt_sentinel_fd = -1;
static void (*pt_abandon_fn)(void);
static void pt_sentinel_start(void);
static void pt_tell(char c);
/* A process of this one's own beside the tree (pt_spare), and its wait
 * status once the reader reaped it (spared_done 1). */
static atomic_int pt_spared_pid, pt_spared_status, pt_spared_done;
static pthread_t pt_th;
static int pt_running;
static atomic_int pt_quit;
/* One process's /proc/PID/stat: its parent, start time (clock ticks since
 * boot), state letter and name (comm). Returns 0, or -1 when it is gone. */
static int pt_stat(int pid, int *ppid, unsigned long long *start, char *state, char *comm,
                   size_t commlen)
{
    char path[64], buf[1024], *open_paren, *close_paren, *p;
    ssize_t n;
    int fd, field;

    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    /* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
    if (!(open_paren = strchr(buf, '(')) || !(close_paren = strrchr(buf, ')'))) return -1;
    if (comm) {
        size_t len = (size_t)(close_paren - open_paren - 1);
        if (len >= commlen) len = commlen - 1;
        memcpy(comm, open_paren + 1, len);
        comm[len] = '\0';
    }
    p = close_paren + 1;
    if (sscanf(p, " %c %d", state, ppid) != 2) return -1;
    /* Field 22 (starttime), counting the pid as field 1. */
    for (field = 3; field < 22 && p; field++) p = strchr(p + 1, ' ');
    if (!p || sscanf(p, " %llu", start) != 1) return -1;
    return 0;
}

static size_t pt_hash(int pid)
{
    return ((size_t)(unsigned)pid * 2654435761u) & (pt_cap - 1);
}

/* The slot of pid, or the empty one where it would go. */
static pt_slot *pt_slot_of(int pid)
{
    size_t h = pt_hash(pid);
    while (pt_tab[h].cls != PT_EMPTY && pt_tab[h].pid != pid) h = (h + 1) & (pt_cap - 1);
    return &pt_tab[h];
}

/* The table made anew with cap slots (a power of two), keeping the
 * tree's entries (those whose pid a process of the tree had, too) and
 * forgetting the others (read again if seen). Returns
 * 0, or -1 when memory is short (the old table kept). */
static int pt_rehash(size_t cap)
{
    pt_slot *old = pt_tab, *t = calloc(cap, sizeof *t);
    size_t i, oldcap = pt_cap;
    if (!t) return -1;
    pt_tab = t;
    pt_cap = cap;
    pt_used = 0;
    for (i = 0; old && i < oldcap; i++)
        if (old[i].cls == PT_TREE || old[i].was_tree) {
            *pt_slot_of(old[i].pid) = old[i];
            pt_used++;
        }
    free(old);
    return 0;
}

/* Room for one more entry in the table: at three quarters full, the
 * processes not of the tree forgotten, and the table doubled where the
 * tree alone fills half of it. Returns 0, or -1 (memory short: pt_over). */
static int pt_room(void)
{
    if (pt_used < pt_cap / 4 * 3) return 0;
    if (pt_rehash(pt_ntree >= pt_cap / 2 ? pt_cap * 2 : pt_cap) == 0) return 0;
    pt_over = 1;
    return -1;
}

/* One more descendant in pt_desc_of and the shared list. Returns 0, or -1
 * (no room: pt_over). */
static int pt_add_desc(int pid, unsigned long long start)
{
    size_t n = atomic_load(&pt_sh->n);
    if (pt_n == pt_ndesc) {
        size_t want = pt_ndesc ? pt_ndesc * 2 : 1024;
        pt_desc *d = want <= PT_MAX ? realloc(pt_desc_of, want * sizeof *d) : NULL;
        if (!d) return -1;
        pt_desc_of = d;
        pt_ndesc = want;
    }
    if (n >= pt_sh->cap) return -1;
    pt_desc_of[pt_n].pid = pid;
    pt_desc_of[pt_n].start = start;
    pt_desc_of[pt_n++].named = 0;
    atomic_store(&pt_sh->pid[n], pid);
    atomic_fetch_add(&pt_sh->n, 1);
    return 0;
}

/* Note pid as cls, its /proc entry's inode ino (0: not known). */
static void pt_note(int pid, int cls, unsigned long long start, unsigned long ino)
{
    pt_slot *s = pt_slot_of(pid);
    if (s->cls == PT_EMPTY) {
        if (pt_room() != 0) return;
        s = pt_slot_of(pid);
        pt_used++;
    }
    if (ino) s->ino = ino;
    if (s->cls == PT_TREE && cls == PT_TREE && s->start == start) return;
    s->pid = pid;
    s->cls = cls;
    s->start = start;
    if (cls != PT_TREE) return;
    s->was_tree = 1;
    pt_ntree++;
    if (pt_add_desc(pid, start) != 0) pt_over = 1;
}

/* Classify pid, whose /proc entry has inode ino (0: not read from the
 * listing): a process seen before under that inode as it was; else its
 * stat read, and a process not seen before (a new pid, or a pid used again
 * by another process) classified by its parent, which is classified first
 * when it is new too (depth bounds a chain of new processes). */
static int pt_classify(int pid, unsigned long ino, int depth)
{
    pt_slot *s = pt_slot_of(pid);
    unsigned long long start;
    char state;
    int ppid, cls;

    if (s->cls != PT_EMPTY && ino && s->ino == ino) return s->cls;
    if (pt_stat(pid, &ppid, &start, &state, NULL, 0) != 0) return s->cls;
    if (s->cls != PT_EMPTY && s->start == start) {
        if (ino) s->ino = ino;
        return s->cls;
    }
    if (pt_initial || pid == pt_sentinel_pid || pid == atomic_load(&pt_spared_pid)) cls = PT_OTHER;
    else if ((pid == pt_first && start == pt_first_start) || ppid == pt_self) cls = PT_TREE;
    else if (ppid <= 1 || depth > 64) cls = PT_OTHER;
    else cls = pt_classify(ppid, 0, depth + 1);
    /* A parent that ended between the two reads: this process has been
     * handed to its new parent (this one, where it is of the tree); it is
     * classified on the next read, not now. */
    if (cls == PT_EMPTY) return PT_EMPTY;
    pt_note(pid, cls, start, ino);
    return cls;
}

/* Read /proc: every process not seen before classified. Under pt_mu. */
static void pt_read_proc(void)
{
    DIR *d;
    struct dirent *e;
    if (!pt_tab || !(d = opendir("/proc"))) return;
    while ((e = readdir(d))) {
        char *end;
        long pid;
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid > 0x7fffffff) continue;
        pt_classify((int)pid, (unsigned long)e->d_ino, 0);
    }
    closedir(d);
}

/* Descendant d is alive (not a zombie) as the same process. */
static int pt_alive(const pt_desc *d, char *comm, size_t commlen)
{
    unsigned long long start;
    char state;
    int ppid;
    if (pt_stat(d->pid, &ppid, &start, &state, comm, commlen) != 0) return 0;
    return start == d->start && state != 'Z' && state != 'X';
}

/* Reap pid, a child of this process that ended (waitid says so): a
 * descendant handed to it is known as of the tree; the spared process's
 * status is kept for pt_spared. Under pt_mu. Returns 1 when reaped. */
static int pt_reaped(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) != pid) return 0;
    if (!pt_tab) return 1;
    if (pid == atomic_load(&pt_spared_pid)) {
        atomic_store(&pt_spared_status, status);
        atomic_store(&pt_spared_done, 1);
    } else if (pid != pt_sentinel_pid && pt_slot_of(pid)->cls != PT_TREE) {
        pt_note(pid, PT_TREE, 0, 0);
    }
    return 1;
}

void pt_spare(pid_t pid)
{
    pthread_mutex_lock(&pt_mu);
    atomic_store(&pt_spared_done, 0);
    atomic_store(&pt_spared_pid, (int)pid);
    pthread_mutex_unlock(&pt_mu);
}

int pt_spared(pid_t pid, int *status)
{
    int done;
    pthread_mutex_lock(&pt_mu);
    done = pid > 0 && atomic_load(&pt_spared_pid) == (int)pid && atomic_load(&pt_spared_done);
    if (done) *status = atomic_load(&pt_spared_status);
    pthread_mutex_unlock(&pt_mu);
    return done;
}

/* Reap the descendants handed to this process that ended, as long as the
 * next one to reap is not the first process (its owner reaps it; those
 * behind it wait for pt_kill_all). Under pt_mu. */
static void pt_reap(void)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid <= 0 ||
            si.si_pid == pt_first)
            return;
        if (!pt_reaped(si.si_pid)) return;
    }
}

size_t pt_scan(void)
{
    size_t i, live = 0;
    pthread_mutex_lock(&pt_mu);
    pt_read_proc();
    pt_reap();
    for (i = 0; i < pt_n; i++) live += (size_t)pt_alive(&pt_desc_of[i], NULL, 0);
    pthread_mutex_unlock(&pt_mu);
    return live;
}

static void *pt_loop(void *unused)
{
    struct timespec ts = { 0, PT_SCAN_MS * 1000000L };
    (void)unused;
    while (!atomic_load(&pt_quit)) {
        pthread_mutex_lock(&pt_mu);
        pt_read_proc();
        pt_reap();
        pthread_mutex_unlock(&pt_mu);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int pt_begin(char *why, size_t whylen)
{
    static int reaper;
    pt_stop();
    if (!reaper) {
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
            snprintf(why, whylen, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
            return -1;
        }
        reaper = 1;
    }
    pt_sentinel_start();
    pthread_mutex_lock(&pt_mu);
    free(pt_tab);
    pt_tab = NULL;
    pt_cap = 0;
    if (pt_rehash(PT_HASH0) != 0) {
        pthread_mutex_unlock(&pt_mu);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    pt_ntree = pt_n = 0;
    pt_over = 0;
    pt_first = 0;
    pt_self = getpid();
    atomic_store(&pt_sh->n, 0);
    atomic_store(&pt_sh->group, 0);
    /* What runs now is not of the tree. */
    pt_initial = 1;
    pt_read_proc();
    pt_initial = 0;
    pthread_mutex_unlock(&pt_mu);
    return 0;
}

int pt_root(pid_t pid, char *why, size_t whylen)
{
    unsigned long long start = 0;
    char state;
    int ppid, err;
    pthread_mutex_lock(&pt_mu);
    pt_first = pid;
    if (pt_stat(pid, &ppid, &start, &state, NULL, 0) != 0) start = 0;
    pt_first_start = start;
    pt_note(pid, PT_TREE, start, 0);
    atomic_store(&pt_sh->group, pid);
    pthread_mutex_unlock(&pt_mu);
    pt_tell('r');
    atomic_store(&pt_quit, 0);
    if ((err = pthread_create(&pt_th, NULL, pt_loop, NULL)) != 0) {
        snprintf(why, whylen, "pthread_create: %s", strerror(err));
        return -1;
    }
    pt_running = 1;
    return 0;
}

int pt_known(long pid)
{
    int yes;
    if (pid <= 0 || pid > 0x7fffffff) return 0;
    pthread_mutex_lock(&pt_mu);
    yes = pt_tab && (pt_slot_of((int)pid)->cls == PT_TREE || pt_slot_of((int)pid)->was_tree);
    pthread_mutex_unlock(&pt_mu);
    return yes;
}

int pt_overflow(void)
{
    int o;
    pthread_mutex_lock(&pt_mu);
    o = pt_over;
    pthread_mutex_unlock(&pt_mu);
    return o;
}

void pt_stop(void)
{
    if (!pt_running) return;
    atomic_store(&pt_quit, 1);
    pthread_join(pt_th, NULL);
    pt_running = 0;
}

/* Descendant d named into names at *at ("pid 4242 (sleep)"), while
 * RESERVE bytes are left for the count of those not named; else counted
 * in *more. */
#define PT_RESERVE 40
static void pt_name(const pt_desc *d, const char *comm, char *names, size_t len, size_t *at,
                    size_t *more)
{
    int w;
    if (len < PT_RESERVE || *at + PT_RESERVE >= len ||
        (w = snprintf(names + *at, len - PT_RESERVE - *at, "%spid %d (%s)", *at ? ", " : "", d->pid,
                      comm)) < 0 || *at + (size_t)w >= len - PT_RESERVE) {
        if (len >= PT_RESERVE && *at < len) names[*at] = '\0';
        ++*more;
        return;
    }
    *at += (size_t)w;
}

/* One pass: /proc read, every live descendant named (before any is
 * killed: a killed one is a zombie, its name gone with it), then killed,
 * with the group; those handed to this process reaped. Under pt_mu.
 * Returns 1 when one was alive. */
static int pt_kill_pass(pid_t group, char *names, size_t len, size_t *at, size_t *more, size_t *killed)
{
    size_t i;
    int live = 0;
    pt_read_proc();
    for (i = 0; i < pt_n; i++) {
        pt_desc *d = &pt_desc_of[i];
        char comm[64];
        if (!pt_alive(d, comm, sizeof comm)) continue;
        live = 1;
        if (d->named) continue;
        d->named = 1;
        ++*killed;
        pt_name(d, comm, names, len, at, more);
    }
    if (group > 0) kill(-group, SIGKILL);
    for (i = 0; i < pt_n; i++)
        if (pt_alive(&pt_desc_of[i], NULL, 0)) kill(pt_desc_of[i].pid, SIGKILL);
    /* Those handed to this process: reaped, and known (one that ended
     * between two reads of /proc is learnt here). */
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid <= 0 ||
            !pt_reaped(si.si_pid))
            break;
    }
    return live;
}

size_t pt_kill_all(pid_t group, char *names, size_t len)
{
    struct timespec ts = { 0, 2000000L };
    size_t killed = 0, at = 0, more = 0;
    int pass, live = 1;

    if (len) names[0] = '\0';
    for (pass = 0; pass < 500 && live; pass++) {
        pthread_mutex_lock(&pt_mu);
        live = pt_kill_pass(group, names, len, &at, &more, &killed);
        pthread_mutex_unlock(&pt_mu);
        if (live) nanosleep(&ts, NULL);
    }
    if (more && len >= PT_RESERVE)
        snprintf(names + at, len - at, "%sand %zu more", at ? ", " : "", more);
    if (!live) pt_tell('d');
    return killed;
}

/* Kill every process of the tree in sh, by pid, and its group: async-
 * signal-safe. */
static void pt_kill_shared(pt_shared *sh)
{
    size_t i, n = atomic_load(&sh->n);
    int group = atomic_load(&sh->group);
    if (group > 1) kill(-group, SIGKILL);
    for (i = 0; i < n && i < sh->cap; i++) {
        int pid = atomic_load(&sh->pid[i]);
        if (pid > 1) kill(pid, SIGKILL);
    }
}

void pt_kill_now(void)
{
    pt_kill_shared(pt_sh);
}

void pt_on_abandon(void (*fn)(void))
{
    pt_abandon_fn = fn;
}

/* Tell the sentinel a tree runs ('r') or ended ('d'). */
static void pt_tell(char c)
{
    ssize_t n;
    if (pt_sentinel_fd < 0) return;
    while ((n = write(pt_sentinel_fd, &c, 1)) < 0 && errno == EINTR)
        continue;
}

/* The sentinel's life, in a child of a process with threads: async-
 * signal-safe calls only. Its own process group (a signal to the
 * harness's group is not for it), stdin, stdout and stderr on /dev/null
 * (a reader of the harness's output sees its end when the harness ends),
 * every other descriptor but the pipe closed. */
static _Noreturn void pt_sentinel(int rfd)
{
    struct timespec ts = { 0, 2000000L };
    char c, state = 'd';
    ssize_t n;
    int fd, pass;

    setpgid(0, 0);
    if ((fd = open("/dev/null", O_RDWR)) >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
    }
    for (fd = 3; fd < 4096; fd++)
        if (fd != rfd) close(fd);
    for (;;) {
        n = read(rfd, &c, 1);
        if (n == 1) state = c;
        else if (n < 0 && errno == EINTR) continue;
        else break;
    }
    if (state == 'r') {
        /* A few passes: a process that forks meanwhile is caught. */
        for (pass = 0; pass < 20; pass++) {
            pt_kill_shared(pt_sh);
            nanosleep(&ts, NULL);
        }
    }
    /* After an ordinary end nothing is left to remove: harmless. */
    if (pt_abandon_fn) pt_abandon_fn();
    _exit(0);
}

/* Start the sentinel (once): the shared memory, the pipe, the fork. A
 * sentinel that cannot start leaves SIGKILL's guarantee to PR_SET_PDEATHSIG
 * alone (said in why; not an error). */
static void pt_sentinel_start(void)
{
    int p[2];
    pid_t pid;
    void *m;
    if (pt_sentinel_pid) return;
    m = mmap(NULL, sizeof *pt_sh + PT_MAX * sizeof(atomic_int), PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return;
    pt_sh = m;
    pt_sh->cap = PT_MAX;
    pt_sh->pid = (atomic_int *)(void *)((char *)m + sizeof *pt_sh);
    if (pipe2(p, O_CLOEXEC) != 0) return;
    if ((pid = fork()) < 0) {
        close(p[0]);
        close(p[1]);
        return;
    }
    if (pid == 0) {
        close(p[1]);
        pt_sentinel(p[0]);
    }
    close(p[0]);
    pt_sentinel_pid = pid;
    pt_sentinel_fd = p[1];
}
