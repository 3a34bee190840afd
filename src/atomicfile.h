/* atomicfile.h: writing an output file atomically: whole, or not at all. */
#ifndef ATOMICFILE_H
#define ATOMICFILE_H

#include <stdio.h>

/* Write with emit(f, arg) to "<path>.tmp.XXXXXX" in the target's directory,
 * fsync it and rename it over path. On failure the temporary file is
 * removed, an earlier file at path is untouched, "harness: cannot write
 * PATH: reason" goes to stderr, and -1 is returned; 0 on success. emit
 * returns 0, or -1 when a write failed. A symlink at path is followed: the
 * file it names is replaced. An existing path that is neither a regular file
 * nor a directory (/dev/null, /dev/stdout, a pipe) is written in place, not
 * renamed over (a failure there may leave part of the output written); a
 * FIFO that no process reads is waited for, until a signal comes (sig.h),
 * and not at all during a stop (then it is a failure). */
int af_write(const char *path, int (*emit)(FILE *, const void *), const void *arg);

#endif
