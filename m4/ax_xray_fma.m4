# ===========================================================================
#         ax_xray_fma.m4: fused multiply-add: compiler and processor
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_FMA([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Whether the project's compiler, at the project's flags, turns a+b*c into
#   a fused multiply-add, found by timing: the expression as written against
#   the same multiply and add with an asm barrier between them, which no
#   compiler can fuse across (X-Ray Sec. 3.4; gcc contracts even separate
#   statements, so the paper's unbarriered reference would say "no").  And
#   whether the processor executes a fused multiply-add instruction, found by
#   running one (a processor without it raises SIGILL, which is caught), with
#   its latency and how many start per cycle.  ACTION-IF-FOUND runs when the
#   compiler fuses.
#
#   Cache variables (preset them to skip the measurement):
#
#     ax_cv_xray_have_fma         the compiler fuses a+b*c (0 or 1)
#     ax_cv_xray_have_fma_isa     the processor executes FMA (0 or 1)
#     ax_cv_xray_fma_latency      FMA latency (cycles)
#     ax_cv_xray_fma_per_cycle    FMAs started per cycle
#
#   Options: --with-xray-have-fma=N, --with-xray-have-fma-isa=N,
#   --with-xray-fma-latency=N, --with-xray-fma-per-cycle=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_HAVE_FMA               the compiler fuses a+b*c at these flags
#     XRAY_HAVE_FMA_ISA           the processor executes fused multiply-adds
#     XRAY_FMA_LATENCY            FMA latency (cycles)
#     XRAY_FMA_PER_CYCLE          FMAs started per cycle
#
#   and records them for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or
#   when the engine cannot run, a value is "unknown": nothing is defined and
#   a warning names the option and cache variable to set.  The engine is
#   built and run as for AX_XRAY_ICACHE (see ax_xray_common.m4) and compiles
#   its kernels with the project's $CC and $CFLAGS, which decide the answers;
#   with XRAY_SIMULATE=SPEC it measures a simulated machine instead (see
#   xray(1)).
#
# LICENSE
#
#   Copyright (c) 2026 The xray authors
#
#   Copying and distribution of this file, with or without modification, are
#   permitted in any medium without royalty provided the copyright notice
#   and this notice are preserved.  This file is offered as-is, without any
#   warranty.

#serial 1

AC_DEFUN([AX_XRAY_FMA], [
_AX_XRAY_VALUE([ax_cv_xray_have_fma], [XRAY_HAVE_FMA], [fma], [have-fma],
               [whether the compiler fuses a+b*c], [boolean])
ax_xray_fma_ok=no
test "x$XRAY_HAVE_FMA" = x1 && ax_xray_fma_ok=yes
_AX_XRAY_VALUE([ax_cv_xray_have_fma_isa], [XRAY_HAVE_FMA_ISA], [fma], [have-fma-isa],
               [whether the processor executes fused multiply-adds], [boolean])
_AX_XRAY_VALUE([ax_cv_xray_fma_latency], [XRAY_FMA_LATENCY], [fma], [fma-latency],
               [fused multiply-add latency], [cycles], [decimal])
_AX_XRAY_VALUE([ax_cv_xray_fma_per_cycle], [XRAY_FMA_PER_CYCLE], [fma], [fma-per-cycle],
               [fused multiply-adds started per cycle], [ops], [decimal])
AS_IF([test $ax_xray_fma_ok = yes], [$1], [$2])
])
