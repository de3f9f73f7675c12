# ===========================================================================
#    ax_xray_lru.m4: whether the L1D evicts by recency (LRU or close)
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_LRU([ACTION-IF-LRU], [ACTION-IF-NOT])
#
# DESCRIPTION
#
#   Whether the L1 data cache evicts by recency (LRU, or an approximation
#   of it), found by timing the access pattern of the Counter Inspection
#   Toolkit (Sec. 4.1): a buffer a block larger than the L1D, swept block by
#   block in the same order each time, misses on every load when the cache
#   is LRU; swept starting one block later each time, it misses on one block
#   in five.  The value is 1 when the second sweep misses half as much as
#   the first or less (and the first misses much): on such a cache a loop
#   over a buffer slightly too large pays the next level's latency, and
#   shifting each sweep's start avoids most of it.  It is 0 when the order
#   makes no difference (random replacement).  Two buffer shapes must agree
#   for the value to be confirmed.  ACTION-IF-LRU runs when the value is 1.
#
#   Cache variable (preset it to skip the measurement):
#
#     ax_cv_xray_l1d_lru           1 if the L1D is LRU-like, 0 if not
#
#   Option: --with-xray-l1d-lru=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_L1D_LRU                the L1D evicts by recency (LRU or close)
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

AC_DEFUN([AX_XRAY_LRU], [
_AX_XRAY_VALUE([ax_cv_xray_l1d_lru], [XRAY_L1D_LRU], [lru], [l1d-lru],
               [whether the L1D evicts by recency], [boolean])
AS_IF([test "x$XRAY_L1D_LRU" = x1], [$1], [$2])
])
