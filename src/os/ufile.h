/* ufile.h: the files a user's program can write (its record directory, its
 * output files), read and created as untrusted: never blocking, bounded in
 * size, never through a symbolic link; what is refused is said. */
#ifndef UFILE_H
#define UFILE_H

#include <stddef.h>

/* Read the file name, relative to the open directory dirfd (or AT_FDCWD),
 * into *buf (malloc'd, NUL-terminated, *len bytes before the NUL). The file
 * is looked at before it is opened and opened with O_NONBLOCK and
 * O_NOFOLLOW, then checked again with fstat: anything but a regular file (a
 * FIFO, a device, a socket, a directory, a symbolic link) is refused
 * without a read that could wait. A file of more than max bytes is refused
 * ("40000000 bytes, more than 33554432"), or, when cut is not NULL, read up
 * to max bytes with *cut set to 1 (0 otherwise). The read stops at max + 1
 * bytes whatever the file does meanwhile. Returns 0, or -1 with a one-line
 * reason in why ("a FIFO, not a regular file", "a symbolic link", or the
 * error of the call) and *buf NULL. */
int uf_read(int dirfd, const char *name, size_t max, char **buf, size_t *len, int *cut,
            char *why, size_t whylen);

/* Create path anew for writing (mode 0644, close-on-exec): whatever is
 * there is removed first (a FIFO or a symbolic link left by a program
 * included: opening it could wait, or write elsewhere), then the file is
 * made with O_EXCL and O_NOFOLLOW. Returns the descriptor, or -1 with
 * errno set. */
int uf_create(const char *path);

/* What kind of file mode is, in words: "a regular file", "a FIFO", "a
 * directory", "a character device", "a block device", "a socket", "a
 * symbolic link", "a file of unknown type". */
const char *uf_kind(unsigned mode);

/* s (NULL: "") made safe to print on a terminal, into buf of len bytes
 * (len >= 8): each control byte (below 0x20, and 0x7f: ESC, a newline,
 * a carriage return that could forge or hide a line) as \xNN, a
 * backslash as \\; cut with "..." where buf is full. Returns buf. */
char *uf_visible(const char *s, char *buf, size_t len);

#endif
