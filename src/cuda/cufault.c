/* cufault.c: HARNESS_FAULT armed on the driver's or NVRTC's checked calls,
 * and HARNESS_FAULT_LOG written as the process exits. */
#include "cuda/cufault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/cudadrv.h"
#include "cuda/rtc.h"
#include "os/fault.h"

/* HARNESS_FAULT_LOG, for the exit handler (NULL or "": none). */
static const char *cf_log_path;

/* At exit: append this process's call counts to HARNESS_FAULT_LOG. */
static void cf_log_at_exit(void)
{
    FILE *f = fopen(cf_log_path, "a");
    int bad;
    if (!f) {
        fprintf(stderr, "harness: cannot write HARNESS_FAULT_LOG=%s\n", cf_log_path);
        return;
    }
    bad = fprintf(f, "# process %ld\n", (long)getpid()) < 0 || ft_log_write(f) != 0;
    if (fclose(f) != 0) bad = 1;
    if (bad)
        fprintf(stderr, "harness: cannot write HARNESS_FAULT_LOG=%s\n", cf_log_path);
}

int cf_setup(void)
{
    const char *spec = getenv("HARNESS_FAULT");
    char why[256];
    ft_spec f;
    long code;
    int nv;

    cf_log_path = getenv("HARNESS_FAULT_LOG");
    if (cf_log_path && *cf_log_path) {
        ft_count_all();
        if (atexit(cf_log_at_exit) != 0) return -1;
    }
    if (!spec || !*spec) return 0;
    if (ft_parse(spec, &f, why, sizeof why) != 0) goto bad;
    nv = strncmp(f.name, "nvrtc", 5) == 0;
    if (!(nv ? rtc_entry_known(f.name) : drv_entry_known(f.name))) {
        snprintf(why, sizeof why, "the harness makes no checked call of %s", f.name);
        goto bad;
    }
    if (!f.has_code) {
        code = nv ? rtc_fault_default(f.name) : (long)drv_fault_default(f.name);
    } else if (!f.code_name[0]) {
        code = f.code;
    } else if (nv) {
        if (rtc_result_code(f.code_name, &code) != 0 || code == 0) {
            snprintf(why, sizeof why, "%s is not an NVRTC error (NVRTC_ERROR_...)", f.code_name);
            goto bad;
        }
    } else {
        CUresult r;
        if (drv_result_code(f.code_name, &r) != 0 || r == CUDA_SUCCESS) {
            snprintf(why, sizeof why, "%s is not a CUresult error (CUDA_ERROR_...)", f.code_name);
            goto bad;
        }
        code = (long)r;
    }
    ft_arm(&f, code);
    return 0;
bad:
    fprintf(stderr, "harness: HARNESS_FAULT=%s: %s\n", spec, why);
    return -1;
}
