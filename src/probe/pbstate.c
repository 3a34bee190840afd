/* pbstate.c: the probe's state (pbstate.h). */
#include "probe/pbstate.h"

pb_state pb = { .lock = PTHREAD_MUTEX_INITIALIZER };

const prc_fig_id pb_kind_figs[PB_NKINDS][2] = {
    { PRC_F_MODULE_LOAD_N, PRC_F_MODULE_LOAD_MS }, { PRC_F_LIBRARY_LOAD_N, PRC_F_LIBRARY_LOAD_MS },
    { PRC_F_GET_FUNCTION_N, PRC_F_GET_FUNCTION_MS }, { PRC_F_GET_KERNEL_N, PRC_F_GET_KERNEL_MS },
    { PRC_F_KERNEL_FUNCTION_N, PRC_F_KERNEL_FUNCTION_MS }, { PRC_F_FUNC_LOAD_N, PRC_F_FUNC_LOAD_MS },
    { PRC_F_LAUNCH_FIRST_N, PRC_F_LAUNCH_FIRST_MS }, { PRC_F_LAUNCH_LATER_N, PRC_F_LAUNCH_LATER_MS },
};

double pb_ms(long long ns)
{
    return (double)(ns - pb.t0_ns) / 1e6;
}
