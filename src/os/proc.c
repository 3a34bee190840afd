/* proc.c: the harness as its own child (posix_spawn, a pipe, waitpid); a
 * user's program (fork and execve, its process tree: ptree.h). */
#include "os/proc.h"

#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>

#include "os/clock.h"
#include "os/ptree.h"
#include "os/sig.h"
#include "os/ufile.h"

extern char **environ;

/* The temporary directories pr_mkdtemp made and pr_rmtree has not removed,
 * for pr_cleanup when a run is stopped and pr_cleanup_now when it ends at
 * once. A slot's name is written before pr_live[slot] is set and read only
 * while it is set (the signal thread reads them). */
#define PR_MAXDIRS 16
typedef struct pr_dirset {
    char dirs[PR_MAXDIRS][512];
    atomic_int live[PR_MAXDIRS];
} pr_dirset;
static pr_dirset pr_local;
/* In memory shared with ptree.h's sentinel once a program is run
 * (pr_share_dirs), so that it removes them when this process is killed. */
static pr_dirset *_Atomic pr_set = &pr_local;
#define pr_dirs (atomic_load(&pr_set)->dirs)
#define pr_live (atomic_load(&pr_set)->live)

/* The child being waited on, for pr_kill_child (0: none); atomic: the
 * signal thread reads it. */
static atomic_int pr_child;

/* The process group of the program pr_run_program runs (0: none). */
static atomic_int pr_group;

void pr_kill_child(void)
{
    pid_t pid = (pid_t)atomic_load(&pr_child);
    pid_t group = (pid_t)atomic_load(&pr_group);
    if (pid > 0) kill(pid, SIGKILL);
    if (group > 0) kill(-group, SIGKILL);
    if (group > 0) pt_kill_now();
}

/* poll fds[0 .. 1) and the signal's wake-up descriptor, for at most ms;
 * returns what poll returns, fds[0].revents set. */
static int pr_poll(struct pollfd *fd, int ms)
{
    struct pollfd p[2];
    int n = 1, rc;
    p[0] = *fd;
    p[1].fd = sg_wake_fd();
    p[1].events = POLLIN;
    p[1].revents = 0;
    if (p[1].fd >= 0) n = 2;
    rc = poll(p, (nfds_t)n, ms);
    fd->revents = p[0].revents;
    return rc;
}

/* Wait for child pid to exit, within deadline (clk_now_ms), reading the
 * signal flag while waiting: on a pending signal or at the deadline the
 * child is killed (SIGKILL; *timed_out set at the deadline). The wait polls
 * a pidfd where the kernel has them, so it wakes when the child exits (or
 * a signal comes); then reaps it with waitpid. Returns waitpid's status. */
/* Wait on a pidfd of pid until it is readable (pid exited), the deadline
 * (clk_now_ms; *timed_out set) or a pending signal; at either of the last
 * two, kill(target, SIGKILL): pid itself, or -pid for its group. Returns 0
 * after such a wait, -1 where the kernel has no pidfds (nothing waited). */
static int pr_pidfd_wait(pid_t pid, pid_t target, double deadline, int *timed_out)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        for (;;) {
            struct pollfd pfd = { fd, POLLIN, 0 };
            double left = deadline - clk_now_ms();
            if (sg_pending() || left <= 0) {
                if (left <= 0 && !sg_pending()) *timed_out = 1;
                kill(target, SIGKILL);
                break;
            }
            if (pr_poll(&pfd, left > 1000 ? 1000 : (int)left + 1) > 0 && pfd.revents) break;
        }
        close(fd);
        return 0;
    }
#else
    (void)pid;
    (void)target;
    (void)deadline;
    (void)timed_out;
#endif
    return -1;
}

static int pr_wait(pid_t pid, double deadline, int *timed_out)
{
    int status = 0, killed = 0;

    pr_pidfd_wait(pid, pid, deadline, timed_out);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 0;
            break;
        }
        if (sg_pending() && !killed) {
            kill(pid, SIGKILL);
            killed = 1;
        }
    }
    atomic_store(&pr_child, 0);
    return status;
}

