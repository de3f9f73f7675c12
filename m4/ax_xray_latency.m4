# ===========================================================================
#           ax_xray_latency.m4: measured latency of one C operation
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_LATENCY(TYPE, OP, [ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Measures, with the project's own compiler and flags, the latency in core
#   cycles of OP on TYPE: a chain of dependent statements p0 = p0 OP p1 (for
#   fma, p0 = p0 * p1 + p2, fused or not as the compiler decides), compiled
#   with asm barriers that keep every statement whole (X-Ray Sec. 3.2).  The
#   value is rounded to half cycles; the exact one is in config.log.
#
#   TYPE is a C integer or floating type (int, long, unsigned long, float,
#   double, long double, ...) or a vector type (__m128, __m128d, __m128i,
#   __m256, __m256d, __m256i, __m512, __m512d, __m512i, float32x4_t,
#   float64x2_t, int32x4_t, int64x2_t); OP is +, -, *, / or fma.  Others stop
#   autoconf with a message.  A known type the compiler does not offer at
#   these flags (__m512d without AVX-512) is "unknown" at configure time,
#   with that reason.  Example: AX_XRAY_LATENCY([double], [*]) defines
#   XRAY_LAT_DOUBLE_MUL; AX_XRAY_LATENCY([__m256d], [fma]) XRAY_LAT_M256D_FMA.
#
#   Cache variable ax_cv_xray_lat_TYPE_OP (e.g. ax_cv_xray_lat_double_mul),
#   option --with-xray-lat-TYPE-OP=N (e.g. --with-xray-lat-double-mul=N).
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_LAT_TYPE_OP        latency (cycles)
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

AC_DEFUN([AX_XRAY_LATENCY], [
m4_ifblank([$1], [m4_fatal([AX_XRAY_LATENCY: give a TYPE and an OP, e.g. AX_XRAY_LATENCY(double, *)])])
m4_ifblank([$2], [m4_fatal([AX_XRAY_LATENCY: give an OP (+, -, *, / or fma) after the TYPE])])
_AX_XRAY_CHECK_TYPE([AX_XRAY_LATENCY], [$1])
_AX_XRAY_CHECK_OP([AX_XRAY_LATENCY], [$2])
_AX_XRAY_OPVALUE([lat], [LAT], [latency], [$1], [$2], [latency of $1 ]_AX_XRAY_OP_WORD([$2]),
                 [cycles])
AS_IF([test $ax_xray_known = yes], [$3], [$4])
])
