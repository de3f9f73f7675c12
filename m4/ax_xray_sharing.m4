# ===========================================================================
#    ax_xray_sharing.m4: which CPUs share each cache level, core-to-core cost
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_SHARING([ACTION-IF-FOUND], [ACTION-IF-NOT])
#
# DESCRIPTION
#
#   How many of the CPUs the build may use share the L2 and the L3 with the
#   first of them, and what it costs to hand a written line from one core to
#   another and back, all found by timing.  The first CPU chases a random
#   chain just under a level's measured capacity, alone and while another
#   CPU chases a chain of its own: a shared level then spills (the pair runs
#   as slowly as one chain twice as long), a private one does not.  Two
#   footprints, three rounds each; the count is confirmed when they all agree
#   and the level's capacity, or the OS's cache topology, confirms it.  The
#   round trip is a token handed back and forth through one word, checked
#   by a chase through lines the other CPU has just written.  With one
#   usable CPU every value is unknown.  ACTION-IF-FOUND runs when the L2
#   count is known.
#
#   Cache variables (preset one to skip its measurement):
#
#     ax_cv_xray_l2_shared_by      CPUs sharing the L2 (itself too)
#     ax_cv_xray_l3_shared_by      CPUs sharing the L3 (itself too)
#     ax_cv_xray_c2c_latency       core-to-core round trip, cycles
#
#   Options: --with-xray-l2-shared-by=N, --with-xray-l3-shared-by=N,
#   --with-xray-c2c-latency=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_L2_SHARED_BY            usable CPUs sharing the L2 with the first
#     XRAY_L3_SHARED_BY            usable CPUs sharing the L3 with the first
#     XRAY_C2C_LATENCY             round trip of a line between two cores, cycles
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

#serial 2

AC_DEFUN([AX_XRAY_SHARING], [
_AX_XRAY_VALUE([ax_cv_xray_l2_shared_by], [XRAY_L2_SHARED_BY], [sharing], [l2-shared-by],
               [usable CPUs sharing the L2], [CPUs])
ax_xray_sharing_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_l3_shared_by], [XRAY_L3_SHARED_BY], [sharing], [l3-shared-by],
               [usable CPUs sharing the L3], [CPUs])
_AX_XRAY_VALUE([ax_cv_xray_c2c_latency], [XRAY_C2C_LATENCY], [sharing], [c2c-latency],
               [core-to-core round trip of a line], [cycles], [decimal])
AS_IF([test $ax_xray_sharing_ok = yes], [$1], [$2])
])
