/* ufile.c: reading and creating the files a user's program can write. */
#include "os/ufile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *uf_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    return S_ISREG(m) ? "a regular file" : S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link" : "a file of unknown type";
}

/* The file's kind refused, into why; -1. */
static int uf_not_regular(unsigned mode, char *why, size_t whylen)
{
    snprintf(why, whylen, "%s, not a regular file", uf_kind(mode));
    return -1;
}

int uf_read(int dirfd, const char *name, size_t max, char **buf, size_t *len, int *cut,
            char *why, size_t whylen)
{
    struct stat st;
    size_t want, got = 0;
    char *b = NULL;
    int fd;

    *buf = NULL;
    *len = 0;
    if (cut) *cut = 0;
    /* A look first: a FIFO or a device is not even opened. */
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) return uf_not_regular(st.st_mode, why, whylen);
    fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ELOOP) return uf_not_regular(S_IFLNK, why, whylen);
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    /* Replaced between the look and the open: the open file is what counts. */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        close(fd);
        if (!S_ISREG(st.st_mode)) return uf_not_regular(st.st_mode, why, whylen);
        snprintf(why, whylen, "%s", strerror(e));
        return -1;
    }
    if (st.st_size >= 0 && (size_t)st.st_size > max && !cut) {
        close(fd);
        snprintf(why, whylen, "%lld bytes, more than %zu", (long long)st.st_size, max);
        return -1;
    }
    /* Its size as it stands, at most one byte past max; a file that grows
     * meanwhile is read up to that byte, no further. */
    want = st.st_size >= 0 && (size_t)st.st_size <= max ? (size_t)st.st_size + 1 : max + 1;
    if (!(b = malloc(want + 1))) {
        close(fd);
        snprintf(why, whylen, "out of memory (%zu bytes)", want);
        return -1;
    }
    while (got < want) {
        ssize_t n = read(fd, b + got, want - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(why, whylen, "%s", strerror(errno));
            close(fd);
            free(b);
            return -1;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got > max) {
        if (!cut) {
            snprintf(why, whylen, "more than %zu bytes", max);
            free(b);
            return -1;
        }
        *cut = 1;
        got = max;
    }
    b[got] = '\0';
    *buf = b;
    *len = got;
    return 0;
}

int uf_create(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT) {
        /* A directory there: O_EXCL below says so (EEXIST). */
        if (errno != EISDIR && errno != EPERM) return -1;
    }
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
}

char *uf_visible(const char *s, char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t at = 0;
    for (; *p; p++) {
        char one[5];
        size_t n;
        if (*p < 0x20 || *p == 0x7f) snprintf(one, sizeof one, "\\x%02x", (unsigned)*p);
        else if (*p == '\\') snprintf(one, sizeof one, "\\\\");
        else one[0] = (char)*p, one[1] = '\0';
        n = strlen(one);
        if (at + n + 4 > len) {
            memcpy(buf + (at + 4 <= len ? at : len - 4), "...", 4);
            return buf;
        }
        memcpy(buf + at, one, n);
        at += n;
    }
    buf[at] = '\0';
    return buf;
}
