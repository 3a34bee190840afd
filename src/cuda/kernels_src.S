/* kernels_src.S: the kernel sources embedded as NUL-terminated strings with
 * the assembler's .incbin (run from the top of the tree; see Makefile). */
#define EMBED(sym, file)          \
    .globl sym;                   \
    .type sym, @object;           \
    .balign 16;                   \
sym:                              \
    .incbin file;                 \
    .byte 0;                      \
    .size sym, . - sym

    .section .rodata
EMBED(kn_src_vector, "kernels/vector.cu")
EMBED(kn_src_empty, "kernels/empty.cu")
EMBED(kn_src_copy, "kernels/copy.cu")
EMBED(kn_src_fusion, "kernels/fusion.cu")
EMBED(kn_src_launch, "kernels/launch.cu")
    .section .note.GNU-stack,"",@progbits
