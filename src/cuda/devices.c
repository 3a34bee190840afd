/* devices.c: the table of known devices and their datasheets' memory
 * bandwidth, looked up by the name the driver reports. */
#include "cuda/devices.h"

#include <stddef.h>
#include <string.h>

/* More specific patterns first: "H100 PCIe" before "H100 80GB HBM3". */
static const dv_device dv_table[] = {
    { "H200", 4800, "NVIDIA H200 Tensor Core GPU product page (H200 SXM and H200 NVL: 4.8 TB/s), "
      "https://www.nvidia.com/en-us/data-center/h200/" },
    { "H100 NVL", 3900, "NVIDIA H100 Tensor Core GPU product page (H100 NVL: 3.9 TB/s), "
      "https://www.nvidia.com/en-us/data-center/h100/" },
    { "H100 PCIe", 2000, "NVIDIA H100 Tensor Core GPU product page (H100 PCIe: 2 TB/s), "
      "https://www.nvidia.com/en-us/data-center/h100/" },
    { "H100 80GB HBM3", 3350, "NVIDIA H100 Tensor Core GPU product page (H100 SXM: 3.35 TB/s), "
      "https://www.nvidia.com/en-us/data-center/h100/" },
    { "A100-SXM4-80GB", 2039, "NVIDIA A100 Tensor Core GPU product page (A100 80GB SXM: "
      "2,039 GB/s), https://www.nvidia.com/en-us/data-center/a100/" },
    { "A100-SXM4-40GB", 1555, "NVIDIA A100 Tensor Core GPU product page (A100 40GB SXM: "
      "1,555 GB/s), https://www.nvidia.com/en-us/data-center/a100/" },
    { "Tesla T4", 320, "NVIDIA T4 product page (320+ GB/s), "
      "https://www.nvidia.com/en-us/data-center/tesla-t4/" },
};

const dv_device *dv_find(const char *name)
{
    size_t i;

    if (!name) return NULL;
    for (i = 0; i < sizeof dv_table / sizeof dv_table[0]; i++)
        if (strstr(name, dv_table[i].pattern)) return &dv_table[i];
    return NULL;
}
