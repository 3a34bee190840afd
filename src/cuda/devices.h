/* devices.h: the one table of known devices: for a pattern of the name the
 * driver reports, the memory bandwidth its maker's datasheet gives, and
 * which datasheet (a figure the harness cannot measure, only compare with). */
#ifndef DEVICES_H
#define DEVICES_H

typedef struct dv_device {
    const char *pattern;     /* part of cuDeviceGetName's answer: "H200" */
    double memory_gbs;       /* memory bandwidth, GB/s (1e9 bytes per second) */
    const char *source;      /* the datasheet or product page it comes from */
} dv_device;

/* The first known device whose pattern is part of name (the table lists a
 * more specific pattern before a shorter one it contains); NULL when none
 * is, or name is NULL. */
const dv_device *dv_find(const char *name);

#endif
