/* fuzz_live.c: libFuzzer target over the live record's reader (lv_read):
 * whatever a user's program leaves in its live file, torn, truncated or
 * forged, the reader may not crash or read out of bounds, and what it
 * keeps is bounded: counts within the slots, every string NUL-ended in its
 * field, every event of a known kind. A live record is 70 KB of fixed
 * layout, so the input patches a whole one written here: its first byte
 * picks the length (whole, a byte short or long, the header alone, the
 * input itself), the rest is (offset: 3 bytes, value: 1 byte) patches. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_base(lv_file *f)
{
    lv_thread *t;
    lv_init(f, 1234);
    t = lv_thread_slot(f, 1235);
    lv_enter(t, "cuLaunchKernel", "setter", 100);
    lv_launch(f, 0x7f00, "spinner", 50);
    lv_event_add(f, LV_EV_LOAD, 1235, "libcublas.so.13", "cuLibraryLoadData", "", 0, 0, 3.5, 40);
    lv_event_add(f, LV_EV_WAIT, 1235, "setter", "cuLaunchKernel", "spinner", 0, 0x7f00, 15000, 200);
    lv_event_add(f, LV_EV_FAILURE, 1235, "", "cuMemAlloc", "", 2, 0, 0, 300);
    lv_free_mem(f, 1u << 30, 40);
    lv_stamp_first_kernel(f, 45);
    lv_stamp_ready(f, 60);
}

static void fuzz_bounded(const lv_view *v)
{
    size_t i;
    if (v->nt > LV_THREADS || v->ns > LV_STREAMS || v->ne > LV_EVENTS) __builtin_trap();
    if (v->ready_ns < 0 || v->first_kernel_ns < 0) __builtin_trap();     /* a forged stamp: 0 */
    for (i = 0; i < v->nt; i++)
        if (!memchr(v->t[i].call, 0, LV_CALL) || !memchr(v->t[i].what, 0, LV_NAME) ||
            v->t[i].state < LV_IDLE || v->t[i].state > LV_RETURNED)
            __builtin_trap();
    for (i = 0; i < v->ns; i++)
        if (!memchr(v->s[i].kernel, 0, LV_NAME)) __builtin_trap();
    for (i = 0; i < v->ne; i++)
        if (!memchr(v->e[i].name, 0, LV_NAME) || !memchr(v->e[i].call, 0, LV_CALL) ||
            v->e[i].kind < 1 || v->e[i].kind > LV_EV_KIND_MAX)
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static lv_file *f;
    static lv_view *v;
    unsigned char *buf;
    size_t len, i;
    char why[300];

    if (!f && (!(f = malloc(sizeof *f)) || !(v = malloc(sizeof *v)))) return 0;
    if (size < 1) return 0;
    if (!(buf = malloc(sizeof *f + 1))) return 0;
    fuzz_base(f);
    memcpy(buf, f, sizeof *f);
    buf[sizeof *f] = 0;
    for (i = 1; i + 4 <= size; i += 4) {
        size_t at = ((size_t)data[i] | (size_t)data[i + 1] << 8 | (size_t)data[i + 2] << 16) % sizeof *f;
        buf[at] = data[i + 3];
    }
    switch (data[0] % 5) {
    case 0: len = sizeof *f; break;
    case 1: len = sizeof *f - 1; break;
    case 2: len = sizeof *f + 1; break;
    case 3: len = sizeof(lv_header); break;
    default:
        len = size - 1 < sizeof *f ? size - 1 : sizeof *f;
        memcpy(buf, data + 1, len);
    }
    if (lv_read(buf, len, -1, v, why, sizeof why) != 0) {
        if (!memchr(why, 0, sizeof why)) __builtin_trap();
    } else
        fuzz_bounded(v);
    free(buf);
    return 0;
}
