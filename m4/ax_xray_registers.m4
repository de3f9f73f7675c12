# ===========================================================================
#            ax_xray_registers.m4: registers the compiler can use
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_REGISTERS([TYPE], [ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   How many variables the project's compiler, at the project's flags, keeps
#   in registers in a loop: independent chains p1 += p0, ..., p(n-1) += p0
#   for growing n (X-Ray Sec. 3.6).  Where the compiler's assembly can be
#   read, its spills in the timed loop (stack operands, moves to the other
#   register file) decide, and the timing step confirms; elsewhere the
#   timing step decides.  config.log and `xray registers --format=json` say
#   which.
#
#   Without TYPE: long, double and the widest vector type the compiler
#   offers at these flags (__m512d, __m256d, __m128d or float64x2_t).  With
#   TYPE (a C or vector type, as for AX_XRAY_LATENCY), that type, which
#   defines the value of its class.
#
#   Cache variables ax_cv_xray_num_int_regs, ax_cv_xray_num_fp_regs,
#   ax_cv_xray_num_vec_regs; options --with-xray-num-int-regs=N,
#   --with-xray-num-fp-regs=N, --with-xray-num-vec-regs=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_NUM_INT_REGS           integer registers usable for variables
#     XRAY_NUM_FP_REGS            floating-point registers usable for variables
#     XRAY_NUM_VEC_REGS           vector registers usable for variables
#
#   and, with the vector type whose registers XRAY_NUM_VEC_REGS counts (the
#   compiler's choice at these flags, not a measurement; also when
#   cross-compiling):
#
#     XRAY_VEC_TYPE               that type (__m512d, __m256d, __m128d or
#                                 float64x2_t, or TYPE): include
#                                 <immintrin.h> or <arm_neon.h> to use it
#     XRAY_VEC_BYTES              its width in bytes
#
#   ACTION-IF-FOUND runs when every value asked for is known.
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

#serial 2

# _AX_XRAY_REGCLASS(TYPE): INT, FP or VEC
m4_define([_AX_XRAY_REGCLASS],
  [m4_bmatch([$1], [^__m\|x[[0-9]]_t$], [VEC], [float\|double], [FP], [INT])])

# _AX_XRAY_REGVALUE(CLASS, KEY, [ENGINE-ARGS])
m4_define([_AX_XRAY_REGVALUE],
[_AX_XRAY_VALUE([ax_cv_xray_num_]m4_tolower([$1])[_regs], [XRAY_NUM_$1_REGS], [$2],
  [num-]m4_tolower([$1])[-regs],
  m4_case([$1], [INT], [[integer registers usable for variables]],
                [FP], [[floating-point registers usable for variables]],
                [[vector registers usable for variables]]), [registers], [], [$3])
test $ax_xray_known = yes || ax_xray_regs_ok=no])

# _AX_XRAY_VEC_TYPE([TYPE]): XRAY_VEC_TYPE and XRAY_VEC_BYTES, for the type
# given, or else for the widest the engine would pick at these flags: the
# first of its candidates whose preprocessor condition holds (the same
# order and conditions as src/kernels/generate.c).
m4_define([_AX_XRAY_VEC_INCLUDES], [[
#if defined __x86_64__ || defined __i386__
#include <immintrin.h>
#elif defined __ARM_NEON
#include <arm_neon.h>
#endif
]])
AC_DEFUN([_AX_XRAY_VEC_TYPE], [
AC_CACHE_CHECK([the vector type whose registers xray counts], [ax_cv_xray_vec_type],
  [m4_ifblank([$1], [ax_cv_xray_vec_type=none
   for ax_xray_t in '__m512d 64 defined __AVX512F__' '__m256d 32 defined __AVX__' \
       '__m128d 16 defined __SSE2__' 'float64x2_t 16 defined __ARM_NEON && defined __aarch64__'; do
     ax_xray_vt=${ax_xray_t%% *} ax_xray_vc=${ax_xray_t#* }
     ax_xray_vb=${ax_xray_vc%% *} ax_xray_vc=${ax_xray_vc#* }
     AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#if !($ax_xray_vc)
#error not offered
#endif]])], [ax_cv_xray_vec_type="$ax_xray_vt $ax_xray_vb"; break])
   done],
   [AC_COMPUTE_INT([ax_xray_vb], [(long) sizeof ($1)], [_AX_XRAY_VEC_INCLUDES],
      [ax_xray_vb=])
    AS_IF([test -n "$ax_xray_vb"], [ax_cv_xray_vec_type="$1 $ax_xray_vb"],
      [ax_cv_xray_vec_type=none])])])
AS_IF([test "x$ax_cv_xray_vec_type" != xnone], [
  XRAY_VEC_TYPE=${ax_cv_xray_vec_type%% *} XRAY_VEC_BYTES=${ax_cv_xray_vec_type##* }
  AC_DEFINE_UNQUOTED([XRAY_VEC_TYPE], [$XRAY_VEC_TYPE],
    [the vector type whose registers XRAY_NUM_VEC_REGS counts (xray)])
  AC_DEFINE_UNQUOTED([XRAY_VEC_BYTES], [$XRAY_VEC_BYTES], [its width, in bytes (xray)])
  ax_xray_defs="$ax_xray_defs
XRAY_VEC_TYPE|$XRAY_VEC_TYPE|the vector type whose registers XRAY_NUM_VEC_REGS counts
XRAY_VEC_BYTES|$XRAY_VEC_BYTES|its width, in bytes"])
AC_SUBST([XRAY_VEC_TYPE])
AC_SUBST([XRAY_VEC_BYTES])
])

AC_DEFUN([AX_XRAY_REGISTERS], [
ax_xray_regs_ok=yes
m4_ifblank([$1], [
_AX_XRAY_REGVALUE([INT], [registers])
_AX_XRAY_REGVALUE([FP], [registers])
_AX_XRAY_REGVALUE([VEC], [registers])
_AX_XRAY_VEC_TYPE
], [
_AX_XRAY_CHECK_TYPE([AX_XRAY_REGISTERS], [$1])
_AX_XRAY_REGVALUE(_AX_XRAY_REGCLASS([$1]),
  [registers_]m4_tolower(_AX_XRAY_TYPE_NAME([$1])), [registers '--types=$1'])
m4_if(_AX_XRAY_REGCLASS([$1]), [VEC], [_AX_XRAY_VEC_TYPE([$1])])
])
AS_IF([test $ax_xray_regs_ok = yes], [$2], [$3])
])