/* Build the child's environment: ours, with set_env's names replaced
 * ("NAME=VALUE") or removed ("NAME"). */
static char **pr_env(const char *const *set_env, size_t nset)
{
    size_t n = 0, i, j, k = 0;
    char **env;

    while (environ[n]) n++;
    env = calloc(n + nset + 1, sizeof *env);
    if (!env) return NULL;
    for (i = 0; i < n; i++) {
        int replaced = 0;
        for (j = 0; j < nset; j++) {
            const char *eq = strchr(set_env[j], '=');
            size_t len = eq ? (size_t)(eq - set_env[j]) : strlen(set_env[j]);
            if (strncmp(environ[i], set_env[j], len) == 0 && environ[i][len] == '=') replaced = 1;
        }
        if (!replaced) env[k++] = environ[i];
    }
    for (j = 0; j < nset; j++)
        if (strchr(set_env[j], '=')) env[k++] = (char *)(uintptr_t)set_env[j];
    env[k] = NULL;
    return env;
}

/* The variable every copy of this program gets (pr_self_env), or "". */
static char pr_self_kv[1024];

int pr_self_env(const char *kv)
{
    if (!kv) {
        pr_self_kv[0] = '\0';
        return 0;
    }
    if (!strchr(kv, '=') || strlen(kv) >= sizeof pr_self_kv) return -1;
    memcpy(pr_self_kv, kv, strlen(kv) + 1);
    return 0;
}

/* pr_env for a copy of this program: set_env, then pr_self_env's variable
 * (set_env's own setting of it wins). */
static char **pr_self_envp(const char *const *set_env, size_t nset)
{
    const char **all;
    char **env;
    size_t i, len = strcspn(pr_self_kv, "=");
    int given = 0;

    if (!pr_self_kv[0]) return pr_env(set_env, nset);
    for (i = 0; i < nset; i++)
        if (strncmp(set_env[i], pr_self_kv, len) == 0 && (set_env[i][len] == '=' || !set_env[i][len]))
            given = 1;
    if (given) return pr_env(set_env, nset);
    if (!(all = calloc(nset + 1, sizeof *all))) return NULL;
    for (i = 0; i < nset; i++) all[i] = set_env[i];
    all[nset] = pr_self_kv;
    env = pr_env(all, nset + 1);
    free(all);
    return env;
}

/* The command of a copy of this program: its path (/proc/self/exe) into
 * exe (PR_EXE bytes), *argv (exe, then args, then room for extra more and
 * the NULL; calloc'd) and *env (pr_self_envp's). Returns 0, or -1 with why
 * (the caller frees *argv and *env either way). */
#define PR_EXE 4096
static int pr_self_command(char *exe, const char *const *args, size_t nargs, size_t extra,
                           const char *const *set_env, size_t nset, char ***argv, char ***env,
                           char *why, size_t whylen)
{
    ssize_t len = readlink("/proc/self/exe", exe, PR_EXE - 1);
    size_t i;

    *argv = NULL;
    *env = NULL;
    if (len < 0) {
        snprintf(why, whylen, "readlink /proc/self/exe: %s", strerror(errno));
        return -1;
    }
    exe[len] = '\0';
    *argv = calloc(nargs + 2 + extra, sizeof **argv);
    *env = pr_self_envp(set_env, nset);
    if (!*argv || !*env) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    (*argv)[0] = exe;
    for (i = 0; i < nargs; i++) (*argv)[i + 1] = (char *)(uintptr_t)args[i];
    return 0;
}

/* The spawn's file actions into *fa (stdout to pipefd[1], both ends of
 * the pipe closed in the child) and attributes into *sa (the signal mask
 * this process started with, not the one sg_install set: SIGINT and
 * SIGTERM blocked); *fa_init and *sa_init set as each is initialised (for
 * the caller to destroy). Returns 0, or -1 with why. */
