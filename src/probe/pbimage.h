/* pbimage.h: the probe's look at an image handed to a module or library
 * load: PTX the driver must JIT-compile, or not. */
#ifndef PBIMAGE_H
#define PBIMAGE_H

/* 1 when the image handed to a load is PTX the driver must JIT-compile:
 * PTX text, a fatbin of PTX and no ELF, or the runtime's fatbin wrapper
 * (FATBINC_MAGIC) around such a fatbin. A cubin (ELF) is not. */
int pbi_image_ptx(const void *image);

#endif
