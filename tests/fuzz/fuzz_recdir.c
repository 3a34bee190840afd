/* fuzz_recdir.c: libFuzzer target over the whole record path of -- CMD:
 * a record directory as a program could leave it (recdir.h). The input is
 * a list of entries, each
 *     kind (1 byte) | pid (2 bytes, little-endian) | length (2 bytes) | bytes
 * kind % 6: 0 a regular file "<pid>.rec" holding the bytes, 1 a FIFO of
 * that name, 2 a symbolic link of that name to the bytes (as a path), 3 a
 * directory of that name, 4 a regular file of another name (the bytes as
 * the name), 5 the file of kind 0 made mode 0. Pids below 5000 are the
 * run's, the others not. The reader may not crash, block, leak or read out
 * of bounds; it reads at most the places it has; every record it accepts
 * is of a pid of the run, whole (prc_read's checks), once. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/proc.h"
#include "sections/program/recdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_PLACES 4

static int fz_known(long pid)
{
    return pid > 0 && pid < 5000;
}

static void fz_refuse(void *arg, long pid, const char *why)
{
    (void)pid;
    if (!memchr(why, 0, 600)) __builtin_trap();
    ++*(size_t *)arg;
}

/* Make one entry in dir. */
static void fz_entry(const char *dir, unsigned kind, unsigned pid, const uint8_t *b, size_t n)
{
    char path[4600], other[300];
    size_t i, k = 0;
    int fd;

    snprintf(path, sizeof path, "%s/%u.rec", dir, pid);
    switch (kind % 6) {
    case 0:
    case 5:
        /* Never waits on a FIFO or follows a link an earlier entry made. */
        if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW, 0600)) < 0)
            return;
        if (write(fd, b, n) < 0) {}
        close(fd);
        if (kind % 6 == 5) fchmodat(AT_FDCWD, path, 0, AT_SYMLINK_NOFOLLOW);
        break;
    case 1:
        mkfifo(path, 0600);
        break;
    case 2:
        for (i = 0; i < n && k + 1 < sizeof other; i++)
            if (b[i]) other[k++] = (char)b[i];
        other[k] = '\0';
        if (k) { if (symlink(other, path) != 0) {} }
        break;
    case 3:
        mkdir(path, 0700);
        break;
    default:
        for (i = 0; i < n && k + 1 < 200; i++)
            if (b[i] && b[i] != '/') other[k++] = (char)b[i];
        other[k] = '\0';
        if (!k || strcmp(other, ".") == 0 || strcmp(other, "..") == 0) return;
        snprintf(path, sizeof path, "%s/%s", dir, other);
        if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW, 0600)) >= 0)
            close(fd);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prc_record recs[FZ_PLACES];
    char dir[512], why[600];
    size_t at = 0, refused = 0, i, j;
    rd_result res;

    if (pr_mkdtemp("fuzz-recdir", dir, sizeof dir, why, sizeof why) != 0) return 0;
    while (at + 5 <= size) {
        unsigned kind = data[at], pid = (unsigned)data[at + 1] | (unsigned)data[at + 2] << 8;
        size_t n = (size_t)data[at + 3] | (size_t)data[at + 4] << 8;
        at += 5;
        if (n > size - at) n = size - at;
        fz_entry(dir, kind, pid, data + at, n);
        at += n;
    }
    if (rd_read(dir, recs, FZ_PLACES, fz_known, fz_refuse, &refused, &res, why, sizeof why) == 0) {
        if (res.read > FZ_PLACES || res.refused != refused ||
            res.read + res.refused + res.over != res.found)
            __builtin_trap();
        for (i = 0; i < res.read; i++) {
            if (!fz_known(recs[i].pid) || recs[i].r.nd > PRC_SLOWEST) __builtin_trap();
            for (j = 0; j < i; j++)
                if (recs[j].pid == recs[i].pid) __builtin_trap();
        }
        for (i = 0; i < res.read; i++) prc_free(&recs[i]);
    } else if (!memchr(why, 0, sizeof why)) {
        __builtin_trap();
    }
    pr_rmtree(dir);
    return 0;
}
