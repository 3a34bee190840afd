/* fuzz_kcache.c: libFuzzer target over the compile cache's reader
 * (kc_parse): whatever lies in a cache file (a half write, another key's
 * file, stray bytes), the reader may not crash, leak or read out of bounds,
 * and a file it accepts gives exactly the image the file holds: at least one
 * byte, a PTX one ending in its NUL, and a NUL-terminated log. Each input is
 * read as the file of one fixed key, as a cubin's and as PTX's (tests/fuzz/kcache
 * holds files of that key, whole and broken). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cuda/kcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char key[] = "fuzz key";
    kc_key k = { key, sizeof key - 1 };
    int t;

    for (t = 0; t < 2; t++) {
        kc_image img;
        int rc = kc_parse(data, size, &k, t, &img);
        if (rc != 1) {
            if (img.code || img.log || img.size) __builtin_trap();
            continue;
        }
        if (img.size == 0 || img.size > size || !img.log || strlen(img.log) > size ||
            (t && img.code[img.size - 1] != '\0') ||
            memcmp(img.code, data + 40 + k.len, img.size) != 0)
            __builtin_trap();
        kc_image_free(&img);
    }
    return 0;
}
