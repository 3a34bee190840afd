/* exe.h: whether execve would run a file, found before the program's first
 * run: an ELF executable for this machine with its interpreter there, or a
 * script whose "#!" interpreter is there and runs. */
#ifndef EXE_H
#define EXE_H

#include <stddef.h>

/* Look at the regular file path (its exec bit already checked) as execve
 * would: an ELF header that is whole (class, byte order, version, an
 * executable or shared-object type, this machine's or its 32-bit
 * companion's), its program headers inside the file, its PT_INTERP
 * interpreter an executable regular file; or a first line "#!INTERP [ARG]"
 * whose INTERP is an executable regular file that passes this check too
 * (up to 4 levels, as the kernel allows). A file that is neither is refused
 * unless binfmt_misc has a handler registered (then execve decides). A file
 * this process may execute but not read is not looked at. Returns 0, or -1
 * with a one-line reason in why ("a truncated ELF header", "its #!
 * interpreter /usr/bin/pyhton3: No such file or directory"). */
int ex_check(const char *path, char *why, size_t whylen);

#endif
