/* exe.c: the checks execve makes, made before a program is run. */
#include "os/exe.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* This machine's ELF machine, and the one it also runs (0: none). */
#if defined(__x86_64__)
#define EX_MACHINE EM_X86_64
#define EX_COMPAT EM_386
#elif defined(__aarch64__)
#define EX_MACHINE EM_AARCH64
#define EX_COMPAT EM_ARM
#elif defined(__powerpc64__)
#define EX_MACHINE EM_PPC64
#define EX_COMPAT 0
#else
#define EX_MACHINE 0
#define EX_COMPAT 0
#endif

static int ex_check_at(const char *path, int depth, char *why, size_t whylen);

/* An interpreter named by an ELF's PT_INTERP or a "#!" line: there, a
 * regular file, executable. */
static int ex_interp(const char *interp, const char *what, char *why, size_t whylen)
{
    struct stat st;
    if (stat(interp, &st) != 0) {
        snprintf(why, whylen, "its %s %.300s: %s", what, interp, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(interp, X_OK) != 0) {
        snprintf(why, whylen, "its %s %.300s is not an executable file", what, interp);
        return -1;
    }
    return 0;
}

/* 1 when binfmt_misc has a handler registered (a name other than
 * "register" and "status" in its directory). */
static int ex_binfmt_misc(void)
{
    DIR *d = opendir("/proc/sys/fs/binfmt_misc");
    struct dirent *e;
    int any = 0;
    if (!d) return 0;
    while (!any && (e = readdir(d)))
        any = e->d_name[0] != '.' && strcmp(e->d_name, "register") != 0 &&
              strcmp(e->d_name, "status") != 0;
    closedir(d);
    return any;
}

/* This machine's byte order, as ELF names it. */
static unsigned ex_byte_order(void)
{
    unsigned short one = 1;
    unsigned char low;
    memcpy(&low, &one, 1);
    return low ? ELFDATA2LSB : ELFDATA2MSB;
}

/* The ELF at fd (its first n bytes in head, the file size size). */
static int ex_elf(int fd, const unsigned char *head, size_t n, off_t size, char *why,
                  size_t whylen)
{
    unsigned cls = head[EI_CLASS], data = head[EI_DATA];
    unsigned long long phoff, i;
    unsigned type, machine, phentsize, phnum;
    char interp[4096];

    if ((cls != ELFCLASS32 && cls != ELFCLASS64) || (data != ELFDATA2LSB && data != ELFDATA2MSB) ||
        head[EI_VERSION] != EV_CURRENT) {
        snprintf(why, whylen, "not a valid ELF file (class %u, data %u, version %u)", cls, data,
                 head[EI_VERSION]);
        return -1;
    }
    if (n < (cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) {
        snprintf(why, whylen, "a truncated ELF header (%zu bytes)", n);
        return -1;
    }
    if (data != ex_byte_order()) {
        snprintf(why, whylen, "an ELF file of the other byte order");
        return -1;
    }
    if (cls == ELFCLASS64) {
        Elf64_Ehdr h;
        memcpy(&h, head, sizeof h);
        type = h.e_type, machine = h.e_machine, phoff = h.e_phoff;
        phentsize = h.e_phentsize, phnum = h.e_phnum;
    } else {
        Elf32_Ehdr h;
        memcpy(&h, head, sizeof h);
        type = h.e_type, machine = h.e_machine, phoff = h.e_phoff;
        phentsize = h.e_phentsize, phnum = h.e_phnum;
    }
    if (type != ET_EXEC && type != ET_DYN) {
        snprintf(why, whylen, "an ELF file that is not an executable (type %u: %s)", type,
                 type == ET_REL ? "an object file" : type == ET_CORE ? "a core dump" : "unknown");
        return -1;
    }
    if (EX_MACHINE && machine != EX_MACHINE && (!EX_COMPAT || machine != EX_COMPAT)) {
        snprintf(why, whylen, "an ELF executable for another machine (e_machine %u; this one's is %u)",
                 machine, (unsigned)EX_MACHINE);
        return -1;
    }
    if (phentsize != (cls == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum == 0 ||
        phoff > (unsigned long long)size || (unsigned long long)phnum * phentsize >
        (unsigned long long)size - phoff) {
        snprintf(why, whylen, "a truncated or malformed ELF file (its program headers are not inside "
                 "its %lld bytes)", (long long)size);
        return -1;
    }
    for (i = 0; i < phnum; i++) {
        unsigned long long off, sz;
        unsigned ptype;
        if (cls == ELFCLASS64) {
            Elf64_Phdr p;
            if (pread(fd, &p, sizeof p, (off_t)(phoff + i * phentsize)) != (ssize_t)sizeof p) goto short_read;
            ptype = p.p_type, off = p.p_offset, sz = p.p_filesz;
        } else {
            Elf32_Phdr p;
            if (pread(fd, &p, sizeof p, (off_t)(phoff + i * phentsize)) != (ssize_t)sizeof p) goto short_read;
            ptype = p.p_type, off = p.p_offset, sz = p.p_filesz;
        }
        if (ptype != PT_INTERP) continue;
        if (sz < 2 || sz > sizeof interp || off > (unsigned long long)size || sz > (unsigned long long)size - off ||
            pread(fd, interp, (size_t)sz, (off_t)off) != (ssize_t)sz || interp[sz - 1] != '\0') {
            snprintf(why, whylen, "a malformed ELF interpreter entry (PT_INTERP)");
            return -1;
        }
        return ex_interp(interp, "ELF interpreter", why, whylen);
    }
    return 0;
short_read:
    snprintf(why, whylen, "a truncated ELF file (its program headers cannot be read)");
    return -1;
}

/* The "#!" line in head[0..n): its interpreter checked in turn. */
static int ex_script(const unsigned char *head, size_t n, int depth, char *why, size_t whylen)
{
    char interp[256];
    size_t i = 2, k = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\t')) i++;
    while (i < n && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' && head[i] != '\0' &&
           k + 1 < sizeof interp)
        interp[k++] = (char)head[i++];
    interp[k] = '\0';
    if (!k) {
        snprintf(why, whylen, "a #! line that names no interpreter");
        return -1;
    }
    if (ex_interp(interp, "#! interpreter", why, whylen) != 0) return -1;
    if (depth >= 4) {
        snprintf(why, whylen, "#! interpreters nested more than 4 deep");
        return -1;
    }
    if (ex_check_at(interp, depth + 1, why, whylen) != 0) {
        char inner[300];
        snprintf(inner, sizeof inner, "%s", why);
        snprintf(why, whylen, "its #! interpreter %.200s: %s", interp, inner);
        return -1;
    }
    return 0;
}

static int ex_check_at(const char *path, int depth, char *why, size_t whylen)
{
    unsigned char head[256];
    struct stat st;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), rc;

    if (fd < 0) return 0;   /* execute-only: execve alone can tell */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;           /* the caller has said what a non-file is */
    }
    while ((n = read(fd, head, sizeof head)) < 0 && errno == EINTR)
        continue;
    if (n < 0) n = 0;
    if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0) {
        if ((size_t)n < EI_NIDENT) {
            snprintf(why, whylen, "a truncated ELF header (%zd bytes)", n);
            rc = -1;
        } else {
            rc = ex_elf(fd, head, (size_t)n, st.st_size, why, whylen);
        }
    } else if (n >= 2 && head[0] == '#' && head[1] == '!') {
        rc = ex_script(head, (size_t)n, depth, why, whylen);
    } else if (ex_binfmt_misc()) {
        rc = 0;
    } else {
        snprintf(why, whylen, "%s: execve would refuse it (Exec format error)",
                 n == 0 ? "an empty file" : "neither an ELF executable nor a script starting with #!");
        rc = -1;
    }
    close(fd);
    return rc;
}

int ex_check(const char *path, char *why, size_t whylen)
{
    return ex_check_at(path, 0, why, whylen);
}
