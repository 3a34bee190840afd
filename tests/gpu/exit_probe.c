/* exit_probe.c: what process exit costs after cuInit. Spawns itself as a
 * child that does nothing, or only dlopen + cuInit, then exits; times, from
 * the parent, the child's last mark to its pipe closing and from there to
 * waitpid. Evidence for the last line of the stopwatches waterfall. Built
 * and run by tests/gpu/run.sh; prints one line per child. */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The child: optionally cuInit, then print its last mark and exit. */
static int child(int init)
{
    if (init) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW);
        void *p = h ? dlsym(h, "cuInit") : NULL;
        int (*cu_init)(unsigned);
        if (!p) return 1;
        memcpy(&cu_init, &p, sizeof p);
        if (cu_init(0) != 0) return 1;
    }
    printf("%.6f\n", now_ms());
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    int init, rep;
    if (argc > 1) return child(atoi(argv[1]));
    for (init = 0; init < 2; init++) {
        for (rep = 0; rep < 5; rep++) {
            char buf[64], mode[4];
            char *av[3];
            posix_spawn_file_actions_t fa;
            double t0, teof, tw;
            int p[2], st = 0;
            ssize_t n = 0, r;
            pid_t pid;
            if (pipe(p) != 0) return 1;
            posix_spawn_file_actions_init(&fa);
            posix_spawn_file_actions_adddup2(&fa, p[1], 1);
            posix_spawn_file_actions_addclose(&fa, p[0]);
            snprintf(mode, sizeof mode, "%d", init);
            av[0] = argv[0];
            av[1] = mode;
            av[2] = NULL;
            t0 = now_ms();
            if (posix_spawn(&pid, argv[0], &fa, NULL, av, environ) != 0) return 1;
            close(p[1]);
            while ((r = read(p[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0) n += r;
            teof = now_ms();
            buf[n] = '\0';
            waitpid(pid, &st, 0);
            tw = now_ms();
            close(p[0]);
            posix_spawn_file_actions_destroy(&fa);
            printf("%-13s total %7.1f ms; last mark to pipe closed %5.1f ms; pipe closed "
                   "to reaped %5.1f ms\n", init ? "cuInit, exit" : "nothing, exit",
                   tw - t0, teof - atof(buf), tw - teof);
        }
    }
    return 0;
}
