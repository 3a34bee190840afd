/* atomicfile.c: writing a file whole or not at all: a temporary file beside
 * the target, fsync, rename (in place for devices and pipes). */
#include "os/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/sig.h"

#define AF_READER_POLL_MS 20   /* how often a FIFO is tried for a reader */
#define AF_SUFFIX ".tmp.XXXXXX"     /* the temporary file's, after the target's name */
#define AF_SUFFIX_LEN (sizeof AF_SUFFIX - 1)

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

/* Symbolic links followed before giving up, as the kernel's own limit. */
#define AF_MAX_LINKS 40

/* The path a write to `path` creates or replaces, into buf (len bytes):
 * path itself, or through each symbolic link the path it names (relative
 * to the link's directory), a dangling link's included. Returns 0, or -1
 * with errno set (ELOOP, ENAMETOOLONG, readlink's error). */
static int af_resolve(const char *path, char *buf, size_t len)
{
    char target[PATH_MAX], next[PATH_MAX];
    struct stat st;
    int hops;

    if (strlen(path) >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, path);
    for (hops = 0; hops < AF_MAX_LINKS; hops++) {
        const char *slash;
        ssize_t n;
        int dirlen, w;

        if (lstat(buf, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
        if ((n = readlink(buf, target, sizeof target - 1)) < 0) return -1;
        target[n] = '\0';
        slash = strrchr(buf, '/');
        dirlen = target[0] == '/' || !slash ? 0 : (int)(slash - buf + 1);
        w = snprintf(next, sizeof next, "%.*s%s", dirlen, buf, target);
        if (w < 0 || (size_t)w >= sizeof next || (size_t)w >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(buf, next, (size_t)w + 1);
    }
    errno = ELOOP;
    return -1;
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

/* Write with emit to "<path>.tmp.XXXXXX" beside path and rename it over
 * path; fsync before the rename when durable, and mode 0644 (else mkstemp's
 * 0600). Returns 0, or -1 with errno set, the temporary file removed and
 * nothing printed. */
static int af_replace(const char *path, int (*emit)(FILE *, const void *), const void *arg,
                      int durable)
{
    static const char suffix[] = AF_SUFFIX;
    size_t len = strlen(path);
    char *tmp;
    FILE *f = NULL;
    int fd, rc, err;

    if ((tmp = malloc(len + sizeof(suffix))) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, suffix, sizeof(suffix));
    if ((fd = mkstemp(tmp)) == -1) {
        err = errno;
        free(tmp);
        errno = err;
        return -1;
    }
    if ((f = fdopen(fd, "w")) == NULL) {
        err = errno;
        close(fd);
        goto fail;
    }
    errno = 0;
    if (emit(f, arg) != 0 || fflush(f) != 0) goto fail_f;
    if (durable && fsync(fileno(f)) != 0) goto fail_f;
    rc = fclose(f);
    f = NULL;
    if (rc != 0) goto fail_f;
    if (durable && chmod(tmp, 0644) != 0) goto fail_f;
    if (rename(tmp, path) != 0) goto fail_f;
    free(tmp);
    return 0;
fail_f:
    err = errno ? errno : EIO;
    if (f != NULL) fclose(f);   /* already failing: its own error adds nothing */
fail:
    unlink(tmp);
    free(tmp);
    errno = err;
    return -1;
}

/* "-": emit to stdout, flushed. */
static int af_write_stdout(int (*emit)(FILE *, const void *), const void *arg)
{
    errno = 0;
    if (emit(stdout, arg) == 0 && fflush(stdout) == 0) return 0;
    fprintf(stderr, "harness: cannot write to stdout: %s\n", strerror(errno ? errno : EIO));
    return -1;
}

int af_write(const char *path, int (*emit)(FILE *, const void *), const void *arg)
{
    const char *shown = path;
    char real[PATH_MAX];
    int err;
    struct stat st;

    if (strcmp(path, "-") == 0) return af_write_stdout(emit, arg);
    errno = 0;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (!S_ISDIR(st.st_mode)) return af_write_in_place(path, emit, arg);
        fprintf(stderr, "harness: cannot write %s: it is a directory\n", shown);
        return -1;
    }
    /* Through a symbolic link, dangling or not, the file it names. */
    real[0] = '\0';
    if (af_resolve(path, real, sizeof real) != 0) {
        real[0] = '\0';
        goto fail;
    }
    if (af_replace(real, emit, arg, 1) == 0) return 0;
fail:
    err = errno ? errno : EIO;
    if (real[0] && strcmp(real, shown) != 0)
        fprintf(stderr, "harness: cannot write %s (the file its link names, %s): %s\n", shown,
                real, strerror(err));
    else
        fprintf(stderr, "harness: cannot write %s: %s\n", shown, strerror(err));
    return -1;
}

int af_write_private(const char *path, int (*emit)(FILE *, const void *), const void *arg)
{
    return af_replace(path, emit, arg, 0);
}

/* What identifies the file a write to path would go to: the device and
 * inode of an existing file, else the path it would be created at (its
 * directory's real path, then its last name). */
typedef struct af_id {
    int exists;             /* 1: dev and ino; 0: at; -1: unknown */
    int regular;            /* an existing regular file */
    dev_t dev;
    ino_t ino;
    char at[2 * PATH_MAX + 2];
} af_id;

static void af_identify(const char *path, af_id *id)
{
    char where[PATH_MAX], dir[PATH_MAX], *slash;
    const char *name;
    struct stat st;

    memset(id, 0, sizeof *id);
    id->exists = -1;
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->regular = S_ISREG(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    if (af_resolve(path, where, sizeof where) != 0) return;
    slash = strrchr(where, '/');
    if (slash) {
        *slash = '\0';
        name = slash + 1;
        if (!realpath(where[0] ? where : "/", dir)) return;
    } else {
        name = where;
        if (!realpath(".", dir)) return;
    }
    snprintf(id->at, sizeof id->at, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
    id->exists = 0;     /* both parts under PATH_MAX: it fits */
}

int af_same_file(const char *a, const char *b)
{
    af_id x, y;

    af_identify(a, &x);
    af_identify(b, &y);
    if (x.exists == 1 && y.exists == 1)
        return x.regular && x.dev == y.dev && x.ino == y.ino;
    return x.exists == 0 && y.exists == 0 && strcmp(x.at, y.at) == 0;
}

int af_names_directory(const char *path)
{
    struct stat st;
    size_t n = strlen(path);

    return (n > 0 && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

int af_check_target(const char *path, char *why, size_t len)
{
    char real[PATH_MAX], dir[PATH_MAX], *slash;
    struct stat st;

    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        if (access(path, W_OK) == 0) return 0;
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (af_resolve(path, real, sizeof real) != 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    slash = strrchr(real, '/');
    /* The temporary file beside it must be a name too. */
    if (strlen(slash ? slash + 1 : real) + AF_SUFFIX_LEN > NAME_MAX) {
        snprintf(why, len, "its name is %zu bytes: with the temporary file's suffix (%s) it would pass "
                 "the %d bytes a name may hold", strlen(slash ? slash + 1 : real), AF_SUFFIX, NAME_MAX);
        return -1;
    }
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == real) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - real), real);
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) errno = ENOTDIR;
    else if (stat(dir, &st) == 0 && access(dir, W_OK | X_OK) == 0) return 0;
    snprintf(why, len, "%s: %s", dir, strerror(errno));
    return -1;
}
