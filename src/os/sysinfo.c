/* sysinfo.c: the CPU's model and the kernel driver's version and GPUs, as
 * /proc shows them. */
#include "os/sysinfo.h"

#include <glob.h>
#include <stdio.h>
#include <string.h>

int si_cpu_model(char *buf, size_t len)
{
    static const char *const keys[] = { "model name", "Model", "cpu model", "cpu" };
    char line[512];
    size_t k;
    int found = -1;
    FILE *f = fopen("/proc/cpuinfo", "r");

    if (!f) return -1;
    for (k = 0; k < sizeof keys / sizeof keys[0] && found != 0; k++) {
        rewind(f);
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':'), *v, *end;
            size_t n = strlen(keys[k]);
            if (!colon || strncmp(line, keys[k], n) != 0 ||
                strspn(line + n, " \t") != (size_t)(colon - line) - n)
                continue;
            for (v = colon + 1; *v == ' ' || *v == '\t'; v++) {}
            for (end = v + strlen(v); end > v && (end[-1] == '\n' || end[-1] == ' '); end--) {}
            if (end == v) continue;
            snprintf(buf, len, "%.*s", (int)(end - v), v);
            found = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

int si_driver_version(char *buf, size_t len)
{
    char line[512], *tok, *save = NULL;
    int found = -1;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");

    if (!f) return -1;
    if (fgets(line, sizeof line, f)) {
        for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
            if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')) {
                snprintf(buf, len, "%s", tok);
                found = 0;
                break;
            }
        }
    }
    fclose(f);
    return found;
}

int si_driver_gpus(char *buf, size_t len)
{
    glob_t g;
    size_t i, at = 0;
    char line[256];

    buf[0] = '\0';
    if (glob("/proc/driver/nvidia/gpus/*/information", 0, NULL, &g) != 0) return -1;
    for (i = 0; i < g.gl_pathc && at < len; i++) {
        FILE *f = fopen(g.gl_pathv[i], "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "Model:", 6) == 0) {
                char *v = line + 6;
                v += strspn(v, " \t");
                v[strcspn(v, "\n")] = '\0';
                at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", v);
                break;
            }
        fclose(f);
    }
    globfree(&g);
    return buf[0] ? 0 : -1;
}
