# ===========================================================================
#       ax_xray_dcache.m4: measured L1 data cache geometry and latency
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_DCACHE([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Measures, on the build machine and with the project's own compiler and
#   flags, the capacity, associativity and line size of the L1 data cache and
#   its load-to-use latency in core cycles, by timing pointer chases through
#   compact sets of addresses (X-Ray, Yotov, Pingali and Stodghill, Sec. 4.4:
#   Theorem 1, Fig. 8 and Fig. 10), visited in random order so that no
#   prefetcher helps.  Non-power-of-two capacities are found as such.
#   ACTION-IF-FOUND runs when the capacity is known.
#
#   Cache variables (preset them to skip the measurement):
#
#     ax_cv_xray_l1d_size         L1 data cache capacity (bytes)
#     ax_cv_xray_l1d_assoc        L1 data cache associativity (ways)
#     ax_cv_xray_l1d_line         L1 data cache line size (bytes)
#     ax_cv_xray_l1d_latency      L1 data cache load latency (cycles)
#
#   Options: --with-xray-l1d-size=N, --with-xray-l1d-assoc=N, --with-xray-l1d-line=N, --with-xray-l1d-latency=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_L1D_SIZE               L1 data cache capacity (bytes)
#     XRAY_L1D_ASSOC              L1 data cache associativity (ways)
#     XRAY_L1D_LINE               L1 data cache line size (bytes)
#     XRAY_L1D_LATENCY            L1 data cache load latency (cycles)
#
#   and records them for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or
#   when the engine cannot run, a value is "unknown": nothing is defined and
#   a warning names the option and cache variable to set.  The engine is
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

AC_DEFUN([AX_XRAY_DCACHE], [
_AX_XRAY_VALUE([ax_cv_xray_l1d_size], [XRAY_L1D_SIZE], [dcache], [l1d-size],
               [L1 data cache capacity], [bytes])
ax_xray_dcache_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_l1d_assoc], [XRAY_L1D_ASSOC], [dcache], [l1d-assoc],
               [L1 data cache associativity], [ways])
_AX_XRAY_VALUE([ax_cv_xray_l1d_line], [XRAY_L1D_LINE], [dcache], [l1d-line],
               [L1 data cache line size], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_l1d_latency], [XRAY_L1D_LATENCY], [dcache], [l1d-latency],
               [L1 data cache load latency], [cycles])
AS_IF([test $ax_xray_dcache_ok = yes], [$1], [$2])
])