static int pr_spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *sa, const int pipefd[2],
                          int *fa_init, int *sa_init, char *why, size_t whylen)
{
    sigset_t mask;
    int err;

    if ((err = posix_spawn_file_actions_init(fa)) != 0) {
        snprintf(why, whylen, "posix_spawn_file_actions_init: %s", strerror(err));
        return -1;
    }
    *fa_init = 1;
    if ((err = posix_spawn_file_actions_adddup2(fa, pipefd[1], STDOUT_FILENO)) != 0 ||
        (err = posix_spawn_file_actions_addclose(fa, pipefd[0])) != 0 ||
        (err = posix_spawn_file_actions_addclose(fa, pipefd[1])) != 0) {
        snprintf(why, whylen, "posix_spawn_file_actions: %s", strerror(err));
        return -1;
    }
    sg_child_mask(&mask);
    if ((err = posix_spawnattr_init(sa)) != 0) {
        snprintf(why, whylen, "posix_spawnattr_init: %s", strerror(err));
        return -1;
    }
    *sa_init = 1;
    if ((err = posix_spawnattr_setsigmask(sa, &mask)) != 0 ||
        (err = posix_spawnattr_setflags(sa, POSIX_SPAWN_SETSIGMASK)) != 0) {
        snprintf(why, whylen, "posix_spawnattr: %s", strerror(err));
        return -1;
    }
    return 0;
}

/* Child pid's stdout, read from fd into res->out (grown as it comes) until
 * its end (res->eof_ms), deadline (clk_now_ms; the child killed,
 * res->timed_out), a pending signal or out of memory (the child killed). */
static void pr_collect(pid_t pid, int fd, double deadline, pr_result *res)
{
    size_t cap = 0;
    ssize_t len;

    for (;;) {
        struct pollfd pfd = { fd, POLLIN, 0 };
        double left = deadline - clk_now_ms();
        int pr;
        if (sg_pending()) {
            kill(pid, SIGKILL);
            break;
        }
        if (left <= 0) {
            kill(pid, SIGKILL);
            res->timed_out = 1;
            break;
        }
        pr = pr_poll(&pfd, left > 1000 ? 1000 : (int)left + 1);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0 || !pfd.revents) continue;
        if (res->outlen + 4097 > cap) {
            char *p = realloc(res->out, cap ? cap * 2 : 8192);
            if (!p) {
                kill(pid, SIGKILL);
                break;
            }
            res->out = p;
            cap = cap ? cap * 2 : 8192;
        }
        len = read(fd, res->out + res->outlen, cap - res->outlen - 1);
        if (len < 0 && errno == EINTR) continue;
        if (len <= 0) {
            res->eof_ms = (double)(clk_now_ns() - res->t0_ns) / 1e6;
            break;
        }
        res->outlen += (size_t)len;
    }
}

