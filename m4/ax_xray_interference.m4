# ===========================================================================
#    ax_xray_interference.m4: destructive and constructive interference sizes
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_INTERFERENCE([ACTION-IF-FOUND], [ACTION-IF-NOT])
#
# DESCRIPTION
#
#   The two sizes C++ names std::hardware_destructive_interference_size and
#   std::hardware_constructive_interference_size, measured on this machine
#   instead of assumed.  Destructive: two cores each increment a word of
#   their own, 8 to 1024 bytes apart; the least distance from which on they
#   no longer slow each other (a line, or two where a prefetcher pairs
#   lines).  Constructive: one thread loads the last line of an aligned
#   block and then its first, past the L2; the block that one miss brings
#   in whole (the line, or more with an adjacent-line prefetcher), where the
#   second load saves most of a miss, not the few cycles a cache may save on
#   a neighbouring line.  Each comes from three rounds or more, is unknown
#   where they give no clear answer, and is confirmed when most rounds alone
#   agree and the other size agrees.  ACTION-IF-FOUND runs when the
#   destructive size is known.
#
#   Cache variables (preset one to skip its measurement):
#
#     ax_cv_xray_destructive_interference    bytes
#     ax_cv_xray_constructive_interference   bytes
#
#   Options: --with-xray-destructive-interference=N,
#   --with-xray-constructive-interference=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_DESTRUCTIVE_INTERFERENCE     least distance two cores' writes stay apart
#     XRAY_CONSTRUCTIVE_INTERFERENCE    block one miss brings in whole, bytes
#
#   and records them for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or
#   when the engine cannot run, the values are "unknown": nothing is defined
#   and a warning names the option and cache variable to set.  The engine is
#   built and run as for AX_XRAY_ICACHE (see ax_xray_common.m4); with
#   XRAY_SIMULATE=SPEC it measures a simulated machine instead (see xray(1)).
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

AC_DEFUN([AX_XRAY_INTERFERENCE], [
_AX_XRAY_VALUE([ax_cv_xray_destructive_interference], [XRAY_DESTRUCTIVE_INTERFERENCE],
               [interference], [destructive-interference],
               [least distance at which writes of two cores do not interfere], [bytes])
ax_xray_interference_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_constructive_interference], [XRAY_CONSTRUCTIVE_INTERFERENCE],
               [interference], [constructive-interference],
               [block one miss brings in whole], [bytes])
AS_IF([test $ax_xray_interference_ok = yes], [$1], [$2])
])
