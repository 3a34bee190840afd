/* cli_command.c: -- CMD on the command line: the words after "--", the
 * program found as execvp would and checked as execve would, and its sides
 * (--compare-env, --jit-cache, --compare with its commands,
 * --compare-loading), with --ready's and --squeeze's values. */
#include "run/cli_command.h"
#include "core/rx.h"
#include "os/exe.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------- the sides --- */

/* --compare-env, --jit-cache and --compare each set the sides: the first
 * of them given. Returns CLI_OK, or CLI_USAGE after printing so to err. */
static int clc_first_sides(const cli_opts *o, FILE *err)
{
    if (o->compare != CLI_CMP_NONE)
        CLI_FAIL("--compare-env, --jit-cache and --compare each set the sides; give one of them");
    return CLI_OK;
}

/* 1 when name is a variable name: a letter or '_', then letters, digits, '_'. */
static int clc_var_name(const char *name, size_t len)
{
    size_t i;
    if (len == 0 || isdigit((unsigned char)name[0])) return 0;
    for (i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_') return 0;
    return 1;
}

/* --compare-env=NAME=A,B[,...]'s values after '=' (a comma inside one
 * written "\,") into o->setting. Returns CLI_OK, or CLI_USAGE after
 * printing what is wrong to err. */
static int clc_env_values(const char *arg, const char *p, cli_opts *o, FILE *err)
{
    size_t at = 0, start = 0;

    for (;; p++) {
        if (at + 2 >= sizeof o->setting_buf)
            CLI_FAIL("--compare-env=%s: longer than %zu characters", arg, sizeof o->setting_buf - 2);
        if (*p == '\\' && p[1] == ',') {
            o->setting_buf[at++] = *++p;
            continue;
        }
        if (*p && *p != ',') {
            o->setting_buf[at++] = *p;
            continue;
        }
        o->setting_buf[at++] = '\0';
        if (at - 1 == start)
            CLI_FAIL("--compare-env=%s: value %zu is empty; write each value (a comma inside "
                     "one as \\,)", arg, o->nsettings + 1);
        if (o->nsettings == CLI_MAX_SETTINGS)
            CLI_FAIL("--compare-env=%s: more than %d values", arg, CLI_MAX_SETTINGS);
        o->setting[o->nsettings++] = o->setting_buf + start;
        start = at;
        if (!*p) return CLI_OK;
    }
}

int clc_read_compare_env(const opt_row *r, const char *arg, cli_opts *o, FILE *out,
                         FILE *err)
{
    const char *eq = strchr(arg, '=');
    size_t nl = eq ? (size_t)(eq - arg) : 0;

    (void)r;
    (void)out;
    if (clc_first_sides(o, err) != CLI_OK) return CLI_USAGE;
    if (!eq || nl == 0)
        CLI_FAIL("--compare-env=%s: expected NAME=A,B[,...] (a comma inside a value is "
                 "written \\,)", arg);
    if (!clc_var_name(arg, nl) || nl >= sizeof o->setting_name)
        CLI_FAIL("--compare-env=%s: '%.*s' is not a variable name (letters, digits and '_', "
                 "not starting with a digit, at most %zu)", arg, (int)nl, arg,
                 sizeof o->setting_name - 1);
    memcpy(o->setting_name, arg, nl);
    o->setting_name[nl] = '\0';
    if (strncmp(o->setting_name, "HARNESS_PROBE", 13) == 0 ||
        strcmp(o->setting_name, "CUDA_INJECTION64_PATH") == 0)
        CLI_FAIL("--compare-env=%s: %s is the harness's own (the probe is loaded through it)",
                 arg, o->setting_name);
    if (!eq[1]) CLI_FAIL("--compare-env=%s: no values after '='; expected NAME=A,B[,...]", arg);
    if (clc_env_values(arg, eq + 1, o, err) != CLI_OK) return CLI_USAGE;
    if (o->nsettings < 2)
        CLI_FAIL("--compare-env=%s: one value; a comparison takes two or more (NAME=A,B)", arg);
    o->compare = CLI_CMP_ENV;
    return CLI_OK;
}

int clc_read_jit_cache(const opt_row *r, const char *arg, cli_opts *o, FILE *out,
                       FILE *err)
{
    const char *p = arg;

    (void)r;
    (void)out;
    if (clc_first_sides(o, err) != CLI_OK) return CLI_USAGE;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *v = n == 4 && strncmp(p, "cold", 4) == 0 ? "cold"
                      : n == 4 && strncmp(p, "warm", 4) == 0 ? "warm" : NULL;
        size_t i;
        if (!v) CLI_FAIL("--jit-cache=%s: '%.*s': expected cold, warm or cold,warm", arg, (int)n, p);
        for (i = 0; i < o->nsettings; i++)
            if (o->setting[i] == v) CLI_FAIL("--jit-cache=%s: %s given twice", arg, v);
        o->setting[o->nsettings++] = v;
        p += n;
        if (*p == ',' && !*++p) CLI_FAIL("--jit-cache=%s: an empty entry at the end", arg);
    }
    o->compare = CLI_CMP_JIT_CACHE;
    return CLI_OK;
}

