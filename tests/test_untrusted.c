/* test_untrusted.c: what the harness reads from places a user's program can
 * write (ufile.h, recdir.h) and its look at the program before the first
 * run (exe.h), on files made here: FIFOs, links, records of pids that are
 * not the run's, more records than places, ELF headers and #! lines that
 * execve would refuse. */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/exe.h"
#include "os/proc.h"
#include "sections/program/recdir.h"
#include "testhelp.h"
#include "os/ufile.h"

/* A whole record of pid (the one tests/fuzz/records/good.rec holds). */
static void tu_record(const char *dir, long pid)
{
    char path[700];
    FILE *f;
    snprintf(path, sizeof path, "%s/%ld.rec", dir, pid);
    if (!(f = fopen(path, "w"))) return;
    fprintf(f, "env\trecord\ts\tharness-probe 1\nenv\tversion\ts\t%s\nenv\tpid\tn\t%ld\n"
            "m\tprogram\tat.probe\tp\tr\tprocess\tms\t1\t0\t0\t0\t120.5\t0\t0\t0\t\n"
            "end\t%ld\t4\n", HARNESS_VERSION, pid, pid);
    fclose(f);
}

static void tu_write(const char *path, const void *b, size_t n, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) return;
    if (write(fd, b, n) != (ssize_t)n) th_check("test_untrusted: a test file written", 0);
    close(fd);
}

static int tu_known(long pid)
{
    return pid >= 4000 && pid < 5000;
}

static void tu_refuse(void *arg, long pid, const char *why)
{
    char *said = arg;
    size_t at = strlen(said);
    snprintf(said + at, 2000 - at, "[%ld: %s]", pid, why);
}