int pr_run_self(const char *const *args, size_t nargs, const char *const *set_env,
                size_t nset, double timeout_s, pr_result *res, char *why, size_t whylen)
{
    char exe[PR_EXE], t0arg[64];
    char **argv = NULL, **env = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t sa;
    int sa_init = 0, fa_init = 0, pipefd[2] = { -1, -1 }, status = 0, err, rc = -1;
    pid_t pid = -1;
    double deadline;

    memset(res, 0, sizeof *res);
    if (pr_self_command(exe, args, nargs, 1, set_env, nset, &argv, &env, why, whylen) != 0)
        goto out;
    argv[nargs + 1] = t0arg;
    if (pipe(pipefd) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        goto out;
    }
    if (pr_spawn_setup(&fa, &sa, pipefd, &fa_init, &sa_init, why, whylen) != 0) goto out;
    fflush(NULL);
    res->t0_ns = clk_now_ns();
    snprintf(t0arg, sizeof t0arg, "--child-t0=%lld", res->t0_ns);
    err = posix_spawn(&pid, exe, &fa, &sa, argv, env);
    if (err != 0) {
        snprintf(why, whylen, "posix_spawn %s: %s", exe, strerror(err));
        pid = -1;
        goto out;
    }
    atomic_store(&pr_child, (int)pid);
    close(pipefd[1]);
    pipefd[1] = -1;
    deadline = clk_now_ms() + timeout_s * 1000.0;
    pr_collect(pid, pipefd[0], deadline, res);
    status = pr_wait(pid, deadline, &res->timed_out);
    res->ms = (double)(clk_now_ns() - res->t0_ns) / 1e6;
    res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (!res->out) {
        res->out = malloc(1);
        if (!res->out) {
            snprintf(why, whylen, "out of memory");
            goto out;
        }
    }
    res->out[res->outlen] = '\0';
    rc = 0;
out:
    if (fa_init) posix_spawn_file_actions_destroy(&fa);
    if (sa_init) posix_spawnattr_destroy(&sa);
    if (pipefd[0] >= 0) close(pipefd[0]);
    if (pipefd[1] >= 0) close(pipefd[1]);
    free(argv);
    free(env);
    if (rc != 0 || sg_pending()) {
        free(res->out);
        res->out = NULL;
    }
    /* A signal came while the child ran: it is killed and reaped; stop. */
    sg_check();
    return rc;
}

/* The helper's side of pr_start_self, between fork and execve (async-
 * signal-safe calls only). */
static _Noreturn void pr_helper_exec(const char *exe, char *const *argv, char *const *env, pid_t parent,
                                     const sigset_t *mask, int fd)
{
    int null, i;
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) _exit(127);
    sigprocmask(SIG_SETMASK, mask, NULL);
    /* dup2 onto itself leaves close-on-exec set: cleared either way. */
    if ((fd != 3 && dup2(fd, 3) < 0) || fcntl(3, F_SETFD, 0) != 0) _exit(127);
    if ((null = open("/dev/null", O_RDWR)) < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
        dup2(null, 2) < 0)
        _exit(127);
    for (i = 4; i < 4096; i++) close(i);
    execve(exe, argv, env);
    _exit(127);
}

int pr_start_self(const char *const *args, size_t nargs, const char *const *set_env, size_t nset,
                  int fd, char *why, size_t whylen)
{
    char exe[PR_EXE];
    char **argv = NULL, **env = NULL;
    sigset_t mask;
    pid_t pid = -1, parent = getpid();

    if (pr_self_command(exe, args, nargs, 0, set_env, nset, &argv, &env, why, whylen) != 0)
        goto out;
    sg_child_mask(&mask);
    fflush(NULL);
    if ((pid = fork()) < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) pr_helper_exec(exe, argv, env, parent, &mask, fd);
    setpgid(pid, pid);
out:
    free(argv);
    free(env);
    return (int)pid;
}

/* In the child between fork and execve (async-signal-safe calls only): a
 * process group of its own, killed by the kernel when the thread that
 * forked it ends (PR_SET_PDEATHSIG: the harness killed with SIGKILL), the
 * signal mask this process started with, stdin from /dev/null, stdout and
 * stderr to the files opened; execve's error into the pipe. */
static _Noreturn void pr_exec_child(const char *path, char *const *argv, char *const *env,
                                    pid_t parent, const sigset_t *mask, int out, int err,
                                    int report)
{
    int fd, e;
    ssize_t n;
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) _exit(127);
    sigprocmask(SIG_SETMASK, mask, NULL);
    fd = open("/dev/null", O_RDONLY);
    if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        dup2(err, STDERR_FILENO) < 0)
        goto fail;
    execve(path, argv, env);
fail:
    e = errno;
    n = write(report, &e, sizeof e);
    (void)n;
    _exit(127);
}

