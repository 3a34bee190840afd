/* atomicfile.c: writing a file whole or not at all: a temporary file beside
 * the target, fsync, rename (in place for devices and pipes). */
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sig.h"

#define AF_READER_POLL_MS 20   /* how often a FIFO is tried for a reader */

/* Open path, an existing file that is not a regular file, for writing,
 * without blocking in open(): a FIFO that no process reads yet (ENXIO) is
 * tried again every AF_READER_POLL_MS until one does, unless a signal has
 * come or a stop has begun (a signal ends the wait within one poll).
 * Returns a blocking descriptor, or -1 with errno set. */
static int af_open_in_place(const char *path)
{
    for (;;) {
        struct pollfd wake = { sg_wake_fd(), POLLIN, 0 };
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC), fl;
        if (fd >= 0) {
            if ((fl = fcntl(fd, F_GETFL)) >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0) return fd;
            close(fd);
            return -1;
        }
        if (errno != ENXIO || sg_pending() || sg_stopping()) return -1;
        poll(&wake, 1, AF_READER_POLL_MS);   /* a negative fd is ignored: a plain sleep */
    }
}

/* Write with emit(f, arg) straight into `path`, an existing file that is
 * not a regular file or a directory (/dev/null, /dev/stdout, a pipe):
 * renaming over it would replace the device or the pipe itself. One line to
 * stderr on failure. */
static int af_write_in_place(const char *path, int (*emit)(FILE *, const void *), const void *arg)
{
    FILE *f;
    int rc, err, fd;

    errno = 0;
    if ((fd = af_open_in_place(path)) < 0) {
        if (errno != ENXIO) goto fail;
        fprintf(stderr, "harness: cannot write %s: no process reads the FIFO (a run that is "
                "stopped or interrupted waits for none)\n", path);
        return -1;
    }
    if ((f = fdopen(fd, "w")) == NULL) {
        err = errno;
        close(fd);
        errno = err;
        goto fail;
    }
    rc = emit(f, arg) != 0 || fflush(f) != 0;
    err = errno;
    if (fclose(f) != 0 || rc) {
        if (rc) errno = err;
        goto fail;
    }
    return 0;
fail:
    fprintf(stderr, "harness: cannot write %s: %s\n", path, strerror(errno ? errno : EIO));
    return -1;
}

int af_write(const char *path, int (*emit)(FILE *, const void *), const void *arg)
{
    static const char suffix[] = ".tmp.XXXXXX";
    const char *shown = path;
    char *real = NULL;
    size_t len;
    char *tmp = NULL;
    FILE *f = NULL;
    int fd = -1, rc, err;
    struct stat st;

    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return af_write_in_place(path, emit, arg);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)) != NULL)
        path = real;
    len = strlen(path);

    if ((tmp = malloc(len + sizeof(suffix))) == NULL) {
        errno = ENOMEM;
        goto fail;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, suffix, sizeof(suffix));
    if ((fd = mkstemp(tmp)) == -1) {
        free(tmp);
        tmp = NULL;
        goto fail;
    }
    if ((f = fdopen(fd, "w")) == NULL) goto fail;
    fd = -1;
    errno = 0;
    if (emit(f, arg) != 0 || fflush(f) != 0) goto fail;
    if (fsync(fileno(f)) != 0) goto fail;
    rc = fclose(f);
    f = NULL;
    if (rc != 0) goto fail;
    if (chmod(tmp, 0644) != 0) goto fail;
    if (rename(tmp, path) != 0) goto fail;
    free(tmp);
    free(real);
    return 0;

fail:
    err = errno ? errno : EIO;
    if (f != NULL) fclose(f);   /* already failing: its own error adds nothing */
    if (fd != -1) close(fd);
    if (tmp != NULL) {
        unlink(tmp);
        free(tmp);
    }
    free(real);
    fprintf(stderr, "harness: cannot write %s: %s\n", shown, strerror(err));
    return -1;
}
