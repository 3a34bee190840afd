/* fuzz_demangle.c: libFuzzer target over the kernel names a record can
 * hold (demangle.c): whatever name a user's program leaves, dm_demangle
 * and dm_shorten may not crash, leak or read out of bounds, and each result
 * is NUL-terminated within its room and the width asked for. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = malloc(size + 1), out[512], shortname[128];
    size_t width = size ? data[0] % 100 : 40;

    if (!name) return 0;
    memcpy(name, data, size);
    name[size] = '\0';
    dm_demangle(name, out, sizeof out);
    if (!memchr(out, 0, sizeof out)) __builtin_trap();
    dm_shorten(out, width, shortname, sizeof shortname);
    if (strlen(shortname) > width) __builtin_trap();
    dm_table_name(name, width, shortname, sizeof shortname);
    if (strlen(shortname) > width) __builtin_trap();
    free(name);
    return 0;
}