/* Start the program: its output files created anew (uf_create: a FIFO left
 * there by an earlier run is not waited on), fork, execve in the child; the
 * tree begun (ptree.h) before the fork; the spawn time into *t0_ns and, with
 * t0_env, "<t0_env>=<ns>" into t0var (a string env holds). Returns the pid, or -1 with why
 * (execve's own error included, read back through a close-on-exec pipe). */
static pid_t pr_start(const char *path, char *const *argv, char *const *env, const char *out_path,
                      const char *err_path, long long *t0_ns, const char *t0_env, char *t0var,
                      size_t t0len, char *why, size_t whylen)
{
    int out = -1, err = -1, report[2] = { -1, -1 }, e = 0;
    pid_t pid = -1, parent = getpid();
    sigset_t mask;
    ssize_t n;

    if ((out = uf_create(out_path)) < 0 || (err = uf_create(err_path)) < 0) {
        snprintf(why, whylen, "cannot create %s: %s", out < 0 ? out_path : err_path, strerror(errno));
        goto out;
    }
    if (pipe2(report, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        goto out;
    }
    if (pt_begin(why, whylen) != 0) goto out;
    sg_child_mask(&mask);
    fflush(NULL);
    *t0_ns = clk_now_ns();
    /* env holds t0var itself: the child's copy is made at the fork. */
    if (t0_env) snprintf(t0var, t0len, "%s=%lld", t0_env, *t0_ns);
    if ((pid = fork()) < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) pr_exec_child(path, argv, env, parent, &mask, out, err, report[1]);
    setpgid(pid, pid);
    close(report[1]);
    report[1] = -1;
    while ((n = read(report[0], &e, sizeof e)) < 0 && errno == EINTR)
        continue;
    if (n == (ssize_t)sizeof e) {
        snprintf(why, whylen, "execve %s: %s", path, strerror(e));
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            continue;
        pid = -1;
        goto out;
    }
    if (pt_root(pid, why, whylen) != 0)
        fprintf(stderr, "harness: the program's processes are read at its end only: %s\n", why);
out:
    if (out >= 0) close(out);
    if (err >= 0) close(err);
    if (report[0] >= 0) close(report[0]);
    if (report[1] >= 0) close(report[1]);
    return pid;
}

/* Wait for the program's main process pid: until its pidfd is readable
 * (exit), the deadline (its group killed, *timed_out set) or a signal
 * (its group killed). Returns the ms from t0_ns to its exit, measured
 * before it is reaped. */
static double pr_program_wait(pid_t pid, long long t0_ns, double deadline, int *timed_out)
{
    if (pr_pidfd_wait(pid, -pid, deadline, timed_out) == 0)
        return (double)(clk_now_ns() - t0_ns) / 1e6;
    /* No pidfd: poll every millisecond. */
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            break;
        if (sg_pending() || clk_now_ms() >= deadline) {
            if (!sg_pending()) *timed_out = 1;
            kill(-pid, SIGKILL);
            break;
        }
        usleep(1000);
    }
    return (double)(clk_now_ns() - t0_ns) / 1e6;
}

/* Reap the main process pid (its status and rusage), then give the rest
 * of its tree (ptree.h: its group, and what left it) 2 s to end, none
 * after a time limit or a signal; then kill every process of it still
 * there, named into res. */
static void pr_program_reap(pid_t pid, int *status, struct rusage *ru, pr_program *res)
{
    double until;
    while (wait4(pid, status, 0, ru) < 0) {
        if (errno != EINTR) {
            *status = 0;
            break;
        }
    }
    until = clk_now_ms() + 2000.0;
    while (!res->timed_out && !sg_pending() && clk_now_ms() < until && pt_scan() > 0)
        usleep(5000);
    pt_stop();
    res->stragglers = (int)pt_kill_all(pid, res->straggler_names, sizeof res->straggler_names);
    res->overflow = pt_overflow();
}

/* The temporary directories moved into shared memory (once), and the
 * sentinel told to remove them (ptree.h), before the first program runs. */
