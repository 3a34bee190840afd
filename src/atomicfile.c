/* atomicfile.c: writing a file whole or not at all: a temporary file beside
 * the target, fsync, rename (in place for devices and pipes). */
#include "atomicfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Write with emit(f, arg) straight into `path`, an existing file that is
 * not a regular file or a directory (/dev/null, /dev/stdout, a pipe):
 * renaming over it would replace the device or the pipe itself. One line to
 * stderr on failure. */
static int af_write_in_place(const char *path, int (*emit)(FILE *, const void *), const void *arg)
{
    FILE *f;
    int rc, err;

    errno = 0;
    if ((f = fopen(path, "w")) == NULL) goto fail;
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
