/* recdir.c: reading a run's record directory as untrusted input. */
#include "sections/program/recdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/sig.h"
#include "os/ufile.h"

/* The pid of a name "<pid>.rec": a positive decimal without a leading zero
 * or sign, below 2^31; -1 for any other name. */
static long rd_pid_of(const char *name)
{
    long pid = 0;
    const char *p = name;
    if (*p < '1' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        pid = pid * 10 + (*p - '0');
        if (pid > 0x7fffffffL) return -1;
    }
    return strcmp(p, ".rec") == 0 ? pid : -1;
}

/* A record's figure, or NaN. */
static double rd_fig(const prc_record *rec, const char *key)
{
    const res_meas *m = res_find(&rec->r, PRC_SECTION, key);
    return m ? m->samples[0] : NAN;
}

/* The order of records: by the moment the probe was loaded, then pid. */
static int rd_cmp(const void *a, const void *b)
{
    const prc_record *x = a, *y = b;
    double tx = rd_fig(x, "at.probe"), ty = rd_fig(y, "at.probe");
    if (isnan(tx)) tx = INFINITY;
    if (isnan(ty)) ty = INFINITY;
    if (tx != ty) return tx < ty ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Open the directory without following a link; once more after making it
 * 0700 again where its mode stopped this process. */
static int rd_open_dir(const char *dir, char *why, size_t whylen)
{
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, fd = open(dir, flags);
    struct stat st;
    if (fd < 0 && errno == EACCES && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == geteuid() && chmod(dir, 0700) == 0)
        fd = open(dir, flags);
    if (fd >= 0) return fd;
    if (errno == ELOOP || errno == ENOTDIR)
        snprintf(why, whylen, "the record directory %.400s is no longer a directory (%s is there)",
                 dir, lstat(dir, &st) == 0 ? uf_kind(st.st_mode) : "nothing");
    else
        snprintf(why, whylen, "the record directory %.400s cannot be read: %s", dir, strerror(errno));
    return -1;
}

/* One record file: read, parsed, checked against the run and those read. */
static int rd_one(int fd, const char *name, long pid, prc_record *recs, size_t n,
                  rd_known_fn known, size_t *total, char *why, size_t whylen)
{
    char *text = NULL;
    size_t len = 0, i;
    int rc;

    if (!known(pid)) {
        snprintf(why, whylen, "pid %ld is not a process of this run (the harness saw no such "
                 "descendant of the program)", pid);
        return -1;
    }
    for (i = 0; i < n; i++)
        if (recs[i].pid == pid) {
            snprintf(why, whylen, "a second record of pid %ld", pid);
            return -1;
        }
    if (uf_read(fd, name, PRC_MAX_BYTES, &text, &len, NULL, why, whylen) != 0) return -1;
    if (*total + len > RD_MAX_TOTAL) {
        free(text);
        snprintf(why, whylen, "the run's records pass %zu MiB in all; this one is not read",
                 RD_MAX_TOTAL >> 20);
        return -1;
    }
    *total += len;
    sg_call_begin();
    rc = prc_read(text, len, pid, &recs[n], why, whylen);
    sg_call_end();
    free(text);
    return rc;
}

int rd_read(const char *dir, prc_record *recs, size_t max, rd_known_fn known,
            rd_refuse_fn refuse, void *arg, rd_result *res, char *why, size_t whylen)
{
    struct dirent *e;
    size_t seen = 0, total = 0;
    DIR *d;
    int fd;

    memset(res, 0, sizeof *res);
    if ((fd = rd_open_dir(dir, why, whylen)) < 0) return -1;
    if (!(d = fdopendir(fd))) {
        snprintf(why, whylen, "the record directory %.400s: %s", dir, strerror(errno));
        close(fd);
        return -1;
    }
    while ((e = readdir(d))) {
        char one[400];
        long pid;
        if (++seen > RD_MAX_ENTRIES) {
            refuse(arg, 0, "more than 65536 entries in the record directory; the rest are not read");
            res->refused++;
            break;
        }
        if ((pid = rd_pid_of(e->d_name)) < 0) continue;
        res->found++;
        if (res->read == max) {
            res->over++;
            continue;
        }
        sg_check();
        if (rd_one(dirfd(d), e->d_name, pid, recs, res->read, known, &total, one, sizeof one) == 0) {
            res->read++;
        } else {
            refuse(arg, pid, one);
            res->refused++;
        }
    }
    closedir(d);
    qsort(recs, res->read, sizeof *recs, rd_cmp);
    return 0;
}

/* The pid of a name "<pid>.live", or -1. */
static long rd_live_pid(const char *name)
{
    char *end;
    long pid;
    if (name[0] < '1' || name[0] > '9') return -1;
    pid = strtol(name, &end, 10);
    return strcmp(end, ".live") == 0 && pid > 0 ? pid : -1;
}

static int rd_pid_order(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

size_t rd_live_pids(const char *dir, rd_known_fn known, long *pids, size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0, seen = 0;

    if (!d) return 0;
    while (n < max && seen++ < RD_MAX_ENTRIES && (e = readdir(d)) != NULL) {
        long pid = rd_live_pid(e->d_name);
        if (pid > 0 && (!known || known(pid))) pids[n++] = pid;
    }
    closedir(d);
    qsort(pids, n, sizeof *pids, rd_pid_order);
    return n;
}
