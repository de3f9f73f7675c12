# ===========================================================================
#   ax_xray_icache.m4: measured L1 instruction cache capacity and geometry
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_ICACHE([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Measures, on the build machine and with the project's own compiler and
#   flags, the capacity of the L1 instruction cache and of the decoded-op
#   cache, by timing generated loops of growing code size (the X-Ray method
#   of Yotov, Jackson, Steele, Pingali and Stodghill, LCPC 2005, with
#   fetch-bound machine-code kernels); and the L1I's associativity and line
#   size, by timing chains of code pieces placed a cache way apart (X-Ray's
#   compact sets and block-size experiment, applied to code).  The values
#   are measured, never read from the operating system.
#
#   Cache variables (preset them to skip the measurement):
#
#     ax_cv_xray_l1i_size         L1I capacity in bytes
#     ax_cv_xray_l1i_assoc        L1I associativity in ways
#     ax_cv_xray_l1i_line         L1I line size in bytes
#     ax_cv_xray_uop_cache_ops    decoded-op cache capacity in operations
#                                 (0 where the core has none)
#
#   Options: --with-xray-l1i-size=N, --with-xray-l1i-assoc=N,
#   --with-xray-l1i-line=N, --with-xray-uop-cache-ops=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_L1I_SIZE               L1I capacity in bytes
#     XRAY_L1I_ASSOC              L1I associativity in ways
#     XRAY_L1I_LINE               L1I line size in bytes
#     XRAY_UOP_CACHE_OPS          decoded-op cache capacity in operations
#
#   and records them for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or
#   when the engine cannot run, a value is "unknown": nothing is defined, a
#   warning names the option and cache variable to set, and
#   ACTION-IF-NOT-FOUND runs (ACTION-IF-FOUND runs when the two capacities
#   are known).
#
#   A value is measured several times in fresh code buffers until three
#   determinations agree within 3 %; the L1I only where two kinds of code
#   (with and without taken jumps) step at the same size.  The ways must
#   give back the capacity with the way span they were found at, and are
#   confirmed by another kind of code or, on hardware, by the OS's cache
#   topology; the line size by both ways of moving half a set.  If they never do
#   within the engine's time budget (a very busy machine), the result line
#   says UNCONFIRMED, the value is left undefined, and a warning suggests
#   re-running configure or setting the value.
#
#   The engine program is built once per configure run, only when a value
#   must be measured, as $(top_builddir)/xray-probe (see AX_XRAY_INIT in
#   ax_xray_common.m4).  With XRAY_SIMULATE=SPEC in the environment it
#   measures a simulated machine instead (see xray(1)), for testing a
#   project's use of the macros.
#
# LICENSE
#
#   Copyright (c) 2026 The xray authors
#
#   Copying and distribution of this file, with or without modification, are
#   permitted in any medium without royalty provided the copyright notice
#   and this notice are preserved.  This file is offered as-is, without any
#   warranty.

#serial 3

AC_DEFUN([AX_XRAY_ICACHE], [
_AX_XRAY_VALUE([ax_cv_xray_l1i_size], [XRAY_L1I_SIZE], [icache], [l1i-size],
               [L1 instruction cache capacity], [bytes])
ax_xray_icache_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_l1i_assoc], [XRAY_L1I_ASSOC], [icache], [l1i-assoc],
               [L1 instruction cache associativity], [ways])
_AX_XRAY_VALUE([ax_cv_xray_l1i_line], [XRAY_L1I_LINE], [icache], [l1i-line],
               [L1 instruction cache line size], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_uop_cache_ops], [XRAY_UOP_CACHE_OPS], [icache], [uop-cache-ops],
               [decoded-op cache capacity], [ops])
AS_IF([test $ax_xray_icache_ok$ax_xray_known = yesyes], [$1], [$2])
])
