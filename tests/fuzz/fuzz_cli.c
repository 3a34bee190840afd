/* fuzz_cli.c: libFuzzer target over the command line: the input, split at
 * NUL and newline bytes, becomes argv for cli_parse; the whole input also
 * goes to cli_parse_sizes. Neither may crash, leak, or read out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/cli.h"
#include "run/section.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    char *buf, *argv[65], *p;
    size_t sizes[CLI_MAX_SIZES], i;
    const char *why;
    int argc = 1;
    cli_opts o;

    if (!sink && !(sink = fopen("/dev/null", "w"))) return 0;
    buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    (void)cli_parse_sizes(buf, sizes, CLI_MAX_SIZES, &why);
    for (i = 0; i < size; i++)
        if (buf[i] == '\n') buf[i] = '\0';
    argv[0] = (char *)(uintptr_t)"harness";
    for (p = buf; p < buf + size && argc < 64; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    (void)cli_parse(argc, argv, sec_names(), &o, sink, sink);
    free(buf);
    return 0;
}
