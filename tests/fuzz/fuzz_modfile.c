/* fuzz_modfile.c: libFuzzer target over the module reader: the input is a
 * module file's bytes (mf_parse); whatever it holds, the reader may not
 * crash, leak or read out of bounds, and a module it accepts answers every
 * question about its images within its own bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cuda/modfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[600], arch[24], kind[24];
    volatile unsigned sum = 0;
    mf_module m;
    size_t i;

    if (mf_parse("fuzz", data, size, &m, why, sizeof why) != 0) {
        if (!memchr(why, 0, sizeof why)) __builtin_trap();
        return 0;
    }
    for (i = 0; i < mf_nimages(&m); i++) {
        size_t len = 0;
        const unsigned char *img = mf_image(&m, i, &len);
        if (!img || img < m.data || len > m.data_bytes || (size_t)(img - m.data) > m.data_bytes - len)
            __builtin_trap();
        if (len) sum += img[0] + img[len - 1];
        sum += (unsigned)mf_image_use(&m, i, 9, 0);
    }
    for (i = 0; i < m.nentries; i++) {
        sum += (unsigned)mf_entry_use(&m.entries[i], 8, 6);
        sum += (unsigned)strlen(mf_arch_name(&m.entries[i], arch, sizeof arch));
        sum += (unsigned)strlen(mf_entry_kind(&m.entries[i], kind, sizeof kind));
        if (m.entries[i].offset > size) __builtin_trap();
    }
    (void)sum;
    mf_free(&m);
    return 0;
}