int clc_read_compare(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    (void)r;
    (void)arg;
    (void)out;
    if (clc_first_sides(o, err) != CLI_OK) return CLI_USAGE;
    o->compare = CLI_CMP_COMMANDS;
    return CLI_OK;
}

int clc_read_ready(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    rx_prog *re;
    char msg[200];
    size_t len = strlen(arg);

    (void)r;
    (void)out;
    if (rx_compile(arg, &re, msg, sizeof msg) != 0) {
        if (len > 60) CLI_FAIL("--ready=%.40s... (%zu bytes): not taken: %s", arg, len, msg);
        CLI_FAIL("--ready=%s: not taken: %s", arg, msg);
    }
    rx_free(re);
    o->ready = arg;
    return CLI_OK;
}

int clc_read_squeeze(const opt_row *r, const char *arg, cli_opts *o, FILE *out, FILE *err)
{
    long long v;

    (void)r;
    (void)out;
    if (strcmp(arg, "auto") == 0) o->squeeze_auto = 1;
    else if (opt_int(arg, 0, (long long)CLI_SQUEEZE_MAX, &v) == 0) o->squeeze_mib = (double)v;
    else CLI_FAIL("--squeeze=%s: expected the MiB to leave free, a whole number from 0 to %.0f, "
                  "or auto", arg, CLI_SQUEEZE_MAX);
    return CLI_OK;
}

/* ----------------------------------------------------------- the command --- */

int clc_split_command(int argc, char **argv, cli_opts *o)
{
    int i;

    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            o->cmd = (const char *const *)(argv + i + 1);
            o->ncmd = (size_t)(argc - i - 1);
            return i;
        }
    return argc;
}

int clc_find_program(const char *cmd, const char *path, char *buf, size_t len, char *why,
                     size_t whylen)
{
    const char *p, *end;
    struct stat st;
    int denied = 0;

    if (!*cmd) {
        snprintf(why, whylen, "an empty command name");
        return -1;
    }
    if (strchr(cmd, '/')) {
        if ((size_t)snprintf(buf, len, "%s", cmd) >= len) {
            snprintf(why, whylen, "the name is too long");
            return -1;
        }
        if (stat(buf, &st) != 0) {
            snprintf(why, whylen, "%s", strerror(errno));
            return -1;
        }
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "is a directory");
            return -1;
        }
        if (!S_ISREG(st.st_mode) || access(buf, X_OK) != 0) {
            snprintf(why, whylen, "not an executable file");
            return -1;
        }
        return 0;
    }
    if (!path || !*path) path = "/usr/bin:/bin";
    for (p = path;; p = end + 1) {
        size_t dl;
        end = strchr(p, ':');
        if (!end) end = p + strlen(p);
        dl = (size_t)(end - p);
        /* An empty entry is the current directory, as for execvp. */
        if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "./", cmd) < len &&
            stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(buf, X_OK) == 0) return 0;
            denied = 1;
        }
        if (!*end) break;
    }
    snprintf(why, whylen, denied ? "found in PATH, but not executable" : "not found in PATH");
    return -1;
}

int clc_check_command(cli_opts *o, FILE *err)
{
    char why[256];

    /* --compare: each command is found once it is split (clc_split_commands). */
    if (o->compare != CLI_CMP_COMMANDS &&
        clc_find_program(o->cmd[0], getenv("PATH"), o->cmd_path, sizeof o->cmd_path, why,
                         sizeof why) != 0)
        CLI_FAIL("-- %s: %s", o->cmd[0], why);
    if (ex_check(o->cmd_path, why, sizeof why) != 0)
        CLI_FAIL("-- %s: cannot be run: %s", o->cmd[0], why);
    return CLI_OK;
}

