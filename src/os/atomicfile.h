/* atomicfile.h: writing an output file atomically: whole, or not at all. */
#ifndef ATOMICFILE_H
#define ATOMICFILE_H

#include <stdio.h>

/* Write with emit(f, arg) to "<path>.tmp.XXXXXX" in the target's directory,
 * fsync it and rename it over path; path "-" is stdout (written and
 * flushed; "harness: cannot write to stdout: reason" on failure). On failure the temporary file is
 * removed, an earlier file at path is untouched, "harness: cannot write
 * PATH: reason" goes to stderr, and -1 is returned; 0 on success. emit
 * returns 0, or -1 when a write failed. A symlink at path is followed: the
 * file it names is replaced, or created when it is not there (as the
 * shell's '>' does). A directory is refused ("it is a directory"). An
 * existing path that is neither a regular file nor a directory (/dev/null,
 * /dev/stdout, a pipe) is written in place, not renamed over (a failure
 * there may leave part of the output written); a FIFO that no process reads
 * is waited for, until a signal comes (sig.h), and not at all during a stop
 * (then it is a failure). */
int af_write(const char *path, int (*emit)(FILE *, const void *), const void *arg);

/* For a file private to this run that a reader must find whole or not at
 * all (a compile cache entry): write with emit to "<path>.tmp.XXXXXX" beside
 * path (mode 0600) and rename it over path, with no fsync (the file need not
 * outlive the machine) and no symlink or device handling. A reader opening
 * path meanwhile finds the old file or the new one, whole. Returns 0, or -1
 * with errno set, the temporary file removed and nothing printed. */
int af_write_private(const char *path, int (*emit)(FILE *, const void *), const void *arg);

/* 1 when writing a and writing b would write one regular file: the same
 * existing file (device and inode, through symbolic links), or the same
 * new file (the real path of its directory and its name, through dangling
 * links); 0 otherwise, also when either cannot be told (a directory that
 * is not there: the write fails and says so). Devices and pipes, written
 * in place, are never the same file here. */
int af_same_file(const char *a, const char *b);

/* 1 when path names a directory (ends in '/', or is one), where no output
 * file can be written; 0 otherwise. */
int af_names_directory(const char *path);

/* Whether af_write(path) can be tried, before anything is measured: 0 when
 * path is an existing file that is not a regular file or a directory (a
 * device or a pipe, written in place) that this process may write, or when
 * the directory af_write would create the file in (through symbolic links,
 * dangling ones too) exists, is a directory, and this process may create
 * files in it, and the file's name leaves room for the temporary file's
 * suffix within NAME_MAX (its name at most 244 bytes). Otherwise -1 with
 * the reason in why ("/nonexistent-dir: No
 * such file or directory", "out.json/x: Not a directory"). A directory as
 * path is af_names_directory's to say. Creates nothing; a write can still
 * fail later (a full disk, a file size limit). */
int af_check_target(const char *path, char *why, size_t len);

#endif
