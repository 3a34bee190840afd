/* probe_host.c: the host of the probe's CPU test (tests/test_probe_so.sh):
 *   probe_host run SO          load SO as the driver does (dlopen, then
 *                              InitializeInjection) and exit 0, so that the
 *                              probe's exit handler writes the record; prints
 *                              "pid <pid>"
 *   probe_host marks SO WORD.. each WORD in turn: "@init" loads SO as run
 *                              does; any other is an NVTX mark (nvtxMarkA,
 *                              NVTX v3 compiled in here: the NVTX loader
 *                              finds the probe through NVTX_INJECTION64_PATH)
 *   probe_host check FILE PID  read the record FILE of process PID back
 *                              (res_read_lines) and check that it is whole:
 *                              prints "ok: cupti=<env cupti>" (and
 *                              " marks.n=N at.ready_mark=MS" where the record
 *                              has them) and exits 0, or one line saying what
 *                              is wrong and exits 1. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "core/results.h"
#include "probe/precord.h"

/* Load the probe and call its entry point; 0, or 1 with a line on stderr. */
static int host_run(const char *so)
{
    void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    void *p;
    int (*init)(void);

    if (!lib) {
        fprintf(stderr, "probe_host: %s\n", dlerror());
        return 1;
    }
    p = dlsym(lib, "InitializeInjection");
    memcpy(&init, &p, sizeof p);
    if (!init) {
        fprintf(stderr, "probe_host: %s has no InitializeInjection\n", so);
        return 1;
    }
    printf("pid %ld\ninit %d\n", (long)getpid(), init());
    fflush(stdout);
    return 0;       /* exit: the probe's atexit handler writes the record */
}

/* The words of probe_host marks, in turn; 0, or 1 with a line on stderr. */
static int host_marks(const char *so, char **words, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        if (strcmp(words[i], "@init") == 0) {
            if (host_run(so) != 0) return 1;
        } else {
            nvtxMarkA(words[i]);
        }
    }
    return 0;
}

/* The whole file into a NUL-terminated buffer (malloc'd), or NULL. */
static char *host_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    long n;

    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

/* The checks of a record read into r from text; NULL when whole, else what is wrong. */
static const char *host_whole(const results *r, const char *text, long pid)
{
    const char *end = strstr(text, "\nend\t");
    const res_kv *fmt = res_env_get(r, "record"), *wr = res_env_get(r, "written");
    char want[64];

    snprintf(want, sizeof want, "\nend\t%ld\t%zu\n", pid, r->nenv + r->nm + r->nd);
    if (!end || strcmp(end, want) != 0) return "no end line, or one whose pid or count is wrong, or not last";
    if (!fmt || !fmt->str || strcmp(fmt->str, PRC_FORMAT) != 0) return "env record is not " PRC_FORMAT;
    if (!wr || !wr->str || strcmp(wr->str, "exit") != 0) return "env written is not exit";
    if (!res_find(r, PRC_SECTION, "at.probe") || !res_find(r, PRC_SECTION, "at.exit") ||
        !res_find(r, PRC_SECTION, "rss.peak"))
        return "at.probe, at.exit or rss.peak is missing";
    if (res_find(r, PRC_SECTION, "at.first_kernel")) return "at.first_kernel without a launch";
    return NULL;
}

static int host_check(const char *path, long pid)
{
    char why[256] = "";
    char *text = host_slurp(path);
    const char *bad;
    const res_kv *cupti;
    prc_record rec;
    results r;
    int rc = 1;

    if (!text) {
        printf("cannot read %s\n", path);
        return 1;
    }
    res_init(&r);
    if (res_read_lines(&r, text, why, sizeof why) < 0) printf("res_read_lines: %s\n", why);
    else if ((bad = host_whole(&r, text, pid)) != NULL) printf("%s\n", bad);
    else if (prc_read(text, strlen(text), pid, &rec, why, sizeof why) != 0)
        printf("the parent's reader refuses it: %s\n", why);
    else {
        prc_free(&rec);
        const res_meas *n = res_find(&r, PRC_SECTION, "marks.n"), *at = res_find(&r, PRC_SECTION, "at.ready_mark");
        cupti = res_env_get(&r, "cupti");
        printf("ok: cupti=%s", cupti && cupti->str ? cupti->str : "(none)");
        if (n) printf(" marks.n=%g", n->stats.median);
        if (at) printf(" at.ready_mark=%g", at->stats.median);
        printf("\n");
        rc = 0;
    }
    res_free(&r);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "run") == 0) return host_run(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "marks") == 0) return host_marks(argv[2], argv + 3, argc - 3);
    if (argc == 4 && strcmp(argv[1], "check") == 0) return host_check(argv[2], atol(argv[3]));
    fprintf(stderr, "usage: probe_host run SO | probe_host marks SO WORD.. | probe_host check FILE PID\n");
    return 2;
}
