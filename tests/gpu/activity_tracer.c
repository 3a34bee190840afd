/* activity_tracer.c: a small CUPTI activity tracer, the stand-in for
 * Nsight Systems' CUDA trace in tests/gpu/overhead.sh: loaded into a
 * program by the driver (CUDA_INJECTION64_PATH), it enables CUPTI's
 * activity records of kernels, memory copies and sets, and the runtime
 * and driver API, and writes every completed buffer as it is (the records
 * CUPTI filled) to "<ACTIVITY_TRACE_DIR>/<pid>.act", flushed at exit, with
 * a last line of text: "activity-tracer <records> records <bytes> bytes
 * <dropped> dropped". What it costs is what any tool that traces the same
 * activities through CUPTI pays at least. Built by overhead.sh against the
 * toolkit's CUPTI; not part of the harness. */
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AT_BUFFER ((size_t)8 << 20)     /* one activity buffer */

static pthread_mutex_t at_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *at_file;
static unsigned long long at_records, at_bytes, at_dropped;

int InitializeInjection(void);

/* CUPTI asks for a buffer to fill. */
static void CUPTIAPI at_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, AT_BUFFER);
    *size = *buffer ? AT_BUFFER : 0;
    *max_records = 0;
}

/* CUPTI hands a buffer back: count its records, write it, free it. */
static void CUPTIAPI at_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                 size_t valid)
{
    CUpti_Activity *rec = NULL;
    size_t dropped = 0, n = 0;
    (void)size;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) n++;
    cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
    pthread_mutex_lock(&at_lock);
    at_records += n;
    at_bytes += valid;
    at_dropped += dropped;
    if (at_file && valid) fwrite(buffer, 1, valid, at_file);
    pthread_mutex_unlock(&at_lock);
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&at_lock);
    if (at_file) {
        fprintf(at_file, "\nactivity-tracer %llu records %llu bytes %llu dropped\n", at_records,
                at_bytes, at_dropped);
        fclose(at_file);
        at_file = NULL;
    }
    pthread_mutex_unlock(&at_lock);
}

int InitializeInjection(void)
{
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
    };
    const char *dir = getenv("ACTIVITY_TRACE_DIR");
    char path[4096];
    size_t i;

    if (dir && *dir && (size_t)snprintf(path, sizeof path, "%s/%ld.act", dir, (long)getpid()) <
        sizeof path)
        at_file = fopen(path, "wb");
    if (cuptiActivityRegisterCallbacks(at_request, at_complete) != CUPTI_SUCCESS) {
        fprintf(stderr, "activity-tracer: cuptiActivityRegisterCallbacks failed\n");
        return 1;
    }
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (cuptiActivityEnable(kinds[i]) != CUPTI_SUCCESS)
            fprintf(stderr, "activity-tracer: cuptiActivityEnable(%d) failed\n", (int)kinds[i]);
    atexit(at_exit);
    return 1;
}
