# ===========================================================================
#             ax_xray_caches.m4: measured cache levels beyond L1
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_CACHES([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Measures every data or unified cache level beyond L1: capacity,
#   associativity, line size and load latency, and the memory latency, by
#   chasing one line in each of k random pages at one page offset and fitting
#   a page-colour model to each transition of the time per load (see
#   probes/caches.c).  Physically indexed levels are measured under random
#   page placement; a value the model cannot establish is unknown, with the
#   reason in the engine's output.  A shared last level is reported as the
#   capacity this process gets (effective).  Levels beyond L3 are reported
#   by xray(1) and AX_XRAY_CONFIG_HEADER only.  ACTION-IF-FOUND runs when the
#   number of levels is known.
#
#   Cache variables (preset them to skip the measurement):
#
#     ax_cv_xray_cache_levels     data or unified cache levels (levels)
#     ax_cv_xray_l2_size          L2 cache capacity (bytes)
#     ax_cv_xray_l2_assoc         L2 cache associativity (ways)
#     ax_cv_xray_l2_line          L2 cache line size (bytes)
#     ax_cv_xray_l2_latency       L2 cache load latency (cycles)
#     ax_cv_xray_l3_size          L3 cache capacity (bytes)
#     ax_cv_xray_l3_assoc         L3 cache associativity (ways)
#     ax_cv_xray_l3_line          L3 cache line size (bytes)
#     ax_cv_xray_l3_latency       L3 cache load latency (cycles)
#     ax_cv_xray_mem_latency      memory load latency (cycles)
#
#   Options: --with-xray-cache-levels=N, --with-xray-l2-size=N and so on for every
#   value (--with-xray-l3-assoc=N, --with-xray-mem-latency=N, ...).
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_CACHE_LEVELS           data or unified cache levels (levels)
#     XRAY_L2_SIZE                L2 cache capacity (bytes)
#     XRAY_L2_ASSOC               L2 cache associativity (ways)
#     XRAY_L2_LINE                L2 cache line size (bytes)
#     XRAY_L2_LATENCY             L2 cache load latency (cycles)
#     XRAY_L3_SIZE                L3 cache capacity (bytes)
#     XRAY_L3_ASSOC               L3 cache associativity (ways)
#     XRAY_L3_LINE                L3 cache line size (bytes)
#     XRAY_L3_LATENCY             L3 cache load latency (cycles)
#     XRAY_MEM_LATENCY            memory load latency (cycles)
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

AC_DEFUN([AX_XRAY_CACHES], [
_AX_XRAY_VALUE([ax_cv_xray_cache_levels], [XRAY_CACHE_LEVELS], [caches], [cache-levels],
               [data or unified cache levels], [levels])
ax_xray_caches_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_l2_size], [XRAY_L2_SIZE], [caches], [l2-size],
               [L2 cache capacity], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_l2_assoc], [XRAY_L2_ASSOC], [caches], [l2-assoc],
               [L2 cache associativity], [ways])
_AX_XRAY_VALUE([ax_cv_xray_l2_line], [XRAY_L2_LINE], [caches], [l2-line],
               [L2 cache line size], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_l2_latency], [XRAY_L2_LATENCY], [caches], [l2-latency],
               [L2 cache load latency], [cycles])
_AX_XRAY_VALUE([ax_cv_xray_l3_size], [XRAY_L3_SIZE], [caches], [l3-size],
               [L3 cache capacity], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_l3_assoc], [XRAY_L3_ASSOC], [caches], [l3-assoc],
               [L3 cache associativity], [ways])
_AX_XRAY_VALUE([ax_cv_xray_l3_line], [XRAY_L3_LINE], [caches], [l3-line],
               [L3 cache line size], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_l3_latency], [XRAY_L3_LATENCY], [caches], [l3-latency],
               [L3 cache load latency], [cycles])
_AX_XRAY_VALUE([ax_cv_xray_mem_latency], [XRAY_MEM_LATENCY], [caches], [mem-latency],
               [memory load latency], [cycles])
AS_IF([test $ax_xray_caches_ok = yes], [$1], [$2])
])