static void pr_share_dirs(void)
{
    static int shared;
    pr_dirset *m;
    if (shared) return;
    shared = 1;
    m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    memcpy(m, &pr_local, sizeof *m);
    atomic_store(&pr_set, m);
    pt_on_abandon(pr_cleanup_now);
}

int pr_run_program(const char *path, const char *const *argv, const char *const *set_env,
                   size_t nset, const char *t0_env, const char *out_path, const char *err_path,
                   double timeout_s, void (*spawned)(int pid, void *arg), void *arg,
                   pr_program *res, char *why, size_t whylen)
{
    char **env = NULL;
    const char **all = NULL;
    char t0var[128];
    int status = 0, rc = -1;
    struct rusage ru;
    pid_t pid;
    size_t i;

    memset(res, 0, sizeof *res);
    memset(&ru, 0, sizeof ru);
    if (!(all = calloc(nset + 1, sizeof *all))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    pr_share_dirs();
    for (i = 0; i < nset; i++) all[i] = set_env[i];
    t0var[0] = '\0';
    if (t0_env) all[nset] = t0var;
    /* Its value is written just before the fork (pr_start). */
    if (t0_env) snprintf(t0var, sizeof t0var, "%s=0", t0_env);
    if (!(env = pr_env(all, nset + (t0_env != NULL)))) {
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    pid = pr_start(path, (char *const *)(uintptr_t)argv, env, out_path, err_path, &res->t0_ns, t0_env,
                   t0var, sizeof t0var, why, whylen);
    if (pid < 0) goto out;
    atomic_store(&pr_group, (int)pid);
    res->pid = (int)pid;
    if (spawned) spawned((int)pid, arg);
    res->ms = pr_program_wait(pid, res->t0_ns, clk_now_ms() + timeout_s * 1000.0, &res->timed_out);
    pr_program_reap(pid, &status, &ru, res);
    atomic_store(&pr_group, 0);
    res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    res->rss_mib = (double)ru.ru_maxrss / 1024.0;
    res->cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    rc = 0;
out:
    free(env);
    free(all);
    sg_check();
    return rc;
}

int pr_mkdtemp(const char *what, char *buf, size_t len, char *why, size_t whylen)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t i, n, k, slot = PR_MAXDIRS;
    const char *tmp = getenv("TMPDIR");
    char cwd[4096] = "";
    int tries, e = EEXIST;
    if (!tmp || !*tmp) tmp = "/tmp";
    /* A relative TMPDIR: made absolute, so that a program that changes its
     * directory still finds the directory it is given. */
    if (tmp[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        snprintf(why, whylen, "TMPDIR=%s is relative, and getcwd failed: %s", tmp, strerror(errno));
        return -1;
    }
    if ((size_t)snprintf(buf, len, "%s%s%s/harness-%s-XXXXXX", cwd, cwd[0] ? "/" : "", tmp,
                         what) >= len) {
        snprintf(why, whylen, "temporary directory name too long");
        return -1;
    }
    n = strlen(buf);
    for (i = 0; i < PR_MAXDIRS && slot == PR_MAXDIRS; i++)
        if (!atomic_load(&pr_live[i]) && n < sizeof pr_dirs[i]) slot = i;
    /* As mkdtemp does, but the name is remembered before the directory is
     * made: a second signal that ends the process meanwhile (its cleanup on
     * another thread) finds it, or finds nothing there yet; never a
     * directory it does not know of. */
    for (tries = 0; tries < 100 && e == EEXIST; tries++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
            unsigned long long x = (unsigned long long)clk_now_ns() ^
                                   ((unsigned long long)getpid() << 20) ^ (unsigned long long)tries;
            for (k = 0; k < sizeof r; k++, x /= 62) r[k] = (unsigned char)(x % 62);
        }
        for (k = 0; k < sizeof r; k++) buf[n - sizeof r + k] = chars[r[k] % 62];
        if (slot < PR_MAXDIRS) {
            memcpy(pr_dirs[slot], buf, n + 1);
            atomic_store(&pr_live[slot], 1);
        }
        if (mkdir(buf, 0700) == 0) return 0;
        e = errno;
        if (slot < PR_MAXDIRS) atomic_store(&pr_live[slot], 0);
    }
    snprintf(why, whylen, "mkdir %s: %s", buf, strerror(e));
    return -1;
}

void pr_cleanup(void)
{
    char dir[sizeof pr_dirs[0]];
    size_t i;
    int tries;
    /* Three tries: a stop can run while NVRTC, still compiling on the run's
     * thread, writes its --time file into one of them. */
    for (i = 0; i < PR_MAXDIRS; i++) {
        if (!atomic_load(&pr_live[i])) continue;
        memcpy(dir, pr_dirs[i], sizeof dir);
        for (tries = 0; tries < 3 && pr_rmtree(dir) != 0; tries++) continue;
    }
}

/* The entries of getdents64, as the kernel writes them. */
struct pr_dirent {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Remove directory name (relative to the open directory parent, or
 * AT_FDCWD), what it holds and up to depth levels of directories below, with
 * async-signal-safe calls only (open, getdents64, unlinkat, fchmodat,
 * close); a directory this process cannot open is made 0700 first. Returns
 * 0 once it is gone, -1 when it is still there (an entry made meanwhile,
 * one that could not be removed). */
static int pr_rm_now_at(int parent, const char *name, int depth)
{
    union { char b[4096]; uint64_t align; } u;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    long n;

    /* A directory a program made unreadable (chmod 0): ours, made 0700. */
    if (fd < 0 && errno == EACCES && fchmodat(parent, name, 0700, 0) == 0)
        fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    while ((n = syscall(SYS_getdents64, fd, u.b, sizeof u.b)) > 0) {
        long at = 0;
        while (at < n) {
            const struct pr_dirent *d = (const struct pr_dirent *)(void *)(u.b + at);
            if (d->reclen == 0) break;
            if (strcmp(d->name, ".") != 0 && strcmp(d->name, "..") != 0 &&
                unlinkat(fd, d->name, 0) != 0 && errno == EISDIR && depth > 0)
                pr_rm_now_at(fd, d->name, depth - 1);
            at += d->reclen;
        }
    }
    close(fd);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

void pr_cleanup_now(void)
{
    struct timespec ms = { 0, 1000000 };
    size_t i;
    int tries;
    /* Up to about 50 ms a directory: a child killed just before, or NVRTC
     * still compiling on the run's thread, may create a file for a moment. */
    for (i = 0; i < PR_MAXDIRS; i++) {
        if (!atomic_load(&pr_live[i])) continue;
        for (tries = 0; tries < 50 && pr_rm_now_at(AT_FDCWD, pr_dirs[i], 2) != 0; tries++)
            nanosleep(&ms, NULL);
    }
}

static int pr_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

int pr_rmtree(const char *path)
{
    size_t i;
    struct stat st;
    int rc = 0;
    memset(&st, 0, sizeof st);
    if (lstat(path, &st) == 0 || errno != ENOENT)   /* one already gone is removed */
        rc = nftw(path, pr_rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
    /* What a program left that nftw cannot walk (a directory of mode 0):
     * modes made 0700 on the way, 64 levels down. */
    if (rc != 0 && S_ISDIR(st.st_mode)) rc = pr_rm_now_at(AT_FDCWD, path, 64);
    /* Forgotten once gone: one that a writer refilled meanwhile (NVRTC's
     * --time file during a stop) stays for pr_cleanup_now to try again. */
    for (i = 0; i < PR_MAXDIRS && rc == 0; i++)
        if (atomic_load(&pr_live[i]) && strcmp(pr_dirs[i], path) == 0) atomic_store(&pr_live[i], 0);
    return rc;
}