static void tu_ufile(const char *dir)
{
    char path[700], why[300], *buf;
    size_t len;
    int cut, dfd = open(dir, O_RDONLY | O_DIRECTORY);

    snprintf(path, sizeof path, "%s/fifo", dir);
    mkfifo(path, 0600);
    th_check("ufile: a FIFO is refused, not waited on",
             uf_read(dfd, "fifo", 100, &buf, &len, NULL, why, sizeof why) == -1 &&
             strcmp(why, "a FIFO, not a regular file") == 0 && !buf);
    snprintf(path, sizeof path, "%s/link", dir);
    if (symlink("/etc/hostname", path) != 0) th_check("ufile: a link made", 0);
    th_check("ufile: a symbolic link is refused",
             uf_read(dfd, "link", 100, &buf, &len, NULL, why, sizeof why) == -1 &&
             strstr(why, "a symbolic link"));
    snprintf(path, sizeof path, "%s/ten", dir);
    tu_write(path, "0123456789", 10, 0600);
    th_check("ufile: a regular file is read whole",
             uf_read(dfd, "ten", 10, &buf, &len, NULL, why, sizeof why) == 0 && len == 10 &&
             strcmp(buf, "0123456789") == 0);
    free(buf);
    th_check("ufile: past its bound, refused with the size",
             uf_read(dfd, "ten", 9, &buf, &len, NULL, why, sizeof why) == -1 &&
             strcmp(why, "10 bytes, more than 9") == 0);
    th_check("ufile: past its bound with cut: read up to it, the cut said",
             uf_read(dfd, "ten", 4, &buf, &len, &cut, why, sizeof why) == 0 && len == 4 && cut == 1 &&
             strcmp(buf, "0123") == 0);
    free(buf);
    snprintf(path, sizeof path, "%s/fifo", dir);
    {
        int fd = uf_create(path);
        struct stat st;
        th_check("ufile: uf_create puts a regular file in a FIFO's place",
                 fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
        if (fd >= 0) close(fd);
    }
    close(dfd);
}

static void tu_recdir(const char *dir)
{
    prc_record recs[4];
    char path[700], said[2000] = "", why[600];
    rd_result res;
    size_t i;

    tu_record(dir, 4242);
    tu_record(dir, 4243);
    tu_record(dir, 4244);
    tu_record(dir, 1);
    snprintf(path, sizeof path, "%s/4245.rec", dir);
    mkfifo(path, 0600);
    snprintf(path, sizeof path, "%s/.4246.tmp", dir);
    tu_write(path, "x", 1, 0600);
    snprintf(path, sizeof path, "%s/04247.rec", dir);
    tu_write(path, "x", 1, 0600);
    th_check("recdir: the directory is read",
             rd_read(dir, recs, 2, tu_known, tu_refuse, said, &res, why, sizeof why) == 0);
    th_check("recdir: 5 records found (temporary files and other names passed over)",
             res.found == 5);
    th_check("recdir: 2 places: 2 read, the rest refused or counted past them",
             res.read == 2 && res.read + res.refused + res.over == 5 && res.over >= 1);
    for (i = 0; i < res.read; i++) prc_free(&recs[i]);
    said[0] = '\0';
    th_check("recdir: read again with 4 places",
             rd_read(dir, recs, 4, tu_known, tu_refuse, said, &res, why, sizeof why) == 0);
    th_check("recdir: the 3 records of the run's pids read, sorted",
             res.read == 3 && res.over == 0 && recs[0].pid == 4242 && recs[2].pid == 4244);
    th_check("recdir: a record of pid 1 refused: not a process of the run",
             strstr(said, "[1: pid 1 is not a process of this run"));
    th_check("recdir: a FIFO as a record refused with its kind",
             strstr(said, "[4245: a FIFO, not a regular file]"));
    th_check("recdir: 2 refused, each told", res.refused == 2);
    for (i = 0; i < res.read; i++) prc_free(&recs[i]);
    snprintf(path, sizeof path, "%s/gone", dir);
    th_check("recdir: a directory that is not there: -1, named",
             rd_read(path, recs, 2, tu_known, tu_refuse, said, &res, why, sizeof why) == -1 &&
             strstr(why, "cannot be read"));
    snprintf(path, sizeof path, "%s/4242.rec", dir);
    th_check("recdir: a file in its place: -1, its kind named",
             rd_read(path, recs, 2, tu_known, tu_refuse, said, &res, why, sizeof why) == -1 &&
             strstr(why, "no longer a directory (a regular file is there)"));
}

/* A 64-bit ELF executable header of this machine with one program header,
 * PT_INTERP naming interp; type and machine as given. */
static void tu_elf(const char *path, unsigned type, const char *interp)
{
    unsigned char b[512];
    Elf64_Ehdr h;
    Elf64_Phdr p;
    memset(b, 0, sizeof b);
    memset(&h, 0, sizeof h);
    memset(&p, 0, sizeof p);
    memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_ident[EI_VERSION] = EV_CURRENT;
    h.e_type = (Elf64_Half)type;
#if defined(__x86_64__)
    h.e_machine = EM_X86_64;
#elif defined(__aarch64__)
    h.e_machine = EM_AARCH64;
#endif
    h.e_version = EV_CURRENT;
    h.e_phoff = sizeof h;
    h.e_phentsize = sizeof p;
    h.e_phnum = 1;
    h.e_ehsize = sizeof h;
    p.p_type = PT_INTERP;
    p.p_offset = sizeof h + sizeof p;
    p.p_filesz = strlen(interp) + 1;
    memcpy(b, &h, sizeof h);
    memcpy(b + sizeof h, &p, sizeof p);
    memcpy(b + sizeof h + sizeof p, interp, strlen(interp) + 1);
    tu_write(path, b, sizeof h + sizeof p + strlen(interp) + 1, 0755);
}

static void tu_exe(const char *dir)
{
    char path[700], inner[700], text[800], why[400];

    th_check("exe: /bin/sh would run", ex_check("/bin/sh", why, sizeof why) == 0);
    snprintf(path, sizeof path, "%s/noint", dir);
    tu_elf(path, ET_EXEC, "/nonexistent/ld-linux.so.2");
    th_check("exe: an ELF whose interpreter is missing: refused, named",
             ex_check(path, why, sizeof why) == -1 &&
             strstr(why, "ELF interpreter /nonexistent/ld-linux.so.2: No such file"));
    snprintf(path, sizeof path, "%s/rel", dir);
    tu_elf(path, ET_REL, "/bin/sh");
    th_check("exe: an object file: refused", ex_check(path, why, sizeof why) == -1 &&
             strstr(why, "an object file"));
    snprintf(path, sizeof path, "%s/short", dir);
    tu_write(path, "\177ELF\002\001\001", 7, 0755);
    th_check("exe: 7 bytes of ELF: a truncated header", ex_check(path, why, sizeof why) == -1 &&
             strstr(why, "truncated ELF header"));
    snprintf(inner, sizeof inner, "%s/inner.sh", dir);
    tu_write(inner, "#!/bin/sh\necho\n", 15, 0755);
    snprintf(path, sizeof path, "%s/outer.sh", dir);
    snprintf(text, sizeof text, "#! %s -x\n", inner);
    tu_write(path, text, strlen(text), 0755);
    th_check("exe: a script whose #! interpreter is a script: runs",
             ex_check(path, why, sizeof why) == 0);
    snprintf(path, sizeof path, "%s/bad.sh", dir);
    tu_write(path, "#!/nonexistent/python9\n", 23, 0755);
    th_check("exe: a missing #! interpreter: refused, named",
             ex_check(path, why, sizeof why) == -1 &&
             strstr(why, "#! interpreter /nonexistent/python9: No such file"));
    snprintf(path, sizeof path, "%s/empty", dir);
    tu_write(path, "", 0, 0755);
    th_check("exe: an empty file: refused", ex_check(path, why, sizeof why) == -1 &&
             strstr(why, "an empty file"));
}

void test_untrusted(void)
{
    char dir[512], why[300];
    if (pr_mkdtemp("test-untrusted", dir, sizeof dir, why, sizeof why) != 0) {
        th_check("test_untrusted: a temporary directory", 0);
        return;
    }
    tu_ufile(dir);
    tu_recdir(dir);
    tu_exe(dir);
    th_check("test_untrusted: its directory removed", pr_rmtree(dir) == 0 && access(dir, F_OK) != 0);
}