/* --compare: the command split at each --vs-word (default "--vs") into
 * copies of its words (o->cmds, each NULL-terminated), each part a command
 * that is found and that execve would run (ex_check: a bad ELF, a missing
 * #! interpreter, refused here, before any run). Returns CLI_OK, or CLI_USAGE after printing
 * what is wrong to err. */
static int clc_split_commands(cli_opts *o, FILE *err)
{
    const char *vs = o->vs_word ? o->vs_word : "--vs";
    const char *const *w = o->cmd;
    char why[256];
    size_t i, start = 0, n = 0, at = 0;

    if (o->ncmd + CLI_MAX_SETTINGS > sizeof o->cmd_words / sizeof o->cmd_words[0])
        CLI_FAIL("--compare: more than %d words after --", CLI_MAX_ARGS);
    for (i = 0; i <= o->ncmd; i++) {
        if (i < o->ncmd && strcmp(w[i], vs) != 0) continue;
        if (i == start)
            CLI_FAIL("--compare: command %zu is empty; write %s between commands: "
                     "harness --compare -- A [ARGS] %s B [ARGS]", n + 1, vs, vs);
        if (n == CLI_MAX_SETTINGS) CLI_FAIL("--compare: more than %d commands", CLI_MAX_SETTINGS);
        if (clc_find_program(w[start], getenv("PATH"), o->cmd_paths[n], sizeof o->cmd_paths[n], why,
                             sizeof why) != 0)
            CLI_FAIL("--compare: command %zu, %s: %s", n + 1, w[start], why);
        if (ex_check(o->cmd_paths[n], why, sizeof why) != 0)
            CLI_FAIL("--compare: command %zu, %s: cannot be run: %s", n + 1, w[start], why);
        /* The command's words copied, NULL-terminated: argv stays whole. */
        o->cmds[n] = o->cmd_words + at;
        o->ncmds[n] = i - start;
        memcpy(o->cmd_words + at, w + start, (i - start) * sizeof *w);
        at += i - start;
        o->cmd_words[at++] = NULL;
        n++;
        start = i + 1;
    }
    if (n < 2)
        CLI_FAIL("--compare: one command; write %s between two or more (harness --compare -- A "
                 "%s B; --vs-word=WORD where %s is one of the program's own words)", vs, vs, vs);
    o->nsettings = n;
    o->cmd = o->cmds[0];
    o->ncmd = o->ncmds[0];
    memcpy(o->cmd_path, o->cmd_paths[0], sizeof o->cmd_path);
    return CLI_OK;
}

int clc_check_sides(cli_opts *o, FILE *err)
{
    if (o->compare_loading) {
        if (o->compare != CLI_CMP_NONE)
            CLI_FAIL("--compare-loading compares CUDA_MODULE_LOADING; it cannot be combined with "
                     "--compare-env, --jit-cache or --compare");
        o->compare = CLI_CMP_LOADING;
        snprintf(o->setting_name, sizeof o->setting_name, "CUDA_MODULE_LOADING");
        o->setting[0] = "LAZY";
        o->setting[1] = "EAGER";
        o->nsettings = 2;
    }
    if (o->snapshot) {
        if (o->compare != CLI_CMP_NONE)
            CLI_FAIL("--snapshot compares each loading mode with and without the checkpoint; it "
                     "cannot be combined with --compare-loading, --compare-env, --jit-cache or "
                     "--compare");
        o->compare = CLI_CMP_SNAPSHOT;
        o->nsettings = o->loading == CLI_LOAD_DEFAULT ? 4 : 2;
    }
    if (o->compare == CLI_CMP_ENV && o->loading != CLI_LOAD_DEFAULT &&
        strcmp(o->setting_name, "CUDA_MODULE_LOADING") == 0)
        CLI_FAIL("--compare-env=CUDA_MODULE_LOADING=... sets the mode per side; it cannot be "
                 "combined with --module-loading");
    if (o->compare == CLI_CMP_JIT_CACHE && o->warmup < 1)
        for (size_t i = 0; i < o->nsettings; i++)
            if (strcmp(o->setting[i], "warm") == 0)
                CLI_FAIL("--jit-cache=warm is a cache a warm-up run filled; --warmup=0 leaves it "
                         "empty (give --warmup=1 or more)");
    if (o->vs_word && o->compare != CLI_CMP_COMMANDS)
        CLI_FAIL("--vs-word=%s separates the commands of --compare; --compare is not given", o->vs_word);
    if (o->compare == CLI_CMP_COMMANDS) return clc_split_commands(o, err);
    return CLI_OK;
}
