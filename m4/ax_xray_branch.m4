# ===========================================================================
#       ax_xray_branch.m4: the cost of a mispredicted conditional branch
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_BRANCH([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   The cycles one mispredicted conditional branch costs, found by timing
#   (the Counter Inspection Toolkit's controlled-misprediction kernel): a
#   loop whose if depends on a fair random bit in a share f of its
#   iterations mispredicts f/2 times an iteration on any predictor, and
#   the slope of its time against f/2 is the penalty.  No performance
#   counter is needed.  The kernels are compiled with the project's $CC and
#   $CFLAGS and checked from the compiler's assembly: where the compiler
#   turns the if into a select (cmov, csel), nothing is mispredicted and the
#   value is unknown.  Two kernels (the random bit at the end of a short and
#   of a long dependent chain) must agree within 10 % for the value to be
#   confirmed.  ACTION-IF-FOUND runs when the penalty is known.
#
#   Cache variable (preset it to skip the measurement):
#
#     ax_cv_xray_branch_miss_penalty   cycles per misprediction
#
#   Option: --with-xray-branch-miss-penalty=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_BRANCH_MISS_PENALTY    cycles a mispredicted branch costs
#
#   and records it for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or when
#   the engine cannot run, the value is "unknown": nothing is defined and a
#   warning names the option and cache variable to set.  The engine is built
#   and run as for AX_XRAY_ICACHE (see ax_xray_common.m4); with
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

AC_DEFUN([AX_XRAY_BRANCH], [
_AX_XRAY_VALUE([ax_cv_xray_branch_miss_penalty], [XRAY_BRANCH_MISS_PENALTY], [branch],
               [branch-miss-penalty], [the cost of a mispredicted branch], [cycles])
AS_IF([test "x$XRAY_BRANCH_MISS_PENALTY" != x], [$1], [$2])
])
