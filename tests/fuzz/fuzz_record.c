/* fuzz_record.c: libFuzzer target over the program record's reader
 * (prc_read): whatever a user's program leaves in its record file, the
 * reader may not crash, leak or read out of bounds, and a record it
 * accepts holds only the schema's figures, each one finite sample in its
 * bounds, and spans within their count. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "probe/precord.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prc_record rec;
    char why[300];
    size_t i;

    if (prc_read((const char *)data, size, -1, &rec, why, sizeof why) != 0) {
        if (!memchr(why, 0, sizeof why)) __builtin_trap();
        return 0;
    }
    for (i = 0; i < rec.r.nm; i++)
        if (rec.r.m[i].nsamples != 1 || !isfinite(rec.r.m[i].samples[0]) ||
            rec.r.m[i].samples[0] < 0 || !prc_fig_find(rec.r.m[i].key))
            __builtin_trap();
    if (rec.nspans > PRC_MAX_SPANS || rec.r.nd > PRC_SLOWEST) __builtin_trap();
    prc_free(&rec);
    return 0;
}
